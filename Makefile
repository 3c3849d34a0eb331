# Developer shortcuts. The README's two commands need nothing but Python 3.11; these need make.
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: install run test soak lint format bench ci

$(VENV)/bin/bohnanza: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q -e '.[dev]'
	touch $@

install: $(VENV)/bin/bohnanza

run: install
	$(VENV)/bin/bohnanza serve

test: install
	$(VENV)/bin/pytest

# Twice as many seeded games in every sweep (BOHNANZA_TEST_DEPTH, tests/games.py).
soak: install
	BOHNANZA_TEST_DEPTH=2 $(VENV)/bin/pytest -m slow tests/unit

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

format: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: install
	$(PY) -m bench.engine
	$(PY) -m bench.replay
	$(PY) -m bench.projections
	$(PY) -m bench.api
	$(PY) -m bench.cli
	$(PY) -m bench.live
	$(PY) -m bench.corrections
	$(PY) -m bench.startup

ci:
	.ci/run
