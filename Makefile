# wecodex — `make run` starts the bot, `make test` runs every test.
# Everything a test needs is installed into .tools/ (ignored) when missing.

CODEX_VERSION    := 0.171.0
CODEX_ACP_VERSION := 2.6.0
ZED_CODEX_ACP_VERSION := 0.16.0
AIBOT_SDK_VERSION := 1.0.7
ACPX_VERSION     := 0.19.1
STATICCHECK      := honnef.co/go/tools/cmd/staticcheck@v0.8.2
TOOLS            := $(CURDIR)/.tools
CODEX_BIN        := $(TOOLS)/codex/node_modules/.bin/codex
CODEX_ACP_BIN    := $(TOOLS)/codex-acp/node_modules/.bin/codex-acp
# The Rust agent's own binary (its npm wrapper only spawns it), from the
# platform package npm installs beside it.
ZED_CODEX_ACP_BIN := $(TOOLS)/zed-codex-acp/node_modules/.bin/codex-acp-linux-x64
# The official WeCom AI-bot SDK, the ground-truth client the fake
# long-connection server (internal/wecomtest) is checked against.
AIBOT_SDK_DIR    := $(TOOLS)/aibot-sdk/node_modules/@wecom/aibot-node-sdk
# acpx, an ACP client nobody here wrote: the tests drive `wecodex codex-acp`
# and both published bridges with it (modes, models, session list).
ACPX_BIN         := $(TOOLS)/acpx/node_modules/.bin/acpx
CONFIG           ?= configs/wecodex.yaml
# Where build puts the binaries (a test of `make demo` builds into its own).
BIN              ?= bin
CHROMIUM         := /usr/bin/chromium
# The README's systemd path test (deploy/check_readme_test.go) checks the unit with it.
SYSTEMD_ANALYZE  := /usr/bin/systemd-analyze
SUDO             := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Tests and `make run` find the pinned Codex (and codex-acp, to compare against) here.
export WECODEX_TEST_CODEX_BIN := $(CODEX_BIN)
export WECODEX_TEST_CODEX_ACP_BIN := $(CODEX_ACP_BIN)
export WECODEX_TEST_ZED_CODEX_ACP_BIN := $(ZED_CODEX_ACP_BIN)
export WECODEX_TEST_CHROMIUM := $(CHROMIUM)
export WECODEX_TEST_AIBOT_SDK := $(AIBOT_SDK_DIR)
export WECODEX_TEST_ACPX_BIN := $(ACPX_BIN)

.PHONY: all build codex login run demo test test-redis bench bench-bridge bench-scale bench-scale-bridge bench-faults load load-cluster lint tools clean image

all: build

# Both binaries get one random build id: `wecodex codex-acp` hands its
# session to the lean wecodex-codex-acp beside it only when that is the same
# build (package codexacp), never to a stale copy.
BUILD_ID      := $(shell od -An -N8 -tx8 /dev/urandom | tr -d ' \n')
BUILD_LDFLAGS := -X github.com/wecodex/wecodex/cli.BuildID=$(BUILD_ID)

build:
	go build -ldflags "$(BUILD_LDFLAGS)" -o $(BIN)/wecodex ./cmd/wecodex
	CGO_ENABLED=0 go build -ldflags "$(BUILD_LDFLAGS)" -o $(BIN)/wecodex-codex-acp ./cmd/wecodex-codex-acp

# Only what running the bot needs: the pinned Codex (serve and codex-login
# find it in .tools/ beside bin/, with no PATH change).
codex: $(CODEX_BIN)

# Everything the tests and benchmarks use besides.
tools: $(CODEX_BIN) $(CODEX_ACP_BIN) $(ZED_CODEX_ACP_BIN) $(AIBOT_SDK_DIR) $(ACPX_BIN)

# npm_install DIR PACKAGE@VERSION: a pinned npm package in its own ignored folder.
define npm_install
	@echo "installing $(2) into $(1)"
	mkdir -p $(1)
	[ -f $(1)/package.json ] || echo '{"private":true}' > $(1)/package.json
	cd $(1) && npm install --no-audit --no-fund --silent --save-exact $(2)
endef

$(CODEX_BIN):
	$(call npm_install,$(TOOLS)/codex,@openai/codex@$(CODEX_VERSION))

# The published ACP bridge, only to compare against in tests and benchmarks.
$(CODEX_ACP_BIN):
	$(call npm_install,$(TOOLS)/codex-acp,@agentclientprotocol/codex-acp@$(CODEX_ACP_VERSION))

# zed's Rust codex-acp (Codex embedded), the other published agent the
# external-agent tests run.
$(ZED_CODEX_ACP_BIN):
	$(call npm_install,$(TOOLS)/zed-codex-acp,@zed-industries/codex-acp@$(ZED_CODEX_ACP_VERSION))

$(AIBOT_SDK_DIR):
	$(call npm_install,$(TOOLS)/aibot-sdk,@wecom/aibot-node-sdk@$(AIBOT_SDK_VERSION))

$(ACPX_BIN):
	$(call npm_install,$(TOOLS)/acpx,acpx@$(ACPX_VERSION))

# Debian's Chromium for the playground's browser tests (and an emoji font so
# screenshots show the status icons).
$(CHROMIUM):
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-color-emoji

# systemd's own tools, for systemd-analyze verify; nothing is started.
$(SYSTEMD_ANALYZE):
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd

run: build codex
	$(BIN)/wecodex serve --config $(CONFIG)

# Logs the pinned Codex in with the CODEX_HOME serve uses (the same config);
# ARGS go to `codex login` (e.g. ARGS=--device-auth).
login: build codex
	$(BIN)/wecodex codex-login --config $(CONFIG) $(ARGS)

# The same as `make run`, with Codex on a bundled scripted model: no account, no network.
# Built, then run, not `go run`: go run exits 1 on Ctrl-C whatever its
# program does, which make reports as an error; the demo itself exits 0.
demo: build codex
	go build -o $(BIN)/wecodex-demo ./internal/demo/cmd/wecodex-demo
	$(BIN)/wecodex-demo --wecodex $(BIN)/wecodex --codex $(CODEX_BIN) --config $(CONFIG)

# Besides the single Redis, a Redis Cluster and a Sentinel setup of their own
# (scripts/with-redis-topologies.sh; their tests skip, saying so, without
# redis-server).
test: tools $(CHROMIUM) $(SYSTEMD_ANALYZE)
	go vet ./...
	scripts/with-redis.sh scripts/with-redis-topologies.sh go test -count=1 -timeout 20m ./...

# Only the store, on a single Redis, a Cluster and Sentinel (with a failover).
test-redis:
	scripts/with-redis.sh scripts/with-redis-topologies.sh go test -count=1 -v -run . ./store/...

bench: tools
	scripts/with-redis.sh go test -run '^$$' -bench . -benchmem ./...

# The bridge's own CPU and peak RSS, and the whole process tree's (each
# process listed per run; peak RSS, PSS, USS and anonymous memory), beside
# both peers and the bare app-server (the same native Codex driven by the
# smallest client), on the same scripted 20,000-delta answer, alternating;
# prints the wecodex tree / bare tree ratios (README, "Performance"), for
# `wecodex codex-acp` and for `wecodex serve` (its in-process bridge, driven
# through its webhook by the WeCom simulator; it needs a Redis).
bench-bridge: build tools
	scripts/with-redis.sh go run ./internal/benchbridge -wecodex bin/wecodex -codex $(CODEX_BIN) -codex-acp $(CODEX_ACP_BIN) -zed-codex-acp $(ZED_CODEX_ACP_BIN) -deltas 20000 -runs 5

# What users feel at load, through the real channels: N = 1, 4, 8, 16
# conversations at once on one `wecodex serve` replica (real Codex on the
# scripted model, real Redis), callback to first progress and to the finished
# card, p50/p99, over the webhook (the simulator's refresh pulls) and the long
# connection (pushed frames), with the load average (README, "Performance").
bench-scale: build tools
	WITH_REDIS_PRIVATE=1 scripts/with-redis.sh go run ./internal/benchscale -wecodex $(BIN)/wecodex -codex $(CODEX_BIN) -n 1,4,8,16 -deltas 2000

# One bridge process serving N = 1, 4, 8, 16 conversations at once, beside both
# peers: first answer and finish p50/p99, whole-tree CPU and RSS per conversation.
bench-scale-bridge: build tools
	go run ./internal/benchbridge -wecodex bin/wecodex -codex $(CODEX_BIN) -codex-acp $(CODEX_ACP_BIN) -zed-codex-acp $(ZED_CODEX_ACP_BIN) -deltas 2000 -runs 1 -scale 1,4,8,16 -scale-deltas 2000

# 8 conversations on one app-server, SIGSTOPped once and SIGKILLed once
# mid-stream: turns completed, continued, lost and duplicated (README,
# "Performance").
bench-faults: tools
	go run ./internal/benchfaults -codex $(CODEX_BIN) -conversations 8

# Webhook callbacks and refreshes against a real serve and Redis on loopback,
# then WeCom's retry storm (one msgid 1,000 times from 8 senders while its
# turn runs, and the Redis commands a repeat costs): p50/p99. On a Redis of
# its own: a shared one's other traffic is what a p99 would measure.
load: build
	WITH_REDIS_PRIVATE=1 scripts/with-redis.sh go run ./scripts/loadwebhook -bin bin/wecodex

# Scale-out with faults: 3 `wecodex serve` replicas on the Redis Cluster
# scripts/with-redis-topologies.sh starts, scripted model, 60 conversations × 3
# messages over the webhook (10% delivered twice), one replica drained and
# another SIGKILLed mid-run: answered exactly once, lost, duplicated, order,
# p50/p99 first progress and finish, turns per second (README, "Performance").
load-cluster: build tools
	scripts/with-redis-topologies.sh go run ./internal/loadcluster -wecodex $(BIN)/wecodex -codex $(CODEX_BIN)

# The container image (Dockerfile): docker or podman, whichever has an
# engine to talk to. A docker client without a daemon is not enough.
IMAGE ?= wecodex:latest
image:
	@if docker info >/dev/null 2>&1; then engine=docker; \
	elif podman info >/dev/null 2>&1; then engine=podman; \
	else echo "make image: no container engine answers here (docker info and podman info both failed)."; \
	     if command -v docker >/dev/null; then echo "A docker client is installed, but no Docker daemon answers it: start dockerd, or point DOCKER_HOST at one."; fi; \
	     echo "Install Docker or Podman, or build on a machine that has one: docker build -t $(IMAGE) ."; exit 1; fi; \
	echo "building $(IMAGE) with $$engine"; \
	$$engine build --build-arg VERSION=$$(git describe --always --dirty 2>/dev/null || echo dev) --build-arg CODEX_VERSION=$(CODEX_VERSION) -t $(IMAGE) .

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	go vet ./...
	go run $(STATICCHECK) ./...

clean:
	rm -rf bin artifacts
