package report

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/difffuzz/difffuzz/boundary"
	"github.com/difffuzz/difffuzz/deviation"
	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/reference"
)

// Defect is what the terminal report prints as one block: the classes of one candidate that
// share a cause (Cause), so that a fault which shows in several operations, §1.5 modes or §2.2
// rows (a decoder that does not check continuation bytes fails escape, decode and utf8_decode
// on sequences led by C2..DF, E0..EF and F0..F4) is read once.
type Defect struct {
	N        int // 1-based, in report order
	Impl     string
	Cause    string   // the shared cause (see causeOf)
	Classes  []*Class // in class order (most findings first)
	Findings uint64
	Ignored  jsonopt.Options // for Cause "options": every bit its classes' candidate ignored
	// Dev is, for a defect named by what the candidate does (Cause "deviation KEY"), the
	// deviation over all its classes: counts, rows, witness, examples. Nil for the kinds without
	// an answer to compare (crashes, panics, memory faults), grouped by causeOf.
	Dev *DevStat
	// byClass is, for a defect named by a deviation, the findings of each class it counts
	// (those of the class's keys filed under the defect's).
	byClass map[*Class]uint64
	// model is the known behaviour every finding of the defect is answered as, when the
	// candidate answers so in at least two deviations (one alone is weak evidence: a raw
	// slash is JSON.stringify's answer for "/").
	model string
	// mapped is, for a defect of a misreading of two option bits (Cause "options MAP"), the
	// map, and witnesses the witness of each defect or class it took (mergeOptionMaps).
	mapped    *fuzz.OptionMap
	witnesses []*fuzz.Finding
	// also are, for an options defect, findings of other classes that show the bits it
	// ignores (foldComposed), in alsoOrder.
	also      map[*Class]uint64
	alsoOrder []*Class
	// filings are the class stats a defect named by a deviation counts, in the order filed, so
	// that it can be filed again without some classes (refile).
	filings []filing
	// ignoredDev are, for a defect named by a deviation, the option bits its witness is
	// answered as if not set (fuzz.IgnoredOptions), when no options defect of its candidate
	// ignores them (foldIgnoredDevs).
	ignoredDev jsonopt.Options
	// absorbed are the causes of the defects foldIgnoredDevs counted in this one.
	absorbed []string
}

// filing is a class's stat s filed in a defect under key (own: the stat's own key).
type filing struct {
	c   *Class
	s   *DevStat
	key string
	own bool
}

// refile files d, a defect named by a deviation, again without the classes of drop: its
// classes, counts, witness and examples are those of the rest (none: no classes).
func (d *Defect) refile(drop map[*Class]bool) {
	fs, dev := d.filings, d.Dev
	d.filings, d.Classes, d.Findings, d.Ignored, d.byClass, d.Dev = nil, nil, 0, 0, map[*Class]uint64{}, nil
	for _, f := range fs {
		if drop[f.c] {
			continue
		}
		if d.Dev == nil {
			d.Dev = newDevStat(keyDeviation(f.key, f.s.Dev))
		}
		d.file(f)
	}
	if d.Dev == nil {
		d.Dev = dev // (no classes left: the defect is dropped)
	}
}

// file counts f in d (Dev set): a finding that shows two keys filed here counts once, at most
// the class's findings.
func (d *Defect) file(f filing) {
	if len(d.Classes) == 0 || d.Classes[len(d.Classes)-1] != f.c {
		d.Classes = append(d.Classes, f.c)
	}
	n := min(f.s.Findings, f.c.Findings-d.byClass[f.c])
	d.byClass[f.c] += n
	d.Dev.file(f.s, f.own)
	d.Findings += n
	d.Ignored |= f.c.Ignored
	d.filings = append(d.filings, f)
}

// causeOf is what groups classes into a Defect: "position AT/N" when the witness is filler
// around the bytes it names (positional); "options" when the candidate answers as if
// option bits were not set; "hex-case/upper" or "hex-case/lower" when the escape differs
// from PHP's only in the case of hex digits (deviation.HexCase); "2.2/FAMILY" for a decoder step (the rows merged); the class rule
// without its row otherwise ("1.3-slash"; the three §1.4 rules that write \uXXXX are one,
// "1.4-escape", and the quotes of §1.2, "1.2-quotes"); for kinds without a rule, the kind (a
// panic: and its message).
func causeOf(c *Class) string {
	if at, n, ok := positional(c); ok {
		return fmt.Sprintf("position %d/%d", at, n)
	}
	switch {
	case c.Ignored != 0:
		return "options"
	case c.Kind == fuzz.KindOutput && c.Witness.Op == fuzz.OpEscape && deviation.HexCase(c.Witness.Want, c.Witness.Got) != "":
		// Whatever rule wrote the \uXXXX (a control byte, a code point, \ufffd, HEX_TAG's
		// literal), the fault is the digits' case: one defect, not one per rule.
		return "hex-case/" + deviation.HexCase(c.Witness.Want, c.Witness.Got)
	case strings.HasPrefix(c.Rule, "2.2-"):
		_, fam, _ := strings.Cut(c.Rule, "/")
		return "2.2/" + fam
	case c.Kind == fuzz.KindPanic:
		return string(c.Kind) + " " + c.Rule
	case c.Rule == "" || fuzz.Attribute(c.Witness).ID() == "":
		return string(c.Kind) // a target's crashes, refusals, ...; a memory defect
	}
	r, _, _ := strings.Cut(c.Rule, "/")
	switch r {
	case "1.4-unicode", "1.4-surrogate-pair", "1.4-line-terminator":
		return "1.4-escape" // every \uXXXX a code point becomes
	case "1.2-empty", "1.2-open-quote", "1.2-close-quote":
		return "1.2-quotes" // the quotes around every string
	}
	return r
}

// positional reports whether the class's minimal witness is filler around the bytes it names:
// every other byte is the minimizer's 'a', at least fuzz.MinFiller of them could not be
// removed, and the bytes fail at no other offset (fuzz.Finding.Anchored). Then the defect depends
// on where the bytes are, not on what they are (a kernel that mishandles whatever sits in its
// last lane): at is their input offset, n the witness's length.
func positional(c *Class) (at, n int, ok bool) {
	if showsTail(c.Witness) {
		return 0, 0, false // the input cut: where it ends, not what sits there
	}
	return positionalWitness(c.Witness, c.Attribution)
}

// tailKey is the key of deviation.Tail: an answer that is PHP's for the input cut short.
var tailKey = deviation.Deviation{What: deviation.Lost, Detail: deviation.Tail, Family: "string"}.Key()

// showsTail reports whether w's answer reads as PHP's for its input cut short (first or
// other reading): its failure is where the input ends, not what sits there.
func showsTail(w *fuzz.Finding) bool {
	for _, d := range deviationsOf(w) {
		if d.Key() == tailKey || slices.Contains(d.Alts, tailKey) {
			return true
		}
	}
	return false
}

// positionalWitness is positional for a witness w and its attribution a.
func positionalWitness(w *fuzz.Finding, a fuzz.Attribution) (at, n int, ok bool) {
	if !w.Minimized || !w.Anchored || !fillerAround(w.Input, a.In, a.InEnd, fuzz.MinFiller) {
		return 0, 0, false
	}
	return a.In, len(w.Input), true
}

// fillerAround reports whether in is the bytes [from, to) and at least min filler bytes 'a'
// around them (the minimizer's filler), and nothing else.
func fillerAround(in []byte, from, to, min int) bool {
	if from < 0 || to < from || to > len(in) || len(in)-(to-from) < min {
		return false
	}
	return len(bytes.Trim(in[:from], "a")) == 0 && len(bytes.Trim(in[to:], "a")) == 0
}

// Defects groups classes by candidate and what the candidate does: one defect per deviation
// key (deviation.Deviation.Key) confirmed by a minimized witness that shows it (a stretch
// misread in a long unminimized answer names nothing). A class whose findings show two
// deviations is in both defects, and its findings count in both (one fault cannot hide
// another). Classes with no confirmed deviation (a target's crash, a panic, a memory fault)
// are grouped by causeOf. Defects come in order of decreasing findings.
func Defects(classes []*Class) []*Defect {
	byKey := map[string]*Defect{}
	var out []*Defect
	get := func(c *Class, cause string) *Defect {
		k := c.Impl + "\x00" + cause
		d := byKey[k]
		if d == nil {
			d = &Defect{Impl: c.Impl, Cause: cause}
			byKey[k] = d
			out = append(out, d)
		}
		if len(d.Classes) == 0 || d.Classes[len(d.Classes)-1] != c { // once, whatever keys it files here
			d.Classes = append(d.Classes, c)
		}
		return d
	}
	confirmed := resolvedConfirmed(confirmedKeys(classes))
	folded := foldedKeys(classes, confirmed)
	cutFrom := shortestCut(classes)
	supported := supportedModels(classes)
	models := candidateModels(classes, supported)
	ignored := map[string]jsonopt.Options{} // by candidate: the bits its classes ignore
	for _, c := range classes {
		ignored[c.Impl] |= c.Ignored
	}
	for _, c := range classes {
		if m := models[c.Impl]; m != "" {
			// Every finding of the candidate is a known behaviour's answer: one defect, named
			// after it (a JSON.stringify port is not a dozen faults).
			addToModel(get(c, "model "+m), c, m)
			continue
		}
		devs := c.Deviations
		keys, filed := fileKeys(c, devs, confirmed, folded, cutFrom[c.Impl])
		if len(keys) == 0 && c.Ignored == 0 {
			// No finding's deviation files one (stretches misread in a long answer): those
			// its minimized witness shows do.
			devs = witnessStats(c)
			keys, filed = fileKeys(c, devs, confirmed, folded, cutFrom[c.Impl])
		}
		ign := c.Ignored
		if ign == 0 {
			ign = ignoredTogether(c, ignored[c.Impl])
		}
		if _, _, pos := positional(c); len(keys) == 0 || (ign != 0 || pos) && !filedSkip(filed) {
			// An answer as if option bits were not set is one defect whatever it changes; so is
			// what happens at one place in the input whatever the rule (a vector lane).
			cause := causeOf(c)
			if ign != 0 && !pos {
				cause = "options"
			}
			d := get(c, cause)
			d.Findings += c.Findings
			d.Ignored |= ign
			continue
		}
		sort.Strings(keys)
		for _, k := range keys {
			s := devs[k]
			d := get(c, "deviation "+defectKey(c, filed[k], confirmed))
			if d.Dev == nil {
				d.Dev, d.byClass = newDevStat(keyDeviation(filed[k], s.Dev)), map[*Class]uint64{}
			}
			d.file(filing{c: c, s: s, key: filed[k], own: filed[k] == s.Dev.Key()})
		}
	}
	for _, d := range out {
		if d.Dev != nil {
			d.Dev.cutFrom = cutFrom[d.Impl]
		}
	}
	nameModels(out, supported)
	out = mergeOptionMaps(out)
	out = foldIgnoredDevs(out)
	shortenWitnesses(out)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Findings > out[j].Findings })
	for i, d := range out {
		d.N = i + 1
	}
	return out
}

// fileKeys are the deviation keys of c's findings (devs: their stats) that its defects are
// filed by (those a witness confirms), and the key each is filed under (filed): its own, the
// reading its findings share with another key (foldedKeys), or a skip (classSkip). cutFrom is
// where the candidate's cut strings begin (shortestCut).
func fileKeys(c *Class, devs map[string]*DevStat, confirmed map[string]bool, folded map[string]string, cutFrom int) (keys []string, filed map[string]string) {
	filed = map[string]string{}
	for k := range devs {
		kk := resolveCut(c.Impl, k, confirmed)
		if w := devs[k].Witness; kk == tailKey && devKey(k) != tailKey && w != nil && len(w.Input) < cutFrom {
			// The input cut short is the other reading, but the candidate cuts only longer
			// strings than the smallest of these findings: it is the deviation.
			kk = devKey(k)
		}
		if a, ok := folded[c.Impl+"\x00"+kk]; ok {
			kk = a
		} else if a := classSkip(c.Impl, devs[k], confirmed); a != "" {
			kk = a
		}
		// A pair filed under its own deviation is confirmed by its own witness too.
		if confirmed[c.Impl+"\x00"+classKey(c, kk)] || kk == devKey(k) && confirmed[c.Impl+"\x00"+classKey(c, k)] {
			keys = append(keys, k)
			filed[k] = kk
		}
	}
	return keys, filed
}

// witnessStats are the deviations a class's minimized witness shows, each a stat that counts
// every finding of the class (none when the witness is not minimized).
func witnessStats(c *Class) map[string]*DevStat {
	if !c.Minimized {
		return nil
	}
	ds := deviationsOf(c.Witness)
	out := map[string]*DevStat{}
	for _, d := range ds {
		s := newDevStat(d)
		s.add(c.Witness, d, len(ds), fuzz.Shape(c.Witness.Input))
		s.Findings = c.Findings
		out[statKey(d)] = s
	}
	return out
}

// shortestCut is, by candidate, the length of its shortest minimized witness whose answer is
// PHP's for the input cut short (its first deviation is deviation.Tail): a candidate that
// loses the last character of strings of 16 bytes or more cuts none shorter.
func shortestCut(classes []*Class) map[string]int {
	out := map[string]int{}
	for _, c := range classes {
		if !c.Witness.Minimized {
			continue
		}
		if ds := deviationsOf(c.Witness); len(ds) > 0 && ds[0].Key() == tailKey {
			if n, ok := out[c.Impl]; !ok || len(c.Witness.Input) < n {
				out[c.Impl] = len(c.Witness.Input)
			}
		}
	}
	return out
}

// ignoredTogether are the bits of ignored (those the candidate's other classes answer as if
// not set, one at a time) among the options of c's witness when no single bit explains its
// answer but all of them at once do: ' written raw and non-ASCII as \uXXXX under
// HEX_APOS|UNESCAPED_UNICODE by a candidate that ignores both. 0 otherwise.
func ignoredTogether(c *Class, ignored jsonopt.Options) jsonopt.Options {
	w := c.Witness
	b := w.Flags & ignored
	if w.Op != fuzz.OpEscape || (w.Kind != fuzz.KindOutput && w.Kind != fuzz.KindError) || b.Count() < 2 {
		return 0
	}
	if !fuzz.AnsweredUnder(w, w.Flags&^b) {
		return 0
	}
	return b
}

// classSkip is the skip (deviation.SkipKey) a class's deviation stat s is filed under when the
// candidate's keys as a whole are not (foldedKeys): the confirmed skip more than foldShare of
// its own findings read as, the most shared ("" when none). A key another fault shares over the
// candidate's classes (a merged failure) is the skip's in the class all of whose findings skip.
func classSkip(impl string, s *DevStat, confirmed map[string]bool) string {
	best, most := "", uint64(0)
	for a, n := range s.Alts {
		if _, ok := deviation.SkipAt(a); ok && float64(n) > foldShare*float64(s.Findings) && confirmed[impl+"\x00"+a] && (n > most || n == most && a < best) {
			best, most = a, n
		}
	}
	return best
}

// filedSkip reports whether a class files a key under a skip (deviation.SkipKey): then the
// place it fails at is the byte the candidate skips, not a position whatever the rule, and an
// answer that is also one as if an option bit were not set ("1540822214796." without its "."
// under PRESERVE_ZERO_FRACTION) is the skip the candidate shows elsewhere.
func filedSkip(filed map[string]string) bool {
	for _, kk := range filed {
		if _, ok := deviation.SkipAt(kk); ok {
			return true
		}
	}
	return false
}

// nameModels sets the model of each defect all of whose findings a known behaviour the
// candidate shows elsewhere (supported) answers.
func nameModels(defects []*Defect, supported map[string]bool) {
	for _, d := range defects {
		if d.Dev != nil && !strings.HasPrefix(d.Cause, "model ") && supported[d.Impl+"\x00"+d.Dev.Model()] {
			d.model = d.Dev.Model()
		}
	}
}

// addToModel counts class c in d, the defect of a candidate that answers as model m does.
func addToModel(d *Defect, c *Class, m string) {
	if d.Dev == nil {
		d.Dev, d.byClass = newDevStat(deviation.Deviation{What: deviation.Model, Detail: m, Family: "string", CP: -1}), map[*Class]uint64{}
	}
	for _, k := range sortedDevKeys(c) {
		d.Dev.merge(c.Deviations[k])
	}
	d.byClass[c] += c.Findings
	d.Findings += c.Findings
}

// candidateModels maps each candidate every finding of which is answered as one known
// behaviour (DevStat.Models: JSON.stringify, Go's encoding/json, ...) to its name: every class
// holds only answers (outputs, errors) and every deviation of it has that model for all its
// findings (when two models fit, the first of modelOrder).
func candidateModels(classes []*Class, supported map[string]bool) map[string]string {
	fit := map[string][]string{} // by candidate: the models every deviation so far fits
	bad := map[string]bool{}
	ignores := map[string]bool{} // by candidate: every class an answer as if options were not set
	for _, c := range classes {
		if _, seen := ignores[c.Impl]; !seen {
			ignores[c.Impl] = true
		}
		ignores[c.Impl] = ignores[c.Impl] && c.Ignored != 0
	}
	for _, c := range classes {
		for k, n := range c.Kinds {
			if k != fuzz.KindOutput && k != fuzz.KindError && n > 0 {
				bad[c.Impl] = true
			}
		}
		if len(c.Deviations) == 0 {
			bad[c.Impl] = true
		}
		for _, k := range sortedDevKeys(c) {
			s := c.Deviations[k]
			var all []string
			for _, m := range modelOrder {
				if s.Findings > 0 && s.Models[m] == s.Findings {
					all = append(all, m)
				}
			}
			if prev, ok := fit[c.Impl]; ok {
				all = slices.DeleteFunc(all, func(m string) bool { return !slices.Contains(prev, m) })
			}
			fit[c.Impl] = all
		}
	}
	out := map[string]string{}
	for impl, ms := range fit {
		// (A candidate all of whose classes ignore options is named by them: the model fits
		// only where it ignores them too, ' raw and U+FFFD as \ufffd for Go's encoding/json.)
		if len(ms) > 0 && !bad[impl] && !ignores[impl] && supported[impl+"\x00"+ms[0]] {
			out[impl] = ms[0]
		}
	}
	return out
}

// modelOrder is the order of preference of the known behaviours when several fit.
var modelOrder = []string{"json-stringify", "go-json", "latin1-json", "passthrough"}

// supportedModels are the candidates and known behaviours ("IMPL\x00MODEL") that answer all the
// findings of at least two of the candidate's deviation keys (over all its classes).
func supportedModels(classes []*Class) map[string]bool {
	byKey := tallies(classes, func(k string) string { return k }, func(s *DevStat) map[string]uint64 { return s.Models })
	keys := map[string]int{}
	for key, t := range byKey {
		impl, _, _ := strings.Cut(key, "\x00")
		for m, n := range t.of {
			if n == t.findings && n > 0 {
				keys[impl+"\x00"+m]++
			}
		}
	}
	out := map[string]bool{}
	for k, n := range keys {
		out[k] = n >= 2
	}
	return out
}

// sortedDevKeys are the deviation keys of c, sorted.
func sortedDevKeys(c *Class) []string {
	keys := make([]string, 0, len(c.Deviations))
	for k := range c.Deviations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// foldedKeys maps a candidate's deviation key ("IMPL\x00KEY") to the key its findings are
// filed under: the other reading (DevStat.Alts) of more than foldShare of its findings over all
// classes, when the candidate shows that reading elsewhere (confirmed) and it is not filed
// under another in turn. A stray 9A written as 1A by a candidate that writes every stray byte
// & 0x7F is that, not a constant SUB; a run of '?' one longer than PHP's, read as a sequence
// decoded by its bits, is a failed step split when the candidate splits them elsewhere.
func foldedKeys(classes []*Class, confirmed map[string]bool) map[string]string {
	all := map[string]*DevStat{}
	for _, c := range classes {
		for k, s := range c.Deviations {
			key := c.Impl + "\x00" + resolveCut(c.Impl, k, confirmed)
			if all[key] == nil {
				all[key] = &DevStat{}
			}
			all[key].Findings += s.Findings
			for a, n := range s.Alts {
				all[key].addAlt(a, n)
			}
		}
	}
	skips := map[string]uint64{} // findings read as each skip over all of a candidate's keys
	for key, s := range all {
		impl, _, _ := strings.Cut(key, "\x00")
		for a, n := range s.Alts {
			if _, ok := deviation.SkipAt(a); ok {
				skips[impl+"\x00"+a] += n
			}
		}
	}
	base := map[string]bool{} // confirmed keys without the length a class needs
	for k := range confirmed {
		b, _, _ := strings.Cut(k, "|len>=")
		base[devKey(b)] = true
	}
	out := map[string]string{}
	for key, s := range all {
		impl, _, _ := strings.Cut(key, "\x00")
		for a, n := range s.Alts {
			share := foldShare
			if a == tailKey {
				share = tailFoldShare
			}
			if float64(n) <= share*float64(s.Findings) || !base[impl+"\x00"+a] {
				continue
			}
			if all[impl+"\x00"+a] == nil && a != tailKey && all[impl+"\x00"+tailKey] != nil && resolveCut(impl, a+orMark+tailKey, confirmed) == tailKey {
				// A reading whose every finding is the input cut short too, filed there (an
				// answer a byte short where utf8_decode writes a byte a step).
				a = tailKey
			}
			_, skip := deviation.SkipAt(a)
			if all[impl+"\x00"+a] == nil && !skip || impl+"\x00"+a == key {
				continue // no stat to file into (a skip is only ever another reading), or its own reading
			}
			if b, ok := out[key]; !ok || s.Alts[b] < n || s.Alts[b] == n && skipFirst(impl, a, b, skips) {
				out[key] = a // the most shared, then the skip most shared over all keys, then the first in order
			}
		}
	}
	shareOf := func(key string) float64 {
		return float64(all[key].Alts[out[key]]) / float64(all[key].Findings)
	}
	for key, a := range out {
		impl, _, _ := strings.Cut(key, "\x00")
		b, folded := out[impl+"\x00"+a]
		if _, again := out[impl+"\x00"+b]; folded && !again && b != strings.TrimPrefix(key, impl+"\x00") && all[key].Alts[b] == all[key].Alts[a] {
			out[key] = b // as much the reading its other reading is filed under: filed there
		}
	}
	chained := map[string]bool{}
	for key, a := range out {
		impl, _, _ := strings.Cut(key, "\x00")
		if b, folded := out[impl+"\x00"+a]; folded {
			// Two keys each the other's reading: the one more of whose findings read the
			// other way is filed there (ties: the first in order).
			if other := impl + "\x00" + a; b == strings.TrimPrefix(key, impl+"\x00") && (shareOf(other) < shareOf(key) || shareOf(other) == shareOf(key) && key < other) {
				chained[other] = true
				continue
			}
			chained[key] = true // no chains: a reading filed elsewhere files nothing
		}
	}
	for key := range chained {
		delete(out, key)
	}
	return out
}

// skipFirst breaks a tie between two other readings a and b of one key: a skip shared by more
// findings over all the candidate's keys (skips, by "IMPL\x00KEY"), then the first in order.
// Losing any byte of a run of equal bytes gives the same input, so an answer that skips one
// reads as skipping each: the offset the candidate's other answers agree on is the one it
// skips.
func skipFirst(impl, a, b string, skips map[string]uint64) bool {
	_, sa := deviation.SkipAt(a)
	_, sb := deviation.SkipAt(b)
	if na, nb := skips[impl+"\x00"+a], skips[impl+"\x00"+b]; sa && sb && na != nb {
		return na > nb
	}
	return a < b
}

// A key is filed under its other reading when more than foldShare of its findings have it: a
// fault of its own shows in many answers that read only one way (the short ones of the
// exhaustive spaces), an artifact of another fault's reading in few.
const foldShare = 0.5

// tailFoldShare is foldShare for the input cut short (deviation.Tail): a last character lost
// reads as that character dropped, and a candidate that drops some characters anywhere (a
// default-ignorable one) drops some last ones too; only a key nearly all of whose findings
// are cuts is one.
const tailFoldShare = 0.9

// confirmedKeys are the candidate and deviation keys ("IMPL\x00KEY") that a minimized witness
// shows: every deviation of a class's witness, and the key a deviation's own witness was
// minimized for (hasDeviation). When no witness of the candidate could be minimized (a merged
// report of unminimized shards), the witnesses as found confirm.
func confirmedKeys(classes []*Class) map[string]bool {
	out := map[string]bool{}
	minimized := map[string]bool{} // candidates with a minimized witness
	for _, c := range classes {
		minimized[c.Impl] = minimized[c.Impl] || c.Minimized
	}
	for _, c := range classes {
		if _, _, pos := positional(c); pos || c.Ignored != 0 {
			continue // its defect is the position or the options, whatever the deviation
		}
		if c.Witness.Minimized || !minimized[c.Impl] {
			for _, d := range deviationsOf(c.Witness) {
				out[c.Impl+"\x00"+classKey(c, statKey(d))] = true
			}
		}
		for k, s := range c.Deviations {
			// A raw finding of a few bytes that shows the deviation alone is as good as a
			// minimized witness (the exhaustive spaces are minimal by construction).
			short := s.alone && len(s.Witness.Input) <= shortWitness
			if s.Witness != nil && (s.Witness.Minimized || short || !minimized[c.Impl]) && hasDeviation(k)(s.Witness) {
				out[c.Impl+"\x00"+classKey(c, k)] = true
			}
		}
	}
	for k := range manyReadings(classes, out) {
		out[k] = true
	}
	return out
}

// tally is the findings of a candidate's deviation and how many of them have each of some
// readings (the models they fit, their other readings).
type tally struct {
	findings uint64
	of       map[string]uint64
}

// tallies sums over the classes, by candidate and key(k) ("IMPL\x00KEY") of each deviation
// stat k, its findings and what count says of them.
func tallies(classes []*Class, key func(string) string, count func(*DevStat) map[string]uint64) map[string]*tally {
	out := map[string]*tally{}
	for _, c := range classes {
		for k, s := range c.Deviations {
			t := out[c.Impl+"\x00"+key(k)]
			if t == nil {
				t = &tally{of: map[string]uint64{}}
				out[c.Impl+"\x00"+key(k)] = t
			}
			t.findings += s.Findings
			for r, n := range count(s) {
				t.of[r] += n
			}
		}
	}
	return out
}

// resolvedConfirmed is confirmed with, for each confirmed key that pairs a deviation with the
// input cut short (statKey), the deviation its findings are filed under (resolveCut) confirmed
// too: a last character dropped confirms the drop when the candidate does not cut.
func resolvedConfirmed(confirmed map[string]bool) map[string]bool {
	out := maps.Clone(confirmed)
	for k := range confirmed {
		if !strings.Contains(k, orMark) {
			continue
		}
		impl, key, _ := strings.Cut(k, "\x00")
		b, n, long := strings.Cut(key, "|len>=")
		r := resolveCut(impl, b, confirmed)
		if r == tailKey {
			continue // a cut is confirmed by a witness that reads as one alone, or by many readings
		}
		if long {
			r += "|len>=" + n
		}
		out[impl+"\x00"+r] = true
	}
	return out
}

// manyReadings are the candidate and reading keys ("IMPL\x00KEY") that are the other reading
// of nearly all the findings (manyShare) of at least manyKeys keys: one behaviour that reads as
// many, each as likely, is that behaviour (utf8_decode answers cut one step short read as the
// last character dropped, the last failure merged, swallowing the byte before it, ...), though
// no answer reads as it alone. A key whose findings all have another reading that a witness
// confirms (direct) does not count: that reading explains them already.
func manyReadings(classes []*Class, direct map[string]bool) map[string]bool {
	// By candidate and deviation: a KEY~or~tail pair's findings are KEY's.
	all := tallies(classes, devKey, func(s *DevStat) map[string]uint64 { return s.Alts })
	keys := map[string]int{}
	for key, t := range all {
		impl, _, _ := strings.Cut(key, "\x00")
		var most []string
		explained := false
		for a, n := range t.of {
			if float64(n) >= manyShare*float64(t.findings) {
				most = append(most, a)
				explained = explained || confirmedAny(direct, impl, a)
			}
		}
		for _, a := range most {
			if !explained {
				keys[impl+"\x00"+a]++
			}
		}
	}
	out := map[string]bool{}
	for k, n := range keys {
		if n >= manyKeys {
			out[k] = true
		}
	}
	return out
}

// A reading is confirmed by manyKeys keys with manyShare of their findings read so.
const (
	manyKeys  = 3
	manyShare = 0.9
)

// familyText says in the spec's words what the §2.2 rows require of a family of exits.
var familyText = map[string]string{
	"never-a-lead": "§2.2 rows 80..C1 and F5..FF: a byte that cannot start a character is one failure of 1 byte",
	"bad-sequence": "§2.2 rows C2..DF, E0..EF, F0..F4: a lead without all of its continuation bytes (truncated, or a bad continuation byte) is one failure, ending before the next lead",
	"overlong":     "§2.2: an overlong sequence (E0 80..9F xx, F0 80..8F xx xx) is one failure of all its bytes",
	"surrogate":    "§2.2: an encoded surrogate (ED A0..BF xx) is one failure of 3 bytes",
	"above-max":    "§2.2: a sequence above U+10FFFF (F4 90..BF xx xx) is one failure of 4 bytes",
	"valid":        "§2.2: a valid sequence decodes to its code point",
	"end":          "§2.1: a step at the end of the input fails",
}

// familyRows are, for the families that span several §2.2 rows, each row's part of the title
// (the rows in the spec's order), and the title with the parts of the rows the defect's classes
// break in place of %s: a candidate that accepts only 3-byte overlongs is not said to accept
// 4-byte ones.
var familyRows = map[string]struct {
	rows, parts []string
	text        string
}{
	"bad-sequence": {[]string{"C2..DF", "E0..EF", "F0..F4"}, []string{"C2..DF", "E0..EF", "F0..F4"},
		"§2.2 %s: a lead without all of its continuation bytes (truncated, or a bad continuation byte) is one failure, ending before the next lead"},
	"overlong": {[]string{"E0..EF", "F0..F4"}, []string{"E0 80..9F xx", "F0 80..8F xx xx"},
		"§2.2: an overlong sequence (%s) is one failure of all its bytes"},
}

// rowsText is the title of a defect of a §2.2 family in familyRows, naming the rows of its
// classes ("" when the family spans one row or a class rule names none).
func (d *Defect) rowsText(family string) string {
	fr, ok := familyRows[family]
	if !ok {
		return ""
	}
	seen := map[string]bool{}
	for _, c := range d.Classes {
		row, fam, ok := strings.Cut(strings.TrimPrefix(c.Rule, "2.2-"), "/")
		if !ok || fam != family || !slices.Contains(fr.rows, row) {
			return ""
		}
		seen[row] = true
	}
	var parts []string
	for i, row := range fr.rows {
		if seen[row] {
			parts = append(parts, fr.parts[i])
		}
	}
	if family == "bad-sequence" {
		if len(parts) == 1 {
			return fmt.Sprintf(fr.text, "row "+parts[0])
		}
		return fmt.Sprintf(fr.text, "rows "+strings.Join(parts, ", "))
	}
	return fmt.Sprintf(fr.text, strings.Join(parts, ", "))
}

// Title says what the defect's classes have in common, for its block's first line: what the
// candidate does, then what PHP does.
func (d *Defect) Title() string {
	if d.mapped != nil {
		return d.mapped.String()
	}
	if d.Dev != nil {
		return d.devTitle()
	}
	spec := d.specTitle()
	does := defectDoes(d)
	switch {
	case does == "" || d.Cause == "options" && d.Ignored.Count() > 1:
		// (Bits ignored apart change different things: each class says what.)
		return spec
	case strings.HasPrefix(spec, "§"):
		return does + " · PHP: " + spec
	}
	return does + " · " + spec // where (position) or why (options ignored) it does it

}

// specTitle names the defect by the spec rule its classes break.
func (d *Defect) specTitle() string {
	c := d.Classes[0]
	if at, n, ok := positional(c); ok {
		return fmt.Sprintf("position-dependent: what sits at input offset %d of %d bytes is mishandled, whatever the rule (%s); the witnesses keep %d filler bytes",
			at, n, boundary.Locate(at), n-(c.Attribution.InEnd-c.Attribution.In))
	}
	switch {
	case d.Cause == "options":
		return "answers as if " + d.Ignored.String() + " were not set"
	case d.Cause == "hex-case/upper":
		return "§1.3 hex-digit case: writes upper-case hex digits where PHP writes every \\uXXXX computed from a code point (control bytes, non-ASCII, surrogates, \\ufffd) in lower case"
	case d.Cause == "hex-case/lower":
		return "§1.3 hex-digit case: writes lower-case hex digits where PHP writes the HEX_* replacements' upper-case literals (\\u003C, \\u003E)"
	case strings.HasPrefix(d.Cause, "2.2/"):
		family := strings.TrimPrefix(d.Cause, "2.2/")
		if t := d.rowsText(family); t != "" {
			return t
		}
		if t, ok := familyText[family]; ok {
			return t
		}
	case fuzz.Attribute(c.Witness).ID() == "":
		t := string(c.Kind)
		if c.Rule != "" {
			// The witness's own words, numbers kept (the class rule has them as #).
			w, _, _ := strings.Cut(c.Witness.Detail, " (request #")
			w, _, _ = strings.Cut(w, "\n")
			if w == "" {
				w = c.Rule
			}
			t += ": " + clip(w, 100)
		}
		if c.NotRunFalse {
			t += " on inputs PHP answers false (§1.5)" // (several alone, one §2.2 row at a time)
		}
		return t
	}
	return c.Attribution.Rule.Spec()
}

// devTitle is the title of a defect named by a deviation: package deviation's title, the
// operations it was seen in when several, and where position or options explain it.
func (d *Defect) devTitle() string {
	if m, ok := strings.CutPrefix(d.Cause, "model "); ok {
		return deviation.Title("", deviation.Deviation{What: deviation.Model, Detail: m}, nil)
	}
	var ops []string
	for _, op := range fuzz.AllOps {
		if d.Dev.Ops[op] > 0 {
			ops = append(ops, string(op))
		}
	}
	op := ""
	if len(ops) > 0 {
		op = ops[0]
	}
	rows := d.Dev.TitleRows()
	if d.Dev.Dev.Key() == tailKey {
		rows = tailRows(d.Dev.Rows)
	}
	t := deviation.Title(op, d.Dev.Dev, rows)
	if len(ops) > 1 {
		t += " (" + strings.Join(ops, ", ") + ")"
	}
	if d.ignoredDev != 0 {
		t += " · answers as if " + d.ignoredDev.String() + " were not set"
	}
	if a := fuzz.AddedOptions(d.Dev.Witness); a != 0 && !strings.Contains(t, "were set") {
		// Where the answer is PHP's under one more option: the bit a test reads wrongly.
		t += " · answers as if " + a.String() + " were set"
	}
	if d.Dev.Dev.Key() == tailKey && d.Dev.Witness != nil && d.Dev.Witness.Minimized && rows[0] == "last" && len(d.Dev.Witness.Input) > 2 {
		// Where a cut that keeps K bytes is seen, the title says K; a lost last step says no length.
		t += fmt.Sprintf("; in strings of %d bytes or more (the minimized witness has %d)", len(d.Dev.Witness.Input), len(d.Dev.Witness.Input))
	}
	if _, n, ok := strings.Cut(d.Cause, "|len>="); ok {
		t += "; only in strings of " + n + " bytes or more (the witness's filler cannot go, and the bytes fail at any offset in it)"
	} else if w := d.Dev.Witness; d.Dev.Dev.Key() != tailKey && w != nil && w.Minimized && len(w.Input) > 2 && len(bytes.Trim(w.Input, "a")) == 0 {
		// A witness of filler alone, minimized: its length is what fails.
		t += fmt.Sprintf("; in strings of %d bytes or more (the minimized witness has %d)", len(w.Input), len(w.Input))
	}
	if m := d.model; m != "" {
		t += "; every finding is answered as " + reference.Texts[m] + " answers"
	}
	return t
}

// keyDeviation is the deviation of key (What|Detail|Family) at the bytes of like, which shows
// it as its other reading: the deviation of a defect none of whose findings reads as it first.
func keyDeviation(key string, like deviation.Deviation) deviation.Deviation {
	if like.Key() == key {
		return like
	}
	parts := strings.SplitN(key, "|", 3)
	for len(parts) < 3 {
		parts = append(parts, "")
	}
	return deviation.Deviation{What: deviation.What(parts[0]), Detail: parts[1], Family: parts[2], In: like.In, InEnd: like.InEnd,
		Want: like.Want, Got: like.Got, CP: -1}
}

// tailRows is the row a cut's title names (deviation.Tail): "first K" for the cut most of its
// findings that lose more than a step show, when they outnumber those that lose the last
// step only; else "last". A few cuts elsewhere (another fault's answer that also reads as
// cut) do not move it.
func tailRows(rows map[string]uint64) []string {
	best, n, firsts := "last", uint64(0), uint64(0)
	for r, c := range rows {
		if !strings.HasPrefix(r, "first ") {
			continue
		}
		firsts += c
		if c > n || c == n && r < best {
			best, n = r, c
		}
	}
	if firsts <= rows["last"] {
		return []string{"last"}
	}
	return []string{best}
}

// DefectOf is, for each class, the defect it is listed under in the table: the one named by
// the first deviation of its witness when it is in that one (namedBy), else the first that holds it,
// else the options defect that counts its findings (Defect.also).
func DefectOf(defects []*Defect) map[*Class]*Defect {
	out := map[*Class]*Defect{}
	for _, d := range defects {
		for _, c := range d.Classes {
			if out[c] == nil {
				out[c] = d
			}
			if ds := deviationsOf(c.Witness); d.Dev != nil && len(ds) > 0 && d.namedBy(c, ds[0].Key()) {
				out[c] = d
			}
		}
	}
	for _, d := range defects {
		for _, c := range d.alsoOrder {
			if out[c] == nil { // (every finding of it counted in an options defect's also)
				out[c] = d
			}
		}
	}
	return out
}

// namedBy reports whether d, named by a deviation, is (or counts a defect foldIgnoredDevs
// folded in that is) named by key k in class c.
func (d *Defect) namedBy(c *Class, k string) bool {
	for _, cause := range append([]string{d.Cause}, d.absorbed...) {
		if cause == "deviation "+classKey(c, k) || cause == "deviation "+k {
			return true
		}
	}
	return false
}

// shortWitness is the longest raw finding (bytes) that confirms a deviation it shows alone.
const shortWitness = 4

// lengthOf is, for a class whose minimized witness is filler 'a' around the bytes it names, at
// least fuzz.MinFiller of them that could not be removed, and whose bytes fail at other offsets
// too (not Anchored: not a place), the witness's length: its defect shows only in strings that
// long (a vector kernel that takes over at 16 bytes). 0 otherwise.
func lengthOf(c *Class) int {
	w := c.Witness
	if !w.Minimized || w.Anchored {
		return 0
	}
	// The bytes the deviation names, and filler.
	if ds := deviationsOf(w); len(ds) == 0 || !fillerAround(w.Input, ds[0].In, ds[0].InEnd, fuzz.MinFiller) {
		return 0
	}
	return len(w.Input)
}

// defectKey is the key c's findings of deviation key k are filed under: classKey, but a
// deviation the candidate shows in strings of any length (confirmed without one) is not a
// fault of long strings because c needs them for another of its faults (a closing quote
// dropped in every string, and the last character lost in strings of 16 bytes or more).
func defectKey(c *Class, k string, confirmed map[string]bool) string {
	ck := classKey(c, k)
	if ck == k || !confirmed[c.Impl+"\x00"+k] {
		return ck
	}
	// Only when the length is another deviation's: the witness shows k after the one it was
	// minimized for (a fault of long strings of another deviation keeps its length).
	if ds := deviationsOf(c.Witness); len(ds) < 2 || devKey(k) == ds[0].Key() {
		return ck
	}
	return k
}

// classKey is a deviation key of c's findings as its defect is keyed: with the length the
// class needs (lengthOf), so that a fault of long strings is not merged with the same
// deviation everywhere.
func classKey(c *Class, k string) string {
	if _, skip := deviation.SkipAt(k); devKey(k) == tailKey || skip {
		return k // the length is what the cut or the offset says (devTitle)
	}
	if n := lengthOf(c); n > 0 {
		return fmt.Sprintf("%s|len>=%d", k, n)
	}
	return k
}
