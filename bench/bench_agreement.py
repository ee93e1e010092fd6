"""Time the agreement figures with and without a model judge in the log, on CPython (DR-009, DR-012).

Usage: ``python3 bench/bench_agreement.py [--runs 20 200] [--repeats 5]``

Each log holds RUNS runs of the 80-case set (every answer counted), each answer rated by
two people and, in the judged log, judged by one model twice (two judgings). Timed, from
the parsed entries and the rebuilt runs (as the page's "Show agreement" starts):
:func:`pyapp.evaluation.agreement.agreement_report` on the log without judgement entries,
and on the same log with them. The ratio is the judged log's median over the other's,
measured side by side in one process. Times are min / median / max milliseconds.
"""

from __future__ import annotations

import argparse
import copy
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "support")]

from eval_helpers import full_run, rating  # noqa: E402
from judge_design import judgement  # noqa: E402
from pyapp.evaluation.agreement import agreement_report  # noqa: E402
from pyapp.evaluation.evalset import LARGE_SET_VERSION  # noqa: E402
from pyapp.evaluation.rebuild import rebuild  # noqa: E402
from pyapp.explanation.rubric import RUBRIC  # noqa: E402


def logs(runs: int) -> tuple[list[dict], list[dict]]:
    """The rated log, and the same log with two judgings of every answer appended."""
    calls = [e for r in range(runs) for e in full_run(f"run-{r:04d}", start=100.0 * r, version=LARGE_SET_VERSION)]
    rated = calls + [rating(c["id"], person, time=1e6 + i, answer=(i + offset) % 5 != 0)
                     for i, c in enumerate(calls) for offset, person in enumerate(("Ann", "Bo"))]
    # One judgement made whole, then copied: every copy is a valid entry on its own call and judging.
    model = judgement(calls[0]["id"], dict.fromkeys(RUBRIC.keys, True))
    judged = list(rated)
    for judging in (1, 2):
        for i, c in enumerate(calls):
            entry = copy.deepcopy(model)
            entry.update(id=f"j{judging}-{i:07d}", call_id=c["id"], judging_id=f"judging-{judging}")
            entry["answers"]["answer"] = (i + judging) % 4 != 0
            judged.append(entry)
    return rated, judged


def timed(entries: list[dict], repeats: int) -> list[float]:
    runs = list(rebuild(entries, validated=True))
    agreement_report(entries, runs)  # the runs' grades are made once, as the page's worker keeps them
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        agreement_report(entries, runs)
        times.append((time.perf_counter() - start) * 1000)
    return times


def shown(times: list[float]) -> str:
    return f"{min(times):9.1f} {statistics.median(times):9.1f} {max(times):9.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, nargs="+", default=[20, 200])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"CPython {platform.python_version()}; agreement_report, ms (min median max)")
    for runs in args.runs:
        rated, judged = logs(runs)
        plain, with_judge = timed(rated, args.repeats), timed(judged, args.repeats)
        print(f"{runs * 80:7,} answers, {len(rated):7,} entries, no judge:        {shown(plain)}")
        print(f"{runs * 80:7,} answers, {len(judged):7,} entries, judged twice:    {shown(with_judge)}"
              f"   ratio {statistics.median(with_judge) / statistics.median(plain):.2f}")


if __name__ == "__main__":
    main()
