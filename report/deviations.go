package report

import (
	"bytes"
	"context"
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

// hasDeviation is the minimization predicate of a deviation: the finding still shows a
// deviation with that key (whatever else it shows, and wherever its first difference is).
func hasDeviation(key string) func(*fuzz.Finding) bool {
	return func(f *fuzz.Finding) bool {
		for _, d := range deviationsOf(f) {
			if d.Key() == key {
				return true
			}
		}
		return false
	}
}

// maxVariants bounds the examples a DevStat keeps: the smallest finding of each row and shape.
const maxVariants = 12

// DevStat is what the findings of a class (or a defect) show of one deviation: every finding
// that shows it counts, even when it shows others too (one fault cannot hide another).
type DevStat struct {
	Dev      deviation.Deviation // as the smallest finding showing it has it (for the title)
	Findings uint64
	Rows     map[string]uint64 // findings by the spec row the deviation was seen in
	Ops      map[fuzz.Op]uint64
	// Witness is the smallest finding that shows it, minimized keeping it when Classes could
	// (Minimized set), else the smallest as found.
	Witness *fuzz.Finding
	// variants are the smallest finding of each row and shape of the deviation's bytes, for
	// examples that teach: other rows and shapes of the same deviation, not filler variants.
	variants map[string]*fuzz.Finding
}

func newDevStat(d deviation.Deviation) *DevStat {
	return &DevStat{Dev: d, Rows: map[string]uint64{}, Ops: map[fuzz.Op]uint64{}, variants: map[string]*fuzz.Finding{}}
}

// add counts f, which shows d.
func (s *DevStat) add(f *fuzz.Finding, d deviation.Deviation) {
	s.Findings++
	s.Ops[f.Op]++
	for _, r := range strings.Split(d.Row, ", ") {
		if r != "" {
			s.Rows[r]++
		}
	}
	if s.Witness == nil || smaller(f, s.Witness) {
		s.Witness, s.Dev = f, d
	}
	v := d.Row + "\x00" + string(f.Op) + "\x00" + fuzz.Shape(f.Input)
	if old, ok := s.variants[v]; ok {
		if smaller(f, old) {
			s.variants[v] = f
		}
	} else if len(s.variants) < maxVariants {
		s.variants[v] = f
	}
}

// merge adds o's counts and examples to s.
func (s *DevStat) merge(o *DevStat) {
	s.Findings += o.Findings
	for r, n := range o.Rows {
		s.Rows[r] += n
	}
	for op, n := range o.Ops {
		s.Ops[op] += n
	}
	if s.Witness == nil || better(o.Witness, s.Witness) {
		s.Witness, s.Dev = o.Witness, o.Dev
	}
	for v, f := range o.variants {
		if old, ok := s.variants[v]; ok && smaller(old, f) {
			continue
		}
		if _, ok := s.variants[v]; ok || len(s.variants) < maxVariants {
			s.variants[v] = f
		}
	}
}

// better prefers a minimized witness, then the smaller.
func better(a, b *fuzz.Finding) bool {
	if a.Minimized != b.Minimized {
		return a.Minimized
	}
	return smaller(a, b)
}

// RowList is the rows the deviation was seen in, in the spec's order.
func (s *DevStat) RowList() []string {
	var rows []string
	for r := range s.Rows {
		rows = append(rows, r)
	}
	order := []string{"00..7F", "80..C1", "C2..DF", "E0..EF", "F0..F4", "F5..FF", "wide", "end"}
	rank := func(r string) int {
		for i, o := range order {
			if o == r {
				return i
			}
		}
		return len(order)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rank(rows[i]) != rank(rows[j]) {
			return rank(rows[i]) < rank(rows[j])
		}
		return rows[i] < rows[j]
	})
	return rows
}

// Examples are up to n findings that show the deviation besides the witness: one per row and
// shape first (rows the witness is not in first), the smallest of each.
func (s *DevStat) Examples(n int) []*fuzz.Finding {
	var all []*fuzz.Finding
	for _, f := range s.variants {
		if s.Witness != nil && bytes.Equal(f.Input, s.Witness.Input) && f.Flags == s.Witness.Flags {
			continue
		}
		all = append(all, f)
	}
	sort.Slice(all, func(i, j int) bool { return smaller(all[i], all[j]) })
	seenRow := map[string]bool{}
	if s.Witness != nil {
		for _, d := range deviationsOf(s.Witness) {
			if d.Key() == s.Dev.Key() {
				seenRow[d.Row] = true
			}
		}
	}
	var out, rest []*fuzz.Finding
	for _, f := range all {
		row := ""
		for _, d := range deviationsOf(f) {
			if d.Key() == s.Dev.Key() {
				row = d.Row
			}
		}
		if !seenRow[row] && len(out) < n {
			seenRow[row] = true
			out = append(out, f)
			continue
		}
		rest = append(rest, f)
	}
	for _, f := range rest {
		if len(out) == n {
			break
		}
		out = append(out, f)
	}
	return out
}

// addDeviations counts f's deviations in m.
func addDeviations(m map[string]*DevStat, f *fuzz.Finding, ds []deviation.Deviation) {
	for _, d := range ds {
		s := m[d.Key()]
		if s == nil {
			s = newDevStat(d)
			m[d.Key()] = s
		}
		s.add(f, d)
	}
}

// hiddenShare: a deviation no class witness shows gets a witness of its own (and so a defect)
// when at least 1/hiddenShare of the candidate's findings show it. Fewer are mostly stretches
// misread in long answers whose other faults shift the alignment; a hidden fault in exhaustive
// and boundary spaces shows in many short inputs.
const hiddenShare = 200

// minimizeDeviations gives each deviation of each candidate a minimized witness that shows it:
// the smallest class witness that does, or else the smallest finding that does, minimized
// keeping that deviation (hasDeviation: not merely "still differs", so that the witness keeps
// the context the deviation needs, such as the prefix whose loss it is).
func (t *Triage) minimizeDeviations(ctx context.Context, recheck Rechecker, classes []*Class, minimized *int) {
	byKey := map[string]*DevStat{}
	var keys []string
	shown := map[string]bool{}         // keys a class witness shows: confirmed already
	findings := map[string]uint64{}    // by candidate
	devFindings := map[string]uint64{} // by candidate and key
	for _, c := range classes {
		findings[c.Impl] += c.Findings
		for k, s := range c.Deviations {
			devFindings[c.Impl+"\x00"+k] += s.Findings
		}
		if c.Minimized {
			for _, d := range deviationsOf(c.Witness) {
				shown[c.Impl+"\x00"+d.Key()] = true
			}
		}
	}
	for _, c := range classes {
		for k, s := range c.Deviations {
			if hasDeviation(k)(c.Witness) && c.Minimized {
				s.Witness = c.Witness
			}
			key := c.Impl + "\x00" + k
			if o := byKey[key]; o == nil || better(s.Witness, o.Witness) {
				if o == nil {
					keys = append(keys, key)
				}
				byKey[key] = s
			}
		}
	}
	sort.Strings(keys)
	for _, key := range keys {
		s := byKey[key]
		impl, _, _ := strings.Cut(key, "\x00")
		if s.Witness.Minimized || shown[key] || devFindings[key]*hiddenShare < findings[impl] || recheck == nil || ctx.Err() != nil || *minimized >= t.cfg.MaxMinimize {
			continue
		}
		im, check, ok := recheck(s.Witness.Impl)
		if !ok {
			continue
		}
		*minimized++
		w := fuzz.MinimizeWith(s.Witness, im, check, fuzz.MinimizeOptions{Same: hasDeviation(s.Dev.Key())})
		if w.Minimized {
			s.Witness = w
			for _, d := range deviationsOf(w) {
				if d.Key() == s.Dev.Key() {
					s.Dev = d
				}
			}
		}
	}
}

// deviationByKey is the deviation of f with that key.
func deviationByKey(f *fuzz.Finding, key string) (deviation.Deviation, bool) {
	for _, d := range deviationsOf(f) {
		if d.Key() == key {
			return d, true
		}
	}
	return deviation.Deviation{}, false
}

// sortedVariants are s's examples in a fixed order (smallest first).
func sortedVariants(s *DevStat) []*fuzz.Finding {
	out := make([]*fuzz.Finding, 0, len(s.variants))
	for _, f := range s.variants {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return smaller(out[i], out[j]) })
	return out
}
