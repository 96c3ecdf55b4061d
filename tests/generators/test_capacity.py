"""Held-out capacity: the committed table is what generating the splits gives, and the card's
tables are generated from it and the registry."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mira_math.generators import registry
from mira_math.generators.build import GENERATOR_VERSION
from mira_math.generators.capacity import (CardError, capacity_report, card_rows, load_table, markdown,
                                           measure, render_card, table_version, write_card)
from mira_math.generators.release import public_split_reference

ROOT = Path(__file__).resolve().parents[2]


def test_table_covers_every_family_for_this_generator_version():
    table = load_table()
    assert table_version() == GENERATOR_VERSION
    assert sorted(table) == sorted(registry.names())
    for cap in table.values():
        assert cap.limited == (cap.splits < 10)


def test_table_matches_a_fresh_measurement_of_small_families():
    table = load_table()
    for name in ("graph_path_sums", "bayes_missing_prior", "matrix_completion"):
        assert measure(name) == table[name]
    assert table["graph_path_sums"].splits == 1 and table["graph_path_sums"].limited


def test_committed_card_is_the_generated_one():
    """dataset_card.md's composition and capacity tables are what ``python -m
    mira_math.generators.capacity --card`` writes (so nobody pastes them by hand)."""
    card = (ROOT / "dataset_card.md").read_text(encoding="utf-8")
    assert render_card(card, card_rows()) == card
    assert markdown(card_rows()) in card


def test_render_card_rewrites_only_its_tables(monkeypatch, tmp_path):
    card = (ROOT / "dataset_card.md").read_text(encoding="utf-8")
    stale = card.replace("| graph_path_sums | **1** (limit) |", "| graph_path_sums | ≥ 10 |")
    stale = stale.replace("bayes_missing_prior, crt_reconstruction", "crt_reconstruction")
    assert stale != card and render_card(stale, card_rows()) == card
    # a new Type A family: named in the composition row, its capacity row in registry order
    monkeypatch.setattr(registry, "TYPE_A", registry.TYPE_A + ("toy_family",))
    table = tmp_path / "capacity.json"
    data = json.loads((ROOT / "mira_math" / "generators" / "capacity.json").read_text(encoding="utf-8"))
    table.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CardError, match="no row for toy_family"):
        card_rows(table)
    data["families"].append({"family": "toy_family", "splits": 3, "limited": True,
                             "instances": {"1": 80, "2": 80, "3": 80}})
    table.write_text(json.dumps(data), encoding="utf-8")
    copy = tmp_path / "dataset_card.md"
    copy.write_text(card, encoding="utf-8")
    assert write_card(copy, table) is True
    new = copy.read_text(encoding="utf-8")
    assert "| A (fixed slot) | " + ", ".join(registry.TYPE_A) + " |" in new
    before, after = registry.TYPE_A[-2], registry.TYPE_B[0]     # the row goes between them
    assert re.search(rf"\| {before} \|[^\n]*\|\n\| toy_family \| \*\*3\*\* \(limit\) \| 80 / 80 / 80 \|\n"
                     rf"\| {after} \|", new)
    assert new.replace(", toy_family", "").replace("| toy_family | **3** (limit) | 80 / 80 / 80 |\n", "") == card
    assert write_card(copy, table) is False       # idempotent


def test_render_card_refuses_a_card_without_its_tables():
    with pytest.raises(CardError, match="capacity table"):
        render_card("| A (fixed slot) | x |\n| B (variable slot) | y |\n", card_rows())
    with pytest.raises(CardError, match="composition row"):
        render_card("no tables here\n", card_rows())


def test_report_names_only_families_over_capacity():
    public = [public_split_reference()]
    one = {"seed_set": "h1", "master_seed": 1, "per_type": {"A": 20, "B": 50}}
    assert capacity_report(["graph_path_sums", "laplace_grid"], {"A": 20, "B": 50}, public) == []
    lines = capacity_report(["graph_path_sums", "laplace_grid"], {"A": 20, "B": 50}, public + [one])
    assert len(lines) == 1 and lines[0].startswith("graph_path_sums supports only 1")
    # smaller splits fit where a full-size one does not: 20 public + 5 + 5 <= 40
    small = {"seed_set": "h1", "master_seed": 1, "per_type": {"A": 5, "B": 5}}
    assert capacity_report(["graph_path_sums"], {"A": 5, "B": 5}, public + [small]) == []
