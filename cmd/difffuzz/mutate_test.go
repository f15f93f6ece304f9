package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// utf8constsSize is the size of the amd64 constant table, from its GLOBL line.
func utf8constsSize(t *testing.T) string {
	src, err := os.ReadFile("../../fast/escape_amd64.s")
	require.NoError(t, err)
	m := regexp.MustCompile(`GLOBL utf8consts<>\(SB\), RODATA\|NOPTR, \$(\d+)`).FindSubmatch(src)
	require.NotNil(t, m, "no GLOBL line for utf8consts")
	return string(m[1])
}
