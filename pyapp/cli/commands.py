"""Command line: ``python -m pyapp <subcommand>`` (the same functions as the page, DR-002).

Each subcommand is one ``_add_<name>`` function that declares its arguments and one
``_run_<name>`` function that does the work and returns the exit status.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from pyapp.auditlog.rules import DIFFERENCE_BELOW, LOWER_BOUND_BELOW, NO_NEW_FAIL, parse_rule
from pyapp.core.vocabulary import Action, SearchKind
from pyapp.evaluation.agreement import agreement_report, format_agreement_report
from pyapp.evaluation.baseline import MAX_BASELINE_CHARS, REJECTED_STATUS, baseline_of, baseline_text, parse_baseline
from pyapp.evaluation.configurations import group_runs
from pyapp.evaluation.cost import actual_usage, run_size
from pyapp.evaluation.evalset import (
    EVAL_SET_VERSION,
    OWN_SET_PREFIX,
    SET_VERSIONS,
    case,
    case_prompt,
    check_set_version,
    evalset_summary,
    evalset_table,
    is_own_set,
)
from pyapp.evaluation.export import parse_import
from pyapp.evaluation.own_cases import OWN, own_cases_of, set_label
from pyapp.evaluation.plans import plans_in
from pyapp.evaluation.runs import Rebuilt, rebuild
from pyapp.experiment.orders import DEFAULT_PER_KIND, DEFAULT_SEED, run_experiment
from pyapp.explanation.prompt import Prompt, format_number
from pyapp.kdtree.geodata import businesses_by_id
from pyapp.kdtree.search import SearchResult, search
from pyapp.kdtree.trace import AXIS_NAMES, Step
from pyapp.kdtree.tree import ORDERS
from pyapp.presentation.baseline_diff import diff_report, format_diff_report
from pyapp.presentation.experiment_report import format_experiment
from pyapp.presentation.repeat_report import (
    configuration_compare_report,
    configurations_report,
    format_configuration_compare_report,
    format_configurations_report,
)
from pyapp.presentation.report import SAME_RUN, compare_report, format_compare_report, format_run_report, run_report
from pyapp.providers.settings import ANTHROPIC, OPENAI, OPENAI_COMPATIBLE, PROVIDERS, Settings


def _add_trace(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("trace", help="run one search and print its result and trace")
    p.add_argument("--order", required=True, choices=ORDERS, help="insertion order of the tree")
    p.add_argument("--kind", required=True, choices=[kind.value for kind in SearchKind],
                   help="nearest neighbour or radius search")
    p.add_argument("--radius", type=float, help="radius in degrees (radius searches only)")
    p.add_argument("--lon", type=float, required=True, help="query longitude in degrees")
    p.add_argument("--lat", type=float, required=True, help="query latitude in degrees")
    p.add_argument("--json", action="store_true", help="print the search as JSON")
    p.set_defaults(run=_run_trace, parser=p)


def _run_trace(args: argparse.Namespace) -> int:
    if args.kind == SearchKind.RADIUS and args.radius is None:
        raise _UsageError("--radius is required with --kind radius")
    if args.kind == SearchKind.NEAREST and args.radius is not None:
        raise _UsageError("--radius applies only to --kind radius")
    result = search(args.order, args.kind, args.lon, args.lat, args.radius)
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(format_search(result))
    return 0


def readable_step(step: Step) -> str:
    """One trace step as a line for a person (the prompt's own line is ``pyapp.explanation.prompt.trace_line``)."""
    head = f"{step.index:5d}  {step.action:<9}  node {step.node_id} (depth {step.depth})"
    if step.action == Action.VISIT:
        axis = AXIS_NAMES[step.axis]
        point = f"({format_number(step.lon)}, {format_number(step.lat)})"
        return f"{head}  point {point}  splits {axis} at {format_number(step.split)}"
    if step.action in (Action.DISTANCE, Action.BEST, Action.REPORT):
        return f"{head}  distance {format_number(step.distance)}"
    if step.action == Action.NEAR:
        return f"{head}  side {step.side}"
    relation = "<=" if step.action == Action.FAR_VISIT else ">"
    return f"{head}  side {step.side}  gap {format_number(step.gap)} {relation} bound {format_number(step.bound)}"


def format_search(result: SearchResult) -> str:
    """A readable account of one search: what was asked, found and counted, then every step."""
    names = businesses_by_id()
    stats = result.tree.shown()
    lon, lat = result.query
    asked = f"{result.kind} search, order {result.order}, query ({format_number(lon)}, {format_number(lat)})"
    if result.radius is not None:
        asked += f", radius {result.radius:g}"
    lines = [
        asked,
        f"tree: {stats['size']} points, depth {stats['depth']}, average depth {stats['average_depth']}",
        f"result: {len(result.result)} point(s)",
    ]
    for n in result.result:
        b = names.get(n.id)
        label = f"  {b.name} [{b.category}]" if b is not None else ""
        lines.append(f"  {n.id}  distance {format_number(n.distance)}{label}")
    c = result.counts
    lines.append(
        f"nodes visited {c.nodes_visited}, subtrees pruned {c.subtrees_pruned}, "
        f"distances computed {c.distances_computed}"
    )
    lines.append(f"trace: {len(result.trace)} steps")
    lines.extend(readable_step(step) for step in result.trace)
    return "\n".join(lines)


def _add_evalset(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("evalset", help="list the cases of an evaluation set")
    _add_set_option(p)
    p.add_argument("--json", action="store_true", help="print the summary and the table as JSON")
    p.set_defaults(run=_run_evalset, parser=p)


def _add_set_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", dest="set_version", default=EVAL_SET_VERSION, metavar="SET",
                   help=f"the evaluation set: {', '.join(SET_VERSIONS)} (default {EVAL_SET_VERSION}), or your own "
                        f"cases in LOG: '{OWN}' for them as they are now, or an {OWN_SET_PREFIX}XXXXXXXX name")
    p.add_argument("log", metavar="LOG", nargs="?",
                   help="an export or log holding your own cases (only with --set own...)")


def _resolve_set(args: argparse.Namespace) -> str:
    """The set ``--set`` names; an own set is read from the LOG argument (DR-009)."""
    version = args.set_version
    own = version == OWN or is_own_set(version)
    if not own:
        if args.log is not None:
            raise _UsageError(f"{version} is a fixed set and needs no LOG; LOG is for --set {OWN}")
        if version not in SET_VERSIONS:
            raise _UsageError(f"no evaluation set {version[:40]!r}; the sets are {', '.join(SET_VERSIONS)}, "
                              f"or {OWN} with a LOG")
        return version
    if args.log is None:
        raise _UsageError(f"--set {version} needs the export or log that holds your own cases: LOG")
    mine = own_cases_of(_read_entries(args.log))
    if mine.name is None:
        raise ValueError(f"{args.log} holds none of your own cases; add searches in the explorer first")
    return mine.name if version == OWN else check_set_version(version)


def _run_evalset(args: argparse.Namespace) -> int:
    args.set_version = _resolve_set(args)
    table = evalset_table(args.set_version)
    summary = evalset_summary(table, args.set_version)
    if args.json:
        print(json.dumps({"summary": summary, "cases": table}))
    else:
        print(format_evalset(table, summary))
    return 0


def format_evalset(table: list[dict], summary: dict) -> str:
    """The set as text: one block per case, then how many traces are cut."""
    version = summary["eval_set_version"]
    drawn = f"{set_label(version)}: {summary['cases']} cases" if is_own_set(version) else (
        f"{version}, seed {summary['seed']}: {summary['cases']} cases")
    lines = [drawn]
    for row in table:
        radius = "" if row["radius"] is None else f"  radius {row['radius']:g}"
        cut = f"  cut to {row['steps_sent']}" if row["over_limit"] else ""
        lines.append(
            f"{row['case_id']}  {row['kind']:<13} {row['order']:<12} ({row['lon']:.7f}, {row['lat']:.7f})"
            f"{radius}  {row['steps']} steps{cut}, {row['results']} result(s)"
        )
        lines.append(f"     {row['why_it_matters']}")
    lines.append(
        f"{summary['over_limit']} of {summary['cases']} traces are longer than the {summary['max_steps']} "
        f"steps a prompt sends; one run sends {summary['prompt_chars']:,} characters of prompts."
    )
    return "\n".join(lines)


def _add_prompt(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("prompt", help="print the exact prompt the site sends for one case")
    p.add_argument("case", metavar="CASE", help="case id, C01 to C20 (C80 in the larger set)")
    _add_set_option(p)
    p.add_argument("--json", action="store_true", help="print version, hash, system and user text as JSON")
    p.set_defaults(run=_run_prompt, parser=p)


def _run_prompt(args: argparse.Namespace) -> int:
    prompt = case_prompt(case(args.case, _resolve_set(args)))
    if args.json:
        print(json.dumps({"case_id": args.case, **prompt.to_json()}))
    else:
        sys.stdout.write(format_prompt(args.case, prompt))
    return 0


def format_prompt(case_id: str, prompt: Prompt) -> str:
    """A header line, then the system text and the user text, each under a marker line of its own.

    Both texts are printed exactly; a line break is added after one only if it lacks one.
    """
    parts = [f"# {case_id}: prompt {prompt.version}, sha256 {prompt.hash}\n"]
    for marker, text in (("=== system ===", prompt.system), ("=== user ===", prompt.user)):
        parts.append(marker + "\n" + text + ("" if text.endswith("\n") else "\n"))
    return "".join(parts)


def _read_entries(path: str) -> list[dict]:
    """The entries of an export file or a log, through the same import checks as the page."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    return parse_import(data)


def _read_runs(path: str) -> Rebuilt:
    """The runs of an export file or a log, rebuilt as the page rebuilds them."""
    return rebuild(_read_entries(path), validated=True)


def _add_report(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="the numbers the evaluation page shows for the runs of an export")
    p.add_argument("export", metavar="EXPORT.json", help="a JSON export from the evaluation page")
    p.add_argument("--run", dest="run_id", metavar="ID",
                   help="report this run only (default: every run in the file)")
    p.add_argument("--json", action="store_true",
                   help="print JSON: one report with --run, else a list of reports")
    p.add_argument("--configurations", action="store_true",
                   help="print only the runs grouped by configuration, with the figures of repeated runs")
    p.set_defaults(run=_run_report, parser=p)


def _run_report(args: argparse.Namespace) -> int:
    if args.configurations and args.run_id:
        raise _UsageError("--configurations reports every run of the file; leave out --run")
    built = _read_runs(args.export)
    runs = [built.run(args.run_id)] if args.run_id else list(built)
    if not runs:
        raise ValueError(f"{args.export} holds no runs")
    if args.configurations:
        grouped = configurations_report(runs)
        print(json.dumps(grouped) if args.json else format_configurations_report(grouped))
        return 0
    reports = [run_report(r) for r in runs]
    if args.json:
        print(json.dumps(reports[0] if args.run_id else reports))
    elif args.run_id:
        print(format_run_report(reports[0]))
    else:
        # Every run, then the runs grouped by configuration with the figures of repeats (DR-008).
        texts = [format_run_report(r) for r in reports]
        texts.append("runs by configuration:\n" + format_configurations_report(configurations_report(runs)))
        print("\n\n".join(texts))
    return 0


def _add_compare(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="the paired comparison of two runs, or of two configurations, of an export")
    p.add_argument("export", metavar="EXPORT.json", help="a JSON export holding both runs")
    p.add_argument("--run", dest="run_ids", action="append", metavar="ID",
                   help="a run id; give it twice, first run then second")
    p.add_argument("--config", dest="configs", action="append", metavar="NAME",
                   help="a configuration's id (see report --configurations) or the id of one of its runs; "
                        "give it twice, X then Y: the difference is Y minus X")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.set_defaults(run=_run_compare, parser=p)


def _run_compare(args: argparse.Namespace) -> int:
    if args.configs:
        return _compare_configurations(args)
    if not args.run_ids or len(args.run_ids) != 2:
        raise _UsageError("compare needs --run exactly twice: --run FIRST --run SECOND")
    if args.run_ids[0] == args.run_ids[1]:
        raise _UsageError(SAME_RUN)
    built = _read_runs(args.export)
    report = compare_report(built.run(args.run_ids[0]), built.run(args.run_ids[1]))
    print(json.dumps(report) if args.json else format_compare_report(report))
    return 0


def _compare_configurations(args: argparse.Namespace) -> int:
    if args.run_ids:
        raise _UsageError("give either --run twice or --config twice, not both")
    if len(args.configs) != 2:
        raise _UsageError("compare needs --config exactly twice: --config X --config Y")
    entries = _read_entries(args.export)
    grouped = group_runs(list(rebuild(entries, validated=True)))
    report = configuration_compare_report(grouped, args.configs[0], args.configs[1], plans_in(entries))
    print(json.dumps(report) if args.json else format_configuration_compare_report(report))
    return 0


def _add_agreement(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("agreement", help="how far raters agree on the rubric, and with the mechanical grade")
    p.add_argument("export", metavar="EXPORT.json", help="a JSON export holding runs and their ratings")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(run=_run_agreement, parser=p)


def _run_agreement(args: argparse.Namespace) -> int:
    entries = _read_entries(args.export)
    report = agreement_report(entries)
    print(json.dumps(report) if args.json else format_agreement_report(report))
    return 0


def _add_experiment(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("experiment", help="the five insertion orders on the same seeded queries (the experiments page)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"seed of the queries (default {DEFAULT_SEED})")
    p.add_argument("--queries", type=int, default=DEFAULT_PER_KIND, metavar="N",
                   help=f"queries per kind of search (default {DEFAULT_PER_KIND})")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(run=_run_experiment, parser=p)


def _run_experiment(args: argparse.Namespace) -> int:
    figures = run_experiment(args.seed, args.queries)
    print(json.dumps(figures) if args.json else format_experiment(figures))
    return 0


def _add_baseline(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("baseline", help="write a baseline file of runs of one configuration, to gate later runs")
    p.add_argument("export", metavar="LOG", help="a JSON export or a log written by run")
    p.add_argument("--run", dest="run_ids", action="append", required=True, metavar="ID",
                   help="a run of the baseline; repeat for several runs of the same configuration")
    p.add_argument("--output", metavar="FILE", help="write the baseline here (default: print it)")
    p.set_defaults(run=_run_baseline, parser=p)


def _runs_named(built: Rebuilt, run_ids: Sequence[str]) -> list:
    if len(set(run_ids)) != len(run_ids):
        raise _UsageError("each --run must name a different run")
    return [built.run(run_id) for run_id in run_ids]


def _run_baseline(args: argparse.Namespace) -> int:
    text = baseline_text(baseline_of(_runs_named(_read_runs(args.export), args.run_ids)))
    if args.output is None:
        sys.stdout.write(text)
        return 0
    try:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise ValueError(f"cannot write {args.output}: {exc.strerror}") from None
    return 0


def _add_diff(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("diff", help="runs against a baseline, per case and paired; exits 3 when a rule rejects")
    p.add_argument("baseline", metavar="BASELINE", help="a file written by baseline")
    p.add_argument("export", metavar="LOG", help="a JSON export or a log written by run")
    p.add_argument("--run", dest="run_ids", action="append", required=True, metavar="ID",
                   help="a run to check; repeat for several runs of the same configuration")
    p.add_argument("--rule", dest="rules", action="append", metavar="RULE",
                   help=f"reject when: {NO_NEW_FAIL} (a case went from grounded to not grounded), "
                        f"{DIFFERENCE_BELOW}:D (the difference is below +D points), {LOWER_BOUND_BELOW}:D (the "
                        f"95%% interval's lower bound is below +D points); repeatable; default {NO_NEW_FAIL}")
    p.add_argument("--json", action="store_true", help="print the diff as JSON")
    p.set_defaults(run=_run_diff, parser=p)


def _run_diff(args: argparse.Namespace) -> int:
    try:
        rules = [parse_rule(text) for text in args.rules or [NO_NEW_FAIL]]
    except ValueError as exc:
        raise _UsageError(str(exc)) from None
    try:
        with open(args.baseline, "rb") as handle:
            data = handle.read(MAX_BASELINE_CHARS + 1)
    except OSError as exc:
        raise ValueError(f"cannot read {args.baseline}: {exc.strerror}") from None
    baseline = parse_baseline(data)
    report = diff_report(baseline, _runs_named(_read_runs(args.export), args.run_ids), rules)
    print(json.dumps(report) if args.json else format_diff_report(report))
    return REJECTED_STATUS if report["rejected"] else 0


def _add_run(sub: argparse._SubParsersAction) -> None:
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
    p.set_defaults(run=_run_run, parser=p)


def _temperature(text: str) -> float | None:
    if text == "default":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("give a number, or default") from None


KEY_VARIABLES = {ANTHROPIC: "ANTHROPIC_API_KEY", OPENAI: "OPENAI_API_KEY"}


def _run_run(args: argparse.Namespace) -> int:
    if (args.provider == OPENAI_COMPATIBLE) != (args.base_url is not None):
        raise _UsageError("--base-url is needed with --provider openai-compatible, and only with it")
    if args.set_version == OWN or is_own_set(args.set_version):
        raise _UsageError(f"--set {args.set_version[:40]}: a set of your own cases runs from the AI evaluation page, "
                          "whose log holds them; here the sets are " + ", ".join(SET_VERSIONS))
    check_set_version(args.set_version)
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


class _UsageError(Exception):
    """A combination of arguments argparse cannot express; reported like an argparse error.

    Subcommands raise it only when they set ``parser`` in their defaults.
    """


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pyapp", description="K-d Tree Explorer command line")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_trace(sub)
    _add_evalset(sub)
    _add_prompt(sub)
    _add_report(sub)
    _add_compare(sub)
    _add_agreement(sub)
    _add_experiment(sub)
    _add_baseline(sub)
    _add_diff(sub)
    _add_run(sub)
    return parser


# The status a shell reports for a process ended by SIGPIPE (128 + 13).
BROKEN_PIPE_STATUS = 141


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: sys.argv[1:]), run the subcommand, return its exit status.

    A reader that stops early (``| head``) ends the command quietly with status 141,
    as Python's documentation advises in its note on SIGPIPE.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = args.run(args)
        sys.stdout.flush()  # a closed pipe shows up here, not at exit where it cannot be caught
        return status
    except BrokenPipeError:
        # Point stdout at devnull so the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return BROKEN_PIPE_STATUS
    except _UsageError as exc:
        args.parser.error(str(exc))  # exits with status 2
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 1
