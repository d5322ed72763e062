# RoboRally: `make play` starts a game, `make test` runs every check.
SHELL := /bin/bash
PY ?= python3
# uv from PATH, or the one `pip install uv` puts in the Python environment.
UV := $(shell command -v uv >/dev/null 2>&1 && echo uv || echo $(PY) -m uv)
RUN := $(UV) run --frozen

.PHONY: setup play test lint typecheck pytest bench soak clean

# Install uv if it is missing, then the locked environment.
setup:
	@command -v uv >/dev/null 2>&1 || $(PY) -m uv --version >/dev/null 2>&1 \
		|| $(PY) -m pip install --quiet uv
	@$(UV) sync --quiet --frozen

play: setup
	$(RUN) roborally play --edition 2023 --course tiny --bots random,random,random --seed 1

lint: setup
	$(RUN) ruff check src tests bench
	$(RUN) ruff format --check src tests bench

typecheck: setup
	$(RUN) mypy

pytest: setup
	$(RUN) pytest

test: lint typecheck pytest
	$(RUN) roborally scenario tests/scenarios/*.scenario > /dev/null

bench: setup
	$(RUN) python bench/engine_bench.py

soak: setup
	$(RUN) python bench/soak.py --games 1000

clean:
	rm -rf .venv .pytest_cache .mypy_cache .ruff_cache
