package mutation

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sample = `package p

func f(s []byte, i int) int {
	switch c := s[i]; {
	case c < 0xC2:
		return 1
	case c >= 0xE0 && !ok(c):
		return i + 2
	}
	return g(3)
}

func ok(c byte) bool { return c&0xC0 == 0x80 }

func g(n int) int { return n }
`

func TestSites(t *testing.T) {
	ms, err := Sites("p.go", []byte(sample), []string{"f"})
	require.NoError(t, err)
	var got []string
	for _, m := range ms {
		assert.Equal(t, "f", m.Func)
		got = append(got, strings.TrimPrefix(m.String(), "p.go:"))
		// Apply changes exactly the site: the rest of the source is byte-identical.
		out := m.Apply([]byte(sample))
		assert.Equal(t, sample[:m.off], string(out[:m.off]))
		assert.Equal(t, sample[m.end:], string(out[len(out)-(len(sample)-m.end):]))
	}
	// The case condition of a tagless switch, each operand of &&, the !, the cursor advance in
	// an addition, a returned constant and a call argument.
	for _, want := range []string{
		"5:9 relational-boundary: < → <=",
		"5:9 relational-negation: < → >=",
		"5:11 constant+1: 0xC2 → 0xC3",
		"5:11 constant-1: 0xC2 → 0xC1",
		"7:9 relational-boundary: >= → >",
		"7:17 logical: && → ||",
		"7:7 drop-left-operand: c >= 0xE0 && !ok(c) → !ok(c)",
		"7:7 drop-right-operand: c >= 0xE0 && !ok(c) → c >= 0xE0",
		"7:20 remove-not: !ok(c) → ok(c)",
		"6:10 constant+1: 1 → 2",
		"6:10 constant-1: 1 → 0",
		"8:14 constant-1: 2 → 1",
		"10:11 constant+1: 3 → 4",
	} {
		assert.Contains(t, got, want)
	}
	for i, m := range ms {
		assert.Equal(t, i+1, m.ID)
	}
	all, err := Sites("p.go", []byte(sample), nil)
	require.NoError(t, err)
	assert.Greater(t, len(all), len(ms), "ok and g have sites too")

	_, err = Sites("p.go", []byte(sample), []string{"h"})
	assert.EqualError(t, err, "p.go: no function h")
	_, err = Sites("p.go", []byte("package p\nfunc {"), nil)
	assert.Error(t, err)
}

// TestRunFast runs three mutants of fast/decode.go through the overlay with one killer: one
// that the killer kills, one that does not compile (not viable, not killed) and one in a
// function the killer does not reach (survived). The file on disk is not written.
func TestRunFast(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests package fast once per mutant (about a minute)")
	}
	dir, err := filepath.Abs("..")
	require.NoError(t, err)
	file := "fast/decode.go"
	src, err := os.ReadFile(filepath.Join(dir, file))
	require.NoError(t, err)
	ms, err := Sites(file, src, []string{"decodeValid", "utf8Decode"})
	require.NoError(t, err)
	pick := func(fn, orig, mutated string) Mutant {
		for _, m := range ms {
			if m.Func == fn && m.Original == orig && m.Mutated == mutated {
				return m
			}
		}
		t.Fatalf("no mutant %s: %s → %s", fn, orig, mutated)
		return Mutant{}
	}
	killed := pick("decodeValid", "0xC2", "0xC1") // accepts C1 leads: an overlong 2-byte form
	broken := killed
	broken.ID, broken.Mutated = 2, "undefinedName"
	var survivor Mutant
	for _, m := range ms {
		if m.Func == "utf8Decode" && m.Operator == OpBoundary {
			survivor = m
			break
		}
	}
	require.NotZero(t, survivor.ID)
	survivor.ID = 3

	cfg := Config{Dir: dir, Workers: 2, Killers: []Killer{{Name: "nextchar", Pkg: "./fast", Run: "^TestNextChar$", Short: true}}}
	ctx := context.Background()
	base, err := Baseline(ctx, cfg)
	require.NoError(t, err)
	res, err := Run(ctx, cfg, file, src, []Mutant{killed, broken, survivor}, base)
	require.NoError(t, err)
	require.Len(t, res, 3)
	assert.Equal(t, Killed, res[0].Outcome, "%+v", res[0])
	assert.Equal(t, "nextchar", res[0].KilledBy)
	assert.Equal(t, "TestNextChar", strings.SplitN(res[0].Test, "/", 2)[0])
	assert.Equal(t, NotViable, res[1].Outcome, "%+v", res[1])
	assert.Contains(t, res[1].Detail, "undefinedName")
	assert.Equal(t, Survived, res[2].Outcome, "%+v", res[2])

	after, err := os.ReadFile(filepath.Join(dir, file))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(src, after), "the working tree was written")

	// A killer that fails on the unmutated tree, or runs no test, stops the run.
	_, err = Baseline(ctx, Config{Dir: dir, Killers: []Killer{{Name: "none", Pkg: "./fast", Run: "^TestNoSuchTest$"}}})
	assert.ErrorContains(t, err, "killer none runs no test")
	_, err = Baseline(ctx, Config{Dir: dir, Killers: []Killer{{Name: "nopkg", Pkg: "./nosuchpkg"}}})
	assert.ErrorContains(t, err, "killer nopkg")
}
