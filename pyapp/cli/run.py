"""``python -m pyapp run``: ask a set from this terminal, appending each call to a JSON-lines log (DR-006)."""

from __future__ import annotations

import argparse
import os
import sys

from pyapp.cli.inputs import UsageError
from pyapp.evaluation.cost import actual_usage, run_size
from pyapp.evaluation.evalset import (
    EVAL_SET_VERSION,
    FIXED_SETS,
    SET_VERSIONS,
    is_own_set,
)
from pyapp.evaluation.own_cases import OWN
from pyapp.providers.settings import ANTHROPIC, OPENAI, OPENAI_COMPATIBLE, PROVIDERS, Settings


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="ask the evaluation set from this terminal, appending to a JSON-lines log")
    p.add_argument("--provider", required=True, choices=PROVIDERS)
    p.add_argument("--model", required=True, help="the model name the provider knows")
    p.add_argument("--base-url", help="an openai-compatible server's base URL, e.g. http://127.0.0.1:8080/v1")
    p.add_argument("--set", dest="set_version", default=EVAL_SET_VERSION, metavar="SET",
                   help=f"the evaluation set: {', '.join(SET_VERSIONS)} (default {EVAL_SET_VERSION}); a set of your "
                        "own cases runs from the AI evaluation page, whose log holds them")
    p.add_argument("--runs", type=int, default=1, help="how many runs of the set (default 1)")
    p.add_argument("--max-tokens", type=int, default=4000, help="max tokens per answer (default 4000)")
    p.add_argument("--temperature", type=_temperature, default=0.0,
                   help="sampling temperature (default 0); --temperature default leaves it to the model")
    p.add_argument("--log", required=True, metavar="FILE", help="the JSON-lines log to append to")
    p.add_argument("--key-env", metavar="NAME",
                   help="the environment variable holding the API key (default ANTHROPIC_API_KEY or "
                        "OPENAI_API_KEY; none for openai-compatible). The key is never an argument.")
    p.add_argument("--price-in", type=float, metavar="P", help="your price per million input tokens")
    p.add_argument("--price-out", type=float, metavar="P", help="your price per million output tokens")
    p.set_defaults(run=run, parser=p)


def _temperature(text: str) -> float | None:
    if text == "default":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("give a number, or default") from None


KEY_VARIABLES = {ANTHROPIC: "ANTHROPIC_API_KEY", OPENAI: "OPENAI_API_KEY"}


def run(args: argparse.Namespace) -> int:
    if (args.provider == OPENAI_COMPATIBLE) != (args.base_url is not None):
        raise UsageError("--base-url is needed with --provider openai-compatible, and only with it")
    if args.set_version == OWN or is_own_set(args.set_version):
        raise UsageError(f"--set {args.set_version[:40]}: a set of your own cases runs from the AI evaluation page, "
                          "whose log holds them; here the sets are " + ", ".join(SET_VERSIONS))
    FIXED_SETS.check(args.set_version)
    name = args.key_env or KEY_VARIABLES.get(args.provider)
    api_key = os.environ.get(name) if name else None
    if name and not api_key and (args.key_env or args.provider != OPENAI_COMPATIBLE):
        raise ValueError(f"set the API key in the environment variable {name} (it is never an argument)")
    settings = Settings(args.provider, args.model, args.max_tokens, args.temperature, args.base_url)
    # Imported here: urllib brings ssl and http.client, which the other subcommands never need.
    import asyncio

    from pyapp.cli.terminal import LogFile, run_set

    size = run_size(args.runs, args.max_tokens, args.price_in, args.price_out, args.set_version)
    log = LogFile(args.log, api_key)
    print(f"before: {size['display']}", flush=True)
    try:
        results = asyncio.run(run_set(settings, api_key, log, args.runs,
                                      lambda text: print(text, file=sys.stderr, flush=True),
                                      set_version=args.set_version))
    except KeyboardInterrupt:
        print(f"interrupted: {args.log} keeps every call that ended", file=sys.stderr)
        return 130
    for result in results:
        print(result["message"])
    usage = actual_usage(log.entries, [r["run_id"] for r in results], args.price_in, args.price_out)
    print(f"after: {usage['display']}")
    return 0 if all(r["stopped"] is None for r in results) else 1
