package report

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/difffuzz/difffuzz/deviation"
	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/reference"
)

// deviationsOf is what the candidate did where f's answer differs from PHP's (package
// deviation); nil for kinds without an answer to compare (crashes, panics, memory faults).
func deviationsOf(f *fuzz.Finding) []deviation.Deviation {
	return deviationsExplained(f, fuzz.Explain(f))
}

// deviationsExplained is deviationsOf with fuzz.Explain(f) given.
func deviationsExplained(f *fuzz.Finding, ex fuzz.Explanation) []deviation.Deviation {
	switch {
	case f.Op == fuzz.OpEscape && (f.Kind == fuzz.KindOutput || f.Kind == fuzz.KindError):
		return deviation.EscapeExplained(f.Input, f.Flags, ex.Want, ex.Spans, ex.Err, f.Got, f.GotErr, f.GotFalse())
	case f.Op == fuzz.OpUTF8Decode && f.Kind == fuzz.KindOutput:
		var ds []deviation.Deviation
		if ex.UTF8 {
			ds = deviation.UTF8DecodeExplained(f.Input, ex.Want, ex.Spans, f.Got)
		} else {
			ds = deviation.UTF8Decode(f.Input, f.Got)
		}
		if bytes.Equal(f.Got, reference.MaximalSubpartLatin1(f.Input)) {
			// The whole answer is another known rule's: one deviation, named after it. When it
			// reads as one deviation of PHP's terms too, that is its other reading (a candidate
			// that only splits bad sequences answers as the model on some inputs).
			m := deviation.Deviation{What: deviation.Model, Detail: "maximal-subpart", Family: "failed",
				In: 0, InEnd: len(f.Input), Want: f.Want, Got: f.Got, CP: -1}
			if len(ds) == 1 {
				m.Alts = []string{ds[0].Key()}
			}
			if len(ds) > 0 {
				// An answer that reads as skipping a byte keeps that reading.
				for _, a := range ds[0].Alts {
					if _, ok := deviation.SkipAt(a); ok {
						m.Alts = append(m.Alts, a)
					}
				}
			}
			return []deviation.Deviation{m}
		}
		return ds
	case f.Op == fuzz.OpDecode && f.Kind == fuzz.KindStep && f.GotStep == (jsonopt.Step{}) && strings.HasPrefix(f.Detail, fuzz.StepsEnded):
		// The steps end early, each PHP's: the answer is PHP's for the input cut there.
		return deviation.StepsCut(f.Input, f.Pos)
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
// deviation the most of them show first, then the most findings (with the rows of every class
// that shows it), "" when no witness has one. Classes first: a candidate that ignores
// UNESCAPED_UNICODE escapes valid sequences of three rows, and writes \ufffd escaped for the
// invalid ones that outnumber them in an exhaustive space.
func defectDoes(d *Defect) string {
	type agg struct {
		dev      deviation.Deviation
		op       fuzz.Op
		classes  int
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
		a.classes++
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
		if a := byKey[k]; best == nil || a.classes > best.classes || a.classes == best.classes && a.findings > best.findings {
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
// deviation with that stat key (whatever else it shows, and wherever its first difference
// is) — read the same way: a drop that is also the input cut short is not the drop alone.
func hasDeviation(key string) func(*fuzz.Finding) bool {
	return func(f *fuzz.Finding) bool {
		for _, d := range deviationsOf(f) {
			if statKey(d) == key {
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
	// alone is set when the witness shows this deviation and no other: such a witness is
	// preferred (one that needs another fault too sends its reader to two places).
	alone bool
	// variants are the smallest finding of each row and shape of the deviation's bytes, for
	// examples that teach: other rows and shapes of the same deviation, not filler variants.
	variants map[variant]*fuzz.Finding
	kept     [10]int      // variants kept by their number of deviations
	big      [10]struct { // the largest kept variant of each number of deviations, when known
		v  variant
		ok bool
	}
	last struct { // the variant keep saw last and its example (nil: not kept)
		v  variant
		f  *fuzz.Finding
		ok bool
	}
	// borrowed is set while the witness and examples are of findings filed here by their
	// other reading (no finding read as this first yet): the first own one replaces them.
	borrowed bool
	// Alts counts the findings counted here by their other reading (deviation.Deviation.Alts):
	// Defects files the stat under one when nearly all have it and the candidate shows it
	// elsewhere (foldedKeys).
	Alts map[string]uint64
	// Models counts the findings counted here by the known behaviour (modelsOf) whose answer
	// theirs is; a model some finding did not fit is in unfit and no longer asked.
	Models map[string]uint64
	unfit  modelSet
	// cutFrom is, on a defect's stat, the length from which the candidate loses the end of
	// its input (shortestCut; 0: it does not): a finding that long whose answer also reads as
	// the input cut short is no example of another deviation.
	cutFrom int
}

// variant is what tells examples apart: how many deviations the finding shows (fewer first),
// the row, the operation, the byte-class shape of the input and the options.
type variant struct {
	devs  byte
	row   string
	op    fuzz.Op
	shape string
	flags jsonopt.Options
}

func newDevStat(d deviation.Deviation) *DevStat {
	return &DevStat{Dev: d, Rows: map[string]uint64{}, Ops: map[fuzz.Op]uint64{}, variants: map[variant]*fuzz.Finding{}}
}

// add counts f, which shows d.
func (s *DevStat) add(f *fuzz.Finding, d deviation.Deviation, devs int, shape string) {
	single := devs == 1
	for _, a := range d.Alts {
		s.addAlt(a, 1)
	}
	s.Findings++
	s.Ops[f.Op]++
	if strings.Contains(d.Row, ", ") {
		for _, r := range strings.Split(d.Row, ", ") {
			s.Rows[r]++
		}
	} else if d.Row != "" {
		s.Rows[d.Row]++
	}
	if s.Witness == nil || single && !s.alone || single == s.alone && smaller(f, s.Witness) {
		s.Witness, s.Dev, s.alone = f, d, single
	}
	// Findings that show fewer deviations come first: an example that needs another fault to
	// show would send its reader to the wrong code.
	s.keep(variant{devs: byte(min(devs, 9)), row: d.Row, op: f.Op, shape: shape, flags: f.Flags}, f)
}

// keep makes f the example of variant v when it is the first or a smaller one. Of each number
// of deviations at most maxVariants are kept: those whose smallest findings are smallest (a
// new one evicts the largest kept), so that which are kept does not depend on the order the
// findings came in (parallel workers).
func (s *DevStat) keep(v variant, f *fuzz.Finding) {
	var cur *fuzz.Finding
	var ok bool
	if s.last.ok && v == s.last.v { // findings in a row often share a variant: no hashing
		cur, ok = s.last.f, s.last.f != nil
	} else {
		cur, ok = s.variants[v]
	}
	switch {
	case ok && smaller(f, cur):
		s.variants[v], cur = f, f
		s.big[v.devs].ok = false
	case !ok && s.kept[v.devs] < maxVariants:
		s.variants[v], cur = f, f
		s.kept[v.devs]++
		s.big[v.devs].ok = false
	case !ok:
		if big := s.largest(v.devs); exampleLess(v, f, big, s.variants[big]) {
			delete(s.variants, big)
			s.variants[v], cur = f, f
			s.big[v.devs].ok = false
		}
	}
	s.last.v, s.last.f, s.last.ok = v, cur, true
}

// resetExamples forgets the kept examples (and keep's caches of them).
func (s *DevStat) resetExamples() {
	s.variants, s.kept = map[variant]*fuzz.Finding{}, [10]int{}
	s.big = [10]struct {
		v  variant
		ok bool
	}{}
	s.last.ok = false
}

// largest is the kept variant of devs deviations that comes last in exampleLess's order (there
// is one: it is asked only when maxVariants are kept).
func (s *DevStat) largest(devs byte) variant {
	if b := s.big[devs]; b.ok {
		return b.v
	}
	var big variant
	found := false
	for v, f := range s.variants {
		if v.devs == devs && (!found || exampleLess(big, s.variants[big], v, f)) {
			big, found = v, true
		}
	}
	s.big[devs].v, s.big[devs].ok = big, true
	return big
}

// exampleLess orders kept examples: by their findings (smaller), then by variant, a total
// order whatever the map's iteration order.
func exampleLess(v variant, f *fuzz.Finding, w variant, g *fuzz.Finding) bool {
	if smaller(f, g) {
		return true
	}
	if smaller(g, f) {
		return false
	}
	return cmp.Or(cmp.Compare(v.row, w.row), cmp.Compare(v.op, w.op), cmp.Compare(v.shape, w.shape), cmp.Compare(v.flags, w.flags)) < 0
}

// merge adds o's counts and examples to s.
func (s *DevStat) merge(o *DevStat) {
	for a, n := range o.Alts {
		s.addAlt(a, n)
	}
	s.countOnly(o)
	if s.Witness == nil || betterWitness(o, s) {
		s.Witness, s.Dev, s.alone = o.Witness, o.Dev, o.alone
	}
	for v, f := range o.variants {
		s.keep(v, f)
	}
}

// file adds o, a stat filed in s's defect: its own key (own) merged; another key's (findings
// read the other way) counted, with its witness and examples only while s has none of its own.
func (s *DevStat) file(o *DevStat, own bool) {
	switch {
	case own && s.borrowed:
		s.Witness, s.borrowed = nil, false
		s.resetExamples()
		s.merge(o)
	case own:
		s.merge(o)
	case s.Witness == nil || s.borrowed:
		dev := s.Dev
		s.merge(o)
		s.Dev, s.borrowed = dev, true
	default:
		s.countOnly(o)
	}
}

// countOnly adds o's counts to s, not its witness or examples (findings of another key filed
// here: their witness shows that key).
func (s *DevStat) countOnly(o *DevStat) {
	for m, n := range o.Models {
		s.addModel(m, n)
	}
	s.unfit |= o.unfit
	s.Findings += o.Findings
	cuts := o.Dev.Detail == deviation.Tail && s.Dev.Detail != deviation.Tail
	for r, n := range o.Rows {
		if !cuts { // a cut's rows say where it cuts: nothing in another deviation's title
			s.Rows[r] += n
		}
	}
	for op, n := range o.Ops {
		s.Ops[op] += n
	}
}

// addAlt counts n findings whose other reading is alt (none when "").
func (s *DevStat) addAlt(alt string, n uint64) {
	if alt == "" {
		return
	}
	if s.Alts == nil {
		s.Alts = map[string]uint64{}
	}
	s.Alts[alt] += n
}

// betterWitness reports whether o's witness is better than s's: alone, then minimized, then
// the smaller.
func betterWitness(o, s *DevStat) bool {
	switch {
	case o.Witness == nil:
		return false
	case o.alone != s.alone:
		return o.alone
	case o.Witness.Minimized != s.Witness.Minimized:
		return o.Witness.Minimized
	}
	return smaller(o.Witness, s.Witness)
}

// RowList is the rows the deviation was seen in, in the spec's order.
func (s *DevStat) RowList() []string {
	return sortedKeys(s.Rows, rowOrder)
}

// TitleRows is RowList without the rows that hold under 1 % of the deviation's findings: a
// row seen in a few long answers read some other way (a fault of another step next to it) is
// not one the candidate breaks, and a title that names it claims more than it does.
func (s *DevStat) TitleRows() []string {
	var total uint64
	for _, n := range s.Rows {
		total += n
	}
	var out []string
	for _, r := range s.RowList() {
		if s.Rows[r]*100 >= total {
			out = append(out, r)
		}
	}
	return out
}

// rowOrder is the order of the spec's rows in a list.
var rowOrder = []string{"00..7F", "80..C1", "C2..DF", "E0..EF", "F0..F4", "F5..FF", "wide", "end"}

// Examples are up to n findings that show the deviation besides the witness: one per row and
// shape first (rows the witness is not in first), the smallest of each.
func (s *DevStat) Examples(n int) []*fuzz.Finding {
	vs, weak := s.exampleCandidates()
	long := func(v variant) bool { return len(s.variants[v].Input) > exampleLen }
	seenRow := map[string]bool{}
	if s.Witness != nil {
		if d, ok := deviationByKey(s.Witness, s.Dev.Key()); ok {
			seenRow[d.Row] = true
		}
	}
	var out, rest []*fuzz.Finding
	for _, v := range vs {
		f := s.variants[v]
		row := ""
		if d, ok := deviationByKey(f, s.Dev.Key()); ok {
			row = d.Row
		}
		if !seenRow[row] && len(out) < n && v.devs == vs[0].devs && long(v) == long(vs[0]) && weak[f] == weak[s.variants[vs[0]]] {
			seenRow[row] = true
			out = append(out, f)
			continue
		}
		rest = append(rest, f)
	}
	return s.moreExamples(out, rest, weak, n)
}

// exampleCandidates are the kept variants that may be examples, in the order they are taken:
// fewest deviations first, then those that show this one whatever else the candidate does
// wrong (not weak: weakExample), then the readable ones, then the smallest.
func (s *DevStat) exampleCandidates() (vs []variant, weak map[*fuzz.Finding]bool) {
	_, skip := deviation.SkipAt(s.Dev.Key())
	weak = map[*fuzz.Finding]bool{}
	for v, f := range s.variants {
		if s.Witness != nil && bytes.Equal(f.Input, s.Witness.Input) && f.Flags == s.Witness.Flags {
			continue
		}
		if _, ok := deviationByKey(f, s.Dev.Key()); skip && !ok {
			// A skip is filed by key: a finding of another fault that shares the key (a
			// valid sequence failed) is counted here, but is no example of the skip.
			continue
		}
		if s.cutFrom > 0 && len(f.Input) >= s.cutFrom && readsCut(s.Dev, f) {
			// As long as the candidate's cut strings, and its answer reads as the input cut
			// short too: more likely the cut's finding than this deviation's.
			continue
		}
		vs = append(vs, v)
		weak[f] = weakExample(s.Dev, f)
	}
	long := func(v variant) bool { return len(s.variants[v].Input) > exampleLen }
	sort.Slice(vs, func(i, j int) bool {
		fi, fj := s.variants[vs[i]], s.variants[vs[j]]
		switch {
		case vs[i].devs != vs[j].devs:
			return vs[i].devs < vs[j].devs
		case weak[fi] != weak[fj]:
			return !weak[fi]
		case long(vs[i]) != long(vs[j]):
			return !long(vs[i])
		}
		return smaller(fi, fj)
	})
	return vs, weak
}

// moreExamples fills out up to n examples from rest: other inputs before the same inputs under
// other options; a weak example only when there is no other.
func (s *DevStat) moreExamples(out, rest []*fuzz.Finding, weak map[*fuzz.Finding]bool, n int) []*fuzz.Finding {
	for pass := range 4 {
		distinct, weakOK := pass%2 == 0, pass >= 2
		if weakOK && len(out) > 0 {
			break
		}
		for _, f := range rest {
			if len(out) == n || len(out) > 0 && devCount(s, f) > devCount(s, out[0]) {
				break // no example that shows more deviations than the cleanest one
			}
			if weak[f] && !weakOK {
				continue
			}
			if len(out) > 0 && len(f.Input) > exampleLen {
				continue // a long answer, where other faults may shift what it shows
			}
			if slices.Contains(out, f) || distinct && (s.Witness != nil && bytes.Equal(f.Input, s.Witness.Input) || slices.ContainsFunc(out, func(g *fuzz.Finding) bool { return bytes.Equal(g.Input, f.Input) })) {
				continue
			}
			out = append(out, f)
		}
	}
	return out
}

// weakExample reports whether f shows d only through another deviation of its answer: an
// answer where PHP fails (false, or null under PARTIAL_OUTPUT_ON_ERROR), read against PHP's
// answer under INVALID_UTF8_SUBSTITUTE (a closing quote dropped shows there only when the
// candidate also answers for invalid UTF-8), or a code point above U+00FF accepted in
// utf8_decode, whose answer for it is PHP's ? unless the candidate also writes it some other
// way.
func weakExample(d deviation.Deviation, f *fuzz.Finding) bool {
	switch {
	case f.Op == fuzz.OpEscape:
		return d.What != deviation.NotFalse && f.WantErr != 0
	case f.Op == fuzz.OpUTF8Decode && d.What == deviation.Accepted:
		g, ok := deviationByKey(f, d.Key())
		return ok && g.CP > 0xFF
	}
	return false
}

// readsCut reports whether f's deviation d (not the cut itself) also reads as the input cut
// short.
func readsCut(d deviation.Deviation, f *fuzz.Finding) bool {
	if d.Key() == tailKey {
		return false
	}
	g, ok := deviationByKey(f, d.Key())
	return ok && slices.Contains(g.Alts, tailKey)
}

// exampleLen: longer inputs are examples only when there is no shorter one (a reader cannot
// take in a long answer, and in one the other faults of the candidate may shift what shows).
const exampleLen = 48

// devCount is how many deviations f, one of s's examples, shows.
func devCount(s *DevStat, f *fuzz.Finding) byte {
	for v, g := range s.variants {
		if g == f {
			return v.devs
		}
	}
	return 9
}

// addDeviations counts f's deviations in m.
func addDeviations(m map[string]*DevStat, f *fuzz.Finding, ds []deviation.Deviation) {
	if len(ds) == 0 {
		return
	}
	// Once a finding, not once a deviation; a long input is an example only when there is no
	// short one (Examples), so its shape tells nothing apart worth the cost.
	shape := "long"
	if len(f.Input) <= exampleLen {
		shape = fuzz.Shape(f.Input)
	}
	checked, fits := modelSet(0), modelSet(0)
	var kb [80]byte
	for _, d := range ds {
		k := appendStatKey(kb[:0], d)
		s := m[string(k)]
		if s == nil {
			s = newDevStat(d)
			m[string(k)] = s
		}
		s.add(f, d, len(ds), shape)
		// Only the models every finding counted here so far fits are asked (once a finding).
		if ask := modelSet(1<<len(modelOrder)-1) &^ s.unfit &^ checked; ask != 0 {
			fits |= modelsOf(f, ask)
			checked |= ask
		}
		for i, name := range modelOrder {
			switch bit := modelSet(1) << i; {
			case s.unfit&bit != 0:
			case fits&bit != 0:
				s.addModel(name, 1)
			default:
				s.unfit |= bit
			}
		}
	}
}

// modelSet is a set of the known behaviours of modelOrder, bit i for modelOrder[i].
type modelSet uint8

// modelsOf are those of the known behaviours in ask (package reference) whose answer for f's
// input is the candidate's: ECMAScript JSON.stringify, Go's encoding/json, PHP's rule on the
// bytes read as ISO-8859-1 (escape, the answer an output); a no-op (utf8_decode).
func modelsOf(f *fuzz.Finding, ask modelSet) modelSet {
	if f.GotErr != 0 || f.Kind != fuzz.KindOutput && f.Kind != fuzz.KindError {
		return 0
	}
	var out modelSet
	for i, name := range modelOrder {
		if ask&(1<<i) == 0 {
			continue
		}
		var answer []byte
		switch {
		case f.Op == fuzz.OpEscape && (len(f.Got) < 2 || f.Got[0] != '"'):
			continue // every model quotes its answer
		case f.Op == fuzz.OpEscape && name == "json-stringify":
			answer = reference.JSONStringify(f.Input)
		case f.Op == fuzz.OpEscape && name == "go-json":
			answer = reference.GoJSON(f.Input)
		case f.Op == fuzz.OpEscape && name == "latin1-json":
			answer, _ = fuzz.Oracle.Escape(nil, reference.Latin1ToUTF8(f.Input), f.Flags)
		case f.Op == fuzz.OpUTF8Decode && name == "passthrough":
			answer = f.Input
		default:
			continue
		}
		if bytes.Equal(f.Got, answer) {
			out |= 1 << i
		}
	}
	return out
}

// addModel counts n findings answered as the known behaviour name answers.
func (s *DevStat) addModel(name string, n uint64) {
	if s.Models == nil {
		s.Models = map[string]uint64{}
	}
	s.Models[name] += n
}

// Model is the known behaviour (package reference) every finding counted here is answered as,
// "" when there is none.
func (s *DevStat) Model() string {
	for _, name := range sortedKeys(s.Models, modelOrder) {
		if s.Models[name] == s.Findings && s.Findings > 0 {
			return name
		}
	}
	return ""
}

// mergeDevs adds the deviations of src to dst (made when nil) and returns it.
func mergeDevs(dst, src map[string]*DevStat) map[string]*DevStat {
	if dst == nil {
		dst = map[string]*DevStat{}
	}
	for k, s := range src {
		if dst[k] == nil {
			dst[k] = newDevStat(s.Dev)
		}
		dst[k].merge(s)
	}
	return dst
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
				shown[c.Impl+"\x00"+statKey(d)] = true
			}
		}
	}
	for _, c := range classes {
		for k, s := range c.Deviations {
			if d, ok := deviationByKey(c.Witness, k); ok && c.Minimized {
				// The deviation as the witness shows it: the title and the deviates line read it.
				if alone := len(deviationsOf(c.Witness)) == 1; alone || !s.alone {
					s.Witness, s.Dev, s.alone = c.Witness, d, alone
				}
			}
			key := c.Impl + "\x00" + k
			if o := byKey[key]; o == nil || betterWitness(s, o) {
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
		hidden := !shown[key] && devFindings[key]*hiddenShare >= findings[impl]
		if s.Witness.Minimized || !(hidden || shown[key] && s.alone) || recheck == nil || ctx.Err() != nil || *minimized >= t.cfg.MaxMinimize {
			continue // minimized already, or a stretch misread in a few long answers
		}
		im, check, ok := recheck(s.Witness.Impl)
		if !ok {
			continue
		}
		*minimized++
		sk := statKey(s.Dev)
		same := hasDeviation(sk)
		if s.alone {
			same = func(f *fuzz.Finding) bool { ds := deviationsOf(f); return len(ds) == 1 && statKey(ds[0]) == sk }
		}
		w := fuzz.MinimizeWith(s.Witness, im, check, fuzz.MinimizeOptions{Same: same})
		if w.Minimized {
			ds := deviationsOf(w)
			s.Witness, s.alone = w, len(ds) == 1
			for _, d := range ds {
				if statKey(d) == sk {
					s.Dev = d
				}
			}
		}
	}
}

// deviationByKey is the deviation of f with that key.
func deviationByKey(f *fuzz.Finding, key string) (deviation.Deviation, bool) {
	ds := deviationsOf(f)
	for _, d := range ds {
		if statKey(d) == key {
			return d, true
		}
	}
	for _, d := range ds {
		if d.Key() == key { // a key without another reading: the deviation, however read
			return d, true
		}
	}
	if at, ok := deviation.SkipAt(key); ok {
		// A skip is only ever another reading, of some deviations of the answer.
		for _, d := range ds {
			if slices.Contains(d.Alts, key) {
				return deviation.Deviation{What: deviation.Lost, Detail: deviation.SkipPrefix + strconv.Itoa(at), Family: "string",
					In: at, InEnd: at + 1, Want: d.Want, Got: d.Got, CP: -1}, true
			}
		}
	}
	return deviation.Deviation{}, false
}

// orMark joins a deviation key and the other reading its findings are counted apart by.
const orMark = "~or~"

// statKey is the key a class counts deviation d under (Class.Deviations): its own, and when
// one of its readings is the input cut short (deviation.Tail), the other reading too — which
// one a finding is filed under depends on the candidate's other answers (resolveCut), so the
// findings of each pair are counted apart.
func statKey(d deviation.Deviation) string { return string(appendStatKey(nil, d)) }

// appendStatKey appends statKey(d) to b.
func appendStatKey(b []byte, d deviation.Deviation) []byte {
	b = d.AppendKey(b)
	switch {
	case len(d.Alts) == 0:
	case d.What == deviation.Lost && d.Detail == deviation.Tail:
		b = append(append(b, orMark...), d.Alts[0]...)
	case slices.Contains(d.Alts, tailKey):
		b = append(append(b, orMark...), tailKey...)
	}
	return b
}

// devKey is a stat key's deviation key (without the other reading).
func devKey(k string) string {
	b, _, _ := strings.Cut(k, orMark)
	return b
}

// resolveCut is the key a candidate's findings counted under stat key k are filed under: k
// when it has no other reading; for the input cut short read as a deviation of the steps too
// (KEY~or~tail), the cut when the candidate's answers show a cut no other way (a confirmed
// tail of its own), else the deviation; for the cut that is also one deviation of the steps
// (tail~or~KEY), that deviation when the candidate shows it without a cut, else the cut.
func resolveCut(impl, k string, confirmed map[string]bool) string {
	base, alt, ok := strings.Cut(k, orMark)
	switch {
	case !ok:
		return k
	case base == tailKey && confirmedAny(confirmed, impl, alt):
		return alt
	case base == tailKey:
		return tailKey
	case confirmedAny(confirmed, impl, tailKey):
		return tailKey
	}
	return base
}

// confirmedAny reports whether impl's key k is confirmed, for strings of some length or all.
func confirmedAny(confirmed map[string]bool, impl, k string) bool {
	if confirmed[impl+"\x00"+k] {
		return true
	}
	p := impl + "\x00" + k + "|len>="
	for c := range confirmed {
		if strings.HasPrefix(c, p) {
			return true
		}
	}
	return false
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
