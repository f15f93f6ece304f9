package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/campaign"
	"github.com/difffuzz/difffuzz/fuzz"
)

// The random mode: --random N|DURATION generated inputs (DESIGN.md §3), reproducible from
// --seed; every finding goes to the run's triage, which minimizes one per group; --stats
// prints what the generator drew.
// defaultRandomCount is the random part of the default campaign (no mode flag).
const defaultRandomCount = 50000

func init() {
	var (
		budget    string
		budgetSet bool
		seed      int64
		seedSet   bool
		stats     bool
		count     uint64
		dur       time.Duration
	)
	addMode(&mode{
		name: "random", order: 30, inDefault: true,
		addFlags: func(fs *flag.FlagSet) {
			seedSet, budgetSet, budget, count, dur = false, false, "", 0, 0 // a fresh run (tests run several in one process)
			fs.Func("random", "check random inputs: a count like 100000x or a duration like 30s", func(v string) error {
				budget, budgetSet = v, true
				return nil
			})
			fs.Var(&seedFlag{&seed, &seedSet}, "seed", "seed of the random inputs of --random or the default campaign (default: a new one; it is always printed)")
			fs.BoolVar(&stats, "stats", false, "with --random: print how often each byte class and option bit was drawn")
		},
		selected: func() bool { return budgetSet },
		plan: func(c *common) []fuzz.TargetSpace {
			n := count
			if n == 0 && dur == 0 {
				n = defaultRandomCount
			}
			if n == 0 || c.shards > 1 && c.shard != 0 {
				return nil // a duration, or left to shard 0
			}
			var out []fuzz.TargetSpace
			for _, op := range c.ops {
				out = append(out, fuzz.RandomTargetSpace(op, 1, n, 0, nil)) // (any seed sizes and times it)
			}
			return out
		},
		builtinPlan: func(c *common) []builtinSpace {
			if count == 0 && dur == 0 {
				return randomBuiltinPlan(c, defaultRandomCount, 0)
			}
			return randomBuiltinPlan(c, count, dur)
		},
		check: func(runs bool) error {
			if !runs && (seedSet || stats) {
				return usagef("--seed and --stats go with --random N|DURATION (or the default campaign, which runs random inputs)")
			}
			if budgetSet && budget == "" {
				return usagef("--random needs a count like 100000x or a duration like 30s, got an empty value")
			}
			if budget == "" {
				return nil
			}
			var err error
			count, dur, err = parseBudget(budget)
			return err
		},
		part: func(c *common) campaign.Part {
			if !seedSet {
				seed = time.Now().UnixNano() & math.MaxInt64
			}
			if count == 0 && dur == 0 {
				// The default campaign: 50,000 inputs, sized for a slow external target.
				count = defaultRandomCount
			}
			r := &randomRun{c: c, seed: seed, count: count, dur: dur, stats: stats}
			return r.part()
		},
	})
}

// parseBudget reads --random: a count ("100000x", or a bare "100000") or a Go duration ("30s").
func parseBudget(s string) (uint64, time.Duration, error) {
	if n, err := strconv.ParseUint(strings.TrimSuffix(s, "x"), 10, 64); err == nil {
		if n == 0 {
			return 0, 0, usagef("--random %q: the count must be at least 1", s)
		}
		return n, 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, 0, usagef("--random %q: want a count like 100000x or a positive duration like 30s", s)
	}
	return 0, d, nil
}

func budgetText(count uint64, dur time.Duration) string {
	if count > 0 {
		return group(count) + " inputs"
	}
	return "for " + dur.String()
}

// randomRun is the random mode of one campaign: its seed and budget, and what it checked.
type randomRun struct {
	c      *common
	seed   int64
	count  uint64
	dur    time.Duration
	stats  bool
	inputs uint64         // inputs checked (0..inputs-1), the first candidate's that checked any
	st     *fuzz.GenStats // what the built-ins' generator drew
}

// part is the mode as the engine runs it: one space for every candidate, resumed whole.
func (r *randomRun) part() campaign.Part {
	c := r.c
	if c.shards > 1 && c.shard != 0 {
		// Random inputs are not split: shard 0 checks them all, once for the sweep.
		return campaign.Part{Name: "random", Run: func(context.Context) (*fuzz.Report, error) {
			fmt.Fprintf(c.stderr, "difffuzz: random: left to shard 0/%d (random inputs are not split between shards)\n", c.shards)
			return &fuzz.Report{}, nil
		}}
	}
	progress := c.progress
	if r.dur > 0 {
		progress = nil // a target's spaces have no meaningful total
	}
	return campaign.Part{Name: "random", Whole: true,
		Before: func() { fmt.Fprintf(c.stderr, "difffuzz: random: seed %d, %s\n", r.seed, budgetText(r.count, r.dur)) },
		Space:  &campaign.Space{Builtin: r.builtin, Target: r.targetSpaces, Progress: progress, Finish: r.finishTarget},
		After:  r.after,
	}
}

// builtin runs the random inputs through the built-in candidates.
func (r *randomRun) builtin(ctx context.Context, impls []fuzz.Impl, _ fuzz.UnitTracker) (*fuzz.Report, error) {
	c := r.c
	res, err := fuzz.Random(ctx, fuzz.RandomConfig{
		Config:     fuzz.Config{Ops: c.ops, Impls: impls, Workers: c.workers, Progress: c.progress, Sink: c.sink},
		Seed:       r.seed,
		Count:      r.count,
		Duration:   r.dur,
		NoMinimize: c.sink != nil, // the triage minimizes one finding per group
	})
	if err != nil {
		return nil, err
	}
	r.inputs, r.st = res.Inputs, res.Stats
	return res.Report, nil
}

// targetSpaces are the random inputs as an external target is asked them, one space per
// operation (the run's triage minimizes its findings by asking the target again).
func (r *randomRun) targetSpaces() []fuzz.TargetSpace {
	total := r.count
	if r.dur > 0 {
		total = math.MaxInt64 // until the time is up
	}
	ops := r.c.ops
	var spaces []fuzz.TargetSpace
	for _, op := range ops {
		var end time.Time // each operation gets its share of the time, from its first case
		stop := func() bool {
			if r.dur <= 0 {
				return false
			}
			if end.IsZero() {
				end = time.Now().Add(r.dur / time.Duration(len(ops)))
			}
			return time.Now().After(end)
		}
		spaces = append(spaces, fuzz.RandomTargetSpace(op, r.seed, total, 0, stop))
	}
	return spaces
}

// finishTarget counts what a target checked: under a duration, its spaces' strings are the
// inputs it was asked, complete unless stopped early.
func (r *randomRun) finishTarget(ctx context.Context, rep *fuzz.Report, err error) {
	var inputs uint64
	for i := range rep.Spaces {
		sp := &rep.Spaces[i]
		if r.dur > 0 {
			sp.Strings = sp.Cases + sp.NotRun + sp.Skipped
			sp.Complete = ctx.Err() == nil && err == nil
		}
		inputs = max(inputs, sp.Cases+sp.NotRun+sp.Skipped)
	}
	if r.inputs == 0 {
		r.inputs = inputs
	}
}

// after says what the generator drew (--stats) and how to check the same inputs again.
func (r *randomRun) after() {
	c := r.c
	if r.stats {
		if r.st == nil { // external targets only: the same inputs, generated again for counting
			g := fuzz.NewGenerator(r.seed)
			for i := uint64(0); i < r.inputs; i++ {
				g.Sample(i)
			}
			r.st = g.Stats
		}
		fmt.Fprintln(c.stderr, "difffuzz: random: what the generator drew (--stats):")
		r.st.Write(c.stderr)
	}
	if r.inputs == 0 {
		// No candidate offered the operations asked for (a target announces only some).
		fmt.Fprintf(c.stderr, "difffuzz: random: no input was checked (no candidate offers the operations asked for)\n")
		return
	}
	again := fmt.Sprintf("difffuzz --random %dx --seed %d", r.inputs, r.seed)
	if ref := c.reference; ref != nil {
		again += " --reference-exec " + fuzz.ShellQuote(campaign.ExecArg(ref))
	}
	for _, t := range c.targets {
		again += " --exec " + fuzz.ShellQuote(campaign.ExecArg(t))
	}
	fmt.Fprintf(c.stderr, "difffuzz: random: checked inputs 0..%d of seed %d; the same inputs again: %s\n", r.inputs-1, r.seed, again)
}

// seedFlag is --seed: a 64-bit integer, remembered as given (its String is the seed, so that a
// campaign's configuration names it).
type seedFlag struct {
	v   *int64
	set *bool
}

func (f *seedFlag) String() string {
	if f.v == nil || f.set == nil || !*f.set {
		return ""
	}
	return strconv.FormatInt(*f.v, 10)
}

func (f *seedFlag) Set(s string) error {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("not a 64-bit integer")
	}
	*f.v, *f.set = v, true
	return nil
}
