"""The scale benchmark's pure helpers: parsing the wrapper's line and the eval memory ratio."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_scale import memory_ratio, parse_bench_line  # noqa: E402


def test_parse_bench_line_converts_kib_to_mib():
    assert parse_bench_line("noise\nBENCH 0 1.250 51200 0.750\n") == (0, 1.25, 50.0, 0.75)


def test_parse_bench_line_keeps_failing_status():
    assert parse_bench_line("BENCH 2 0.100 1024 0.050")[0] == 2


def test_parse_bench_line_without_line_raises():
    with pytest.raises(ValueError):
        parse_bench_line("Traceback ...")


def test_memory_ratio_needs_both_sizes():
    assert memory_ratio({2000: 40.0, 100000: 60.0}) == 1.5
    assert memory_ratio({2000: 40.0}) is None
    assert memory_ratio({100000: 60.0}) is None


def test_families_with_capacity_keeps_unlimited_and_large_enough():
    from bench_scale import families_with_capacity

    capacity = {"families": [{"family": "a", "splits": 10, "limited": False},
                             {"family": "b", "splits": 4, "limited": True},
                             {"family": "c", "splits": 2, "limited": True}]}
    assert families_with_capacity(capacity, 4) == ["a", "b"]
    assert families_with_capacity(capacity, 16) == ["a"]


def test_refused_family_reads_generation_error():
    from bench_scale import refused_family

    line = "generators.build.GenerationError: phase_retrieval d=1 index 294: 200 reseeds"
    assert refused_family("Traceback\n" + line) == "phase_retrieval"
    assert refused_family("some other failure") is None
