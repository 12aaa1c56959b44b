# alphad — single entry point.  `make run` sets up and runs the embedded default;
# `make test` sets up and runs every test.  Heavy sweeps live under `make bench-*`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BUILD := build
SHIM_BUILD := $(BUILD)/sai-shim
export ALPHAD_SAI_LIB_DIR := $(CURDIR)/$(SHIM_BUILD)

.PHONY: all setup venv shim run test test-c test-py bench-loop lint clean

all: setup

setup: venv shim

venv: $(VENV)/.installed
$(VENV)/.installed: daemon/pyproject.toml vswitch/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e 'daemon[test]' -e vswitch
	touch $@

shim:
	cmake -S sai-shim -B $(SHIM_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DALPHAD_BUILD_TESTS=ON >/dev/null
	cmake --build $(SHIM_BUILD)

run: setup
	$(VENV)/bin/alphad run -c configs/alphad.yaml

test: setup test-c test-py

test-c: shim
	ctest --test-dir $(SHIM_BUILD) --output-on-failure

test-py: venv shim
	$(VENV)/bin/pytest -q daemon/tests

bench-loop: setup
	$(PY) bench/loop/run.py

lint: venv
	$(VENV)/bin/ruff check daemon bench

clean:
	rm -rf $(BUILD)
