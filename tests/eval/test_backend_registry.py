"""The backend registry: one table of kinds, their extras, options and capabilities; MODEL@URL."""

import importlib
import sys

import pytest

from mira_math.cli.main import build_parser, main
from mira_math.eval.backends import registry
from mira_math.eval.backends.base import AsyncChatBackend, ChatBackend
from mira_math.eval.backends.registry import (BACKENDS, Capabilities, capabilities_of, check_base_url,
                                              make_backend, split_model_url)
from mira_math.eval.solvers import ModelSolver
from mira_math.eval.backends.base import GenParams
from mira_math.common.extras import MissingExtra


@pytest.mark.parametrize("rest, expected", [
    ("gpt-4o", ("gpt-4o", None)),
    ("m@http://127.0.0.1:8000/v1", ("m", "http://127.0.0.1:8000/v1")),
    ("org/model@v2@http://h:1/v1", ("org/model@v2", "http://h:1/v1")),
    ("org/model@v2", ("org/model@v2", None)),
    ("m@https://user@host/v1", ("m", "https://user@host/v1")),      # an @ inside the URL stays there
])
def test_model_url_splits_at_the_last_at_before_a_scheme(rest, expected):
    assert split_model_url(rest) == expected


def test_a_host_without_a_scheme_is_refused_with_the_fix():
    with pytest.raises(ValueError, match="has no scheme: write openai:m@http://localhost:8000"):
        split_model_url("m@localhost:8000")


@pytest.mark.parametrize("url, problem", [
    ("ftp://h/v1", "scheme must be http or https"),
    ("http://:80/v1", "no host"),
    ("http://h:port/v1", "malformed base URL"),
    ("http:///v1", "no host"),
])
def test_malformed_base_urls_are_refused_in_one_line(url, problem):
    with pytest.raises(ValueError, match=problem) as err:
        check_base_url(url)
    assert "\n" not in str(err.value)


def test_a_malformed_url_is_refused_before_any_call(tmp_path, capsys):
    code = main(["eval", "--solver", "openai:m@http://h:port/v1", "--limit", "1",
                 "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2 and "malformed base URL 'http://h:port/v1'" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "r" / "transcripts.jsonl").exists()


def test_make_backend_passes_model_and_url(monkeypatch):
    pytest.importorskip("openai")
    backend = make_backend("openai:org/model@v2@http://127.0.0.1:9/v1", concurrency=3, tensor_parallel_size=2)
    assert (backend.model, backend.base_url, backend.concurrency) == ("org/model@v2", "http://127.0.0.1:9/v1", 3)


def test_a_missing_extra_is_one_line_naming_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "vllm", None)          # as if not installed
    with pytest.raises(MissingExtra) as err:
        make_backend("vllm:some/model")
    assert str(err.value) == "the vllm backend needs vllm: pip install 'mira-math[vllm]'"


def test_the_cli_names_the_extra_of_a_missing_backend(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "torch", None)
    code = main(["eval", "--solver", "transformers:/no/model", "--limit", "1", "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.endswith("pip install 'mira-math[transformers]'") and "\n" not in err


def test_unknown_kinds_are_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="unknown backend kind 'vlm'.*vllm, openai, transformers"):
        make_backend("vlm:x")


def test_every_registered_backend_satisfies_the_protocol_its_capabilities_claim():
    for entry in BACKENDS.values():
        module, _, name = entry.target.partition(":")
        cls = getattr(importlib.import_module(module), name)   # backends import their engine lazily
        assert callable(cls.complete) and callable(cls.describe)
        assert callable(getattr(cls, "acomplete", None)) == entry.capabilities.async_calls, entry.kind
        assert (entry.extra is None) == (not entry.modules), entry.kind   # an extra names what it installs
        assert entry.spec.startswith(entry.kind + ":")


def test_the_cli_help_lists_every_registered_kind():
    help_text = build_parser().format_help() + "".join(
        a.format_help() for a in build_parser()._subparsers._group_actions[0].choices.values())
    for entry in BACKENDS.values():
        assert entry.spec in help_text


class _Batch:
    def __init__(self, model="fake"):
        self.model = model

    def complete(self, requests, params):
        return []

    def describe(self):
        return {}


class _Async(_Batch):
    concurrency = 2

    async def acomplete(self, request, params):
        raise AssertionError


class _Declared(_Async):
    capabilities = Capabilities(async_calls=False, batch=True)


def test_capabilities_come_from_the_registry_or_the_protocol():
    assert capabilities_of(_Batch()).async_calls is False
    assert capabilities_of(_Async()).async_calls is True and isinstance(_Async(), AsyncChatBackend)
    assert capabilities_of(_Declared()).async_calls is False           # a declaration wins
    assert ModelSolver("x", _Async(), GenParams()).is_async and not ModelSolver("x", _Batch(), GenParams()).is_async
    assert isinstance(_Batch(), ChatBackend)


def test_a_new_backend_is_one_registry_line(monkeypatch):
    entry = registry.BackendKind("fake", f"{__name__}:_Async", "fake", ("pytest",), "fake:MODEL",
                                 Capabilities(async_calls=True))
    monkeypatch.setitem(BACKENDS, "fake", entry)
    backend = make_backend("fake:anything")
    assert isinstance(backend, _Async) and backend.model == "anything" and capabilities_of(backend).async_calls


def test_a_backend_without_a_dependency_needs_no_extra(monkeypatch):
    """A backend in pure Python (no engine to install) is a line without an extra: it is built,
    it passes the registry's checks and no install hint is invented for it."""
    entry = registry.BackendKind("plain", f"{__name__}:_Batch", None, (), "plain:MODEL", Capabilities(batch=True))
    monkeypatch.setitem(BACKENDS, "plain", entry)
    test_every_registered_backend_satisfies_the_protocol_its_capabilities_claim()
    assert isinstance(make_backend("plain:m"), _Batch) and registry.install_hint("plain") is None


def test_load_without_datasets_names_the_hub_extra(monkeypatch):
    import mira_math

    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(MissingExtra, match=r"^mira_math.load needs datasets: pip install 'mira-math\[hub\]'$"):
        mira_math.load()
