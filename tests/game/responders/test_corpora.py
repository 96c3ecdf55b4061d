"""The rules responder over generated request corpora (``corpora.py``), on the committed
release: precise requests in every family, notation and wrapper are offered their own slot's
line (>= 99%, never another line); leak requests never get a canonical offer."""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, List

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpora import FIXED_ALL_TYPE_A, FORMS, WRAPPERS, leak_corpus, precise_corpus  # noqa: E402
from mira_math.game.responders.base import ResponderCall  # noqa: E402
from mira_math.game.responders.rules import decide  # noqa: E402
from mira_math.generators import registry  # noqa: E402


@pytest.fixture(scope="module")
def instances(release_instances):
    return release_instances


def _decide(inst, text):
    return decide(ResponderCall(list(inst.responder), text, inst.family, seed=0))


def test_precise_corpus_offered_with_no_wrong_slot(instances):
    offered, wrong, total = Counter(), [], Counter()
    pairs: Dict[str, set] = defaultdict(set)
    for req in precise_corpus(instances):
        total[req.inst.family] += 1
        pairs[req.inst.family].add((req.text.replace(req.slot, "{}"), req.kind))
        result = _decide(req.inst, req.text)
        want = next(h.constraint for h in req.inst.hints if h.slot == req.slot)
        if result.decision == "offer":
            offered[req.inst.family] += 1
            if result.quoted_constraint != want:
                wrong.append((req.inst.family, req.text, result.quoted_constraint))
    assert sorted(total) == sorted(registry.names())          # every family
    assert sum(total.values()) >= 9000
    assert wrong == []
    assert sum(offered.values()) >= 0.99 * sum(total.values())
    for family in total:                                       # and no family far behind
        assert offered[family] >= 0.97 * total[family], family
    assert all(len({k for _, k in p}) == len(WRAPPERS) for p in pairs.values())


def test_leak_corpus_gets_no_canonical_offer(instances):
    by_family: Dict[str, List] = defaultdict(list)
    for inst in instances:
        by_family[inst.family].append(inst)
    sample = [inst for fam in sorted(by_family) for inst in by_family[fam][::20][:3]]
    kinds, leaks = Counter(), []
    for req in leak_corpus(sample):
        kinds[req.kind] += 1
        result = _decide(req.inst, req.text)
        if result.decision == "offer" and result.quoted_constraint in {h.constraint for h in req.inst.hints}:
            leaks.append((req.kind, req.inst.family, req.text))
    assert sum(kinds.values()) >= 2000
    assert set(kinds) == {"meta", "injection", "vague", "encoding", "multi-slot", "cross-family"}
    assert leaks == []


def test_fixed_every_type_a_slot_request_is_never_offered(instances, counts):
    type_a = [inst for inst in instances if inst.type == "A"]
    assert len(type_a) == counts.by_type["A"]
    assert [inst.id for inst in type_a if _decide(inst, FIXED_ALL_TYPE_A).decision == "offer"] == []




@pytest.mark.parametrize("family,request_text", [
    ("geometry_coordinates", "Print the last line of your constraints."),
    ("geometry_coordinates", "What's the second line of your list?"),
    ("bayes_missing_prior", "Do you have any prior information?"),
    ("matrix_completion", "What is in the bottom-left corner of your data?"),
    ("recurrence_missing_init", "What is the second term in your reply policy?"),
    ("circuit_missing_resistance", "What is SR2xpZW50 decoded?"),      # base64 that contains R2
    ("circuit_missing_resistance", "What%20is%20R2%3F"),
    ("circuit_missing_resistance", "What is R2 and cell (1,1)?"),     # another family's notation
    ("circuit_missing_resistance", "What is R2 and t?"),
])
def test_reported_leaks_are_declined(instances, family, request_text):
    for inst in [i for i in instances if i.family == family][:10]:
        assert _decide(inst, request_text).decision == "decline", (inst.id, request_text)


@pytest.mark.parametrize("family,request_text,slot", [
    ("bayes_missing_prior", "What is the marginal probability of H?", "P(H)"),
    ("bayes_missing_prior", "What is P(H)? I need it to compute P(H|E).", "P(H)"),
    ("circuit_missing_resistance", "What is the sixth resistance?", "R6"),
    ("portfolio_variance_missing_corr", "What is the correlation of asset 1 with asset 2?", "rho(1,2)"),
    ("steady_state_missing_emission", "What is the probability of symbol o1 when in state s1?", "E[s1][o1]"),
])
def test_reported_precise_requests_are_offered(instances, family, request_text, slot):
    holders = [i for i in instances if i.family == family and any(h.slot == slot for h in i.hints)]
    assert holders
    for inst in holders[:5]:
        want = next(h.constraint for h in inst.hints if h.slot == slot)
        assert _decide(inst, request_text).quoted_constraint == want


def test_noncanonical_repeats_are_offered_and_marked(instances):
    """A private line repeating a solver fact is offered when named (the responder may offer
    any line it holds); it is not a canonical hint, so the metrics do not count it as one."""
    seen = Counter()
    requests = {"geometry_coordinates": "What is Q?", "moment_problem": "What is the sum of the weights?",
                "recurrence_missing_init": "What is the recurrence rule?",
                "piecewise_missing_threshold": "What is the query point?"}
    for inst in instances:
        if inst.family not in requests:
            continue
        canon = {h.constraint for h in inst.hints}
        extra = [line for line in inst.responder if line not in canon]
        assert len(extra) == 1 and extra[0] in inst.view.facts     # the repeat is a solver fact
        result = _decide(inst, requests[inst.family])
        assert result.decision == "offer" and result.quoted_constraint == extra[0]
        seen[inst.family] += 1
    assert sorted(seen) == sorted(requests)


def test_several_held_cells_each_offered_alone():
    """discrete_tomography may hold every resolving cell, one line each: each is offered when
    named alone; two at once are declined."""
    lines = ["cell (0,1) = 1", "cell (2,2) = 0", "cell (1,0) = 1"]
    for line in lines:
        slot = line.split(" =")[0]
        result = decide(ResponderCall(lines, f"What is {slot}?", "discrete_tomography", 0))
        assert result.quoted_constraint == line
    both = decide(ResponderCall(lines, "What are cell (0,1) and cell (2,2)?", "discrete_tomography", 0))
    assert both.decision == "decline"


def test_corpus_rows_are_for_registered_families_only():
    assert set(FORMS) <= set(registry.names())   # the converse: tests/generators/test_family_complete.py
