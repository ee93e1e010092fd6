"""Building the site against ``mkdocs build`` on the same Markdown, each as a whole process.

    python bench/bench_mkdocs.py [--repeat 5] [--before OLD/build.py] [--only-real]

Both build from a copy in a temporary folder: this project with ``python build.py --root``
(records, pages, templates, the Pyodide runtime copied, the wheel and the service worker
written), MkDocs 1.6 (the ``bench`` extra, not a dependency of the site) with its own theme
and the same Markdown extensions, over the same records and home page. Rows: the real
records, then 100 and 1,000 generated ones (as ``bench_build.py`` makes them). Turns are
taken; each row prints min / median / max in ms and the ratio of the medians.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_build import generated_project  # noqa: E402
from sitegen import ROOT  # noqa: E402
from stats_util import summary  # noqa: E402

MKDOCS_YML = """site_name: K-d Tree Explorer
theme: mkdocs
markdown_extensions: [tables, fenced_code, toc, attr_list]
"""


def real_project(base: Path) -> Path:
    root = base / "project-real"
    for name in ("decisions", "site_src", "pyapp", "vendor"):
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "pyodide").symlink_to(ROOT / "node_modules" / "pyodide")
    return root


def mkdocs_project(project: Path) -> Path:
    """A MkDocs project holding the same Markdown: the home page and every record."""
    root = project.parent / (project.name + "-mkdocs")
    (root / "docs" / "decisions").mkdir(parents=True)
    (root / "mkdocs.yml").write_text(MKDOCS_YML, encoding="utf-8")
    shutil.copy(project / "site_src" / "pages" / "index.md", root / "docs" / "index.md")
    for record in sorted((project / "decisions").glob("*.md")):
        shutil.copy(record, root / "docs" / "decisions" / record.name)
    return root


CPU = []  # the CPU time (user + system) of each process run, in ms, in the order run


def run(command: list[str], cwd: Path) -> float:
    """Milliseconds one whole process takes on the clock; its CPU time, which a busy machine disturbs less,
    goes to ``CPU``."""
    started, used = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append((now.ru_utime - used.ru_utime + now.ru_stime - used.ru_stime) * 1000)
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", type=Path, help="an earlier version's build.py, timed in the same turns")
    parser.add_argument("--only-real", action="store_true", help="the real records only, not the generated ones")
    args = parser.parse_args()
    python = sys.executable
    mkdocs = [python, "-m", "mkdocs", "build", "--quiet"]
    print(f"load average (1, 5, 15 min) before {os.getloadavg()}")
    print("whole process, ms on the clock and of CPU time (min / median / max), this build vs mkdocs build; "
          "ratio of medians")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        rows = []
        projects = [("real records", real_project(base))]
        if not args.only_real:
            projects += [(f"{n} generated", generated_project(base, n)) for n in (100, 1000)]
        for label, project in projects:
            docs = mkdocs_project(project)
            records = len(list((project / "decisions").glob("*.md")))
            ours, theirs, earlier = [], [], []
            command = [python, str(ROOT / "build.py"), "--root", str(project)]
            run(command, project)  # fills the caches
            if args.before:
                # Its own copy of the project: its caches and dist/ are not this version's.
                old_project = shutil.copytree(project, project.with_name(project.name + "-before"), symlinks=True,
                                              ignore=shutil.ignore_patterns("dist", ".cache"))
                # Its own Pyodide folder: the precompiled stdlib's cache beside it keeps one version's zip.
                (old_project / "node_modules" / "pyodide").unlink()
                (old_project / "node_modules" / "pyodide").symlink_to(args.before.resolve().parent / "node_modules"
                                                                      / "pyodide")
                old_command = [python, str(args.before), "--root", str(old_project)]
                run(old_command, old_project)
            cpu: dict[str, list[float]] = {"ours": [], "theirs": [], "earlier": []}
            for _ in range(args.repeat):
                turns = [("ours", ours, command, project), ("theirs", theirs, mkdocs, docs)]
                if args.before:
                    turns.append(("earlier", earlier, old_command, old_project))
                for kind, times, argv, cwd in turns:
                    times.append(run(argv, cwd))
                    cpu[kind].append(CPU[-1])
            for clock, a, b, c in (("clock", ours, theirs, earlier),
                                   ("CPU", cpu["ours"], cpu["theirs"], cpu["earlier"])):
                ratio = statistics.median(a) / statistics.median(b)
                print(f"  {label:14} {records:5} records, {clock:5}  build.py {summary(a)}   mkdocs {summary(b)}   "
                      f"ratio {ratio:.2f}")
                if args.before:
                    print(f"  {'':14} {'':5}          {'':5}  before   {summary(c)}   "
                          f"ratio {statistics.median(c) / statistics.median(b):.2f}")
            rows.append((records, ours, theirs))
        print(f"load average (1, 5, 15 min) after {os.getloadavg()}")
        if len(rows) < 3:
            return
        (n1, ours1, theirs1), (n2, ours2, theirs2) = rows[1], rows[2]
        for name, t1, t2 in (("build.py", ours1, ours2), ("mkdocs", theirs1, theirs2)):
            per_record = (statistics.median(t2) - statistics.median(t1)) / (n2 - n1)
            print(f"  {name}: {per_record:.2f} ms per record between {n1} and {n2} records")


if __name__ == "__main__":
    main()
