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
	run := func(ctx context.Context, c *common) (*fuzz.Report, error) {
		if !seedSet {
			seed = time.Now().UnixNano() & math.MaxInt64
		}
		if count == 0 && dur == 0 {
			// The default campaign: 50,000 inputs, sized for a slow external target.
			count = defaultRandomCount
		}
		if c.shards > 1 && c.shard != 0 {
			// Random inputs are not split: shard 0 checks them all, once for the sweep.
			fmt.Fprintf(c.stderr, "difffuzz: random: left to shard 0/%d (random inputs are not split between shards)\n", c.shards)
			return &fuzz.Report{}, nil
		}
		fmt.Fprintf(c.stderr, "difffuzz: random: seed %d, %s\n", seed, budgetText(count, dur))
		rep := &fuzz.Report{}
		var inputs uint64
		var st *fuzz.GenStats
		if len(c.cands) > 0 {
			res, err := fuzz.Random(ctx, fuzz.RandomConfig{
				Config:     fuzz.Config{Ops: c.ops, Impls: c.cands, Workers: c.workers, Progress: c.progress, Sink: c.sink},
				Seed:       seed,
				Count:      count,
				Duration:   dur,
				NoMinimize: c.sink != nil, // the triage minimizes one finding per group
			})
			if err != nil {
				return nil, err
			}
			rep.Merge(res.Report)
			inputs, st = res.Inputs, res.Stats
		}
		for _, t := range c.targets {
			r, n, err := randomTarget(ctx, t, c.ops, seed, count, dur, c.progress)
			rep.Merge(r)
			if inputs == 0 {
				inputs = n
			}
			if err != nil {
				return rep, err
			}
		}
		if stats {
			if st == nil { // external targets only: the same inputs, generated again for counting
				g := fuzz.NewGenerator(seed)
				for i := uint64(0); i < inputs; i++ {
					g.Sample(i)
				}
				st = g.Stats
			}
			fmt.Fprintln(c.stderr, "difffuzz: random: what the generator drew (--stats):")
			st.Write(c.stderr)
		}
		if inputs == 0 {
			// No candidate offered the operations asked for (a target announces only some).
			fmt.Fprintf(c.stderr, "difffuzz: random: no input was checked (no candidate offers the operations asked for)\n")
		} else {
			again := fmt.Sprintf("difffuzz --random %dx --seed %d", inputs, seed)
			if r := c.reference; r != nil {
				again += " --reference-exec " + fuzz.ShellQuote(execArg(r))
			}
			for _, t := range c.targets {
				again += " --exec " + fuzz.ShellQuote(execArg(t))
			}
			fmt.Fprintf(c.stderr, "difffuzz: random: checked inputs 0..%d of seed %d; the same inputs again: %s\n", inputs-1, seed, again)
		}
		return rep, nil
	}
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
			return campaign.Part{Name: "random", Run: func(ctx context.Context) (*fuzz.Report, error) { return run(ctx, c) }}
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

// randomTarget runs the random inputs through an external target, one space per operation
// (the run's triage minimizes its findings by asking the target again).
func randomTarget(ctx context.Context, t *fuzz.Target, ops []fuzz.Op, seed int64, count uint64, dur time.Duration, progress fuzz.Progress) (*fuzz.Report, uint64, error) {
	total := count
	if dur > 0 {
		total = math.MaxInt64 // until the time is up
		progress = nil        // no meaningful total
	}
	var spaces []fuzz.TargetSpace
	for _, op := range ops {
		var end time.Time // each operation gets its share of the time, from its first case
		stop := func() bool {
			if dur <= 0 {
				return false
			}
			if end.IsZero() {
				end = time.Now().Add(dur / time.Duration(len(ops)))
			}
			return time.Now().After(end)
		}
		spaces = append(spaces, fuzz.RandomTargetSpace(op, seed, total, 0, stop))
	}
	rep, err := fuzz.RunTarget(ctx, t, spaces, progress)
	var inputs uint64
	for i := range rep.Spaces {
		sp := &rep.Spaces[i]
		if dur > 0 {
			sp.Strings = sp.Cases + sp.NotRun + sp.Skipped
			sp.Complete = ctx.Err() == nil && err == nil
		}
		inputs = max(inputs, sp.Cases+sp.NotRun+sp.Skipped)
	}
	return rep, inputs, err
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
