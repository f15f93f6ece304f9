package fuzz

import (
	"iter"
	"sync"

	"github.com/difffuzz/difffuzz/boundary"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// The boundary space of an external target (--exec) is far too large to send whole (301
// million escape requests), so by default it is a sample: first the stratified edge inputs
// below, which put every unit right at the 16-, 32- and 64-byte edges where SIMD code
// handles its last lane and its tail (an invalid byte as the last byte of a 64-byte block,
// simdjson #1169; a lead byte in the last lane of a 32-byte block, simd-json #166; a quote in
// the tail after the last full chunk), then a uniform sample of DefaultTargetBoundarySample
// placements of each family. A uniform sample alone leaves those few placements to chance.

// StratifiedWidths are the block widths of the stratified edge inputs.
var StratifiedWidths = []int{16, 32, 64}

// StratifiedOptions are the option sets escape runs each stratified edge input under: the
// default, the error mode with output (PARTIAL_OUTPUT_ON_ERROR) and substitution.
var StratifiedOptions = []jsonopt.Options{
	0,
	jsonopt.PartialOutputOnError,
	jsonopt.InvalidUTF8Substitute,
}

// stratInput is one stratified edge input: unit u at offset Off of an input of len(Input)
// bytes of clean filler, placed relative to edge Edge of width Width (the first of the
// combinations that make this input; duplicates are dropped).
type stratInput struct {
	Input []byte
	Unit  *boundary.Unit
	Width int
	Edge  int
	Off   int
}

var (
	stratOnce sync.Once
	stratList []stratInput
)

// stratifiedInputs are the stratified edge inputs, in a fixed order: for every unit of
// BoundaryUnits (m bytes), every width W of StratifiedWidths, every input length L in {W,
// W+1, 2W, 2W+1} and every edge E in {W, 2W}, the unit ending exactly at E (bytes [E-m, E)),
// starting exactly at E, and straddling E at every split point (bytes [E-s, E-s+m) for s =
// 1..m-1), wherever it fits in [0, L); the rest of the input is the clean filler of the
// boundary families. An input made by several combinations (the 32-byte edge is both 2×16
// and 32) is kept once, at its first.
func stratifiedInputs() []stratInput {
	stratOnce.Do(func() {
		units := BoundaryUnits()
		seen := map[string]bool{}
		for ui := range units {
			u := &units[ui]
			m := len(u.Bytes)
			for _, w := range StratifiedWidths {
				for _, l := range []int{w, w + 1, 2 * w, 2*w + 1} {
					for _, e := range []int{w, 2 * w} {
						offs := []int{e - m, e} // ending at E, starting at E
						for s := 1; s < m; s++ {
							offs = append(offs, e-s) // straddling E, s bytes before it
						}
						for _, o := range offs {
							if o < 0 || o+m > l {
								continue
							}
							x := make([]byte, l)
							for i := range x {
								x[i] = boundaryFiller[i%len(boundaryFiller)]
							}
							copy(x[o:], u.Bytes)
							if seen[string(x)] {
								continue
							}
							seen[string(x)] = true
							stratList = append(stratList, stratInput{Input: x, Unit: u, Width: w, Edge: e, Off: o})
						}
					}
				}
			}
		}
	})
	return stratList
}

// stratOptions are the option sets each stratified input runs op under.
func stratOptions(op Op) []jsonopt.Options {
	if op == OpEscape {
		return StratifiedOptions
	}
	return []jsonopt.Options{0}
}

// DefaultTargetBoundarySample is how many placements of each family the uniform part of
// BoundaryTargetSpaces takes when --boundary-sample is not given: an external target answers
// far fewer requests a second than a built-in.
const DefaultTargetBoundarySample = 1000

// BoundaryTargetCount is the size of BoundaryTargetSpaces for one operation.
type BoundaryTargetCount struct {
	Op              Op
	Families        int    // families sampled
	Sample          uint64 // at most this many placements of each (0: all of them)
	StratifiedInput uint64 // stratified edge inputs (0 when the families are narrowed)
	StratifiedCases uint64 // their cases: under StratifiedOptions for escape, once otherwise
	Placements      uint64 // sampled placements of all the families
	PlacementCases  uint64 // their cases: escape under each family's option sets
}

// Strings is the number of inputs: stratified inputs and placements.
func (c BoundaryTargetCount) Strings() uint64 { return c.StratifiedInput + c.Placements }

// Cases is the number of requests.
func (c BoundaryTargetCount) Cases() uint64 { return c.StratifiedCases + c.PlacementCases }

// StratifiedEdgeInputs is the number of stratified edge inputs of an external target's
// boundary space (each runs escape under the len(StratifiedOptions) option sets).
func StratifiedEdgeInputs() int { return len(stratifiedInputs()) }

// BoundaryTargetCounts is the size of BoundaryTargetSpaces(ops, families, sample, shard,
// shards) for each operation, without building it.
func BoundaryTargetCounts(ops []Op, families []string, sample uint64, shard, shards int) []BoundaryTargetCount {
	return boundaryTargetCounts(ops, families, sample, shard, shards, ^jsonopt.Options(0))
}

// boundaryTargetCounts is BoundaryTargetCounts with escape's option sets inside mask
// (MaskOptions).
func boundaryTargetCounts(ops []Op, families []string, sample uint64, shard, shards int, mask jsonopt.Options) []BoundaryTargetCount {
	if shards < 1 {
		shard, shards = 0, 1
	}
	cfg := &BoundaryConfig{Sample: sample}
	fams := boundaryFamilies(families)
	var strat uint64
	if families == nil {
		strat = uint64(len(stratifiedInputs()))
	}
	k, m := uint64(shard), uint64(shards)
	var out []BoundaryTargetCount
	for _, op := range ops {
		c := BoundaryTargetCount{Op: op, Families: len(fams), Sample: sample}
		// Inputs are dealt round-robin by their index: the stratified inputs first, then the
		// sampled placements of all families, in order.
		c.StratifiedInput = countMod(0, strat, k, m)
		c.StratifiedCases = c.StratifiedInput * uint64(len(MaskOptions(stratOptions(op), mask)))
		first := strat
		for _, f := range fams {
			s := f.Sample(sample)
			n := countMod(first, s.Len, k, m)
			first += s.Len
			c.Placements += n
			if op != OpEscape {
				c.PlacementCases += n
				continue
			}
			if opts, rotate := familyOptions(cfg, f); rotate {
				c.PlacementCases += n
			} else {
				c.PlacementCases += n * uint64(len(MaskOptions(opts, mask)))
			}
		}
		out = append(out, c)
	}
	return out
}

// BoundaryTargetSpaces is the boundary space for an external target (--exec), one space per
// operation: first the stratified edge inputs (stratifiedInputs: every unit ending at,
// starting at and straddling each 16-, 32- and 64-byte edge, escape under
// StratifiedOptions), unless families narrows the families; then a uniform sample of at most
// sample placements of each of the named families (nil: all; sample 0: every placement,
// the whole space), escape under each family's option sets as for the built-ins (embed1
// under BoundaryOptions when sampled, all 2,048 option sets when not). Only outputs, errors
// and steps are compared: the target's memory is its own. Unknown family names are ignored
// (see ParseBoundaryFamilies). With shards > 1 only part shard of it: the inputs (stratified
// inputs, then the sampled placements of all families, counted in order) whose index is shard
// modulo shards (--shard), each with all its option sets.
func BoundaryTargetSpaces(ops []Op, families []string, sample uint64, shard, shards int) []TargetSpace {
	return boundaryTargetSpaces(ops, families, sample, shard, shards, ^jsonopt.Options(0))
}

// boundaryTargetSpaces is BoundaryTargetSpaces with escape's option sets inside mask
// (MaskOptions; a family that rotates its option sets projects each).
func boundaryTargetSpaces(ops []Op, families []string, sample uint64, shard, shards int, mask jsonopt.Options) []TargetSpace {
	if shards < 1 {
		shard, shards = 0, 1
	}
	fams := boundaryFamilies(families)
	var out []TargetSpace
	for _, c := range boundaryTargetCounts(ops, families, sample, shard, shards, mask) {
		sets := 1
		if c.Op == OpEscape {
			sets = 0
		}
		sp := TargetSpace{Space: "boundary", Op: c.Op, Strings: c.Strings(), OptionSets: sets, Total: c.Cases(),
			Seq: boundaryCases(c.Op, families == nil, fams, sample, uint64(shard), uint64(shards), mask)}
		op := c.Op
		sp.within = func(m jsonopt.Options) TargetSpace {
			return boundaryTargetSpaces([]Op{op}, families, sample, shard, shards, m&mask)[0]
		}
		out = append(out, sp)
	}
	return out
}

// countMod is how many of the n integers from first on are k modulo m.
func countMod(first, n, k, m uint64) uint64 {
	// Those below x: ceil((x-k)/m) for x > k.
	below := func(x uint64) uint64 {
		if x <= k {
			return 0
		}
		return (x - k + m - 1) / m
	}
	return below(first+n) - below(first)
}

// boundaryCases yields the cases of BoundaryTargetSpaces for op: the stratified inputs (if
// strat), then the sampled placements of fams, those whose index over all of them is shard
// modulo shards.
func boundaryCases(op Op, strat bool, fams []*boundary.Family, sample, shard, shards uint64, mask jsonopt.Options) iter.Seq[Case] {
	return func(yield func(Case) bool) {
		var idx uint64 // input index: stratified inputs, then placements over all families
		if strat {
			opts := MaskOptions(stratOptions(op), mask)
			for _, si := range stratifiedInputs() {
				if idx%shards == shard {
					x := si.Input[:len(si.Input):len(si.Input)]
					for _, o := range opts {
						if !yield(Case{Op: op, Input: x, Flags: o}) {
							return
						}
					}
				}
				idx++
			}
		}
		cfg := &BoundaryConfig{Sample: sample}
		var p boundary.Placement
		for _, f := range fams {
			s := f.Sample(sample)
			opts, rotate := []jsonopt.Options{0}, false
			if op == OpEscape {
				opts, rotate = familyOptions(cfg, f)
				if !rotate {
					opts = MaskOptions(opts, mask)
				}
			}
			for k := uint64(0); k < s.Len; k, idx = k+1, idx+1 {
				if idx%shards != shard {
					continue
				}
				i := s.Index(k)
				x := f.At(i, &p, nil)
				for oi, o := range opts {
					if rotate && uint64(oi) != i%uint64(len(opts)) {
						continue
					}
					if !yield(Case{Op: op, Input: x, Flags: o & mask}) {
						return
					}
				}
			}
		}
	}
}

// EdgeInput is one stratified edge input (see stratifiedInputs): a boundary unit placed
// relative to an edge of a block width.
type EdgeInput struct {
	Input []byte
	Unit  string // the unit's class and name ("utf8-3 U+2028")
	Width int    // the block width (16, 32 or 64)
	Edge  int    // the edge it was placed at (W or 2W)
	Off   int    // its offset
}

// EdgeInputs are the stratified edge inputs of width w (every unit of BoundaryUnits ending
// at, starting at and straddling the edges w and 2w of inputs of w, w+1, 2w and 2w+1 bytes),
// in their fixed order.
func EdgeInputs(w int) []EdgeInput {
	var out []EdgeInput
	for _, s := range stratifiedInputs() {
		if s.Width == w {
			out = append(out, EdgeInput{Input: s.Input, Unit: s.Unit.Class + " " + s.Unit.Name, Width: s.Width, Edge: s.Edge, Off: s.Off})
		}
	}
	return out
}
