"""Tests never touch the network: the Hub libraries are forced offline before any import."""

import os
import tempfile

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
# eval's validation cache (eval/validated.py) goes to a folder of this session, not the home folder
os.environ["MIRA_MATH_CACHE"] = tempfile.mkdtemp(prefix="mira-math-cache-")
