"""The experiments page's "Run it again" (DR-010)."""

from __future__ import annotations

from pyapp.browser.dispatch import op
from pyapp.browser.worker_io import cancelled, emit


@op
async def experiment_run(seed: str, per_kind: str, published_digest: str) -> dict:
    """Recompute the experiment with the visitor's settings, reporting progress and stopping on Cancel."""
    import asyncio

    from pyapp.experiment.orders import experiment_steps, parse_settings
    from pyapp.presentation.experiment_page import figures_html, reproduction_note

    steps = experiment_steps(*parse_settings(seed, per_kind))
    while True:
        try:
            done, total = next(steps)
        except StopIteration as finished:
            figures = finished.value
            break
        if cancelled():
            raise RuntimeError("Cancelled: the figures shown are the ones from before.")
        emit({"type": "experiment-progress", "done": done, "total": total,
              "text": f"Running: step {done} of {total}."})
        await asyncio.sleep(0)  # lets the worker read a Cancel between steps
    return {"html": figures_html(figures, "../explorer/"), "digest": figures["digest"],
            "reproduced": figures["digest"] == published_digest,
            "note": reproduction_note(figures, published_digest)}
