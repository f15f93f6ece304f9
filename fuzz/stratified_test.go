package fuzz

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// laneLastFaults are the offsets at which the lane-last-w fault strikes in x under o: ASCII
// bytes that start a decoder step, sit in the last lane of a w-byte block (p%w == w-1) and
// are escaped by json_encode under o (", \, a control byte, / without UNESCAPED_SLASHES, ...).
func laneLastFaults(x []byte, o jsonopt.Options, w int) []int {
	var out []int
	var buf []byte
	for p := 0; p < len(x); {
		if x[p] >= 0x80 {
			p += Oracle.NextChar(x, p).Advance
			continue
		}
		if p%w == w-1 {
			buf, _ = Oracle.Escape(buf[:0], x[p:p+1], o)
			if len(buf) > 3 {
				out = append(out, p)
			}
		}
		p++
	}
	return out
}

// laneLastEscape is the oracle's escape with an output-only fault, as an external target
// would have it: where laneLastFaults says, the byte is written raw instead of escaped.
// Everything else (errors included) is the oracle's answer: the output is the oracle's
// escape of the pieces between the faulty bytes (each a run of whole decoder steps, whose
// output depends on their own bytes only), with the raw bytes between them.
func laneLastEscape(w int) func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
	return func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
		start := len(dst)
		out, err := Oracle.Escape(dst, src, o)
		if err != nil || out[start] != '"' { // an error, or a number under NUMERIC_CHECK
			return out, err
		}
		return append(dst[:start], laneLastRebuild(src, o, laneLastFaults(src, o, w))...), nil
	}
}

// laneLastRebuild is json_encode's answer for x under o with the bytes at faults raw (x must
// escape without an error under o).
func laneLastRebuild(x []byte, o jsonopt.Options, faults []int) []byte {
	res := []byte{'"'}
	var piece []byte
	from := 0
	for _, p := range append(faults, len(x)) {
		piece, _ = Oracle.Escape(piece[:0], x[from:p], o&^jsonopt.NumericCheck) // a piece of a string
		res = append(res, piece[1:len(piece)-1]...)
		if p < len(x) {
			res = append(res, x[p])
		}
		from = p + 1
	}
	return append(res, '"')
}

// laneLastHit reports whether the lane-last-w target answers c wrongly.
func laneLastHit(c Case, w int) bool {
	if c.Op != OpEscape {
		return false
	}
	if _, err := Oracle.Escape(nil, c.Input, c.Flags); err != nil {
		return false
	}
	return len(laneLastFaults(c.Input, c.Flags&^jsonopt.NumericCheck, w)) > 0
}

// The planted fault is output-only and exactly where it says: rebuilt without faults the
// answer is the oracle's, with them it differs.
func TestLaneLastFault(t *testing.T) {
	inputs := [][]byte{[]byte(`0123456789abcde"`), []byte("\xe2\x82\xac\"/\\\x01abc\xc3\xa9\xff\xe2\x82x\"")}
	for _, si := range stratifiedInputs() {
		inputs = append(inputs, si.Input)
	}
	for _, x := range inputs {
		for _, o := range append(append([]jsonopt.Options{}, StratifiedOptions...), BoundaryOptions...) {
			want, err := Oracle.Escape(nil, x, o)
			if err != nil {
				continue
			}
			if got := laneLastRebuild(x, o, nil); string(got) != string(want) {
				t.Fatalf("rebuild of %x under %v = %q, oracle %q", x, o, got, want)
			}
			for _, w := range StratifiedWidths {
				got, _ := laneLastEscape(w)(nil, x, o)
				if hit := laneLastHit(Case{Op: OpEscape, Input: x, Flags: o}, w); hit == (string(got) == string(want)) {
					t.Fatalf("lane-last-%d on %x under %v: hit %v, answer %q, oracle %q", w, x, o, hit, got, want)
				}
			}
		}
	}
	got, _ := laneLastEscape(16)(nil, []byte(`0123456789abcde"x`), 0)
	require.Equal(t, `"0123456789abcde"x"`, string(got))
}

// The stratified edge inputs: their number, and every (unit, width, position, length, edge)
// that fits is among them.
func TestStratifiedInputs(t *testing.T) {
	list := stratifiedInputs()
	have := map[string]bool{}
	for _, si := range list {
		require.False(t, have[string(si.Input)], "duplicate input %x", si.Input)
		have[string(si.Input)] = true
	}
	// Built again, independently: each combination's input must be in the list, and the list
	// holds nothing else.
	fill := func(n int) []byte {
		x := make([]byte, n)
		for i := range x {
			x[i] = BoundarySpace().Filler(i)
		}
		return x
	}
	want := map[string]bool{}
	perClass := map[string]int{} // unit class, width, position -> combinations
	for _, u := range BoundaryUnits() {
		m := len(u.Bytes)
		for _, w := range []int{16, 32, 64} {
			for _, l := range []int{w, w + 1, 2 * w, 2*w + 1} {
				for _, e := range []int{w, 2 * w} {
					place := func(pos string, o int) {
						if o < 0 || o+m > l {
							return
						}
						x := fill(l)
						copy(x[o:], u.Bytes)
						if !have[string(x)] {
							t.Errorf("unit %s, width %d, length %d, edge %d, %s (offset %d): missing", u.Name, w, l, e, pos, o)
						}
						want[string(x)] = true
						perClass[fmt.Sprintf("%s/%d/%s", u.Class, w, pos)]++
					}
					place("end", e-m)
					place("start", e)
					for s := 1; s < m; s++ {
						place("straddle", e-s)
					}
				}
			}
		}
	}
	assert.Equal(t, len(want), len(list), "stratified inputs")
	assert.Equal(t, 2904, len(list), "stratified inputs (97 units)")
	assert.Equal(t, len(list), StratifiedEdgeInputs())
	// Every class reaches every width in every position its units can take (single bytes
	// cannot straddle).
	for _, class := range []string{"dirty-ascii", "clean-edge", "utf8-2", "utf8-3", "utf8-4", "invalid/truncated", "invalid/f5-ff", "latin1-edge"} {
		for _, w := range StratifiedWidths {
			for _, pos := range []string{"end", "start", "straddle"} {
				n := perClass[fmt.Sprintf("%s/%d/%s", class, w, pos)]
				if pos == "straddle" && (class == "dirty-ascii" || class == "clean-edge" || class == "invalid/f5-ff") {
					assert.Zero(t, n, "%s %d %s", class, w, pos)
				} else {
					assert.NotZero(t, n, "%s %d %s", class, w, pos)
				}
			}
		}
	}
	// The examples of the issue: an invalid byte as the last byte of a 64-byte block, a lead
	// byte in the last lane of a 32-byte block, a quote in the tail after the last full chunk.
	ff64 := fill(64)
	ff64[63] = 0xFF
	lead32 := fill(33)
	lead32[31] = 0xC3
	quoteTail := fill(33)
	quoteTail[32] = '"'
	for name, x := range map[string][]byte{"FF at 63 of 64": ff64, "C3 at 31 of 33": lead32, `" at 32 of 33`: quoteTail} {
		assert.True(t, have[string(x)], name)
	}
	// The escape space starts with them, each under the three option sets.
	sp := BoundaryTargetSpaces([]Op{OpEscape}, nil, DefaultTargetBoundarySample, 0, 1)[0]
	i := 0
	for c := range sp.Seq {
		if i == 3*len(list) {
			break
		}
		if string(c.Input) != string(list[i/3].Input) || c.Flags != StratifiedOptions[i%3] {
			t.Fatalf("escape case %d = %x under %v, want %x under %v", i, c.Input, c.Flags, list[i/3].Input, StratifiedOptions[i%3])
		}
		i++
	}
	assert.Equal(t, []jsonopt.Options{0, jsonopt.PartialOutputOnError, jsonopt.InvalidUTF8Substitute}, StratifiedOptions)
}

// targetCases collects the cases of spaces, checking each yields its Total.
func targetCases(t *testing.T, spaces []TargetSpace) (map[string]int, uint64, uint64) {
	t.Helper()
	cases := map[string]int{}
	var strs, total uint64
	for _, sp := range spaces {
		var n uint64
		for c := range sp.Seq {
			cases[fmt.Sprintf("%s %v %x", c.Op, c.Flags, c.Input)]++
			n++
		}
		if n != sp.Total {
			t.Errorf("%s %s: %d cases, Total %d", sp.Space, sp.Op, n, sp.Total)
		}
		strs += sp.Strings
		total += sp.Total
	}
	return cases, strs, total
}

// --shard deals the stratified inputs with the placements: the parts are disjoint and
// together the unsharded space.
func TestBoundaryTargetShards(t *testing.T) {
	for _, tc := range []struct {
		sample uint64
		fams   []string
		shards int
	}{{DefaultTargetBoundarySample, nil, 3}, {40, nil, 7}, {40, []string{"edge", "pair"}, 2}} {
		whole, wantS, wantT := targetCases(t, BoundaryTargetSpaces(AllOps, tc.fams, tc.sample, 0, 1))
		union := map[string]int{}
		var strs, total uint64
		for k := 0; k < tc.shards; k++ {
			part, s, n := targetCases(t, BoundaryTargetSpaces(AllOps, tc.fams, tc.sample, k, tc.shards))
			require.NotZero(t, n, "shard %d/%d", k, tc.shards)
			for c, m := range part {
				union[c] += m
			}
			strs += s
			total += n
		}
		assert.Equal(t, wantS, strs, "strings, sample %d, %d shards", tc.sample, tc.shards)
		assert.Equal(t, wantT, total, "cases, sample %d, %d shards", tc.sample, tc.shards)
		assert.Equal(t, len(whole), len(union), "distinct cases, sample %d, %d shards", tc.sample, tc.shards)
		for c, m := range whole {
			if union[c] != m {
				t.Fatalf("sample %d, %d shards: case %s %d times in the shards, %d in the whole", tc.sample, tc.shards, c, union[c], m)
			}
		}
	}
}

// The counts of the external target's boundary space: the default sample, the whole space
// (--boundary-sample 0, not run), a narrowed family list (no stratified inputs).
func TestBoundaryTargetCounts(t *testing.T) {
	strat := uint64(StratifiedEdgeInputs())
	total := func(sps []TargetSpace) map[Op][2]uint64 {
		out := map[Op][2]uint64{}
		for _, sp := range sps {
			out[sp.Op] = [2]uint64{sp.Strings, sp.Total}
		}
		return out
	}
	var famCases uint64 // the whole space's escape cases, from the families
	for _, f := range BoundarySpace().Families() {
		opts, rotate := familyOptions(&BoundaryConfig{}, f)
		if rotate {
			famCases += f.Len()
		} else {
			famCases += f.Len() * uint64(len(opts))
		}
	}
	n := BoundarySpace().Len()
	require.Equal(t, uint64(223_832_706), n)
	require.Equal(t, uint64(316_038_680), famCases)
	assert.Equal(t, map[Op][2]uint64{
		OpEscape:     {strat + n, 3*strat + famCases},
		OpDecode:     {strat + n, strat + n},
		OpUTF8Decode: {strat + n, strat + n},
	}, total(BoundaryTargetSpaces(AllOps, nil, 0, 0, 1)), "--boundary-sample 0")
	assert.Equal(t, map[Op][2]uint64{
		OpEscape:     {strat + 9123, 3*strat + 98_476},
		OpDecode:     {strat + 9123, strat + 9123},
		OpUTF8Decode: {strat + 9123, strat + 9123},
	}, total(BoundaryTargetSpaces(AllOps, nil, DefaultTargetBoundarySample, 0, 1)), "default sample")
	edge := BoundarySpace().Family("edge").Len()
	assert.Equal(t, map[Op][2]uint64{OpDecode: {edge, edge}},
		total(BoundaryTargetSpaces([]Op{OpDecode}, []string{"edge"}, 0, 0, 1)), "--boundary-families edge --boundary-sample 0")
	for _, c := range BoundaryTargetCounts(AllOps, nil, 5, 0, 1) {
		assert.Equal(t, strat, c.StratifiedInput)
		assert.Equal(t, 10, c.Families)
	}
}

// The default --exec campaign (exhaustive part, boundary part, 50,000 random inputs per
// operation: cmd/difffuzz's defaultRandomCount) stays within 3 minutes at 20,000 requests a
// second.
func TestDefaultTargetCampaignBudget(t *testing.T) {
	const random, budget = 50_000, 3 * 60 * 20_000
	requests := func(ops []Op) uint64 {
		var n uint64
		for _, sp := range DefaultTargetSpaces(ops) {
			n += sp.Total
		}
		for _, sp := range BoundaryTargetSpaces(ops, nil, DefaultTargetBoundarySample, 0, 1) {
			n += sp.Total
		}
		return n + random*uint64(len(ops))
	}
	php := requests([]Op{OpEscape, OpUTF8Decode}) // what the PHP adapter announces
	all := requests(AllOps)
	t.Logf("default --exec campaign: %d requests (escape, utf8_decode), %d (all three operations); budget %d", php, all, budget)
	assert.Equal(t, uint64(1_333_583), php)
	assert.Equal(t, uint64(1_461_402), all)
	assert.Less(t, all, uint64(budget))
}

// Targets that write a special byte in the last lane of a 16-, 32- or 64-byte block raw are
// caught by the default boundary part of an --exec campaign; the stratified inputs catch
// each, whatever the uniform sample holds.
func TestLaneLastTargets(t *testing.T) {
	strat := map[int]int{}   // width -> escape cases of the stratified part that trigger
	uniform := map[int]int{} // the same for the uniform sample alone (the campaign before)
	fams := boundaryFamilies(nil)
	for _, w := range StratifiedWidths {
		for c := range boundaryCases(OpEscape, true, nil, 0, 0, 1, ^jsonopt.Options(0)) {
			if laneLastHit(c, w) {
				strat[w]++
			}
		}
		for c := range boundaryCases(OpEscape, false, fams, DefaultTargetBoundarySample, 0, 1, ^jsonopt.Options(0)) {
			if laneLastHit(c, w) {
				uniform[w]++
			}
		}
		t.Logf("lane-last-%d: %d stratified escape cases trigger it, %d of the uniform sample", w, strat[w], uniform[w])
		assert.NotZero(t, strat[w], "lane-last-%d: the stratified inputs miss it", w)
	}
	if testing.Short() {
		t.Skip("runs the boundary part through three target processes")
	}
	spaces := BoundaryTargetSpaces([]Op{OpEscape, OpUTF8Decode}, nil, DefaultTargetBoundarySample, 0, 1)
	for _, w := range StratifiedWidths {
		t.Run(fmt.Sprintf("lane-last-%d", w), func(t *testing.T) {
			tg := fakeTarget(t, fmt.Sprintf("lane-last-%d", w))
			rep, err := RunTarget(context.Background(), tg, spaces, nil)
			require.NoError(t, err)
			require.Len(t, rep.Spaces, 2)
			for _, sp := range rep.Spaces {
				assert.True(t, sp.Complete, "%s %s", sp.Space, sp.Op)
			}
			assert.Equal(t, uint64(strat[w]+uniform[w]), rep.Differences, "differences")
			require.NotEmpty(t, rep.Findings)
			for _, f := range rep.Findings {
				if f.Op != OpEscape || f.Kind != KindOutput || !laneLastHit(Case{Op: f.Op, Input: f.Input, Flags: f.Flags}, w) {
					t.Errorf("unexpected finding:\n%v", f)
				}
			}
		})
	}
}

// The (unit, width, position) strata: the unit's bytes ending at, starting at or straddling
// (at each split point) a multiple of the width. The stratified inputs hold every one; the
// uniform sample, counted for comparison, leaves some empty (a fault that only one unit at one
// edge shows is then left to chance).
func TestStratifiedStrata(t *testing.T) {
	units := BoundaryUnits()
	strata := func(x []byte, seen map[string]bool) {
		for ui := range units {
			u := units[ui].Bytes
			m := len(u)
			for o := 0; o+m <= len(x); o++ {
				if x[o] != u[0] || string(x[o:o+m]) != string(u) {
					continue
				}
				for _, w := range StratifiedWidths {
					if (o+m)%w == 0 {
						seen[fmt.Sprintf("%d/%d/end", ui, w)] = true
					}
					if o > 0 && o%w == 0 {
						seen[fmt.Sprintf("%d/%d/start", ui, w)] = true
					}
					for s := 1; s < m; s++ {
						if (o+s)%w == 0 {
							seen[fmt.Sprintf("%d/%d/split%d", ui, w, s)] = true
						}
					}
				}
			}
		}
	}
	all := 0
	for _, u := range units {
		all += len(StratifiedWidths) * (2 + len(u.Bytes) - 1)
	}
	strat, uniform := map[string]bool{}, map[string]bool{}
	for _, si := range stratifiedInputs() {
		strata(si.Input, strat)
	}
	for c := range boundaryCases(OpDecode, false, boundaryFamilies(nil), DefaultTargetBoundarySample, 0, 1, ^jsonopt.Options(0)) {
		strata(c.Input, uniform)
	}
	t.Logf("(unit, width, position) strata: %d; the stratified inputs hold %d, the uniform sample %d", all, len(strat), len(uniform))
	assert.Equal(t, all, len(strat))
	assert.Less(t, len(uniform), all)
}
