# Quick start: `make demo` (set up, regenerate and verify the release) and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test venv browser bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

venv: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'

demo: venv
	$(BIN)/mira-math generate --out build/release
	$(BIN)/mira-math validate build/release
	$(BIN)/mira-math verify mira-math
	rm -rf build/runs build/report build/view
	$(BIN)/mira-math eval --solver reference --responder rules --out build/runs/reference
	$(BIN)/mira-math eval --solver noask --responder rules --out build/runs/noask
	$(BIN)/mira-math score build/runs/reference build/runs/noask
	$(BIN)/mira-math audit build/runs/reference
	$(BIN)/mira-math report build/runs/reference build/runs/noask --out build/report
	$(BIN)/mira-math view build/runs/reference build/runs/noask --out build/view
	@echo "report: build/report/report.md; transcripts: open build/view/index.html"

# The viewer's browser test drives Debian's chromium (playwright never downloads a browser).
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  echo "installing chromium (apt) for the viewer's browser test"; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; }

test: venv browser
	$(BIN)/python -m pytest

bench: venv
	$(BIN)/python benchmarks/bench_generation.py
	$(BIN)/python benchmarks/bench_verifier.py
	$(BIN)/python benchmarks/bench_answers.py
	$(BIN)/python benchmarks/bench_runner.py
	$(BIN)/python benchmarks/bench_memory.py
	$(BIN)/python benchmarks/bench_startup.py
	$(BIN)/python benchmarks/bench_slots.py
	$(BIN)/python benchmarks/bench_score.py
	$(BIN)/python benchmarks/bench_scale.py

clean:
	rm -rf $(VENV) build *.egg-info
