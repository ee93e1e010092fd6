"""What our runs and Inspect's logs call the same things (DR-014): the task's name, the model's name, the stop
reasons, latencies in seconds, and how an Inspect log is told from our own files. Imports no ``inspect_ai``."""

from __future__ import annotations

import hashlib
import os
import re

from pyapp.core.vocabulary import Stop
from pyapp.evaluation.evalset import SET_VERSIONS, Case, case_search
from pyapp.explanation.prompt import trace_line
from pyapp.providers.settings import ANTHROPIC, OPENAI, OPENAI_COMPATIBLE

INSTALL_HINT = "pip install '.[inspect]'"

# What ``run`` sends when no max tokens are given; the task asks the same, and a log naming none was asked so.
DEFAULT_MAX_TOKENS = 4000

# A task of this project is named for its set and prompt version: explain-eval-x80.explain-prompt-1.
_TASK_RE = re.compile(r"^(?P<set>[a-z0-9-]+)\.(?P<prompt>explain-prompt-[0-9a-z-]+)\Z")

# Inspect's stop reasons for ours, and back; Inspect's other reasons are Stop.OTHER.
_TO_INSPECT = {Stop.END: "stop", Stop.MAX_TOKENS: "max_tokens", Stop.REFUSAL: "content_filter",
               Stop.OTHER: "unknown"}
_FROM_INSPECT = {"stop": Stop.END, "max_tokens": Stop.MAX_TOKENS, "model_length": Stop.MAX_TOKENS,
                 "content_filter": Stop.REFUSAL}

# A Zip file's first bytes (an .eval log), and the first keys Inspect writes in a JSON log.
_ZIP_MAGIC = b"PK\x03\x04"
_INSPECT_JSON = re.compile(rb'\A\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')


class InspectMissing(ValueError):
    """Inspect AI is not installed: said in one line with the command that installs it."""


def require_inspect() -> None:
    """``InspectMissing`` unless ``inspect_ai`` can be imported."""
    try:
        import inspect_ai  # noqa: F401
    except ImportError:
        raise InspectMissing(f"reading or writing Inspect logs needs Inspect AI: {INSTALL_HINT}") from None


def task_name(set_version: str, prompt_version: str) -> str:
    return f"{set_version}.{prompt_version}"


def task_set(name: str) -> tuple[str, str] | None:
    """The set and prompt version a task of this project is named for, or None for another task."""
    match = _TASK_RE.match(name)
    if match is None or match["set"] not in SET_VERSIONS:
        return None
    return match["set"], match["prompt"]


def inspect_model(settings: dict) -> tuple[str, str | None]:
    """The model as Inspect names it (``provider/model``), and the base URL it is given."""
    if settings["provider"] == ANTHROPIC:
        return f"anthropic/{settings['model']}", None
    return f"openai/{settings['model']}", settings["base_url"]


def settings_of(model: str, base_url: str | None, max_tokens: int, temperature: float | None) -> dict:
    """Our request settings for an Inspect model name; a provider we do not speak is an OpenAI-compatible server
    named on the reserved ``.invalid`` domain (RFC 2606), so its runs keep a configuration of their own."""
    provider, _, name = model.partition("/")
    if provider == ANTHROPIC and base_url is None:
        return _settings(ANTHROPIC, name, max_tokens, temperature, None)
    if provider == OPENAI:
        if base_url is None:
            return _settings(OPENAI, name, max_tokens, temperature, None)
        return _settings(OPENAI_COMPATIBLE, name, max_tokens, temperature, base_url)
    host = re.sub(r"[^a-z0-9-]+", "-", provider.lower()).strip("-") or "inspect"
    return _settings(OPENAI_COMPATIBLE, model, max_tokens, temperature, base_url or f"https://{host}.invalid")


def _settings(provider: str, model: str, max_tokens: int, temperature: float | None, base_url: str | None) -> dict:
    return {"provider": provider, "model": model, "max_tokens": max_tokens,
            "temperature": None if temperature is None else float(temperature), "base_url": base_url}


def inspect_stop(stop: str) -> str:
    return _TO_INSPECT[Stop(stop)]


def stop_of(inspect_reason: str) -> Stop:
    return _FROM_INSPECT.get(inspect_reason, Stop.OTHER)


def seconds(ms: float | None) -> float | None:
    return None if ms is None else ms / 1000


def milliseconds(value: float | None, exact: object = None) -> float | None:
    """Inspect's ``value`` in seconds as milliseconds; ``exact``, the milliseconds an export of ours keeps in the
    sample's metadata, when it is that value (a division by 1,000 is not always undone by a product)."""
    if value is None:
        return None
    ms = value * 1000
    if isinstance(exact, float | int) and not isinstance(exact, bool) and abs(exact - ms) <= 1e-6 * max(1.0, ms):
        return exact
    return ms


def trace_digest(case: Case) -> str:
    """sha256 of the case's whole trace, one line a step as the prompt prints them: which search was explained."""
    lines = "\n".join(trace_line(step) for step in case_search(case).trace)
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def is_inspect_log(path: str) -> bool:
    """True for a folder, a ``.eval`` file, or a file that starts as Inspect's JSON logs do; our own logs and
    exports start otherwise."""
    if os.path.isdir(path) or path.endswith(".eval"):
        return True
    try:
        with open(path, "rb") as handle:
            head = handle.read(256)
    except OSError:
        return False
    return head.startswith(_ZIP_MAGIC) or _INSPECT_JSON.match(head) is not None
