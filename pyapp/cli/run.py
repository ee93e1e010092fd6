"""``python -m pyapp run``: ask a set from this terminal, appending each call to a JSON-lines log (DR-006).

Three ways to call it: new runs of a set (``--provider``, ``--model`` …), the rest of a run that
stopped (``--continue RUN_ID``, with the run's own settings and set, asking what the page's continue
asks), and entries that could not be written, read back from the standard error that kept them
(``--recover FILE``). Every file the command writes is checked before the first call.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Sequence

from pyapp.cli import exit_status
from pyapp.cli.inputs import UsageError, add_key_and_prices, names_own_set, own_set_in, run_ids_named, set_help
from pyapp.core.formatting import counted
from pyapp.evaluation.cost import actual_usage, run_size
from pyapp.evaluation.evalset import EVAL_SET_VERSION, FIXED_SETS, CaseSets
from pyapp.evaluation.own_cases import own_cases_of
from pyapp.evaluation.rebuild import rebuild
from pyapp.evaluation.runs import cases_to_ask
from pyapp.providers.settings import ANTHROPIC, OPENAI, OPENAI_COMPATIBLE, PROVIDERS, Settings

# The most calls in flight at once: enough to hide a provider's latency, few enough to respect its limits.
MAX_CONCURRENCY = 16
# The settings of a new run, with their defaults; a continued run keeps its own and takes none of them.
SETTING_DEFAULTS = {"provider": None, "model": None, "base_url": None, "set_version": EVAL_SET_VERSION, "runs": 1,
                    "max_tokens": 4000, "temperature": 0.0}


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="ask the evaluation set from this terminal, appending to a JSON-lines log")
    given = argparse.SUPPRESS  # so a continued run can tell a setting given from its default
    p.add_argument("--provider", choices=PROVIDERS, default=given, help="needed for a new run")
    p.add_argument("--model", default=given, help="the model name the provider knows; needed for a new run")
    p.add_argument("--base-url", default=given,
                   help="an openai-compatible server's base URL, e.g. http://127.0.0.1:8080/v1")
    p.add_argument("--set", dest="set_version", default=given, metavar="SET", help=set_help("the log"))
    p.add_argument("--runs", type=int, default=given, help="how many runs of the set (default 1)")
    p.add_argument("--max-tokens", type=int, default=given, help="max tokens per answer (default 4000)")
    p.add_argument("--temperature", type=temperature, default=given,
                   help="sampling temperature (default 0); --temperature default leaves it to the model")
    p.add_argument("--concurrency", type=int, default=1, metavar="N",
                   help=f"calls in flight at once, 1 to {MAX_CONCURRENCY} (default 1); a rate limit met by one "
                        "holds them all")
    p.add_argument("--continue", dest="continue_run", metavar="RUN_ID",
                   help="ask the cases RUN_ID in the log still lacks, with its own settings and set")
    p.add_argument("--recover", metavar="FILE",
                   help="add to the log the entries a run printed to standard error when it could not write them")
    p.add_argument("--log", required=True, metavar="FILE", help="the JSON-lines log to append to")
    add_key_and_prices(p)
    p.set_defaults(run=run, parser=p)


def temperature(text: str) -> float | None:
    if text == "default":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("give a number, or default") from None


KEY_VARIABLES = {ANTHROPIC: "ANTHROPIC_API_KEY", OPENAI: "OPENAI_API_KEY"}


def _given(args: argparse.Namespace) -> list[str]:
    return [f"--{name.replace('_', '-')}" for name in SETTING_DEFAULTS if hasattr(args, name)]


def run(args: argparse.Namespace) -> int:
    # Imported here: urllib brings ssl and http.client, which the other subcommands never need.
    from pyapp.cli.terminal import LogFile

    if not 1 <= args.concurrency <= MAX_CONCURRENCY:
        raise UsageError(f"--concurrency must be from 1 to {MAX_CONCURRENCY}")
    if getattr(args, "runs", 1) < 1:
        raise UsageError("--runs must be at least 1")
    if args.recover is not None:
        if args.continue_run is not None or _given(args):
            raise UsageError("--recover only adds entries to the log; it takes no settings and asks nothing")
        added, known = LogFile(args.log).recover(args.recover)
        print(f"added {counted(added, 'entry', 'entries')} to {args.log}"
              + (f"; {counted(known, 'was', 'were')} there already" if known else ""))
        return exit_status.OK
    cases = None
    if args.continue_run is not None:
        if _given(args):
            raise UsageError(f"a continued run keeps its own settings and set; leave out {', '.join(_given(args))}")
        settings = None  # the run's own, once the log is read
    else:
        for name, default in SETTING_DEFAULTS.items():
            if not hasattr(args, name):
                setattr(args, name, default)
        if args.provider is None or args.model is None:
            raise UsageError("a new run needs --provider and --model (or --continue RUN_ID)")
        if (args.provider == OPENAI_COMPATIBLE) != (args.base_url is not None):
            raise UsageError("--base-url is needed with --provider openai-compatible, and only with it")
        try:
            if not names_own_set(args.set_version):
                FIXED_SETS.check(args.set_version)
            settings = Settings(args.provider, args.model, args.max_tokens, args.temperature, args.base_url)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        api_key_from(args.key_env, settings.provider)  # a missing key is said before the log is read
    log = LogFile(args.log)  # checked that it can be appended to before anything is asked; read when needed
    if settings is None:
        built = rebuild(log.entries)
        args.continue_run = run_ids_named(list(built), [args.continue_run])[0]  # the short forms too
        run_ = built.run(args.continue_run)
        if run_.settings is None:
            raise ValueError(f"run {args.continue_run} made no call to take settings from; start a new run")
        settings = Settings.from_dict(run_.settings)
        set_version, sets, runs = run_.eval_set_version, own_cases_of(log.entries).sets, 1
        cases = [run_.case_result(case_id).case for case_id in cases_to_ask(run_)]
        if not cases:
            print(f"Run {run_.run_id} has an answer for every case; nothing to ask.")
            return exit_status.OK
    elif names_own_set(args.set_version):
        (set_version, sets), runs = own_set_in(args.set_version, log.entries, args.log), args.runs
    else:
        set_version, sets, runs = args.set_version, FIXED_SETS, args.runs
    log.key = api_key_from(args.key_env, settings.provider)
    size = run_size(runs, settings.max_tokens, args.price_in, args.price_out, set_version, sets, cases)
    return _ask(args, settings, log, runs, set_version, sets, size)


def api_key_from(key_env: str | None, provider: str) -> str | None:
    """The API key from the environment; a missing one is a usage error (exit 2), said before anything is read."""
    name = key_env or KEY_VARIABLES.get(provider)
    api_key = os.environ.get(name) if name else None
    if name and not api_key and (key_env or provider != OPENAI_COMPATIBLE):
        raise UsageError(f"set the API key in the environment variable {name} (it is never an argument)")
    return api_key


def _ask(args: argparse.Namespace, settings: Settings, log, runs: int, set_version: str, sets: CaseSets,
         size: dict) -> int:
    import asyncio

    from pyapp.cli.terminal import LogNotWritten, run_set

    print(f"before: {size['display']}", flush=True)
    started: list[str] = []
    try:
        results = asyncio.run(run_set(settings, log.key, log, runs,
                                      lambda text: print(text, file=sys.stderr, flush=True),
                                      set_version=set_version, sets=sets, continue_run=args.continue_run,
                                      concurrency=args.concurrency, started=started.append))
    except KeyboardInterrupt:
        print(f"interrupted: {args.log} keeps every call that ended.", file=sys.stderr)
        _how_to_go_on(args, settings, set_version, started, runs, stopped=True, out=sys.stderr)
        return exit_status.INTERRUPTED
    except LogNotWritten as exc:
        print(f"error: {exc}", file=sys.stderr)
        print("Once there is room, add what standard error kept, then ask the rest:", file=sys.stderr)
        _how_to_go_on(args, settings, set_version, started, runs, stopped=True, out=sys.stderr)
        return exit_status.LOCAL_IO
    for result in results:
        if result["stopped"] is None:
            print(result["message"])
    print(f"after: {_usage_line(args, log, [r['run_id'] for r in results])}")
    stopped = [r for r in results if r["stopped"] is not None]
    for result in stopped:  # last, so the reason a run stopped is the last thing said
        print(result["message"])
    _how_to_go_on(args, settings, set_version, started, runs, stopped=bool(stopped),
                  unanswered=[r["run_id"] for r in results if r["stopped"] is None and r["last_failure"]])
    if stopped:
        return exit_status.of_provider_error(stopped[0]["stop_error"])
    failures = [r["last_failure"] for r in results if r["last_failure"] is not None]
    return exit_status.of_provider_error(failures[-1]) if failures else exit_status.OK


def _usage_line(args: argparse.Namespace, log, run_ids: list[str]) -> str:
    """What the calls used: this call's, and for a continued run the whole run's too, each named."""
    now = actual_usage(log.appended, run_ids, args.price_in, args.price_out)["display"]
    if args.continue_run is None:
        return now
    whole = actual_usage(log.entries, run_ids, args.price_in, args.price_out)["display"]
    return f"this call of run: {now} The whole run {run_ids[0]} so far: {whole}"


def _how_to_go_on(args: argparse.Namespace, settings: Settings, set_version: str, started: list[str], runs: int,
                  *, stopped: bool, unanswered: Sequence[str] = (), out=None) -> None:
    """The commands that go on from where ``run`` ended, each an exact command line: the run that stopped, and
    runs that left cases unanswered, continued; the runs never started, started."""
    key = f" --key-env {args.key_env}" if args.key_env else ""
    out = out or sys.stdout
    for run_id in dict.fromkeys(([started[-1]] if stopped and started else []) + list(unanswered)):
        print(f"From here: python -m pyapp run --continue {run_id} --log {args.log}{key}", file=out)
    left = runs - len(started) if args.continue_run is None else 0
    if left > 0:
        options = [f"--provider {settings.provider}", f"--model {shlex.quote(settings.model)}"]
        if settings.base_url is not None:
            options.append(f"--base-url {shlex.quote(settings.base_url)}")
        temperature = "default" if settings.temperature is None else f"{settings.temperature:g}"
        options += [f"--set {set_version}", f"--runs {left}", f"--max-tokens {settings.max_tokens}",
                    f"--temperature {temperature}"]
        print(f"{counted(left, 'run')} of {runs} never started: python -m pyapp run {' '.join(options)} "
              f"--log {args.log}{key}", file=out)
