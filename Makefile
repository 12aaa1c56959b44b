# alphad — single entry point.  `make run` sets up and runs the embedded default;
# `make test` sets up and runs every test.  Heavy sweeps live under `make bench-*`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BUILD := build
SHIM_BUILD := $(BUILD)/sai-shim
export ALPHAD_SAI_LIB_DIR := $(CURDIR)/$(SHIM_BUILD)

.PHONY: all setup venv shim run test test-c test-py bench-loop bench-soak lint clean
.PHONY: bench-observability
.PHONY: vswitch run-sonic lint-docker bench-sonic
.PHONY: ns3 test-ns3 bench-fidelity bench-suite
.PHONY: gnmi-cli bench-gnmi vswitch-gnmi run-gnmi

all: setup

setup: venv shim

venv: $(VENV)/.installed
$(VENV)/.installed: daemon/pyproject.toml daemon/setup.py daemon/alphad/_kernels.c vswitch/pyproject.toml \
		vswitch/gnmi/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e 'daemon[test,gnmi]' -e vswitch -e vswitch/gnmi
	touch $@

shim:
	cmake -S sai-shim -B $(SHIM_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DALPHAD_BUILD_TESTS=ON >/dev/null
	cmake --build $(SHIM_BUILD)

run: setup
	$(VENV)/bin/alphad run -c configs/alphad.yaml

test: setup lint-docker test-c test-ns3 test-py test-p4 test-container

test-c: shim
	ctest --test-dir $(SHIM_BUILD) --output-on-failure

test-py: venv shim ns3 gnmi-cli
	$(VENV)/bin/pytest -q daemon/tests

bench-loop: setup
	$(PY) -m bench.loop

# 8192 queues at 10 ms and 512 at 1 ms, 30 minutes each (SOAK_ARGS="--minutes 2" for a short run)
bench-soak: setup
	$(PY) -m bench.soak $(SOAK_ARGS)

# scrape, /v1/state and history costs by switch size; loop jitter under the live page
bench-observability: setup
	$(PY) -m bench.observability $(BENCH_OBSERVABILITY_ARGS)

lint: venv
	$(VENV)/bin/ruff check daemon bench experiments ns3-harness/python container

# --- ns-3 harness: ns-3 from the PyPI wheel's C++ SDK (no ns-3 source tree) ---
NS3_VERSION := 3.44.post0
NS3_BUILD := $(BUILD)/ns3-harness
export ALPHAD_NS3_BIN := $(CURDIR)/$(NS3_BUILD)/alphad-ns3-sim

$(VENV)/.ns3-$(NS3_VERSION): $(VENV)/.installed ns3-harness/python/pyproject.toml
	$(PY) -m pip install --quiet --no-deps ns3==$(NS3_VERSION)
	$(PY) -m pip install --quiet --no-deps -e ns3-harness/python
	touch $@

ns3: $(VENV)/.ns3-$(NS3_VERSION)
	cmake -S ns3-harness -B $(NS3_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DNS3_PREFIX="$$($(PY) ns3-harness/scripts/ns3_prefix.py)" >/dev/null
	cmake --build $(NS3_BUILD)

test-ns3: ns3
	ctest --test-dir $(NS3_BUILD) --output-on-failure
	$(VENV)/bin/pytest -q ns3-harness/test experiments bench/suite/tests

bench-fidelity: ns3
	$(VENV)/bin/pip install --quiet -e 'daemon[sim]'
	$(PY) -m bench.fidelity $(FIDELITY_ARGS)

# the scenario suite (hours on 2 cores): SUITE_ARGS="--half dev --configs auto18@100ms,auto18@1s"
bench-suite: ns3
	$(PY) -m bench.suite run $(SUITE_ARGS)
	$(PY) -m bench.suite report

# --- SONiC: the virtual SONiC switch (no containers), container lint, benchmark ---
VSWITCH_DIR := $(BUILD)/vswitch

vswitch: setup
	$(VENV)/bin/alphad-vswitch --config-db configs/sonic/config_db.json \
	  --traffic configs/sonic/traffic.scn --spawn-redis $(VSWITCH_DIR) \
	  --database-config $(VSWITCH_DIR)/sonic-db/database_config.json

run-sonic: setup
	$(VENV)/bin/alphad run -c configs/sonic/alphad-local.yaml

lint-docker: venv
	$(VENV)/bin/hadolint Dockerfile container/compose/*.Dockerfile
	docker-compose -f docker-compose.yml config -q
	docker-compose -f docker-compose.yml -f docker-compose.local.yml config -q

bench-sonic: setup
	$(PY) -m bench.sonic $(BENCH_SONIC_ARGS)

# --- the container image: docker where an engine answers, else podman (container/engine.py)
.PHONY: image test-container bench-container
image:
	$(PYTHON) container/engine.py build

# the image against the virtual switch; without an engine: skipped, but fails when CI=true
test-container: venv
	@if $(PYTHON) container/engine.py which >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory image && $(VENV)/bin/pytest -q container/tests; \
	elif [ "$${CI:-}" = true ]; then \
	  echo "test-container: CI=true and no container engine (.ci/run installs podman)" >&2; exit 1; \
	else echo "test-container: SKIPPED: no container engine (apt-get install podman mmdebstrap runc uidmap)"; fi

# image size and the container's time to its first control cycle
bench-container: venv image
	$(PY) -m bench.container $(BENCH_CONTAINER_ARGS)

clean:
	rm -rf $(BUILD)

# --- gNMI: openconfig's gnmi_cli (interop tests), the gNMI latency benchmark ---
GO ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
GNMI_CLI_VERSION := v0.14.1
GNMI_CLI := $(BUILD)/gnmi/bin/gnmi_cli
export ALPHAD_GNMI_CLI := $(CURDIR)/$(GNMI_CLI)

gnmi-cli: $(GNMI_CLI)
$(GNMI_CLI):
	mkdir -p $(BUILD)/gnmi/bin
	GOBIN=$(CURDIR)/$(BUILD)/gnmi/bin GOFLAGS=-mod=mod $(GO) install \
	  github.com/openconfig/gnmi/cmd/gnmi_cli@$(GNMI_CLI_VERSION)

bench-gnmi: setup
	$(PY) -m bench.gnmi $(BENCH_GNMI_ARGS)

# the gNMI server of `make vswitch` (another terminal), and alphad through it
vswitch-gnmi: setup
	$(VENV)/bin/alphad-vswitch-gnmi --insecure --listen 127.0.0.1:8080 \
	  --database-config $(VSWITCH_DIR)/sonic-db/database_config.json \
	  --min-sample-interval 100ms --state-dir $(VSWITCH_DIR)

run-gnmi: setup
	$(VENV)/bin/alphad run -c configs/gnmi/alphad-vswitch.yaml

# --- P4 reference: the bit-exact model's tests (no Tofino compiler installs here) ---
.PHONY: test-p4 p4
test-p4: venv
	$(MAKE) -C p4-reference test

p4:
	$(MAKE) -C p4-reference p4
