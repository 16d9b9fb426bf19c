# wecodex — `make run` starts the bot, `make test` runs every test.
# Everything a test needs is installed into .tools/ (ignored) when missing.

CODEX_VERSION    := 0.171.0
CODEX_ACP_VERSION := 2.6.0
STATICCHECK      := honnef.co/go/tools/cmd/staticcheck@v0.8.2
TOOLS            := $(CURDIR)/.tools
CODEX_BIN        := $(TOOLS)/codex/node_modules/.bin/codex
CONFIG           ?= configs/wecodex.yaml

# Tests and `make run` find the pinned Codex here.
export WECODEX_TEST_CODEX_BIN := $(CODEX_BIN)

.PHONY: all build run test bench lint tools clean

all: build

build:
	go build -o bin/wecodex ./cmd/wecodex

tools: $(CODEX_BIN)

$(CODEX_BIN):
	@echo "installing @openai/codex@$(CODEX_VERSION) into $(TOOLS)/codex"
	mkdir -p $(TOOLS)/codex
	[ -f $(TOOLS)/codex/package.json ] || echo '{"private":true}' > $(TOOLS)/codex/package.json
	cd $(TOOLS)/codex && npm install --no-audit --no-fund --silent @openai/codex@$(CODEX_VERSION)

run: build
	PATH="$(dir $(CODEX_BIN)):$$PATH" ./bin/wecodex serve --config $(CONFIG)

test: tools
	go vet ./...
	scripts/with-redis.sh go test -count=1 -timeout 20m ./...

bench: tools
	scripts/with-redis.sh go test -run '^$$' -bench . -benchmem ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	go vet ./...
	go run $(STATICCHECK) ./...

clean:
	rm -rf bin artifacts
