package main

import (
	"errors"
	"flag"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/campaign"
)

// The random mode (campaign.Random): --random N|DURATION generated inputs (DESIGN.md §3),
// reproducible from --seed; every finding goes to the run's triage, which minimizes one per
// group; --stats prints what the generator drew.

// defaultRandomCount is the random part of the default campaign (no mode flag).
const defaultRandomCount = 50000

func init() {
	var (
		// budget is printed as given (a campaign's configuration, which a checkpoint is
		// matched against, names it: a 10x run never passes for a 1000000x one).
		budget optional[string]
		seed   optional[int64] // printed as given, so that a campaign's configuration names it
		stats  bool
		count  uint64
		dur    time.Duration
	)
	addMode(&mode{
		name: "random", order: 30, inDefault: true,
		addFlags: func(fs *flag.FlagSet) {
			count, dur = 0, 0 // a fresh run (tests run several in one process)
			budget = optional[string]{parse: func(s string) (string, error) { return s, nil }, show: func(s string) string { return s }}
			seed = optional[int64]{parse: func(s string) (int64, error) {
				v, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					return 0, errors.New("not a 64-bit integer")
				}
				return v, nil
			}, show: func(v int64) string { return strconv.FormatInt(v, 10) }}
			fs.Var(&budget, "random", "check random inputs: a count like 100000x or a duration like 30s")
			fs.Var(&seed, "seed", "seed of the random inputs of --random or the default campaign (default: a new one; it is always printed)")
			fs.BoolVar(&stats, "stats", false, "with --random: print how often each byte class and option bit was drawn")
		},
		selected: func() bool { return budget.set },
		check: func(runs bool) error {
			if !runs && (seed.set || stats) {
				return usagef("--seed and --stats go with --random N|DURATION (or the default campaign, which runs random inputs)")
			}
			if budget.set && budget.v == "" {
				return usagef("--random needs a count like 100000x or a duration like 30s, got an empty value")
			}
			if budget.v == "" {
				return nil
			}
			var err error
			count, dur, err = parseBudget(budget.v)
			return err
		},
		part: func(c *common) campaign.Part {
			if !seed.set {
				seed.v = time.Now().UnixNano() & math.MaxInt64
			}
			if count == 0 && dur == 0 {
				// The default campaign: 50,000 inputs, sized for a slow external target.
				count = defaultRandomCount
			}
			return (&campaign.Random{S: c.scope(), Seed: seed.v, Count: count, Duration: dur, Stats: stats}).Part()
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
