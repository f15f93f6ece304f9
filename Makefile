# difffuzz: see README.md. `make test` is what CI runs (after .ci/run installs php-cli).
GO        ?= go
STATICCHECK = honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: test test-unit test-race exhaustive vet lint ci fmt-check

## test: formatting, vet (amd64 and arm64), staticcheck, the full test suite (including the whole
## exhaustive sweep and the PHP conformance test) and the race detector on the -short suite.
test: fmt-check vet lint test-unit test-race

test-unit:
	$(GO) test -count=1 -timeout 30m ./...

test-race:
	$(GO) test -count=1 -race -short -timeout 20m ./...

## exhaustive: the main job, as README.md shows it.
exhaustive:
	$(GO) run ./cmd/difffuzz --exhaustive

fmt-check:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt: not formatted: $$unformatted"; exit 1; fi

vet:
	$(GO) vet ./...
	GOARCH=arm64 $(GO) vet ./...

lint:
	$(GO) run $(STATICCHECK) ./...

ci: test
