package fuzz

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/difffuzz/difffuzz/boundary"
	"github.com/difffuzz/difffuzz/internal/testlevel"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// boundarySample is the sample of the -short and default tiers: at most this many placements
// of each family.
const boundarySample = 1500

// TestBoundary runs, in the long tier (internal/testlevel), the whole boundary space
// (223,832,706 placements; see boundary.go) against every fast variant, with every memory
// check; make test runs that space as the product does (make boundary). Otherwise a
// deterministic sample of at most boundarySample placements per family. Every variant must
// pass.
func TestBoundary(t *testing.T) {
	cfg := BoundaryConfig{}
	if !testlevel.Long() {
		cfg.Sample = boundarySample
	}
	start := time.Now()
	rep, err := Boundary(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range BoundarySpace().Families() {
		t.Logf("family %-8s %s", f.Name, f.Doc)
	}
	for _, s := range rep.Spaces {
		if !s.Complete {
			t.Errorf("boundary %s incomplete", s.Op)
		}
		t.Logf("boundary %s: %d placements, %d cases × %d candidates (%d distinct): %d differences in %v",
			s.Op, s.Strings, s.Cases, len(s.Impls), s.Distinct, s.Differences, s.Elapsed)
	}
	t.Logf("guard pages: %v; total %v on %d CPUs", guardPages(), time.Since(start), runtime.GOMAXPROCS(0))
	if len(rep.Spaces) != len(AllOps) {
		t.Errorf("%d spaces, want %d", len(rep.Spaces), len(AllOps))
	}
	for _, f := range rep.Findings {
		t.Error(f)
	}
}

func guardPages() bool {
	b, err := boundary.NewBuffer(1)
	if err != nil {
		return false
	}
	defer b.Free()
	return b.Guarded()
}

// TestBoundaryPlanted proves the checker: each planted variant (planted_test.go) is reported
// by the boundary space, only with the finding kinds its defect explains, and each finding
// at the chunk and lane the defect predicts.
func TestBoundaryPlanted(t *testing.T) {
	if !guardPages() {
		t.Log("no guard pages: overread-tail cannot be caught")
	}
	sample := uint64(300)
	if testing.Short() {
		sample = 60
	}
	type expect struct {
		kinds map[Kind]bool
		check func(f *Finding) string // "" if the location is right
	}
	expects := map[string]expect{
		"overread-tail": {map[Kind]bool{KindReadPastEnd: true}, func(f *Finding) string {
			// The first byte past the end faults, or (aligned layout, end not flush) the
			// first byte of the guard page within the 16 bytes past the end.
			n := len(f.Input)
			if f.Loc.Off == n || (f.Loc.Layout == boundary.Aligned && f.Loc.Off > n && f.Loc.Off < n+16) {
				return ""
			}
			return "want the first byte past the end"
		}},
		"write-past-output": {map[Kind]bool{KindDstOverflow: true}, func(f *Finding) string {
			// One byte right after the returned output.
			var n int
			switch f.Op {
			case OpEscape:
				w, _ := Oracle.Escape(nil, f.Input, f.Flags)
				n = len(w)
			case OpUTF8Decode:
				n = len(Oracle.UTF8Decode(nil, f.Input))
			}
			if f.Loc.Output && f.Loc.Off == n {
				return ""
			}
			return "want output offset len(result)"
		}},
		"modifies-input": {map[Kind]bool{KindInputModified: true}, func(f *Finding) string {
			for i, b := range f.Input {
				if dirtyByte(b) && (f.Op != OpDecode || b >= 0x80) {
					if f.Loc.Off == i {
						return ""
					}
					break
				}
			}
			return "want the first dirty byte"
		}},
		"split-16": {map[Kind]bool{KindOutput: true, KindError: true, KindStep: true}, func(f *Finding) string {
			// The lead of the first oracle step that crosses a 16-byte edge. Under
			// JSON_INVALID_UTF8_IGNORE the truncated step and its orphaned continuation
			// bytes write nothing, so the two outputs can agree past them (15 clean bytes,
			// C3 A9, C3 A9 gives "é" against "éé": the first differing byte belongs to the
			// second é); there the finding is at or after the lead.
			for pos := 0; pos < len(f.Input); {
				st := Oracle.NextChar(f.Input, pos)
				if pos%16+st.Advance > 16 {
					if f.Loc.Off == pos {
						return ""
					}
					if f.Op == OpEscape && f.Kind == KindOutput && f.Flags&jsonopt.InvalidUTF8Ignore != 0 && f.Loc.Off > pos {
						return ""
					}
					break
				}
				pos += st.Advance
			}
			return "want the lead of the first sequence across a 16-byte edge"
		}},
		"skip-partial-chunk": {map[Kind]bool{KindOutput: true, KindError: true}, func(f *Finding) string {
			n := len(f.Input)
			if n%16 != 0 && f.Loc.Chunk == n/16 {
				return ""
			}
			return "want the last, partial chunk"
		}},
	}
	planted := plantedImpls()
	for _, fam := range BoundarySpace().Families() {
		t.Run(fam.Name, func(t *testing.T) {
			rep, err := Boundary(context.Background(), BoundaryConfig{
				Config:   Config{Impls: planted, MaxFindings: 200},
				Sample:   sample,
				Families: []string{fam.Name},
			})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for _, f := range rep.Findings {
				e, ok := expects[f.Impl]
				if !ok {
					t.Fatalf("finding for unknown implementation %q", f.Impl)
				}
				if f.Loc == nil {
					t.Errorf("%s: no location\n%s", f.Impl, f)
					continue
				}
				if !e.kinds[f.Kind] {
					t.Errorf("%s: unexpected kind %s\n%s", f.Impl, f.Kind, f)
					continue
				}
				if msg := e.check(f); msg != "" {
					t.Errorf("%s: %s at %s: %s\n%s", f.Impl, f.Kind, f.Loc, msg, f)
					continue
				}
				if want := boundary.Locate(f.Loc.Off); f.Loc.Chunk != want.Chunk || f.Loc.Lane != want.Lane {
					t.Errorf("%s: chunk %d lane %d for offset %d", f.Impl, f.Loc.Chunk, f.Loc.Lane, f.Loc.Off)
				}
				seen[f.Impl]++
			}
			t.Logf("%d placements, %d differences; checked findings per variant: %v", rep.Spaces[0].Strings, rep.Differences, seen)
			for name := range expects {
				if seen[name] == 0 && plantedCaughtIn(name, fam.Name) {
					t.Errorf("%s not caught by family %s", name, fam.Name)
				}
			}
		})
	}
}

// plantedCaughtIn says in which families a planted variant must be caught: everywhere its
// trigger occurs in the sample.
func plantedCaughtIn(name, family string) bool {
	switch name {
	case "overread-tail":
		return guardPages()
	case "write-past-output", "modifies-input", "skip-partial-chunk":
		return family != "clean" || name != "modifies-input"
	case "split-16":
		// Needs a sequence across a 16-byte edge: single units only where they straddle.
		// (the embedded strings are too rarely such a sequence for a sample to hold one).
		return family == "straddle" || family == "pair" || family == "triple" || family == "align" || family == "dst"
	}
	return true
}

// TestBoundaryPlantedFindings prints one finding of each planted variant, as a worked
// example of the report (go test -run PlantedFindings -v).
func TestBoundaryPlantedFindings(t *testing.T) {
	rep, err := Boundary(context.Background(), BoundaryConfig{
		Config:   Config{Impls: plantedImpls(), MaxFindings: 1, Ops: []Op{OpEscape}},
		Sample:   40,
		Families: []string{"straddle"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		t.Logf("\n%s", f)
		if f.Loc == nil || !strings.Contains(f.String(), "chunk ") {
			t.Errorf("finding without chunk and lane:\n%s", f)
		}
	}
}

// TestBoundaryCompose checks the shortcut the runner takes for single-unit placements: the
// oracle's answers assembled from the unit's own answers equal the oracle's answers for the
// whole input.
func TestBoundaryCompose(t *testing.T) {
	sp := BoundarySpace()
	for _, fam := range sp.Families() {
		s := fam.Sample(300)
		for _, op := range AllOps {
			bw := &bworker{op: op}
			for k := uint64(0); k < s.Len; k++ {
				bw.buf = fam.At(s.Index(k), &bw.p, bw.buf)
				x := bw.buf
				switch op {
				case OpEscape:
					for oi, o := range BoundaryOptions {
						got, gerr := bw.wantEscape(x, BoundaryOptions, oi)
						want, werr := Oracle.Escape(nil, x, o)
						if string(got) != string(want) || gerr != werr {
							t.Fatalf("%s: escape(% x, %s) composed %q %v, want %q %v", bw.p.String(), x, o, got, gerr, want, werr)
						}
					}
				case OpDecode:
					got := bw.wantSteps(x)
					want := oracleSteps(nil, x)
					if len(got) != len(want) {
						t.Fatalf("%s: %d steps composed, want %d", bw.p.String(), len(got), len(want))
					}
					for i := range got {
						if got[i] != want[i] {
							t.Fatalf("%s: step %d composed %v, want %v", bw.p.String(), i, got[i], want[i])
						}
					}
				default:
					got := bw.wantUTF8(x)
					if want := Oracle.UTF8Decode(nil, x); string(got) != string(want) {
						t.Fatalf("%s: utf8_decode composed %q, want %q", bw.p.String(), got, want)
					}
				}
			}
		}
	}
}

// TestBoundaryUnitsClean checks that the filler is clean for json_encode under every option
// set, so that composing and the filler's role as "nothing special" hold.
func TestBoundaryUnitsClean(t *testing.T) {
	for i := 0; i < jsonopt.NumStringCombos; i++ {
		o := jsonopt.Combo(i)
		got, err := Oracle.Escape(nil, []byte(boundaryFiller), o)
		if err != nil || string(got) != `"`+boundaryFiller+`"` {
			t.Fatalf("filler under %s: %q %v", o, got, err)
		}
	}
	if n := len(BoundaryUnits()); n != 97 {
		t.Errorf("%d units, want 97 (update the table in boundary.go)", n)
	}
}
