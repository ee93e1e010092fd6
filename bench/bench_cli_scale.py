"""The command line on large logs: ``report`` (time and peak memory) and ``run``'s first call (time from the
process's start to the first request the provider sees, and the memory the process had used by then), on
synthetic JSON-lines logs of 10,000 and 100,000 entries (DR-008).

``python bench/bench_cli_scale.py [--sizes 10000 100000] [--repeats 3] [--against COMMIT]``: with
``--against``, ``pyapp`` as that commit holds it is measured too, the two taking turns. Prints min / median /
max. The goals (issue "a gate a CI job can trust"): at 100,000 entries, ``report`` within 10 s and 300 MB,
``run``'s first call within 1 s. ``report`` reads a long log, and makes its runs' reports, with a worker process
per core (``pyapp.cli.reading_processes``); "worker MB" is the largest worker's peak, which counts again the memory
it was forked with.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT / "tests"), str(ROOT / "tests" / "support"), str(ROOT)]

from fake_provider import FakeProvider  # noqa: E402
from pyapp.evaluation.export import log_line  # noqa: E402
from stats_util import summary  # noqa: E402
from synthetic_logs import synthetic_log  # noqa: E402

# Runs a command of pyapp and says on standard error the most memory the process held (kB, Linux): VmHWM, the
# peak of this program's own memory. Not ru_maxrss, which Linux carries over from before the exec, when the
# forked child still held this benchmark's memory.
# The command's own peak (VmHWM), and the largest peak of the processes it started and waited for (its reading
# workers, if any: each began as a copy of the command's memory, which the figure counts again).
PEAK = ("import re, resource, sys; from pyapp.cli.main import main; status = main(sys.argv[1:]); "
        "print('peak', re.search(r'VmHWM:\\s*(\\d+)', open('/proc/self/status').read())[1], "
        "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(status)")


def pyapp_at(commit: str, folder: Path) -> Path:
    """A folder holding ``pyapp`` as ``commit`` has it."""
    archive = subprocess.run(["git", "archive", commit, "pyapp"], cwd=ROOT, capture_output=True, check=True).stdout
    folder.mkdir(parents=True)
    archive_path = folder / "pyapp.tar"
    archive_path.write_bytes(archive)
    with tarfile.open(archive_path) as tar:
        tar.extractall(folder, filter="data")
    return folder


def report_once(code: Path, log: Path) -> tuple[float, float, float]:
    """Seconds, peak MB and the largest worker's peak MB (0 without workers) of ``report LOG`` with the
    ``pyapp`` in folder ``code``."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PEAK, "report", str(log)], cwd=code, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, check=True)
    seconds = time.perf_counter() - start
    peak_kb, worker_kb = map(int, done.stderr.rsplit("peak ", 1)[1].split()[:2])
    return seconds, peak_kb / 1024, worker_kb / 1024


def first_call_once(code: Path, log: Path, scratch: Path) -> tuple[float, float]:
    """Seconds from ``run``'s start to the provider's first request, and the MB the process had held by then."""
    copy = scratch / "appended.jsonl"
    shutil.copyfile(log, copy)
    with FakeProvider() as fake:
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "pyapp", "run", "--provider", "openai-compatible", "--model",
                                  "m", "--base-url", fake.base_url, "--log", str(copy)], cwd=code,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while not fake.requests("POST"):
                if child.poll() is not None:
                    raise RuntimeError(f"run ended with status {child.returncode} before its first call")
                time.sleep(0.005)
            seconds = time.perf_counter() - start
            status = Path(f"/proc/{child.pid}/status").read_text()
            peak_kb = int(next(line for line in status.splitlines() if line.startswith("VmHWM:")).split()[1])
        finally:
            child.kill()
            child.wait()
    return seconds, peak_kb / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--against", metavar="COMMIT", help="measure pyapp as this commit holds it too, in turns")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        builds = {"this tree": ROOT}
        if args.against:
            builds[args.against] = pyapp_at(args.against, folder / "against")
        print(f"Python {sys.version.split()[0]}; min / median / max of {args.repeats}; load average "
              f"{os.getloadavg()[0]:.1f}")
        for size in args.sizes:
            log = folder / f"log{size}.jsonl"
            with open(log, "w", encoding="utf-8") as handle:
                handle.writelines(log_line(entry) for entry in synthetic_log(size))
            print(f"{size:,} entries, {log.stat().st_size / 1e6:,.0f} MB")
            results: dict[str, dict[str, list[float]]] = {name: {} for name in builds}
            for _ in range(args.repeats):
                for name, code in builds.items():
                    for what, measured in (("report", report_once(code, log)),
                                           ("run's first call", first_call_once(code, log, folder))):
                        results[name].setdefault(f"{what} s", []).append(measured[0])
                        results[name].setdefault(f"{what} MB", []).append(measured[1])
                        if len(measured) > 2:
                            results[name].setdefault(f"{what} worker MB", []).append(measured[2])
            for name, figures in results.items():
                for what, values in figures.items():
                    print(f"  {name:>10}  {what:<22} {summary(values, 1)}")
            log.unlink()
        print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
