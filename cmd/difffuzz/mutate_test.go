package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/mutation"
)

// --asm adds the assembly targets: branches, immediates and table bits, amd64 and arm64.
func TestMutateListAsm(t *testing.T) {
	code, out, errs := runArgs(t, "", "mutate", "--dir", "../..", "--list", "--asm", "--target", "fast/decode.go:isTrail")
	assert.Equal(t, 0, code, errs)
	assert.Contains(t, errs, "in 3 files", "--target and --asm together")
	assert.Equal(t, 96*8, strings.Count(out, "utf8consts     fast/escape_amd64.s:"), "every bit of the three 32-byte lookup tables")
	assert.Equal(t, 48*8, strings.Count(out, "utf8lookupNEON fast/escape_arm64.s:"), "every bit of the three 16-byte NEON tables")
	assert.Contains(t, out, "escapeUUAVX2   fast/escape_amd64.s:")
	assert.Contains(t, out, "relational-negation: JNZ → JZ")
	assert.Contains(t, out, "escapeUUNEON   fast/escape_arm64.s:")
}

func TestMutateListAsmOnly(t *testing.T) {
	code, out, errs := runArgs(t, "", "mutate", "--dir", "../..", "--list", "--asm")
	assert.Equal(t, 0, code, errs)
	assert.Contains(t, errs, "in 2 files", "--asm alone: the assembly only")
	assert.NotContains(t, out, "decode.go")
}

func TestMutateOnly(t *testing.T) {
	code, out, errs := runArgs(t, "", "mutate", "--dir", "../..", "--list", "--only", "3,5-9", "--target", "fast/decode.go:isTrail")
	assert.Equal(t, 0, code, errs)
	assert.Equal(t, "difffuzz: mutate: 2 mutants in 1 file\n", errs)
	assert.Contains(t, out, "   3  isTrail")
	assert.Contains(t, out, "   5  isTrail")
}

// gapRow turns a witness into the row of the table test of its operation.
func TestGapRow(t *testing.T) {
	r := mutation.Result{Mutant: mutation.Mutant{ID: 7, Func: "decodeValid", Original: "0xC2", Mutated: "0xC1"}}
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

// mutate --list names each mutant of the chosen functions without running a test; bad
// targets, killers and flags are one "difffuzz:" line and exit 2.
func TestMutateList(t *testing.T) {
	code, out, errs := runArgs(t, "", "mutate", "--dir", "../..", "--list", "--target", "fast/decode.go:isTrail")
	assert.Equal(t, 0, code, errs)
	assert.Equal(t, 5, strings.Count(out, "fast/decode.go:11:"), out)
	assert.Contains(t, out, "isTrail        fast/decode.go:11:43 relational-negation: == → !=")
	assert.Equal(t, "difffuzz: mutate: 5 mutants in 1 file\n", errs)
	abs, err := filepath.Abs("../../fast/decode.go")
	require.NoError(t, err)
	code, out2, errs := runArgs(t, "", "mutate", "--dir", "../..", "--list", "--target", abs+":isTrail")
	assert.Equal(t, 0, code, errs)
	assert.Equal(t, out, out2, "an absolute path inside the module is the same target")
	// one line a mutant, a multi-line expression on one line, a deleted operand named
	code, out, errs = runArgs(t, "", "mutate", "--dir", "../..", "--list")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, strings.Count(out, "\n"), strings.Count(out, " → "), "a line a mutant")
	assert.NotContains(t, out, "\t")
	code, out, errs = runArgs(t, "", "mutate", "--dir", "../..", "--list", "--seeds")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, " → (nothing)")
	assert.NotContains(t, out, " → \n")
	for _, args := range [][]string{
		{"mutate", "--dir", "../..", "--target", "fast/nope.go"},
		{"mutate", "--dir", "../..", "--target", "fast/decode.go:nope"},
		{"mutate", "--dir", "../..", "--target", "README.md"},
		{"mutate", "--dir", "../..", "--killers", "tables,nope"},
		{"mutate", "--dir", "../..", "--workers", "0"},
		{"mutate", "--dir", "../..", "--threshold", "101"},
		{"mutate", "--dir", "../..", "extra"},
		{"mutate", "--dir", "../..", "--all", "--target", "fast/decode.go"},
		{"mutate", "--dir", "../..", "--target", "fast/escape_amd64.s:utf8consts[9:1]"},
		{"mutate", "--dir", "../..", "--target", "fast/escape_amd64.s:noSuchSymbol"},
		{"mutate", "--dir", "../..", "--only", "3-a"},
		{"mutate", "--dir", "../..", "--only", "0"},
		{"mutate", "--dir", "../..", "--only", "1-99999999999"},
	} {
		code, out, errs := runArgs(t, "", args...)
		if code != 2 || out != "" || !strings.HasPrefix(errs, "difffuzz: ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	// each with what its one line must say
	for _, c := range []struct{ args, want string }{
		{"--only 6 --target fast/decode.go:isTrail", "--only: 6 is past the last mutant, 5"},
		{"--only 9,7-8 --target fast/decode.go:isTrail", "--only: 9 is past the last mutant, 5"},
		{"--target fast/decode.go:isTrail --target ./fast/decode.go:isLead", `fast/decode.go is already a target ("fast/decode.go:isTrail")`},
		{"--target fast/decode.go:isTrail,", "an empty function name"},
		{"--target fast/decode.go:", "no function after the colon"},
		{"--target :isTrail", "no file"},
		{"--target fast/escape_test.go", "a test file"},
		{"--target fast/_asm/main.go", "outside the packages the module builds"},
		{"--target /elsewhere/x.go", "not inside the module directory"},
		{"--target fast/escape_amd64.s:utf8consts[0:99999]", "past the table's " + utf8constsSize(t) + " bytes"},
		{"--target fast/escape_amd64.s:clean16[0:1],utf8consts[0:999]", "clean16[0:1]: a byte range selects bytes of a utf8 lookup table"},
		{"--seeds --target fast/decode.go:isTrail", "no seed mutants"},
		{"--seeds --only 5 --target fast/decode.go:isTrail", "no seed mutants"},
		{"--json", "--list and --json"},
		{"--threshold NaN", "a percentage 0..100, not NaN"},
		{"--all --asm", "--all and --asm"},
	} {
		code, out, errs := runArgs(t, "", append([]string{"mutate", "--dir", "../..", "--list"}, strings.Fields(c.args)...)...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "difffuzz: ") || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want one line with %q", c.args, code, out, errs, c.want)
		}
	}
	code, _, errs = runArgs(t, "", "mutate", "--dir", "/nonexistent", "--list")
	assert.Equal(t, 2, code)
	assert.Equal(t, "difffuzz: --dir /nonexistent: stat /nonexistent: no such file or directory\n", errs)
	// --asm adds its files but one --target gives, which keeps its functions
	code, out, errs = runArgs(t, "", "mutate", "--dir", "../..", "--list", "--asm", "--target", "fast/escape_amd64.s:clean16")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "escape_arm64.s")
	assert.NotContains(t, out, "escapeUUAVX2")
}

// The assembly functions among the mutants are proven on the embedded strings (the 1-3-byte
// ones never reach a vector kernel), the tables on the kernel pairs, the Go functions as
// before; without assembly there is no kernel-embed domain.
func TestEquivalenceFor(t *testing.T) {
	covers := func(ks []mutation.Killer, fn string) (names []string) {
		for _, k := range ks {
			if (len(k.Funcs) == 0 || slices.Contains(k.Funcs, fn)) && !slices.Contains(k.Except, fn) {
				names = append(names, k.Name)
			}
		}
		return names
	}
	ks := equivalenceFor([]mutation.Mutant{{File: "fast/decode.go", Func: "decodeValid"},
		{File: "fast/escape_amd64.s", Func: "escapeUUAVX2"}, {File: "fast/escape_amd64.s", Func: "utf8consts"}, {File: "fast/escape_amd64.s", Func: "clean16"}})
	assert.Equal(t, []string{"decode-domain", "utf8-decode-domain", "escape-domain"}, covers(ks, "decodeValid"))
	assert.Equal(t, []string{"escape-domain"}, covers(ks, "escapeMB"))
	assert.Equal(t, []string{"kernel-embed-domain"}, covers(ks, "escapeUUAVX2"))
	assert.Equal(t, []string{"kernel-embed-domain"}, covers(ks, "clean16"))
	assert.Equal(t, []string{"kernel-domain"}, covers(ks, "utf8consts"))
	goOnly := equivalenceFor([]mutation.Mutant{{File: "fast/decode.go", Func: "decodeValid"}})
	assert.Equal(t, []string{"escape-domain"}, covers(goOnly, "escapeMB"))
	assert.NotContains(t, covers(goOnly, "escapeUUAVX2"), "kernel-embed-domain")
	assert.Empty(t, equivalenceKillers[3].Funcs, "the shared list is not changed")

	// A byte of utf8consts past the lookup tables (--all) is a constant clean16 reads too: the
	// kernel pairs do not reach it, the embedded strings do.
	src, err := os.ReadFile("../../fast/escape_amd64.s")
	require.NoError(t, err)
	past, err := mutation.AsmSites("fast/escape_amd64.s", src, []string{"utf8consts[352:353]"})
	require.NoError(t, err)
	require.Len(t, past, 8)
	assert.Equal(t, 352, past[0].TableByte())
	ks = equivalenceFor(past)
	assert.Equal(t, []string{"kernel-embed-domain", "kernel-domain"}, covers(ks, "utf8consts"))
}

// utf8constsSize is the size of the amd64 constant table, from its GLOBL line.
func utf8constsSize(t *testing.T) string {
	src, err := os.ReadFile("../../fast/escape_amd64.s")
	require.NoError(t, err)
	m := regexp.MustCompile(`GLOBL utf8consts<>\(SB\), RODATA\|NOPTR, \$(\d+)`).FindSubmatch(src)
	require.NotNil(t, m, "no GLOBL line for utf8consts")
	return string(m[1])
}
