"""``python -m pyapp run``: ask a set from this terminal, appending each call to a JSON-lines log (DR-006).

Three ways to call it: new runs of a set (``--provider``, ``--model`` …), the rest of a run that
stopped (``--continue RUN_ID``, with the run's own settings and set, asking what the page's continue
asks), and entries that could not be written, read back from the standard error that kept them
(``--recover FILE``). Every file the command writes is checked before the first call.
"""

from __future__ import annotations

import argparse
import os
import sys

from pyapp.cli.inputs import UsageError, add_key_and_prices, names_own_set, own_set_in, run_ids_named, set_help
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
    if args.recover is not None:
        if args.continue_run is not None or _given(args):
            raise UsageError("--recover only adds entries to the log; it takes no settings and asks nothing")
        added, known = LogFile(args.log).recover(args.recover)
        print(f"added {added} {'entry' if added == 1 else 'entries'} to {args.log}"
              + (f"; {known} were there already" if known else ""))
        return 0
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
        if not names_own_set(args.set_version):
            FIXED_SETS.check(args.set_version)
        settings = Settings(args.provider, args.model, args.max_tokens, args.temperature, args.base_url)
        api_key_from(args.key_env, settings.provider)  # a missing key is said before the log is read
    log = LogFile(args.log)  # read whole, and checked that it can be written, before anything is asked
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
            return 0
    elif names_own_set(args.set_version):
        (set_version, sets), runs = own_set_in(args.set_version, log.entries, args.log), args.runs
    else:
        set_version, sets, runs = args.set_version, FIXED_SETS, args.runs
    log.key = api_key_from(args.key_env, settings.provider)
    size = run_size(runs, settings.max_tokens, args.price_in, args.price_out, set_version, sets, cases)
    return _ask(args, settings, log, runs, set_version, sets, size)


def api_key_from(key_env: str | None, provider: str) -> str | None:
    name = key_env or KEY_VARIABLES.get(provider)
    api_key = os.environ.get(name) if name else None
    if name and not api_key and (key_env or provider != OPENAI_COMPATIBLE):
        raise ValueError(f"set the API key in the environment variable {name} (it is never an argument)")
    return api_key


def _ask(args: argparse.Namespace, settings: Settings, log, runs: int, set_version: str, sets: CaseSets,
         size: dict) -> int:
    import asyncio

    from pyapp.cli.terminal import run_set

    print(f"before: {size['display']}", flush=True)
    try:
        results = asyncio.run(run_set(settings, log.key, log, runs,
                                      lambda text: print(text, file=sys.stderr, flush=True),
                                      set_version=set_version, sets=sets, continue_run=args.continue_run,
                                      concurrency=args.concurrency))
    except KeyboardInterrupt:
        print(f"interrupted: {args.log} keeps every call that ended", file=sys.stderr)
        return 130
    usage = actual_usage(log.entries, [r["run_id"] for r in results], args.price_in, args.price_out)
    for result in results:
        if result["stopped"] is None:
            print(result["message"])
    print(f"after: {usage['display']}")
    stopped = [r for r in results if r["stopped"] is not None]
    for result in stopped:  # last, so the reason a run stopped is the last thing said
        print(f"{result['message']} From here: python -m pyapp run --continue {result['run_id']} --log {args.log}"
              + (f" --key-env {args.key_env}" if args.key_env else ""))
    return 1 if stopped else 0
