"""The ``-W`` filter of ``make test-integrations`` hits its target: parsed as pytest parses a
command-line ``-W`` (the message literal, not a regex), it silences the deprecation warning that
inspect_ai's retry policy makes tenacity raise on every model call, and nothing else."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

tenacity = pytest.importorskip("tenacity", reason="comes with inspect_ai (make test-integrations)")

ROOT = Path(__file__).resolve().parents[2]


def makefile_filters() -> list:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    target = text[text.index("\ntest-integrations:"):]
    target = target[:target.index("\n\n")]
    return re.findall(r'-W "([^"]+)"', target)


def caught(filters: list, emit) -> list:
    from _pytest.config import parse_warning_filter

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for arg in filters:
            action, message, category, module, lineno = parse_warning_filter(arg, escape=True)
            warnings.filterwarnings(action, message, category, module, lineno)
        emit()
    return [str(w.message) for w in seen]


def inspect_retry_wait():
    """What inspect_ai/model/_retry.py does on every model call."""
    tenacity.wait_exponential_jitter(initial=3, max=30 * 60, jitter=3)


def test_the_filter_silences_tenacitys_warning_and_nothing_else():
    filters = makefile_filters()
    assert filters
    unfiltered = caught([], inspect_retry_wait)
    assert any("'initial' parameter is deprecated" in m for m in unfiltered)   # the target exists
    assert caught(filters, inspect_retry_wait) == []
    other = caught(filters, lambda: warnings.warn("The 'maximum' parameter is deprecated", DeprecationWarning,
                                                  stacklevel=1))
    assert other == ["The 'maximum' parameter is deprecated"]
