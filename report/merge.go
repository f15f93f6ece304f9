package report

import (
	"sort"
	"strconv"

	"github.com/difffuzz/difffuzz/fuzz"
)

// Merge combines the classes of several shards of one sweep into the classes of the whole:
// classes with the same signature are one, their counts added (findings, by space and kind,
// inputs not run), their witness the smaller minimized one, their examples the smallest of
// all (at most examples; the shards' own bound when 0). The result is ordered and numbered as
// Triage.Classes orders a single run's.
func Merge(shards [][]*Class, examples int) []*Class {
	byKey := map[string]*Class{}
	var out []*Class
	most := 0
	for _, classes := range shards {
		for _, c := range classes {
			most = max(most, len(c.Examples))
			m := byKey[c.Signature.key()]
			if m == nil {
				m = &Class{Signature: c.Signature, Ignored: c.Ignored, Spaces: map[string]uint64{}, Kinds: map[fuzz.Kind]uint64{}}
				byKey[c.Signature.key()] = m
				out = append(out, m)
			}
			if m.Witness == nil || (c.Minimized && !m.Minimized) || (c.Minimized == m.Minimized && smaller(c.Witness, m.Witness)) {
				m.Witness, m.Attribution, m.Minimized, m.Note = c.Witness, c.Attribution, c.Minimized, c.Note
			}
			m.Findings += c.Findings
			m.NotRun += c.NotRun
			m.NotRunFalse = m.NotRunFalse || c.NotRunFalse
			m.Deviations = mergeDevs(m.Deviations, c.Deviations)
			for s, n := range c.Spaces {
				m.Spaces[s] += n
			}
			for k, n := range c.Kinds {
				m.Kinds[k] += n
			}
			m.Examples = append(m.Examples, c.Examples...)
		}
	}
	if examples == 0 {
		examples = most
	}
	for _, m := range out {
		sort.SliceStable(m.Examples, func(i, j int) bool { return smaller(m.Examples[i], m.Examples[j]) })
		m.Examples, m.examples = m.Examples[:min(len(m.Examples), examples)], examples
	}
	number(out)
	return out
}

// number sorts classes as a report lists them (most findings first, then operation, candidate
// and witness) and gives them their ids, D1 first.
func number(classes []*Class) {
	sort.SliceStable(classes, func(i, j int) bool {
		a, b := classes[i], classes[j]
		if a.Findings != b.Findings {
			return a.Findings > b.Findings
		}
		if a.Op != b.Op {
			return opIndex(a.Op) < opIndex(b.Op)
		}
		if a.Impl != b.Impl {
			return a.Impl < b.Impl
		}
		return smaller(a.Witness, b.Witness)
	})
	for i, c := range classes {
		c.ID = "D" + strconv.Itoa(i+1)
	}
}
