package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// saveCase writes a finding of impl on (op, in, flags) under dir, as --out would.
func saveCase(t *testing.T, dir, impl string, op fuzz.Op, in []byte, flags jsonopt.Options) (string, string) {
	t.Helper()
	ff, tf, err := fuzz.SaveFinding(dir, &fuzz.Finding{Kind: fuzz.KindOutput, Op: op, Impl: impl, Input: in, Flags: flags})
	if err != nil {
		t.Fatal(err)
	}
	return ff, tf
}

func TestRepro(t *testing.T) {
	dir := t.TempDir()
	ff, tf := saveCase(t, dir, "swar", fuzz.OpEscape, []byte("\xe0\x80A"), jsonopt.InvalidUTF8Substitute)
	_, tf2 := saveCase(t, dir, "no-such-impl", fuzz.OpDecode, []byte("\xf0\x9f\xc0\x80"), 0)

	// Everything passes now: exit 0, one line per case.
	code, out, errs := runArgs(t, "", "repro", ff, tf, tf2)
	if code != 0 || strings.Count(out, "ok    ") != 3 || !strings.Contains(out, "flags 2097152") ||
		!strings.Contains(out, `recorded "no-such-impl" is not built in`) || !strings.Contains(errs, "all 3 saved findings pass now") {
		t.Errorf("repro: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = runArgs(t, "", "repro", "--impl", "generic", dir)
	if code != 0 || strings.Count(out, "ok    ") != 4 || strings.Count(out, ": generic agree") != 4 {
		t.Errorf("repro dir --impl generic: exit %d\n%s", code, out)
	}

	// A candidate that still differs: exit 1 and the finding printed.
	broken := fuzz.Impl{Name: "broken", Escape: func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
		out, err := fuzz.Oracle.Escape(dst, src, o)
		return append(out, '!'), err
	}, NextChar: fuzz.Oracle.NextChar, UTF8Decode: fuzz.Oracle.UTF8Decode}
	oldC, oldL := reproCandidates, reproLookup
	defer func() { reproCandidates, reproLookup = oldC, oldL }()
	reproCandidates = func() ([]fuzz.Impl, error) { return []fuzz.Impl{broken}, nil }
	reproLookup = func(string) (fuzz.Impl, error) { return broken, nil }
	code, out, errs = runArgs(t, "", "repro", ff, tf2)
	if code != 1 || !strings.Contains(out, "FAIL  "+ff) || !strings.Contains(out, "FINDING output-differs: escape by broken") ||
		!strings.Contains(out, "ok    "+tf2) || !strings.Contains(errs, "1 of 2 saved findings still differ") {
		t.Errorf("repro broken: exit %d\n%s\n%s", code, out, errs)
	}
}

// Unreadable or malformed files: exit 2 and one "difffuzz: " line.
func TestReproBadFiles(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("difffuzz finding v1\nop: escape\ninput: zz\nflags: 0\n"), 0o644)
	other := filepath.Join(dir, "other")
	os.WriteFile(other, []byte("hello\n"), 0o644)
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	for _, args := range [][]string{
		{"repro"},
		{"repro", filepath.Join(dir, "missing")},
		{"repro", bad},
		{"repro", other},
		{"repro", empty},
		{"repro", "--impl", "nope", bad},
	} {
		code, out, errs := runArgs(t, "", args...)
		if code != 2 || out != "" || !strings.HasPrefix(errs, "difffuzz: ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

func TestRandomMode(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runArgs(t, "", "--random", "3000x", "--seed", "7", "--stats", "--out", dir)
	if code != 0 || !strings.Contains(out, "random      escape") || !strings.Contains(out, "3,000") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"difffuzz: random: seed 7, 3,000 inputs", "clean-run", "bad 4: junk", "JSON_INVALID_UTF8_SUBSTITUTE",
		"difffuzz --random 3000x --seed 7"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	// Without --seed a seed is chosen and printed.
	code, _, errs = runArgs(t, "", "--random", "10", "--ops", "decode")
	if code != 0 || !strings.Contains(errs, "difffuzz: random: seed ") {
		t.Errorf("no seed: exit %d\n%s", code, errs)
	}
	code, _, errs = runArgs(t, "", "--random", "100ms", "--seed", "1", "--json")
	if code != 0 || !strings.Contains(errs, "for 100ms") {
		t.Errorf("duration: exit %d\n%s", code, errs)
	}
	for _, args := range [][]string{
		{"--random", "0x"}, {"--random", "many"}, {"--random", "-5s"}, {"--random", "10x", "--seed", "x"},
		{"--stats", "--exhaustive"}, {"--seed", "3", "--boundary"},
	} {
		code, out, errs := runArgs(t, "", args...)
		if code != 2 || out != "" || !strings.HasPrefix(errs, "difffuzz: ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// --random against an external target (the test binary serving swar).
func TestRandomExec(t *testing.T) {
	t.Setenv("DIFFFUZZ_CMD_SERVE", "swar")
	self := fmt.Sprintf("%q -test.run=^TestHelperServe$", os.Args[0])
	code, out, errs := runArgs(t, "", "--exec", self, "--random", "500x", "--seed", "4", "--stats")
	if code != 0 || strings.Count(out, "random ") != 3 || !strings.Contains(out, "no differences") || !strings.Contains(errs, "clean-run") {
		t.Errorf("--exec --random: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = runArgs(t, "", "--exec", self, "--random", "300ms", "--seed", "4", "--ops", "decode")
	if code != 0 || !strings.Contains(out, "random      decode") {
		t.Errorf("--exec --random duration: exit %d\n%s\n%s", code, out, errs)
	}
}
