package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// mutate --list names each mutant of the chosen functions without running a test; bad
// targets, killers and flags are one "difffuzz:" line and exit 2.
func TestMutateList(t *testing.T) {
	code, out, errs := runArgs(t, "", "mutate", "--dir", "../..", "--list", "--target", "fast/decode.go:isTrail")
	assert.Equal(t, 0, code, errs)
	assert.Equal(t, 5, strings.Count(out, "fast/decode.go:11:"), out)
	assert.Contains(t, out, "isTrail        fast/decode.go:11:43 relational-negation: == → !=")
	assert.Equal(t, "difffuzz: mutate: 5 mutants in 1 file\n", errs)
	for _, args := range [][]string{
		{"mutate", "--dir", "../..", "--target", "fast/nope.go"},
		{"mutate", "--dir", "../..", "--target", "fast/decode.go:nope"},
		{"mutate", "--dir", "../..", "--target", "README.md"},
		{"mutate", "--dir", "../..", "--killers", "tables,nope"},
		{"mutate", "--dir", "../..", "--workers", "0"},
		{"mutate", "--dir", "../..", "--threshold", "101"},
		{"mutate", "--dir", "../..", "extra"},
	} {
		code, out, errs := runArgs(t, "", args...)
		if code != 2 || out != "" || !strings.HasPrefix(errs, "difffuzz: ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}
