# The two commands: `make run` and `make test`. Everything else is optional.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint bench up down clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# setuptools notes "Editable installation ... folders with the same name as your package"
# for every editable install whose packages come from two roots (libs/ and services/):
# information, not a deprecation; the finder it installs maps exactly the listed packages.
QUIET_EDITABLE := PYTHONWARNINGS="ignore:Editable installation"

# Reinstall when the project's metadata changes.
$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(QUIET_EDITABLE) $(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/belot run

lint: $(STAMP)
	$(BIN)/ruff check libs services commands tests bench tools
	$(BIN)/mypy

# Three processes on two cores (pytest-xdist; docs/platform.md says why): the suite
# mostly waits (servers, clocks, browsers), and each process starts its own embedded
# servers, so the tests share nothing.
test: lint node_modules/.package-lock.json
	$(BIN)/python -m pytest -q -n 3

# What the web client's tests take from npm, at the versions package-lock.json pins (acorn
# for the words scan). Without npm the Node tests that need them skip (fail under CI=true).
node_modules/.package-lock.json: package.json package-lock.json
	@if command -v npm >/dev/null 2>&1; then npm ci --no-audit --no-fund --silent; else echo "npm is missing: the web client's words scan will not run"; fi

# The bench extra: the rating models bench/rating.py compares OpenSkill with.
$(VENV)/.bench-installed: $(STAMP)
	$(QUIET_EDITABLE) $(BIN)/python -m pip install --quiet -e '.[test,bench]'
	touch $@

bench: $(VENV)/.bench-installed
	@failed=""; for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || failed="$$failed $$b"; done; \
	if [ -n "$$failed" ]; then echo "below target or failed:$$failed"; exit 1; fi

# Docker's compose plugin if it answers, else the standalone docker-compose (Debian's
# package); looked up only when up or down runs.
COMPOSE = $(shell docker compose version >/dev/null 2>&1 && echo "docker compose" || echo docker-compose)

up:
	$(COMPOSE) up -d --build

down:
	$(COMPOSE) down

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
