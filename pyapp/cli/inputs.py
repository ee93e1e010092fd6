"""What several commands take: the set option, an export or log file read through the page's import checks,
runs and configurations named on the command line, and the usage error argparse cannot express."""

from __future__ import annotations

import argparse
import importlib.util
import os
from collections.abc import Sequence

from pyapp.auditlog.format import OWN_SET_PREFIX
from pyapp.cli.exit_status import LocalIOError
from pyapp.cli.reading_processes import batch_map
from pyapp.core.formatting import fmt_count
from pyapp.evaluation.evalset import (
    EVAL_SET_VERSION,
    FIXED_SETS,
    SET_VERSIONS,
    CaseSets,
    is_own_set,
)
from pyapp.evaluation.export import parse_import
from pyapp.evaluation.graded_lines import read_graded
from pyapp.evaluation.grader import Grader
from pyapp.evaluation.log_end import UnfinishedEnd, unfinished_end
from pyapp.evaluation.log_stream import CutOff, log_lines, opens_a_log
from pyapp.evaluation.own_cases import OWN, own_cases_of
from pyapp.evaluation.rebuild import RunIndex, rebuild
from pyapp.evaluation.runs import Rebuilt, Run
from pyapp.presentation.name_lookup import AmbiguousName, find_configuration, find_run
from pyapp.presentation.run_names import log_names


class UsageError(Exception):
    """A combination of arguments argparse cannot express; reported like an argparse error.

    Subcommands raise it only when they set ``parser`` in their defaults.
    """


def set_help(log: str) -> str:
    """What --set takes, as every command that has it says, the own cases read from ``log``."""
    return (f"the evaluation set: {', '.join(SET_VERSIONS)} (default {EVAL_SET_VERSION}), or your own cases in "
            f"{log}: '{OWN}' for them as they are now, or an {OWN_SET_PREFIX}XXXXXXXX name")


def add_key_and_prices(p: argparse.ArgumentParser) -> None:
    """The options of every command that calls a provider: where the key is, and the visitor's prices."""
    p.add_argument("--key-env", metavar="NAME",
                   help="the environment variable holding the API key (default ANTHROPIC_API_KEY or "
                        "OPENAI_API_KEY; none for openai-compatible). The key is never an argument.")
    p.add_argument("--price-in", type=float, metavar="P", help="your price per million input tokens")
    p.add_argument("--price-out", type=float, metavar="P", help="your price per million output tokens")


def add_set_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", dest="set_version", default=EVAL_SET_VERSION, metavar="SET", help=set_help("LOG"))
    p.add_argument("log", metavar="LOG", nargs="?",
                   help="an export or log holding your own cases (only with --set own...)")


def names_own_set(version: str) -> bool:
    """True when ``--set`` names the visitor's own cases: ``own``, or an ``own-XXXXXXXX`` name."""
    return version == OWN or is_own_set(version)


def own_set_in(version: str, entries: list[dict], where: str) -> tuple[str, CaseSets]:
    """The own set ``version`` names in a log's ``entries`` (read from ``where``), and what names mean there."""
    mine = own_cases_of(entries)
    if mine.name is None:
        raise ValueError(f"{where} holds none of your own cases; add searches in the explorer first")
    return (mine.name if version == OWN else mine.sets.check(version)), mine.sets


def resolve_set(args: argparse.Namespace) -> tuple[str, CaseSets]:
    """The set ``--set`` names, and what set names mean to the LOG argument an own set is read from (DR-009)."""
    version = args.set_version
    if not names_own_set(version):
        if args.log is not None:
            raise UsageError(f"{version} is a fixed set and needs no LOG; LOG is for --set {OWN}")
        if version not in SET_VERSIONS:
            raise UsageError(f"no evaluation set {version[:40]!r}; the sets are {', '.join(SET_VERSIONS)}, "
                              f"or {OWN} with a LOG")
        return version, FIXED_SETS
    if args.log is None:
        raise UsageError(f"--set {version} needs the export or log that holds your own cases: LOG")
    return own_set_in(version, read_entries(args.log), args.log)


def check_writable(path: str) -> None:
    """``LocalIOError`` in words unless ``path`` can be written, found before anything is asked or computed.

    The file is opened for appending, which changes nothing in it; a file that was not there is removed again.
    """
    existed = os.path.lexists(path)
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise LocalIOError(f"cannot write {path}: {exc.strerror or exc}") from None
    if not existed:
        os.remove(path)


def read_entries(path: str) -> list[dict]:
    """The entries of an export file or a log, through the same import checks as the page."""
    inspected = _inspect_log_entries(path)
    if inspected is not None:
        return inspected
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    check_log_end(path, data)
    return parse_import(data)


def _inspect_log_entries(path: str) -> list[dict] | None:
    """The entries of ``path`` when it is an Inspect log of the set's task or a folder of them (DR-014), else None.

    The bridge is imported only here: the site's wheel leaves it out, and the command line runs from that
    wheel too (DR-002).
    """
    if importlib.util.find_spec("pyapp.bridges") is None:
        return None
    from pyapp.bridges.inspect_names import is_inspect_log

    if not is_inspect_log(path):
        return None
    from pyapp.bridges.inspect_read import inspect_entries

    return inspect_entries(path)


def check_log_end(path: str, data: bytes, *, appending: bool = False) -> None:
    """``ValueError`` naming the line and byte where a write left the log ``path`` (its bytes ``data``) unfinished,
    with the command that repairs it (:func:`pyapp.evaluation.log_end.unfinished_end`); nothing for a log that
    ends whole, or for a file that is not a log. With ``appending``, a whole last entry that lacks its line
    break is refused too: an entry appended after it would join it. A bad line before a cut one is said
    first (the reader's own ``ImportFileError``), since a repair would not mend it."""
    end = unfinished_end(data)
    if end is None or not (end.cut or appending):
        return
    if not end.cut:
        raise ValueError(f"{path} does not end with a line break: its last line ({_where(end)}) is a whole entry, "
                         "but an entry appended now would join it. Add the line break with: python -m pyapp repair "
                         f"{path}")
    before = data[:end.start]
    if before.strip():
        parse_import(before)
    raise ValueError(_cut_off(path, end, whole_before=bool(before.strip())))


def _where(end: UnfinishedEnd) -> str:
    return f"line {fmt_count(end.line)}, from byte {fmt_count(end.start)}"


def _cut_off(path: str, end: UnfinishedEnd, *, whole_before: bool) -> str:
    return (f"{path} ends in a line cut off mid-write ({_where(end)})"
            + ("; every line before it is whole" if whole_before else "")
            + f". Move the cut line to a file beside the log with: python -m pyapp repair {path}")


def read_runs(path: str) -> Rebuilt:
    """The runs of an export file or a log, rebuilt as the page rebuilds them.

    A log is read a line at a time and each answer graded as it is read, keeping its grade, not its text
    (:mod:`pyapp.evaluation.log_stream`, ``RunIndex`` with ``lean``): memory grows with the log's runs, not
    its answers (DR-008); a long log's lines are read by a process on each core
    (:mod:`pyapp.cli.reading_processes`). An export, one JSON text, is read whole.
    """
    inspected = _inspect_log_entries(path)
    if inspected is not None:
        return rebuild(inspected, validated=True)
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    with handle:
        if not opens_a_log(handle):
            return rebuild(read_entries(path), validated=True)
        index = RunIndex(Grader(remember=False), validated=True, lean=True)
        try:
            with batch_map(os.fstat(handle.fileno()).st_size) as batches:
                index.add_read(log_lines(handle, read_graded, batches))
        except CutOff as cut:
            raise ValueError(_cut_off(path, cut.end, whole_before=cut.entries_before > 0)) from None
    return index.rebuilt()


def run_ids_named(runs: Sequence[Run], names: Sequence[str]) -> list[str]:
    """The ids of the runs ``names`` mean among ``runs``, every run of the log: a run's id, or its short id or
    any end of its id that no other run's id ends with. A name that could mean several runs is a usage error; one
    that means none is a ``ValueError`` (status 1), as an unknown id has always been."""
    found = log_names(runs)
    try:
        return [find_run(found, name) for name in names]
    except AmbiguousName as exc:
        raise UsageError(str(exc)) from None


def configuration_ids_named(runs: Sequence[Run], names: Sequence[str]) -> list[str]:
    """The ids of the configurations ``names`` mean among ``runs``, every run of the log: a configuration's id,
    letter or name, or a name of one of its runs. A name that could mean several is a usage error, one that means
    none a ``ValueError``."""
    found = log_names(runs)
    try:
        return [find_configuration(found, name) for name in names]
    except AmbiguousName as exc:
        raise UsageError(str(exc)) from None


def runs_named(built: Rebuilt, names: Sequence[str]) -> list[Run]:
    """The runs ``names`` mean (:func:`run_ids_named`), each a different run."""
    run_ids = run_ids_named(list(built), names)
    if len(set(run_ids)) != len(run_ids):
        raise UsageError("each --run must name a different run")
    return [built.run(run_id) for run_id in run_ids]
