"""The instance record, its canonical JSON line, and strict loading with clear errors.

Every family's rows share one Arrow schema: values whose type varies by family (answers,
hint values) are canonical strings, and the latent state is canonical JSON text.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, fields
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

from mira_math.common.errors import MiraError
from mira_math.verifiers.exact import ANSWER_TYPES, from_canonical

_FRACTION_RE = re.compile(r"^-?\d+/\d+$")


class DataError(MiraError, ValueError):
    """A record that is not a valid instance; names the file, line and field."""

    def __init__(self, message: str, path: str = "<memory>", line: int = 0, field_name: str = ""):
        where = f"{path}:{line}" if line else path
        self.path, self.line, self.field_name = path, line, field_name
        self.reason = f"field {field_name!r}: {message}" if field_name else message   # without the place
        super().__init__(f"{where}: field {field_name!r}: {message}" if field_name else f"{where}: {message}")


@dataclass(frozen=True)
class View:
    """What the solver sees: a setup paragraph, fact lines, the question, the stated domain."""

    context: str
    facts: List[str]
    question: str
    domain: str


@dataclass(frozen=True)
class Hint:
    """One canonical atomic hint: the slot's name, its constraint line, its value."""

    slot: str
    constraint: str
    value: str


@dataclass(frozen=True)
class GapProof:
    """One proof of the blind tier, redoable from the instance text: for a needed slot, a second
    completion (``values`` holds one other value of its domain, ``answers`` the answer it gives,
    another than the instance's); for an irrelevant one, every value of a finite domain
    (``method`` "enumeration") or ``degree + 1`` points of an infinite one (``method`` "degree",
    ``reason`` why the answer is a ratio of polynomials of at most that degree in it), with
    the answer at each: all equal to the instance's answer."""

    slot: str
    role: str                 # "needed" or "irrelevant"
    method: str               # "second_completion", "enumeration" or "degree"
    values: List[str]
    answers: List[str]
    degree: Optional[int] = None
    reason: str = ""


@dataclass(frozen=True)
class Gaps:
    """What a blind-tier row lacks (docs/decisions/data-blind-tier.md): its kind (``control``,
    ``incomplete``, ``irrelevant_gaps``), the slots of its needed facts (none for a control) and
    of its irrelevant gaps, and the proof of each."""

    kind: str
    needed: List[str]
    irrelevant: List[str]
    proofs: List[GapProof]


BLIND_KINDS = ("control", "incomplete", "irrelevant_gaps")
# A blind-tier row's request budget: the same for every row, so it tells nothing of what is
# missing; 3 lets a solver ask for every absent quantity (at most two needed and one
# irrelevant) and leaves nothing for guessing by asking (docs/decisions/data-blind-tier.md).
BLIND_BUDGET = 3


@dataclass(frozen=True)
class Answer:
    type: str                                  # one of mira_math.verifiers.exact.ANSWER_TYPES
    value: str                                 # canonical string
    components: List[str] = field(default_factory=list)  # tuple component names, else []


@dataclass(frozen=True)
class Instance:
    id: str
    family: str
    type: str                 # "A" (fixed slot) or "B" (variable slot)
    difficulty: int           # nominal level: the split and the request budget use it
    level: int                # level the generator actually used
    seed: int
    seed_set: str
    generator_version: str
    view: View
    responder: List[str]      # the responder's private constraint lines
    hints: List[Hint]         # canonical hints; any one of them suffices
    answer: Answer
    candidate_answers: Optional[int]  # answers the view leaves possible, when finite
    latent: str               # complete latent state, canonical JSON text
    # k >= 2 facts withheld (the multi_hint part): one list of hint slots per needed fact, each
    # group acquired by any one of its hints. None for a v1.1 (k = 1) row, which then
    # serialises without the field, byte for byte as before (docs/decisions/data.md).
    hint_groups: Optional[List[List[str]]] = None
    # a blind-tier row: what it lacks and the proofs; None elsewhere (and then not serialised)
    gaps: Optional[Gaps] = None

    @property
    def k(self) -> int:
        """How many needed facts are withheld: the number of hint groups (1 for a v1.1 row;
        0 to 2 for a blind-tier row, 0 for a control)."""
        if self.gaps is not None:
            return len(self.gaps.needed)
        return len(self.hint_groups) if self.hint_groups is not None else 1

    @property
    def blind(self) -> bool:
        """Whether the row belongs to the blind tier (its solver is not told what is missing)."""
        return self.gaps is not None

    @property
    def budget(self) -> int:
        """Request budget B = 3d per withheld fact: 3d for k = 1 (docs/benchmark.md §6), 3dk
        for k facts (docs/decisions/data.md); :data:`BLIND_BUDGET` for every blind-tier row."""
        if self.gaps is not None:
            return BLIND_BUDGET
        return 3 * self.difficulty * self.k

    def groups(self) -> List[List[Hint]]:
        """The hints by group: one group holding every hint for a k = 1 row (any one suffices);
        one group per needed slot for a blind-tier row (its irrelevant hints in none)."""
        if self.gaps is not None:
            by_slot = {h.slot: h for h in self.hints}
            return [[by_slot[s]] for s in self.gaps.needed]
        if self.hint_groups is None:
            return [list(self.hints)]
        by_slot = {h.slot: h for h in self.hints}
        return [[by_slot[s] for s in group] for group in self.hint_groups]

    def latent_state(self) -> dict:
        return decode_latent(self.latent)

    def to_json_line(self) -> str:
        record = asdict(self)
        if record["hint_groups"] is None:
            del record["hint_groups"]
        if record["gaps"] is None:
            del record["gaps"]
        else:
            for proof in record["gaps"]["proofs"]:
                if proof["degree"] is None:
                    del proof["degree"]
                if not proof["reason"]:
                    del proof["reason"]
        return dumps_canonical(record) + "\n"


# ---------------------------------------------------------------- canonical JSON

def dumps_canonical(obj: Any, sort_keys: bool = False) -> str:
    """Compact, UTF-8, no floats; key order as given (dataclass order) unless ``sort_keys``."""
    return json.dumps(_plain(obj), ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys,
                      allow_nan=False)


def _plain(obj: Any) -> Any:
    if isinstance(obj, bool) or obj is None or isinstance(obj, (int, str)):
        return obj
    if isinstance(obj, Fraction):
        return f"{obj.numerator}/{obj.denominator}"
    if isinstance(obj, float):
        raise TypeError(f"float {obj!r} in data: the release holds exact values only")
    if isinstance(obj, dict):
        for k in obj:
            if not isinstance(k, str):
                raise TypeError(f"non-string key {k!r} in data")
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    raise TypeError(f"cannot serialise {type(obj).__name__} in data")


def encode_latent(latent: dict) -> str:
    """Canonical JSON text of a latent state: sorted keys, fractions as ``"p/q"`` strings."""
    return dumps_canonical(latent, sort_keys=True)


def decode_latent(text: str) -> dict:
    """Inverse of :func:`encode_latent`: ``"p/q"`` strings become ``Fraction``, arrays lists.
    Text nested too deeply to read is a ``ValueError`` like any other bad JSON."""
    try:
        return _revive(json.loads(text))
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def _revive(obj: Any) -> Any:
    if isinstance(obj, str) and _FRACTION_RE.match(obj):
        return Fraction(obj)
    if isinstance(obj, dict):
        return {k: _revive(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_revive(v) for v in obj]
    if isinstance(obj, float):
        raise TypeError("float in latent state")
    return obj


# ---------------------------------------------------------------- strict loading

def _expect(value: Any, kind: type, name: str, where: Tuple[str, int]) -> Any:
    ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
    if not ok:
        raise DataError(f"expected {kind.__name__}, got {type(value).__name__}", where[0], where[1], name)
    return value


def _str_list(value: Any, name: str, where: Tuple[str, int]) -> List[str]:
    _expect(value, list, name, where)
    for i, item in enumerate(value):
        _expect(item, str, f"{name}[{i}]", where)
    return list(value)


_OPTIONAL_FIELDS = ("hint_groups", "gaps", "degree", "reason")   # absent from a v1.1 row / a proof


def _object(raw: Any, cls: type, name: str, where: Tuple[str, int]) -> dict:
    _expect(raw, dict, name, where)
    names = [f.name for f in fields(cls)]
    missing = [n for n in names if n not in raw and n not in _OPTIONAL_FIELDS]
    if missing:
        raise DataError("missing", where[0], where[1], f"{name}.{missing[0]}" if name else missing[0])
    extra = [k for k in raw if k not in names]
    if extra:
        raise DataError("unknown field", where[0], where[1], f"{name}.{extra[0]}" if name else extra[0])
    return raw


def instance_from_dict(raw: Any, path: str = "<memory>", line: int = 0, check_latent: bool = True) -> Instance:
    """Build an :class:`Instance`, checking every field's presence and type. ``check_latent=False``
    leaves the latent state's decoding to a caller that decodes it anyway (the validator), so it
    is decoded once."""
    w = (path, line)
    _object(raw, Instance, "", w)
    for name in ("id", "family", "type", "seed_set", "generator_version", "latent"):
        _expect(raw[name], str, name, w)
    if not raw["id"].strip() or "\x00" in raw["id"]:   # the key of scores, --resume and the viewer
        raise DataError(f"expected a non-empty id without NUL, got {raw['id']!r}", path, line, "id")
    for name in ("difficulty", "level", "seed"):
        _expect(raw[name], int, name, w)
    if raw["type"] not in ("A", "B"):
        raise DataError(f"type must be 'A' or 'B', got {raw['type']!r}", path, line, "type")
    if raw["candidate_answers"] is not None:
        _expect(raw["candidate_answers"], int, "candidate_answers", w)
    v = _object(raw["view"], View, "view", w)
    for name in ("context", "question", "domain"):
        _expect(v[name], str, f"view.{name}", w)
    view = View(v["context"], _str_list(v["facts"], "view.facts", w), v["question"], v["domain"])
    hints = []
    _expect(raw["hints"], list, "hints", w)
    gaps = _gaps(raw.get("gaps"), w)
    if not raw["hints"] and gaps is None:   # a blind-tier control may lack nothing
        raise DataError("an instance needs at least one canonical hint", path, line, "hints")
    for i, h in enumerate(raw["hints"]):
        _object(h, Hint, f"hints[{i}]", w)
        for name in ("slot", "constraint", "value"):
            _expect(h[name], str, f"hints[{i}].{name}", w)
        hints.append(Hint(h["slot"], h["constraint"], h["value"]))
    a = _object(raw["answer"], Answer, "answer", w)
    _expect(a["type"], str, "answer.type", w)
    _expect(a["value"], str, "answer.value", w)
    if a["type"] not in ANSWER_TYPES:
        raise DataError(f"unknown answer type {a['type']!r}", path, line, "answer.type")
    try:
        from_canonical(a["type"], a["value"])
    except ValueError as err:
        raise DataError(str(err), path, line, "answer.value") from None
    answer = Answer(a["type"], a["value"], _str_list(a["components"], "answer.components", w))
    groups = _hint_groups(raw.get("hint_groups"), [h.slot for h in hints], w)
    if gaps is not None:
        if groups is not None:
            raise DataError("a blind-tier row names its needed facts in gaps, not hint_groups",
                            path, line, "hint_groups")
        if sorted(gaps.needed + gaps.irrelevant) != sorted(h.slot for h in hints):
            raise DataError("gaps.needed and gaps.irrelevant must name every hint's slot exactly once",
                            path, line, "gaps")
    if check_latent:
        try:
            decode_latent(raw["latent"])
        except (ValueError, TypeError) as err:
            raise DataError(f"not canonical JSON: {err}", path, line, "latent") from None
    return Instance(
        id=raw["id"], family=raw["family"], type=raw["type"], difficulty=raw["difficulty"],
        level=raw["level"], seed=raw["seed"], seed_set=raw["seed_set"],
        generator_version=raw["generator_version"], view=view,
        responder=_str_list(raw["responder"], "responder", w), hints=hints, answer=answer,
        candidate_answers=raw["candidate_answers"], latent=raw["latent"], hint_groups=groups,
        gaps=gaps,
    )


def _gaps(raw: Any, w: Tuple[str, int]) -> Optional[Gaps]:
    """``gaps`` of a blind-tier row, every field checked; None when absent."""
    if raw is None:
        return None
    _object(raw, Gaps, "gaps", w)
    _expect(raw["kind"], str, "gaps.kind", w)
    if raw["kind"] not in BLIND_KINDS:
        raise DataError(f"expected one of {', '.join(BLIND_KINDS)}, got {raw['kind']!r}", w[0], w[1],
                        "gaps.kind")
    needed = _str_list(raw["needed"], "gaps.needed", w)
    irrelevant = _str_list(raw["irrelevant"], "gaps.irrelevant", w)
    _expect(raw["proofs"], list, "gaps.proofs", w)
    proofs = []
    for i, p in enumerate(raw["proofs"]):
        name = f"gaps.proofs[{i}]"
        _object(p, GapProof, name, w)
        for key in ("slot", "role", "method"):
            _expect(p[key], str, f"{name}.{key}", w)
        degree = p.get("degree")
        if degree is not None:
            _expect(degree, int, f"{name}.degree", w)
        reason = p.get("reason", "")
        _expect(reason, str, f"{name}.reason", w)
        proofs.append(GapProof(p["slot"], p["role"], p["method"], _str_list(p["values"], f"{name}.values", w),
                               _str_list(p["answers"], f"{name}.answers", w), degree, reason))
    return Gaps(raw["kind"], needed, irrelevant, proofs)


def _gaps_of(raw: Any) -> Optional[Gaps]:
    """:class:`Gaps` of an already checked record."""
    if raw is None:
        return None
    return Gaps(raw["kind"], list(raw["needed"]), list(raw["irrelevant"]),
                [GapProof(p["slot"], p["role"], p["method"], list(p["values"]), list(p["answers"]),
                          p.get("degree"), p.get("reason", "")) for p in raw["proofs"]])


def _hint_groups(raw: Any, slots: List[str], w: Tuple[str, int]) -> Optional[List[List[str]]]:
    """``hint_groups`` of a k >= 2 row: at least two non-empty groups of hint slots that together
    name every hint exactly once; None when absent (a v1.1 row)."""
    if raw is None:
        return None
    _expect(raw, list, "hint_groups", w)
    if len(raw) < 2:
        raise DataError("needs at least two groups (a one-fact row has no hint_groups)", w[0], w[1],
                        "hint_groups")
    groups = []
    for i, group in enumerate(raw):
        items = _str_list(group, f"hint_groups[{i}]", w)
        if not items:
            raise DataError("empty group", w[0], w[1], f"hint_groups[{i}]")
        groups.append(items)
    named = [s for g in groups for s in g]
    if sorted(named) != sorted(slots) or len(set(named)) != len(named):
        raise DataError("the groups must name every hint's slot exactly once", w[0], w[1],
                        "hint_groups")
    return groups


def instance_from_checked_dict(raw: Dict[str, Any]) -> Instance:
    """An :class:`Instance` from a record :func:`instance_from_dict` already accepted (the same
    bytes, proven by their digest): no check is repeated."""
    v, a = raw["view"], raw["answer"]
    return Instance(
        id=raw["id"], family=raw["family"], type=raw["type"], difficulty=raw["difficulty"],
        level=raw["level"], seed=raw["seed"], seed_set=raw["seed_set"],
        generator_version=raw["generator_version"],
        view=View(v["context"], v["facts"], v["question"], v["domain"]), responder=raw["responder"],
        hints=[Hint(h["slot"], h["constraint"], h["value"]) for h in raw["hints"]],
        answer=Answer(a["type"], a["value"], a["components"]),
        candidate_answers=raw["candidate_answers"], latent=raw["latent"],
        hint_groups=raw.get("hint_groups"), gaps=_gaps_of(raw.get("gaps")),
    )


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _check_encodable(value: Any, path: str, number: int, field: str = "") -> None:
    """A JSON escape of a lone surrogate (``\\udc80``) reads as text that UTF-8 cannot
    encode: refused here, naming the field, before it can break a write or a hash."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise DataError("text holds a lone surrogate (a \\udXXX escape): not encodable as UTF-8",
                            path, number, field) from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_encodable(key, path, number, field)
            _check_encodable(item, path, number, f"{field}.{key}" if field else str(key))
    elif isinstance(value, list):
        for item in value:
            _check_encodable(item, path, number, field)


def loads_line(raw: bytes, path: str, number: int) -> Any:
    """One JSON line, safely: bad UTF-8, bad JSON, nesting too deep (RecursionError) and
    integers past Python's digit limit (ValueError) all become one :class:`DataError`
    naming the file and line. Shared by every JSONL reader."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        value = json.loads(text)
    except UnicodeDecodeError as err:
        raise DataError(f"not valid JSON: {err}", path, number) from None
    except RecursionError:
        raise DataError("not valid JSON: nested too deeply", path, number) from None
    except ValueError as err:   # JSONDecodeError, or an integer with too many digits
        raise DataError(f"not valid JSON: {err}", path, number) from None
    refuse_lone_surrogates(text, value, path, number)
    return value


def refuse_lone_surrogates(text: str, value: Any, path: str, number: int) -> None:
    """A :class:`DataError` naming the field when ``value`` (parsed from the JSON ``text``)
    holds a lone surrogate; the scan runs only when the text has such an escape."""
    if "\\u" in text and _SURROGATE_ESCAPE.search(text):
        _check_encodable(value, path, number)


def read_json_object(path: "str | Path") -> Dict[str, Any]:
    """A JSON file whose top level must be an object (``release_info.json``, a run's
    ``manifest.json``): every way it can be unreadable (a folder, a missing file, bad UTF-8,
    bad JSON, nesting too deep, a huge integer, a lone surrogate, another top level) is one
    :class:`DataError` naming the file."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise DataError(f"cannot read: {err.strerror or err}", str(path)) from None
    value = loads_line(data, str(path), 0)
    if not isinstance(value, dict):
        raise DataError(f"expected a JSON object at the top level, got {_json_kind(value)}", str(path))
    return value


def _json_kind(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def read_jsonl(path: "str | Path") -> Iterator[Instance]:
    """Instances of a JSONL file, in order; a torn or invalid line raises :class:`DataError`."""
    path = Path(path)
    with path.open("rb") as fh:
        data = fh.read()
    if data and not data.endswith(b"\n"):
        last = data.count(b"\n") + 1
        raise DataError("last line is not newline-terminated (truncated file?)", str(path), last)
    seen: dict = {}
    for number, raw_line in enumerate(data.splitlines(), start=1):
        obj = loads_line(raw_line, str(path), number)
        inst = instance_from_dict(obj, str(path), number)
        if inst.id in seen:
            raise DataError(f"duplicate id {inst.id!r} (first on line {seen[inst.id]})", str(path), number, "id")
        seen[inst.id] = number
        yield inst
