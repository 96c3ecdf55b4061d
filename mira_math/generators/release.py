"""Writing a split to disk (the Hub folder layout) and verifying one byte for byte.

Layout of a release folder::

    data/<family>/test.jsonl   one file per family, instances in release order
    responder_check/test.jsonl the public release only: the labelled request set
                               (``generators/requests.py``, HF config ``responder_check``)
    release_info.json          generator version, seed set, master seed, counts
    README.md                  the Hub card: generated YAML (configs, features, sizes) + datasheet
    croissant.json             Croissant 1.1 metadata with the responsible-AI fields
    eval.yaml                  the Hub benchmark registration (the public release only)
    CHECKSUMS.sha256           ``sha256sum -c`` manifest of every other file
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set

from mira_math.generators import registry
from mira_math.common.errors import MiraError
from mira_math.generators.build import (GENERATOR_VERSION, MULTI_HINT_VERSION, RELEASE_VERSION,
                                        build_split, instance_keys)
from mira_math.generators.blind.build import BLIND_PER_TYPE, BLIND_VERSION, build_blind_split
from mira_math.generators.card import REPO_PLACEHOLDER, fill_repo_id, published_repo_id, render_readme
from mira_math.generators.hub_files import CROISSANT, EVAL_YAML, croissant, eval_yaml, registers_benchmark
from mira_math.generators.layout import DEFAULT_RELEASE as DEFAULT_RELEASE  # re-exported
from mira_math.generators.layout import SPLIT as SPLIT  # re-exported
from mira_math.generators.layout import BLIND, MULTI_HINT, blind_path, data_path, multi_hint_path
from mira_math.generators.requests import REQUESTS_PATH, render_request_set
from mira_math.generators.schema import DataError, Instance, read_jsonl
from mira_math.generators.seeds import PUBLIC, SeedSet

CHECKSUMS = "CHECKSUMS.sha256"
README = "README.md"
PUBLIC_PER_TYPE = {"A": 20, "B": 50}
RELEASE_INFO = "release_info.json"
# The two-fact part (docs/decisions/data.md): its own seed set, named after the split's
# ("multi-hint-" + name), 10 instances per family and difficulty of either type.
MULTI_HINT_PER_TYPE = {"A": 10, "B": 10}
MULTI_HINT_K = 2


def multi_hint_seed_set(seed_set: SeedSet, committed: bool = False) -> SeedSet:
    """The seed set of a split's two-fact part: its own, derived from the split's name; for a
    committed split (``generate --commit``), from its random master seed instead, so that the
    name the commitment shows regenerates no part of it."""
    name = f"multi-hint-{seed_set.name}"
    return SeedSet(name, part_master_seed(seed_set, MULTI_HINT)) if committed else SeedSet.named(name)


def blind_seed_set(seed_set: SeedSet, committed: bool = False) -> SeedSet:
    """The seed set of a split's blind tier ("blind-" + the split's name), derived like the
    two-fact part's: from the name, or for a committed split from its random master seed."""
    name = f"blind-{seed_set.name}"
    return SeedSet(name, part_master_seed(seed_set, BLIND)) if committed else SeedSet.named(name)


def blind_spec(seed_set: SeedSet, per_type: Optional[Dict[str, int]] = None,
               committed: bool = False) -> dict:
    """How ``release_info.json`` names a split's blind tier (what regenerates it)."""
    part = blind_seed_set(seed_set, committed)
    return {"seed_set": part.name, "master_seed": part.master_seed,
            "per_type": dict(per_type or BLIND_PER_TYPE)}


def part_master_seed(seed_set: SeedSet, part: str) -> int:
    """A committed split's master seed for one of its parts (``multi_hint``, or a part added
    later): 63 bits of ``sha256`` over the part's name and the split's random master seed."""
    text = f"mira-math/part/{part}/{seed_set.name}/{seed_set.master_seed}"
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") >> 1


def multi_hint_spec(seed_set: SeedSet, per_type: Optional[Dict[str, int]] = None,
                    committed: bool = False) -> dict:
    """How ``release_info.json`` names a split's two-fact part (what regenerates it)."""
    part = multi_hint_seed_set(seed_set, committed)
    return {"k": MULTI_HINT_K, "seed_set": part.name, "master_seed": part.master_seed,
            "per_type": dict(per_type or MULTI_HINT_PER_TYPE)}


def group_lines(instances: Iterable[Instance], progress: Optional[Callable[[], None]] = None
                ) -> Dict[str, bytes]:
    """Relative path -> file bytes, one JSONL file per family."""
    files: Dict[str, List[str]] = defaultdict(list)
    for inst in instances:
        path = (blind_path(inst.family) if inst.blind else
                data_path(inst.family) if inst.k == 1 else multi_hint_path(inst.family))
        files[path].append(inst.to_json_line())
        if progress:
            progress()
    return {path: "".join(lines).encode("utf-8") for path, lines in files.items()}


def release_info(seed_set: SeedSet, per_type: Dict[str, int], files: Dict[str, bytes],
                 families: Sequence[str], difficulties: Sequence[int],
                 disjoint_from: Sequence[dict] = (), commit_reveal: bool = False) -> dict:
    counts = {name: files[data_path(name)].count(b"\n") for name in families if data_path(name) in files}
    extra = {"commit_reveal": True} if commit_reveal else {}   # generate --commit
    return {
        "generator_version": GENERATOR_VERSION,
        "seed_set": seed_set.name,
        "master_seed": seed_set.master_seed,
        "per_type": {"A": per_type["A"], "B": per_type["B"]},
        "difficulties": list(difficulties),
        "families": list(families),
        "disjoint_from": list(disjoint_from),
        "counts": counts,
        "total": sum(counts.values()),
        **extra,
    }


def _with_multi_hint(info: dict, part: dict, files: Dict[str, bytes], families: Sequence[str]) -> dict:
    """``release_info.json`` of a release with a two-fact part: the v1.1 fields as they were,
    then the release version and the part (its seed set, layout and counts)."""
    counts = {n: files[multi_hint_path(n)].count(b"\n") for n in registry.multi_hint_names()
              if n in families and multi_hint_path(n) in files}
    return {**info, "release_version": RELEASE_VERSION,
            MULTI_HINT: {**part, "generator_version": MULTI_HINT_VERSION,
                         "families": list(counts), "counts": counts,
                         "total": sum(counts.values())}}


def _with_blind(info: dict, part: dict, files: Dict[str, bytes], families: Sequence[str]) -> dict:
    """``release_info.json`` with the blind tier: its seed set, layout and counts after the
    other parts (docs/decisions/data-blind-tier.md)."""
    counts = {n: files[blind_path(n)].count(b"\n") for n in registry.blind_names()
              if n in families and blind_path(n) in files}
    return {**info, "release_version": RELEASE_VERSION,
            BLIND: {**part, "generator_version": BLIND_VERSION, "families": list(counts),
                    "counts": counts, "total": sum(counts.values())}}


def public_split_reference() -> dict:
    """How a held-out split names the public release it must not overlap (every part)."""
    return {"seed_set": PUBLIC.name, "master_seed": PUBLIC.master_seed,
            "per_type": dict(PUBLIC_PER_TYPE), MULTI_HINT: multi_hint_spec(PUBLIC),
            BLIND: blind_spec(PUBLIC)}


def _is_public_reference(ref: dict) -> bool:
    """The public release as a held-out split built before or after release 1.2.0 (or 1.4.0)
    names it."""
    return {k: v for k, v in ref.items() if k not in (MULTI_HINT, BLIND)} == \
        {k: v for k, v in public_split_reference().items() if k not in (MULTI_HINT, BLIND)}


def split_references(folders: Sequence[Path]) -> List[dict]:
    """How a new split names declared held-out splits it must not overlap: each one's seed set,
    layout and, nested, the splits *it* was built disjoint from (so it regenerates exactly)."""
    refs: List[dict] = []
    for folder in folders:
        info = read_release_info(folder)
        if info.get("regenerable") is False:
            raise DataError("imported data cannot be regenerated from seeds", str(folder / RELEASE_INFO))
        ref = {"seed_set": info["seed_set"], "master_seed": info["master_seed"],
               "per_type": dict(info["per_type"])}
        if list(info["families"]) != registry.names():
            ref["families"] = list(info["families"])
        if list(info["difficulties"]) != [1, 2, 3]:
            ref["difficulties"] = list(info["difficulties"])
        if info.get(MULTI_HINT):
            ref[MULTI_HINT] = {k: info[MULTI_HINT][k] for k in ("k", "seed_set", "master_seed",
                                                                 "per_type")}
        if info.get(BLIND):
            ref[BLIND] = {k: info[BLIND][k] for k in ("seed_set", "master_seed", "per_type")}
        if info.get("disjoint_from") and info["disjoint_from"] != [public_split_reference()]:
            ref["disjoint_from"] = list(info["disjoint_from"])
        if ref not in refs and not _is_public_reference(ref):
            refs.append(ref)
    return refs


def excluded_keys(disjoint_from: Sequence[dict]) -> Set[str]:
    """Problem and view keys of the splits a new split must not overlap (regenerated, so the
    result never depends on files on disk)."""
    keys: Set[str] = set()
    for ref in disjoint_from:
        keys |= _split_keys(json.dumps(ref, sort_keys=True))
    return keys


@functools.lru_cache(maxsize=16)
def _split_keys(ref_text: str) -> frozenset:
    ref = json.loads(ref_text)
    inner = ref.get("disjoint_from")
    if inner is None:  # a held-out split without a nested list was built against the public one
        inner = [] if ref["seed_set"] == PUBLIC.name else [public_split_reference()]
    split = list(build_split(SeedSet(ref["seed_set"], ref["master_seed"]), ref["per_type"],
                             ref.get("families"), ref.get("difficulties", (1, 2, 3)),
                             excluded_keys(inner)))
    keys = frozenset(k for inst in split for k in instance_keys(inst))
    part = ref.get(MULTI_HINT)
    if part:
        multi = _multi_hint_split(part, ref.get("families"), ref.get("difficulties", (1, 2, 3)),
                                  excluded_keys(inner) | keys)
        keys |= frozenset(k for inst in multi for k in instance_keys(inst))
    tier = ref.get(BLIND)
    if tier:
        rows = _blind_split(tier, ref.get("families"), ref.get("difficulties", (1, 2, 3)),
                            excluded_keys(inner) | keys)
        keys |= frozenset(k for inst in rows for k in instance_keys(inst))
    return keys


def _blind_split(part: dict, families: Optional[Sequence[str]], difficulties: Sequence[int],
                 exclude: Set[str]) -> List[Instance]:
    """A split's blind tier, disjoint from ``exclude`` (its other parts and every split it was
    declared disjoint from)."""
    return list(build_blind_split(SeedSet(part["seed_set"], part["master_seed"]), part["per_type"],
                                  families, difficulties, exclude))


def _multi_hint_split(part: dict, families: Optional[Sequence[str]], difficulties: Sequence[int],
                      exclude: Set[str]) -> List[Instance]:
    """A split's two-fact part, disjoint from ``exclude`` (its own one-fact part and every split
    it was declared disjoint from, both parts)."""
    return list(build_split(SeedSet(part["seed_set"], part["master_seed"]), part["per_type"],
                            families, difficulties, exclude, k=part["k"]))


def render_release(seed_set: SeedSet, per_type: Dict[str, int], families: Sequence[str],
                   difficulties: Sequence[int] = (1, 2, 3),
                   progress: Optional[Callable[[], None]] = None,
                   disjoint_from: Sequence[dict] = (),
                   multi_hint: Optional[dict] = None, commit_reveal: bool = False,
                   blind: Optional[dict] = None) -> Dict[str, bytes]:
    """Every file of the release folder (card, croissant.json, eval.yaml for the public release,
    the responder-check request set, and checksums included), in memory; with ``multi_hint``
    (a :func:`multi_hint_spec`) also the two-fact part, disjoint from the one-fact part and from
    every split in ``disjoint_from``; with ``blind`` (a :func:`blind_spec`) the blind tier,
    disjoint from both."""
    exclude = excluded_keys(disjoint_from)
    split = list(build_split(seed_set, per_type, families, difficulties, exclude))
    if multi_hint:
        keys = exclude | {k for inst in split for k in instance_keys(inst)}
        split += _multi_hint_split(multi_hint, families, difficulties, keys)
    if blind:
        keys = exclude | {k for inst in split for k in instance_keys(inst)}
        split += _blind_split(blind, families, difficulties, keys)
    files = group_lines(split, progress)
    if has_request_set(seed_set, families, difficulties):
        files[REQUESTS_PATH] = render_request_set([i for i in split if not i.blind])
    info = release_info(seed_set, per_type, files, families, difficulties, disjoint_from, commit_reveal)
    if multi_hint:
        info = _with_multi_hint(info, multi_hint, files, families)
    if blind:
        info = _with_blind(info, blind, files, families)
    files[RELEASE_INFO] = (json.dumps(info, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    files[README] = render_readme(info, files).encode("utf-8")
    files[CROISSANT] = croissant(info, files).encode("utf-8")
    if registers_benchmark(info):
        files[EVAL_YAML] = eval_yaml(info.get("release_version") or info["generator_version"]).encode("utf-8")
    files[CHECKSUMS] = manifest(files)
    return files


def has_request_set(seed_set: SeedSet, families: Sequence[str], difficulties: Sequence[int]) -> bool:
    """Whether a release folder carries the labelled request set: the public seed set with
    every family and difficulty (the set samples every block; held-out splits do not carry it)."""
    return seed_set.name == PUBLIC.name and list(families) == registry.names() \
        and sorted(difficulties) == [1, 2, 3]


def with_repo_id(files: Dict[str, bytes], repo_id: str) -> Dict[str, bytes]:
    """A release's files as published under the Hub repo ``repo_id`` (``mira-math publish``):
    the README's load example and citation name it, and ``CHECKSUMS.sha256`` lists that README.
    A README already filled in with another repo id is refilled."""
    if README not in files:
        return dict(files)
    text = files[README].decode("utf-8")
    current = published_repo_id(text) or REPO_PLACEHOLDER
    out = dict(files)
    for name in (README, CROISSANT):   # the card's load example and citation, croissant's url
        if name in out:
            out[name] = fill_repo_id(out[name].decode("utf-8"), repo_id, current).encode("utf-8")
    if out == files:
        return dict(files)
    if CHECKSUMS in out:
        out[CHECKSUMS] = manifest(out)
    return out


def manifest(files: Dict[str, bytes]) -> bytes:
    """``sha256sum`` format, sorted by path, of every file but the manifest itself."""
    lines = [f"{hashlib.sha256(data).hexdigest()}  {path}\n"
             for path, data in sorted(files.items()) if path != CHECKSUMS]
    return "".join(lines).encode("utf-8")


class ReleaseWriteError(MiraError):
    """A release folder that may not be written (a file in its place, a folder in use)."""


def check_out_folder(out: Path, overwrite: bool) -> None:
    """``generate --out``: a file in the way, or a non-empty folder without ``--overwrite``,
    is refused (a run on the old split could no longer be scored)."""
    if out.exists() and not out.is_dir():
        raise ReleaseWriteError(f"--out {out}: exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        raise ReleaseWriteError(f"--out {out}: the folder is not empty; pass --overwrite to "
                                "replace it")


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:            # another user's process: alive
        return True
    return True


def _leftovers(out: Path, kind: str) -> List[Path]:
    """``.NAME.<kind>-PID`` folders beside ``out`` whose writer is no longer running, newest first."""
    found = []
    for path in out.parent.glob(f".{out.name}.{kind}-*"):
        pid = path.name.rpartition("-")[2]
        if pid.isdigit() and path.is_dir() and not _pid_alive(int(pid)):
            found.append(path)
    return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)


def restore_interrupted(out: Path) -> Optional[str]:
    """A ``generate --overwrite`` killed between its two renames leaves ``out`` missing and the
    previous release hidden beside it as ``.NAME.old-PID``: rename it back (only when that
    process is gone) and return the one line that says so; None when there is nothing to do."""
    out = Path(out).absolute()
    if out.exists() or not out.parent.is_dir():
        return None
    for old in _leftovers(out, "old"):
        try:
            os.replace(old, out)
        except OSError:
            continue
        return (f"{out}: restored the previous release from {old.name} (a `generate --overwrite` "
                "was interrupted between its two renames)")
    return None


def write_release(out: Path, files: Dict[str, bytes]) -> None:
    """Write the whole folder beside ``out`` and swap it in by renames: a kill or a full disk
    leaves the old folder (or none), never half a release; files of an earlier build that this
    one does not contain do not survive. Leftovers of a killed earlier write (its temporary
    folder, the old copy it had already replaced) are removed."""
    restore_interrupted(out)     # a killed earlier swap: its old copy back first, replaced below
    if out.exists() and not out.is_dir():
        raise ReleaseWriteError(f"{out}: exists and is not a folder")
    out = out.resolve()
    for leftover in _leftovers(out, "tmp") + _leftovers(out, "old"):
        shutil.rmtree(leftover, ignore_errors=True)
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    old = out.with_name(f".{out.name}.old-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        for rel, data in sorted(files.items()):
            path = tmp / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        if out.exists():
            os.replace(out, old)
        os.replace(tmp, out)
    except BaseException:
        if old.exists() and not out.exists():
            os.replace(old, out)
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)


@dataclass
class VerifyReport:
    problems: List[str] = field(default_factory=list)
    files_checked: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


def check_manifest(folder: Path) -> List[str]:
    """Problems with ``CHECKSUMS.sha256``: missing, mismatching, or unlisted files. A line
    that is not ``<sha256>  <relative path inside the folder>`` is malformed (an absolute path
    or ``..`` would read a file outside the release)."""
    path = folder / CHECKSUMS
    if not path.is_file():
        return [f"{path}: manifest missing"]
    problems, listed = [], set()
    for n, raw in enumerate(path.read_bytes().splitlines(), start=1):
        line = raw.decode("utf-8", errors="replace")
        digest, sep, rel = line.partition("  ")
        if not sep or len(digest) != 64 or not _inside(rel):
            problems.append(f"{path}:{n}: malformed manifest line")
            continue
        listed.add(rel)
        target = folder / rel
        try:
            if not target.is_file():
                problems.append(f"{target}: listed in {CHECKSUMS} but missing")
            elif hashlib.sha256(target.read_bytes()).hexdigest() != digest:
                problems.append(f"{target}: sha256 does not match {CHECKSUMS}")
        except OSError as err:     # a name too long, an unreadable file
            problems.append(f"{path}:{n}: cannot read the file it lists ({err.strerror or err})")
    for target in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = target.relative_to(folder).as_posix()
        if rel != CHECKSUMS and rel not in listed and not rel.startswith("."):
            problems.append(f"{target}: not listed in {CHECKSUMS}")
    return problems


def _inside(rel: str) -> bool:
    """A manifest path that names a file inside the folder: relative, no ``..``, no NUL."""
    parts = rel.split("/")
    return bool(rel) and not rel.startswith("/") and "\x00" not in rel and ".." not in parts \
        and "\ufffd" not in rel


# release_info.json: each field every reader relies on, and the check its value must pass
_INFO_FIELDS: Dict[str, Callable[[object], bool]] = {
    "seed_set": lambda v: isinstance(v, str),
    "master_seed": lambda v: type(v) is int,
    "per_type": lambda v: isinstance(v, dict) and set(v) == {"A", "B"}
    and all(type(n) is int and n >= 0 for n in v.values()),
    "families": lambda v: isinstance(v, list) and all(isinstance(n, str) for n in v),
    "difficulties": lambda v: isinstance(v, list) and all(type(d) is int and d in (1, 2, 3) for d in v),
}
_INFO_EXPECTED = {"seed_set": "a string", "master_seed": "an integer",
                  "per_type": "{\"A\": N, \"B\": N} with N >= 0",
                  "families": "a list of family names", "difficulties": "a list of 1, 2, 3"}


def read_release_info(folder: Path) -> dict:
    """``release_info.json``, checked for every field a reader relies on (one
    :class:`DataError` naming the file and field otherwise)."""
    from mira_math.generators.schema import read_json_object

    path = folder / RELEASE_INFO
    if not path.exists():
        raise DataError("release info missing", str(path))
    info = read_json_object(path)
    for key, ok in _INFO_FIELDS.items():
        if not ok(info.get(key)):
            raise DataError(f"expected {_INFO_EXPECTED[key]}", str(path), 0, key)
    for key, kind in (("generator_version", str), ("total", int), ("counts", dict),
                      ("disjoint_from", list), ("regenerable", bool), ("commit_reveal", bool)):
        if key in info and not isinstance(info[key], kind):
            raise DataError(f"expected {kind.__name__}", str(path), 0, key)
    return info


def is_imported(folder: Path) -> bool:
    """Whether ``folder`` is an imported reference release (read strictly, not regenerable);
    a broken ``release_info.json`` is a :class:`DataError` naming it."""
    return (folder / RELEASE_INFO).exists() and read_release_info(folder).get("regenerable") is False


def verify_release(folder: Path, progress: Optional[Callable[[], None]] = None) -> VerifyReport:
    """Regenerate the split described by ``release_info.json`` and compare every byte."""
    report = VerifyReport()
    report.problems += check_manifest(folder)
    info = read_release_info(folder)
    if info.get("regenerable") is False:  # imported data: checksums and strict reading only
        return _verify_imported(folder, report)
    if Path(folder).resolve() == DEFAULT_RELEASE.resolve():
        report.problems += [f"{folder / RELEASE_INFO}: {p}" for p in public_release_problems(info)]
    seed_set = SeedSet(info["seed_set"], info["master_seed"])
    part = info.get(MULTI_HINT)
    spec = {k: part[k] for k in ("k", "seed_set", "master_seed", "per_type")} if part else None
    tier = info.get(BLIND)
    tier_spec = {k: tier[k] for k in ("seed_set", "master_seed", "per_type")} if tier else None
    expected = render_release(seed_set, info["per_type"], info["families"], info["difficulties"],
                              progress, info.get("disjoint_from", []), spec, info.get("commit_reveal") is True,
                              tier_spec)
    readme = folder / README      # a published copy names its repo in the card: the same release
    repo_id = published_repo_id(readme.read_text(encoding="utf-8", errors="replace")) if readme.is_file() else None
    if repo_id:
        expected = with_repo_id(expected, repo_id)
    for rel, data in sorted(expected.items()):
        path = folder / rel
        report.files_checked += 1
        if not path.is_file():
            report.problems.append(f"{path}: missing")
            continue
        actual = path.read_bytes()
        if actual != data:
            report.problems.append(f"{path}: differs from the regenerated release"
                                   + _first_difference(actual, data))
    return report


def public_release_problems(info: dict) -> List[str]:
    """How ``release_info.json`` of the committed (or a wheel's bundled) release differs from
    the whole public release: a ``generate`` of a subset written over it regenerates from its
    own description, so that alone must not pass ``verify``."""
    expected = {"seed_set": PUBLIC.name, "master_seed": PUBLIC.master_seed,
                "per_type": dict(PUBLIC_PER_TYPE), "families": registry.names(),
                "difficulties": [1, 2, 3], "disjoint_from": []}
    problems = [f"{key} is {info.get(key)!r}, not the public release's {value!r}"
                for key, value in expected.items() if info.get(key) != value]
    part = info.get(MULTI_HINT) or {}
    spec = multi_hint_spec(PUBLIC)
    if {key: part.get(key) for key in spec} != spec:
        problems.append(f"{MULTI_HINT} is not the public release's two-fact part {spec}")
    tier, tier_spec = info.get(BLIND) or {}, blind_spec(PUBLIC)
    if {key: tier.get(key) for key in tier_spec} != tier_spec:
        problems.append(f"{BLIND} is not the public release's blind tier {tier_spec}")
    return problems


def _verify_imported(folder: Path, report: VerifyReport) -> VerifyReport:
    for path in family_files(folder):
        report.files_checked += 1
        try:
            for _ in read_jsonl(path):
                pass
        except DataError as err:
            report.problems.append(str(err))
    return report


def _first_difference(actual: bytes, expected: bytes) -> str:
    a, e = actual.split(b"\n"), expected.split(b"\n")
    for n, (x, y) in enumerate(zip(a, e), start=1):
        if x != y:
            return f" at line {n} (instance {_id_of(y) or _id_of(x) or '?'})"
    return f" in length ({len(a) - 1} lines, expected {len(e) - 1})"


def _id_of(line: bytes) -> Optional[str]:
    try:
        return json.loads(line)["id"]
    except Exception:
        marker = b'"id":"'
        start = line.find(marker)
        return line[start + len(marker):line.find(b'"', start + len(marker))].decode(errors="replace") \
            if start >= 0 else None


def family_files(folder: Path) -> List[Path]:
    """The JSONL files of a release folder, in registry order."""
    return [folder / data_path(n) for n in registry.names() if (folder / data_path(n)).is_file()]


def blind_files(folder: Path) -> List[Path]:
    """The blind-tier files present in a release folder, in release order."""
    return [folder / blind_path(n) for n in registry.blind_names() if (folder / blind_path(n)).is_file()]


def multi_hint_files(folder: Path) -> List[Path]:
    """The two-fact JSONL files of a release folder, in registry order."""
    return [folder / multi_hint_path(n) for n in registry.multi_hint_names()
            if (folder / multi_hint_path(n)).is_file()]


__all__ = ["render_release", "write_release", "verify_release", "check_manifest", "read_jsonl",
           "restore_interrupted",
           "family_files", "multi_hint_files", "blind_files", "data_path"]
