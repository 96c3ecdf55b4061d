"""Commit–reveal for held-out splits: publish a commitment before anyone sees a split, evaluate
on it privately, reveal its seeds later, and let anyone prove the revealed split is the one
committed to, byte for byte.

*Seed material* is everything ``render_release`` regenerates a split from, as
``release_info.json`` records it: seed set name, master seed, per-type counts, families,
difficulties and the splits it is disjoint from (with the generator version that reads them).
A held-out seed set's master seed is normally derived from its name
(:meth:`~mira_math.generators.seeds.SeedSet.named`), so anyone who learns the name could
regenerate it; a committed split draws its master seed at random (63 bits) instead.

Files beside the split folder ``DIR``:

- ``DIR.commitment.json`` (public at once): the sha256 of every file of the split and
  ``sha256(salt || canonical seed material)``;
- ``DIR.secret.json`` (private): the salt and the seed material;
- ``DIR.reveal.json`` (public at reveal, written by ``mira-math reveal``): the same content.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from pathlib import Path
from typing import Dict, List, Optional

from mira_math.common.errors import MiraError
from mira_math.generators.card import REPO_PLACEHOLDER
from mira_math.generators.layout import BLIND, MULTI_HINT
from mira_math.generators.release import CHECKSUMS, RELEASE_INFO, read_release_info, verify_release, with_repo_id

COMMITMENT_KIND = "mira-math split commitment"
REVEAL_KIND = "mira-math split reveal"
_MATERIAL_KEYS = ("generator_version", "seed_set", "master_seed", "per_type", "families",
                  "difficulties", "disjoint_from")
_PART_KEYS = ("k", "seed_set", "master_seed", "per_type", "generator_version")
_REVEAL_KEYS = ("kind", "seed_set", "salt", "seed_material")


class CommitmentError(MiraError):
    """A commitment or reveal file that is missing, malformed, or does not match."""


def beside(folder: Path, suffix: str) -> Path:
    """``DIR.<suffix>.json`` next to the split folder ``DIR``."""
    folder = Path(folder)
    return folder.parent / f"{folder.name}.{suffix}.json"


def random_master_seed() -> int:
    """A committed split's master seed: 63 random bits, not derivable from its name."""
    return secrets.randbits(63)


def seed_material(info: dict) -> Dict[str, object]:
    """The fields of ``release_info.json`` a split regenerates from (its seed material): with
    a two-fact part or a blind tier, each part's seed set, master seed, layout and generator
    version too."""
    material = {key: info.get(key, [] if key == "disjoint_from" else None) for key in _MATERIAL_KEYS}
    for name, keys in ((MULTI_HINT, _PART_KEYS), (BLIND, _PART_KEYS[1:])):
        part = info.get(name)
        if isinstance(part, dict):
            material[name] = {key: part.get(key) for key in keys}
    return material


def _canonical(obj: object) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def seed_hash(material: Dict[str, object], salt: str) -> str:
    """``sha256(salt || canonical JSON of the seed material)``, hex (the salt as hex text)."""
    return hashlib.sha256(salt.encode("ascii") + b"\n" + _canonical(material)).hexdigest()


def folder_checksums(files: Dict[str, bytes]) -> Dict[str, str]:
    """Path -> sha256 of every file of a split (the manifest included)."""
    return {rel: hashlib.sha256(data).hexdigest() for rel, data in sorted(files.items())}


def make_commitment(files: Dict[str, bytes], salt: Optional[str] = None) -> Dict[str, Dict[str, object]]:
    """The public commitment and the private secret of a rendered split."""
    info = json.loads(files[RELEASE_INFO])
    salt = salt or secrets.token_hex(32)
    material = seed_material(info)
    commitment = {"kind": COMMITMENT_KIND, "seed_set": info["seed_set"],
                  "generator_version": info.get("generator_version"),
                  "total": info.get("total"),
                  "seed_commitment": seed_hash(material, salt),
                  "files": folder_checksums(files)}
    secret = {"kind": REVEAL_KIND, "seed_set": info["seed_set"], "salt": salt,
              "seed_material": material}
    return {"commitment": commitment, "secret": secret}


def dumps(obj: object) -> bytes:
    return (json.dumps(obj, indent=2, ensure_ascii=False, sort_keys=False) + "\n").encode("utf-8")


def _read(path: Path, kind: str) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CommitmentError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise CommitmentError(f"{path}: not a JSON file ({err})") from None
    if not isinstance(data, dict) or data.get("kind") != kind:
        raise CommitmentError(f"{path}: not a {kind} (field 'kind')")
    return data


def read_commitment(path: Path) -> dict:
    data = _read(path, COMMITMENT_KIND)
    if not isinstance(data.get("files"), dict) or not isinstance(data.get("seed_commitment"), str):
        raise CommitmentError(f"{path}: expected 'files' (path -> sha256) and 'seed_commitment'")
    return data


def read_reveal(path: Path) -> dict:
    data = _read(path, REVEAL_KIND)
    if not isinstance(data.get("salt"), str) or not isinstance(data.get("seed_material"), dict):
        raise CommitmentError(f"{path}: expected 'salt' and 'seed_material'")
    return data


def reveal(folder: Path) -> Path:
    """Check the private split still matches its commitment, then write ``DIR.reveal.json``
    (the salt and seed material) for publication; returns its path."""
    secret = read_reveal(beside(folder, "secret"))
    commitment_path = beside(folder, "commitment")
    problems = check_commitment(folder, read_commitment(commitment_path), secret)
    if problems:
        raise CommitmentError(f"{folder} no longer matches {commitment_path}: {problems[0]}")
    out = beside(folder, "reveal")
    out.write_bytes(dumps(secret))
    return out


def check_commitment(folder: Path, commitment: dict, revealed: dict) -> List[str]:
    """Problems proving ``folder`` is the split ``commitment`` was made for: every committed
    file present with its sha256 and no other file, the revealed seed material equal to the
    folder's ``release_info.json`` and hashing (with the salt) to the committed value, and
    the folder regenerating byte for byte from those seeds. A copy published under a Hub repo
    id is compared as it was before ``publish`` wrote the id in. Empty when it matches."""
    folder = Path(folder)
    problems: List[str] = []
    committed: Dict[str, str] = commitment["files"]
    present = {p.relative_to(folder).as_posix(): p.read_bytes()
               for p in sorted(folder.rglob("*")) if p.is_file()}
    present = {rel: data for rel, data in present.items() if not rel.startswith(".")}
    # a published copy names its Hub repo in the card and croissant.json (and so in the
    # manifest): compared as the unpublished bytes it was committed as; data files are untouched
    present = with_repo_id(present, REPO_PLACEHOLDER)
    for rel, digest in sorted(committed.items()):
        path = folder / rel
        if rel not in present:
            problems.append(f"{path}: committed but missing")
        elif hashlib.sha256(present[rel]).hexdigest() != digest:
            problems.append(f"{path}: sha256 differs from the commitment")
    problems += [f"{folder / rel}: not in the commitment" for rel in sorted(present) if rel not in committed]
    material = revealed["seed_material"]
    if seed_hash(material, revealed["salt"]) != commitment["seed_commitment"]:
        problems.append("the revealed seed material and salt do not hash to the committed seed_commitment")
    info = read_release_info(folder) if (folder / RELEASE_INFO).is_file() else {}
    if seed_material(info) != material:
        problems.append(f"{folder / RELEASE_INFO}: differs from the revealed seed material")
    problems += _label_problems(commitment, revealed, info)
    if not problems:
        report = verify_release(folder)
        problems += [f"regenerated from the revealed seeds: {p}" for p in report.problems]
    return problems


def _label_problems(commitment: dict, revealed: dict, info: dict) -> List[str]:
    """The fields outside the hashed seed material: a reveal holds exactly its four fields, and
    the labels the commitment and the reveal show (seed set, generator version, total) are the
    split's own, so a relabelled reveal or commitment cannot pass."""
    problems = [f"the reveal has a field {key!r} that no reveal has" for key in sorted(revealed)
                if key not in _REVEAL_KEYS]
    material = revealed.get("seed_material") or {}
    for label, value in (("the reveal's seed_set", revealed.get("seed_set")),
                         ("the commitment's seed_set", commitment.get("seed_set"))):
        if value != material.get("seed_set") or value != info.get("seed_set"):
            problems.append(f"{label} {value!r} is not the split's ({info.get('seed_set')!r})")
    for key in ("generator_version", "total"):
        if commitment.get(key) != info.get(key):
            problems.append(f"the commitment's {key} {commitment.get(key)!r} is not the split's "
                            f"({info.get(key)!r})")
    return problems


def is_committed(info: dict) -> bool:
    """Whether a split was made with ``generate --commit``."""
    return info.get("commit_reveal") is True


def unrevealed(folder: Path) -> Optional[str]:
    """For a committed split without ``DIR.reveal.json`` beside it: the line saying so."""
    folder = Path(folder)
    try:
        info = read_release_info(folder)
    except MiraError:
        return None
    if not is_committed(info) or beside(folder, "reveal").is_file():
        return None
    return (f"split {info['seed_set']} is committed ({beside(folder, 'commitment').name}) and not yet "
            f"revealed: its results stay private until `mira-math reveal`")


__all__ = ["CHECKSUMS", "beside", "check_commitment", "make_commitment", "reveal", "unrevealed"]
