"""The reading contract (docs/benchmark.md §6) on adversarial answer corpora, one per class
(``contract_corpus.py``): every case's verdict, as an episode judges its final turn, must be
the one the contract gives. Reports over-credits and under-credits per class; both must be 0."""

from __future__ import annotations

from collections import Counter
from typing import Dict, List, Tuple

import pytest

import mira_math
from tests.game import contract_corpus as cc

INSTANCES = cc.sample_instances()
CASES = cc.cases(INSTANCES)


def _credited(case: cc.Case) -> bool:
    """The verdict on the message as the final turn of an episode (``verify`` reads a whole
    message exactly as an episode's final turn is read)."""
    return bool(mira_math.verify(case.instance, case.message).correct)


@pytest.fixture(scope="module")
def verdicts() -> List[bool]:
    return [_credited(c) for c in CASES]


def tally(cases: List[cc.Case], got: List[bool]) -> Dict[str, Tuple[int, int, int]]:
    """Per class: (cases, over-credits, under-credits)."""
    out: Dict[str, Tuple[int, int, int]] = {}
    for case, credited in zip(cases, got):
        n, over, under = out.get(case.corpus, (0, 0, 0))
        out[case.corpus] = (n + 1, over + int(credited and not case.credit),
                            under + int(case.credit and not credited))
    return out


def summary() -> str:
    got = [_credited(c) for c in CASES]
    rows = [f"{'class':<16} {'cases':>6} {'over':>6} {'under':>6}"]
    for corpus, (n, over, under) in tally(CASES, got).items():
        rows.append(f"{corpus:<16} {n:>6} {over:>6} {under:>6}")
    return "\n".join(rows)


def test_the_corpora_cover_every_family_and_both_verdicts():
    families = sorted(p.name for p in cc.DATA.iterdir() if (p / "test.jsonl").exists())
    two_fact = sorted(p.name for p in cc.DATA.iterdir() if (p / "multi_hint.jsonl").exists())
    assert families and two_fact
    for corpus in cc.CLASSES:
        cases = [c for c in CASES if c.corpus == corpus]
        assert sorted({c.instance.family for c in cases}) == families, corpus
        assert {c.instance.family for c in cases if c.instance.hint_groups} == set(two_fact), corpus
        assert {c.credit for c in cases} == ({False} if corpus == "different value" else {True, False}), corpus
    assert 2000 <= len(CASES) <= 8000


def test_the_corpora_are_deterministic():
    again = cc.cases(cc.sample_instances())
    assert [(c.corpus, c.form, c.instance.id, c.message, c.credit) for c in again] == \
        [(c.corpus, c.form, c.instance.id, c.message, c.credit) for c in CASES]


@pytest.mark.parametrize("corpus", cc.CLASSES)
def test_each_class_is_judged_by_the_contract(corpus, verdicts):
    pairs = [(c, v) for c, v in zip(CASES, verdicts) if c.corpus == corpus]
    over = [c for c, v in pairs if v and not c.credit]
    under = [c for c, v in pairs if c.credit and not v]
    forms = Counter(("over" if c in over else "under", c.form) for c in over + under)
    detail = "; ".join(f"{k} {f!r}: {n}" for (k, f), n in sorted(forms.items()))
    first = [(c.instance.id, c.message) for c in (over + under)[:3]]
    assert (len(over), len(under)) == (0, 0), (
        f"{corpus}: {len(over)} over-credits, {len(under)} under-credits of {len(pairs)} cases "
        f"({detail}); first: {first}")


EPISODE_SAMPLE = [c for corpus in cc.CLASSES for c in [c for c in CASES if c.corpus == corpus][::37]]


def _episode(case: cc.Case) -> bool:
    """The final verdict of a whole episode in which the solver writes the message every turn."""
    transcript = mira_math.run_episode(case.instance, lambda messages: case.message)
    return bool(transcript["verdict"]["correct"])


@pytest.fixture(scope="module")
def episodes() -> List[bool]:
    return [_episode(c) for c in EPISODE_SAMPLE]


def test_an_episode_judges_as_verify(episodes):
    """``verify`` on the message is the episode's final verdict (what the class tests rely on)."""
    assert len(EPISODE_SAMPLE) >= 100
    assert [(c.form, c.message) for c, e in zip(EPISODE_SAMPLE, episodes) if e != _credited(c)] == []


def test_an_episode_gives_the_contract_verdict(episodes):
    wrong = Counter(c.corpus for c, e in zip(EPISODE_SAMPLE, episodes) if e != c.credit)
    assert sum(wrong.values()) == 0, f"episodes off the contract per class: {dict(wrong)}"


if __name__ == "__main__":
    print(summary())
