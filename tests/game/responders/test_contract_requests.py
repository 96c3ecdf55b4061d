"""The request rule (docs/benchmark.md §6) on adversarial request corpora, one per class
(``contract_requests.py``): the rules responder must offer the held line exactly where the
rule says so. Reports leaks (an offer where a decline is right), under-offers (a decline where
an offer is right) and wrong lines per class; all must be 0."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Dict, List, Tuple

import pytest

from mira_math.game.responders.base import ResponderCall, ResponderResult
from mira_math.game.responders.rules import decide
from tests.game import contract_corpus as cc
from tests.game.responders import contract_requests as cr

REQUESTS = cr.requests()
_FIELDS = {f.name for f in dataclasses.fields(ResponderCall)}


def _decide(req: cr.Request) -> ResponderResult:
    """The rules responder's decision; the instance's question goes with the call where the
    call has a field for it (the responder reads the target's own words from it)."""
    extra = {"question": req.instance.view.question} if "question" in _FIELDS else {}
    return decide(ResponderCall(list(req.instance.responder), req.text, req.instance.family, 0, **extra))


def _outcome(req: cr.Request, result: ResponderResult) -> str:
    """``ok``, ``leak`` (offer where a decline is right), ``under`` (decline where an offer is
    right) or ``wrong line`` (an offer of another line)."""
    if req.offer:
        if result.decision != "offer":
            return "under"
        return "ok" if result.quoted_constraint == req.line else "wrong line"
    return "leak" if result.decision == "offer" else "ok"


@pytest.fixture(scope="module")
def outcomes() -> List[str]:
    return [_outcome(r, _decide(r)) for r in REQUESTS]


def tally(reqs: List[cr.Request], got: List[str]) -> Dict[str, Tuple[int, int, int, int]]:
    """Per class: (requests, leaks, under-offers, wrong lines)."""
    out: Dict[str, Tuple[int, int, int, int]] = {}
    for req, o in zip(reqs, got):
        n, leak, under, wrong = out.get(req.corpus, (0, 0, 0, 0))
        out[req.corpus] = (n + 1, leak + (o == "leak"), under + (o == "under"), wrong + (o == "wrong line"))
    return out


def summary() -> str:
    got = [_outcome(r, _decide(r)) for r in REQUESTS]
    rows = [f"{'class':<16} {'requests':>8} {'leaks':>6} {'under':>6} {'wrong':>6}"]
    for corpus, (n, leak, under, wrong) in tally(REQUESTS, got).items():
        rows.append(f"{corpus:<16} {n:>8} {leak:>6} {under:>6} {wrong:>6}")
    return "\n".join(rows)


def test_the_corpora_cover_every_family():
    families = sorted(p.name for p in cc.DATA.iterdir() if (p / "test.jsonl").exists())
    two_fact = sorted(p.name for p in cc.DATA.iterdir() if (p / "multi_hint.jsonl").exists())
    numeric = sorted({i.family for i in cc.sample_instances() if any(cr.numeric(h.slot) for h in i.hints)})
    assert set(numeric) < set(families)       # derived quantities: where the held slot is a number
    for corpus, reqs in cr.by_class(REQUESTS):
        assert sorted({r.instance.family for r in reqs}) == (numeric if corpus == "derived" else families), corpus
        want = set(two_fact) & set(numeric) if corpus == "derived" else set(two_fact)
        assert {r.instance.family for r in reqs if r.instance.hint_groups} == want, corpus
        assert {r.offer for r in reqs} == {corpus in ("purpose", "given", "recap")}, corpus
    for req in REQUESTS:                      # the line to offer is one the responder holds
        assert (req.line in req.instance.responder) if req.offer else req.line is None
    assert 2000 <= len(REQUESTS) <= 6000


def test_the_corpora_are_deterministic():
    assert [(r.corpus, r.form, r.instance.id, r.text) for r in cr.requests()] == \
        [(r.corpus, r.form, r.instance.id, r.text) for r in REQUESTS]


@pytest.mark.parametrize("corpus", cr.CLASSES)
def test_each_class_is_decided_by_the_rule(corpus, outcomes):
    pairs = [(r, o) for r, o in zip(REQUESTS, outcomes) if r.corpus == corpus]
    bad = [(r, o) for r, o in pairs if o != "ok"]
    kinds = Counter(o for _, o in bad)
    forms = Counter((o, r.form) for r, o in bad)
    detail = "; ".join(f"{o} {f!r}: {n}" for (o, f), n in sorted(forms.items()))
    first = [(r.instance.id, r.text, o) for r, o in bad[:3]]
    assert bad == [], (
        f"{corpus}: {kinds['leak']} leaks, {kinds['under']} under-offers, {kinds['wrong line']} wrong lines "
        f"of {len(pairs)} requests ({detail}); first: {first}")


if __name__ == "__main__":
    print(summary())
