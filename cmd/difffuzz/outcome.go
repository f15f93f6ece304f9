package main

import (
	"encoding/json"
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

// reportVersion is the version of the --json report's layout; `difffuzz merge` reads reports
// of this version only.
const reportVersion = 1

// outcome is what a campaign, or a merge of shard reports, prints: the spaces checked, the
// defect classes, and how it ran.
type outcome struct {
	modes      []string
	config     string // campaignConfig: what the shards of one sweep share
	rep        *fuzz.Report
	classes    []*report.Class
	elapsed    time.Duration
	targets    []map[string]any // targetsJSON, of every shard for a merge
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
		printSummary(w, o.rep, len(report.Defects(o.classes)), len(o.classes), o.elapsed, o.versus)
		return nil
	}
	fj := make([]map[string]any, len(o.rep.Findings))
	fr := make([]report.FindingRecord, len(o.rep.Findings))
	for i, f := range o.rep.Findings {
		fj[i], fr[i] = f.JSON(), report.RecordOf(f)
	}
	cj := make([]map[string]any, len(o.classes))
	cr := make([]report.ClassRecord, len(o.classes))
	defects := map[*report.Class][]*report.Defect{} // a class whose findings deviate twice is in two
	for _, d := range report.Defects(o.classes) {
		for _, cl := range d.Classes {
			defects[cl] = append(defects[cl], d)
		}
	}
	for i, cl := range o.classes {
		cj[i] = cl.JSON()
		first := defects[cl][0]
		cj[i]["defect"], cj[i]["defect_title"] = first.N, first.Title()
		var all []int
		for _, d := range defects[cl] {
			all = append(all, d.N)
		}
		cj[i]["defects"] = all
		cr[i] = cl.Record()
	}
	checks := o.checks()
	chj := make([]map[string]any, len(checks))
	for i, ch := range checks {
		chj[i] = ch.JSON()
	}
	passed, failed, cut := report.Tally(checks)
	m := map[string]any{
		"version": reportVersion, "config": o.config, "modes": o.modes, "spaces": o.rep.Spaces, "differences": o.rep.Differences,
		"classes": cj, "findings": fj, "interrupted": o.rep.Interrupted, "elapsed_ns": o.elapsed, "targets": o.targets,
		"checks": chj, "passed": passed, "failed": failed, "interrupted_checks": cut,
		"shard":               map[string]int{"index": o.shard, "count": o.shards},
		"options_not_checked": o.notChecked,
		"records":             map[string]any{"classes": cr, "findings": fr},
	}
	if o.mergedFrom > 0 {
		m["merged_from"] = o.mergedFrom
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
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
