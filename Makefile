# difffuzz: see README.md. `make test` is what CI runs (after .ci/run installs php-cli and
# qemu-user).
GO          ?= go
STATICCHECK  = honnef.co/go/tools/cmd/staticcheck@v0.8.2
BIN          = bin/difffuzz
PHP_TARGET   = php adapters/php/difffuzz-target.php

.PHONY: test test-unit test-race test-arm64 check-php check-self exhaustive vet lint ci fmt-check build

## test: formatting, vet (amd64 and arm64), staticcheck, the full test suite (including the whole
## exhaustive sweep and the PHP conformance test), the race detector on the -short suite, the
## arm64 tests under qemu, and the default --exec campaigns against real PHP and against
## difffuzz's own serve.
test: fmt-check vet lint test-unit test-race test-arm64 check-php check-self

test-unit:
	$(GO) test -count=1 -timeout 40m ./...

test-race:
	$(GO) test -count=1 -race -short -timeout 20m ./...

## test-arm64: the fast and fuzz tests (-short: the exhaustive sample) as arm64 binaries under
## qemu-user (apt-get install -y qemu-user).
test-arm64:
	GOARCH=arm64 $(GO) test -count=1 -short -exec qemu-aarch64 -timeout 30m ./fast ./fuzz

build:
	$(GO) build -o $(BIN) ./cmd/difffuzz

## check-php: the default external-target campaign against the PHP on PATH (Debian's PHP 8.2 in
## CI); any finding fails.
check-php: build
	$(BIN) --exec '$(PHP_TARGET)'

## check-self: difffuzz's own `serve` as an external target must come out clean.
check-self: build
	$(BIN) --exec '$(BIN) serve --impl fast'

## exhaustive: the main job, as README.md shows it.
exhaustive:
	$(GO) run ./cmd/difffuzz --exhaustive

fmt-check:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt: not formatted: $$unformatted"; exit 1; fi

vet:
	$(GO) vet ./...
	GOARCH=arm64 $(GO) vet ./...
	$(GO) vet -tags purego ./...

lint:
	$(GO) run $(STATICCHECK) ./...

ci: test
