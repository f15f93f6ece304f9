package main

import (
	"flag"

	"github.com/difffuzz/difffuzz/campaign"
)

// The exhaustive mode (campaign.Exhaustive): every string of length 1–4 through the decoders
// and 1–3 through the escaper, under all 2,048 option sets up to 2 bytes and 1,088 past them
// unless --full-options (fuzz.ExhaustiveCombos; --max-len changes the lengths).
func init() {
	var on bool
	addMode(&mode{
		name: "exhaustive", order: 10, inDefault: true,
		addFlags: func(fs *flag.FlagSet) {
			fs.BoolVar(&on, "exhaustive", false, "check every string of length 1–4 through the decoders and 1–3 through the escaper under all 2,048 option sets (1,088 past 2 bytes without --full-options)")
		},
		selected: func() bool { return on },
		part: func(c *common) campaign.Part {
			return campaign.Part{Name: "exhaustive", Space: campaign.Exhaustive{S: c.scope()}}
		},
	})
}
