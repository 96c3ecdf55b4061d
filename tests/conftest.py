"""Tests never touch the network: the Hub libraries are forced offline before any import."""

import os
import tempfile

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
# eval's validation cache (eval/validated.py) goes to a folder of this session, not the home folder
os.environ["MIRA_MATH_CACHE"] = tempfile.mkdtemp(prefix="mira-math-cache-")


# ---------------------------------------------------------------- the committed release, once
# Every count a test needs (rows, per type, per family, files) is read from the release itself:
# adding a family or changing the split sizes changes no test that is not about them.

from pathlib import Path  # noqa: E402
from typing import Dict, List  # noqa: E402

import pytest  # noqa: E402

from mira_math.generators import registry  # noqa: E402
from mira_math.generators.layout import DEFAULT_RELEASE  # noqa: E402
from mira_math.generators.release import family_files, read_release_info  # noqa: E402
from mira_math.generators.schema import Instance, read_jsonl  # noqa: E402


class ReleaseCounts:
    """The counts of a release folder's ``release_info.json``, named for tests."""

    def __init__(self, info: dict) -> None:
        self.info = info
        self.families: List[str] = list(info["families"])
        self.per_family: Dict[str, int] = dict(info["counts"])
        self.total: int = info["total"]
        self.by_type: Dict[str, int] = {
            kind: sum(n for f, n in self.per_family.items() if registry.type_of(f) == kind)
            for kind in ("A", "B")}
        self.per_block: Dict[str, int] = dict(info["per_type"])    # instances per (family, difficulty)
        # the two-fact part: its own counts, files beside the one-fact ones
        part = info.get("multi_hint") or {}
        self.multi_hint: Dict[str, int] = dict(part.get("counts", {}))
        self.multi_hint_total: int = part.get("total", 0)
        self.multi_hint_by_type: Dict[str, int] = {
            kind: sum(n for f, n in self.multi_hint.items() if registry.type_of(f) == kind)
            for kind in ("A", "B")}
        # the blind tier: its own counts and files as well
        tier = info.get("blind") or {}
        self.blind: Dict[str, int] = dict(tier.get("counts", {}))
        self.blind_total: int = tier.get("total", 0)
        self.data_files: int = len(self.families) + len(self.multi_hint) + len(self.blind)

    def of_type(self, kind: str) -> List[str]:
        return [f for f in self.families if registry.type_of(f) == kind]


@pytest.fixture(scope="session")
def release_dir() -> Path:
    """The committed release folder (``mira-math/``), as the package finds it."""
    return DEFAULT_RELEASE


@pytest.fixture(scope="session")
def release_info(release_dir: Path) -> dict:
    return read_release_info(release_dir)


@pytest.fixture(scope="session")
def counts(release_info: dict) -> ReleaseCounts:
    return ReleaseCounts(release_info)


@pytest.fixture(scope="session")
def release_instances(release_dir: Path) -> List[Instance]:
    """Every instance of the committed release in release order (shared: do not mutate)."""
    return [inst for path in family_files(release_dir) for inst in read_jsonl(path)]


@pytest.fixture(scope="session")
def family_names() -> List[str]:
    """The registry's families in release order."""
    return registry.names()


# ---------------------------------------------------------------- one regeneration per release
# ``verify`` regenerates a release from its release_info.json (``render_release``: 1.5-4 s for
# the committed one) and compares every byte. The regeneration is a pure function of its
# arguments, so a test session needs it once per distinct release description: every later
# verify of the committed release, of a staged or downloaded copy of it, or of an edited copy
# compares its own bytes against the one regeneration. Opt in with the fixture below. A module
# that patches the generators must not (its regeneration would differ), nor one whose tests
# generate a split and then verify it (verify would compare generate's own output: the proof
# that a separate regeneration gives the same bytes would be lost).

_REGENERATED: Dict[str, Dict[str, bytes]] = {}


def _regeneration_key(seed_set, per_type, families, difficulties, disjoint_from, multi_hint,
                      commit_reveal, blind=None) -> str:
    import json

    return json.dumps([seed_set.name, seed_set.master_seed, per_type, list(families), list(difficulties),
                       list(disjoint_from), multi_hint, commit_reveal, blind], sort_keys=True)


@pytest.fixture
def regenerate_once(monkeypatch):
    """``render_release`` memoized for the session on the content of its arguments (the seed set,
    counts, families, difficulties, splits to avoid, the two-fact and blind-tier specs): what is regenerated is
    the same bytes, and each verify still compares every byte of its own folder against them."""
    import mira_math.generators.release as release

    real = release.render_release

    def memo(seed_set, per_type, families, difficulties=(1, 2, 3), progress=None, disjoint_from=(),
             multi_hint=None, commit_reveal=False, blind=None):
        key = _regeneration_key(seed_set, per_type, families, difficulties, disjoint_from, multi_hint,
                                commit_reveal, blind)
        if key not in _REGENERATED:
            _REGENERATED[key] = real(seed_set, per_type, families, difficulties, None, disjoint_from,
                                     multi_hint, commit_reveal, blind)
        return dict(_REGENERATED[key])     # a fresh dict: callers may add to it (with_repo_id)

    monkeypatch.setattr(release, "render_release", memo)
