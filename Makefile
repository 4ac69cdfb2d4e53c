# `make run` and `make test` each work from a fresh clone: they create .venv and install the project first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup run test lint typecheck unit bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

# Compiles the engine's modules with mypyc when their sources changed (`build_native.py`; a no-op otherwise).
setup: $(STAMP)
	$(BIN)/python build_native.py

run: setup
	$(BIN)/python -m experiments.default_study

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: setup
	$(BIN)/mypy

unit: setup
	$(BIN)/pytest

test: lint typecheck unit

bench: setup
	$(BIN)/python -m benchmarks.simspeed --out out/bench

clean:
	rm -rf $(VENV) out build .pytest_cache .mypy_cache .ruff_cache
	rm -f simgpu/*.so simgpu/units/*.so simgpu_native__mypyc*.so simgpu/native.digest
