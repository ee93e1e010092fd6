"""A log whose last line a write left unfinished: every command that reads it names the line and byte, and
``python -m pyapp repair`` moves the cut line beside the log without losing a byte (DR-008)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from cli_run import main_in_thread
from eval_helpers import decision, full_run
from fake_provider import FakeProvider
from pyapp.cli import repair
from pyapp.cli.main import main
from pyapp.cli.terminal import LogFile
from pyapp.evaluation.export import export_json, parse_import
from pyapp.evaluation.rebuild import rebuild

NOTE = "Selkeä selitys"  # a character of two bytes, which a cut can split


def written_log(tmp_path: Path) -> tuple[Path, list[dict], int]:
    """A log written as run writes one, an append per entry: a run of twenty calls, then a decision on the last
    call; the entries and the offset of the last line."""
    path = tmp_path / "runs.jsonl"
    calls = full_run("run-1")
    entries = [*calls, decision(calls[-1]["id"], True, NOTE, time=20)]
    log = LogFile(str(path))
    for entry in entries:
        log.write([entry])
    data = path.read_bytes()
    return path, entries, data.rindex(b"\n", 0, len(data) - 1) + 1


def cut_at(data: bytes, start: int, how: str) -> bytes:
    """``data`` as a write stopped in its last line (which begins at ``start``) leaves it."""
    line = data[start:]
    note = line.index(NOTE.encode())
    return data[:start] + {
        "mid-string": line[:note + 4],
        "after-a-comma": line[:line.index(b",") + 1],
        "mid-character": line[:line.index("ä".encode()) + 1],
        "after-the-first-byte": line[:1],
        "zero-filled": line[:note] + b"\0" * (len(line) - note),
        "cut-then-a-line-break": line[:note + 4] + b"\n",
    }[how]


CUTS = ["mid-string", "after-a-comma", "mid-character", "after-the-first-byte", "zero-filled",
        "cut-then-a-line-break"]


def cut_message(log: Path, start: int) -> str:
    return (f"error: {log} ends in a line cut off mid-write (line 21, from byte {start:,}); every line before it is "
            f"whole. Move the cut line to a file beside the log with: python -m pyapp repair {log}\n")


def tails(log: Path) -> list[Path]:
    return sorted(log.parent.glob(log.name + ".cut-*"))


@pytest.mark.parametrize("how", CUTS)
def test_run_and_report_name_the_cut_line_and_its_byte_and_change_nothing(tmp_path, capsys, how):
    log, _, start = written_log(tmp_path)
    log.write_bytes(cut_at(log.read_bytes(), start, how))
    before = log.read_bytes()
    assert main(["run", "--continue", "run-1", "--log", str(log)]) == 1
    assert capsys.readouterr().err == cut_message(log, start)
    assert main(["report", str(log)]) == 1
    assert capsys.readouterr().err == cut_message(log, start)
    assert log.read_bytes() == before and tails(log) == []


@pytest.mark.parametrize("command", [["report"], ["agreement"], ["compare", "--run", "a", "--run", "b"],
                                     ["baseline", "--run", "a"], ["evalset", "--set", "own"]],
                         ids=["report", "agreement", "compare", "baseline", "evalset"])
def test_every_command_that_reads_a_log_names_the_cut_line(tmp_path, capsys, command):
    log, _, start = written_log(tmp_path)
    log.write_bytes(cut_at(log.read_bytes(), start, "mid-string"))
    where = 1 if command[0] != "evalset" else len(command)  # evalset takes the log after its options
    assert main([*command[:where], str(log), *command[where:]]) == 1
    assert capsys.readouterr().err == cut_message(log, start)


@pytest.mark.parametrize("how", CUTS)
def test_repair_moves_exactly_the_cut_bytes_beside_the_log_and_keeps_every_whole_entry(tmp_path, capsys, how):
    log, entries, start = written_log(tmp_path)
    cut = cut_at(log.read_bytes(), start, how)
    log.write_bytes(cut)
    assert main(["repair", str(log)]) == 0
    [tail] = tails(log)
    size = len(cut) - start
    assert capsys.readouterr().out == (
        f"moved the line cut off mid-write at the end of {log} (line 21: {size} byte{'s' * (size != 1)} from byte "
        f"{start:,}) to {tail}; {log} keeps 20 whole entries\n")
    assert tail.read_bytes() == cut[start:] and log.read_bytes() == cut[:start]
    assert parse_import(log.read_bytes()) == entries[:-1]
    assert LogFile(str(log)).entries == entries[:-1]  # what run reads
    assert main(["report", str(log), "--json"]) == 0
    assert capsys.readouterr().err == ""


def test_a_whole_last_entry_without_its_line_break_is_read_and_run_asks_for_the_line_break(tmp_path, capsys):
    """Not a cut: the entry's bytes are all there. Every reader takes it; run refuses to append after it (the
    two entries would share a line), and repair adds only the line break."""
    log, entries, start = written_log(tmp_path)
    whole = log.read_bytes()
    log.write_bytes(whole[:-1])
    assert parse_import(log.read_bytes()) == entries
    assert main(["report", str(log), "--json"]) == 0
    capsys.readouterr()
    assert main(["run", "--continue", "run-1", "--log", str(log)]) == 1
    assert capsys.readouterr().err == (
        f"error: {log} does not end with a line break: its last line (line 21, from byte {start:,}) is a whole "
        f"entry, but an entry appended now would join it. Add the line break with: python -m pyapp repair {log}\n")
    assert log.read_bytes() == whole[:-1]
    assert main(["repair", str(log)]) == 0
    assert capsys.readouterr().out == (f"added the line break {log} lacked after its last line (line 21); nothing "
                                       f"was moved, and {log} keeps its 21 entries\n")
    assert log.read_bytes() == whole and tails(log) == []
    assert LogFile(str(log)).entries == entries


def test_a_run_cut_by_a_crash_is_repaired_and_continued(tmp_path, capsys):
    log = tmp_path / "runs.jsonl"
    with FakeProvider() as fake:
        args = ["run", "--provider", "openai-compatible", "--model", "fake-model", "--base-url", fake.base_url,
                "--log", str(log)]
        assert main_in_thread(args) == 0
        data = log.read_bytes()
        entries = parse_import(data)
        [run] = rebuild(entries)
        start = data.rindex(b"\n", 0, len(data) - 1) + 1
        log.write_bytes(data[:start + len(data[start:]) // 2])  # the last call's entry, half written
        capsys.readouterr()
        assert main_in_thread(["run", "--continue", run.run_id, "--log", str(log)]) == 1
        assert f"ends in a line cut off mid-write (line 20, from byte {start:,})" in capsys.readouterr().err
        asked = len(fake.requests("POST"))
        assert main(["repair", str(log)]) == 0
        assert main_in_thread(["run", "--continue", run.run_id, "--log", str(log)]) == 0
        assert len(fake.requests("POST")) == asked + 1  # the one case whose entry was cut is asked again
    repaired = parse_import(log.read_bytes())
    assert repaired[:19] == entries[:19] and repaired[19]["case_id"] == entries[19]["case_id"]
    [after] = rebuild(repaired)
    assert after.run_id == run.run_id and after.complete and len(after.graded) == 20
    assert tails(log)[0].read_bytes() == data[start:start + len(data[start:]) // 2]


def test_repair_changes_nothing_in_a_whole_log(tmp_path, capsys):
    log, _, _ = written_log(tmp_path)
    before = log.read_bytes()
    assert main(["repair", str(log)]) == 0
    assert capsys.readouterr().out == f"{log} ends with a whole line: nothing to repair (21 entries)\n"
    assert log.read_bytes() == before and tails(log) == []


@pytest.mark.parametrize("cut", [False, True], ids=["whole-end", "cut-end"])
def test_repair_refuses_a_bad_line_in_the_middle_and_readers_keep_its_message(tmp_path, capsys, cut):
    log, _, _ = written_log(tmp_path)
    lines = log.read_bytes().split(b"\n")
    lines[4] = lines[4].replace(b'"type":"call"', b'"type" "call"')
    data = b"\n".join(lines)
    log.write_bytes(cut_at(data, data.rindex(b"\n", 0, len(data) - 1) + 1, "mid-string") if cut else data)
    before = log.read_bytes()
    said = "Line 5 of the log is not valid JSON (Expecting ':' delimiter at column 35); nothing was imported."
    assert main(["repair", str(log)]) == 1
    assert capsys.readouterr().err == (f"error: {log} was not changed, as a repair mends only a last line a write "
                                       f"left unfinished: {said}\n")
    assert log.read_bytes() == before and tails(log) == []
    assert main(["report", str(log)]) == 1
    assert capsys.readouterr().err == f"error: {said}\n"
    assert main(["run", "--continue", "run-1", "--log", str(log)]) == 1
    assert capsys.readouterr().err == f"error: {log} cannot be appended to: {said}\n"


def test_repair_refuses_a_file_that_is_not_a_log(tmp_path, capsys):
    log, entries, _ = written_log(tmp_path)
    export = tmp_path / "export.json"
    export.write_text(export_json(entries), encoding="utf-8")
    before = export.read_bytes()
    assert main(["repair", str(export)]) == 1
    assert capsys.readouterr().err == (f"error: {export} is not a log written by run (one entry a line); it was not "
                                       "changed\n")
    assert export.read_bytes() == before and tails(export) == []


def test_the_cut_bytes_never_overwrite_a_file(tmp_path):
    log, _, start = written_log(tmp_path)
    cut = cut_at(log.read_bytes(), start, "mid-string")
    log.write_bytes(cut)
    now = datetime(2026, 12, 7, 10, 15, tzinfo=UTC)
    taken = tmp_path / "runs.jsonl.cut-20261207T101500Z"
    taken.write_bytes(b"kept")
    moved_to = repair._move_tail(str(log), cut, start, now)
    assert moved_to == f"{taken}-2" and Path(moved_to).read_bytes() == cut[start:]
    assert taken.read_bytes() == b"kept" and log.read_bytes() == cut[:start]


def test_a_tail_file_that_cannot_be_written_leaves_the_log_as_it_was(tmp_path, capsys, monkeypatch):
    log, _, start = written_log(tmp_path)
    cut = cut_at(log.read_bytes(), start, "mid-string")
    log.write_bytes(cut)

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("os.fsync", full_disk)
    assert main(["repair", str(log)]) == 6
    err = capsys.readouterr().err
    assert err.startswith(f"error: cannot write {log}.cut-") and err.endswith(
        f": No space left on device; {log} was not changed\n")
    assert log.read_bytes() == cut and tails(log) == []
