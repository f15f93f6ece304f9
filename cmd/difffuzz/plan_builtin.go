package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/difffuzz/difffuzz/fuzz"
)

// What a campaign over the built-in candidates will cost, said before it starts: each space's
// cases (as its progress counts them) and an estimate of the whole run's time from timing a
// short sample of each space through the candidates.

// tinyRun is the size under which a built-in campaign has no plan: it takes less time than
// calibrating it would.
const tinyRun = 1 << 22

// builtinSpace is one space of a campaign over the built-in candidates as its plan states it.
// The spaces are in the order the campaign runs them, and cases is what its progress counts
// (so that the whole run's progress can walk them: wholeRun).
type builtinSpace struct {
	space string // the mode: "exhaustive", "boundary", "random"
	op    string // the operation; "all" for random inputs, which go through each
	shape string // "len 3 × 1,088", "mixed"
	cases uint64
	// budget is a random duration's time: its cases are not known (0) and not counted.
	budget time.Duration
	// perCase times a short sample of the space through the candidates: its wall time per
	// case, in nanoseconds (calibrateBuiltins).
	perCase func(ctx context.Context) float64
	est     time.Duration // from perCase (or budget)
}

// builtinPlan is the spaces of the modes to run over the built-in candidates.
func builtinPlan(c *common, run []*mode) []builtinSpace {
	var out []builtinSpace
	for _, m := range run {
		if m.builtinPlan != nil {
			out = append(out, m.builtinPlan(c)...)
		}
	}
	return out
}

// calibrateBuiltins estimates each space's time from its sample (see builtinSpace.perCase).
func calibrateBuiltins(ctx context.Context, plan []builtinSpace) {
	for i := range plan {
		p := &plan[i]
		if p.budget > 0 {
			p.est = p.budget
			continue
		}
		if p.perCase != nil && ctx.Err() == nil {
			p.est = time.Duration(p.perCase(ctx) * float64(p.cases))
		}
	}
}

// printBuiltinPlan says, before a campaign over the built-in candidates, each space's cases and
// the whole run's estimated time (calibrateBuiltins), and how to shard a run estimated past an
// hour. It returns the spaces (for the whole run's progress), none when the run is tiny
// (tinyRun: then it says nothing).
func printBuiltinPlan(ctx context.Context, c *common, run []*mode, w io.Writer) []builtinSpace {
	plan := builtinPlan(c, run)
	var n uint64
	for _, p := range plan {
		n += p.cases
	}
	if n < tinyRun {
		return nil
	}
	start := time.Now()
	calibrateBuiltins(ctx, plan)
	writeBuiltinPlan(w, plan, fmt.Sprintf("calibrated in %v", time.Since(start).Round(time.Millisecond)))
	return plan
}

// writeBuiltinPlan prints a calibrated plan (printBuiltinPlan).
func writeBuiltinPlan(w io.Writer, plan []builtinSpace, calib string) {
	fmt.Fprintln(w, "difffuzz: plan for the built-in candidates:")
	var n uint64
	var d time.Duration
	for _, p := range plan {
		est := "about " + roughly(p.est)
		switch {
		case p.est < 10*time.Millisecond:
			est = "under 10ms"
		case p.budget > 0:
			est = "for " + p.budget.String() + " (cases not known before)"
		}
		planRow(w, p.space, p.op, p.shape, p.cases, "cases", est)
		n += p.cases
		d += p.est
	}
	planTotal(w, n, "cases", "about "+roughly(d), calib)
	shardAdvice(w, d)
}

// wholeRunSpans are the plan's spaces as the whole run's progress walks them: those whose
// cases it counts.
func wholeRunSpans(plan []builtinSpace) []span {
	var out []span
	for _, p := range plan {
		if p.cases > 0 {
			out = append(out, span{cases: p.cases, est: p.est})
		}
	}
	return out
}

// perCaseOf is the wall time per case of a sample: elapsed over cases, in nanoseconds (0 for
// an empty sample).
func perCaseOf(cases uint64, elapsed time.Duration) float64 {
	if cases == 0 {
		return 0
	}
	return float64(elapsed.Nanoseconds()) / float64(cases)
}

// exhaustiveSampleCases is how many cases of a one-unit exhaustive space (1-byte strings)
// calibration times, on the first strings (fuzz.ExhaustiveConfig.Sample).
const exhaustiveSampleCases = 32768

// exhaustiveBuiltinPlan is the exhaustive part's spaces over the built-in candidates: one per
// operation and length, each timed on one whole unit (fuzz.ExhaustiveUnit) for each worker,
// spread over the space: a unit's first strings are not its average (the oracle's answers are
// shared across a run of strings), and the workers check one unit each at once.
func exhaustiveBuiltinPlan(c *common) []builtinSpace {
	var out []builtinSpace
	for _, op := range c.ops {
		maxLen := c.maxLen
		if maxLen == 0 {
			maxLen = fuzz.DefaultDecodeMaxLen
			if op == fuzz.OpEscape {
				maxLen = fuzz.DefaultEscapeMaxLen
			}
		}
		for n := 1; n <= maxLen; n++ {
			cfg := fuzz.ExhaustiveConfig{
				Config: fuzz.Config{Ops: []fuzz.Op{op}, Impls: c.cands, Workers: c.workers},
				MinLen: n, MaxLen: n, FullOptions: c.fullOptions, Shard: c.shard, Shards: c.shards,
			}
			cases := fuzz.ExhaustiveTotal(cfg)
			if cases == 0 {
				continue
			}
			sets := len(fuzz.ExhaustiveCombos(n, c.fullOptions))
			if op != fuzz.OpEscape {
				sets = 1
			}
			shape := fmt.Sprintf("len %d", n)
			if sets > 1 {
				shape += " × " + group(uint64(sets))
			}
			out = append(out, builtinSpace{space: "exhaustive", op: string(op), shape: shape, cases: cases,
				perCase: func(ctx context.Context) float64 {
					unit := fuzz.ExhaustiveUnit(op, n, sets)
					units := (uint64(1)<<(8*n) + unit - 1) / unit
					one := cfg
					one.Shard, one.Shards = 0, int(max(1, units/uint64(c.workers)))
					if units == 1 {
						one.Sample = max(1, exhaustiveSampleCases/uint64(sets))
					}
					rep, err := fuzz.Exhaustive(ctx, one)
					if err != nil || len(rep.Spaces) == 0 {
						return 0
					}
					return perCaseOf(rep.Spaces[0].Cases, rep.Spaces[0].Elapsed)
				}})
		}
	}
	return out
}

// boundarySampleCases is about how many cases of each boundary family a calibration times.
const boundarySampleCases = 2048

// boundaryBuiltinPlan is the boundary part's spaces over the built-in candidates: one per
// operation, its time per case the average of its families' (each timed on a sample of
// about boundarySampleCases cases), weighted by their cases.
func boundaryBuiltinPlan(c *common, fams []string, sample uint64) []builtinSpace {
	var out []builtinSpace
	for _, op := range c.ops {
		cfg := fuzz.BoundaryConfig{Config: fuzz.Config{Ops: []fuzz.Op{op}, Impls: c.cands, Workers: c.workers},
			Families: fams, Sample: sample, Shard: c.shard, Shards: c.shards}
		cases := fuzz.BoundaryTotal(cfg, op)
		if cases == 0 || !served(c.cands, op) {
			continue
		}
		out = append(out, builtinSpace{space: "boundary", op: string(op), shape: "mixed", cases: cases,
			perCase: func(ctx context.Context) float64 {
				var sum, weight float64
				names := fams
				if names == nil {
					names = fuzz.BoundaryFamilies()
				}
				for _, f := range names {
					one := cfg
					one.Families, one.Shard, one.Shards = []string{f}, 0, 0
					famCases := fuzz.BoundaryTotal(one, op)
					one.Sample = 1
					perPlacement := max(fuzz.BoundaryTotal(one, op), 1)
					one.Sample = max(1, boundarySampleCases/perPlacement)
					if sample > 0 {
						one.Sample = min(one.Sample, sample)
					}
					rep, err := fuzz.Boundary(ctx, one)
					if err != nil || len(rep.Spaces) == 0 {
						continue
					}
					sum += perCaseOf(rep.Spaces[0].Cases, rep.Spaces[0].Elapsed) * float64(famCases)
					weight += float64(famCases)
				}
				if weight == 0 {
					return 0
				}
				return sum / weight
			}})
	}
	return out
}

// served reports whether a candidate offers op.
func served(cands []fuzz.Impl, op fuzz.Op) bool {
	for _, im := range cands {
		if im.Has(op) {
			return true
		}
	}
	return false
}

// randomSampleInputs is how many random inputs a calibration times.
const randomSampleInputs = 1024

// randomBuiltinPlan is the random part over the built-in candidates: one space of count
// inputs, each through every operation (its progress counts inputs), or a duration.
func randomBuiltinPlan(c *common, count uint64, dur time.Duration) []builtinSpace {
	if c.shards > 1 && c.shard != 0 {
		return nil // left to shard 0
	}
	if dur > 0 {
		return []builtinSpace{{space: "random", op: "all", shape: "mixed", budget: dur}}
	}
	return []builtinSpace{{space: "random", op: "all", shape: "mixed", cases: count,
		perCase: func(ctx context.Context) float64 {
			n := min(count, randomSampleInputs)
			start := time.Now()
			res, err := fuzz.Random(ctx, fuzz.RandomConfig{Config: fuzz.Config{Ops: c.ops, Impls: c.cands, Workers: c.workers},
				Seed: 1, Count: n, NoMinimize: true})
			if err != nil {
				return 0
			}
			return perCaseOf(res.Inputs, time.Since(start))
		}}}
}
