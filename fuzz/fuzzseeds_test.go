package fuzz

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/difffuzz/difffuzz/corpus"
	"github.com/difffuzz/difffuzz/jsonopt"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite the generated seed files testdata/fuzz/<Target>/corpus-* and regress-* from package corpus (go generate ./fuzz)")

// seedSizes are the corpus sizes committed as fuzz seeds: 16 B and 4 KiB. The 64 KiB
// corpora are left to benchmarks and random campaigns: as seeds they would slow every
// fuzzing iteration that mutates them and add megabytes to the repository.
var seedSizes = []int{16, 4096}

// seedOptions are the extra option sets FuzzEscape's 16-byte corpus seeds get besides 0.
var seedOptions = []jsonopt.Options{
	jsonopt.UnescapedUnicode | jsonopt.UnescapedSlashes,
	jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot | jsonopt.InvalidUTF8Substitute,
	jsonopt.InvalidUTF8Ignore | jsonopt.UnescapedUnicode | jsonopt.UnescapedLineTerminators | jsonopt.PartialOutputOnError,
}

// generatedSeedPrefixes mark the files TestSeedCorpus owns; every other file in
// testdata/fuzz/<Target>/ (a crasher written by go test -fuzz, a finding copied there by
// hand) is left alone and replayed like the rest.
var generatedSeedPrefixes = []string{"corpus-", "regress-"}

// expectedSeeds returns the generated seed files by path: each named corpus at each seed size
// for every target (FuzzEscape under option set 0, and the 16-byte ones under seedOptions
// too) and every stored regression for its operation's target.
func expectedSeeds(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	add := func(op Op, name string, in []byte, flags jsonopt.Options) {
		out[filepath.Join("testdata", "fuzz", FuzzTarget(op), name)] = MarshalFuzzFile(op, in, flags)
	}
	for _, c := range corpus.All() {
		for _, size := range seedSizes {
			in := c.Make(size)
			name := "corpus-" + c.Name + "-" + corpus.SizeName(size)
			add(OpEscape, name, in, 0)
			add(OpDecode, name, in, 0)
			add(OpUTF8Decode, name, in, 0)
			if size == seedSizes[0] {
				for _, o := range seedOptions {
					add(OpEscape, fmt.Sprintf("%s-flags%d", name, uint32(o)), in, o)
				}
			}
		}
	}
	regs, err := corpus.Regressions()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range regs {
		add(Op(r.Op), "regress-"+r.Name, r.Input, jsonopt.Options(r.Flags))
	}
	return out
}

// TestSeedCorpus checks that the committed seed corpus of the native fuzz targets is what
// package corpus generates; with -update-seeds (`go generate ./fuzz`) it rewrites it.
func TestSeedCorpus(t *testing.T) {
	want := expectedSeeds(t)
	var stale []string
	for _, target := range []string{TargetEscape, TargetNextChar, TargetUTF8Decode} {
		dir := filepath.Join("testdata", "fuzz", target)
		ents, err := os.ReadDir(dir)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			for _, pre := range generatedSeedPrefixes {
				if strings.HasPrefix(e.Name(), pre) && want[p] == nil {
					stale = append(stale, p)
				}
			}
		}
	}
	sort.Strings(stale)
	paths := make([]string, 0, len(want))
	for p := range want {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if *updateSeeds {
		for _, p := range stale {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}
		written := 0
		for _, p := range paths {
			if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, want[p]) {
				continue
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, want[p], 0o644); err != nil {
				t.Fatal(err)
			}
			written++
		}
		t.Logf("seed corpus: %d files, %d written, %d stale removed", len(paths), written, len(stale))
		return
	}
	for _, p := range stale {
		t.Errorf("%s: generated seed no longer generated; run go generate ./fuzz", p)
	}
	for _, p := range paths {
		got, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%s: missing (%v); run go generate ./fuzz", p, err)
			continue
		}
		if !bytes.Equal(got, want[p]) {
			t.Errorf("%s: out of date; run go generate ./fuzz", p)
		}
	}
}

// TestRegressions replays every stored regression (corpus/regressions) against every
// implementation: a finding fixed once stays fixed.
func TestRegressions(t *testing.T) {
	regs, err := corpus.Regressions()
	if err != nil {
		t.Fatal(err)
	}
	cands := fuzzCands()
	for _, r := range regs {
		s := Saved{Path: "corpus/regressions/" + r.Name + ".txt", Ops: []Op{Op(r.Op)}, Input: r.Input, Flags: jsonopt.Options(r.Flags)}
		reportFindings(t, s.Replay(cands, nil))
	}
	t.Logf("%d regressions replayed against %d implementations", len(regs), len(cands))
}
