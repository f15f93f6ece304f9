package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/report"
)

// outcome is what a campaign, or a merge of shard reports, prints: the spaces checked, the
// defect classes, and how it ran.
type outcome struct {
	modes      []string
	config     string // campaignConfig: what the shards of one sweep share
	rep        *fuzz.Report
	classes    []*report.Class
	elapsed    time.Duration
	targets    []report.TargetRecord // of every shard for a merge
	shard      int
	shards     int
	notChecked []string
	mergedFrom int    // the shard reports a merge read (0 for a campaign)
	versus     string // the --reference-exec target's name ("" : compared with the oracle)
}

func (o *outcome) checks() []report.Check { return report.Checks(o.rep.Spaces, o.classes) }

// write prints the report: JSON (--json) or the terminal report and summary table.
func (o *outcome) write(w io.Writer, asJSON bool) error {
	if !asJSON {
		report.WriteText(w, o.classes)
		if len(o.classes) > 0 {
			fmt.Fprintln(w)
		}
		report.WriteSummary(w, o.rep, len(report.Defects(o.classes)), len(o.classes), o.elapsed, o.versus)
		return nil
	}
	doc := report.NewDocument(o.rep, o.classes)
	doc.Config, doc.Modes, doc.Elapsed, doc.Targets, doc.NotChecked = o.config, o.modes, o.elapsed, o.targets, o.notChecked
	doc.Shard, doc.MergedFrom = report.Shard{Index: o.shard, Count: o.shards}, o.mergedFrom
	return doc.Write(w)
}

// notIdentity are the campaign flags that change how a run goes or what it writes, not what
// it checks: shards that differ only in these belong to one sweep.
var notIdentity = map[string]bool{"workers": true, "json": true, "findings": true, "junit": true, "out": true,
	"examples": true, "shard": true, "timeout": true, "stats": true, "checkpoint": true}

// campaignConfig is what a campaign checks, as one line: the flags that choose it (sorted,
// those of notIdentity left out), the candidates they resolve to and the platform.
// `difffuzz merge` refuses shard reports whose configs differ.
func campaignConfig(fs *flag.FlagSet, c *common, execs []string) string {
	var flags []string
	fs.Visit(func(f *flag.Flag) {
		if !notIdentity[f.Name] {
			flags = append(flags, "--"+f.Name+"="+f.Value.String())
		}
	})
	sort.Strings(flags)
	var cands []string
	for _, im := range c.cands {
		cands = append(cands, im.Name)
	}
	cands = append(cands, execs...)
	return fmt.Sprintf("%s; candidates %s; %s/%s", strings.Join(flags, " "), strings.Join(cands, ","), runtime.GOOS, runtime.GOARCH)
}
