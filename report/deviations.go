package report

import (
	"sort"
	"strings"

	"github.com/difffuzz/difffuzz/deviation"
	"github.com/difffuzz/difffuzz/fuzz"
)

// deviationsOf is what the candidate did where f's answer differs from PHP's (package
// deviation); nil for kinds without an answer to compare (crashes, panics, memory faults).
func deviationsOf(f *fuzz.Finding) []deviation.Deviation {
	switch {
	case f.Op == fuzz.OpEscape && (f.Kind == fuzz.KindOutput || f.Kind == fuzz.KindError):
		return deviation.Escape(f.Input, f.Flags, f.Got, f.GotErr, f.GotErr != 0 && len(f.Got) == 0)
	case f.Op == fuzz.OpUTF8Decode && f.Kind == fuzz.KindOutput:
		return deviation.UTF8Decode(f.Input, f.Got)
	case f.Op == fuzz.OpDecode && f.Kind == fuzz.KindStep:
		return deviation.Step(f.Input, f.Pos, f.GotStep)
	}
	return nil
}

// rowsOf is the spec rows a deviation names ("80..C1, C2..DF" split).
func rowsOf(d deviation.Deviation) []string {
	if d.Row == "" {
		return nil
	}
	return strings.Split(d.Row, ", ")
}

// doesText is what the candidate does on a class's witness, one deviation per entry: the
// witness is minimized, so its answer is short enough to align with PHP's step by step.
func doesText(c *Class) []string {
	var out []string
	for _, d := range deviationsOf(c.Witness) {
		out = append(out, deviation.Title(string(c.Op), d, rowsOf(d)))
	}
	return out
}

// defectDoes is what the candidate does in a defect's classes, from their witnesses: the
// deviation most of their findings show first (with the rows of every class that shows it),
// "" when no witness has one.
func defectDoes(d *Defect) string {
	type agg struct {
		dev      deviation.Deviation
		op       fuzz.Op
		findings uint64
		rows     map[string]bool
	}
	byKey := map[string]*agg{}
	for _, c := range d.Classes {
		ds := deviationsOf(c.Witness)
		if len(ds) == 0 {
			continue
		}
		a := byKey[ds[0].Key()]
		if a == nil {
			a = &agg{dev: ds[0], op: c.Op, rows: map[string]bool{}}
			byKey[ds[0].Key()] = a
		}
		a.findings += c.Findings
		for _, r := range rowsOf(ds[0]) {
			a.rows[r] = true
		}
	}
	var best *agg
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if a := byKey[k]; best == nil || a.findings > best.findings {
			best = a
		}
	}
	if best == nil {
		return ""
	}
	var rows []string
	for r := range best.rows {
		rows = append(rows, r)
	}
	sort.Strings(rows)
	return deviation.Title(string(best.op), best.dev, rows)
}
