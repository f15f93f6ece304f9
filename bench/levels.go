package bench

import (
	"math"
	"slices"
)

// LevelSummary aggregates the cells under one node of the report's tree: an operation
// ("all"), a size within it, a corpus within a size. Leaves (a corpus under one option set)
// are the cells themselves.
type LevelSummary struct {
	Level    string         `json:"level"` // "all", "size" or "corpus"
	Op       string         `json:"op"`
	Size     string         `json:"size,omitempty"`
	Corpus   string         `json:"corpus,omitempty"`
	Cells    int            `json:"cells"`
	Measures []LevelMeasure `json:"measures"` // in Report.Candidates order
}

// LevelMeasure is a candidate's aggregate over a level's cells: geometric means of the
// cells' speedups and costs in copies (over the cells where it was timed).
type LevelMeasure struct {
	Candidate string  `json:"candidate"`
	Cells     int     `json:"cells"` // the cells it was timed on
	Speedup   float64 `json:"speedup,omitempty"`
	Copies    float64 `json:"copies,omitempty"`
	// Verdict is "faster" or "slower" when the mean is outside the noise floor, at least half
	// the cells where the candidate was timed have that verdict and none has the other; "≈"
	// otherwise; "" for the baseline.
	Verdict string `json:"verdict,omitempty"`
	// Refused counts the level's cells where the candidate gave a wrong answer or failed:
	// its means then cover only the others, and the tables print "wrong on N".
	Refused int `json:"refused,omitempty"`
}

// levels builds the aggregates: per operation, its sizes, their corpora, in the order the
// cells came in.
func levels(rep *Report) []LevelSummary {
	base := slices.Index(rep.Candidates, rep.Baseline)
	var out []LevelSummary
	add := func(level, op, size, corpus string, keep func(CellResult) bool) {
		ls := LevelSummary{Level: level, Op: op, Size: size, Corpus: corpus}
		var cells []CellResult
		for _, c := range rep.Cells {
			if keep(c) {
				cells = append(cells, c)
			}
		}
		ls.Cells = len(cells)
		for j, name := range rep.Candidates {
			var sp, cp []float64
			refused := 0
			votes := map[string]int{}
			for _, c := range cells {
				m := c.Measures[j]
				if m.Speedup > 0 {
					sp = append(sp, m.Speedup)
					votes[m.Verdict]++
				}
				if m.Copies > 0 {
					cp = append(cp, m.Copies)
				}
				if m.Refused() {
					refused++
				}
			}
			lm := LevelMeasure{Candidate: name, Cells: len(sp), Speedup: geomean(sp), Copies: geomean(cp), Refused: refused}
			lm.Verdict = verdict(lm.Speedup, rep.Floor, j == base)
			other := map[string]string{"faster": "slower", "slower": "faster"}[lm.Verdict]
			if other != "" && (votes[other] > 0 || 2*votes[lm.Verdict] < len(sp)) {
				lm.Verdict = "≈" // the cells do not bear it out
			}
			ls.Measures = append(ls.Measures, lm)
		}
		out = append(out, ls)
	}
	for _, op := range uniq(rep.Cells, func(c CellResult) string { return c.Op }) {
		add("all", op, "", "", func(c CellResult) bool { return c.Op == op })
		inOp := filter(rep.Cells, func(c CellResult) bool { return c.Op == op })
		for _, size := range uniq(inOp, func(c CellResult) string { return c.Size }) {
			add("size", op, size, "", func(c CellResult) bool { return c.Op == op && c.Size == size })
			inSize := filter(inOp, func(c CellResult) bool { return c.Size == size })
			for _, corp := range uniq(inSize, func(c CellResult) string { return c.Corpus }) {
				add("corpus", op, size, corp, func(c CellResult) bool { return c.Op == op && c.Size == size && c.Corpus == corp })
			}
		}
	}
	return out
}

func geomean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(xs)))
}

func uniq(cells []CellResult, key func(CellResult) string) []string {
	var out []string
	for _, c := range cells {
		if k := key(c); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func filter(cells []CellResult, keep func(CellResult) bool) []CellResult {
	var out []CellResult
	for _, c := range cells {
		if keep(c) {
			out = append(out, c)
		}
	}
	return out
}
