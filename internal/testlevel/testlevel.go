// Package testlevel says which tier of the test pyramid a test binary runs in (docs/testing.md, "Tests").
//
//   - go test -short ./...: the quick gate (about a minute on 2 cores): unit and table tests,
//     planted candidates, small spaces.
//   - go test ./... (make test-unit, part of make test): every mechanism (resume, merge, shard,
//     triage, planted targets) on the smallest space that exercises it.
//   - DIFFFUZZ_TEST_LONG=1 go test ./... (make test-long, nightly): the tests that need a
//     full-size space besides, each once per mechanism (whole-sweep resume, the full exhaustive
//     and boundary sweeps inside go test, million-request target campaigns).
//
// A test that needs a full-size space calls Long and keeps a smaller space, with every
// assertion, otherwise; it never becomes a test that cannot fail.
package testlevel

import (
	"os"
	"testing"
)

// Env is the environment variable that turns the long tier on (any value but "" or "0").
const Env = "DIFFFUZZ_TEST_LONG"

// Long reports whether the long tier runs: DIFFFUZZ_TEST_LONG is set and not -short.
func Long() bool {
	v := os.Getenv(Env)
	return v != "" && v != "0" && !testing.Short()
}
