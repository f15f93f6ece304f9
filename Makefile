# difffuzz: see README.md. `make test` is what CI runs (after .ci/run installs php-cli,
# php-mbstring, qemu-user and libxml2-utils).
SHELL        = /bin/bash
GO          ?= go
STATICCHECK  = honnef.co/go/tools/cmd/staticcheck@v0.8.2
GREMLINS     = github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
ACTIONLINT   = github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
BENCHSTAT    = golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
WORKFLOWS    = .github/workflows/ci.yml deploy/github/sweep.yml
# every file of package fast but decode.go (gremlins mutates a package; this leaves the one file)
GREMLINS_DECODE_ONLY = (^|/)((escape|fast|kernel|generic|tables|arch_none|scan_other|race_|doc)[^/]*\.go|_asm/.*)$$
BIN          = bin/difffuzz
PHP_TARGET   = php adapters/php/difffuzz-target.php

FUZZTIME    ?= 200000x
RANDOM      ?= 1000000x
SEED        ?= 1
# make bench / benchcmp: which benchmarks (go test -bench syntax, one regexp per /-level) and how
# many runs of each (benchstat wants at least 6 for a confidence interval; 10 is the standard).
BENCH       ?= Escape$$/corpus=(cyrillic|cjk|emoji|french|ascii|html|url)$$/size=4KiB
BENCHCMP    ?= ././size=4KiB/impl=fast$$
BENCHCOUNT  ?= 10

.PHONY: docs bench bench-peers perf-doc benchcmp test test-long test-unit test-unit-long tidy-check boundary mutate-equivalence test-race test-arm64 test-purego test-noavx2 lint-workflows check-php check-self exhaustive vet lint ci fmt-check build fuzz fuzz-ci seeds generate check-generate mutate mutate-all mutate-asm mutate-gremlins

## The test pyramid (docs/testing.md, "Tests"; internal/testlevel):
##   go test -short ./...  the quick gate while working (about a minute on 2 cores): unit and table
##                         tests, planted candidates, small spaces;
##   make test             what .ci/run and every push run (at most 15 minutes on 2 cores): the
##                         static checks, the test suite with every mechanism on small spaces, the
##                         product's own jobs (the default --exhaustive sweep, the boundary space
##                         over every variant with guard pages, the default --exec campaigns
##                         against real PHP and against serve), arm64 under qemu, the pure-Go and
##                         no-AVX2 builds and the seed mutation table with its killers;
##   make test-long        nightly and on demand (hours): the tests that need full-size spaces
##                         (DIFFFUZZ_TEST_LONG=1), the race detector, the fuzz budget, the seed
##                         experiment's equivalence proofs and mutate --asm.
##
## make test runs its parts two at a time (the machine of .ci/run has 2 cores, and no part keeps
## both busy all the time), the longest first; PARALLEL=1 runs them one by one.
TEST_PARTS = fmt-check tidy-check exhaustive test-unit boundary test-arm64 vet lint check-generate lint-workflows test-purego test-noavx2 check-php check-self mutate
PARALLEL  ?= 2
test:
	$(MAKE) --no-print-directory -j$(PARALLEL) --output-sync=target $(TEST_PARTS)

test-long: test-unit-long test-race fuzz-ci mutate-equivalence mutate-asm

## test-unit: the test suite at its default tier: every mechanism on the smallest space that
## exercises it (-short is the quick gate; test-unit-long adds the full-size spaces).
test-unit:
	$(GO) test -count=1 -timeout 30m ./...

test-unit-long:
	DIFFFUZZ_TEST_LONG=1 $(GO) test -count=1 -timeout 120m ./...

test-race:
	$(GO) test -count=1 -race -short -timeout 30m ./...

## test-arm64: the fast and fuzz tests (-short: the exhaustive sample) as arm64 binaries under
## qemu-user (apt-get install -y qemu-user). ARCHSKIP: the harness's own test with planted
## candidates built on the oracle, which runs no code of package fast (68 s under qemu; make
## test-unit runs it).
ARCHSKIP = ^TestExhaustiveCatchesPlantedDefects$$
test-arm64:
	GOARCH=arm64 $(GO) test -count=1 -short -exec qemu-aarch64 -timeout 30m -skip '$(ARCHSKIP)' ./fast ./fuzz

## test-purego, test-noavx2: the fast and fuzz tests (-short) built without assembly, and with
## the assembly but AVX2 turned off (the SSE2 kernels are then what fast dispatches to).
test-purego:
	$(GO) test -count=1 -short -tags purego -timeout 20m -skip '$(ARCHSKIP)' ./fast ./fuzz

test-noavx2:
	GODEBUG=cpu.avx2=off $(GO) test -count=1 -short -timeout 20m -skip '$(ARCHSKIP)' ./fast ./fuzz

## tidy-check: go.mod and go.sum are what go mod tidy makes them (all three modules).
tidy-check:
	$(GO) mod tidy -diff
	cd fast/_asm && $(GO) mod tidy -diff
	cd bench/peers && $(GO) mod tidy -diff

## lint-workflows: actionlint (pinned, through go run) on the CI workflow and the sweep workflow.
lint-workflows:
	$(GO) run $(ACTIONLINT) $(WORKFLOWS)

build:
	$(GO) build -o $(BIN) ./cmd/difffuzz

## check-php: the default external-target campaign against the PHP on PATH (Debian's PHP 8.2 in
## CI); any finding fails.
check-php: build
	$(BIN) --exec '$(PHP_TARGET)'

## check-self: difffuzz's own `serve` as an external target must come out clean.
check-self: build
	$(BIN) --exec '$(BIN) serve --impl fast'

## bench: the go test -bench suite of package bench ($(BENCH), -count $(BENCHCOUNT), about 15
## minutes) through benchstat, a column per implementation; the raw results stay in bench.txt.
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -count $(BENCHCOUNT) ./bench | tee bench.txt
	$(GO) run $(BENCHSTAT) -col /impl bench.txt

## bench-peers: fast.Escape against the Go JSON string escapers (bytedance/sonic EncodeInto with
## ValidateString, goccy/go-json's Encoder, segmentio/encoding AppendEscape, encoding/json's
## Encoder) and copy() of the output on every corpus at 4 and 64 KiB, under the PHP option set
## that makes their outputs identical (UNESCAPED_SLASHES|UNESCAPED_UNICODE; TestSameOutput
## checks it first), through benchstat, a column per implementation. bench/peers is a module of
## its own (like fast/_asm), so that the peers stay out of difffuzz's dependency graph.
PEERSCOUNT ?= 6
bench-peers:
	cd bench/peers && $(GO) test -run '^TestSameOutput$$' . && \
	  $(GO) test -run '^$$' -bench '^BenchmarkPeers$$' -count $(PEERSCOUNT) -benchtime 50ms . | tee ../../bench-peers.txt
	$(GO) run $(BENCHSTAT) -col /impl bench-peers.txt

## perf-doc: docs/benchmarks.md and docs/bench.svg, the one file of measured numbers (docs/
## performance.md says how to read it): difffuzz bench on every corpus at 16 B, 4 KiB and 64 KiB,
## and bench/peers' peerbench (fast against the Go JSON escapers at 4 and 64 KiB; with --floors,
## fast in copies of its output under the default options at 16 B, 4 KiB and 64 KiB), each with its command and machine. Run it on a quiet machine and commit the result with what it measures.
PERFDOC_PASSTIME ?= 100ms
perf-doc:
	$(GO) build -o bin/difffuzz ./cmd/difffuzz
	{ echo '<!-- Generated by make perf-doc. Do not edit: run make perf-doc on a quiet machine. -->'; echo; \
	  echo '# difffuzz: measured performance'; echo; \
	  echo "Generated $$(date -u +%F) by \`make perf-doc\`. How to read it: [performance.md](performance.md)."; echo; \
	  echo '## The oracle, the fast variants and the Go anchors'; echo; \
	  bin/difffuzz bench --format markdown --sizes 16B,4KiB,64KiB --pass-time $(PERFDOC_PASSTIME) --plot docs/bench.svg; echo; \
	  echo '## fast against the Go JSON string escapers'; echo; \
	  (cd bench/peers && $(GO) run ./cmd/peerbench --format markdown --pass-time $(PERFDOC_PASSTIME)); echo; \
	  echo '## fast in copies of its output'; echo; \
	  echo "copy-output's column is fast's time over a copy() of its output's size, the write bound (default options)."; echo; \
	  cd bench/peers && $(GO) run ./cmd/peerbench --floors --sizes 16B,4KiB,64KiB --format markdown --pass-time $(PERFDOC_PASSTIME); } > docs/benchmarks.md.tmp
	mv docs/benchmarks.md.tmp docs/benchmarks.md

## benchcmp: fast's entry point built without assembly (-tags purego) against the assembly
## build, every corpus at 4 KiB in the three benchmarks ($(BENCHCMP), about 30 minutes at
## -count 10), through benchstat (base: purego).
benchcmp:
	$(GO) test -run '^$$' -tags purego -bench '$(BENCHCMP)' -count $(BENCHCOUNT) ./bench > bench-purego.txt
	$(GO) test -run '^$$' -bench '$(BENCHCMP)' -count $(BENCHCOUNT) ./bench > bench-asm.txt
	$(GO) run $(BENCHSTAT) purego=bench-purego.txt asm=bench-asm.txt

## exhaustive: the main job, as README.md shows it (every variant; any finding fails).
exhaustive: build
	$(BIN) --exhaustive

## boundary: the boundary space over every variant, with guard pages (any finding fails).
boundary: build
	$(BIN) --boundary

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

## mutate: the seed mutation table with its killers (the seven seed mutants of PR #24283 in each
## Go copy of the validity rule): fails when one survives that mutation.SeedEquivalent does not
## list. mutate-equivalence: the seed experiment whole, the survivors proven equivalent on the
## exhaustive domains, and the proven set checked against that list. mutate-all: every Go mutant
## of the default targets; mutate-asm: the assembly that validates UTF-8 (amd64, and arm64 under
## qemu).
mutate: build
	$(BIN) mutate --seeds --equivalence=false --threshold 100

mutate-equivalence: build
	$(BIN) mutate --seeds --threshold 100

mutate-all:
	$(GO) run ./cmd/difffuzz mutate

mutate-asm:
	$(GO) run ./cmd/difffuzz mutate --asm

## mutate-gremlins: the peer side by side (slow: about 12 minutes on 2 cores): gremlins v0.6.0
## on fast/decode.go with its default mutators, 2 workers; its JSON in bin/gremlins-decode.json.
## Compare with `difffuzz mutate --target fast/decode.go`.
mutate-gremlins:
	mkdir -p bin
	$(GO) run $(GREMLINS) unleash --workers 2 --exclude-files '$(GREMLINS_DECODE_ONLY)' --output bin/gremlins-decode.json ./fast

## fuzz: each native fuzz target for a count budget, then a random campaign with class statistics.
fuzz:
	$(GO) test ./fuzz -run '^$$' -fuzz '^FuzzEscape$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./fuzz -run '^$$' -fuzz '^FuzzNextChar$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./fuzz -run '^$$' -fuzz '^FuzzUTF8Decode$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) run ./cmd/difffuzz --random $(RANDOM) --seed $(SEED) --stats

## fuzz-ci: the short CI budget of `make fuzz`.
fuzz-ci:
	$(MAKE) fuzz FUZZTIME=20000x RANDOM=100000x

## seeds: regenerate fuzz/testdata/fuzz/<Target>/ from package corpus and the regression store.
seeds:
	$(GO) generate ./fuzz

## docs: rewrite the generated parts of docs/cli.md (the synopsis and the reference of every
## command and flag) from cmd/difffuzz's command table; TestCLIReference fails until it is run
## after a change to a command, a flag or its help.
docs:
	$(GO) test -count=1 -run '^TestCLIReference$$' ./cmd/difffuzz -update

## generate: regenerate the amd64 assembly from fast/_asm (avo, in its own module).
generate:
	cd fast/_asm && $(GO) run . -out ../escape_amd64.s -stubs ../escape_stubs_amd64.go

## check-generate: CI fails if regenerating the assembly changes anything. It generates into a
## temporary directory (the tree is never rewritten, so that it can run beside builds: make
## test runs its parts two at a time) and compares all but the "Code generated by command:"
## line, which names the output paths, and that line with the one make generate writes.
GENHEADER = // Code generated by command: go run main.go -out ../escape_amd64.s -stubs ../escape_stubs_amd64.go. DO NOT EDIT.
check-generate:
	@tmp=$$(mktemp -d); \
	(cd fast/_asm && $(GO) run . -out $$tmp/escape_amd64.s -stubs $$tmp/escape_stubs_amd64.go) || { rm -rf $$tmp; exit 1; }; \
	for f in escape_amd64.s escape_stubs_amd64.go; do \
	  if [ "$$(head -n 1 fast/$$f)" != '$(GENHEADER)' ] || ! cmp -s <(tail -n +2 $$tmp/$$f) <(tail -n +2 fast/$$f); then \
	    echo "check-generate: fast/$$f differs from what fast/_asm generates; run make generate"; rm -rf $$tmp; exit 1; fi; \
	done; \
	rm -rf $$tmp; echo "check-generate: the assembly matches fast/_asm"
