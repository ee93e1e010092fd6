"""Runs grouped by configuration: what determines a run's calls (DR-008).

A configuration is the provider, the model requested, the base URL's host (for
openai-compatible servers), the temperature, the max tokens, the prompt version
with a hash of the whole set's prompts, and the eval-set version. Two runs with
the same configuration are repeats of one measurement.

A run's counted answers are never stale (DR-006, rule 2), so they were all asked
with the run's set and today's prompts for it: those parts of the key are the
run's set and today's prompts of that set. Runs of different sets are therefore
never one configuration, and never pooled in one figure (DR-009). A run
whose calls used different settings is no repeat of anything and is kept apart,
as is a run with no call at all (only cancel entries).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from pyapp.evaluation.evalset import EVAL_SET_VERSION, FIXED_SETS, Case, CaseSets, case_prompt
from pyapp.evaluation.own_cases import set_label
from pyapp.evaluation.runs import Run

ID_LENGTH = 8


@dataclass(frozen=True)
class Configuration:
    """The settings that determine a run's calls. ``id`` is a short stable name for the command line."""

    provider: str
    model: str
    base_url_host: str | None
    temperature: float | None
    max_tokens: int
    prompt_version: str
    prompt_set_hash: str
    eval_set_version: str

    def to_json(self) -> dict:
        return {
            "provider": self.provider,
            "model": self.model,
            "base_url_host": self.base_url_host,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "prompt_version": self.prompt_version,
            "prompt_set_hash": self.prompt_set_hash,
            "eval_set_version": self.eval_set_version,
        }

    @property
    def id(self) -> str:
        canonical = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:ID_LENGTH]

    @property
    def label(self) -> str:
        """One line for a person: "anthropic claude-x, temperature 0, max tokens 4000"."""
        where = f" at {self.base_url_host}" if self.base_url_host else ""
        temperature = "default" if self.temperature is None else f"{self.temperature:g}"
        return (f"{self.provider} {self.model}{where}, temperature {temperature}, max tokens {self.max_tokens}, "
                f"prompt {self.prompt_version}, set {set_label(self.eval_set_version)}")


@dataclass(frozen=True)
class ConfigurationRuns:
    """A configuration and its runs, oldest first."""

    configuration: Configuration
    runs: tuple[Run, ...]


@dataclass(frozen=True)
class Grouped:
    """Every run of a log by configuration, and the runs that belong to none, with why."""

    groups: tuple[ConfigurationRuns, ...]
    apart: tuple[tuple[str, str], ...]  # (run id, reason)

    def find(self, name: str) -> ConfigurationRuns:
        """The configuration with id ``name``, or the one holding the run ``name``."""
        for group in self.groups:
            if group.configuration.id == name or any(r.run_id == name for r in group.runs):
                return group
        for run_id, reason in self.apart:
            if run_id == name:
                raise ValueError(f"run {name} belongs to no configuration: {reason}")
        known = ", ".join(g.configuration.id for g in self.groups) or "none"
        raise ValueError(f"no configuration or run {name!r} in the log (configurations: {known})")


# The prompt version and digest of each set met, by name: a set's name always means the same cases.
_PROMPT_SETS: dict[str, tuple[str, str]] = {}


def _prompt_set(version: str, cases: Callable[[], Iterable[Case]]) -> tuple[str, str]:
    """Today's prompt version and a sha256 over every case's prompt hash of set ``version``, in set order.

    ``cases`` gives the set's cases when the set is first met.
    """
    found = _PROMPT_SETS.get(version)
    if found is None:
        prompts = [(c.case_id, case_prompt(c)) for c in cases()]
        versions = sorted({p.version for _, p in prompts})
        joined = "\n".join(f"{case_id} {p.hash}" for case_id, p in prompts)
        found = _PROMPT_SETS[version] = ", ".join(versions), hashlib.sha256(joined.encode("utf-8")).hexdigest()
    return found


def base_url_host(base_url: str | None) -> str | None:
    """The host (and port, when given) of a compatible server's base URL; None for hosted providers."""
    if not base_url:
        return None
    parts = urlsplit(base_url)
    host = (parts.hostname or "").lower()
    return f"{host}:{parts.port}" if parts.port is not None else host


def configuration_of(run: Run) -> Configuration | None:
    """The configuration of ``run``; None when its calls used different settings or it made no call."""
    if run.settings is None or run.mixed_settings:
        return None
    return _configuration(run.settings, run.eval_set_version, lambda: (c.case for c in run.cases))


def configuration_for(s: dict, eval_set_version: str = EVAL_SET_VERSION, sets: CaseSets = FIXED_SETS) -> Configuration:
    """The configuration a run of set ``eval_set_version`` (a name ``sets`` knows) with request settings ``s``
    would have today."""
    return _configuration(s, eval_set_version, lambda: sets.cases(eval_set_version))


def _configuration(s: dict, eval_set_version: str, cases: Callable[[], Iterable[Case]]) -> Configuration:
    version, digest = _prompt_set(eval_set_version, cases)
    temperature = s["temperature"]
    return Configuration(
        provider=s["provider"],
        model=s["model"],
        base_url_host=base_url_host(s["base_url"]),
        # 0 and 0.0 (a number that went through JavaScript) are the same setting.
        temperature=None if temperature is None else float(temperature),
        max_tokens=int(s["max_tokens"]),
        prompt_version=version,
        prompt_set_hash=digest,
        eval_set_version=eval_set_version,
    )


def drift(runs: Sequence[Run]) -> dict:
    """The models and system fingerprints the provider reported over ``runs``, and whether they differ.

    Runs answered by different reported models or fingerprints are flagged: their spread
    may be a change of model behind one name, not the noise of one model (DR-008).
    """
    models = sorted({m for run in runs for m in run.models_reported})
    fingerprints = sorted({f for run in runs for f in run.fingerprints})
    parts = []
    if len(models) > 1:
        parts.append(f"answered by {len(models)} different reported models ({', '.join(models)})")
    if len(fingerprints) > 1:
        parts.append(f"{len(fingerprints)} different system fingerprints ({', '.join(fingerprints)})")
    return {"models_reported": models, "fingerprints": fingerprints, "flagged": bool(parts),
            "text": "; ".join(parts)}


def group_runs(runs: Sequence[Run]) -> Grouped:
    """Runs by configuration, groups in order of their first run, runs oldest first as given."""
    order: list[Configuration] = []
    members: dict[Configuration, list[Run]] = {}
    apart: list[tuple[str, str]] = []
    for run in runs:
        config = configuration_of(run)
        if config is None:
            reason = ("its calls used different settings" if run.mixed_settings
                      else "it made no call")
            apart.append((run.run_id, reason))
            continue
        if config not in members:
            order.append(config)
            members[config] = []
        members[config].append(run)
    groups = tuple(ConfigurationRuns(c, tuple(members[c])) for c in order)
    return Grouped(groups, tuple(apart))
