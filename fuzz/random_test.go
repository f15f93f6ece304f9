package fuzz

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// plantedTriggers is the length of the shortest input that triggers each planted defect, as
// planted_test.go documents it: a minimized finding must be no longer.
var plantedTriggers = map[string]int{
	"overread-tail":      1,
	"write-past-output":  0,
	"modifies-input":     1,
	"split-16":           17,
	"skip-partial-chunk": 1,
}

// Each planted defect (issue 4) must be found by the random space within 100,000 inputs, and
// minimized to at most the length of its trigger, for each of ten seeds. The number of
// inputs each took is logged (go test -v -run TestRandomFindsPlanted ./fuzz).
func TestRandomFindsPlanted(t *testing.T) {
	for _, im := range plantedImpls() {
		if raceEnabled && im.Name == "overread-tail" {
			// Its over-reads of a heap input (the Checker's pass) trip checkptr, which -race
			// turns on, and checkptr ends the process; the guard-page pass alone is safe.
			t.Logf("planted %s: skipped under -race (checkptr)", im.Name)
			continue
		}
		trigger, ok := plantedTriggers[im.Name]
		if !ok {
			t.Errorf("planted %q: no trigger length recorded in plantedTriggers", im.Name)
			continue
		}
		var took []uint64
		longest := 0
		var example *Finding
		for seed := int64(1); seed <= 10; seed++ {
			res, err := Random(context.Background(), RandomConfig{
				Config:      Config{Impls: []Impl{im}, Workers: 2, MaxFindings: 3},
				Seed:        seed,
				Count:       100000,
				StopAtFirst: true,
			})
			if err != nil {
				t.Fatal(err)
			}
			n, found := res.First[im.Name]
			if !found {
				t.Errorf("planted %q: not found in %d random inputs of seed %d", im.Name, res.Inputs, seed)
				continue
			}
			took = append(took, n)
			for _, f := range res.Findings {
				longest = max(longest, len(f.Input))
				if len(f.Input) > trigger {
					t.Errorf("planted %q, seed %d: finding minimized to %d bytes, its trigger has %d:\n%s", im.Name, seed, len(f.Input), trigger, f)
				}
				if example == nil || len(f.Input) < len(example.Input) {
					example = f
				}
			}
		}
		if example == nil {
			continue
		}
		t.Logf("planted %-18s inputs to find it, seeds 1..10: %v; minimized to at most %d bytes (trigger %d), e.g. %s %s %x flags %d",
			im.Name, took, longest, trigger, example.Op, example.Kind, example.Input, uint32(example.Flags))
	}
}

// A campaign is reproducible: the same seed and count give the same inputs, findings and
// statistics whatever the number of workers, and a duration budget reports a count that
// reproduces it.
func TestRandomReproducible(t *testing.T) {
	planted := plantedImpls()
	var split Impl
	for _, im := range planted {
		if im.Name == "split-16" {
			split = im
		}
	}
	run := func(workers int) *RandomResult {
		res, err := Random(context.Background(), RandomConfig{Config: Config{Impls: []Impl{split}, Workers: workers, MaxFindings: 5}, Seed: 42, Count: 3000})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(1), run(3)
	if a.Inputs != 3000 || b.Inputs != 3000 {
		t.Fatalf("inputs %d and %d, want 3000", a.Inputs, b.Inputs)
	}
	if a.Differences == 0 || a.Differences != b.Differences || len(a.Findings) != len(b.Findings) {
		t.Fatalf("differences %d vs %d, findings %d vs %d", a.Differences, b.Differences, len(a.Findings), len(b.Findings))
	}
	for i := range a.Findings {
		if a.Findings[i].String() != b.Findings[i].String() {
			t.Errorf("finding %d differs:\n%s\n%s", i, a.Findings[i], b.Findings[i])
		}
	}
	var sa, sb strings.Builder
	a.Stats.Write(&sa)
	b.Stats.Write(&sb)
	if sa.String() != sb.String() {
		t.Errorf("statistics differ with 1 and 3 workers")
	}
	if !strings.Contains(a.Repro(), "--random 3000x --seed 42") {
		t.Errorf("Repro() = %q", a.Repro())
	}

	// A duration budget covers inputs 0..n-1 exactly.
	d, err := Random(context.Background(), RandomConfig{Config: Config{Impls: []Impl{split}, Workers: 2}, Seed: 42, Duration: 50 * time.Millisecond, NoMinimize: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Random(context.Background(), RandomConfig{Config: Config{Impls: []Impl{split}, Workers: 1}, Seed: 42, Count: d.Inputs, NoMinimize: true})
	if err != nil {
		t.Fatal(err)
	}
	if d.Inputs == 0 || d.Differences != c.Differences {
		t.Errorf("duration run: %d inputs, %d differences; count run: %d differences", d.Inputs, d.Differences, c.Differences)
	}
}

// The built-in implementations agree with the oracle on a short random campaign (the long
// ones are make fuzz and difffuzz --random).
func TestRandomBuiltins(t *testing.T) {
	n := uint64(20000)
	if testing.Short() {
		n = 2000
	}
	res, err := Random(context.Background(), RandomConfig{Seed: 1, Count: n})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		t.Error(f)
	}
	if res.Inputs != n || len(res.Spaces) != 3 {
		t.Errorf("%d inputs, %d spaces", res.Inputs, len(res.Spaces))
	}
}

// Minimization is delta debugging on bytes, then option bits: a defect needing an x, a y and
// HEX_TAG shrinks to "xy" under HEX_TAG alone, wherever they were.
func TestMinimize(t *testing.T) {
	bug := Impl{Name: "xy-bug", Escape: func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
		out, err := Oracle.Escape(dst, src, o)
		if o&jsonopt.HexTag != 0 && bytes.IndexByte(src, 'x') >= 0 && bytes.IndexByte(src, 'y') > bytes.IndexByte(src, 'x') {
			out = append(out, '!')
		}
		return out, err
	}}
	in := []byte("a long input with x somewhere and then a y, far apart: \xc3\xa9\xe2\x80\xa8 end")
	var c Checker
	fs := c.Escape(nil, []Impl{bug}, in, jsonopt.HexTag|jsonopt.UnescapedUnicode|jsonopt.InvalidUTF8Substitute|jsonopt.HexQuot)
	if len(fs) != 1 {
		t.Fatalf("%d findings", len(fs))
	}
	fs[0].Origin = "test"
	m := Minimize(fs[0], bug, nil)
	if string(m.Input) != "xy" && string(m.Input) != "ay" && string(m.Input) != "xa" || m.Flags != jsonopt.HexTag || m.Kind != KindOutput {
		t.Errorf("minimized to %q flags %v kind %s", m.Input, m.Flags, m.Kind)
	}
	if !strings.HasPrefix(m.Origin, "test; minimized from 64 to 2 bytes, options from 4 to 1 bits") {
		t.Errorf("origin %q", m.Origin)
	}
	// A finding the candidate does not reproduce is returned as it is.
	if g := Minimize(fs[0], Oracle, nil); g != fs[0] {
		t.Errorf("unreproducible finding changed: %v", g)
	}
}

// A candidate that offers only some operations is checked on those alone.
func TestRandomPartialImpl(t *testing.T) {
	escOnly := Impl{Name: "escape-only", Escape: Oracle.Escape}
	res, err := Random(context.Background(), RandomConfig{Config: Config{Impls: []Impl{escOnly}}, Seed: 3, Count: 500})
	if err != nil {
		t.Fatal(err)
	}
	if res.Differences != 0 || len(res.Spaces) != 1 || res.Spaces[0].Op != OpEscape {
		t.Errorf("%d differences, spaces %+v", res.Differences, res.Spaces)
	}
}
