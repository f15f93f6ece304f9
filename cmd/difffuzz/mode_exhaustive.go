package main

import (
	"context"
	"flag"

	"github.com/difffuzz/difffuzz/fuzz"
)

// The exhaustive mode: every string of length 1–4 through the decoders and 1–3 through the
// escaper under all 1,024 option sets (--max-len changes the lengths).
func init() {
	var on bool
	addMode(&mode{
		name: "exhaustive", order: 10, inDefault: true,
		addFlags: func(fs *flag.FlagSet) {
			fs.BoolVar(&on, "exhaustive", false, "check every string of length 1–4 through the decoders and 1–3 through the escaper under all 1,024 option sets")
		},
		selected: func() bool { return on },
		run: func(ctx context.Context, c *common) (*fuzz.Report, error) {
			return fuzz.Exhaustive(ctx, fuzz.ExhaustiveConfig{
				Ops: c.ops, MaxLen: c.maxLen, Impls: c.cands, Workers: c.workers, Progress: c.progress,
			})
		},
	})
}
