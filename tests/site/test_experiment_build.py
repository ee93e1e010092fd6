"""The experiments page as the build writes it: figures readable without Python, cached between builds (DR-010)."""

from __future__ import annotations

import html
import re

from pyapp.experiment import orders as experiment
from sitegen import ROOT, caches
from sitegen.pyapp_content import experiment_figures


def test_real_experiments_page_publishes_the_figures_and_links_to_the_explorer(dist):
    page = (dist / "experiments" / "index.html").read_text(encoding="utf-8")
    figures = experiment_figures(ROOT)
    assert f'data-digest="{figures["digest"]}"' in page
    near = figures["kinds"][0]["orders"][-1]["nodes_visited"]["text"]
    assert f'{near["mean"]} <span class="ci-text">({near["mean_ci"]})</span>' in page
    assert page.count('<svg class="plot"') == 2 * len(figures["kinds"])
    assert 'style="' not in page  # the policy blocks inline styles
    first = figures["kinds"][0]["largest"][0]
    assert f'href="{html.escape("../explorer/?" + first["explorer"])}"' in page
    assert re.search(r'<a href="\.\./experiments/"[^>]*>Experiments</a>', page) is None  # the page's own link
    assert '<a href="./" aria-current="page">Experiments</a>' in page
    assert '<a href="../experiments/">Experiments</a>' in (dist / "explorer" / "index.html").read_text("utf-8")


def test_figures_are_computed_once_then_read_from_the_cache(tmp_path, monkeypatch):
    calls = []
    real = experiment.run_experiment

    def counted() -> dict:
        calls.append(1)
        return real(5, 3)

    monkeypatch.setattr(experiment, "run_experiment", counted)
    first = experiment_figures(tmp_path)
    second = experiment_figures(tmp_path)
    assert len(calls) == 1
    assert first == second and first["digest"] == experiment.figures_digest(second)
    assert len(list((tmp_path / caches.EXPERIMENT_CACHE).glob("*.json"))) == 1
