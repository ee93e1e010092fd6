"""Build time of the real site and of projects with 100 and 1,000 generated records.

    python bench/bench_build.py [--repeat 5] [--cpu]

Prints min / median / max in ms; with --cpu, of the CPU time this process used, which
a busy machine disturbs less than the time on the clock. The generated projects reuse the real templates,
pages and Pyodide files, so the difference between rows is the records' cost.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sitegen import ROOT, builder  # noqa: E402
from stats_util import summary, time_ms  # noqa: E402

BODY = """
## Context

Record {n} exists to measure the build. It mentions DR-001 and links to [the first](../DR-001/).

## Decision

A decision with a table:

| a | b |
|---|---|
| {n} | {n} |

## Options considered

1. One.
2. Two.

## Why

Because.

## What happened

Nothing measured.

## What I'd change

Nothing.
"""


def generated_project(base: Path, count: int) -> Path:
    root = base / f"project-{count}"
    shutil.copytree(ROOT / "site_src", root / "site_src")
    shutil.copytree(ROOT / "pyapp", root / "pyapp", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "pyodide").symlink_to(ROOT / "node_modules" / "pyodide")
    (root / "decisions").mkdir()
    for n in range(1, count + 1):
        front = f"---\nid: DR-{n:03d}\ntitle: Generated record {n}\nstatus: Accepted\ndate: 2026-12-02\n---\n"
        (root / "decisions" / f"DR-{n:03d}-generated.md").write_text(front + BODY.format(n=n), encoding="utf-8")
    return root


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cpu", action="store_true", help="measure CPU time instead of wall-clock time")
    args = parser.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter
    print(f"build {'CPU ' if args.cpu else ''}time, ms (min / median / max), load + validate + render + write dist/")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        projects = [("real site", ROOT)] + [
            (f"{n} generated records", generated_project(base, n)) for n in (100, 1000)
        ]
        rows = []
        for label, root in projects:
            records = len(list((root / "decisions").glob("*.md")))
            times = time_ms(lambda root=root: builder.build(root, base / "dist"), args.repeat, clock)
            rows.append((label, records, times))
            print(f"  {label:24} {records:5} records  {summary(times)}")
        (_, n1, t1), (_, n2, t2) = rows[1], rows[2]
        import statistics

        per_record = (statistics.median(t2) - statistics.median(t1)) / (n2 - n1)
        print(f"  marginal cost per record between {n1} and {n2} records: {per_record:.2f} ms")


if __name__ == "__main__":
    main()
