package bench

import (
	"fmt"
	"io"
	"strings"
)

// Verdict says on w what was not timed and why: wrong answers (a finding) and failures (the
// target crashed, hung or answered a malformed line), one line for each candidate's first,
// one with its count; a baseline timed on no cell, and an interrupt. It returns whether a
// candidate answered wrong and whether the run failed (a failure, an untimed baseline, an
// interrupt).
func Verdict(w io.Writer, rep *Report, cands []Candidate) (wrongAnswers, failed bool) {
	wrong, broken := map[string]int{}, map[string]int{}
	for _, c := range rep.Cells {
		for _, m := range c.Measures {
			if !m.Refused() || m.Candidate == rep.Control { // the control is the first candidate again
				continue
			}
			count := broken
			if strings.HasPrefix(m.Skipped, "refused: ") {
				count = wrong
			}
			if wrong[m.Candidate]+broken[m.Candidate] == 0 {
				fmt.Fprintf(w, "difffuzz: bench: %s on %s: %s\n", m.Candidate, c.Name, m.Skipped)
			}
			count[m.Candidate]++
		}
	}
	for _, cand := range cands {
		name := cand.Name
		if n := wrong[name]; n > 0 {
			fmt.Fprintf(w, "difffuzz: bench: %s was not timed on %s: a wrong answer is never timed\n", name, plural(n, "cell"))
			wrongAnswers = true
		}
		if n := broken[name]; n > 0 {
			fmt.Fprintf(w, "difffuzz: bench: %s failed on %s (it crashed, hung, answered a malformed line or a time that cannot be one)\n", name, plural(n, "cell"))
			failed = true
		}
	}
	baseTimed := false
	for _, c := range rep.Cells {
		for _, m := range c.Measures {
			baseTimed = baseTimed || m.Candidate == rep.Baseline && m.Median > 0
		}
	}
	if !baseTimed && len(rep.Cells) > 0 {
		fmt.Fprintf(w, "difffuzz: bench: the baseline %s was timed on no cell (none is its operation, option set or size): no speedup could be given\n", rep.Baseline)
		failed = true
	}
	if rep.Interrupted {
		fmt.Fprintf(w, "difffuzz: bench: interrupted: the report covers the %s timed before\n", plural(len(rep.Cells), "cell"))
		failed = true
	}
	return wrongAnswers, failed
}
