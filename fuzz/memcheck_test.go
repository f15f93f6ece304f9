package fuzz

import (
	"bytes"
	"testing"

	"github.com/difffuzz/difffuzz/boundary"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// TestCheckerMemory checks the Checker's memory checks on the planted variants it can see
// without guard pages: a write past the returned length and a change to the input; and that
// the built-in implementations pass them.
func TestCheckerMemory(t *testing.T) {
	var c Checker
	in := []byte("abc\"d\xc3\xa9")
	planted := plantedImpls()
	byName := map[string]Impl{}
	for _, im := range planted {
		byName[im.Name] = im
	}
	for _, op := range []Op{OpEscape, OpUTF8Decode} {
		fs := c.Check(nil, op, []Impl{byName["write-past-output"]}, in, jsonopt.InvalidUTF8Substitute)
		if len(fs) != 1 || fs[0].Kind != KindDstOverflow || fs[0].Loc == nil || !fs[0].Loc.Output {
			t.Fatalf("%s: write-past-output: %v", op, fs)
		}
		var want []byte
		if op == OpEscape {
			want, _ = Oracle.Escape(nil, in, jsonopt.InvalidUTF8Substitute)
		} else {
			want = Oracle.UTF8Decode(nil, in)
		}
		if fs[0].Loc.Off != len(want) {
			t.Errorf("%s: overflow at output offset %d, want %d\n%s", op, fs[0].Loc.Off, len(want), fs[0])
		}
	}
	for _, op := range AllOps {
		fs := c.Check(nil, op, []Impl{byName["modifies-input"]}, in, 0)
		if len(fs) != 1 || fs[0].Kind != KindInputModified {
			t.Errorf("%s: modifies-input: %v", op, fs)
		}
	}
	// The canary is restored: the built-ins pass, repeatedly, on inputs of every length.
	for n := 0; n < 80; n++ {
		x := bytes.Repeat([]byte("a\xe2\x82\xac<"), n)[:n]
		for _, op := range AllOps {
			if fs := c.Check(nil, op, Builtins(), x, jsonopt.StringOptions); len(fs) > 0 {
				t.Fatalf("%s(% x): %v", op, x, fs[0])
			}
		}
	}
}

// TestMemEnv checks the boundary space's guarded calls directly: each planted memory defect
// is classified with its kind and offset, and a correct call leaves no trace.
func TestMemEnv(t *testing.T) {
	e, err := newMemEnv(200, 2048)
	if err != nil {
		t.Fatal(err)
	}
	defer e.free()
	byName := map[string]Impl{}
	for _, im := range plantedImpls() {
		byName[im.Name] = im
	}
	x := []byte("0123456789abcdefghij\"") // 21 bytes: the dirty byte at 20
	for _, l := range []boundary.Layout{boundary.EndFlush, boundary.StartFlush} {
		got, p, iss, err := e.escape("oracle", Oracle.Escape, x, l, 0, 3, 200, 0)
		want, _ := Oracle.Escape(nil, x, 0)
		if string(got) != string(want) || err != nil || p != nil || len(iss) != 0 {
			t.Fatalf("%v: oracle: %q %v %v %v", l, got, err, p, iss)
		}
		_, p, iss, _ = e.escape("overread-tail", byName["overread-tail"].Escape, x, l, 0, 0, 200, 0)
		if l == boundary.EndFlush && e.guarded() {
			if len(iss) != 1 || iss[0].kind != KindReadPastEnd || iss[0].off != len(x) || p != nil {
				t.Errorf("overread-tail: %+v %v", iss, p)
			}
		} else if len(iss) != 0 {
			t.Errorf("overread-tail, %v: %+v", l, iss)
		}
		_, _, iss, _ = e.escape("write-past-output", byName["write-past-output"].Escape, x, l, 0, 5, 200, 0)
		if len(iss) != 1 || iss[0].kind != KindDstOverflow || iss[0].off != len(want) || !iss[0].output {
			t.Errorf("write-past-output: %+v", iss)
		}
		_, _, iss, _ = e.escape("modifies-input", byName["modifies-input"].Escape, x, l, 0, 0, 200, 0)
		if len(iss) != 1 || iss[0].kind != KindInputModified || iss[0].off != 20 {
			t.Errorf("modifies-input: %+v", iss)
		}
		// Nothing left behind: the oracle again, with no spare capacity at all.
		got, _, iss, _ = e.escape("oracle", Oracle.Escape, x, l, 0, 7, 0, 0)
		if string(got) != string(want) || len(iss) != 0 {
			t.Errorf("oracle after: %q %+v", got, iss)
		}
	}
}
