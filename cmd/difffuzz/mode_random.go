package main

import (
	"flag"
	"fmt"
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
			return (&campaign.Random{S: c.scope(), Seed: seed, Count: count, Duration: dur, Stats: stats}).Part()
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
