"""The standard responder: leaderboard numbers from different responders are never
mixed silently. Every run manifest, ``scores.json`` and ``.eval_results`` entry names the
responder and the responder-card version (``mira-math responder-check``) it is measured by;
``score`` and ``report`` flag a result whose responder is not the standard one."""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional

STANDARD_RESPONDER = "rules"
CARD_VERSION = "responder-card-1"


def is_standard(spec: Optional[str], condition: str = "standard") -> bool:
    """Whether a run's responder is the standard one; an oracle-hint run asks no responder."""
    return condition == "oracle_hint" or spec == STANDARD_RESPONDER


def responder_card(spec: Optional[str], condition: str = "standard") -> Dict[str, Any]:
    """What a manifest records: the responder, the card version, whether it is the standard."""
    return {"responder": None if condition == "oracle_hint" else spec, "card_version": CARD_VERSION,
            "standard": is_standard(spec, condition)}


def of_run(manifest: Mapping[str, Any], config: Mapping[str, Any]) -> Dict[str, Any]:
    """A run's responder card entry: its manifest's, else (a run written before runs recorded it)
    computed from its config with ``card_version`` None."""
    recorded = manifest.get("responder_card")
    if isinstance(recorded, dict):
        return dict(recorded)
    condition = str(config.get("condition", "standard"))
    return {**responder_card(config.get("responder"), condition), "card_version": None}


def flag(label: str, spec: Optional[str]) -> str:
    """The line ``score`` and ``report`` print for a run whose responder is not the standard."""
    return (f"note: {label}: responder {spec!r} is not the standard responder ({STANDARD_RESPONDER}); "
            f"do not compare its request metrics with standard results (see its responder card: "
            f"mira-math responder-check --responder {spec})")
