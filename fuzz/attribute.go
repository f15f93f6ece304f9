package fuzz

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/difffuzz/difffuzz/boundary"
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
	a := Attribution{In: -1, InEnd: -1, Out: -1}
	switch {
	case f.Kind == KindStep:
		st, e := oracle.NextCharExplain(f.Input, f.Pos)
		a.Exit, a.In, a.InEnd = e, f.Pos, min(f.Pos+st.Advance, len(f.Input))
		return a
	case (f.Kind == KindOutput || f.Kind == KindError) && f.Op == OpEscape:
		want, spans, werr := oracle.EscapeExplain(nil, f.Input, f.Flags)
		if len(spans) == 0 {
			return a // NUMERIC_CHECK: no answer
		}
		if werr != nil || f.Kind == KindOutput {
			sp := spans[0]
			if werr == nil {
				a.Out = diffPoint(want, f.Got)
				sp = spanAt(spans, a.Out, len(f.Got) < len(want))
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
		want, spans := oracle.UTF8DecodeExplain(nil, f.Input)
		d := diffPoint(want, f.Got)
		a.Out = d
		if len(spans) == 0 {
			return a
		}
		if d >= len(want) { // the candidate wrote more than the oracle: after the last step
			sp := spans[len(spans)-1]
			return a.of(sp)
		}
		return a.of(spanAt(spans, d, len(f.Got) < len(want)))
	}
	if f.Loc != nil && !f.Loc.Output {
		a.In, a.InEnd = f.Loc.Off, f.Loc.Off+1
	}
	return a
}

func (a Attribution) of(sp oracle.Span) Attribution {
	a.Rule, a.Exit, a.In, a.InEnd = sp.Rule, sp.Exit, sp.In, sp.InEnd
	return a
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

// spanAt is the span holding output offset d: the first whose output reaches past d, or an
// empty one (IGNORE) at d before it. When the candidate wrote less than the oracle (shorter)
// and d is where a span starts, right after a failed or '?' step whose output does not show how
// many bytes it consumed (\ufffd, nothing, '?'), that step is named instead: a candidate that
// swallowed the next bytes into it shows its difference only after it.
func spanAt(spans []oracle.Span, d int, shorter bool) oracle.Span {
	for i, sp := range spans {
		if sp.OutEnd > d || (sp.Out == d && sp.OutEnd == d && sp.InEnd > sp.In) {
			if shorter && sp.Out == d && i > 0 && spans[i-1].OutEnd == d && opaque(spans[i-1].Rule) {
				return spans[i-1]
			}
			return sp
		}
	}
	return spans[len(spans)-1]
}

// opaque reports whether a step's output hides how many bytes it consumed.
func opaque(r oracle.Rule) bool {
	switch r {
	case oracle.RuleSubstitute, oracle.RuleSubstituteRaw, oracle.RuleIgnore, oracle.RuleQuestion, oracle.RuleWide:
		return true
	}
	return false
}

// IgnoredOptions are the option bits b of an escape finding's options for which the oracle,
// asked under the options without b, gives exactly the candidate's answer: the candidate
// answers as if b were not set (0 for other findings, and when no single bit explains it).
func IgnoredOptions(f *Finding) jsonopt.Options {
	if f.Op != OpEscape || (f.Kind != KindOutput && f.Kind != KindError) {
		return 0
	}
	var out jsonopt.Options
	var buf []byte
	for rest := f.Flags & jsonopt.StringOptions; rest != 0; rest &= rest - 1 {
		b := rest & -rest
		want, err := oracle.Escape(buf[:0], f.Input, f.Flags&^b)
		buf = want
		if jsonopt.ErrorCode(err) == f.GotErr && bytes.Equal(want, f.Got) {
			out |= b
		}
	}
	return out
}
