package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/difffuzz/difffuzz/campaign"
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
	var sample sampleFlag
	var families string
	addMode(&mode{
		name: "boundary", order: 20, inDefault: true,
		addFlags: func(fs *flag.FlagSet) {
			fs.BoolVar(&on, "boundary", false, "check the boundary space: special bytes around every 16/32/64-byte chunk edge, straddles, alignments, the 1–3-byte strings across the edges, with guard pages, input integrity and dst canaries")
			sample = sampleFlag{} // not given (fs.Var, unlike Uint64Var, does not reset it)
			fs.Var(&sample, "boundary-sample", fmt.Sprintf("check at most `N` placements of each boundary family (0: all; default: all for built-ins, for --exec targets the stratified edge inputs and %d of each family)", fuzz.DefaultTargetBoundarySample))
			fs.StringVar(&families, "boundary-families", "", "check only these boundary families, comma-separated: "+strings.Join(fuzz.BoundaryFamilies(), ", ")+" (default all)")
		},
		selected: func() bool { return on },
		builtinPlan: func(c *common) []builtinSpace {
			fams, _ := fuzz.ParseBoundaryFamilies(families)
			return boundaryBuiltinPlan(c, fams, sample.n)
		},
		check: func(bool) error {
			_, err := fuzz.ParseBoundaryFamilies(families)
			if err != nil {
				return usagef("--boundary-families: %v", err)
			}
			return nil
		},
		part: func(c *common) campaign.Part {
			fams, _ := fuzz.ParseBoundaryFamilies(families)
			tsample := sample.n // --exec targets: the default sample unless --boundary-sample is given
			if !sample.set {
				tsample = fuzz.DefaultTargetBoundarySample
			}
			return campaign.Part{Name: "boundary", Whole: true,
				Before: func() {
					if len(c.targets) > 0 {
						fmt.Fprintln(c.stderr, boundaryTargetLine(c, fams, tsample))
					}
					if len(c.cands) > 0 && !fuzz.GuardPages() {
						fmt.Fprintln(c.stderr, "difffuzz: no guard pages (mmap unavailable): reads outside the input go undetected in the boundary space")
					}
				},
				Space: &campaign.Space{
					Builtin: func(ctx context.Context, impls []fuzz.Impl, _ fuzz.UnitTracker) (*fuzz.Report, error) {
						return fuzz.Boundary(ctx, fuzz.BoundaryConfig{
							Config:   fuzz.Config{Ops: c.ops, Impls: impls, Workers: c.workers, Progress: c.progress, Sink: c.sink},
							Families: fams,
							Sample:   sample.n,
							Shard:    c.shard,
							Shards:   c.shards,
						})
					},
					Target:   func() []fuzz.TargetSpace { return fuzz.BoundaryTargetSpaces(c.ops, fams, tsample, c.shard, c.shards) },
					Progress: c.progress,
				},
			}
		},
	})
}

// sampleFlag is --boundary-sample: a count, and whether it was given (0 means all, for
// external targets too; not given means all for built-ins and the default sample for
// external targets).
type sampleFlag struct {
	n   uint64
	set bool
}

func (f *sampleFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return strconv.FormatUint(f.n, 10)
}

func (f *sampleFlag) Set(v string) error {
	n, err := strconv.ParseUint(v, 0, 64)
	if err != nil {
		return errors.New("want a count of placements, 0 for all")
	}
	f.n, f.set = n, true
	return nil
}

// boundaryTargetLine describes the boundary sample the --exec targets get, for stderr: the
// stratified edge inputs, the placements per family and the requests per operation that a
// target announces.
func boundaryTargetLine(c *common, fams []string, sample uint64) string {
	counts := fuzz.BoundaryTargetCounts(c.ops, fams, sample, c.shard, c.shards)
	if len(counts) == 0 {
		return "difffuzz: boundary for --exec targets: no operations"
	}
	c0 := counts[0]
	var b strings.Builder
	b.WriteString("difffuzz: boundary for --exec targets")
	if c.shards > 1 {
		fmt.Fprintf(&b, " (shard %d/%d)", c.shard, c.shards)
	}
	b.WriteString(": ")
	if fams == nil {
		fmt.Fprintf(&b, "%s stratified edge inputs (every unit ending at, starting at and straddling each 16/32/64-byte edge; escape under %d option sets) + ",
			group(c0.StratifiedInput), len(fuzz.StratifiedOptions))
	}
	famWord := "families"
	if c0.Families == 1 {
		famWord = "family"
	}
	if sample == 0 {
		fmt.Fprintf(&b, "all %s placements of %d %s", group(c0.Placements), c0.Families, famWord)
	} else {
		fmt.Fprintf(&b, "at most %s placements of each of %d %s (%s in all)", group(sample), c0.Families, famWord, group(c0.Placements))
	}
	var ops []string
	for _, n := range counts {
		for _, t := range c.targets {
			if t.Has(n.Op) {
				ops = append(ops, fmt.Sprintf("%s %s", n.Op, group(n.Cases())))
				break
			}
		}
	}
	if len(ops) > 0 {
		fmt.Fprintf(&b, ": %s requests", strings.Join(ops, ", "))
	}
	return b.String()
}
