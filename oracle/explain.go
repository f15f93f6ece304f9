package oracle

import (
	"fmt"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// Rule names the rule of the spec that produced one part of an answer: a row of §1.3 for an
// ASCII byte, §1.4 or §1.5 for a decoder step of escape, §3.1 for a step of utf8_decode, and the
// fixed parts of §1.2 (the quotes, the empty string). EscapeExplain and UTF8DecodeExplain
// attribute every output span to one Rule; a finding names the Rule at its first difference.
type Rule uint8

// The rules, in spec order. The comment of each is the text Rule.Spec returns.
const (
	RuleNone           Rule = iota // no rule (not part of an answer)
	RuleEmpty                      // §1.2 step 1, §1.6: the empty string is "" (2 bytes)
	RuleOpenQuote                  // §1.2 step 3: the opening quote
	RuleCloseQuote                 // §1.2 step 8: the closing quote
	RuleClean                      // §1.2 step 5, §1.3 rows 0x20..0x7E and 0x7F: a clean byte, copied raw
	RuleShortEscape                // §1.3 rows 0x08 0x09 0x0A 0x0C 0x0D: \b \t \n \f \r
	RuleControl                    // §1.3 row other 0x00..0x1F: \u00XX, lower-case hex
	RuleQuote                      // §1.3 row 0x22: " as \"
	RuleQuoteHex                   // §1.3 row 0x22 with HEX_QUOT: " as \u0022
	RuleBackslash                  // §1.3 row 0x5C: \ as \\ under every option
	RuleSlash                      // §1.3 row 0x2F: / as \/
	RuleSlashRaw                   // §1.3 row 0x2F with UNESCAPED_SLASHES: / raw
	RuleTagHex                     // §1.3 rows 0x3C 0x3E with HEX_TAG: \u003C \u003E, upper-case
	RuleAmpHex                     // §1.3 row 0x26 with HEX_AMP: \u0026
	RuleAposHex                    // §1.3 row 0x27 with HEX_APOS: \u0027
	RuleHexOff                     // §1.3 rows 0x3C 0x3E 0x26 0x27 without their HEX_ option: raw
	RuleUnicode                    // §1.4: a valid sequence U+0080..U+FFFF as \uXXXX, lower-case hex
	RuleSurrogates                 // §1.4 astral: a code point >= U+10000 as a surrogate pair \uXXXX\uXXXX
	RuleLineTerminator             // §1.4: U+2028/U+2029 stay \u2028/\u2029 under UNESCAPED_UNICODE without UNESCAPED_LINE_TERMINATORS
	RuleUnicodeRaw                 // §1.4 UNESCAPED_UNICODE: a valid sequence copied raw
	RuleIgnore                     // §1.5 INVALID_UTF8_IGNORE: an invalid sequence dropped
	RuleSubstitute                 // §1.5 INVALID_UTF8_SUBSTITUTE: an invalid sequence as \ufffd
	RuleSubstituteRaw              // §1.5 INVALID_UTF8_SUBSTITUTE|UNESCAPED_UNICODE: an invalid sequence as raw EF BF BD
	RuleFalse                      // §1.5 row none: invalid UTF-8, json_encode returns false, JSON_ERROR_UTF8
	RulePartialNull                // §1.5 row PARTIAL_OUTPUT_ON_ERROR: invalid UTF-8, the whole string is null, JSON_ERROR_UTF8
	RuleLatin1                     // §3.1: a code point <= U+00FF as that byte
	RuleWide                       // §3.1: a code point > U+00FF as one '?'
	RuleQuestion                   // §3.1: a failed step as one '?'
	RuleNumber                     // §1.2 step 2, §1.7: under NUMERIC_CHECK a numeric string as the number
	numRules
)

var ruleText = [numRules]struct{ id, spec string }{
	RuleNone:           {"none", "no rule"},
	RuleEmpty:          {"1.2-empty", `§1.2 step 1, §1.6: the empty string is ""`},
	RuleOpenQuote:      {"1.2-open-quote", "§1.2 step 3: the opening quote"},
	RuleCloseQuote:     {"1.2-close-quote", "§1.2 step 8: the closing quote"},
	RuleClean:          {"1.3-clean", "§1.3 rows 0x20..0x7E, 0x7F: a clean byte, copied raw"},
	RuleShortEscape:    {"1.3-short-escape", `§1.3 rows 0x08 0x09 0x0A 0x0C 0x0D: \b \t \n \f \r`},
	RuleControl:        {"1.3-control", `§1.3 row other 0x00..0x1F: \u00XX, lower-case hex`},
	RuleQuote:          {"1.3-quote", `§1.3 row 0x22: " as \"`},
	RuleQuoteHex:       {"1.3-quote-hex", `§1.3 row 0x22 with HEX_QUOT: " as \u0022`},
	RuleBackslash:      {"1.3-backslash", `§1.3 row 0x5C: \ as \\ under every option`},
	RuleSlash:          {"1.3-slash", `§1.3 row 0x2F: / as \/ (no UNESCAPED_SLASHES)`},
	RuleSlashRaw:       {"1.3-slash-raw", "§1.3 row 0x2F with UNESCAPED_SLASHES: / raw"},
	RuleTagHex:         {"1.3-tag-hex", `§1.3 rows 0x3C 0x3E with HEX_TAG: \u003C \u003E, upper-case`},
	RuleAmpHex:         {"1.3-amp-hex", `§1.3 row 0x26 with HEX_AMP: & as \u0026`},
	RuleAposHex:        {"1.3-apos-hex", `§1.3 row 0x27 with HEX_APOS: ' as \u0027`},
	RuleHexOff:         {"1.3-hex-off", "§1.3 rows 0x3C 0x3E 0x26 0x27 without their HEX_ option: raw"},
	RuleUnicode:        {"1.4-unicode", `§1.4: U+0080..U+FFFF as \uXXXX, lower-case hex`},
	RuleSurrogates:     {"1.4-surrogate-pair", `§1.4 astral: >= U+10000 as a surrogate pair \uXXXX\uXXXX`},
	RuleLineTerminator: {"1.4-line-terminator", `§1.4: U+2028/U+2029 stay escaped under UNESCAPED_UNICODE without UNESCAPED_LINE_TERMINATORS`},
	RuleUnicodeRaw:     {"1.4-unescaped-unicode", "§1.4 UNESCAPED_UNICODE: the sequence copied raw"},
	RuleIgnore:         {"1.5-ignore", "§1.5 INVALID_UTF8_IGNORE: the invalid sequence dropped"},
	RuleSubstitute:     {"1.5-substitute", `§1.5 INVALID_UTF8_SUBSTITUTE: the invalid sequence as \ufffd`},
	RuleSubstituteRaw:  {"1.5-substitute-raw", "§1.5 INVALID_UTF8_SUBSTITUTE with UNESCAPED_UNICODE: the invalid sequence as raw EF BF BD"},
	RuleFalse:          {"1.5-false", "§1.5 row none: invalid UTF-8, json_encode returns false with JSON_ERROR_UTF8"},
	RulePartialNull:    {"1.5-partial-null", "§1.5 row PARTIAL_OUTPUT_ON_ERROR: invalid UTF-8, the whole string is null with JSON_ERROR_UTF8"},
	RuleLatin1:         {"3.1-latin1", "§3.1: a code point <= U+00FF as that byte"},
	RuleWide:           {"3.1-wide", "§3.1: a code point > U+00FF as one ?"},
	RuleQuestion:       {"3.1-failure", "§3.1: a failed step as one ?"},
	RuleNumber:         {"1.7-number", "§1.2 step 2, §1.7: under NUMERIC_CHECK a numeric string is written as the number"},
}

// String is the rule's stable identifier, such as "1.3-slash" or "1.5-substitute" (section and
// name; findings are grouped by it).
func (r Rule) String() string {
	if r >= numRules {
		return fmt.Sprintf("Rule(%d)", uint8(r))
	}
	return ruleText[r].id
}

// Spec is the rule as the spec states it, with its section and row, such as
// `§1.3 row 0x2F: / as \/ (no UNESCAPED_SLASHES)`.
func (r Rule) Spec() string {
	if r >= numRules {
		return r.String()
	}
	return ruleText[r].spec
}

// Exit names the exit of the §2.2 decision tree that decided one php_next_utf8_char() step: the
// OK row of a lead range or one of the 15 failure exits F1..F15 (numbered as in NextChar; F3 and
// F10 are split by what the spec row distinguishes in one line).
type Exit uint8

// The exits, in the order of the §2.2 table.
const (
	ExitNone        Exit = iota // not a decoder step
	ExitEnd                     // §2.1 preliminary: avail < 1 -> FAIL, advance 1
	ExitASCII                   // row 00..7F: OK, advance 1
	ExitF1                      // row 80..C1: FAIL, advance 1
	ExitF2                      // row C2..DF: avail < 2 -> FAIL, advance 1
	ExitF3Lead                  // row C2..DF: s1 not a trail and a lead -> FAIL, advance 1
	ExitF3                      // row C2..DF: s1 neither trail nor lead -> FAIL, advance 2
	ExitF4                      // row C2..DF: cp < 0x80 (unreachable) -> FAIL, advance 2
	ExitOK2                     // row C2..DF: OK, advance 2
	ExitF5                      // row E0..EF: complete, cp < 0x800 (overlong) -> FAIL, advance 3
	ExitF6                      // row E0..EF: complete, cp D800..DFFF (surrogate) -> FAIL, advance 3
	ExitOK3                     // row E0..EF: OK, advance 3
	ExitF7                      // row E0..EF: avail < 2 or s1 a lead -> FAIL, advance 1
	ExitF8                      // row E0..EF: avail < 3 or s2 a lead -> FAIL, advance 2
	ExitF9                      // row E0..EF: a bad trail, no lead in s1..s2 -> FAIL, advance 3
	ExitF10Overlong             // row F0..F4: complete, cp < 0x10000 (overlong) -> FAIL, advance 4
	ExitF10Range                // row F0..F4: complete, cp > 0x10FFFF -> FAIL, advance 4
	ExitOK4                     // row F0..F4: OK, advance 4
	ExitF11                     // row F0..F4: avail < 2 or s1 a lead -> FAIL, advance 1
	ExitF12                     // row F0..F4: avail < 3 or s2 a lead -> FAIL, advance 2
	ExitF13                     // row F0..F4: avail < 4 or s3 a lead -> FAIL, advance 3
	ExitF14                     // row F0..F4: a bad trail, no lead in s1..s3 -> FAIL, advance 4
	ExitF15                     // row F5..FF: FAIL, advance 1
	numExits
)

var exitText = [numExits]struct{ id, spec string }{
	ExitNone:        {"none", "no decoder step"},
	ExitEnd:         {"end", "§2.1 preliminary: avail < 1 -> FAIL, advance 1"},
	ExitASCII:       {"ok1", "§2.2 row 00..7F: OK, advance 1"},
	ExitF1:          {"F1", "§2.2 row 80..C1 (stray trail, C0/C1): FAIL, advance 1"},
	ExitF2:          {"F2", "§2.2 row C2..DF, avail < 2 (truncated): FAIL, advance 1"},
	ExitF3Lead:      {"F3-lead", "§2.2 row C2..DF, s1 not a trail but a lead: FAIL, advance 1"},
	ExitF3:          {"F3", "§2.2 row C2..DF, s1 neither trail nor lead: FAIL, advance 2"},
	ExitF4:          {"F4", "§2.2 row C2..DF, cp < 0x80 (unreachable): FAIL, advance 2"},
	ExitOK2:         {"ok2", "§2.2 row C2..DF, s1 a trail: OK, advance 2"},
	ExitF5:          {"F5", "§2.2 row E0..EF, complete, cp < 0x800 (overlong E0 80..9F): FAIL, advance 3"},
	ExitF6:          {"F6", "§2.2 row E0..EF, complete, cp D800..DFFF (surrogate ED A0..BF): FAIL, advance 3"},
	ExitOK3:         {"ok3", "§2.2 row E0..EF, complete, U+0800..U+FFFF but no surrogate: OK, advance 3"},
	ExitF7:          {"F7", "§2.2 row E0..EF, avail < 2 or s1 a lead: FAIL, advance 1"},
	ExitF8:          {"F8", "§2.2 row E0..EF, avail < 3 or s2 a lead: FAIL, advance 2"},
	ExitF9:          {"F9", "§2.2 row E0..EF, a bad trail but no lead in s1..s2: FAIL, advance 3"},
	ExitF10Overlong: {"F10-overlong", "§2.2 row F0..F4, complete, cp < 0x10000 (overlong F0 80..8F): FAIL, advance 4"},
	ExitF10Range:    {"F10-range", "§2.2 row F0..F4, complete, cp > 0x10FFFF (F4 90..BF): FAIL, advance 4"},
	ExitOK4:         {"ok4", "§2.2 row F0..F4, complete, U+10000..U+10FFFF: OK, advance 4"},
	ExitF11:         {"F11", "§2.2 row F0..F4, avail < 2 or s1 a lead: FAIL, advance 1"},
	ExitF12:         {"F12", "§2.2 row F0..F4, avail < 3 or s2 a lead: FAIL, advance 2"},
	ExitF13:         {"F13", "§2.2 row F0..F4, avail < 4 or s3 a lead: FAIL, advance 3"},
	ExitF14:         {"F14", "§2.2 row F0..F4, a bad trail but no lead in s1..s3: FAIL, advance 4"},
	ExitF15:         {"F15", "§2.2 row F5..FF: FAIL, advance 1"},
}

// String is the exit's stable identifier: "ok1".."ok4" for the OK rows, "F1".."F15" for the
// failure exits ("F3-lead" and "F3", "F10-overlong" and "F10-range" where one exit has two
// cases), "end" for the §2.1 preliminary.
func (e Exit) String() string {
	if e >= numExits {
		return fmt.Sprintf("Exit(%d)", uint8(e))
	}
	return exitText[e].id
}

// Spec is the exit as the §2.2 table states it, with its row, condition, result and advance.
func (e Exit) Spec() string {
	if e >= numExits {
		return e.String()
	}
	return exitText[e].spec
}

// Span is one part of an answer and the rule that produced it: the input bytes [In, InEnd)
// produced the output bytes [Out, OutEnd) by Rule; for a decoder step (an escape of a byte >=
// 0x80, every step of utf8_decode) Exit is the §2.2 exit that decided the step. Output offsets
// count from the start of what the call appended to dst. Spans come in input and output
// order; an invalid sequence dropped under INVALID_UTF8_IGNORE has an empty output range, the
// quotes an empty input range.
type Span struct {
	In, InEnd   int
	Out, OutEnd int
	Rule        Rule
	Exit        Exit
}

// EscapeExplain is Escape that also says which rule produced each part of its answer: the
// same bytes and error as Escape(dst, src, opts), and the spans of the answer (see Span). When
// the answer is json_encode's false or null (spec §1.5 rows none and PARTIAL_OUTPUT_ON_ERROR),
// the spans are one span with Rule RuleFalse or RulePartialNull whose input range is the first
// failing decoder step and whose Exit is that step's exit. A numeric string under
// JSON_NUMERIC_CHECK is one span with Rule RuleNumber covering the whole input and the number.
// It allocates the spans.
func EscapeExplain(dst, src []byte, opts jsonopt.Options) (out []byte, spans []Span, err error) {
	return EscapeExplainTo(dst, make([]Span, 0, len(src)+2), src, opts)
}

// EscapeExplainTo is EscapeExplain with the spans appended to spans[:0]: a caller that
// explains many answers reuses one buffer.
func EscapeExplainTo(dst []byte, spans []Span, src []byte, opts jsonopt.Options) (out []byte, _ []Span, err error) {
	o := optionSet{opts: opts, explain: true, spans: spans[:0]}
	out, err = escape(dst, src, &o)
	return out, o.spans, err
}

// note records a span of the answer being explained: input [in, inEnd) produced output [out,
// len(dst)) (absolute offsets in dst) by rule r, decided by exit e.
func (o *optionSet) note(in, inEnd, out int, dst []byte, r Rule, e Exit) {
	o.spans = append(o.spans, Span{In: in, InEnd: inEnd, Out: out - o.base, OutEnd: len(dst) - o.base, Rule: r, Exit: e})
}

// NextCharExplain is NextChar that also names the §2.2 exit that decided the step. The step is
// NextChar's own; the exit is read off the step and the bytes it looked at, by the conditions of
// the §2.2 row that returned it.
func NextCharExplain(s []byte, pos int) (jsonopt.Step, Exit) {
	st := NextChar(s, pos)
	avail := len(s) - pos
	if avail < 1 {
		return st, ExitEnd // §2.1 preliminary
	}
	c := s[pos]
	// complete reports whether the n-byte sequence at pos is all there with trails after its
	// lead (the first condition of the rows C2..DF, E0..EF and F0..F4), and its code point.
	complete := func(n int) (uint32, bool) {
		if avail < n {
			return 0, false
		}
		cp := uint32(c) & (0x7F >> n)
		for k := 1; k < n; k++ {
			if !utf8Trail(s[pos+k]) {
				return 0, false
			}
			cp = cp<<6 | uint32(s[pos+k]&0x3F)
		}
		return cp, true
	}
	switch {
	case c < 0x80:
		return st, ExitASCII // row 00..7F
	case c < 0xC2:
		return st, ExitF1 // row 80..C1
	case c < 0xE0: // row C2..DF
		switch {
		case st.OK:
			return st, ExitOK2
		case avail < 2:
			return st, ExitF2
		case st.Advance == 1:
			return st, ExitF3Lead
		}
		if _, ok := complete(2); ok {
			return st, ExitF4 // unreachable: a complete C2..DF sequence is OK
		}
		return st, ExitF3
	case c < 0xF0: // row E0..EF
		if st.OK {
			return st, ExitOK3
		}
		if cp, ok := complete(3); ok {
			if cp < 0x800 {
				return st, ExitF5
			}
			return st, ExitF6
		}
		return st, [...]Exit{ExitF7, ExitF8, ExitF9}[st.Advance-1]
	case c < 0xF5: // row F0..F4
		if st.OK {
			return st, ExitOK4
		}
		if cp, ok := complete(4); ok {
			if cp < 0x10000 {
				return st, ExitF10Overlong
			}
			return st, ExitF10Range
		}
		return st, [...]Exit{ExitF11, ExitF12, ExitF13, ExitF14}[st.Advance-1]
	}
	return st, ExitF15 // row F5..FF
}

// UTF8DecodeExplain is UTF8Decode that also says which rule produced each output byte: one span
// per decoder step (spec §3.1), with RuleLatin1, RuleWide or RuleQuestion and the step's exit.
func UTF8DecodeExplain(dst, src []byte) (out []byte, spans []Span) {
	return UTF8DecodeExplainTo(dst, make([]Span, 0, len(src)), src)
}

// UTF8DecodeExplainTo is UTF8DecodeExplain with the spans appended to spans[:0] (a buffer a
// caller reuses).
func UTF8DecodeExplainTo(dst []byte, spans []Span, src []byte) (out []byte, _ []Span) {
	base := len(dst)
	spans = spans[:0]
	for pos := 0; pos < len(src); {
		st, e := NextCharExplain(src, pos)
		at := len(dst)
		var r Rule
		switch {
		case st.OK && st.CP <= 0xFF:
			dst, r = append(dst, byte(st.CP)), RuleLatin1 // §3.1: cp <= 0xFF -> the byte cp
		case st.OK:
			dst, r = append(dst, '?'), RuleWide // §3.1: cp > 0xFF -> '?'
		default:
			dst, r = append(dst, '?'), RuleQuestion // §3.1: FAILURE -> '?'
		}
		spans = append(spans, Span{In: pos, InEnd: pos + st.Advance, Out: at - base, OutEnd: len(dst) - base, Rule: r, Exit: e})
		pos += st.Advance
	}
	return dst, spans
}

// Row is the row of the §2.2 table the exit belongs to, named by its first-byte range:
// "00..7F", "80..C1", "C2..DF", "E0..EF", "F0..F4" or "F5..FF" ("" for ExitNone, "end" for
// the §2.1 preliminary).
func (e Exit) Row() string {
	switch e {
	case ExitNone:
		return ""
	case ExitEnd:
		return "end"
	case ExitASCII:
		return "00..7F"
	case ExitF1:
		return "80..C1"
	case ExitF2, ExitF3Lead, ExitF3, ExitF4, ExitOK2:
		return "C2..DF"
	case ExitF5, ExitF6, ExitOK3, ExitF7, ExitF8, ExitF9:
		return "E0..EF"
	case ExitF15:
		return "F5..FF"
	}
	return "F0..F4"
}

// Family groups the exits by what the decoder decided, across rows: "valid" (an OK row),
// "never-a-lead" (F1, F15: a byte that cannot start a character), "bad-sequence" (a lead
// without all of its continuation bytes: truncated, or a bad continuation byte; F2–F4, F7–F9,
// F11–F14), "overlong" (F5, F10 below U+10000), "surrogate" (F6), "above-max" (F10 above
// U+10FFFF); "" for ExitNone, "end" for the §2.1 preliminary.
func (e Exit) Family() string {
	switch e {
	case ExitNone:
		return ""
	case ExitEnd:
		return "end"
	case ExitASCII, ExitOK2, ExitOK3, ExitOK4:
		return "valid"
	case ExitF1, ExitF15:
		return "never-a-lead"
	case ExitF5, ExitF10Overlong:
		return "overlong"
	case ExitF6:
		return "surrogate"
	case ExitF10Range:
		return "above-max"
	}
	return "bad-sequence"
}
