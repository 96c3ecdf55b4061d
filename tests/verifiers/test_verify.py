"""The verifier never raises and accepts exactly the value it was given."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from mira_math.generators.schema import Answer
from mira_math.verifiers import canonical, verify_answer
from mira_math.verifiers.exact import equal, from_canonical

ANSWERS = [
    Answer("int", "42"), Answer("fraction", "10/37"), Answer("fraction", "-3/4"),
    Answer("tuple", "(10, 1, 1)", ["q0", "q1", "q2"]), Answer("cell", "0"),
]
fractions = st.fractions(max_denominator=10**6).filter(lambda f: abs(f) < 10**9)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=300))
def test_never_raises_on_arbitrary_text(text):
    for answer in ANSWERS:
        verdict = verify_answer(answer, text)
        assert isinstance(verdict.correct, bool)
        assert verdict.expected == answer.value


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="0123456789-+/.,()[]{}=\\fracbxd $qe:;", max_size=40))
def test_never_raises_on_number_like_text(text):
    for answer in ANSWERS:
        verdict = verify_answer(answer, text)
        if verdict.correct:  # an accepted form is the value itself
            assert equal(from_canonical(answer.type, verdict.parsed if answer.type == "tuple"
                                        else verdict.parsed), from_canonical(answer.type, answer.value))


def test_non_text_inputs_are_verdicts_not_exceptions():
    for bad in (None, 42, b"10/37", ["10/37"], object()):
        verdict = verify_answer(ANSWERS[1], bad)
        assert not verdict.correct and verdict.parsed is None


@settings(max_examples=300, deadline=None)
@given(value=fractions)
def test_canonical_form_round_trips(value):
    answer = Answer("fraction", canonical("fraction", value))
    assert verify_answer(answer, answer.value).correct
    assert from_canonical("fraction", answer.value) == value
    assert not verify_answer(answer, canonical("fraction", value + Fraction(1, 7))).correct


@settings(max_examples=200, deadline=None)
@given(values=st.lists(fractions, min_size=2, max_size=4))
def test_tuples_round_trip_and_swaps_are_wrong(values):
    names = [f"x{i}" for i in range(len(values))]
    answer = Answer("tuple", canonical("tuple", tuple(values)), names)
    assert verify_answer(answer, answer.value).correct
    assert verify_answer(answer, ", ".join(f"{n} = {canonical('fraction', v)}"
                                           for n, v in reversed(list(zip(names, values))))).correct
    if values[0] != values[1]:
        swapped = [values[1], values[0]] + values[2:]
        assert not verify_answer(answer, canonical("tuple", tuple(swapped))).correct


def test_paper_bayes_example_values():
    answer = Answer("fraction", "10/37")
    assert verify_answer(answer, "10/37").correct
    assert not verify_answer(answer, "5/29").correct
    assert verify_answer(answer, "5/29").reason == "wrong value"
