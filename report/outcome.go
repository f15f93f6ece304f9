package report

import (
	"fmt"
	"io"
	"time"

	"github.com/difffuzz/difffuzz/fuzz"
)

// Outcome is what a campaign, or a merge of shard reports, prints: the spaces checked, the
// defect classes, and how it ran.
type Outcome struct {
	Modes      []string
	Config     string // what the shards of one sweep share (campaign.ConfigLine)
	Report     *fuzz.Report
	Classes    []*Class
	Elapsed    time.Duration
	Targets    []TargetRecord // of every shard for a merge
	Shard      int
	Shards     int
	NotChecked []string
	MergedFrom int    // the shard reports a merge read (0 for a campaign)
	Versus     string // the --reference-exec target's name ("" : compared with the oracle)
}

// Checks are the outcome's checks (space × operation × candidate).
func (o *Outcome) Checks() []Check { return Checks(o.Report.Spaces, o.Classes) }

// Write prints the report: the JSON Document (asJSON) or the terminal report and summary
// table.
func (o *Outcome) Write(w io.Writer, asJSON bool) error {
	if !asJSON {
		WriteText(w, o.Classes)
		if len(o.Classes) > 0 {
			fmt.Fprintln(w)
		}
		WriteSummary(w, o.Report, len(Defects(o.Classes)), len(o.Classes), o.Elapsed, o.Versus)
		return nil
	}
	doc := NewDocument(o.Report, o.Classes)
	doc.Config, doc.Modes, doc.Elapsed, doc.Targets, doc.NotChecked = o.Config, o.Modes, o.Elapsed, o.Targets, o.NotChecked
	doc.Shard, doc.MergedFrom = Shard{Index: o.Shard, Count: o.Shards}, o.MergedFrom
	return doc.Write(w)
}
