"""One version story: the software's version, the release's, and every place that states them."""

import re
from pathlib import Path

import yaml

from mira_math._version import __version__
from mira_math.generators.build import GENERATOR_VERSION, MULTI_HINT_VERSION, RELEASE_VERSION

ROOT = Path(__file__).resolve().parents[1]


def test_citation_names_the_software_and_release_versions_and_the_paper(release_info):
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0" and cff["version"] == __version__
    (dataset,) = [r for r in cff["references"] if r["type"] == "dataset"]
    assert dataset["version"] == RELEASE_VERSION == release_info["release_version"]
    total = release_info["total"] + release_info["multi_hint"]["total"] + release_info["blind"]["total"]
    assert f"Release {RELEASE_VERSION}, seed set {release_info['seed_set']}" in dataset["notes"]
    assert f"{total:,} instances" in dataset["notes"] and f"generator {MULTI_HINT_VERSION}" in dataset["notes"]
    assert cff["preferred-citation"]["title"] == ("MIRA-Math: A Benchmark for Minimal Information "
                                                  "Requesting and Mathematical Reasoning")


def test_readme_and_card_state_the_current_versions():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    card = (ROOT / "dataset_card.md").read_text(encoding="utf-8")
    assert f"--tag v{RELEASE_VERSION}" in readme           # publish refuses any other tag
    assert f"mira-math {__version__}; release {RELEASE_VERSION}" in readme
    assert f"| `generator_version` | string | `{GENERATOR_VERSION}` |" in card
    assert f"package {__version__}" in card and f"version {GENERATOR_VERSION}" in card
    assert re.search(r'ds = load_dataset\("OWNER/NAME"', card)          # filled in by publish
    assert "## Citation" in card


def test_the_readme_version_line_is_what_the_command_prints(capsys):
    """The README showed protocol 1.1 where `mira-math --version` says 1.2."""
    import pytest

    from mira_math.cli.main import main

    with pytest.raises(SystemExit):
        main(["--version"])
    printed = " ".join(capsys.readouterr().out.split())
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    shown = re.search(r"\(`(mira-math [^`]*; protocol [^`]*)`\)", readme)
    assert shown is not None and shown.group(1) == printed
