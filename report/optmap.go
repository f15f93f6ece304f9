package report

import (
	"sort"
	"strings"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// mapUnit is what an option map (fuzz.OptionMap) may take from the defects of a candidate: a
// defect named by a deviation, whole, or one class of a defect grouped by cause (an "options"
// defect may hold classes of several faults).
type mapUnit struct {
	from     *Defect
	class    *Class // nil for a whole defect
	witness  *fuzz.Finding
	evidence []*fuzz.Finding // the witness, then the examples that show one deviation only
	findings uint64
}

// mergeOptionMaps gives each misreading of two option bits one defect: per candidate, the
// option map (fuzz.OptionMaps of the bits its escape findings answer as if set or not set)
// that explains the most units, one-way before swapped when both do (mapUnit: the witness and every example that shows nothing
// else is PHP's answer under the options the map makes), at least two, and over which some
// answer needs a bit the map sets and some one it clears (fuzz.OptionMap.Needs; else it is
// an option ignored or one answered as if set, which the defects name already, and a
// candidate that ignores every option would swap each bit with one the input does not read). Its units leave their defects for the map's; it is tried again on
// the rest. A swapped HEX_APOS and HEX_QUOT is one defect, not one per quote and direction.
func mergeOptionMaps(defects []*Defect) []*Defect {
	byImpl := map[string][]*mapUnit{}
	var impls []string
	for _, d := range defects {
		us := mapUnits(d)
		if len(us) > 0 && byImpl[d.Impl] == nil {
			impls = append(impls, d.Impl)
		}
		byImpl[d.Impl] = append(byImpl[d.Impl], us...)
	}
	for _, impl := range impls {
		units := byImpl[impl]
		for {
			m, taken := bestMap(units)
			if taken == nil {
				break
			}
			defects = append(defects, mapDefect(impl, m, taken))
			units = removeUnits(units, taken)
		}
	}
	out := defects[:0]
	for _, d := range defects {
		if len(d.Classes) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// mapUnits are d's units: d itself when a deviation names it, its classes when a cause groups
// them (not a position, a known behaviour or a map's), each only when its witness is an
// escape answer.
func mapUnits(d *Defect) []*mapUnit {
	var out []*mapUnit
	add := func(u *mapUnit, examples []*fuzz.Finding) {
		if u.witness == nil || u.witness.Op != fuzz.OpEscape {
			return
		}
		u.evidence = []*fuzz.Finding{u.witness}
		for _, e := range examples {
			if len(deviationsOf(e)) == 1 {
				u.evidence = append(u.evidence, e)
			}
		}
		out = append(out, u)
	}
	switch {
	case d.mapped != nil || strings.HasPrefix(d.Cause, "model ") || strings.HasPrefix(d.Cause, "position "):
	case d.Dev != nil:
		add(&mapUnit{from: d, witness: d.Dev.Witness, findings: d.Findings}, d.Dev.Examples(3))
	default:
		for _, c := range d.Classes {
			add(&mapUnit{from: d, class: c, witness: c.Witness, findings: c.Findings}, c.Examples)
		}
	}
	return out
}

// bestMap is the map mergeOptionMaps takes from units and the units it explains, or nil.
func bestMap(units []*mapUnit) (fuzz.OptionMap, []*mapUnit) {
	var bits jsonopt.Options
	for _, u := range units {
		bits |= u.witness.Flags | fuzz.AddedOptions(u.witness)
	}
	var best fuzz.OptionMap
	var taken []*mapUnit
	var most uint64
	for _, m := range fuzz.OptionMaps(bits) {
		var us []*mapUnit
		var n uint64
		var sets, clears bool
		for _, u := range units {
			if !explainsAll(m, u.evidence) {
				continue
			}
			us = append(us, u)
			n += u.findings
			for _, f := range u.evidence {
				s, c := m.Needs(f)
				sets, clears = sets || s, clears || c
			}
		}
		// The fewest bits misread when two maps explain as much: a swap explains what a
		// one-way map does, and more (answers no finding shows).
		if len(us) >= 2 && sets && clears && (len(us) > len(taken) || len(us) == len(taken) && (n > most || n == most && best.Swap && !m.Swap)) {
			best, taken, most = m, us, n
		}
	}
	return best, taken
}

// explainsAll reports whether m explains every finding of fs.
func explainsAll(m fuzz.OptionMap, fs []*fuzz.Finding) bool {
	for _, f := range fs {
		if !m.Explains(f) {
			return false
		}
	}
	return true
}

// mapDefect is the defect of map m over its units: their classes and findings (a class in
// several units counts at most its findings), their witnesses largest unit first.
func mapDefect(impl string, m fuzz.OptionMap, units []*mapUnit) *Defect {
	sort.SliceStable(units, func(i, j int) bool { return units[i].findings > units[j].findings })
	d := &Defect{Impl: impl, Cause: "options " + m.String(), mapped: &m, byClass: map[*Class]uint64{}}
	add := func(c *Class, n uint64) {
		if _, ok := d.byClass[c]; !ok {
			d.Classes = append(d.Classes, c)
		}
		n = min(n, c.Findings-d.byClass[c])
		d.byClass[c] += n
		d.Findings += n
	}
	for _, u := range units {
		d.witnesses = append(d.witnesses, u.witness)
		if u.class != nil {
			add(u.class, u.class.Findings)
			continue
		}
		for _, c := range u.from.Classes {
			add(c, u.from.byClass[c])
		}
	}
	return d
}

// removeUnits takes the units of taken out of their defects and returns the rest of units: a
// whole defect loses its classes, a cause's defect the class and its findings (and the bits
// it ignored, when no other class of it ignores them).
func removeUnits(units, taken []*mapUnit) []*mapUnit {
	gone := map[*mapUnit]bool{}
	for _, u := range taken {
		gone[u] = true
		d := u.from
		if u.class == nil {
			d.Classes, d.Findings = nil, 0
			continue
		}
		for i, c := range d.Classes {
			if c == u.class {
				d.Classes = append(d.Classes[:i:i], d.Classes[i+1:]...)
				break
			}
		}
		d.Findings -= u.class.Findings
		d.Ignored = 0
		for _, c := range d.Classes {
			d.Ignored |= c.Ignored
		}
	}
	var rest []*mapUnit
	for _, u := range units {
		if !gone[u] && len(u.from.Classes) > 0 {
			rest = append(rest, u)
		}
	}
	return rest
}
