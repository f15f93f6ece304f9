package campaign

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/internal/progress"
	"github.com/difffuzz/difffuzz/report"
)

// What a campaign over the built-in candidates will cost, said before it starts: each space's
// cases (as its progress counts them) and an estimate of the whole run's time from timing a
// short sample of each space through the candidates.

// tinyRun is the size under which a built-in campaign has no plan: it takes less time than
// calibrating it would.
const tinyRun = 1 << 22

// PlanSpace is one space of a campaign over the built-in candidates as its plan states it.
// The spaces are in the order the campaign runs them, and Cases is what its progress counts
// (so that the whole run's progress can walk them: progress.Builtins).
type PlanSpace struct {
	Space string // the mode: "exhaustive", "boundary", "random"
	Op    string // the operation; "all" for random inputs, which go through each
	Shape string // "len 3 × 1,088", "mixed"
	Cases uint64
	// Budget is a random duration's time: its cases are not known (0) and not counted.
	Budget time.Duration
	// perCase times a short sample of the space through the candidates: its wall time per
	// case, in nanoseconds (calibrateBuiltins).
	perCase func(ctx context.Context) float64
	Est     time.Duration // from perCase (or Budget)
}

// BuiltinPlan is the spaces of the parts over the built-in candidates.
func BuiltinPlan(parts []Part) []PlanSpace {
	var out []PlanSpace
	for _, p := range parts {
		if p.Space != nil {
			b, _ := p.Space.Plan()
			out = append(out, b...)
		}
	}
	return out
}

// calibrateBuiltins estimates each space's time from its sample (see PlanSpace.perCase).
func calibrateBuiltins(ctx context.Context, plan []PlanSpace) {
	for i := range plan {
		p := &plan[i]
		if p.Budget > 0 {
			p.Est = p.Budget
			continue
		}
		if p.perCase != nil && ctx.Err() == nil {
			p.Est = time.Duration(p.perCase(ctx) * float64(p.Cases))
		}
	}
}

// PrintBuiltinPlan says, before a campaign over the built-in candidates, each space's cases and
// the whole run's estimated time (calibrateBuiltins), and how to shard a run estimated past an
// hour. It returns the spaces (for the whole run's progress), none when the run is tiny
// (tinyRun: then it says nothing).
func PrintBuiltinPlan(ctx context.Context, parts []Part, w io.Writer) []PlanSpace {
	plan := BuiltinPlan(parts)
	var n uint64
	for _, p := range plan {
		n += p.Cases
	}
	if n < tinyRun {
		return nil
	}
	start := time.Now()
	calibrateBuiltins(ctx, plan)
	writeBuiltinPlan(w, plan, fmt.Sprintf("calibrated in %v", time.Since(start).Round(time.Millisecond)))
	return plan
}

// writeBuiltinPlan prints a calibrated plan (PrintBuiltinPlan).
func writeBuiltinPlan(w io.Writer, plan []PlanSpace, calib string) {
	fmt.Fprintln(w, "difffuzz: plan for the built-in candidates:")
	var n uint64
	var d time.Duration
	for _, p := range plan {
		est := "about " + Roughly(p.Est)
		switch {
		case p.Est < 10*time.Millisecond:
			est = "under 10ms"
		case p.Budget > 0:
			est = "for " + p.Budget.String() + " (cases not known before)"
		}
		planRow(w, p.Space, p.Op, p.Shape, p.Cases, "cases", est)
		n += p.Cases
		d += p.Est
	}
	planTotal(w, n, "cases", "about "+Roughly(d), calib)
	shardAdvice(w, d)
}

// Spans are the plan's spaces as the whole run's progress walks them (progress.Builtins):
// those whose cases it counts.
func Spans(plan []PlanSpace) []progress.Span {
	var out []progress.Span
	for _, p := range plan {
		if p.Cases > 0 {
			out = append(out, progress.Span{Cases: p.Cases, Est: p.Est})
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

// exhaustivePlan is the exhaustive part's spaces over the built-in candidates: one per
// operation and length, each timed on one whole unit (fuzz.ExhaustiveUnit) for each worker,
// spread over the space: a unit's first strings are not its average (the oracle's answers are
// shared across a run of strings), and the workers check one unit each at once.
func exhaustivePlan(c *Scope) []PlanSpace {
	var out []PlanSpace
	for _, op := range c.Ops {
		maxLen := c.MaxLen
		if maxLen == 0 {
			maxLen = fuzz.DefaultDecodeMaxLen
			if op == fuzz.OpEscape {
				maxLen = fuzz.DefaultEscapeMaxLen
			}
		}
		for n := 1; n <= maxLen; n++ {
			cfg := fuzz.ExhaustiveConfig{
				Config: fuzz.Config{Ops: []fuzz.Op{op}, Impls: c.Builtins, Workers: c.Workers},
				MinLen: n, MaxLen: n, FullOptions: c.FullOptions, Shard: c.Shard, Shards: c.Shards,
			}
			cases := fuzz.ExhaustiveTotal(cfg)
			if cases == 0 {
				continue
			}
			sets := len(fuzz.ExhaustiveCombos(n, c.FullOptions))
			if op != fuzz.OpEscape {
				sets = 1
			}
			shape := fmt.Sprintf("len %d", n)
			if sets > 1 {
				shape += " × " + report.Count(uint64(sets))
			}
			out = append(out, PlanSpace{Space: "exhaustive", Op: string(op), Shape: shape, Cases: cases,
				perCase: func(ctx context.Context) float64 {
					unit := fuzz.ExhaustiveUnit(op, n, sets)
					units := (uint64(1)<<(8*n) + unit - 1) / unit
					one := cfg
					one.Shard, one.Shards = 0, int(max(1, units/uint64(c.Workers)))
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

// boundaryPlan is the boundary part's spaces over the built-in candidates: one per
// operation, its time per case the average of its families' (each timed on a sample of
// about boundarySampleCases cases), weighted by their cases.
func boundaryPlan(c *Scope, fams []string, sample uint64) []PlanSpace {
	var out []PlanSpace
	for _, op := range c.Ops {
		cfg := fuzz.BoundaryConfig{Config: fuzz.Config{Ops: []fuzz.Op{op}, Impls: c.Builtins, Workers: c.Workers},
			Families: fams, Sample: sample, Shard: c.Shard, Shards: c.Shards}
		cases := fuzz.BoundaryTotal(cfg, op)
		if cases == 0 || !served(c.Builtins, op) {
			continue
		}
		out = append(out, PlanSpace{Space: "boundary", Op: string(op), Shape: "mixed", Cases: cases,
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

// randomPlan is the random part over the built-in candidates: one space of count inputs,
// each through every operation (its progress counts inputs).
func randomPlan(c *Scope, count uint64) []PlanSpace {
	return []PlanSpace{{Space: "random", Op: "all", Shape: "mixed", Cases: count,
		perCase: func(ctx context.Context) float64 {
			n := min(count, randomSampleInputs)
			start := time.Now()
			res, err := fuzz.Random(ctx, fuzz.RandomConfig{Config: fuzz.Config{Ops: c.Ops, Impls: c.Builtins, Workers: c.Workers},
				Seed: 1, Count: n, NoMinimize: true})
			if err != nil {
				return 0
			}
			return perCaseOf(res.Inputs, time.Since(start))
		}}}
}
