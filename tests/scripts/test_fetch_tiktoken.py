"""scripts/fetch_tiktoken.py: the encoding file is taken from the pinned wheel only after the
wheel's and the file's hashes check out; every mismatch is refused with one line. A small fake
wheel stands for the real one (the pins are patched to its hashes), no network."""

from __future__ import annotations

import hashlib
import importlib.util
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("fetch_tiktoken", ROOT / "scripts" / "fetch_tiktoken.py")
ft = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ft)

PAYLOAD = b"bytes standing for o200k_base\n" * 9


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _wheel(folder: Path, member: str = "", payload: bytes = PAYLOAD) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ft.WHEEL_NAME
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(member or ft.MEMBER, payload)
    return path


@pytest.fixture
def pinned_to(monkeypatch):
    """Pin the module to a fake wheel's hash and PAYLOAD's size and hash."""
    def pin(wheel: Path) -> None:
        monkeypatch.setattr(ft, "WHEEL_SHA256", _sha(wheel.read_bytes()))
        monkeypatch.setattr(ft, "SHA256", _sha(PAYLOAD))
        monkeypatch.setattr(ft, "SIZE", len(PAYLOAD))
    return pin


def test_the_cache_name_is_tiktokens_key_for_o200k_base():
    assert ft.CACHE_NAME == "fb374d419588a4632f3f557e76b4b70aebbca790"


def test_fetch_writes_the_verified_file_once(tmp_path, pinned_to):
    source = _wheel(tmp_path / "src")
    pinned_to(source)
    calls = []

    def fake_download(folder: Path) -> None:
        calls.append(folder)
        (folder / ft.WHEEL_NAME).write_bytes(source.read_bytes())

    target = ft.fetch(tmp_path / "cache", fetch_wheel=fake_download)
    assert target == tmp_path / "cache" / ft.CACHE_NAME
    assert target.read_bytes() == PAYLOAD
    assert ft.fetch(tmp_path / "cache", fetch_wheel=fake_download) == target
    assert len(calls) == 1                      # a verified cached file is not fetched again


def test_a_wheel_with_another_hash_is_refused(tmp_path, pinned_to):
    pinned_to(_wheel(tmp_path / "src"))
    other = _wheel(tmp_path / "other", payload=PAYLOAD + b"x")
    with pytest.raises(ft.FetchError, match="does not match the pinned"):
        ft.extract(other)


def test_a_wrong_member_is_refused(tmp_path, pinned_to, monkeypatch):
    wheel = _wheel(tmp_path / "src", payload=b"short")
    pinned_to(wheel)
    with pytest.raises(ft.FetchError, match="expected .* bytes with sha256"):
        ft.extract(wheel)
    missing = _wheel(tmp_path / "missing", member="litellm/other")
    monkeypatch.setattr(ft, "WHEEL_SHA256", _sha(missing.read_bytes()))
    with pytest.raises(ft.FetchError, match="no litellm/"):
        ft.extract(missing)


def test_a_corrupt_cached_file_is_replaced(tmp_path, pinned_to):
    source = _wheel(tmp_path / "src")
    pinned_to(source)
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / ft.CACHE_NAME).write_bytes(b"edited")
    target = ft.fetch(cache, fetch_wheel=lambda folder: (folder / ft.WHEEL_NAME).write_bytes(source.read_bytes()))
    assert target.read_bytes() == PAYLOAD
