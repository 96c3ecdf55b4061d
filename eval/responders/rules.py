"""The deterministic ``rules`` responder: offers a private line only when the request names
that line's slot and names no other quantity of the family's notation (``eval/slots/``;
the aliases are listed in ``eval/RESPONDER.md``). The offline default, and the reference an
LLM responder's decisions are audited against."""

from __future__ import annotations

from typing import Any, Dict, List, Sequence

from eval.responders.base import ResponderResult, ResponderTurn, decline
from eval.slots import line_slot, mentioned_slots


def decide(turn: ResponderTurn) -> ResponderResult:
    named = mentioned_slots(turn.family, turn.request)
    if len(named) != 1:
        reason = "names no quantity" if not named else f"names {len(named)} quantities"
        return decline(parsed={"named": sorted(named)}, errors=[], meta={"rule": reason})
    (slot,) = named
    for line in turn.constraints:
        if line_slot(turn.family, line) == slot:
            return ResponderResult("offer", line, parsed={"named": [slot]}, meta={"rule": "names its slot"})
    return decline(parsed={"named": [slot]}, meta={"rule": "slot not held"})


class RulesResponder:
    name = "rules"

    def respond(self, turns: Sequence[ResponderTurn]) -> List[ResponderResult]:
        return [decide(t) for t in turns]

    async def arespond(self, turn: ResponderTurn) -> ResponderResult:
        return decide(turn)

    def describe(self) -> Dict[str, Any]:
        return {"spec": self.name}
