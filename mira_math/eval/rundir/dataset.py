"""A run's dataset, read lightly: per instance only what scoring needs (:class:`InstanceInfo`)
and what re-verification needs (its judge: answer and :class:`AnswerContext` fields), both from
one parse per file content in a process. The manifest's checksum vouches for the rest, so no
``Instance`` is built here."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from sys import intern
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Set, Tuple

from mira_math.eval.rundir.files import MANIFEST, ScoringError, check_field, field_error, json_lines
from mira_math.generators.layout import RESOURCE_ROOT
from mira_math.generators.schema import Instance
from mira_math.verifiers.verify import answer_context

Key = Tuple[str, str]                       # (seed set, id)
# answer type, value, components, then the AnswerContext's units, modulus and aliases: plain
# values, so a judge hashes in C (the verdict memo hashes one per transcript)
Judge = Tuple[str, str, Tuple[str, ...], Tuple[str, ...], Optional[int], Tuple[Tuple[str, str], ...]]


class _InstanceFields(NamedTuple):
    seed_set: str
    id: str
    family: str
    type: str
    difficulty: int
    candidate_answers: Optional[int]
    canonical: frozenset                    # the hint constraints (canonical lines)
    key: Tuple[str, str]                    # (seed set, id): read several times per transcript
    groups: Tuple[frozenset, ...]           # the canonical lines of each needed fact (k groups)
    irrelevant: frozenset                   # blind tier: the holder lines of irrelevant gaps
    blind: bool                             # a blind-tier row (its k may be 0: a control)


class InstanceInfo(_InstanceFields):
    """What scoring needs of an instance (the run's checksum vouches for the rest). A named
    tuple, not a frozen dataclass: one is built per dataset line, and a frozen dataclass's
    ``__init__`` (one ``object.__setattr__`` per field) cost more than the line's parse."""

    __slots__ = ()

    def __new__(cls, seed_set: str, id: str, family: str, type: str, difficulty: int,  # noqa: A002
                candidate_answers: Optional[int], canonical: frozenset,
                groups: Optional[Tuple[frozenset, ...]] = None, irrelevant: frozenset = frozenset(),
                blind: bool = False) -> "InstanceInfo":
        needed = groups if blind else (groups or (canonical,))   # a blind control needs nothing
        return tuple.__new__(cls, (seed_set, id, family, type, difficulty, candidate_answers, canonical,
                                   (seed_set, id), needed, irrelevant, blind))

    @classmethod
    def of(cls, inst: Instance) -> "InstanceInfo":
        """What scoring reads of a full instance (an episode's, in the integrations)."""
        irrelevant = frozenset(h.constraint for h in inst.hints
                               if inst.gaps is not None and h.slot in inst.gaps.irrelevant)
        return cls(inst.seed_set, inst.id, inst.family, inst.type, inst.difficulty,
                   inst.candidate_answers or None, frozenset(h.constraint for h in inst.hints),
                   tuple(frozenset(h.constraint for h in g) for g in inst.groups()), irrelevant,
                   inst.blind)



def read_instance_info(row: Any, where: Any) -> InstanceInfo:
    """What scoring needs of one parsed instance line, its types checked (shared with the viewer,
    so both read a dataset line alike). ``where`` is the line's place, or a callable that gives
    it (built only for an error)."""
    if type(row) is not dict:
        if not isinstance(row, dict):
            raise ScoringError(f"{_where(where)}: not an instance object")
    get = row.get
    fields: Tuple[Any, ...] = (get("seed_set"), get("id"), get("family"), get("type"), get("difficulty"),
                               get("candidate_answers"), get("hints"))
    seed_set, tid, family, type_, difficulty, cand, hints = fields
    if not (type(seed_set) is type(tid) is type(family) is type(type_) is str and type(difficulty) is int
            and (cand is None or type(cand) is int) and type(hints) is list):     # the fast path: exact types
        for name, kinds in (("seed_set", (str,)), ("id", (str,)), ("family", (str,)), ("type", (str,)),
                            ("difficulty", (int,)), ("candidate_answers", (int, type(None))), ("hints", (list,))):
            check_field(row.get(name), kinds, _where(where), name)
    canonical = []
    for h in hints:
        line = h.get("constraint") if type(h) is dict else None
        if type(line) is not str:
            check_field(h.get("constraint") if isinstance(h, dict) else None, (str,), _where(where), "hints.constraint")
        canonical.append(line)
    if "gaps" in row:
        needed, irrelevant = _blind_groups(get("gaps"), hints, where)
        return InstanceInfo(intern(seed_set), tid, intern(family), intern(type_), difficulty, cand or None,
                            frozenset(canonical), needed, irrelevant, True)
    return InstanceInfo(intern(seed_set), tid, intern(family), intern(type_), difficulty, cand or None,
                        frozenset(canonical),         # one copy of the repeated strings: 180 bytes a line
                        _groups(get("hint_groups"), hints, where) if "hint_groups" in row else None)


def _blind_groups(gaps: Any, hints: List[Any], where: Any) -> Tuple[Tuple[frozenset, ...], frozenset]:
    """A blind-tier row's needed facts (one group per needed slot) and irrelevant lines."""
    by_slot = {h.get("slot"): h.get("constraint") for h in hints if type(h) is dict}
    needed, irrelevant = (gaps.get("needed"), gaps.get("irrelevant")) if type(gaps) is dict else (None, None)
    if not all(type(x) is list and all(s in by_slot for s in x) for x in (needed, irrelevant)):
        raise ScoringError(f"{_where(where)}: field 'gaps': expected needed and irrelevant lists of hint slots")
    return (tuple(frozenset([by_slot[s]]) for s in needed),   # type: ignore[union-attr]
            frozenset(by_slot[s] for s in irrelevant))        # type: ignore[union-attr]


def _groups(groups: Any, hints: List[Any], where: Any) -> Tuple[frozenset, ...]:
    """The canonical lines of each hint group of a k >= 2 row."""
    by_slot = {h.get("slot"): h.get("constraint") for h in hints if type(h) is dict}
    if type(groups) is not list or not all(type(g) is list and g and all(s in by_slot for s in g)
                                           for g in groups):
        raise ScoringError(f"{_where(where)}: field 'hint_groups': expected lists of hint slots")
    return tuple(frozenset(by_slot[s] for s in g) for g in groups)


def _where(where: Any) -> str:
    return where() if callable(where) else where



def judge_of(row: Mapping[str, Any]) -> Optional[Judge]:
    """An instance's judge (answer type, value, components, :class:`AnswerContext`'s fields) from its raw
    JSON object, reading only what :func:`context_for` reads: the question and context, the
    answer, and the latent's moduli (decoded only when the latent names them). None when those
    fields cannot be read (scoring names the bad field itself)."""
    try:
        answer = row.get("answer") or {}
        view = row.get("view") or {}
        components = tuple([str(c) for c in answer.get("components") or []])
        question, context = str(view.get("question", "")), str(view.get("context", ""))
        latent = row.get("latent") or "{}"
        atype, value = str(answer.get("type")), str(answer.get("value"))
    except (ValueError, TypeError, AttributeError, RecursionError):
        return None
    moduli = None
    try:
        if '"moduli"' in latent:                # the only latent key the context reads
            state = json.loads(latent)
            moduli = state.get("moduli") if isinstance(state, dict) else None
    except Exception:  # noqa: BLE001 - a context is optional (as in context_for)
        moduli = None
    try:
        ctx = answer_context(question, context, components, moduli)
        return (atype, value, components, ctx.units, ctx.modulus, ctx.aliases)
    except (ValueError, TypeError, AttributeError, RecursionError):
        return None


_INFO_CACHE: Dict[Tuple[str, str], List[InstanceInfo]] = {}   # (path, sha256) -> the file's instances
_JUDGES: Dict[Tuple[str, str], Dict[Key, Optional[Judge]]] = {}   # the same key -> judge per instance


def resolve_data_file(name: str, run_dir: Path) -> Path:
    """A manifest's dataset path: as written, else relative to the run directory or the
    resource root (:mod:`mira_math.generators.layout`)."""
    path = Path(name)
    candidates = [path] if path.is_absolute() else [path, run_dir / path,
                                                    RESOURCE_ROOT / path]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise ScoringError(f"{run_dir / MANIFEST}: dataset file {name} is missing "
                       f"(looked in: {', '.join(str(c) for c in candidates)})")


def file_infos(path: Path) -> Tuple[str, List[InstanceInfo]]:
    """(sha256 hex of the bytes, the file's instances); parsed once per content in a process."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    key = (str(path.resolve()), digest.hexdigest())
    if key not in _INFO_CACHE:
        _INFO_CACHE[key] = _parse_data_file(path, key)
    return key[1], _INFO_CACHE[key]


def _parse_data_file(path: Path, key: Tuple[str, str]) -> List[InstanceInfo]:
    """One pass over a data file: each line's :class:`InstanceInfo` and, for re-verification
    (:mod:`mira_math.eval.integrity`), its judge (identical judges shared). Nothing else of a row is
    kept, and no ``Instance`` is built: scoring trusts the rest through the checksum."""
    infos: List[InstanceInfo] = []
    judges: Dict[Tuple[str, str], Any] = {}
    shared: Dict[Any, Any] = {}
    name = str(path)
    for number, row in json_lines(path, what="an instance line"):
        info = read_instance_info(row, lambda: f"{name}:{number}")   # noqa: B023 - called at once
        if info.key not in judges:          # the first line of a (seed set, id) is the instance, as in the index
            judge = judge_of(row)
            judges[info.key] = None if judge is None else shared.setdefault(judge, judge)
        infos.append(info)
    _JUDGES[key] = judges
    return infos


@dataclass
class Dataset:
    """A run's dataset in order, indexed by (seed set, id) and by id (its first instance; ids
    that name instances of several seed sets are also in ``shared_ids``: one dict entry per
    instance, not one list)."""

    infos: List[InstanceInfo]
    by_key: Dict[Tuple[str, str], InstanceInfo]
    by_id: Dict[str, InstanceInfo]
    files: List[str]
    shared_ids: Set[str] = field(default_factory=set)

    def lookup(self, tid: str, seed_set: Optional[str], where: str) -> InstanceInfo:
        if seed_set is not None:
            info = self.by_key.get((seed_set, tid))
        else:
            if tid in self.shared_ids:
                raise field_error(where, "seed_set", f"id {tid} names instances of several seed sets "
                                                      "in this run's dataset; the transcript must say which")
            info = self.by_id.get(tid)
        if info is None:
            more = f" and {len(self.files) - 3} more" if len(self.files) > 3 else ""
            raise ScoringError(f"{where}: instance {tid} is in none of the dataset files "
                               f"{', '.join(self.files[:3])}{more}")
        return info


def read_run_dataset(manifest: Mapping[str, Any], run_dir: Path) -> Dataset:
    """The manifest's dataset files, checked against its checksum."""
    dataset = manifest.get("dataset") or {}
    names = dataset.get("files") or []
    if not names:
        raise ScoringError(f"{run_dir / MANIFEST}: names no dataset files")
    digest = hashlib.sha256()
    infos: List[InstanceInfo] = []
    for name in names:
        hexdigest, of_file = file_infos(resolve_data_file(name, run_dir))
        digest.update(bytes.fromhex(hexdigest))
        infos += of_file
    expected = dataset.get("checksum")
    if expected and digest.hexdigest() != expected:
        raise ScoringError(f"{run_dir / MANIFEST}: the dataset files {', '.join(names)} are not the "
                           "ones this run used (checksum differs)")
    by_key: Dict[Tuple[str, str], InstanceInfo] = {}
    by_id: Dict[str, InstanceInfo] = {}
    shared_ids: Set[str] = set()
    for info in infos:
        key = info.key
        if key not in by_key:
            by_key[key] = info
            if by_id.setdefault(info.id, info) is not info:
                shared_ids.add(info.id)
    return Dataset(list(by_key.values()), by_key, by_id, list(names), shared_ids)



def file_judges(path: Path) -> Dict[Key, Optional[Judge]]:
    """A data file's judge per (seed set, id) (the first line of a key wins), from the same
    cached parse as :func:`file_infos`."""
    digest, _ = file_infos(path)
    return _JUDGES[(str(path.resolve()), digest)]


def clear_caches() -> None:
    """Forget every parsed data file (tests and benchmarks measuring a cold parse)."""
    _INFO_CACHE.clear()
    _JUDGES.clear()


__all__ = ["Dataset", "InstanceInfo", "Judge", "Key", "clear_caches", "file_infos", "file_judges",
           "judge_of", "read_instance_info", "read_run_dataset", "resolve_data_file"]
