"""The deterministic ``rules`` responder: offers a private line only when the request names
that line's slot and no other quantity, in the family's notation or another family's
(``game/slots/``; the aliases and reading rules are listed in ``game/RESPONDER.md``). Lines
that repeat a solver fact are offered like any other held line; the metrics tell canonical
offers apart. The offline default, and the reference an
LLM responder's decisions are audited against."""

from __future__ import annotations

from typing import Any, Dict, List, Sequence

from mira_math.game.responders.base import ResponderResult, ResponderCall, decline
from mira_math.game.slots import line_slot, read_request


def decide(turn: ResponderCall) -> ResponderResult:
    """Offer the first private line whose slot is the one quantity the request names (a
    canonical line or a repeat of a solver fact alike); decline everything else."""
    held = [line_slot(turn.family, line) for line in turn.constraints]
    reading = read_request(turn.family, turn.request, turn.question, held)
    named = reading.own
    parsed = {"named": sorted(named), "foreign": sorted(reading.foreign)}
    if reading.too_long:
        return decline(parsed=parsed, meta={"rule": "request too long"})
    if len(named) != 1 or reading.foreign:
        count = len(named) + len(reading.foreign)
        reason = "names no quantity" if not count else f"names {count} quantities"
        if named and reading.foreign:
            reason += " (one in another family's notation)"
        return decline(parsed=parsed, errors=[], meta={"rule": reason})
    (slot,) = named
    for line in turn.constraints:
        if line_slot(turn.family, line) == slot:
            return ResponderResult("offer", line, parsed=parsed, meta={"rule": "names its slot"})
    return decline(parsed=parsed, meta={"rule": "slot not held"})


class RulesResponder:
    name = "rules"

    def respond(self, turns: Sequence[ResponderCall]) -> List[ResponderResult]:
        return [decide(t) for t in turns]

    async def arespond(self, turn: ResponderCall) -> ResponderResult:
        return decide(turn)

    def describe(self) -> Dict[str, Any]:
        return {"spec": self.name}
