package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/difffuzz/difffuzz/fuzz"
)

// The boundary mode: the bytes an escaper or decoder treats specially at every offset around
// the 16-, 32- and 64-byte edges of vector code, straddling them at every split point, two
// and three to a block, under every source alignment and destination offset and spare
// capacity, and the exhaustive 1–3-byte strings across the edges (fuzz.Boundary; 223,832,706
// placements). Each call runs with the input flush against a PROT_NONE guard page, a
// canary in dst's spare capacity and the input compared with a copy afterwards.
func init() {
	var on bool
	var sample uint64
	var families string
	addMode(&mode{
		name: "boundary", order: 20, inDefault: true,
		addFlags: func(fs *flag.FlagSet) {
			fs.BoolVar(&on, "boundary", false, "check the boundary space: special bytes around every 16/32/64-byte chunk edge, straddles, alignments, the 1–3-byte strings across the edges, with guard pages, input integrity and dst canaries")
			fs.Uint64Var(&sample, "boundary-sample", 0, "check at most N placements of each boundary family (0: all; external targets: 1000)")
			fs.StringVar(&families, "boundary-families", "", "check only these boundary families, comma-separated: "+strings.Join(fuzz.BoundaryFamilies(), ", ")+" (default all)")
		},
		selected: func() bool { return on },
		check: func() error {
			_, err := fuzz.ParseBoundaryFamilies(families)
			if err != nil {
				return usagef("--boundary-families: %v", err)
			}
			return nil
		},
		run: func(ctx context.Context, c *common) (*fuzz.Report, error) {
			rep := &fuzz.Report{}
			fams, _ := fuzz.ParseBoundaryFamilies(families)
			if len(c.cands) > 0 {
				if !fuzz.GuardPages() {
					fmt.Fprintln(c.stderr, "difffuzz: no guard pages (mmap unavailable): reads outside the input go undetected in the boundary space")
				}
				r, err := fuzz.Boundary(ctx, fuzz.BoundaryConfig{
					Families: fams,
					Ops:      c.ops, Impls: c.cands, Workers: c.workers, Progress: c.progress,
					Sample: sample, Shard: c.shard, Shards: c.shards,
				})
				if err != nil {
					return nil, err
				}
				rep.Merge(r)
			}
			for _, t := range c.targets {
				r, err := fuzz.RunTarget(ctx, t, fuzz.BoundaryTargetSpaces(c.ops, fams, sample, c.shard, c.shards), c.progress)
				rep.Merge(r)
				if err != nil {
					return rep, err
				}
			}
			return rep, nil
		},
	})
}
