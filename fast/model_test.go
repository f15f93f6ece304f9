package fast_test

import (
	"fmt"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// This file is the tests' own model of the spec, written from its rules and sharing no code
// with package fast: modelStep follows the "equivalent compact rule" of spec §2.2 (a different
// formulation from fast's decision tree), asciiOut the table of spec §1.3, modelEscape the
// algorithm of spec §1.2.

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
		return nil, -1
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
