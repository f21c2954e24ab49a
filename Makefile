# The two commands: `make run` and `make test`. Everything else is optional.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint bench up down clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall when the project's metadata changes.
$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/belot run

lint: $(STAMP)
	$(BIN)/ruff check libs services tests bench tools
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest -q

# The bench extra: the rating models bench/rating.py compares OpenSkill with.
$(VENV)/.bench-installed: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	touch $@

bench: $(VENV)/.bench-installed
	@failed=""; for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || failed="$$failed $$b"; done; \
	if [ -n "$$failed" ]; then echo "below target or failed:$$failed"; exit 1; fi

up:
	docker compose up -d --build

down:
	docker compose down

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
