"""Checking converted instances (``--check``): our family code recomputes every answer from
the converted solver view plus the canonical hint and compares it with theirs, our validators
run on the instance, and each finding is filed under the property that says what it means for
imported data (:func:`classify`); :func:`summarise` counts them per family."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from typing import Any, Dict, Optional, Sequence, Tuple

from mira_math.game.slots import line_slot, mentioned_slots
from mira_math.generators import registry
from mira_math.generators.family import Family
from mira_math.generators.schema import Answer, Instance, View
from mira_math.generators.validate import validate_instance
from mira_math.reference_import.instance import Converted
from mira_math.verifiers.exact import canonical, equal

# Finding properties. ``consistency`` always fails for imported data (the stored lines are
# their text, not our rendering); the other informational ones say where their setup or ranges
# differ from our family's. Only the REAL properties are findings about the source data.
EXPECTED = {
    "consistency": "the stored fact, responder and hint lines are the source's verbatim text, "
                   "not our family's rendering of the latent state, so the validator's "
                   "byte-for-byte rendering comparison always differs for imported data",
    "setup": "the source family's setup differs from ours here (recorded so that the "
             "conversion loses nothing silently); a validator result that depends on the part "
             "of the view that differs is filed here, prefixed with our family's setup",
    "range": "a value lies outside the range our generator draws from (our check() rejects "
             "it); the source draws from other ranges, so this is no defect of the source data",
    "degenerate": "the state fails one of our generator's non-degeneracy filters (a purely "
                  "series or parallel network, a constant signal, a kernel with a zero last "
                  "tap): a valid but easier instance than ours",
    "unverified": "our validator could not decide the property: its witness search stays "
                  "within our family's ranges and conditions, which this state fails",
}
REAL = ("schema", "global_uniqueness", "local_underdetermination", "hint_sufficiency",
        "chance_level")

_RANGE = re.compile(r"outside \[|denominator above|has denominator|not an integer in \[|"
                    r"must lie in \[|lies outside|does not match level|is not in \[")
_DEGENERATE = re.compile(r"purely series or purely parallel|signal is constant|single spike|"
                         r"last tap is zero")
_UNDECIDED = re.compile(r"^the witness is not valid|^no second completion|^KeyError|^IndexError")

# Families whose converted state is checked by our validators under a view that differs from
# the source's (the twin's view is our family's): what differs.
VIEW_DIFFERS = {
    "geometry_coordinates": "its domain bounds P to a box and the line coefficients; the "
                            "converted instance states no box, as the source states none",
    "phase_retrieval": "its view also states x1",
    "poly_interpolation": "its view also lists the nodes",
    "deconvolution": "its view omits the full convolution's tail outputs",
    "steady_state_missing_emission": "it withholds a second emission entry of the row",
}


def _rendered_twin(inst: Instance, family: Family) -> Instance:
    """The instance as our generator would write it from the same latent state: the
    validators' semantic checks (uniqueness, underdetermination, hint sufficiency, chance
    level) compare rendered text, so they run on this twin; only the consistency of the stored
    text with that rendering is checked on the stored record itself."""
    latent = inst.latent_state()
    r = family.render(latent)
    try:
        found = family.candidates(family.known(latent))
        cands = len(found) if found is not None else None
    except Exception:
        cands = None
    return replace(inst, view=View(r.context, r.facts, r.question, r.domain),
                   responder=list(r.responder), hints=list(r.hints),
                   answer=Answer(inst.answer.type, inst.answer.value, list(r.components)),
                   candidate_answers=cands)


def check_instance(conv: Converted) -> dict:
    """The cross-check and the validator findings of one converted instance."""
    inst = conv.instance
    family = registry.get(inst.family)
    from mira_math.verifiers.exact import from_canonical

    theirs = inst.answer.value
    try:
        latent = family.complete(conv.conversion.known, conv.hint)
        if conv.conversion.finish:
            latent = conv.conversion.finish(latent)
        ours_value = family.solve(latent)
        ours = canonical(inst.answer.type, ours_value)
        status = "agree" if equal(ours_value, from_canonical(inst.answer.type, theirs)) \
            else "disagree"
        why = None
    except Exception as err:
        ours, status, why = None, "error", f"{type(err).__name__}: {err}"
    findings = [{"property": p, "source": "import", "detail": d}
                for p, d in conv.conversion.findings]
    for f in validate_instance(inst, family):
        if f.property in ("consistency", "schema"):
            findings.append({"property": f.property, "source": "validator (stored record)",
                             "detail": f.detail})
    try:
        twin = _rendered_twin(inst, family)
        try:
            problem = family.check(inst.latent_state())
        except Exception as err:
            problem = f"{type(err).__name__}: {err}"
        for f in validate_instance(twin, family):
            if f.property != "consistency":
                prop, detail = classify(inst.family, f.property, f.detail, problem,
                                        conv.conversion.expressible)
                findings.append({"property": prop, "source": "validator", "detail": detail})
    except Exception as err:
        findings.append({"property": "schema", "source": "validator",
                         "detail": f"our family cannot render the latent state: "
                                   f"{type(err).__name__}: {err}"})
    slot = conv.hint.slot
    readable = (line_slot(inst.family, conv.hint.constraint) == slot
                and mentioned_slots(inst.family, f"What is the value of {slot}?") == {slot})
    out: Dict[str, Any] = {"id": inst.id, "family": inst.family, "difficulty": inst.difficulty,
           "answer": {"status": status, "theirs": theirs, "ours": ours},
           "hint": {"slot": slot, "line": conv.hint.constraint, "value": conv.hint.value,
                    "rules_responder_reads_it": readable},
           "findings": findings}
    if why:
        out["answer"]["detail"] = why
    return out


def classify(family: str, prop: str, detail: str, problem: Optional[str],
             expressible: bool = True) -> Tuple[str, str]:
    """File one finding of our validators (run on the rendered twin) under the property that
    says what it means for imported data (see :data:`EXPECTED`)."""
    if prop in ("hint_completeness", "answer_denominator"):
        # v1.1 rules of our release (every resolving tomography cell held; denominator caps),
        # not defects of another release's data
        return "setup", f"our release's v1.1 rule: {detail}"
    if prop == "global_uniqueness":
        if not expressible:
            return "setup", f"our family cannot hold this state exactly; its check says: {detail}"
        if _RANGE.search(detail):
            return "range", detail
        if _DEGENERATE.search(detail):
            return "degenerate", detail
        return prop, detail
    if prop in ("local_underdetermination", "hint_sufficiency", "chance_level"):
        if not expressible:
            return "setup", f"our family cannot hold this state exactly; its validator says: {detail}"
        if family in VIEW_DIFFERS:
            return "setup", f"in our family's setup ({VIEW_DIFFERS[family]}): {detail}"
        if problem and _UNDECIDED.search(detail):
            return "unverified", f"{detail} (the state fails our check: {problem})"
    return prop, detail


def summarise(checks: Sequence[dict], failures: Sequence[dict] = ()) -> dict:
    """Per family: answer agreement, instances per finding property, responder readability."""
    families: Dict[str, dict] = {}
    for name in registry.names():
        rows = [c for c in checks if c["family"] == name]
        lost = [f for f in failures if f.get("family") == name]
        if not rows and not lost:
            continue
        status = Counter(c["answer"]["status"] for c in rows)
        props: Dict[str, int] = {}
        for p in sorted({f["property"] for c in rows for f in c["findings"]}):
            props[p] = sum(1 for c in rows if any(f["property"] == p for f in c["findings"]))
        families[name] = {
            "instances": len(rows), "not_converted": len(lost),
            "agree": status.get("agree", 0), "disagree": status.get("disagree", 0),
            "unchecked": status.get("error", 0),
            "rules_responder_reads_hint": sum(1 for c in rows if c["hint"]["rules_responder_reads_it"]),
            "instances_with_finding": props,
            "instances_with_real_finding": sum(
                1 for c in rows if any(f["property"] in REAL for f in c["findings"])),
        }
    total = {k: sum(f[k] for f in families.values())
             for k in ("instances", "not_converted", "agree", "disagree", "unchecked",
                       "rules_responder_reads_hint", "instances_with_real_finding")}
    return {"families": families, "total": total}
