"""Held-out capacity: the committed table is what generating the splits gives, and the card
prints it."""

from __future__ import annotations

from pathlib import Path

from mira_math.generators import registry
from mira_math.generators.build import GENERATOR_VERSION
from mira_math.generators.capacity import capacity_report, load_table, markdown, measure, table_version
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


def test_card_prints_the_table():
    card = (ROOT / "dataset_card.md").read_text(encoding="utf-8")
    rows = [load_table()[n] for n in registry.names()]
    assert markdown(rows) in card


def test_report_names_only_families_over_capacity():
    public = [public_split_reference()]
    one = {"seed_set": "h1", "master_seed": 1, "per_type": {"A": 20, "B": 50}}
    assert capacity_report(["graph_path_sums", "laplace_grid"], {"A": 20, "B": 50}, public) == []
    lines = capacity_report(["graph_path_sums", "laplace_grid"], {"A": 20, "B": 50}, public + [one])
    assert len(lines) == 1 and lines[0].startswith("graph_path_sums supports only 1")
    # smaller splits fit where a full-size one does not: 20 public + 5 + 5 <= 40
    small = {"seed_set": "h1", "master_seed": 1, "per_type": {"A": 5, "B": 5}}
    assert capacity_report(["graph_path_sums"], {"A": 5, "B": 5}, public + [small]) == []
