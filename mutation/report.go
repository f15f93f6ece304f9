package mutation

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Score is the mutation score of results in percent: killed / (killed + survived + timed
// out); not viable mutants count in neither part. It is 100 when nothing counts. counts are
// the results by outcome.
func Score(results []Result) (score float64, counts map[Outcome]int) {
	counts = map[Outcome]int{}
	for _, r := range results {
		counts[r.Outcome]++
	}
	n := counts[Killed] + counts[Survived] + counts[TimedOut]
	if n == 0 {
		return 100, counts
	}
	return 100 * float64(counts[Killed]) / float64(n), counts
}

// WriteText writes the results as a table, a row a mutant: id, file:line:col, function,
// operator, original → mutated, outcome, and the killer (and its first failing test) or, for
// a mutant that did not compile, the compiler's message.
func WriteText(w io.Writer, results []Result) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tsite\tfunc\toperator\tmutant\toutcome\tby")
	for _, r := range results {
		by := r.KilledBy
		if r.Test != "" {
			by += " (" + r.Test + ")"
		}
		if r.Outcome == NotViable {
			by = r.Detail
		}
		fmt.Fprintf(tw, "%d\t%s:%d:%d\t%s\t%s\t%s → %s\t%s\t%s\n", r.ID, r.File, r.Line, r.Col, r.Func, r.Operator,
			clip(r.Original, 40), clip(r.Mutated, 40), r.Outcome, by)
	}
	tw.Flush()
}

// clip shortens s to at most n bytes, marking the cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "…"
}
