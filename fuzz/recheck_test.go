package fuzz

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/mutation/hook"
)

// fakeSchema stands for a mutant schema tracing mutant 7 (which diverges on every input
// holding a 0xE0 byte) and mutant 8 (which diverges on 0xE0 too but is masked: its result is
// the original's).
type fakeSchema struct {
	active   int
	inCall   bool
	diverged []int
	differs  map[int]map[string]any
	outside  int
}

func (f *fakeSchema) Begin()          { f.inCall, f.diverged = true, nil }
func (f *fakeSchema) End()            { f.inCall, f.diverged = false, nil }
func (f *fakeSchema) Diverged() []int { return f.diverged }
func (f *fakeSchema) Rerun(id int)    { f.active = id }
func (f *fakeSchema) Done()           { f.active = 0 }
func (f *fakeSchema) Differs(id int, rec map[string]any) {
	if f.differs[id] == nil {
		f.differs[id] = rec
	}
}
func (f *fakeSchema) Hang(*func() map[string]any) {}

// see is what a schema's traced expression does: it diverges for mutants 7 and 8 on 0xE0.
func (f *fakeSchema) see(b byte) {
	if b != 0xE0 || f.active != 0 {
		return
	}
	if !f.inCall {
		f.outside++
		return
	}
	f.diverged = append(f.diverged, 7, 8)
}

// TestRecheck runs the exhaustive utf8_decode space over the oracle wrapped as a candidate
// whose mutant 7 turns 0xE0 into 'X' and whose mutant 8 changes nothing visible: the recheck
// must record 7 with its witness (the original's result wanted) and not 8, run on one worker,
// and keep candidates that share a function sharing it.
func TestRecheck(t *testing.T) {
	f := &fakeSchema{differs: map[int]map[string]any{}}
	hook.Active = f
	defer func() { hook.Active = nil }()
	decode := func(dst, src []byte) []byte {
		for _, b := range src {
			f.see(b)
		}
		out := Oracle.UTF8Decode(dst, src)
		if f.active == 7 {
			for i := len(dst); i < len(out); i++ {
				if src[0] == 0xE0 {
					out[i] = 'X'
				}
			}
		}
		return out
	}
	a := Impl{Name: "a", UTF8Decode: decode}
	b := Impl{Name: "b", UTF8Decode: decode}
	workers := 2
	wrapped := recheck([]Impl{a, b}, &workers)
	assert.Equal(t, 1, workers, "the active mutant is a package variable: one worker")
	assert.Len(t, distinctFuncs(OpUTF8Decode, wrapped, -1), 1, "a and b still share their function")

	rep, err := Exhaustive(context.Background(), ExhaustiveConfig{Config: Config{Ops: []Op{OpUTF8Decode}, Impls: []Impl{a, b}}, MaxLen: 1})
	require.NoError(t, err)
	assert.Zero(t, rep.Differences, "the original (no mutant active) agrees with the oracle")
	require.Contains(t, f.differs, 7)
	assert.NotContains(t, f.differs, 8, "masked: its re-run returns the original's result")
	assert.Equal(t, "e0", f.differs[7]["input"])
	assert.Equal(t, "3f", f.differs[7]["want"], "the original's result: utf8_decode writes ? for a lone E0")
	assert.Equal(t, "58", f.differs[7]["got"])
	assert.Equal(t, "output", f.differs[7]["how"])
	assert.Zero(t, f.outside)

	// Without a tracing schema nothing is wrapped.
	hook.Active = nil
	workers = 2
	same := recheck([]Impl{a}, &workers)
	assert.Equal(t, 2, workers)
	assert.Equal(t, funcPtr(a.UTF8Decode), funcPtr(same[0].UTF8Decode))

	// A re-run that writes past its result into dst's spare capacity differs too.
	d := canaryDst(new([]byte), 2)
	got := append(d, 'a', 'b', 'c')[:2]
	assert.Equal(t, "spare capacity written", rerunDiffers(got, []byte("ab"), d, nil, nil))
	assert.Equal(t, "", rerunDiffers(append(canaryDst(new([]byte), 2), 'a', 'b'), []byte("ab"), d, nil, nil))
	assert.Equal(t, "input modified", rerunDiffers(nil, nil, canaryDst(new([]byte), 0), []byte("x"), []byte("y")))

	// The re-runs share one dst array: what a longer re-run wrote past a shorter one's room is
	// out of the shorter one's reach, not taken for its own write.
	var buf []byte
	long := canaryDst(&buf, 40)
	long = append(long, bytes.Repeat([]byte{'x'}, cap(long))...)
	short := canaryDst(&buf, 2)
	assert.Same(t, &long[0], &short[:1][0], "one array")
	assert.Equal(t, 18, cap(short))
	assert.Equal(t, "", rerunDiffers(append(short, 'a', 'b'), []byte("ab"), short, nil, nil))
}
