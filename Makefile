# RoboRally: `make play` starts a game, `make test` runs every check.
SHELL := /bin/bash
PY ?= python3
# uv from PATH, or the one `pip install uv` puts in the Python environment.
UV := $(shell command -v uv >/dev/null 2>&1 && echo uv || echo $(PY) -m uv)
RUN := $(UV) run --frozen

.PHONY: setup system-deps play play-lan play-headless load redteam scale test lint typecheck pytest hosting-check bench soak gallery clean

# Debian packages the tests need: Chromium for the browser tests, cairo for PNG rendering,
# nginx and Caddy for the reverse-proxy tests (tests/server/test_proxy.py runs its own copies
# on loopback ports), Redis and PostgreSQL for the scale-out tests (tests/server/services.py
# starts its own servers on loopback ports in temporary directories). Installed only when missing (CI runs as root; elsewhere sudo is used if
# available). The packages' own services must not start (they would take ports 80 and 443):
# policy-rc.d forbids it during the install, and a service that started anyway is stopped
# and disabled.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
system-deps:
	@missing=""; \
	[ -x /usr/bin/chromium ] || missing="$$missing chromium"; \
	ldconfig -p 2>/dev/null | grep -q 'libcairo.so.2' || missing="$$missing libcairo2"; \
	[ -x /usr/sbin/nginx ] || missing="$$missing nginx-light"; \
	[ -x /usr/bin/caddy ] || missing="$$missing caddy"; \
	[ -x /usr/bin/redis-server ] || missing="$$missing redis-server"; \
	ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing="$$missing postgresql"; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		policy=""; \
		if [ ! -e /usr/sbin/policy-rc.d ]; then \
			printf '#!/bin/sh\nexit 101\n' | $(SUDO) tee /usr/sbin/policy-rc.d >/dev/null \
				&& $(SUDO) chmod 755 /usr/sbin/policy-rc.d && policy=1; \
		fi; \
		$(SUDO) apt-get update -qq; \
		apt-cache show nginx-light >/dev/null 2>&1 || missing="$${missing/nginx-light/nginx}"; \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
		status=$$?; \
		[ -z "$$policy" ] || $(SUDO) rm -f /usr/sbin/policy-rc.d; \
		for service in nginx caddy redis-server postgresql; do \
			case "$$missing" in *$$service*) \
				$(SUDO) systemctl disable --now $$service >/dev/null 2>&1 \
					|| $(SUDO) service $$service stop >/dev/null 2>&1 || true;; \
			esac; \
		done; \
		exit $$status; \
	fi

# Install uv if it is missing, then the locked environment.
setup:
	@command -v uv >/dev/null 2>&1 || $(PY) -m uv --version >/dev/null 2>&1 \
		|| $(PY) -m pip install --quiet uv
	@$(UV) sync --quiet --frozen

# The game server with its lobby page; open the printed URL (Ctrl-C stops it).
play: setup
	$(RUN) roborally serve --host 127.0.0.1 --port 8000 --data .roborally-data

# The same server for phones and friends on your network (the tabletop mode's QR codes): it
# listens on every interface and prints the address they open (links use it too); it says so
# when this machine has no network address. Anyone on the network can reach it: docs/hosting.md.
play-lan: setup
	$(RUN) roborally serve --host 0.0.0.0 --port 8000 --data .roborally-data

# A headless game between bots, printed round by round.
play-headless: setup
	$(RUN) roborally play --edition 2023 --course tiny --bots planner,random,random --seed 1

lint: setup
	$(RUN) ruff check src tests bench
	$(RUN) ruff format --check src tests bench

typecheck: setup
	$(RUN) mypy

# Two or more processes (one per core, at most 4), each with its own test servers and browser;
# a file's tests stay in one process, so they share its module's fixtures.
pytest: setup system-deps
	$(RUN) pytest -n auto --maxprocesses 4 --dist loadfile

# docs/hosting.md's nginx and Caddy configurations, run in front of a real server (TLS, wss).
hosting-check: setup system-deps
	$(RUN) pytest -q -rs tests/server/test_proxy.py

test: lint typecheck pytest
	$(RUN) roborally scenario tests/scenarios/*.scenario > /dev/null

bench: setup
	$(RUN) python bench/engine_bench.py
	$(RUN) python bench/bots_bench.py
	$(RUN) python bench/memory_bench.py
	$(RUN) python bench/rl_bench.py

soak: setup
	$(RUN) python bench/soak.py --games 1000

load: setup
	$(RUN) python bench/load_test.py

# Every attack of docs/server.md's red team against real servers on loopback (a few minutes);
# one line each, held or FAILED, and a non-zero exit if any is not held.
redteam: setup
	cd bench && $(RUN) python redteam.py

# Games held at a message p99 <= 200 ms by 1, 2 and 4 server processes sharing one Redis and
# one PostgreSQL (started on loopback ports in temporary folders; docs/scaling.md).
scale: setup system-deps
	$(RUN) python bench/scale.py

gallery: setup system-deps
	$(RUN) roborally gallery --out docs

clean:
	rm -rf .venv .pytest_cache .mypy_cache .ruff_cache
