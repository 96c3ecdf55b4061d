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


def test_refused_family_reads_generate_s_one_line_refusal(tmp_path, capsys, monkeypatch):
    """The line ``generate`` prints today, produced by the CLI itself (not a copy of it)."""
    from bench_scale import refused_family

    from mira_math.cli.main import main
    from mira_math.generators import build, release

    def refuse(*args, **kwargs):
        raise build.GenerationError("phase_retrieval d=1 index 294: 200 reseeds without a valid instance")

    monkeypatch.setattr(release, "render_release", refuse)
    assert main(["generate", "--seed-set", "bench-refusal", "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert refused_family(err) == "phase_retrieval"
    from bench_scale import refusal_line

    assert refusal_line("mira-math generate: x supports only 2 held-out split(s)\n" + err).startswith(
        "mira-math generate: phase_retrieval d=1 index 294")
    # a capacity warning before it names a family without a difficulty: not a refusal
    assert refused_family("mira-math generate: bayes_missing_prior supports only 2 held-out split(s)") is None


def test_refused_family_still_reads_an_old_traceback():
    from bench_scale import refused_family

    line = "generators.build.GenerationError: phase_retrieval d=1 index 294: 200 reseeds"
    assert refused_family("Traceback\n" + line) == "phase_retrieval"
    assert refused_family("some other failure") is None
