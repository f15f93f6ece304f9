package fuzz

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// Every byte class must be drawn in 10,000 draws, both straight from the weights and through
// the generator as campaigns use it (gofuzz filling Samples).
func TestEveryClassDrawn(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	counts := make([]int, len(classes))
	for i := 0; i < 10000; i++ {
		counts[mixedProfile.draw(r)]++
	}
	for i, c := range classes {
		if counts[i] == 0 {
			t.Errorf("class %q never drawn in 10,000 draws (weight %d of %d)", c.name, c.weight, mixedProfile.total)
		}
	}

	g := NewGenerator(1)
	var i uint64
	for g.Stats.Draws < 10000 {
		g.Sample(i)
		i++
	}
	for k, c := range classes {
		if g.Stats.Class[k] == 0 {
			t.Errorf("generator: class %q never drawn in %d draws (%d inputs)", c.name, g.Stats.Draws, i)
		}
	}
	for _, od := range optionOdds {
		k := 0
		for od.bit>>k != 1 {
			k++
		}
		if od.pct >= 5 && g.Stats.Option[k] == 0 {
			t.Errorf("option %s never drawn in %d inputs", od.bit, i)
		}
	}
	var b strings.Builder
	g.Stats.Write(&b)
	t.Logf("%d inputs:\n%s", i, b.String())
}

// Each class makes what its name says: valid classes decode without a failure; each invalid
// class's unit starts with one failing step of the advance its doc names (spec §2.2), and a
// truncated unit is one failing step to the end.
func TestClassesMatchSpec(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	wantAdvance := map[string]int{
		"bad 2: lead": 1, "bad 2: junk": 2, "bad 3: overlong": 3, "bad 3: surrogate": 3,
		"bad 3: lead@1": 1, "bad 3: lead@2": 2, "bad 3: junk": 3, "bad 4: overlong": 4, "bad 4: >U+10FFFF": 4,
		"bad 4: lead@1": 1, "bad 4: lead@2": 2, "bad 4: lead@3": 3, "bad 4: junk": 4,
		"bad trail": 1, "bad C0/C1": 1, "bad F5..FF": 1,
	}
	for _, c := range classes {
		for n := 0; n < 300; n++ {
			prefix := []byte("ab") // the unit's neighbours never change its steps
			u, stop := c.gen(r, prefix)
			u = u[len(prefix):]
			if stop != (c.name == "truncated") {
				t.Fatalf("%s: stop = %v", c.name, stop)
			}
			switch {
			case c.name == "corpus":
			case !c.invalid:
				if !utf8.Valid(u) {
					t.Fatalf("%s: % x is not valid UTF-8", c.name, u)
				}
				if c.name == "clean-run" && bytes.ContainsAny(u, "\"&'/<>\\\x00\x1f\x80") {
					t.Fatalf("%s: % x has a dirty byte", c.name, u)
				}
			case c.name == "truncated":
				st := Oracle.NextChar(u, 0)
				if st.OK || st.Advance != len(u) {
					t.Fatalf("%s: % x: step %v, want one failure over all %d bytes", c.name, u, st, len(u))
				}
			default:
				st := Oracle.NextChar(u, 0)
				if st.OK || st.Advance != wantAdvance[c.name] {
					t.Fatalf("%s: % x: first step %v, want failure advancing %d", c.name, u, st, wantAdvance[c.name])
				}
			}
		}
	}
}

// Input i of a seed is the same whatever was generated before it; different seeds differ.
func TestGeneratorReproducible(t *testing.T) {
	a, b := NewGenerator(7), NewGenerator(7)
	var forward []Sample
	for i := uint64(0); i < 200; i++ {
		forward = append(forward, a.Sample(i))
	}
	for i := 199; i >= 0; i-- {
		s := b.Sample(uint64(i))
		if !bytes.Equal(s.Input, forward[i].Input) || s.Opts != forward[i].Opts {
			t.Fatalf("input %d differs when generated out of order", i)
		}
	}
	c := NewGenerator(8)
	same := 0
	for i := uint64(0); i < 200; i++ {
		if bytes.Equal(c.Sample(i).Input, forward[i].Input) {
			same++
		}
	}
	if same > 30 { // short inputs can coincide
		t.Errorf("seeds 7 and 8 share %d of 200 inputs", same)
	}
}

// The generated lengths reach past three 64-byte chunks and the valid-only profile never
// makes invalid UTF-8.
func TestGeneratorShape(t *testing.T) {
	g := NewGenerator(3)
	var long, edge, invalid int
	for i := uint64(0); i < 5000; i++ {
		s := g.Sample(i)
		if len(s.Input) > DefaultMaxLen {
			t.Fatalf("input %d: %d bytes > %d", i, len(s.Input), DefaultMaxLen)
		}
		if len(s.Input) > 3*64 {
			long++
		}
		if n := len(s.Input); n >= 12 && n%16 <= 4 || n%16 >= 12 {
			edge++
		}
		if !utf8.Valid(s.Input) {
			invalid++
		}
	}
	if long < 100 || edge < 1000 || invalid < 1000 || invalid > 4000 {
		t.Errorf("5,000 inputs: %d longer than 192 bytes, %d near a 16-byte edge, %d invalid", long, edge, invalid)
	}
	r := rand.New(rand.NewSource(4))
	for i := 0; i < 5000; i++ {
		if in := appendInput(r, nil, true, 300, nil); !utf8.Valid(in) {
			t.Fatalf("valid profile made % x", in)
		}
	}
	_ = jsonopt.Options(0)
}
