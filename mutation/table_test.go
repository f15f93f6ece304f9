package mutation

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// gapRow turns a witness into the row of the table test of its operation.
func TestGapRow(t *testing.T) {
	r := Result{Mutant: Mutant{ID: 7, Func: "decodeValid", Original: "0xC2", Mutated: "0xC1"}}
	r.Evidence = `{"id":7,"kind":"differs","op":"decode","input":"c180","pos":0,"want_step":"!/1","got_step":"40/2"}`
	assert.Equal(t, `fast/nextchar_test.go, nextCharTests:  {"difffuzz mutate: decodeValid 0xC2 → 0xC1", "\xc1\x80", 0, jsonopt.Step{Advance: 1}},`, gapRow(r))
	r.Evidence = `{"op":"decode","input":"e0a080","pos":0,"want_step":"800/3"}`
	assert.Contains(t, gapRow(r), `jsonopt.Step{CP: 0x800, Advance: 3, OK: true}},`)
	r.Evidence = `{"op":"utf8_decode","input":"c3a9","want":"e9"}`
	assert.Equal(t, `internal/spectest/facts.go, UTF8Decode:  {"M7", []byte("é"), []byte("\xe9"), "difffuzz mutate: decodeValid 0xC2 → 0xC1"},`, gapRow(r))
	r.Evidence = `{"op":"escape","input":"ff","flags":0,"options":"0","want":"","want_err":5}`
	assert.Equal(t, `internal/spectest/facts.go, Escape:  {"M7", []byte("\xff"), 0x0 /* 0 */, nil, 5, "difffuzz mutate: decodeValid 0xC2 → 0xC1"},`, gapRow(r))
	r.Evidence = "not json"
	assert.Equal(t, "witness: not json", gapRow(r))
}
