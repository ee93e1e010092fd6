"""A long log read by worker processes (pyapp.cli.reading_processes) gives what it gives read in one process:
the same entries, grades and figures, and the same refusal of a bad file, in batches small enough that every
file here is spread over two or three workers.

The workers are forked, so they are started from a process of their own, with one thread, as the command line
is; the reading in one process is done here.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

from log_files import bad_logs, log_bytes, own_set_log, read_all
from pyapp.evaluation import log_stream
from pyapp.evaluation.log_stream import log_lines
from synthetic_logs import synthetic_log

ROOT = Path(__file__).resolve().parents[2]
BLOCK = 5_000  # about two entries of the synthetic log, and a whole bad log or two

READ_IN_WORKERS = """
import json, sys
from pyapp.cli.reading_processes import PARALLEL_FROM, batch_map
from pyapp.evaluation import log_stream
sys.path[:0] = sys.argv[1].split(",")
from log_files import read_all

log_stream.BLOCK_BYTES = int(sys.argv[2])
found = {}
for number, path in enumerate(sys.argv[3:]):
    with batch_map(PARALLEL_FROM, count=2 + number % 2) as batches:
        found[path] = read_all(path, batches)
        found[path]["in workers"] = batches is not map
print(json.dumps(found))
"""


def test_a_log_read_by_two_workers_gives_what_one_process_gives(tmp_path):
    logs = {"synthetic": log_bytes(synthetic_log(300)), "own cases": log_bytes(own_set_log()), **bad_logs()}
    paths = {}
    for number, (name, data) in enumerate(logs.items()):
        paths[name] = tmp_path / f"log{number}.jsonl"
        paths[name].write_bytes(data)
    support = f"{ROOT / 'tests'},{ROOT / 'tests' / 'support'}"
    done = subprocess.run([sys.executable, "-c", READ_IN_WORKERS, support, str(BLOCK), *map(str, paths.values())],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    in_workers = json.loads(done.stdout)
    log_stream.BLOCK_BYTES, before = BLOCK, log_stream.BLOCK_BYTES
    try:
        for name, path in paths.items():
            here = json.loads(json.dumps(read_all(str(path), map)))
            found = in_workers[str(path)]
            assert found.pop("in workers") is True
            assert found == here, name
            assert ("refused" in here) == (name not in ("synthetic", "own cases")), name
    finally:
        log_stream.BLOCK_BYTES = before
    graded = [graded for _, graded in in_workers[str(paths["synthetic"])]["entries"] if graded is not None]
    assert len(graded) > 200  # the answers were graded by the workers, not by the index
    assert not any(graded for _, graded in in_workers[str(paths["own cases"])]["entries"])


def test_a_short_log_or_a_process_with_other_threads_is_read_in_this_process():
    from pyapp.cli import reading_processes

    with reading_processes.batch_map(reading_processes.PARALLEL_FROM - 1, count=2) as batches:
        assert batches is map
    with reading_processes.batch_map(reading_processes.PARALLEL_FROM, count=1) as batches:
        assert batches is map
    import threading

    waiting = threading.Event()
    thread = threading.Thread(target=waiting.wait)
    thread.start()
    try:
        assert reading_processes.workers() == 1
    finally:
        waiting.set()
        thread.join()
    assert len(list(log_lines(io.BytesIO(log_bytes(synthetic_log(5)))))) == 5


def test_what_a_worker_raises_is_raised_by_the_command_in_its_place():
    script = ("from pyapp.cli.reading_processes import PARALLEL_FROM, batch_map\n"
              "with batch_map(PARALLEL_FROM, count=2) as batches:\n"
              "    taken = []\n"
              "    try:\n"
              "        for value in batches(float, ['1', '2', 'x', '4']):\n"
              "            taken.append(value)\n"
              "    except ValueError as exc:\n"
              "        print(taken, exc)\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[1.0, 2.0] could not convert string to float: 'x'"


REPORT_IN_WORKERS = """
import sys
from pyapp.cli import reading_processes, report
from pyapp.cli.main import main

reading_processes.PARALLEL_FROM = 0
report.RUNS_PER_BATCH = 2
sys.exit(main(sys.argv[1:]))
"""


def test_the_reports_of_a_long_logs_runs_made_by_workers_are_the_ones_made_here(tmp_path, capsys):
    from pyapp.cli.inputs import read_runs
    from pyapp.cli.main import main

    path = tmp_path / "log.jsonl"
    path.write_bytes(log_bytes(synthetic_log(300)))
    for flags in ([], ["--json"]):
        done = subprocess.run([sys.executable, "-c", REPORT_IN_WORKERS, "report", str(path), *flags], cwd=ROOT,
                              capture_output=True, text=True, check=True)
        assert main(["report", str(path), *flags]) == 0  # a short log: read and reported in this process
        here = capsys.readouterr().out
        assert done.stdout == here
    assert len(read_runs(str(path))) > 6  # several batches of two runs, so both workers made some
