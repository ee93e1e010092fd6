"""``python -m pyapp judge``: have a model judge rate a log's counted answers on the rubric (DR-012).

The judge is asked by :func:`pyapp.asking.judging.judge_answers`, as the page asks it, one call at a
time, and each call's entry is appended to the JSON-lines log as it ends. ``--repeat K`` judges the
same answers K times, so ``agreement`` can show how far the judge agrees with itself. The judge's
figures, against the people and the mechanical grade, are in ``python -m pyapp agreement LOG``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from pyapp.asking.judging import (
    MAX_JUDGINGS,
    answers_to_judge,
    check_judgings,
    judge_answers,
    new_judging_id,
    prompt_characters,
)
from pyapp.cli import exit_status
from pyapp.cli.inputs import UsageError, add_key_and_prices, run_ids_named
from pyapp.cli.run import api_key_from, temperature
from pyapp.evaluation.cost import judging_size, judging_usage
from pyapp.evaluation.rebuild import rebuild
from pyapp.explanation.judge import VERDICT_SCHEMA
from pyapp.presentation.judge_tables import judgement_said
from pyapp.providers.settings import OPENAI_COMPATIBLE, PROVIDERS, Settings


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("judge", help="have a model judge rate the log's counted answers on the rubric")
    p.add_argument("log", metavar="LOG", help="the JSON-lines log written by run; judge entries are appended to it")
    p.add_argument("--provider", choices=PROVIDERS, required=True)
    p.add_argument("--model", required=True, help="the judge's model name, as the provider knows it")
    p.add_argument("--base-url", help="an openai-compatible server's base URL, e.g. http://127.0.0.1:8080/v1")
    p.add_argument("--runs", nargs="+", metavar="RUN",
                   help="judge these runs' answers only, each by its id or short id (default: every run)")
    p.add_argument("--repeat", type=int, default=1, metavar="K",
                   help=f"judge the same answers K times, 1 to {MAX_JUDGINGS} (default 1), to measure consistency")
    p.add_argument("--max-tokens", type=int, default=1000, help="max tokens per verdict (default 1000)")
    p.add_argument("--temperature", type=temperature, default=0.0,
                   help="sampling temperature (default 0); --temperature default leaves it to the model")
    add_key_and_prices(p)
    p.set_defaults(run=run, parser=p)


def run(args: argparse.Namespace) -> int:
    from pyapp.cli.terminal import LogFile, urllib_transport

    try:
        check_judgings(args.repeat)
    except ValueError:
        raise UsageError(f"--repeat must be from 1 to {MAX_JUDGINGS}") from None
    if (args.provider == OPENAI_COMPATIBLE) != (args.base_url is not None):
        raise UsageError("--base-url is needed with --provider openai-compatible, and only with it")
    settings = Settings(args.provider, args.model, args.max_tokens, args.temperature, args.base_url)
    api_key = api_key_from(args.key_env, settings.provider)
    log = LogFile(args.log)
    runs = list(rebuild(log.entries, validated=True))
    items = answers_to_judge(runs, run_ids_named(runs, args.runs) if args.runs else None)
    if not items:
        print("No counted answer to judge: the log holds no run with an answer that was graded.")
        return exit_status.OK
    log.key = api_key
    size = judging_size(len(items) * args.repeat, prompt_characters(items) * args.repeat, VERDICT_SCHEMA,
                        settings.max_tokens, args.price_in, args.price_out)
    print(f"before: {size['display']}", flush=True)
    transport = urllib_transport()
    judged: list[dict] = []

    def say(event: dict) -> None:
        entry = event["entry"]
        judged.append(entry)
        said = judgement_said(entry)
        if entry["answers"] is not None:
            said += f" ({', '.join(k for k, yes in entry['answers'].items() if not yes) or 'all yes'})"
        else:
            said += f". {entry['message']}"
        print(f"{event['judging_id']} {event['run_id']} {event['case_id']} ({event['index'] + 1} of "
              f"{event['total']}): {said}", file=sys.stderr, flush=True)

    try:
        for _ in range(args.repeat):
            result = asyncio.run(judge_answers(items, settings, api_key, new_judging_id(), transport=transport,
                                               sleep=asyncio.sleep, clock=lambda: time.monotonic() * 1000,
                                               append=log.append, emit=say))
            print(result["message"], flush=True)
            if result["stopped"] is not None:
                break
    except KeyboardInterrupt:
        print(f"interrupted: {args.log} keeps every judge call that ended", file=sys.stderr)
        return exit_status.INTERRUPTED
    finally:
        usage = judging_usage(log.entries, sorted({e["judging_id"] for e in judged}), args.price_in, args.price_out)
        print(f"after: {usage['display']}")
    if result["stopped"] is not None:
        return exit_status.of_provider_error(result["stop_error"])
    print(f"The judge's agreement with the people and the checks: python -m pyapp agreement {args.log}")
    return exit_status.OK

