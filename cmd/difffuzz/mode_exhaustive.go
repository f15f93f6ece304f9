package main

import (
	"context"
	"flag"

	"github.com/difffuzz/difffuzz/campaign"
	"github.com/difffuzz/difffuzz/fuzz"
)

// The exhaustive mode: every string of length 1–4 through the decoders and 1–3 through the
// escaper, under all 2,048 option sets up to 2 bytes and 1,088 past them unless --full-options
// (fuzz.ExhaustiveCombos; --max-len changes the lengths).
func init() {
	var on bool
	addMode(&mode{
		name: "exhaustive", order: 10, inDefault: true,
		addFlags: func(fs *flag.FlagSet) {
			fs.BoolVar(&on, "exhaustive", false, "check every string of length 1–4 through the decoders and 1–3 through the escaper under all 2,048 option sets (1,088 past 2 bytes without --full-options)")
		},
		selected:    func() bool { return on },
		builtinPlan: exhaustiveBuiltinPlan,
		part: func(c *common) campaign.Part {
			return campaign.Part{Name: "exhaustive", Space: &campaign.Space{
				Builtin: func(ctx context.Context, impls []fuzz.Impl, units fuzz.UnitTracker) (*fuzz.Report, error) {
					// With --checkpoint the spaces resume unit by unit.
					cfg := fuzz.ExhaustiveConfig{
						Config:      fuzz.Config{Ops: c.ops, Impls: impls, Workers: c.workers, Progress: c.progress, Sink: c.sink},
						MaxLen:      c.maxLen,
						FullOptions: c.fullOptions,
						Shard:       c.shard,
						Shards:      c.shards,
						Units:       units,
					}
					return fuzz.Exhaustive(ctx, cfg)
				},
				Target:   func() []fuzz.TargetSpace { return fuzz.ShardTargetSpaces(targetExhaustive(c), c.shard, c.shards) },
				Progress: c.progress,
			}}
		},
	})
}

// targetExhaustive is the exhaustive part for external targets, which answer far fewer
// requests a second than a built-in: in the default campaign every 1-byte string under all
// 2,048 option sets and every 2-byte string under 8 representative ones; with --exhaustive,
// escape up to --max-len (default 2) under fuzz.ExhaustiveCombos and the decoders up to
// --max-len (default 3).
func targetExhaustive(c *common) []fuzz.TargetSpace {
	if c.isDefault {
		return fuzz.DefaultTargetSpaces(c.ops)
	}
	var out []fuzz.TargetSpace
	for _, op := range c.ops {
		n := c.maxLen
		if n == 0 {
			n = 3
			if op == fuzz.OpEscape {
				n = 2
			}
		}
		if op != fuzz.OpEscape {
			out = append(out, fuzz.ExhaustiveTargetSpaces([]fuzz.Op{op}, n, nil)...)
			continue
		}
		for k := 1; k <= n; k++ { // each length under its option sets (fuzz.ExhaustiveCombos)
			out = append(out, fuzz.ExhaustiveTargetSpaces([]fuzz.Op{op}, k, fuzz.ExhaustiveCombos(k, c.fullOptions))[k-1])
		}
	}
	return out
}
