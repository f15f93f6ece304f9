package mutation

import (
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The assembly functions among the mutants are proven on the embedded strings (the 1-3-byte
// ones never reach a vector kernel), the tables on the kernel pairs, the Go functions as
// before; without assembly there is no kernel-embed domain.
func TestEquivalenceFor(t *testing.T) {
	covers := func(ks []Killer, fn string) (names []string) {
		for _, k := range ks {
			if (len(k.Funcs) == 0 || slices.Contains(k.Funcs, fn)) && !slices.Contains(k.Except, fn) {
				names = append(names, k.Name)
			}
		}
		return names
	}
	ks := EquivalenceFor([]Target{{Mutants: []Mutant{{File: "fast/decode.go", Func: "decodeValid"}}},
		{Mutants: []Mutant{{File: "fast/escape_amd64.s", Func: "escapeUUAVX2"}, {File: "fast/escape_amd64.s", Func: "utf8consts"}, {File: "fast/escape_amd64.s", Func: "clean16"}}}})
	assert.Equal(t, []string{"decode-domain", "utf8-decode-domain", "escape-domain"}, covers(ks, "decodeValid"))
	assert.Equal(t, []string{"escape-domain"}, covers(ks, "escapeMB"))
	assert.Equal(t, []string{"kernel-embed-domain"}, covers(ks, "escapeUUAVX2"))
	assert.Equal(t, []string{"kernel-embed-domain"}, covers(ks, "clean16"))
	assert.Equal(t, []string{"kernel-domain"}, covers(ks, "utf8consts"))
	goOnly := EquivalenceFor([]Target{{Mutants: []Mutant{{File: "fast/decode.go", Func: "decodeValid"}}}})
	assert.Equal(t, []string{"escape-domain"}, covers(goOnly, "escapeMB"))
	assert.NotContains(t, covers(goOnly, "escapeUUAVX2"), "kernel-embed-domain")
	assert.Empty(t, equivalenceKillers[3].Funcs, "the shared list is not changed")

	// A byte of utf8consts past the lookup tables (--all) is a constant clean16 reads too: the
	// kernel pairs do not reach it, the embedded strings do.
	src, err := os.ReadFile("../fast/escape_amd64.s")
	require.NoError(t, err)
	past, err := AsmSites("fast/escape_amd64.s", src, []string{"utf8consts[352:353]"})
	require.NoError(t, err)
	require.Len(t, past, 8)
	assert.Equal(t, 352, past[0].TableByte())
	ks = EquivalenceFor([]Target{{Mutants: past}})
	assert.Equal(t, []string{"kernel-embed-domain", "kernel-domain"}, covers(ks, "utf8consts"))
}
