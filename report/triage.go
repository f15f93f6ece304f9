// Package report turns the raw findings of a difffuzz campaign into defect classes and writes
// them for people and machines (DESIGN.md §4): a class groups the findings that agree on
// operation, candidate, kind, the spec rule the oracle applied at the first difference, the
// minimized option bits and the byte-class shape of the minimized witness. A run against a
// candidate with K faults prints about K classes, however many raw findings they made.
//
// Triage is a fuzz.Sink: every campaign adds every raw finding to it as it is made. Each
// finding is placed at once, without calling the candidate again, in a group keyed by what the
// oracle says about its first difference (fuzz.Attribute: the rule, the byte classes of the
// input bytes that rule consumed, and where those bytes lie relative to the 16-, 32- and
// 64-byte chunk edges); counting is exact. Classes then minimizes the smallest finding of each
// group once (fuzz.MinimizeSame, keeping the rule), computes the class signature from the
// minimized witness and merges the groups whose witnesses agree. WriteText, Class.JSON and
// WriteFindings write the result.
package report

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
)

// Config tunes a Triage. The zero value is every default.
type Config struct {
	// Examples is how many further witnesses each class keeps besides its minimized one
	// (the smallest raw findings of the class; --examples, default 3; negative: none).
	Examples int
	// Spool keeps every raw finding (in a temporary file) for WriteFindings.
	Spool bool
	// MaxMinimize bounds the groups Classes minimizes (default 2,000): past it, a group's
	// smallest finding is its witness as found.
	MaxMinimize int
	// Progress, if set, shows Classes' minimization (one step per group).
	Progress fuzz.Progress
}

// Triage collects raw findings into groups and, through Classes, defect classes. Its Add is
// safe for concurrent use.
type Triage struct {
	cfg Config

	mu     sync.Mutex
	groups map[groupKey]*group
	list   []*group // in order of creation: spool ids
	total  uint64
	notRun []notRun

	spool    *os.File
	spoolBuf *bufio.Writer
	spoolErr error

	stats Stats
}

// Stats say what Classes did.
type Stats struct {
	Groups    int           // groups of raw findings
	Minimized int           // groups whose smallest finding was minimized (the others joined a class as they were)
	Merges    int           // classes minimized again to see whether they slipped (Classes' second pass)
	Runs      int           // runs of a candidate on one input that minimization took
	Cut       int           // groups left as found because the context was cancelled (an interrupt)
	Elapsed   time.Duration // the time Classes took
}

// Stats is what Classes did (after it returned).
func (t *Triage) Stats() Stats {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stats
}

// group is the findings that agree on their local key: what the oracle says at the first
// difference of each, before anything is minimized.
type group struct {
	id       int
	key      groupKey
	rule     string // the local rule (fuzz.Attribution.ID or a normalized detail)
	unit     string // Shape of the input bytes that rule consumed
	count    uint64
	spaces   map[string]uint64
	smallest []*fuzz.Finding     // the smallest findings, at most Examples+1, in order
	devs     map[string]*DevStat // what its findings show the candidate did (deviationsOf), by key
	class    *Class
}

// groupKey is a group's local key: the operation, candidate and kind, then localKey's parts.
type groupKey struct {
	op              fuzz.Op
	impl            string
	kind            fuzz.Kind
	rule, unit, pos string
}

// keyOf is f's group key; ex is fuzz.Explain(f).
func keyOf(f *fuzz.Finding, ex fuzz.Explanation) groupKey {
	rule, unit, pos := localKey(f, ex)
	return groupKey{f.Op, f.Impl, f.Kind, rule, unit, pos}
}

// less orders keys field by field (Classes visits groups in a stable order).
func (k groupKey) less(o groupKey) bool {
	return cmp.Or(strings.Compare(string(k.op), string(o.op)), strings.Compare(k.impl, o.impl), strings.Compare(string(k.kind), string(o.kind)),
		strings.Compare(k.rule, o.rule), strings.Compare(k.unit, o.unit), strings.Compare(k.pos, o.pos)) < 0
}

type notRun struct {
	witness *fuzz.Finding
	cases   uint64
	onFalse bool
}

// New returns an empty Triage.
func New(cfg Config) *Triage {
	if cfg.Examples == 0 {
		cfg.Examples = 3
	}
	if cfg.Examples < 0 {
		cfg.Examples = 0
	}
	if cfg.MaxMinimize <= 0 {
		cfg.MaxMinimize = 2000
	}
	return &Triage{cfg: cfg, groups: map[groupKey]*group{}}
}

// Total is the number of raw findings added so far.
func (t *Triage) Total() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}

// Add places one raw finding in its group (fuzz.Sink). It calls the oracle (fuzz.Attribute),
// never the candidate.
func (t *Triage) Add(f *fuzz.Finding) {
	sp := spanPool.Get().(*[]oracle.Span)
	ex := fuzz.ExplainTo(f, *sp) // once, for the attribution and the deviations
	defer func() {               // neither keeps a span; a finding with none leaves the buffer as it was
		if ex.Spans != nil {
			*sp = ex.Spans[:0]
		}
		spanPool.Put(sp)
	}()
	key := keyOf(f, ex)
	devs := deviationsExplained(f, ex)
	var line []byte
	if t.cfg.Spool {
		r := RecordOf(f)
		r.Space = spaceName(f)
		line, _ = json.Marshal(r)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	g := t.groups[key]
	if g == nil {
		g = &group{id: len(t.list), key: key, rule: key.rule, unit: key.unit, spaces: map[string]uint64{}, devs: map[string]*DevStat{}}
		t.groups[key] = g
		t.list = append(t.list, g)
	}
	g.count++
	t.total++
	g.spaces[spaceName(f)]++
	g.keep(f, t.cfg.Examples+1)
	addDeviations(g.devs, f, devs)
	if t.cfg.Spool {
		t.spoolLine(g.id, line)
	}
}

// spanPool holds the span buffers Add explains answers into.
var spanPool = sync.Pool{New: func() any { s := make([]oracle.Span, 0, 64); return &s }}

// AddNotRun records that cases inputs were not sent to a target because they contain the
// witness of a crash or hang (fuzz.Target.Witnesses), or, onFalse, because PHP answers them
// false (fuzz.Witness.OnFalse); witness must have been added.
func (t *Triage) AddNotRun(witness *fuzz.Finding, cases uint64, onFalse bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.notRun = append(t.notRun, notRun{witness, cases, onFalse})
}

func spaceName(f *fuzz.Finding) string {
	if f.Space == "" {
		return "other"
	}
	return f.Space
}

// keep inserts f among the n smallest findings of g.
func (g *group) keep(f *fuzz.Finding, n int) {
	i := sort.Search(len(g.smallest), func(i int) bool { return smaller(f, g.smallest[i]) })
	if i >= n {
		return
	}
	g.smallest = append(g.smallest, nil)
	copy(g.smallest[i+1:], g.smallest[i:])
	g.smallest[i] = f
	if len(g.smallest) > n {
		g.smallest = g.smallest[:n]
	}
}

// smaller orders findings for choosing witnesses: shorter input, fewer option bits, then
// bytes, options, position, space, operation, kind and candidate, so the choice does not
// depend on arrival order.
func smaller(a, b *fuzz.Finding) bool {
	switch {
	case len(a.Input) != len(b.Input):
		return len(a.Input) < len(b.Input)
	case a.Flags.Count() != b.Flags.Count():
		return a.Flags.Count() < b.Flags.Count()
	}
	if c := bytes.Compare(a.Input, b.Input); c != 0 {
		return c < 0
	}
	if a.Flags != b.Flags {
		return a.Flags < b.Flags
	}
	if a.Pos != b.Pos {
		return a.Pos < b.Pos
	}
	// the rest only breaks ties, so that no choice depends on the order findings came in
	return cmp.Or(cmp.Compare(a.Space, b.Space), cmp.Compare(a.Op, b.Op), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Impl, b.Impl)) < 0
}

// localKey is what places a raw finding in its group: the oracle's rule at the first
// difference (or, for kinds without one, the normalized detail), the byte classes of the input
// bytes around it (fuzz.Attribution.CtxIn..CtxEnd), and their position relative to the chunk
// edges.
func localKey(f *fuzz.Finding, ex fuzz.Explanation) (rule, unit, pos string) {
	a := fuzz.AttributeExplained(f, ex)
	rule = a.ID()
	switch {
	case a.Valid:
		unit = stepShapes(f.Input)
	case a.CtxIn >= 0 && a.CtxEnd > a.CtxIn && a.CtxEnd <= len(f.Input):
		unit = fuzz.Shape(f.Input[a.CtxIn:a.CtxEnd])
	}
	if rule == "" {
		rule = detailKey(f)
	}
	return rule, unit, edgePosition(a.In, a.InEnd)
}

// stepShapes is the set of the shapes of the multi-byte decoder steps of a valid input, sorted:
// what a candidate that rejects valid UTF-8 may be rejecting.
func stepShapes(in []byte) string {
	seen := map[string]bool{}
	for pos := 0; pos < len(in); {
		st := fuzz.Oracle.NextChar(in, pos)
		if st.Advance > 1 {
			seen[fuzz.Shape(in[pos:pos+st.Advance])] = true
		}
		pos += st.Advance
	}
	var out []string
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// detailKey is the part of a finding's detail that says what went wrong for kinds without an
// oracle rule (a panic's message, a target's refusal or malformed line), with the numbers and
// the candidate's name taken out; "" for the other kinds.
func detailKey(f *fuzz.Finding) string {
	switch f.Kind {
	case fuzz.KindPanic, fuzz.KindTargetRefused, fuzz.KindTargetProtocol:
	default:
		return ""
	}
	d := strings.ReplaceAll(f.Detail, f.Impl, "IMPL")
	d, _, _ = strings.Cut(d, " (request #")
	var b strings.Builder
	digits, word := false, false // in a number; after a letter (the 8 of utf8_decode is no number)
	for _, r := range d {
		isDigit := r >= '0' && r <= '9' && (digits || !word)
		if isDigit && !digits {
			b.WriteByte('#')
		}
		if !isDigit {
			b.WriteRune(r)
		}
		digits = isDigit
		word = r == '_' || unicode.IsLetter(r) || !isDigit && r >= '0' && r <= '9'
		if b.Len() >= 100 {
			break
		}
	}
	return b.String()
}

// Signature is what the findings of one defect class agree on (DESIGN.md §4), computed from the
// class's minimized witness.
type Signature struct {
	Op   fuzz.Op   `json:"op"`
	Impl string    `json:"impl"`
	Kind fuzz.Kind `json:"kind"`
	// Rule is the oracle's rule at the witness's first difference as classRule names it
	// ("2.2-C2..DF/bad-sequence", "1.3-slash", "1.5-ignore"), or what went wrong for kinds
	// without one (a panic's message with the numbers taken out), or "".
	Rule string `json:"rule"`
	// Options are the witness's minimized option bits (escape; 0 for the decoders).
	Options jsonopt.Options `json:"options"`
	// Shape is the byte-class shape of the witness (fuzz.Shape).
	Shape string `json:"shape"`
}

// Class is one defect class: the findings that agree on Signature.
type Class struct {
	ID string // "D1", "D2", ... by decreasing number of findings
	Signature
	// Witness is the class's smallest minimized finding (as found, when it could not be
	// minimized: Minimized is then false and Note says why).
	Witness     *fuzz.Finding
	Attribution fuzz.Attribution // the oracle's rule at the witness's first difference
	// Ignored are the option bits the candidate answers the witness as if they were not set
	// (fuzz.IgnoredOptions); 0 when no single bit explains its answer.
	Ignored   jsonopt.Options
	Minimized bool
	Note      string
	Findings  uint64            // raw findings in the class
	Spaces    map[string]uint64 // raw findings by input space
	// Kinds are the raw findings by kind, when they are not all of the witness's (an error
	// difference without options is an output difference under INVALID_UTF8_SUBSTITUTE).
	Kinds    map[fuzz.Kind]uint64
	Examples []*fuzz.Finding // further witnesses: the smallest raw findings, at most Config.Examples
	NotRun   uint64          // target inputs not sent because they contain the witness (crash, hang)
	// NotRunFalse: the inputs not run are, besides, every escape input PHP answers false at a
	// first failed step of the witness's §2.2 row (the target failed on so many of them
	// alone: fuzz.Witness.OnFalse).
	NotRunFalse bool
	// Deviations are what the class's findings show the candidate did (package deviation), by
	// deviation key: a finding that shows two deviations counts in both.
	Deviations map[string]*DevStat
	groups     []*group
	// examples is how many further witnesses were asked for (Config.Examples, merge's
	// --examples): a defect block prints as many of its deviation's.
	examples int
}

// add puts a group's findings in c.
func (c *Class) add(g *group) {
	c.Findings += g.count
	if c.Spaces == nil {
		c.Spaces = map[string]uint64{}
	}
	for s, n := range g.spaces {
		c.Spaces[s] += n
	}
	if c.Kinds == nil {
		c.Kinds = map[fuzz.Kind]uint64{}
	}
	c.Kinds[g.smallest[0].Kind] += g.count
	c.Deviations = mergeDevs(c.Deviations, g.devs)
	c.groups = append(c.groups, g)
	g.class = c
}

// compactKey is what a group must share with a compact class to join it unminimized: the
// operation, the candidate, the class rule of its smallest finding (classRule, which a
// minimization keeps) and the byte classes of the step the oracle names there.
func compactKey(g *group) string {
	rep := g.smallest[0]
	rule, _ := classRule(rep)
	a := fuzz.Attribute(rep)
	unit := ""
	if a.In >= 0 && a.InEnd > a.In && a.InEnd <= len(rep.Input) {
		unit = fuzz.Shape(rep.Input[a.In:a.InEnd])
	}
	if rule == "" {
		rule = string(rep.Kind)
	}
	return strings.Join([]string{string(rep.Op), rep.Impl, rule, unit}, "\x00")
}

// onlyNamed reports whether the witness is the bytes its attribution names and 'a' filler: what
// the defect needs is in the step named (the compact key's unit), not in bytes around it (a
// lenient decoder's lead before a backslash it swallowed, E1 5C 61, named after the backslash).
func onlyNamed(w *fuzz.Finding) bool {
	a := fuzz.Attribute(w)
	return fillerAround(w.Input, a.In, a.InEnd, 0)
}

// positionPeriod is the widest chunk of vector code (bytes): a position-dependent defect strikes
// at the same offsets modulo it.
const positionPeriod = 64

// compactWitness is the longest minimized witness (bytes) that makes its class "compact" for
// Classes: short enough that no chunk edge was needed to show the defect.
const compactWitness = 8

// Rechecker returns the candidate named impl and a way to run it on one input again, for
// minimization; ok false when it cannot be run again (the group keeps its smallest finding).
type Rechecker func(impl string) (im fuzz.Impl, check fuzz.CheckOne, ok bool)

// Classes minimizes the smallest finding of each group (at most Config.MaxMinimize, and none
// once ctx is done), computes each witness's Signature and merges the groups with equal
// signatures into classes, sorted by decreasing number of findings (then by operation,
// candidate and signature) and numbered D1, D2, ... in that order. Groups whose smallest
// finding is already minimized (a target's crash or hang, minimized when found) are not
// minimized again. It may be called once.
func (t *Triage) Classes(ctx context.Context, recheck Rechecker) []*Class {
	t.mu.Lock()
	defer t.mu.Unlock()
	start := time.Now()
	defer func() {
		t.stats.Groups, t.stats.Elapsed = len(t.list), time.Since(start)
	}()
	gs := append([]*group(nil), t.list...)
	// Smallest representatives first: they minimize fastest, and a group that differs from an
	// earlier one only in where its bytes lie joins that one's class without being minimized
	// (see classing.compact).
	sort.Slice(gs, func(i, j int) bool {
		a, b := gs[i].smallest[0], gs[j].smallest[0]
		if len(a.Input) != len(b.Input) {
			return len(a.Input) < len(b.Input)
		}
		return gs[i].key.less(gs[j].key)
	})
	cl := &classing{t: t, recheck: t.counted(recheck), progress: t.cfg.Progress, byKey: map[string]*Class{},
		compact: map[string]*Class{}, named: map[*Class]bool{}, compactAt: map[string]*Class{}}
	if cl.progress != nil {
		cl.progress.Begin("triage: groups of findings placed in classes", uint64(len(gs)))
		defer cl.progress.End()
	}
	for _, g := range gs {
		cl.place(ctx, g)
	}
	classes := t.mergeSlipped(ctx, cl.recheck, cl.classes, cl.byKey, &cl.minimized)
	t.minimizeDeviations(ctx, cl.recheck, classes, &cl.minimized)
	for _, c := range classes {
		c.Attribution = fuzz.Attribute(c.Witness)
		c.Examples, c.examples = examples(c, t.cfg.Examples), t.cfg.Examples
	}
	for _, nr := range t.notRun {
		if g := t.groups[keyOf(nr.witness, fuzz.Explain(nr.witness))]; g != nil && g.class != nil {
			g.class.NotRun += nr.cases
			g.class.NotRunFalse = g.class.NotRunFalse || nr.onFalse
		}
	}
	number(classes)
	return classes
}

// counted is recheck counting each candidate run in the triage's stats (nil stays nil).
func (t *Triage) counted(recheck Rechecker) Rechecker {
	if recheck == nil {
		return nil
	}
	return func(impl string) (fuzz.Impl, fuzz.CheckOne, bool) {
		im, check, ok := recheck(impl)
		if !ok {
			return im, check, ok
		}
		return im, func(op fuzz.Op, im fuzz.Impl, src []byte, opts jsonopt.Options) []*fuzz.Finding {
			t.stats.Runs++
			return check(op, im, src, opts)
		}, true
	}
}

// classing is Triage.Classes placing the groups in classes, smallest first.
type classing struct {
	t        *Triage
	recheck  Rechecker
	progress fuzz.Progress
	byKey    map[string]*Class
	// compact maps a group key without its position to the class of a group with that key
	// whose minimized witness is a few bytes long: the defect did not need the bytes to lie
	// anywhere in particular, so later groups that differ only in position are that class too.
	// (A witness that needed filler, a chunk-edge defect, is not compact.)
	compact map[string]*Class
	named   map[*Class]bool // compact classes whose witness is onlyNamed
	// compactAt maps a compact key and an input offset (modulo positionPeriod) to the class
	// of a group found there whose witness is position-dependent (filler around the bytes it
	// names): later groups with that key at that offset join it unminimized.
	compactAt map[string]*Class
	classes   []*Class
	minimized int
}

// place puts group g in a class: the compact class it joins unminimized, else the class of
// its (minimized) witness's signature, new or not.
func (cl *classing) place(ctx context.Context, g *group) {
	if cl.progress != nil {
		defer cl.progress.Advance(1)
	}
	rep := g.smallest[0]
	ck := compactKey(g)
	// A compact class whose witness needs bytes besides the step it names (a step misnamed
	// after the bytes a lenient decoder swallowed) is joined only by groups as ambiguous.
	ra := fuzz.Attribute(rep)
	pk := ck + "\x00@" + strconv.Itoa(ra.In%positionPeriod)
	c := cl.compact[ck]
	if c != nil && !cl.named[c] && len(ra.Others) == 0 {
		c = nil
	}
	if c == nil && ra.In >= 0 {
		c = cl.compactAt[pk]
	}
	if c != nil {
		c.add(g)
		return
	}
	w, note := cl.witness(ctx, rep)
	sig, ign := signatureOf(w)
	k := sig.key()
	c = cl.byKey[k]
	if c == nil {
		c = &Class{Signature: sig, Ignored: ign, Spaces: map[string]uint64{}}
		cl.byKey[k] = c
		cl.classes = append(cl.classes, c)
	}
	if c.Witness == nil || (w.Minimized && !c.Minimized) || (w.Minimized == c.Minimized && smaller(w, c.Witness)) {
		c.Witness, c.Minimized, c.Note = w, w.Minimized, note
	}
	c.add(g)
	if w.Minimized && len(w.Input) <= compactWitness {
		cl.compact[ck] = c
		cl.named[c] = onlyNamed(w)
	}
	if _, _, ok := positionalWitness(w, fuzz.Attribute(w)); ok && ra.In >= 0 {
		cl.compactAt[pk] = c
	}
}

// witness is a group's witness: its representative rep minimized (up to MaxMinimize groups,
// while ctx lasts, when the candidate can be run again), and a note when it is not.
func (cl *classing) witness(ctx context.Context, rep *fuzz.Finding) (*fuzz.Finding, string) {
	t := cl.t
	switch {
	case rep.Minimized:
		return rep, ""
	case ctx.Err() != nil:
		t.stats.Cut++
		return rep, "not minimized: the run was interrupted"
	case cl.minimized >= t.cfg.MaxMinimize:
		return rep, fmt.Sprintf("not minimized: more than %d groups", t.cfg.MaxMinimize)
	}
	im, check, ok := fuzz.Impl{}, fuzz.CheckOne(nil), false
	if cl.recheck != nil {
		im, check, ok = cl.recheck(rep.Impl)
	}
	if !ok {
		return rep, "not minimized: the candidate cannot be run again"
	}
	cl.minimized++
	t.stats.Minimized++
	w := fuzz.MinimizeSame(rep, im, check, sameAs(rep))
	if !w.Minimized {
		return w, "not minimized: the candidate does not fail on it alone"
	}
	return w, ""
}

func (s Signature) key() string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%d\x00%s", s.Op, s.Impl, s.Kind, s.Rule, s.Options, s.Shape)
}

// mergeSlipped is Classes' second pass. The first minimizes each group keeping the oracle's
// rule at its first difference, so that an input showing two defects cannot slip from one to
// the other. But where two neighbouring steps may be to blame (fuzz.Attribution.Others) the
// rule can be misnamed on a long input: a candidate step that swallowed the bytes after it
// shows its first difference in the next step's output (lenient decoding of "E0 61 E1 A4 BF"
// makes utf8_decode's 'a' a '?'). Such a class keeps extra bytes and the wrong rule. So the
// witness of each class whose first difference is ambiguous (smallest classes first) is
// minimized once more keeping any rule; when the result is the signature of another class and
// that class's rule is one the ambiguity allowed (classRules), the class is merged into that
// one; otherwise it stays as it is. Only removing bytes and option bits is free: replacing
// bytes by 'a' keeps the rule the removing ended with, or an overlong "E0 80 80" could become
// the "E1 61 61" of a lenient decoder.
func (t *Triage) mergeSlipped(ctx context.Context, recheck Rechecker, classes []*Class, byKey map[string]*Class, minimized *int) []*Class {
	if recheck == nil {
		return classes
	}
	asc := append([]*Class(nil), classes...)
	sort.SliceStable(asc, func(i, j int) bool { return asc[i].Findings < asc[j].Findings })
	merged := map[*Class]bool{}
	for _, c := range asc {
		if ctx.Err() != nil || *minimized >= t.cfg.MaxMinimize {
			break
		}
		if !c.Minimized || fuzz.Attribute(c.Witness).ID() == "" {
			continue
		}
		im, check, ok := recheck(c.Impl)
		if !ok {
			continue
		}
		*minimized++
		t.stats.Merges++
		allowed := classRules(c.Witness)
		// Any decoder step's rule, or one the ambiguity allowed, may be reached (not any rule:
		// the witness must not slip onto another fault that it happens to show too).
		reach := func(g *fuzz.Finding) bool {
			r, _ := classRule(g)
			return slices.Contains(allowed, r) || strings.HasPrefix(r, "2.2-")
		}
		w := fuzz.MinimizeWith(c.Witness, im, check, fuzz.MinimizeOptions{Same: reach, Simplify: sameAs})
		sig, _ := signatureOf(w)
		d := byKey[sig.key()]
		// Only into a decoder step's class, or one whose rule the witness's ambiguity allowed: a
		// step that swallowed the bytes after it is misnamed after them, not the reverse, and a
		// witness that a broader fault also fails (every output differs at its closing quote)
		// must not slip into that fault's class.
		if d == nil || d == c || merged[d] || !slices.Contains(allowed, d.Rule) && !strings.HasPrefix(d.Rule, "2.2-") {
			continue
		}
		merged[c] = true
		for _, g := range c.groups {
			d.add(g)
		}
		d.NotRun += c.NotRun
	}
	var out []*Class
	for _, c := range classes {
		if !merged[c] {
			out = append(out, c)
		}
	}
	return out
}

func opIndex(op fuzz.Op) int {
	for i, o := range fuzz.AllOps {
		if o == op {
			return i
		}
	}
	return len(fuzz.AllOps)
}

// sameAs is the minimization predicate of a group: the finding still has the class rule of the
// group's smallest finding (classRule; for kinds without a rule, the same kind).
func sameAs(rep *fuzz.Finding) func(*fuzz.Finding) bool {
	rule, _ := classRule(rep)
	return func(f *fuzz.Finding) bool {
		if r, _ := classRule(f); r != rule {
			return false
		}
		return rule != "" || f.Kind == rep.Kind
	}
}

// classRule is the rule a class is keyed by, from what the oracle says at the first difference
// (fuzz.Attribute) and whether the candidate merely ignored option bits (fuzz.IgnoredOptions,
// returned too):
//
//   - the candidate answers as if option bits were not set: the oracle's rule there, such as
//     "1.3-tag-hex" or "1.5-ignore" ("/ROW" added for a valid multi-byte step, as below);
//   - the oracle's decoder step there failed: "2.2-ROW/FAMILY" (oracle.Exit.Row and Family, such
//     as "2.2-C2..DF/bad-sequence"), whatever §1.5 or §3.1 made of the failure, so that one
//     decoder defect has one rule in escape, decode and utf8_decode;
//   - a valid step: the §1.4 or §3.1 rule and the row ("1.4-unicode/E0..EF"; decode:
//     "2.2-E0..EF/valid");
//   - an ASCII byte, a quote: the §1.2/§1.3 rule ("1.3-slash");
//   - an error on valid UTF-8: "valid-utf8";
//   - kinds without a rule: the normalized detail of a panic, refusal or malformed answer, else "".
func classRule(f *fuzz.Finding) (string, jsonopt.Options) {
	return classRuleFor(f, fuzz.Attribute(f))
}

// classRules are the class rule of f and those of the other spans that may be to blame
// (fuzz.Attribution.Others): the rules a minimization of f may keep.
func classRules(f *fuzz.Finding) []string {
	a := fuzz.Attribute(f)
	r, _ := classRuleFor(f, a)
	out := []string{r}
	for _, o := range a.Others {
		r, _ := classRuleFor(f, a.As(o))
		out = append(out, r)
	}
	return out
}

// classRuleFor is classRule for the attribution a of f.
func classRuleFor(f *fuzz.Finding, a fuzz.Attribution) (string, jsonopt.Options) {
	e := a.Exit
	switch {
	case a.ID() == "":
		return detailKey(f), 0
	case a.Valid:
		return "valid-utf8", 0
	}
	if ign := fuzz.IgnoredOptions(f); ign != 0 {
		if sp, ok := optionSpan(f, ign); ok {
			r, e := sp.Rule.String(), sp.Exit
			if e.Family() == "valid" && e != oracle.ExitASCII {
				r += "/" + e.Row()
			}
			return r, ign
		}
	}
	switch {
	case e == oracle.ExitNone:
		return a.Rule.String(), 0
	case e.Family() != "valid" || f.Op == fuzz.OpDecode:
		return "2.2-" + e.Row() + "/" + e.Family(), 0
	case e == oracle.ExitASCII:
		return a.Rule.String(), 0
	}
	return a.Rule.String() + "/" + e.Row(), 0
}

// optionSpan is the first step of an escape that the ignored option bits change: one whose
// bytes the oracle writes differently without them (the first difference of the outputs may
// lie before it when they are alike there: escaped backslashes before a slash that
// UNESCAPED_SLASHES leaves raw). When the string fails without them, it is the first invalid
// step.
func optionSpan(f *fuzz.Finding, ign jsonopt.Options) (oracle.Span, bool) {
	out, with, _ := oracle.EscapeExplain(nil, f.Input, f.Flags)
	alt, without, _ := oracle.EscapeExplain(nil, f.Input, f.Flags&^ign)
	if len(without) == 1 && (without[0].Rule == oracle.RuleFalse || without[0].Rule == oracle.RulePartialNull) {
		for _, sp := range with {
			if sp.In == without[0].In && sp.InEnd > sp.In {
				return sp, true
			}
		}
	}
	for _, sp := range with {
		if sp.InEnd == sp.In {
			continue // a quote
		}
		same := false
		for _, o := range without {
			// A number and a string are different answers even where the digits are alike
			// ("0" as 0 under NUMERIC_CHECK, as "0" without it).
			same = same || o.In == sp.In && o.InEnd == sp.InEnd && (o.Rule == oracle.RuleNumber) == (sp.Rule == oracle.RuleNumber) &&
				string(alt[o.Out:o.OutEnd]) == string(out[sp.Out:sp.OutEnd])
		}
		if !same {
			return sp, true
		}
	}
	return oracle.Span{}, false
}

// signatureOf is the signature of a (minimized) witness, and the option bits its candidate
// ignored.
func signatureOf(w *fuzz.Finding) (Signature, jsonopt.Options) {
	rule, ign := classRule(w)
	sig := Signature{Op: w.Op, Impl: w.Impl, Kind: w.Kind, Rule: rule, Shape: fuzz.Shape(w.Input)}
	if w.Op == fuzz.OpEscape {
		sig.Options = w.Flags
	}
	return sig, ign
}

// examples are the n smallest raw findings of the class's groups other than its witness:
// inputs other than the witness's and each other's first (they show more of the defect), then
// the same inputs under other options.
func examples(c *Class, n int) []*fuzz.Finding {
	var all []*fuzz.Finding
	for _, g := range c.groups {
		all = append(all, g.smallest...)
	}
	sort.SliceStable(all, func(i, j int) bool { return smaller(all[i], all[j]) })
	var out []*fuzz.Finding
	for _, distinctInput := range []bool{true, false} {
		for _, f := range all {
			if len(out) == n {
				return out
			}
			same := func(g *fuzz.Finding) bool {
				return bytes.Equal(g.Input, f.Input) && (distinctInput || g.Flags == f.Flags)
			}
			dup := same(c.Witness)
			for _, g := range out {
				dup = dup || same(g)
			}
			if !dup {
				out = append(out, f)
			}
		}
	}
	return out
}

// spoolLine writes one raw finding, tagged with its group, to the spool file.
func (t *Triage) spoolLine(gid int, line []byte) {
	if t.spoolErr != nil {
		return
	}
	if t.spool == nil {
		t.spool, t.spoolErr = os.CreateTemp("", "difffuzz-findings-*.jsonl")
		if t.spoolErr != nil {
			return
		}
		t.spoolBuf = bufio.NewWriterSize(t.spool, 1<<20)
	}
	t.spoolBuf.WriteString(strconv.Itoa(gid))
	t.spoolBuf.WriteByte('\t')
	t.spoolBuf.Write(line)
	if err := t.spoolBuf.WriteByte('\n'); err != nil {
		t.spoolErr = err
	}
}

// WriteFindings writes every raw finding (Config.Spool) as JSON Lines: one object per finding,
// its fields those of fuzz.Finding.JSON plus "space" and "class" (the Class.ID it belongs to),
// in the order they were added. Call it after Classes. It returns how many it wrote.
func (t *Triage) WriteFindings(w io.Writer) (uint64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.cfg.Spool {
		return 0, fmt.Errorf("report: WriteFindings without Config.Spool")
	}
	if t.spoolErr != nil {
		return 0, fmt.Errorf("report: spooling findings: %w", t.spoolErr)
	}
	if t.spool == nil {
		return 0, nil
	}
	if err := t.spoolBuf.Flush(); err != nil {
		return 0, err
	}
	if _, err := t.spool.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	r := bufio.NewReaderSize(t.spool, 1<<20)
	bw := bufio.NewWriterSize(w, 1<<20)
	var n uint64
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			gid, rest, ok := bytes.Cut(line, []byte{'\t'})
			id, aerr := strconv.Atoi(string(gid))
			if !ok || aerr != nil || id >= len(t.list) || len(rest) < 2 || rest[0] != '{' {
				return n, fmt.Errorf("report: findings spool corrupt at line %d", n+1)
			}
			class := ""
			if c := t.list[id].class; c != nil {
				class = c.ID
			}
			bw.WriteString(`{"class":` + strconv.Quote(class) + ",")
			bw.Write(rest[1:])
			n++
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// Close removes the spool file.
func (t *Triage) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.spool == nil {
		return nil
	}
	name := t.spool.Name()
	t.spool.Close()
	t.spool = nil
	return os.Remove(name)
}
