package bench

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Verdict names each candidate's first refusal and counts the rest: a wrong answer is a
// finding, a failure (a crash, a hang, a malformed line) fails the run; the A/A control's
// refusals are its first candidate's again, not counted twice.
func TestVerdict(t *testing.T) {
	cell := func(name string, ms ...Measure) CellResult { return CellResult{Name: name, Measures: ms} }
	rep := &Report{Baseline: "a", Control: "a (A/A)", Cells: []CellResult{
		cell("escape/16B/url/default", Measure{Candidate: "a", Median: 10}, Measure{Candidate: "a (A/A)", Skipped: "failed: crashed"},
			Measure{Candidate: "b", Skipped: "refused: wrong answer to bench escape"}, Measure{Candidate: "c", Skipped: "not its operation"}),
		cell("escape/16B/html/default", Measure{Candidate: "a", Median: 10},
			Measure{Candidate: "b", Skipped: "refused: wrong answer to bench escape"}, Measure{Candidate: "c", Skipped: "failed: target hung"}),
	}}
	var w strings.Builder
	wrong, failed := Verdict(&w, rep, []Candidate{{Name: "a"}, {Name: "b"}, {Name: "c"}})
	assert.True(t, wrong)
	assert.True(t, failed)
	assert.Equal(t, `difffuzz: bench: b on escape/16B/url/default: refused: wrong answer to bench escape
difffuzz: bench: c on escape/16B/html/default: failed: target hung
difffuzz: bench: b was not timed on 2 cells: a wrong answer is never timed
difffuzz: bench: c failed on 1 cell (it crashed, hung, answered a malformed line or a time that cannot be one)
`, w.String())

	// Only wrong answers: a finding, the run itself fine.
	rep.Cells[1].Measures[2].Skipped = "not its option set"
	w.Reset()
	wrong, failed = Verdict(&w, rep, []Candidate{{Name: "a"}, {Name: "b"}, {Name: "c"}})
	assert.True(t, wrong)
	assert.False(t, failed, w.String())

	// A baseline timed on no cell, and an interrupt, fail the run.
	rep = &Report{Baseline: "a", Interrupted: true, Cells: []CellResult{cell("decode/4KiB/cjk/default", Measure{Candidate: "a", Skipped: "not its operation"})}}
	w.Reset()
	wrong, failed = Verdict(&w, rep, []Candidate{{Name: "a"}})
	assert.False(t, wrong)
	assert.True(t, failed)
	assert.Equal(t, `difffuzz: bench: the baseline a was timed on no cell (none is its operation, option set or size): no speedup could be given
difffuzz: bench: interrupted: the report covers the 1 cell timed before
`, w.String())
}
