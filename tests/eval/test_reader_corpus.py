"""The reader by rule, on corpora per class, and the Python API equal to the harness."""

from __future__ import annotations

from collections import Counter

import pytest

import mira_math
from mira_math.game.reading import read_message, states_value
from mira_math.game.turns import cut_at_other_speaker, split_reasoning
from mira_math.verifiers import verify
from mira_math.verifiers.words import has_numeric_character, is_hedge, is_number_word
from tests.eval import reader_corpus as rc

INSTANCES = rc.sample_instances()
CASES = rc.cases(INSTANCES)


def _credited(case: rc.Case) -> bool:
    action = read_message(case.message, case.reasoning).action
    return action.kind == "answer" and verify(case.instance, action.text).correct


def _harness(case: rc.Case) -> bool:
    """The episode's verdict when the solver writes this message on every turn."""
    transcript = mira_math.run_episode(case.instance, lambda messages: case.message)
    return bool(transcript["verdict"]["correct"])


@pytest.mark.parametrize("corpus", list(rc.CLASSES))
def test_each_corpus_is_judged_as_built(corpus):
    cases = [c for c in CASES if c.corpus == corpus]
    assert len(cases) >= 100
    assert {c.credit for c in cases} == {True, False}   # each corpus holds both verdicts
    over = [(c.form, c.message) for c in cases if _credited(c) and not c.credit]
    under = [(c.form, c.message) for c in cases if c.credit and not _credited(c)]
    assert over == [] and under == []


@pytest.mark.parametrize("corpus", list(rc.CLASSES))
def test_the_api_gives_the_harness_verdict(corpus):
    for case in (c for c in CASES if c.corpus == corpus):
        harness = _harness(case)
        assert harness == case.credit, (case.form, case.message)
        assert (mira_math.score_answer(case.instance, case.message) == 1.0) == harness, case.message
        assert mira_math.verify(case.instance, case.message).correct == harness, case.message
        extracted = mira_math.extract_answer(case.message)
        assert (mira_math.score_answer(case.instance, extracted) == 1.0) == harness, case.message


def test_the_issue_examples():
    rows = {i.id: i for i in rc.all_instances()}
    row = rows["bay-000000"]                                       # expects 1/4
    assert mira_math.score_answer(rows["bir-000660"], "Thus the answer is 4/9.") == 0.0
    assert mira_math.score_value(rows["bir-000660"], "Thus the answer is 4/9.") == 1.0
    m = "ANSWER: 5/4\n\nFINAL ANSWER \u2014 1/4"
    assert mira_math.score_answer(row, m) == mira_math.score_answer(row, mira_math.extract_answer(m)) == 0.0
    assert mira_math.score_answer(row, "<think>x</think>\n1/4") == 0.0     # no action line
    assert mira_math.score_value(row, "<think>x</think>\n1/4") == 1.0      # the visible value
    assert mira_math.score_value(row, "1/4") == 1.0 and mira_math.score_answer(row, "1/4") == 0.0
    assert mira_math.score_value(row, mira_math.extract_answer("ANSWER: 1/4")) == 1.0


# ---------------------------------------------------------------- the rules, generated

_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen " \
        "fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def _spell(n: int) -> str:
    """English cardinals as people write them (a test-side speller, not the reader's rule)."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else "-" + _ONES[n % 10])
    if n < 1000:
        rest = n % 100
        return _ONES[n // 100] + " hundred" + ("" if rest == 0 else " and " + _spell(rest))
    rest = n % 1000
    return _spell(n // 1000) + " thousand" + ("" if rest == 0 else " " + _spell(rest))


def _ordinal(n: int) -> str:
    irregular = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
                 "nine": "ninth", "twelve": "twelfth"}
    words = _spell(n).replace("-", " - ").split(" ")
    last = words[-1]
    if last in irregular:
        words[-1] = irregular[last]
    elif last.endswith("y"):
        words[-1] = last[:-1] + "ieth"
    else:
        words[-1] = last + "th"
    return " ".join(words).replace(" - ", "-")


@pytest.mark.parametrize("start", range(0, 3000, 500))
def test_every_english_cardinal_ordinal_and_fraction_is_a_value(start):
    for n in range(max(start, 3), start + 500):
        for phrase in (_spell(n), "a " + _ordinal(n), "two " + _ordinal(n) + "s", _spell(n) + " dozen"):
            assert states_value(phrase), phrase


def test_words_that_are_not_values():
    for word in ("the", "first", "second", "once", "due", "tree", "dose", "ein", "une", "uno", "een",
                 "probability", "likelihood", "hypothesis", "environment", "statement", "often", "tent"):
        assert not is_number_word(word), word
    for word in ("probability", "likelihood", "exactly", "finally", "environment", "hypothesis",
                 "the", "answer", "value", "of", "expected", "order", "apply"):
        assert not is_hedge(word), word


def test_hedges_by_rule_beyond_any_list():
    # adverbs no list named: the suffix rule covers them
    for word in ("tentatively", "provisionally", "ostensibly", "purportedly", "nominally", "reputedly",
                 "angeblich", "voraussichtlich", "vraisemblablement", "approximativement",
                 "presumiblemente", "verosimilmente", "provavelmente", "vermoedelijk"):
        assert is_hedge(word), word


def test_every_unicode_numeric_character_is_a_value():
    import sys
    import unicodedata

    numeric = [chr(c) for c in range(0x80, sys.maxunicode + 1)
               if unicodedata.numeric(chr(c), None) is not None]
    assert len(numeric) > 1000
    assert all(has_numeric_character(ch) for ch in numeric)
    assert not has_numeric_character("\u00e9t\u00e9 \u2014 \u2019")


@pytest.mark.parametrize("text, visible, reasoning", [
    ("`<think>` stays\nANSWER: 1", "`<think>` stays\nANSWER: 1", None),
    ("```\n<think>\n```\nok", "```\n<think>\n```\nok", None),
    ("<think>a<think>b</think>c</think>d", "d", "a<think>b</think>c"),
    ("[THINK]a[/THINK]b", "b", "a"),
    ("<|begin_of_thought|>a<|end_of_thought|>b", "b", "a"),
    ("<seed:think>a</seed:think>b", "b", "a"),
    ("<|channel|>analysis<|message|>a<|end|>b", "b", "a"),
    ("x<|end|>y", "x<|end|>y", None),           # an end of turn is the speaker cut's
    ("a</think>b</think>c", "c", "a\n\nb"),      # each stray closer: everything before it
])
def test_reasoning_tags(text, visible, reasoning):
    assert split_reasoning(text) == (visible, reasoning)


@pytest.mark.parametrize("text, kept", [
    ("REQUEST: x?\n**Information holder**: x = 1\nANSWER: 2", "REQUEST: x?\n"),
    ("REQUEST: x?<|im_end|>\n<|im_start|>user\nx = 1", "REQUEST: x?"),
    ("REQUEST: x?<|start_header_id|>user<|end_header_id|>\n\nx = 1", "REQUEST: x?"),
    ("REQUEST: x?<|START_OF_TURN_TOKEN|><|USER_TOKEN|>x = 1", "REQUEST: x?"),
    ("<|im_start|>assistant\nANSWER: 2", "\n\nANSWER: 2"),
    ("System of equations: x\nANSWER: 2", "System of equations: x\nANSWER: 2"),
])
def test_speaker_cuts(text, kept):
    assert cut_at_other_speaker(text)[0] == kept


def test_corpus_sizes_are_reported():
    sizes = Counter(c.corpus for c in CASES)
    assert set(sizes) == set(rc.CLASSES) and min(sizes.values()) >= 100
