package report

import (
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/difffuzz/difffuzz/deviation"
	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// mapUnit is what an option map (fuzz.OptionMap) may take from the defects of a candidate: a
// defect named by a deviation, whole, or one of its classes whose witness shows the deviation
// (the deviation may be two faults' alike: ' and < escaped where PHP writes them raw), or one
// class of a defect grouped by cause (an "options" defect may hold classes of several faults).
type mapUnit struct {
	from     *Defect
	class    *Class // nil for a whole defect
	witness  *fuzz.Finding
	evidence []*fuzz.Finding // the witness, then the examples that show one deviation only
	findings uint64          // the findings it holds in from
}

// mapGroup is a defect's units: whole (nil for a defect grouped by cause) and its classes.
type mapGroup struct {
	from   *Defect
	others map[string]int // the deviation keys of the candidate's other defects (besides)
	whole  *mapUnit
	parts  []*mapUnit
}

// mergeOptionMaps gives each misreading of two option bits one defect: per candidate, the
// option map (fuzz.OptionMaps of the bits its escape findings are asked under or answered as
// if set) that explains the most units (mapUnit: the witness and every example that shows
// nothing else is PHP's answer under the options the map makes; a defect whole when it can,
// else its classes), at least two, over which the answers show each part of the map
// (fuzz.OptionMap.Needs and Shown: a bit the map sets or clears that an answer needs; else it
// is an option ignored or one answered as if set, which the defects name already, and a
// candidate that ignores every option would swap each bit with one the input does not read),
// a one-way map before a swap when both explain as much. Its units leave their defects for
// the map's; it is tried again on the rest. A swapped HEX_APOS and HEX_QUOT is one defect,
// not one per quote and direction.
func mergeOptionMaps(defects []*Defect) []*Defect {
	var impls []string
	seen := map[string]bool{}
	for _, d := range defects {
		if !seen[d.Impl] {
			seen[d.Impl] = true
			impls = append(impls, d.Impl)
		}
	}
	var maps []*Defect
	for _, impl := range impls {
		for {
			var groups []mapGroup
			keys := devKeys(defects, impl)
			for _, d := range defects {
				if d.Impl == impl && len(d.Classes) > 0 {
					if g, ok := mapUnits(d, keys); ok {
						groups = append(groups, g)
					}
				}
			}
			m, taken := bestMap(groups)
			if taken == nil {
				break
			}
			maps = append(maps, mapDefect(impl, m, taken))
			defects = append(defects, maps[len(maps)-1])
			removeUnits(taken)
		}
		foldComposed(defects, impl, maps)
		maps = nil
	}
	out := defects[:0]
	for _, d := range defects {
		if len(d.Classes) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// foldComposed files the units of the candidate's other escape defects whose witness and
// examples are PHP's answers under the options all its option faults together make of theirs
// (its maps applied, the bits its "options" defect ignores cleared) in the defect of a fault
// they need: two of its faults side by side in one answer (" escaped under HEX_APOS next to
// \ufffd written for U+FFFD raw under UNESCAPED_UNICODE), or the findings of other classes
// that show the ignored option, are not a fault of their own. A unit that needs a map counts
// in the first map's defect it needs; one that needs only the bits ignored is counted in the
// options defect (Defect.also: its classes are another fault's). An answer counts as PHP's
// when it is so but for deviations the candidate's other defects are named after
// (answeredBeside: a closing quote dropped from every answer). The defects' witnesses stay
// their own.
func foldComposed(defects []*Defect, impl string, maps []*Defect) {
	var opt *Defect
	for _, d := range defects {
		if d.Impl == impl && d.Cause == "options" && len(d.Classes) > 0 {
			opt = d
		}
	}
	if len(maps) == 0 && opt == nil {
		return
	}
	var ign jsonopt.Options
	if opt != nil {
		ign = opt.Ignored
	}
	// under is the options the faults but the skip-th make of o (skip len(maps): the bits
	// ignored; -1: none skipped).
	under := func(o jsonopt.Options, skip int) jsonopt.Options {
		for i, md := range maps {
			if i != skip {
				o = md.mapped.Apply(o)
			}
		}
		if skip != len(maps) {
			o &^= ign
		}
		return o
	}
	for _, d := range defects {
		if d.Impl != impl || d == opt || d.mapped != nil || len(d.Classes) == 0 {
			continue
		}
		g, ok := mapUnits(d, devKeys(defects, impl))
		if !ok {
			continue
		}
		// (PHP's answer, or so but for deviations other defects are named after.)
		ans := func(f *fuzz.Finding, o jsonopt.Options) bool { return answeredBeside(f, o, g.others) }
		var taken []*mapUnit
		for _, u := range composedUnits(g, func(f *fuzz.Finding) bool { return ans(f, under(f.Flags, -1)) }) {
			w := u.witness
			into := opt
			for i, md := range maps {
				if !ans(w, under(w.Flags, i)) {
					into = md // (the first map it needs)
					break
				}
			}
			if into == opt && (opt == nil || ans(w, under(w.Flags, len(maps)))) {
				continue // (needs no fault of these)
			}
			into.addUnit(u)
			taken = append(taken, u)
		}
		removeUnits(taken)
	}
	if opt != nil && len(maps) > 0 {
		moveTogether(opt, maps, under)
	}
}

// moveTogether moves the classes of an options defect that joined it as bits ignored together
// (ignoredTogether) but need one of the maps to be answered so (" escaped under HEX_APOS, by a
// candidate that swaps HEX_APOS and HEX_QUOT, next to \ufffd for UNESCAPED_UNICODE ignored) to
// the first map's defect they need; under is foldComposed's.
func moveTogether(opt *Defect, maps []*Defect, under func(jsonopt.Options, int) jsonopt.Options) {
	var taken []*mapUnit
	for _, c := range opt.Classes {
		w := c.Witness
		if c.Ignored != 0 || w.Op != fuzz.OpEscape || !fuzz.AnsweredUnder(w, under(w.Flags, -1)) {
			continue
		}
		for i, md := range maps {
			if !fuzz.AnsweredUnder(w, under(w.Flags, i)) {
				u := &mapUnit{from: opt, class: c, witness: w, findings: c.Findings}
				md.addUnit(u)
				taken = append(taken, u)
				break
			}
		}
	}
	removeUnits(taken)
}

// composedUnits are the units of g whose witness and examples all answer: g's whole when it
// does, else those of its parts that do.
func composedUnits(g mapGroup, answers func(*fuzz.Finding) bool) []*mapUnit {
	all := func(fs []*fuzz.Finding) bool {
		for _, f := range fs {
			if !answers(f) {
				return false
			}
		}
		return true
	}
	if g.whole != nil && all(g.whole.evidence) {
		return []*mapUnit{g.whole}
	}
	var out []*mapUnit
	for _, u := range g.parts {
		if all(u.evidence) {
			out = append(out, u)
		}
	}
	return out
}

// mapUnits are d's units: d itself and its classes whose witness shows its deviation when a
// deviation names it, its classes when a cause groups them (not a position, a known behaviour
// or a map's), each only when its witness is an escape answer. keys are the deviation keys of
// the candidate's defects (devKeys); an example is evidence when it shows one deviation but
// those of the others.
func mapUnits(d *Defect, keys map[string]int) (mapGroup, bool) {
	g := mapGroup{from: d, others: besides(keys, d)}
	unit := func(c *Class, w *fuzz.Finding, n uint64, examples []*fuzz.Finding) *mapUnit {
		if w == nil || w.Op != fuzz.OpEscape {
			return nil
		}
		u := &mapUnit{from: d, class: c, witness: w, findings: n, evidence: []*fuzz.Finding{w}}
		for _, e := range examples {
			if n := len(deviationsOf(e)); n == 1 || n > 1 && ownDeviations(e, g.others) == 1 {
				u.evidence = append(u.evidence, e)
			}
		}
		return u
	}
	switch {
	case d.mapped != nil || strings.HasPrefix(d.Cause, "model ") || strings.HasPrefix(d.Cause, "position "):
		return g, false
	case d.Dev != nil:
		g.whole = unit(nil, d.Dev.Witness, d.Findings, d.Dev.Examples(3))
		key := d.Dev.Dev.Key()
		for _, c := range d.Classes {
			if _, ok := deviationByKey(c.Witness, key); ok {
				if u := unit(c, c.Witness, d.byClass[c], c.Examples); u != nil {
					g.parts = append(g.parts, u)
				}
			}
		}
	default:
		for _, c := range d.Classes {
			if u := unit(c, c.Witness, c.Findings, c.Examples); u != nil {
				g.parts = append(g.parts, u)
			}
		}
	}
	return g, g.whole != nil || len(g.parts) > 0
}

// bestMap is the map mergeOptionMaps takes from groups and the units it explains, or nil. An
// answer is PHP's under the options the map makes when it is so but for deviations the
// candidate's other defects are named after (mapGroup.others): a swap of HEX_APOS and
// HEX_QUOT beside a closing quote dropped from every answer.
func bestMap(groups []mapGroup) (fuzz.OptionMap, []*mapUnit) {
	answered := map[*Defect]func(*fuzz.Finding, jsonopt.Options) bool{}
	for _, g := range groups {
		others := g.others
		answered[g.from] = func(f *fuzz.Finding, o jsonopt.Options) bool { return answeredBeside(f, o, others) }
	}
	var bits jsonopt.Options
	for _, g := range groups {
		for _, u := range append([]*mapUnit{g.whole}, g.parts...) {
			if u != nil {
				bits |= u.witness.Flags | fuzz.AddedOptions(u.witness)
			}
		}
	}
	var best fuzz.OptionMap
	var taken []*mapUnit
	var most uint64
	bestExact := 0
	for _, m := range fuzz.OptionMaps(bits) {
		us := explained(m, groups, answered)
		var n uint64
		var sets, clears jsonopt.Options
		exact := 0 // units whose evidence is PHP's answer under the map's options, nothing else
		for _, u := range us {
			n += u.findings
			all := true
			for _, f := range u.evidence {
				s, c := m.NeedsBy(f, answered[u.from])
				sets, clears = sets|s, clears|c
				all = all && m.Explains(f)
			}
			if all {
				exact++
			}
		}
		// Those explained exactly first: beside another fault's deviations, a one-way map
		// from a bit that fault ignores explains as much as the swap. Then the fewest bits
		// misread when two maps explain as much: a swap explains what a one-way map does,
		// and more (answers no finding shows).
		better := exact > bestExact || exact == bestExact && (len(us) > len(taken) || len(us) == len(taken) && (n > most || n == most && best.Swap && !m.Swap))
		if len(us) >= 2 && m.Shown(sets, clears) && better {
			best, taken, most, bestExact = m, us, n, exact
		}
	}
	return best, taken
}

// explained are the units of groups m explains (composedUnits of each group), by answered of
// each group's defect.
func explained(m fuzz.OptionMap, groups []mapGroup, answered map[*Defect]func(*fuzz.Finding, jsonopt.Options) bool) []*mapUnit {
	var us []*mapUnit
	for _, g := range groups {
		by := answered[g.from]
		us = append(us, composedUnits(g, func(f *fuzz.Finding) bool { return m.ExplainsBy(f, by) })...)
	}
	return us
}

// devKeys counts the deviation keys of the candidate's defects named by deviations.
func devKeys(defects []*Defect, impl string) map[string]int {
	keys := map[string]int{}
	for _, d := range defects {
		if d.Impl == impl && deviationWitness(d) != nil {
			keys[d.Dev.Dev.Key()]++
		}
	}
	return keys
}

// besides is keys without d's own (a defect's answer is not explained by its own deviation).
func besides(keys map[string]int, d *Defect) map[string]int {
	if deviationWitness(d) == nil {
		return keys
	}
	out := maps.Clone(keys)
	out[d.Dev.Dev.Key()]--
	return out
}

// ownDeviations counts the deviations of f that are not of keys.
func ownDeviations(f *fuzz.Finding, keys map[string]int) int {
	n := 0
	for _, r := range deviationsOf(f) {
		if !inKeys(r, keys) {
			n++
		}
	}
	return n
}

// inKeys reports whether keys holds r's key or one of its other readings.
func inKeys(r deviation.Deviation, keys map[string]int) bool {
	ok := keys[r.Key()] > 0
	for _, a := range r.Alts {
		ok = ok || keys[a] > 0
	}
	return ok
}

// answeredBeside reports whether PHP's answer to the escape finding f under o is the
// candidate's, or differs from it only by deviations keys holds (those the candidate's other
// defects are named after, a count each: a closing quote dropped from every answer).
func answeredBeside(f *fuzz.Finding, o jsonopt.Options, keys map[string]int) bool {
	if fuzz.AnsweredUnder(f, o) {
		return true
	}
	ds := deviation.Escape(f.Input, o, f.Got, f.GotErr, f.GotFalse())
	for _, r := range ds {
		if !inKeys(r, keys) {
			return false
		}
	}
	return len(ds) > 0
}

// mapDefect is the defect of map m over its units: their classes and findings (a class in
// several units counts at most its findings), their witnesses largest unit first.
func mapDefect(impl string, m fuzz.OptionMap, units []*mapUnit) *Defect {
	sort.SliceStable(units, func(i, j int) bool { return units[i].findings > units[j].findings })
	d := &Defect{Impl: impl, Cause: "options " + m.String(), mapped: &m, byClass: map[*Class]uint64{}}
	for _, u := range units {
		d.witnesses = append(d.witnesses, u.witness)
		d.addUnit(u)
	}
	return d
}

// addUnit counts u's classes and findings in d: a map's defect lists the classes; an options
// defect, whose classes are its own, counts them apart (also).
func (d *Defect) addUnit(u *mapUnit) {
	add := func(c *Class, n uint64) {
		counts := &d.byClass
		if d.mapped == nil {
			counts = &d.also
		}
		if *counts == nil {
			*counts = map[*Class]uint64{}
		}
		if _, ok := (*counts)[c]; !ok {
			if d.mapped != nil {
				d.Classes = append(d.Classes, c)
			} else {
				d.alsoOrder = append(d.alsoOrder, c)
			}
		}
		n = min(n, c.Findings-(*counts)[c])
		(*counts)[c] += n
		d.Findings += n
	}
	if u.class != nil {
		add(u.class, u.findings)
		return
	}
	for _, c := range u.from.Classes {
		add(c, u.from.byClass[c])
	}
}

// removeUnits takes the units out of their defects: a whole defect loses its classes; one named
// by a deviation is filed again without the classes taken (refile); a cause's defect loses the
// classes and their findings (and the bits they ignored, when no other class of it ignores
// them).
func removeUnits(units []*mapUnit) {
	drop := map[*Defect]map[*Class]bool{}
	for _, u := range units {
		if u.class == nil {
			u.from.Classes, u.from.Findings = nil, 0
			continue
		}
		if drop[u.from] == nil {
			drop[u.from] = map[*Class]bool{}
		}
		drop[u.from][u.class] = true
	}
	for d, cs := range drop {
		if d.Dev != nil {
			d.refile(cs)
			continue
		}
		d.Classes = slices.DeleteFunc(d.Classes, func(c *Class) bool { return cs[c] })
		d.Findings, d.Ignored = 0, 0
		for _, c := range d.Classes {
			d.Findings += c.Findings
			d.Ignored |= c.Ignored
		}
	}
}

// foldIgnoredDevs makes one defect of a candidate's defects named by deviations whose escape
// witnesses are each answered as if the same option bits were not set (Defect.ignoredDev), when
// no options defect of the candidate ignores them: a candidate that ignores UNESCAPED_UNICODE,
// beside a fault that changes every answer its classes are named after (PHP's false for invalid
// UTF-8 answered), shows the option only in the deviations' own witnesses (a valid sequence
// escaped, U+FFFD as \ufffd, a valid sequence read as failed). A witness counts when PHP's answer
// without the bits is the candidate's, or differs from it only by deviations the candidate's
// other defects are named after (a closing quote dropped from every answer, lower-case hex in
// HEX_TAG's \u003C). The one with the most findings keeps its deviation, witness and examples
// and counts the others' classes (the one whose witness has the fewest option bits, then the
// most findings). Where an options defect ignores the bits, a defect whose
// witness needs another defect's deviation besides them is that one's and the option's: its
// classes are counted in the options defect (Defect.also).
func foldIgnoredDevs(defects []*Defect) []*Defect {
	opts := map[string]*Defect{} // by candidate: its options defect
	for _, d := range defects {
		if d.Cause == "options" && len(d.Classes) > 0 {
			opts[d.Impl] = d
		}
	}
	order := slices.Clone(defects)
	sort.SliceStable(order, func(i, j int) bool { return order[i].Findings > order[j].Findings })
	beside := markIgnoredDevs(order)
	hosts := map[string]*Defect{} // by candidate and bits
	for _, d := range order {
		b := d.ignoredDev
		if b == 0 {
			continue
		}
		if opt := opts[d.Impl]; opt != nil && b&^opt.Ignored == 0 {
			d.ignoredDev = 0
			if beside[d] {
				opt.addUnit(&mapUnit{from: d})
				d.Classes, d.Findings = nil, 0
			}
			continue
		}
		key := d.Impl + "\x00" + strconv.FormatUint(uint64(b), 16)
		switch host := hosts[key]; {
		case host == nil:
			hosts[key] = d
		case d.Dev.Witness.Flags.Count() < host.Dev.Witness.Flags.Count():
			// The witness under the fewest options shows the bits most directly (a valid
			// sequence escaped under UNESCAPED_UNICODE, not \ufffd under it and
			// INVALID_UTF8_SUBSTITUTE): its deviation names the defect.
			d.absorb(host)
			hosts[key] = d
		default:
			host.absorb(d)
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

// markIgnoredDevs sets Defect.ignoredDev of the defects (most findings first) whose escape
// witness is answered as if option bits were not set (fuzz.IgnoredOptions), then of those whose
// witness is so but for deviations of other defects of the candidate not marked (ignoredBeside);
// beside holds the latter.
func markIgnoredDevs(order []*Defect) (beside map[*Defect]bool) {
	keys := map[string]map[string]int{} // by candidate: the deviation keys of unmarked defects
	var rest []*Defect                  // the unmarked ones
	for _, d := range order {
		w := deviationWitness(d)
		if w == nil || w.Op != fuzz.OpEscape {
			continue
		}
		if _, skip := deviation.SkipAt(d.Dev.Dev.Key()); skip {
			continue
		}
		if d.ignoredDev = fuzz.IgnoredOptions(w); d.ignoredDev == 0 {
			if keys[d.Impl] == nil {
				keys[d.Impl] = map[string]int{}
			}
			keys[d.Impl][d.Dev.Dev.Key()]++
			rest = append(rest, d)
		}
	}
	beside = map[*Defect]bool{}
	for _, d := range rest {
		k := keys[d.Impl]
		k[d.Dev.Dev.Key()]--
		if d.ignoredDev = ignoredBeside(d.Dev.Witness, k); d.ignoredDev != 0 {
			beside[d] = true
			continue
		}
		k[d.Dev.Dev.Key()]++
	}
	return beside
}

// ignoredBeside are the option bits (one, else every string option) without which PHP's answer
// to the escape finding w differs from the candidate's only by deviations keys holds; 0 when
// none does.
func ignoredBeside(w *fuzz.Finding, keys map[string]int) jsonopt.Options {
	try := func(b jsonopt.Options) bool { return answeredBeside(w, w.Flags&^b, keys) }
	for rest := w.Flags & jsonopt.StringPath; rest != 0; rest &= rest - 1 {
		if b := rest & -rest; try(b) {
			return b
		}
	}
	if all := w.Flags & jsonopt.StringOptions; all&(all-1) != 0 && try(all) {
		return all
	}
	return 0
}

// deviationWitness is the witness of a defect named by a deviation (not a map's, not a known
// behaviour's) with classes; nil for other defects.
func deviationWitness(d *Defect) *fuzz.Finding {
	if d.Dev == nil || d.mapped != nil || !strings.HasPrefix(d.Cause, "deviation ") || len(d.Classes) == 0 {
		return nil
	}
	return d.Dev.Witness
}

// absorb counts the classes of o in d (a class's findings at most once) and empties o.
func (d *Defect) absorb(o *Defect) {
	d.absorbed = append(append(d.absorbed, o.Cause), o.absorbed...)
	for _, c := range o.Classes {
		if _, ok := d.byClass[c]; !ok {
			d.Classes = append(d.Classes, c)
		}
		n := min(o.byClass[c], c.Findings-d.byClass[c])
		d.byClass[c] += n
		d.Findings += n
	}
	o.Classes, o.Findings = nil, 0
}

// shortenWitnesses gives each defect named by a deviation whose witness is long (one that
// shows the deviation alone: beside a fault that changes every answer, only long answers do) the
// smallest minimized witness of its classes that shows its deviation and, besides it, only
// deviations the candidate's other defects are named after, when that one is at most half as
// long, less 4 bytes: `80` answered '"\ufffd' by a candidate that also drops the closing quote, not 65 bytes
// whose answer reads as one deviation.
func shortenWitnesses(defects []*Defect) {
	byImpl := map[string]map[string]int{}
	for _, d := range defects {
		w := deviationWitness(d)
		if w == nil {
			continue
		}
		if byImpl[d.Impl] == nil {
			byImpl[d.Impl] = devKeys(defects, d.Impl)
		}
		others, key := besides(byImpl[d.Impl], d), d.Dev.Dev.Key()
		for _, c := range d.Classes {
			cw := c.Witness
			if !cw.Minimized || 2*len(cw.Input)+8 > len(w.Input) {
				continue
			}
			if dev, ok := deviationByKey(cw, key); ok && ownDeviations(cw, others) == 1 {
				w = cw
				d.Dev.Witness, d.Dev.Dev = cw, dev
			}
		}
	}
}
