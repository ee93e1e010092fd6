"""What compression saves on the real site: bytes of every file the service worker keeps, raw,
gzip (level 1, nginx's default; level 6, Apache's mod_deflate default; level 9) and brotli
(level 5, a common on-the-fly setting; level 11, compressed ahead of time), by kind of file.

    python bench/bench_compression.py

Sizes are exact, not timings: one build, no repeats. Needs the ``bench`` extra (brotli).
"""

from __future__ import annotations

import gzip
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import brotli  # noqa: E402

from sitegen import builder, service_worker  # noqa: E402

METHODS = {
    "gzip -1": lambda data: gzip.compress(data, 1, mtime=0),
    "gzip -6": lambda data: gzip.compress(data, 6, mtime=0),
    "gzip -9": lambda data: gzip.compress(data, 9, mtime=0),
    "brotli 5": lambda data: brotli.compress(data, quality=5),
    "brotli 11": lambda data: brotli.compress(data, quality=11),
}


def kind(path: str) -> str:
    return "." + path.rsplit(".", 1)[-1] if "." in path.rsplit("/", 1)[-1] else "(none)"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        files = builder.build(dist=Path(tmp) / "dist")
    kept = {path: files[path] for path in service_worker.kept_files(files)}
    sizes: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for path, data in kept.items():
        row = sizes[kind(path)]
        row["raw"] += len(data)
        for name, compress in METHODS.items():
            row[name] += len(compress(data))
        if len(data) > 500_000:
            print(f"  {path}: " + ", ".join(f"{name} {len(compress(data)):,} B" for name, compress in
                                            [("raw", bytes), *METHODS.items()]))
    columns = ["raw", *METHODS]
    print(f"{'kind':8}" + "".join(f"{c:>14}" for c in columns) + "   (bytes of the files the service worker keeps)")
    total = defaultdict(int)
    for name in sorted(sizes, key=lambda k: -sizes[k]["raw"]):
        print(f"{name:8}" + "".join(f"{sizes[name][c]:>14,}" for c in columns))
        for c in columns:
            total[c] += sizes[name][c]
    print(f"{'all':8}" + "".join(f"{total[c]:>14,}" for c in columns))
    print(f"{'share':8}" + "".join(f"{total[c] / total['raw']:>14.2f}" for c in columns))


if __name__ == "__main__":
    main()
