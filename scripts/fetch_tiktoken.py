"""Put tiktoken's ``o200k_base`` file into a cache folder, for inspect_ai on a machine without
internet (``make test-integrations``; ``TIKTOKEN_CACHE_DIR`` then points at the folder).

inspect_ai's ``mockllm/model`` counts the tokens of its default output with tiktoken's
``o200k_base`` encoding, which tiktoken downloads from OpenAI's blob storage on first use: offline,
``inspect eval ... --model mockllm/model`` stops there. The package registry carries the same
file inside litellm's wheel (its offline tokenizer copies). This script downloads that one wheel,
pinned by version and sha256 (``pip download --no-deps --only-binary :all: --require-hashes``;
never installed), reads the one member as a zip entry, checks its size and the sha256 tiktoken
itself pins for ``o200k_base``, and writes it under tiktoken's cache name (the sha1 of its URL).
tiktoken checks the same hash again when it reads the cache. Any mismatch is refused in one line.

Usage: python scripts/fetch_tiktoken.py CACHE_DIR   (prints the file's path)
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Callable, List, Optional

WHEEL_PIN = "litellm==1.77.0 --hash=sha256:40c3ad4b4ef8eab109e04e71b62b9eab659d7af763d9e62d1a3a770ca25468ac"
WHEEL_NAME = "litellm-1.77.0-py3-none-any.whl"
WHEEL_SHA256 = "40c3ad4b4ef8eab109e04e71b62b9eab659d7af763d9e62d1a3a770ca25468ac"
ENCODING_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
CACHE_NAME = hashlib.sha1(ENCODING_URL.encode()).hexdigest()   # tiktoken's cache key
MEMBER = f"litellm/litellm_core_utils/tokenizers/{CACHE_NAME}"
SIZE = 3_613_922
SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"   # tiktoken's pin


class FetchError(SystemExit):
    """A one-line refusal (exits non-zero with the message)."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def download(folder: Path) -> None:
    """``pip download`` of the one pinned wheel, hash-checked by pip; nothing is installed."""
    folder.mkdir(parents=True, exist_ok=True)
    requirements = folder / "requirements.txt"
    requirements.write_text(WHEEL_PIN + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                           "--only-binary", ":all:", "--require-hashes", "-r", str(requirements),
                           "-d", str(folder)])
    if done.returncode:
        raise FetchError(f"pip download of {WHEEL_PIN.split()[0]} failed (exit {done.returncode}); "
                         "no package registry reachable?")


def extract(wheel: Path) -> bytes:
    """The encoding file from ``wheel``, after checking the wheel's and the file's hashes."""
    if not wheel.is_file():
        raise FetchError(f"{wheel}: not downloaded")
    actual = _sha256(wheel.read_bytes())
    if actual != WHEEL_SHA256:
        raise FetchError(f"{wheel}: sha256 {actual} does not match the pinned {WHEEL_SHA256}")
    try:
        with zipfile.ZipFile(wheel) as archive:
            data = archive.read(MEMBER)
    except (KeyError, zipfile.BadZipFile) as exc:
        raise FetchError(f"{wheel}: no {MEMBER} in it ({exc})") from None
    if len(data) != SIZE or _sha256(data) != SHA256:
        raise FetchError(f"{wheel}: {MEMBER} is {len(data)} bytes with sha256 {_sha256(data)}; "
                         f"expected {SIZE} bytes with sha256 {SHA256}")
    return data


def fetch(cache: Path, fetch_wheel: Optional[Callable[[Path], None]] = None) -> Path:
    """``cache/CACHE_NAME``, verified; downloaded and extracted only when absent or wrong."""
    target = cache / CACHE_NAME
    if target.is_file() and _sha256(target.read_bytes()) == SHA256:
        return target
    with tempfile.TemporaryDirectory() as tmp:
        (fetch_wheel or download)(Path(tmp))
        data = extract(Path(tmp) / WHEEL_NAME)
    cache.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{CACHE_NAME}.{os.getpid()}")
    partial.write_bytes(data)
    os.replace(partial, target)
    return target


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cache", type=Path, help="the folder TIKTOKEN_CACHE_DIR will name")
    args = parser.parse_args(argv)
    print(fetch(args.cache))
    return 0


if __name__ == "__main__":
    sys.exit(main())
