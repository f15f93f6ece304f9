package fast_test

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// This file is the tests' own model of the spec, written from its rules and sharing no code
// with package fast: modelStep follows the "equivalent compact rule" of spec §2.2 (a different
// formulation from fast's decision tree), asciiOut the table of spec §1.3, modelEscape the
// algorithm of spec §1.2, modelNumber the NUMERIC_CHECK rules of spec §1.7 (a regular
// expression and strconv, where fast scans bytes and reformats strconv's 'e' output).

// modelStep is one decoder step at s[pos] by the compact rule of spec §2.2.
func modelStep(s []byte, pos int) jsonopt.Step {
	avail := len(s) - pos
	if avail < 1 {
		return jsonopt.Step{Advance: 1}
	}
	c := s[pos]
	var n int
	switch {
	case c <= 0x7F:
		return jsonopt.Step{CP: uint32(c), Advance: 1, OK: true}
	case c >= 0xC2 && c <= 0xDF:
		n = 2
	case c >= 0xE0 && c <= 0xEF:
		n = 3
	case c >= 0xF0 && c <= 0xF4:
		n = 4
	default: // 80..C1, F5..FF
		return jsonopt.Step{Advance: 1}
	}
	trail := func(b byte) bool { return b >= 0x80 && b <= 0xBF }
	lead := func(b byte) bool { return b <= 0x7F || (b >= 0xC2 && b <= 0xF4) }
	complete := avail >= n
	for k := 1; k < n && complete; k++ {
		complete = trail(s[pos+k])
	}
	if complete {
		cp := uint32(c) & (0x7F >> n)
		for k := 1; k < n; k++ {
			cp = cp<<6 | uint32(s[pos+k]&0x3F)
		}
		min := [...]uint32{2: 0x80, 3: 0x800, 4: 0x10000}[n]
		if cp < min || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF {
			return jsonopt.Step{Advance: n}
		}
		return jsonopt.Step{CP: cp, Advance: n, OK: true}
	}
	// The smallest i in 1..n-1 with i >= avail or s[pos+i] a lead; n if none.
	for i := 1; i < n; i++ {
		if i >= avail || lead(s[pos+i]) {
			return jsonopt.Step{Advance: i}
		}
	}
	return jsonopt.Step{Advance: n}
}

// asciiOut is the escape of the ASCII byte b under opts, by the table of spec §1.3.
func asciiOut(b byte, opts jsonopt.Options) string {
	switch b {
	case '\b':
		return `\b`
	case '\t':
		return `\t`
	case '\n':
		return `\n`
	case '\f':
		return `\f`
	case '\r':
		return `\r`
	case '"':
		if opts&jsonopt.HexQuot != 0 {
			return `\u0022`
		}
		return `\"`
	case '\\':
		return `\\`
	case '/':
		if opts&jsonopt.UnescapedSlashes != 0 {
			return "/"
		}
		return `\/`
	case '<':
		if opts&jsonopt.HexTag != 0 {
			return `\u003C`
		}
	case '>':
		if opts&jsonopt.HexTag != 0 {
			return `\u003E`
		}
	case '&':
		if opts&jsonopt.HexAmp != 0 {
			return `\u0026`
		}
	case '\'':
		if opts&jsonopt.HexApos != 0 {
			return `\u0027`
		}
	}
	if b < 0x20 {
		return fmt.Sprintf(`\u%04x`, b)
	}
	return string(rune(b))
}

// cpOut is the output for the valid code point cp encoded as raw under opts (spec §1.4).
func cpOut(cp uint32, raw []byte, opts jsonopt.Options) string {
	if opts&jsonopt.UnescapedUnicode != 0 &&
		(opts&jsonopt.UnescapedLineTerminators != 0 || (cp != 0x2028 && cp != 0x2029)) {
		return string(raw)
	}
	if cp >= 0x10000 {
		v := cp - 0x10000
		return fmt.Sprintf(`\u%04x\u%04x`, 0xD800+v>>10, 0xDC00+v&0x3FF)
	}
	return fmt.Sprintf(`\u%04x`, cp)
}

// badOut is the output for one failing decoder step under opts (spec §1.2 step 7, §1.5);
// ok is false when the whole escape fails.
func badOut(opts jsonopt.Options) (string, bool) {
	switch {
	case opts&jsonopt.InvalidUTF8Ignore != 0:
		return "", true
	case opts&jsonopt.InvalidUTF8Substitute != 0 && opts&jsonopt.UnescapedUnicode != 0:
		return "\xef\xbf\xbd", true
	case opts&jsonopt.InvalidUTF8Substitute != 0:
		return `\ufffd`, true
	}
	return "", false
}

// modelEscape is json_encode(src, opts) by spec §1.2: the result (nil for false) and the
// error code.
func modelEscape(src []byte, opts jsonopt.Options) ([]byte, int) {
	if opts&jsonopt.NumericCheck != 0 {
		if num, ok := modelNumber(src, opts); ok {
			return num, 0 // §1.2 step 2 (the empty string is never numeric: step 1 comes first)
		}
	}
	out := []byte{'"'}
	for pos := 0; pos < len(src); {
		if src[pos] < 0x80 {
			out = append(out, asciiOut(src[pos], opts)...)
			pos++
			continue
		}
		st := modelStep(src, pos)
		if st.OK {
			out = append(out, cpOut(st.CP, src[pos:pos+st.Advance], opts)...)
		} else {
			s, ok := badOut(opts)
			if !ok {
				if opts&jsonopt.PartialOutputOnError != 0 {
					return []byte("null"), jsonopt.ErrorUTF8
				}
				return nil, jsonopt.ErrorUTF8
			}
			out = append(out, s...)
		}
		pos += st.Advance
	}
	return append(out, '"'), 0
}

// numericRe is PHP 8.2's is_numeric_string with allow_errors=0 (spec §1.7) as a regular
// expression: the six whitespace bytes before and after, an optional sign, digits with an
// optional '.' and fraction or a '.' and at least one digit, and an optional exponent with at
// least one digit. Submatch 1 is the number with its sign, 2 its integer digits, 3 the '.' and
// fraction, 4 the exponent, 5 the trailing whitespace.
var numericRe = regexp.MustCompile(`^[ \t\n\r\v\f]*([+-]?([0-9]*)(\.[0-9]*)?([eE][+-]?[0-9]+)?)([ \t\n\r\v\f]*)$`)

// modelNumber is what json_encode writes for src under NUMERIC_CHECK when src is a numeric
// string (spec §1.7), and ok; ok is false for any other string, and for one whose double is
// ±Inf, which json_encode escapes as a string.
func modelNumber(src []byte, opts jsonopt.Options) ([]byte, bool) {
	m := numericRe.FindSubmatch(src)
	if m == nil {
		return nil, false
	}
	num, intDigits, frac, exp, trail := string(m[1]), m[2], m[3], m[4], m[5]
	if len(intDigits) == 0 && len(frac) < 2 {
		return nil, false // no digit before the '.' nor after it: "", "-", ".", ".e5", "  "
	}
	if len(frac) == 0 && len(exp) == 0 {
		// An integer: a long when it fits int64 ("007" is 7, "-0" is 0), else a double. The
		// one exception: PHP compares 19 significant digits with "9223372036854775808" by
		// strcmp, which reads on into trailing whitespace, so -9223372036854775808 followed
		// by whitespace is a double although it fits.
		sig := strings.TrimLeft(string(intDigits), "0")
		if l, err := strconv.ParseInt(num, 10, 64); err == nil && !(sig == "9223372036854775808" && len(trail) > 0) {
			return strconv.AppendInt(nil, l, 10), true
		}
	}
	d, err := strconv.ParseFloat(num, 64)
	if math.IsInf(d, 0) {
		return nil, false // "1e999": a string
	}
	if err != nil {
		panic(fmt.Sprintf("model: ParseFloat(%q): %v", num, err))
	}
	// PHP's double format with serialize_precision -1: the shortest round-trip digits, in
	// fixed notation for 0 and 1e-4 <= |d| < 1e17, else as d.ddde±x with at least one digit
	// after the '.' and the exponent without leading zeros; ".0" appended under
	// PRESERVE_ZERO_FRACTION when there is no '.'.
	if a := math.Abs(d); a != 0 && (a < 1e-4 || a >= 1e17) {
		mant, x, _ := strings.Cut(strconv.FormatFloat(d, 'e', -1, 64), "e")
		if !strings.Contains(mant, ".") {
			mant += ".0"
		}
		e, _ := strconv.Atoi(x)
		return fmt.Appendf(nil, "%se%c%d", mant, x[0], max(e, -e)), true
	}
	s := strconv.FormatFloat(d, 'f', -1, 64)
	if opts&jsonopt.PreserveZeroFraction != 0 && !strings.Contains(s, ".") {
		s += ".0"
	}
	return []byte(s), true
}

// modelUTF8Decode is utf8_decode(src) by spec §3.1.
func modelUTF8Decode(src []byte) []byte {
	var out []byte
	for pos := 0; pos < len(src); {
		st := modelStep(src, pos)
		if st.OK && st.CP <= 0xFF {
			out = append(out, byte(st.CP))
		} else {
			out = append(out, '?')
		}
		pos += st.Advance
	}
	return out
}
