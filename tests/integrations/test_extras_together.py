"""Every harness extra installs into one environment: the integrations venv is built from
exactly the extras below (the Makefile's INT_VENV line), each requirement of each of them is met
by what is installed, pip finds no broken requirement, and the two that used to clash agree at
run time (inspect's OpenAI provider accepted the openai that verifiers pins)."""

from __future__ import annotations

import configparser
import importlib.metadata as metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest

packaging = pytest.importorskip("packaging.requirements")
pytest.importorskip("inspect_ai", reason="needs the inspect extra (make test-integrations)")
pytest.importorskip("verifiers", reason="needs the rl extra (make test-integrations)")

ROOT = Path(__file__).resolve().parents[2]
HARNESSES = {"inspect", "rl", "trl", "ray", "croissant"}


def extras() -> dict:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    section = config["options.extras_require"]
    return {name: [line.strip() for line in section[name].splitlines()
                   if line.strip() and not line.strip().startswith("#")] for name in section}


def int_venv_extras() -> set:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    (line,) = re.findall(r"\$\(INT_VENV\)/bin/python -m pip install --quiet -e '\.\[([a-z,]+)\]'", makefile)
    return set(line.split(","))


def test_the_integrations_venv_is_built_from_every_harness_extra():
    assert int_venv_extras() == HARNESSES | {"test"}
    assert HARNESSES <= set(extras())


@pytest.mark.parametrize("extra", sorted(HARNESSES | {"test"}))
def test_each_requirement_of_each_extra_is_met(extra):
    from packaging.requirements import Requirement
    from packaging.version import Version

    for line in extras()[extra]:
        req = Requirement(line)
        installed = Version(metadata.version(req.name))
        assert req.specifier.contains(installed, prereleases=True), f"[{extra}] {line}: {installed} installed"


def test_pip_finds_no_broken_requirement():
    done = subprocess.run([sys.executable, "-m", "pip", "check"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_inspect_openai_provider_accepts_the_openai_verifiers_pins():
    from packaging.requirements import Requirement
    from packaging.version import Version

    from inspect_ai.model._providers.providers import validate_openai_client

    openai = Version(metadata.version("openai"))
    pins = [Requirement(r) for r in metadata.requires("verifiers") or [] if Requirement(r).name == "openai"]
    assert pins and all(p.specifier.contains(openai) for p in pins)
    validate_openai_client("the OpenAI provider")       # raised "requires at least version 3.4.0" before
