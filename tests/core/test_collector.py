"""The collector pause (pyapp.core.collector): back on after the pass, an error too, and what lives on frozen."""

from __future__ import annotations

import gc

import pytest

from pyapp.core.collector import gc_paused


def test_the_collector_is_paused_only_while_the_pass_runs_and_after_an_error_comes_back():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(KeyError), gc_paused():
        raise KeyError("a pass that fails")
    assert gc.isenabled()


def test_a_callers_choice_is_left_alone_and_only_the_outermost_pause_decides():
    gc.unfreeze()  # what earlier tests in this process kept
    gc.disable()
    try:
        with gc_paused(keep=lambda: True):
            pass
        assert not gc.isenabled() and gc.get_freeze_count() == 0
    finally:
        gc.enable()
    with gc_paused(), gc_paused(keep=lambda: True):
        pass
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_what_the_pass_keeps_is_moved_out_of_the_collectors_generations():
    gc.unfreeze()
    try:
        with gc_paused(keep=lambda: True):
            kept = [[n] for n in range(1000)]
        assert gc.isenabled() and gc.get_freeze_count() >= len(kept)
    finally:
        gc.unfreeze()
