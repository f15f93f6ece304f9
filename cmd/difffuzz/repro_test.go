package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/internal/planted"
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
	code, out, errs := runArgs(t, "", "repro", ff, tf)
	if code != 0 || strings.Count(out, "ok    ") != 2 || !strings.Contains(out, "flags 2097152") || !strings.Contains(errs, "all 2 saved findings pass now") {
		t.Errorf("repro: exit %d\n%s\n%s", code, out, errs)
	}
	// A record of an implementation that is not built in (an --exec target's) is not
	// replayed against the built-ins as if it passed: skip, exit 2.
	code, out, errs = runArgs(t, "", "repro", ff, tf2)
	if code != 2 || strings.Count(out, "ok    ") != 1 || !strings.Contains(out, "skip  "+tf2) ||
		!strings.Contains(out, `recorded "no-such-impl" is not built in, and the command it records does not start (`) ||
		!strings.Contains(out, `: replay it with --exec CMD (or check the built-ins with --impl)`) ||
		!strings.Contains(errs, "1 of 2 saved findings could not be replayed") {
		t.Errorf("repro no-such-impl: exit %d\n%s\n%s", code, out, errs)
	}
	// A directory: each finding once (its record; the fuzz file beside it is the same case).
	code, out, _ = runArgs(t, "", "repro", "--impl", "generic", dir)
	if code != 0 || strings.Count(out, "ok    ") != 2 || strings.Count(out, ": generic agree") != 2 {
		t.Errorf("repro dir --impl generic: exit %d\n%s", code, out)
	}

	// A candidate that still differs: exit 1 and the finding printed.
	broken := fuzz.Impl{Name: "broken", Escape: func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
		out, err := fuzz.Oracle.Escape(dst, src, o)
		return append(out, '!'), err
	}, NextChar: fuzz.Oracle.NextChar, UTF8Decode: fuzz.Oracle.UTF8Decode}
	oldC, oldL := reproAll, reproLookup
	defer func() { reproAll, reproLookup = oldC, oldL }()
	reproAll = []fuzz.Impl{broken}
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

// repro --exec replays saved findings of an external target through it: the planted target
// still fails them, the faithful one passes, a case it announced it cannot take is skipped.
func TestReproExec(t *testing.T) {
	dir := t.TempDir()
	broken := planted.Command(os.Args[0], planted.RawSlash, planted.Crash)
	_, slash := saveCase(t, dir, broken, fuzz.OpEscape, []byte("a/"), 0)
	_, crash := saveCase(t, dir, broken, fuzz.OpDecode, []byte("\xfe"), 0)
	_, tag := saveCase(t, dir, broken, fuzz.OpEscape, []byte("<"), jsonopt.HexTag)

	code, out, errs := runArgs(t, "", "repro", "--exec", broken, slash, crash, tag)
	assert.Equal(t, 1, code, "%s\n%s", out, errs)
	assert.Contains(t, out, "FAIL  "+slash)
	assert.Contains(t, out, "FINDING output-differs: escape by "+broken)
	assert.Contains(t, out, "FAIL  "+crash)
	assert.Contains(t, out, "FINDING target-crashed: decode by "+broken)
	assert.Contains(t, out, "ok    "+tag)
	assert.Contains(t, errs, "difffuzz: repro: 2 of 3 saved findings still differ\n")

	code, out, errs = runArgs(t, "", "repro", "--exec", planted.Command(os.Args[0]), dir)
	assert.Equal(t, 0, code, "%s\n%s", out, errs)
	// dir holds each finding twice, as a go test fuzz v1 file and as a text record: the
	// record stands for both, so that each counts once.
	assert.Equal(t, 3, strings.Count(out, "ok    "), out)
	assert.Contains(t, errs, "all 3 saved findings pass now")

	// options=0: the HEX_TAG case is not sent, and says so; the others are.
	code, out, errs = runArgs(t, "", "repro", "--exec", planted.Command(os.Args[0], planted.Options0), dir)
	assert.Equal(t, 2, code, "%s\n%s", out, errs)
	assert.Contains(t, out, "skip  "+tag+": escape, 1 byte, flags 1: escape not sent: it announced options=0, without option bits 1")
	assert.Equal(t, 1, strings.Count(out, "skip  "), out)
	assert.Contains(t, errs, "difffuzz: repro: 1 of 3 saved findings could not be replayed (skip lines above), the others pass now\n")

	// One file alone, skipped: no "others".
	code, _, errs = runArgs(t, "", "repro", "--exec", planted.Command(os.Args[0], planted.Options0), tag)
	assert.Equal(t, 2, code)
	assert.Equal(t, "difffuzz: repro: the saved finding could not be replayed (skip line above)\n", errs)

	for _, args := range [][]string{
		{"repro", "--exec", broken, "--impl", "swar", dir},
		{"repro", "--exec", "/no/such/target", dir},
		{"repro", "--exec", broken, "--timeout", "0s", dir},
	} {
		code, out, errs := runArgs(t, "", args...)
		if code != 2 || out != "" || !strings.HasPrefix(errs, "difffuzz: ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}
