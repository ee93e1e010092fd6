"""Time ``python -m pyapp run --concurrency N`` against a slow, rate-limited local server (DR-008).

Usage: ``python3 bench/bench_concurrency.py [--levels 1 2 4 8] [--repeats 3] [--latency 0.2] [--per-second 10]``

The server is the tests' fake OpenAI-compatible provider (``tests/support/fake_provider.py``) on
loopback: every answer takes ``--latency`` seconds, and more than ``--per-second`` requests within
any second get a 429 with ``retry-after-ms`` saying when the next one will be taken, as a provider's
rate limit does. Each level runs the whole command (start, 20 calls, grading, an fsync per entry)
in a process of its own, the levels taking turns. Printed: seconds min / median / max, the 429s
met, and the speed-up of each level's median over one call at a time, measured in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests" / "support")]

from fake_provider import FakeProvider, faithful_reply  # noqa: E402


class RateLimited:
    """Replies after ``latency`` seconds; a 429 for a request beyond ``per_second`` in the last second."""

    def __init__(self, latency: float, per_second: int) -> None:
        self.latency, self.per_second = latency, per_second
        self.taken: deque[float] = deque()
        self.limited = 0
        self.lock = threading.Lock()

    def __call__(self, body: dict):
        with self.lock:
            now = time.monotonic()
            while self.taken and now - self.taken[0] >= 1.0:
                self.taken.popleft()
            if len(self.taken) >= self.per_second:
                self.limited += 1
                wait_ms = max(1, round((1.0 - (now - self.taken[0])) * 1000))
                return 429, {"error": {"message": f"rate limit: retry in {wait_ms} ms"}}
            self.taken.append(now)
        time.sleep(self.latency)
        return faithful_reply(body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--levels", type=int, nargs="*", default=[1, 2, 4, 8])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--per-second", type=int, default=10)
    args = parser.parse_args()
    times: dict[int, list[float]] = {n: [] for n in args.levels}
    limited: dict[int, int] = dict.fromkeys(args.levels, 0)
    with tempfile.TemporaryDirectory() as folder:
        for repeat in range(args.repeats):
            for n in args.levels:
                reply = RateLimited(args.latency, args.per_second)
                with FakeProvider(reply) as fake:
                    log = Path(folder) / f"run-{n}-{repeat}.jsonl"
                    start = time.perf_counter()
                    done = subprocess.run(
                        [sys.executable, "-m", "pyapp", "run", "--provider", "openai-compatible", "--model", "m",
                         "--base-url", fake.base_url, "--log", str(log), "--concurrency", str(n)],
                        cwd=ROOT, capture_output=True, text=True, timeout=600)
                    times[n].append(time.perf_counter() - start)
                if done.returncode != 0:
                    raise SystemExit(f"--concurrency {n} failed: {done.stderr[-500:]}")
                limited[n] += reply.limited
    print(f"python -m pyapp run, 20 calls, server latency {args.latency:g} s, at most {args.per_second} requests "
          f"a second; {args.repeats} runs a level, levels taking turns")
    print(f"{'concurrency':>11} {'min s':>7} {'median':>7} {'max':>7} {'429s':>5} {'speed-up':>9}")
    base = statistics.median(times[args.levels[0]])
    for n in args.levels:
        median = statistics.median(times[n])
        print(f"{n:>11} {min(times[n]):7.2f} {median:7.2f} {max(times[n]):7.2f} {limited[n]:>5} "
              f"{base / median:8.2f}x")


if __name__ == "__main__":
    main()
