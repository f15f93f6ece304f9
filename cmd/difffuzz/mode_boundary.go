package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/difffuzz/difffuzz/campaign"
	"github.com/difffuzz/difffuzz/fuzz"
)

// The boundary mode (campaign.Boundary): the bytes an escaper or decoder treats specially at every offset around
// the 16-, 32- and 64-byte edges of vector code, straddling them at every split point, two
// and three to a block, under every source alignment and destination offset and spare
// capacity, and the exhaustive 1–3-byte strings across the edges (fuzz.Boundary; 223,832,706
// placements). Each call runs with the input flush against a PROT_NONE guard page, a
// canary in dst's spare capacity and the input compared with a copy afterwards.
func init() {
	var on bool
	var sample optional[uint64]
	var families string
	addMode(&mode{
		name: "boundary", order: 20, inDefault: true,
		addFlags: func(fs *flag.FlagSet) {
			fs.BoolVar(&on, "boundary", false, "check the boundary space: special bytes around every 16/32/64-byte chunk edge, straddles, alignments, the 1–3-byte strings across the edges, with guard pages, input integrity and dst canaries")
			// --boundary-sample: 0 means all, for external targets too; not given means all for
			// built-ins and the default sample for external targets. (fs.Var, unlike
			// Uint64Var, does not reset it: a fresh one each parse.)
			sample = optional[uint64]{parse: func(v string) (uint64, error) {
				n, err := strconv.ParseUint(v, 10, 64)
				if err != nil {
					return 0, errors.New("want a decimal count of placements, 0 for all")
				}
				return n, nil
			}, show: func(n uint64) string { return strconv.FormatUint(n, 10) }}
			fs.Var(&sample, "boundary-sample", fmt.Sprintf("check at most `N` placements of each boundary family (0: all; default: all for built-ins, for --exec targets the stratified edge inputs and %d of each family)", fuzz.DefaultTargetBoundarySample))
			fs.StringVar(&families, "boundary-families", "", "check only these boundary families, comma-separated: "+strings.Join(fuzz.BoundaryFamilies(), ", ")+" (default all)")
		},
		selected: func() bool { return on },
		check: func(runs bool) error {
			if !runs && (sample.set || families != "") {
				return usagef("--boundary-sample and --boundary-families go with --boundary (or the default campaign, which runs the boundary space)")
			}
			if _, err := fuzz.ParseBoundaryFamilies(families); err != nil {
				return usagef("--boundary-families: %v", err)
			}
			return nil
		},
		part: func(c *common) campaign.Part {
			fams, _ := fuzz.ParseBoundaryFamilies(families)
			tsample := sample.v // --exec targets: the default sample unless --boundary-sample is given
			if !sample.set {
				tsample = fuzz.DefaultTargetBoundarySample
			}
			return campaign.Part{Name: "boundary", Whole: true,
				Space: campaign.Boundary{S: c.scope(), Families: fams, Sample: sample.v, TargetSample: tsample}}
		},
	})
}
