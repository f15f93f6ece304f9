package fuzz

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/difffuzz/difffuzz/boundary"
	"github.com/difffuzz/difffuzz/internal/jsonstr"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
)

// Attribution is what the oracle says about a finding's first difference (DESIGN.md §4): the
// spec rule it applied there and the input bytes that rule consumed. Package report groups
// findings by it and prints it.
type Attribution struct {
	// Rule is the §1 or §3.1 rule of the oracle's output span at the first difference
	// (escape and utf8_decode; RuleNone for decode and for kinds without an output).
	Rule oracle.Rule
	// Exit is the §2.2 exit of the decoder step behind that span, or of the differing step
	// (decode); ExitNone for an ASCII byte of escape and for kinds without a step.
	Exit oracle.Exit
	// In, InEnd are the input bytes the rule consumed (the decoder step, the ASCII byte); both
	// -1 when the finding names no input position. For the quotes they are empty.
	In, InEnd int
	// Out is the output offset of the first difference (escape, utf8_decode), -1 otherwise.
	Out int
	// CtxIn, CtxEnd are the input bytes around the first difference that tell findings apart:
	// In, InEnd, widened over the neighbouring steps that may be to blame as well (Others).
	CtxIn, CtxEnd int
	// Others are the other spans that may be to blame instead of the one named (In, InEnd): when
	// the first difference is where a span starts, right after steps whose output does not show
	// how many bytes they consumed (\ufffd, '?', nothing: IGNORE), the oracle cannot tell which
	// one the candidate got wrong. Nearest first.
	Others []oracle.Span
	// Valid is set for an error difference on which the oracle returned no error with every
	// decoder step valid: the candidate failed on valid UTF-8, and no single rule of the oracle's
	// answer is to blame (Rule and Exit are those of its first decoder step, if any).
	Valid bool
}

// ID is the attribution as one stable word for grouping: the rule and the exit
// ("1.5-substitute/F8", "1.3-slash", "2.2/F7" for a decoder step), "valid-utf8" for an error on
// valid input, "" when the finding has no rule (memory, panics, targets that fail).
func (a Attribution) ID() string {
	switch {
	case a.Valid:
		return "valid-utf8"
	case a.Rule == oracle.RuleNone && a.Exit == oracle.ExitNone:
		return ""
	case a.Rule == oracle.RuleNone:
		return "2.2/" + a.Exit.String()
	case a.Exit == oracle.ExitNone:
		return a.Rule.String()
	}
	return a.Rule.String() + "/" + a.Exit.String()
}

// Spec is the attribution in the spec's words: "§2.2 row E0..EF, avail < 3 or s2 a lead: FAIL,
// advance 2 and §1.5 INVALID_UTF8_SUBSTITUTE: the invalid sequence as \ufffd" ("" without a rule).
func (a Attribution) Spec() string {
	var parts []string
	if a.Valid {
		parts = append(parts, "§1.2 step 7: every decoder step succeeds, so no error")
	}
	if a.Exit != oracle.ExitNone {
		parts = append(parts, a.Exit.Spec())
	}
	if a.Rule != oracle.RuleNone && !a.Valid {
		parts = append(parts, a.Rule.Spec())
	}
	return strings.Join(parts, " and ")
}

// Where places the rule's input bytes on the chunk grid: "input 14..17: chunk 0, lane 14 of
// 16, 2 bytes before the 16-byte edge at 16" ("" when the finding names no input position).
func (a Attribution) Where() string {
	switch {
	case a.In < 0:
		return ""
	case a.InEnd <= a.In:
		return fmt.Sprintf("input offset %d (end of input)", a.In)
	case a.InEnd == a.In+1:
		return fmt.Sprintf("input offset %d: %s", a.In, boundary.Locate(a.In))
	}
	s := fmt.Sprintf("input %d..%d: %s", a.In, a.InEnd-1, boundary.Locate(a.In))
	if a.In/boundary.Lanes != (a.InEnd-1)/boundary.Lanes {
		s += fmt.Sprintf(", straddling the edge at %d", (a.InEnd-1)/boundary.Lanes*boundary.Lanes)
	}
	return s
}

// Attribute asks the oracle which rule it applied at f's first difference (oracle.EscapeExplain,
// oracle.UTF8DecodeExplain, oracle.NextCharExplain):
//
//   - output-differs (escape, utf8_decode): the oracle's span holding the first differing output
//     byte; when the candidate's output is the oracle's with bytes inserted or removed, the
//     leftmost point where that can be (so a step the candidate cut short is named, not the
//     byte after it); an IGNORE span (no output) at that point is preferred to the span after it.
//   - error-differs: when the oracle fails, its failing step (RuleFalse or RulePartialNull);
//     when only the candidate fails, the oracle's first IGNORE or SUBSTITUTE span if any, else
//     the finding is Valid (the candidate rejected valid UTF-8).
//   - step-differs (decode): the exit of the oracle's step at f.Pos.
//   - every other kind has no rule; In is the finding's location when it has one.
func Attribute(f *Finding) Attribution {
	return AttributeExplained(f, Explain(f))
}

// Explain is the oracle's explained answer of an escape finding (output or error) or a
// utf8_decode output finding, for the readers of one finding to share; empty for others.
func Explain(f *Finding) Explanation {
	return ExplainTo(f, nil)
}

// ExplainTo is Explain with the spans appended to spans[:0] (a buffer the caller reuses once
// it is done with the explanation).
func ExplainTo(f *Finding, spans []oracle.Span) Explanation {
	var ex Explanation
	if f.Op == OpEscape && (f.Kind == KindOutput || f.Kind == KindError) {
		if spans == nil {
			spans = make([]oracle.Span, 0, len(f.Input)+2)
		}
		// Room for an answer twice the input, quotes and one escape: one allocation for most.
		ex.Want, ex.Spans, ex.Err = oracle.EscapeExplainTo(make([]byte, 0, 2*len(f.Input)+8), spans, f.Input, f.Flags)
	}
	if f.Op == OpUTF8Decode && f.Kind == KindOutput {
		ex.Want, ex.Spans = oracle.UTF8DecodeExplainTo(make([]byte, 0, len(f.Input)), spans[:0], f.Input)
		ex.UTF8 = true
	}
	return ex
}

// Explanation is the oracle's explained json_encode answer for a finding's input and options
// (oracle.EscapeExplain), computed once for the readers of one finding (Attribute, package
// deviation).
type Explanation struct {
	Want  []byte
	Spans []oracle.Span
	Err   error
	// UTF8 is set for utf8_decode's explained answer (oracle.UTF8DecodeExplain).
	UTF8 bool
}

// AttributeExplained is Attribute with the oracle's explained answer given: ex must be
// Explain(f) (or empty, for a utf8_decode finding).
func AttributeExplained(f *Finding, ex Explanation) Attribution {
	a := Attribution{In: -1, InEnd: -1, Out: -1, CtxIn: -1, CtxEnd: -1}
	switch {
	case f.Kind == KindStep:
		st, e := oracle.NextCharExplain(f.Input, f.Pos)
		a.Exit, a.In, a.InEnd = e, f.Pos, min(f.Pos+st.Advance, len(f.Input))
		return a
	case (f.Kind == KindOutput || f.Kind == KindError) && f.Op == OpEscape:
		want, spans, werr := ex.Want, ex.Spans, ex.Err
		if len(spans) == 0 {
			return a // not reached: every answer has a span
		}
		if werr != nil || f.Kind == KindOutput {
			sp := spans[0]
			if werr == nil {
				a.Out = diffPoint(want, f.Got)
				// An insertion can often start at several points (the inserted bytes may end
				// like those before them); one where the oracle ignored a sequence is the place
				// the candidate wrote something for it.
				for _, s := range spans {
					if s.Rule == oracle.RuleIgnore && s.Out >= a.Out && s.Out <= FirstDiff(want, f.Got) {
						a.Out = s.Out
						break
					}
				}
				var ctx []oracle.Span
				sp, ctx = spanAt(spans, a.Out, want, f.Got, f.Input, true)
				return a.of(sp).within(deletedIn(spans, ctx, want, f.Got, a.Out))
			}
			return a.of(sp)
		}
		// The candidate failed, the oracle did not: an IGNORE or SUBSTITUTE step is the first
		// place where failing could be a rule's doing.
		for _, sp := range spans {
			switch sp.Rule {
			case oracle.RuleIgnore, oracle.RuleSubstitute, oracle.RuleSubstituteRaw:
				return a.of(sp)
			}
		}
		a.Valid = true
		for _, sp := range spans {
			if sp.Exit != oracle.ExitNone {
				return a.of(sp)
			}
		}
		return a
	case f.Kind == KindOutput && f.Op == OpUTF8Decode:
		want, spans := ex.Want, ex.Spans
		if !ex.UTF8 {
			want, spans = oracle.UTF8DecodeExplain(nil, f.Input)
		}
		d := diffPoint(want, f.Got)
		if k := len(want) - len(f.Got); k > 0 && d <= len(f.Got) && string(want[d+k:]) == string(f.Got[d:]) {
			// utf8_decode writes a byte a step, so the bytes after a step that swallowed others
			// often match the oracle's by chance ("?aaa" against "?a"): move left to where the
			// removal can start, but not over a '?', which any failed step writes.
			for d > 0 && want[d-1] == f.Got[d-1] && want[d-1] != '?' {
				d--
			}
		}
		a.Out = d
		if len(spans) == 0 {
			return a
		}
		if d >= len(want) { // the candidate wrote more than the oracle: after the last step
			return a.of(spans[len(spans)-1])
		}
		sp, ctx := spanAt(spans, d, want, f.Got, f.Input, false)
		return a.of(sp).within(ctx)
	}
	if f.Loc != nil && !f.Loc.Output {
		a.In, a.InEnd = f.Loc.Off, f.Loc.Off+1
		a.CtxIn, a.CtxEnd = a.In, a.InEnd
	}
	return a
}

// deletedIn adds to ctx the spans where bytes that the candidate left out may have been: when
// got is want with k bytes removed at d, and the bytes right before d repeat want[d] (the
// third backslash of \\\u00c0), the removal may have been anywhere in that run, so the spans of
// the run are suspects as well as the one at d.
func deletedIn(spans, ctx []oracle.Span, want, got []byte, d int) []oracle.Span {
	k := len(want) - len(got)
	if k <= 0 || d+k > len(want) || d > len(got) || !bytes.Equal(want[d+k:], got[d:]) {
		return ctx
	}
	r := d
	for r > 0 && want[r-1] == want[d+k-1] {
		r--
	}
	if r == d {
		return ctx
	}
	var out []oracle.Span
	for _, s := range spans {
		if s.OutEnd > r && s.Out < d && s.In < ctx[0].In {
			out = append(out, s)
		}
	}
	return append(out, ctx...)
}

func (a Attribution) of(sp oracle.Span) Attribution {
	a.Rule, a.Exit, a.In, a.InEnd = sp.Rule, sp.Exit, sp.In, sp.InEnd
	a.CtxIn, a.CtxEnd = sp.In, sp.InEnd
	return a
}

// within widens the context to the spans ctx (in input order), which hold the named one, and
// lists the others in Others, nearest to it first.
func (a Attribution) within(ctx []oracle.Span) Attribution {
	a.CtxIn, a.CtxEnd = min(a.CtxIn, ctx[0].In), max(a.CtxEnd, ctx[len(ctx)-1].InEnd)
	for k := len(ctx) - 1; k >= 0; k-- {
		if ctx[k].In != a.In || ctx[k].InEnd != a.InEnd || ctx[k].Rule != a.Rule {
			a.Others = append(a.Others, ctx[k])
		}
	}
	return a
}

// As is the attribution with sp, one of Others, named instead.
func (a Attribution) As(sp oracle.Span) Attribution {
	a.Others = nil
	return a.of(sp)
}

// diffPoint is the first difference between the oracle's output want and the candidate's got;
// when got is want with bytes inserted, it is moved left to where the insertion can start (see
// insertionPoint), so that a step the candidate cut short is named rather than the step after
// it. (For removed bytes the first difference is kept: moving left would cross equal bytes
// such as the two backslashes of \\ and name the wrong step; spanAt handles a step that
// swallowed the bytes after it.)
func diffPoint(want, got []byte) int {
	d := FirstDiff(want, got)
	if d < 0 {
		return len(want)
	}
	if len(got) > len(want) {
		return insertionPoint(want, got, d)
	}
	return d
}

// spanAt names the span of the oracle's output want (of input in) in which the candidate's
// output got first differs, at offset d: the span holding d (j). Right before span j there may
// be steps whose output does not show how many bytes they consumed (\ufffd, '?', nothing for an
// IGNORE step); then either may be to blame, and what the candidate wrote from j's start up to
// where the oracle's output after j resumes decides (writes): an IGNORE step is named when the
// candidate did not write span j's bytes there (it took them with the ignored ones) or wrote
// j's output a little later (it wrote something for the ignored bytes first); the step before
// j is named when the candidate wrote less than the oracle and not j's bytes (it swallowed
// them, as a decoder that does not check continuation bytes does); else span j. The context
// returned is the spans that may be to blame: the one named and span j, or the step before it.
// containsToken reports whether out occurs in got[lo:hi] where a JSON string's token may
// start: an escape (out beginning with a backslash) only after an even run of backslashes, so
// that the tail of an escaped backslash and a raw slash (\\/) is not taken for \/.
func containsToken(got []byte, lo, hi int, out []byte) bool {
	for i := lo; i+len(out) <= hi; i++ {
		if !bytes.HasPrefix(got[i:], out) {
			continue
		}
		run := 0
		for k := i - 1; k >= 0 && got[k] == '\\'; k-- {
			run++
		}
		if len(out) == 0 || out[0] != '\\' || run%2 == 0 {
			return true
		}
	}
	return false
}

func spanAt(spans []oracle.Span, d int, want, got, in []byte, escape bool) (oracle.Span, []oracle.Span) {
	shorter := len(got) < len(want)
	j := len(spans) - 1 // the span holding d
	for k, s := range spans {
		if s.OutEnd > d {
			j = k
			break
		}
	}
	// The steps right before span j whose output does not show how many bytes they took:
	// either may be to blame when the difference lies in span j (its output can even begin like
	// the candidate's, which then differs a byte later).
	start := spans[j].Out
	i := j
	for i > 0 && spans[i-1].OutEnd == start && (opaque(spans[i-1].Rule) || spans[i-1].Out == start) {
		i--
	}
	// The context: the span holding d and the one suspect named with it (the step right before
	// it, or an IGNORE step at d), not every step before: the group key stays short.
	ctx := func(k int) []oracle.Span {
		if k == j {
			k = max(i, j-1)
		}
		return spans[k : j+1]
	}
	if i < j {
		bytesOf := spans[j].InEnd > spans[j].In // a quote has none: no step swallows it
		wrote := !bytesOf || writes(spans[j], start, want, got, in, escape)
		for k := i; k < j; k++ {
			if spans[k].Out == start && spans[k].OutEnd == start && spans[k].InEnd > spans[k].In {
				// An IGNORE step at j's start: to blame when the candidate wrote something for
				// it (span j's output comes a little later) or took span j's bytes with it.
				if out := want[spans[j].Out:spans[j].OutEnd]; !wrote ||
					containsToken(got, min(len(got), start+1), min(len(got), start+16+len(out)), out) {
					return spans[k], ctx(k)
				}
				break
			}
		}
		if shorter && !wrote {
			return spans[j-1], ctx(j - 1)
		}
	}
	return spans[j], ctx(j)
}

// writes reports whether the candidate's output got from offset d (where span sp starts) on, up to where the oracle's output
// after span sp resumes (within a few bytes), is sp's input bytes written another way: unescaped
// as JSON they are those bytes (escape), or it is one byte (utf8_decode).
func writes(sp oracle.Span, d int, want, got, in []byte, escape bool) bool {
	const ahead = 8
	tail := want[sp.OutEnd:min(len(want), sp.OutEnd+ahead)]
	rest := got[min(d, len(got)):]
	is := func(z []byte) bool {
		if !escape {
			return len(z) == 1
		}
		return len(z) > 0 && bytes.Equal(jsonstr.Unescape(z), in[sp.In:sp.InEnd])
	}
	switch {
	case len(tail) == 0:
		return is(rest)
	case len(rest) == 0:
		return false // the candidate wrote nothing more: the step before took the rest
	}
	// Where the oracle's output resumes: any place the tail occurs within reach (a closing
	// quote can occur escaped before the real one).
	window := rest[:min(len(rest), 2*ahead+len(tail))]
	found := false
	for at := 0; at <= len(window)-len(tail); at++ {
		if bytes.HasPrefix(window[at:], tail) {
			if is(rest[:at]) {
				return true
			}
			found = true
		}
	}
	if !found && escape && sp.OutEnd == len(want)-1 && tail[0] == '"' {
		// Only the closing quote was left, and the candidate did not write it (it dropped the
		// quote as well): what it wrote to its end is what it made of sp's bytes.
		return is(rest)
	}
	return !found // no resumption in sight: nothing says the step before took its bytes
}

// opaque reports whether a step's output hides how many bytes it consumed.
func opaque(r oracle.Rule) bool {
	switch r {
	case oracle.RuleSubstitute, oracle.RuleSubstituteRaw, oracle.RuleIgnore, oracle.RuleQuestion, oracle.RuleWide:
		return true
	}
	return false
}

// AddedOptions are the string option bits b not among an escape finding's options for which
// the oracle, asked under the options with b, gives exactly the candidate's answer: the
// candidate answers as if b were set (a slash written raw: as if JSON_UNESCAPED_SLASHES; a '
// escaped under JSON_HEX_QUOT: as if JSON_HEX_APOS, a test of the wrong bit). 0 when none does,
// when the answer is PHP's own, and for other findings.
func AddedOptions(f *Finding) jsonopt.Options {
	if f == nil || f.Op != OpEscape || f.Kind != KindOutput {
		return 0
	}
	base, err := oracle.Escape(nil, f.Input, f.Flags)
	if err == nil && bytes.Equal(base, f.Got) {
		return 0
	}
	var out jsonopt.Options
	var buf []byte
	for rest := jsonopt.StringOptions &^ (f.Flags | jsonopt.NumericCheck); rest != 0; rest &= rest - 1 {
		b := rest & -rest
		want, err := oracle.Escape(buf[:0], f.Input, f.Flags|b)
		buf = want
		if err == nil && bytes.Equal(want, f.Got) {
			out |= b
		}
	}
	return out
}

// IgnoredOptions are the option bits b of an escape finding's options for which the oracle,
// asked under the options without b, gives exactly the candidate's answer: the candidate
// answers as if b were not set. When no single bit explains the answer but the oracle's answer
// without any string option does, every string option set is returned (a candidate that
// ignores options altogether). 0 for other findings.
func IgnoredOptions(f *Finding) jsonopt.Options {
	if f.Op != OpEscape || (f.Kind != KindOutput && f.Kind != KindError) {
		return 0
	}
	var out jsonopt.Options
	var buf []byte
	// PRESERVE_ZERO_FRACTION too: it changes a double under NUMERIC_CHECK ("1.0" as 1).
	for rest := f.Flags & jsonopt.StringPath; rest != 0; rest &= rest - 1 {
		b := rest & -rest
		want, err := oracle.Escape(buf[:0], f.Input, f.Flags&^b)
		buf = want
		if jsonopt.ErrorCode(err) == f.GotErr && bytes.Equal(want, f.Got) {
			out |= b
		}
	}
	if all := f.Flags & jsonopt.StringOptions; out == 0 && all&(all-1) != 0 {
		want, err := oracle.Escape(buf[:0], f.Input, f.Flags&^all)
		if jsonopt.ErrorCode(err) == f.GotErr && bytes.Equal(want, f.Got) {
			out = all
		}
	}
	return out
}

// OptionMap is a misreading of two option bits by an escaper: the options it honours are
// Apply of those it is given. With Swap it honours A where B is given and B where A is given
// (the two bits' masks swapped); without, it honours B exactly when A is given (the test of B
// reads A's bit), and A as given.
type OptionMap struct {
	A, B jsonopt.Options // single string-option bits, A != B
	Swap bool
}

// Apply is the option set the candidate honours when it is given o.
func (m OptionMap) Apply(o jsonopt.Options) jsonopt.Options {
	a, b := o&m.A != 0, o&m.B != 0
	out := o &^ m.B
	if a {
		out |= m.B
	}
	if m.Swap {
		out &^= m.A
		if b {
			out |= m.A
		}
	}
	return out
}

// Explains reports whether an escape finding's answer is the oracle's under the options m
// makes of the finding's: PHP's answer to what the candidate read. A finding m leaves the
// options of is not explained (its answer differs from PHP's under them).
func (m OptionMap) Explains(f *Finding) bool { return m.ExplainsBy(f, AnsweredUnder) }

// ExplainsBy is Explains with answered telling whether the finding's answer is PHP's under
// options (AnsweredUnder, or a reading that allows what other faults of the candidate do).
func (m OptionMap) ExplainsBy(f *Finding, answered func(*Finding, jsonopt.Options) bool) bool {
	if f == nil || f.Op != OpEscape || (f.Kind != KindOutput && f.Kind != KindError) {
		return false
	}
	g := m.Apply(f.Flags)
	return g != f.Flags && answered(f, g)
}

// AnsweredUnder reports whether an escape finding's answer (output and error) is PHP's under
// the options o.
func AnsweredUnder(f *Finding, o jsonopt.Options) bool {
	want, err := oracle.Escape(nil, f.Input, o)
	return jsonopt.ErrorCode(err) == f.GotErr && bytes.Equal(want, f.Got)
}

// Needs are, for a finding m explains, the bits m sets whose set the answer needs (PHP's
// answer without the bit is not the candidate's) and those m clears whose clear it needs
// (PHP's answer with the bit is not): a bit m changes that the input does not care about is
// no evidence of m.
func (m OptionMap) Needs(f *Finding) (set, clear jsonopt.Options) { return m.NeedsBy(f, AnsweredUnder) }

// NeedsBy is Needs with answered as in ExplainsBy.
func (m OptionMap) NeedsBy(f *Finding, answered func(*Finding, jsonopt.Options) bool) (set, clear jsonopt.Options) {
	g := m.Apply(f.Flags)
	for _, b := range []jsonopt.Options{m.A, m.B} {
		switch {
		case g&b != 0 && f.Flags&b == 0 && !answered(f, g&^b):
			set |= b
		case g&b == 0 && f.Flags&b != 0 && !answered(f, g|b):
			clear |= b
		}
	}
	return set, clear
}

// Shown reports whether needed sets and clears (Needs, over a candidate's findings) show
// every part of m that is not an option ignored or answered as if set: a one-way map sets B
// where A is given and clears B where B is given alone; a swap sets each bit where the other
// is given. (A swap of HEX_QUOT and UNESCAPED_UNICODE by a candidate that reads HEX_QUOT's
// bit from HEX_APOS's and ignores UNESCAPED_UNICODE is never shown setting
// UNESCAPED_UNICODE.)
func (m OptionMap) Shown(set, clear jsonopt.Options) bool {
	if m.Swap {
		return set&m.A != 0 && set&m.B != 0
	}
	return set&m.B != 0 && clear&m.B != 0
}

// String says what the candidate does, in PHP's option names.
func (m OptionMap) String() string {
	if m.Swap {
		return fmt.Sprintf("answers %v as %v and %v as %v: the two options swapped", m.A, m.B, m.B, m.A)
	}
	return fmt.Sprintf("honours %v when %v is given, whatever %v says: its test of %v reads %v's bit", m.B, m.A, m.B, m.B, m.A)
}

// OptionMaps are the maps of every ordered pair of distinct bits of bits among the string
// options but JSON_NUMERIC_CHECK (which changes what is escaped, not how): each pair's
// one-way map, and its swap once.
func OptionMaps(bits jsonopt.Options) []OptionMap {
	bits &= jsonopt.StringOptions &^ jsonopt.NumericCheck
	var out []OptionMap
	for ra := bits; ra != 0; ra &= ra - 1 {
		a := ra & -ra
		for rb := bits &^ a; rb != 0; rb &= rb - 1 {
			b := rb & -rb
			out = append(out, OptionMap{A: a, B: b})
			if a < b {
				out = append(out, OptionMap{A: a, B: b, Swap: true})
			}
		}
	}
	return out
}
