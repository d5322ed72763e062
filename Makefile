# RoboRally: `make play` starts a game, `make test` runs every check.
SHELL := /bin/bash
PY ?= python3
# uv from PATH, or the one `pip install uv` puts in the Python environment.
UV := $(shell command -v uv >/dev/null 2>&1 && echo uv || echo $(PY) -m uv)
RUN := $(UV) run --frozen

.PHONY: setup system-deps play play-headless load test lint typecheck pytest bench soak gallery clean

# Debian packages the tests need: Chromium for the browser tests, cairo for PNG rendering.
# Installed only when missing (CI runs as root; elsewhere sudo is used if available).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
system-deps:
	@missing=""; \
	[ -x /usr/bin/chromium ] || missing="$$missing chromium"; \
	ldconfig -p 2>/dev/null | grep -q 'libcairo.so.2' || missing="$$missing libcairo2"; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			$(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi

# Install uv if it is missing, then the locked environment.
setup:
	@command -v uv >/dev/null 2>&1 || $(PY) -m uv --version >/dev/null 2>&1 \
		|| $(PY) -m pip install --quiet uv
	@$(UV) sync --quiet --frozen

# The game server with its lobby page; open the printed URL (Ctrl-C stops it).
play: setup
	$(RUN) roborally serve --host 127.0.0.1 --port 8000 --data .roborally-data

# A headless game between bots, printed round by round.
play-headless: setup
	$(RUN) roborally play --edition 2023 --course tiny --bots planner,random,random --seed 1

lint: setup
	$(RUN) ruff check src tests bench
	$(RUN) ruff format --check src tests bench

typecheck: setup
	$(RUN) mypy

pytest: setup system-deps
	$(RUN) pytest

test: lint typecheck pytest
	$(RUN) roborally scenario tests/scenarios/*.scenario > /dev/null

bench: setup
	$(RUN) python bench/engine_bench.py
	$(RUN) python bench/bots_bench.py

soak: setup
	$(RUN) python bench/soak.py --games 1000

load: setup
	$(RUN) python bench/load_test.py

gallery: setup system-deps
	$(RUN) roborally gallery --out docs

clean:
	rm -rf .venv .pytest_cache .mypy_cache .ruff_cache
