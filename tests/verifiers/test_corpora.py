"""The corpora of ``tests/verifiers/corpus.py``: no wrong answer accepted, no correct one
rejected through the whole message path (raw solver message -> parse_action -> verify)."""

from __future__ import annotations

import hashlib
from collections import Counter

from mira_math.game.reading import parse_action
from mira_math.generators.schema import read_jsonl
from mira_math.verifiers import verify

from tests.verifiers.corpus import DATA, correct_cases, release_instances, wrong_cases

CORRECT = correct_cases()
WRONG = wrong_cases()


def test_correct_corpus_is_large_and_covers_every_style(counts):
    assert len(CORRECT) >= 5000
    styles = {c.style for c in CORRECT}
    assert {s.split(" ")[0].rstrip(",") for s in styles} == {"marker", "bold", "fallback"}
    assert len(styles) >= 9
    assert {c.instance.family for c in CORRECT} == set(counts.families)


def test_every_correct_answer_is_accepted_through_the_message_path():
    rejected = Counter()
    examples = {}
    sources = Counter()
    for case in CORRECT:
        action = parse_action(case.message)
        verdict = verify(case.instance, action.text) if action.kind == "answer" else None
        sources[action.source] += 1
        if verdict is None or not verdict.correct:
            rejected[case.form] += 1
            examples[case.form] = (case.message[-100:], action, verdict)
        else:
            assert verdict.parsed == case.instance.answer.value
        expected_source = "fallback" if case.style.startswith("fallback") else "marker"
        assert action.source == expected_source, case.message
    assert not rejected, [(f, n, examples[f]) for f, n in rejected.most_common(5)]
    assert sources["fallback"] > 0 and sources["marker"] > 0


def test_wrong_corpus_is_large():
    assert len(WRONG) >= 5000
    assert len({c.form for c in WRONG}) >= 100


def test_no_wrong_answer_is_accepted():
    accepted = [(c.form, c.message, verify(c.instance, c.message).parsed)
                for c in WRONG if verify(c.instance, c.message).correct]
    assert not accepted, accepted[:10]


def test_no_wrong_answer_is_accepted_behind_a_marker():
    sample = WRONG[::7]
    accepted = []
    for c in sample:
        action = parse_action("Some work: 2 + 2 = 4.\nANSWER: " + c.message)
        if action.kind == "answer" and verify(c.instance, action.text).correct:
            accepted.append((c.form, c.message))
    assert not accepted, accepted[:10]


def test_every_stored_answer_verifies_by_its_own_canonical_text(counts):
    count = 0
    for path in sorted(DATA.glob("*/test.jsonl")):
        for inst in read_jsonl(path):
            verdict = verify(inst, inst.answer.value)
            assert verdict.correct and verdict.parsed == inst.answer.value, (inst.id, verdict)
            count += 1
    assert count == counts.total


def test_release_bytes_match_their_checksums():
    root = DATA.parent
    lines = (root / "CHECKSUMS.sha256").read_text(encoding="utf-8").split("\n")
    checked = 0
    for line in lines:
        if not line.strip():
            continue
        digest, name = line.split(maxsplit=1)
        path = root / name.strip().lstrip("*")
        assert hashlib.sha256(path.read_bytes()).hexdigest() == digest, name
        checked += 1
    assert checked >= len(list(DATA.glob("*/test.jsonl")))


def test_corpus_instances_are_distinct_answers():
    keys = [(i.family, i.answer.value) for i in release_instances(4)]
    assert len(keys) == len(set(keys))
