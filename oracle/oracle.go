// Package oracle is the executable specification of the two PHP 8.2 functions difffuzz tests:
// the JSON string escaper php_json_escape_string() (ext/json/json_encoder.c) and the UTF-8
// decoder php_next_utf8_char() (ext/standard/html.c), plus utf8_decode() built on the latter.
// Every rule is written byte at a time as one commented branch of a switch, and every comment
// names the section or row of ../shared/spec/php-json-utf8.md ("the spec") it implements, so
// this file can be read side by side with the spec.
//
//   - Escape is json_encode($s, $flags) for one PHP string $s (spec §1).
//   - NextChar is one php_next_utf8_char() step: code point, cursor advance, success (spec §2.2).
//   - UTF8Decode is utf8_decode() (spec §3.1).
//
// The package deliberately shares nothing with the fast implementations but the vocabulary in
// jsonopt: it never imports fast, it does not use unicode/utf8 (whose failure widths differ from
// PHP's, spec §2.3), and it has no lookup tables. Its agreement with fast therefore means
// something. It allocates only when an append has to grow dst, and for a numeric string whose
// double overflows to ±Inf under NUMERIC_CHECK (strconv's range error).
package oracle

import "github.com/difffuzz/difffuzz/jsonopt"

// hexDigits are the lower-case digits PHP uses for every computed \uXXXX escape
// (json_encoder.c's digits[]; spec §1.3). The upper-case \u003C and \u003E of HEX_TAG are
// literals and never come from here.
const hexDigits = "0123456789abcdef"

// Escape appends to dst exactly the bytes PHP 8.2 json_encode($s, opts) returns for the PHP
// string $s whose bytes are src (spec §1.2), quotes included, and returns the extended slice.
// src is any byte string (binary safe: NUL is data); opts is a set of PHP JSON_* option bits
// (spec §1.1).
//
// Options: ten of the eleven bits of jsonopt.StringOptions act as in spec §1.3–§1.5. Under the
// eleventh, JSON_NUMERIC_CHECK, a non-empty numeric string (PHP 8.2's is_numeric_string) is
// written as the number json_encode writes for it, in PHP's format with serialize_precision =
// -1, where PRESERVE_ZERO_FRACTION adds ".0" to a double written without a '.' (spec §1.7); any
// other string, and one whose double is ±Inf, is escaped as a string. PRETTY_PRINT,
// FORCE_OBJECT, THROW_ON_ERROR, PRESERVE_ZERO_FRACTION elsewhere and bits PHP does not define
// are ignored, as PHP does for a string value (spec §1.8; THROW_ON_ERROR only changes how PHP
// reports the error, which here is ErrUTF8 either way).
//
// Errors: when src is not valid UTF-8 (some php_next_utf8_char() step fails, spec §2.2) and
// neither INVALID_UTF8_IGNORE nor INVALID_UTF8_SUBSTITUTE is set, Escape returns
// jsonopt.ErrUTF8 (JSON_ERROR_UTF8 = 5) and dst unchanged (json_encode returned false), or, with
// PARTIAL_OUTPUT_ON_ERROR, dst with the 4 bytes null appended (spec §1.5). With IGNORE (which
// beats SUBSTITUTE) or SUBSTITUTE the error is never returned. Errors are the jsonopt sentinel
// values, so they can be compared with ==.
//
// Escape never modifies src or dst[:len(dst)], and never writes into dst's spare capacity beyond
// the length it returns, not even on error.
func Escape(dst, src []byte, opts jsonopt.Options) ([]byte, error) {
	o := optionSet{opts: opts}
	return escape(dst, src, &o)
}

// EscapeTrace is Escape that also returns the option bits it tested while computing its
// answer. Escape reads opts only through optionSet.has, so every option set that agrees with
// opts on those bits takes the same branches and gets the same bytes and error: a harness may
// compute one answer per class of option sets (package fuzz's exhaustive escape space does).
func EscapeTrace(dst, src []byte, opts jsonopt.Options) (out []byte, tested jsonopt.Options, err error) {
	o := optionSet{opts: opts}
	out, err = escape(dst, src, &o)
	return out, o.tested, err
}

// optionSet is the option bits of one Escape call, read only through has, which records
// every bit it was asked about. With explain set (EscapeExplain), escape also records the spans
// of its answer, output offsets counted from base.
type optionSet struct {
	opts, tested jsonopt.Options

	explain bool
	base    int
	spans   []Span
}

// has reports whether the option bit is set, and records that it was asked.
func (o *optionSet) has(bit jsonopt.Options) bool {
	o.tested |= bit
	return o.opts&bit != 0
}

// escape is Escape; it reads the options only through o.has. Each branch names its rule (the
// Rule constants of explain.go), which EscapeExplain records.
func escape(dst, src []byte, o *optionSet) ([]byte, error) {
	o.base = len(dst)

	// §1.2 step 1, §1.6: the empty string is "" (2 bytes), before NUMERIC_CHECK is looked at.
	if len(src) == 0 {
		dst = append(dst, '"', '"')
		if o.explain {
			o.note(0, 0, o.base, dst, RuleEmpty, ExitNone)
		}
		return dst, nil
	}

	// §1.2 step 2, §1.7: under NUMERIC_CHECK a numeric string is the number, and nothing else
	// is written; one that is not numeric (or is ±Inf as a double) goes on as a string.
	if o.has(jsonopt.NumericCheck) {
		if out, done := escapeNumber(dst, src, o); done {
			if o.explain {
				o.note(0, len(src), o.base, out, RuleNumber, ExitNone)
			}
			return out, nil
		}
	}

	// §1.2 step 7 (failure, neither IGNORE nor SUBSTITUTE), §1.5: PHP writes the escaped prefix,
	// then on the first failing decoder step truncates its buffer back to the checkpoint taken
	// before the opening quote, records JSON_ERROR_UTF8 and appends "null" under
	// PARTIAL_OUTPUT_ON_ERROR. The result depends only on whether some step fails, so the oracle
	// asks that first: the bytes are the same and nothing is ever written past the returned
	// length into the caller's spare capacity.
	if bad := firstInvalid(src); bad >= 0 && !o.has(jsonopt.InvalidUTF8Ignore) && !o.has(jsonopt.InvalidUTF8Substitute) {
		r := RuleFalse
		if o.has(jsonopt.PartialOutputOnError) {
			dst, r = append(dst, "null"...), RulePartialNull // §1.5 row PARTIAL_OUTPUT_ON_ERROR
		} // else §1.5 row none: json_encode returned false
		if o.explain {
			st, e := NextCharExplain(src, bad)
			o.note(bad, bad+st.Advance, o.base, dst, r, e)
		}
		return dst, jsonopt.ErrUTF8
	}

	dst = append(dst, '"') // §1.2 step 3
	if o.explain {
		o.note(0, 0, o.base, dst, RuleOpenQuote, ExitNone)
	}
	for pos := 0; pos < len(src); {
		c, start, at := src[pos], pos, len(dst)
		var r Rule
		if c >= 0x80 {
			// §1.2 step 7: a byte >= 0x80 makes PHP call php_next_utf8_char() on the rest of
			// the string; "end of input" is the end of src.
			st := NextChar(src, pos)
			switch {
			case !st.OK && o.has(jsonopt.InvalidUTF8Ignore):
				// §1.2 step 7 failure, §1.5 row INVALID_UTF8_IGNORE: emit nothing. IGNORE is
				// tested before SUBSTITUTE, so IGNORE|SUBSTITUTE lands here too.
				r = RuleIgnore
			case !st.OK && o.has(jsonopt.UnescapedUnicode):
				// §1.2 step 7 failure, §1.5 row SUBSTITUTE|UNESCAPED_UNICODE: raw U+FFFD.
				// (SUBSTITUTE is set: without IGNORE or SUBSTITUTE a failure returned above.)
				dst, r = append(dst, 0xEF, 0xBF, 0xBD), RuleSubstituteRaw
			case !st.OK:
				// §1.2 step 7 failure, §1.5 row INVALID_UTF8_SUBSTITUTE: the 6 bytes \ufffd.
				dst, r = append(dst, `\ufffd`...), RuleSubstitute
			case o.has(jsonopt.UnescapedUnicode) &&
				(st.CP < 0x2028 || st.CP > 0x2029 || o.has(jsonopt.UnescapedLineTerminators)):
				// §1.2 step 7 success, §1.4: UNESCAPED_UNICODE copies the consumed bytes raw,
				// except U+2028/U+2029, which also need UNESCAPED_LINE_TERMINATORS.
				dst, r = append(dst, src[pos:pos+st.Advance]...), RuleUnicodeRaw
			case st.CP >= 0x10000:
				// §1.4 astral: a UTF-16 surrogate pair, two lower-case \uXXXX.
				v := st.CP - 0x10000
				dst = appendU(dst, 0xD800|v>>10)
				dst, r = appendU(dst, 0xDC00|v&0x3FF), RuleSurrogates
			case st.CP >= 0x2028 && st.CP <= 0x2029 && o.has(jsonopt.UnescapedUnicode):
				// §1.4: U+2028/U+2029 under UNESCAPED_UNICODE without UNESCAPED_LINE_TERMINATORS
				// stay escaped, one lower-case \uXXXX (the case above did not copy them).
				dst, r = appendU(dst, st.CP), RuleLineTerminator
			default:
				// §1.4: U+0080..U+FFFF (U+2028/9 included) as one lower-case \uXXXX.
				dst, r = appendU(dst, st.CP), RuleUnicode
			}
			pos += st.Advance // §1.2 step 7: success or failure, the decoder's advance
			if o.explain {
				_, e := NextCharExplain(src, start)
				o.note(start, pos, at, dst, r, e)
			}
			continue
		}

		// §1.2 steps 4–6, §1.3: an ASCII byte is consumed alone; a dirty one is escaped.
		pos++
		switch {
		case c == 0x08: // §1.3 row 0x08
			dst, r = append(dst, '\\', 'b'), RuleShortEscape
		case c == 0x09: // §1.3 row 0x09
			dst, r = append(dst, '\\', 't'), RuleShortEscape
		case c == 0x0A: // §1.3 row 0x0A
			dst, r = append(dst, '\\', 'n'), RuleShortEscape
		case c == 0x0C: // §1.3 row 0x0C
			dst, r = append(dst, '\\', 'f'), RuleShortEscape
		case c == 0x0D: // §1.3 row 0x0D
			dst, r = append(dst, '\\', 'r'), RuleShortEscape
		case c < 0x20: // §1.3 row other 0x00..0x1F: \u00XX, lower-case hex (\u000b, \u001f)
			dst, r = appendU(dst, uint32(c)), RuleControl
		case c == '"' && o.has(jsonopt.HexQuot): // §1.3 row 0x22, HEX_QUOT
			dst, r = append(dst, `\u0022`...), RuleQuoteHex
		case c == '"': // §1.3 row 0x22
			dst, r = append(dst, '\\', '"'), RuleQuote
		case c == '\\': // §1.3 row 0x5C: \\ under every option
			dst, r = append(dst, '\\', '\\'), RuleBackslash
		case c == '/' && o.has(jsonopt.UnescapedSlashes): // §1.3 row 0x2F, UNESCAPED_SLASHES
			dst, r = append(dst, '/'), RuleSlashRaw
		case c == '/': // §1.3 row 0x2F
			dst, r = append(dst, '\\', '/'), RuleSlash
		case c == '<' && o.has(jsonopt.HexTag): // §1.3 row 0x3C, HEX_TAG: upper-case C
			dst, r = append(dst, `\u003C`...), RuleTagHex
		case c == '>' && o.has(jsonopt.HexTag): // §1.3 row 0x3E, HEX_TAG: upper-case E
			dst, r = append(dst, `\u003E`...), RuleTagHex
		case c == '&' && o.has(jsonopt.HexAmp): // §1.3 row 0x26, HEX_AMP
			dst, r = append(dst, `\u0026`...), RuleAmpHex
		case c == '\'' && o.has(jsonopt.HexApos): // §1.3 row 0x27, HEX_APOS
			dst, r = append(dst, `\u0027`...), RuleAposHex
		case c == '<' || c == '>' || c == '&' || c == '\'':
			// §1.3 rows 0x3C 0x3E 0x26 0x27 without their HEX flag: dirty in PHP's charmap
			// (§1.2 step 4), but copied unchanged.
			dst, r = append(dst, c), RuleHexOff
		default:
			// §1.2 step 5, §1.3 rows 0x7F and all other 0x20..0x7E: clean, raw.
			dst, r = append(dst, c), RuleClean
		}
		if o.explain {
			o.note(start, pos, at, dst, r, ExitNone)
		}
	}
	dst = append(dst, '"') // §1.2 step 8
	if o.explain {
		o.note(len(src), len(src), len(dst)-1, dst, RuleCloseQuote, ExitNone)
	}
	return dst, nil
}

// appendU appends the 6 bytes \uXXXX for the UTF-16 code unit u (u <= 0xFFFF), with lower-case
// hex digits (spec §1.3, hex-digit case).
func appendU(dst []byte, u uint32) []byte {
	return append(dst, '\\', 'u',
		hexDigits[u>>12&0xF], hexDigits[u>>8&0xF], hexDigits[u>>4&0xF], hexDigits[u&0xF])
}

// firstInvalid is the offset of the first php_next_utf8_char() step json_encode would take over
// s that fails, or -1 when every one succeeds (spec §1.2 step 7: ASCII bytes are consumed one at
// a time without the decoder).
func firstInvalid(s []byte) int {
	for pos := 0; pos < len(s); {
		if s[pos] < 0x80 {
			pos++
			continue
		}
		st := NextChar(s, pos)
		if !st.OK {
			return pos
		}
		pos += st.Advance
	}
	return -1
}

// utf8Lead is html.c's utf8_lead(c) (spec §2.1): a byte that may start a character, ASCII
// included.
func utf8Lead(c byte) bool { return c < 0x80 || (c >= 0xC2 && c <= 0xF4) }

// utf8Trail is html.c's utf8_trail(c) (spec §2.1): a continuation byte.
func utf8Trail(c byte) bool { return c >= 0x80 && c <= 0xBF }

// ok is a successful step: code point cp in n bytes.
func ok(cp uint32, n int) jsonopt.Step { return jsonopt.Step{CP: cp, Advance: n, OK: true} }

// fail is html.c's MB_FAILURE(pos, n) (spec §2.1): failure, code point 0, cursor + n.
func fail(n int) jsonopt.Step { return jsonopt.Step{Advance: n} }

// NextChar is one php_next_utf8_char(s, len(s), &pos, &status) call (spec §2.2): it decodes
// the character starting at byte offset pos of s, looking at most 4 bytes ahead and never past
// len(s). It returns the code point (CP, 0 on failure), the number of bytes the cursor advances
// (Advance, 1..4, on failure as well: the failure advance is part of the contract) and whether
// the step succeeded (OK). s is never modified. pos must be >= 0; for pos >= len(s) (avail < 1,
// spec §2.1 preliminary) the step fails with advance 1.
//
// The 15 failure exits of the spec §2.2 table are numbered F1..F15 in the comments below. F4 is
// unreachable (c >= C2 makes cp >= 0x80) and is kept because the table and PHP have it.
func NextChar(s []byte, pos int) jsonopt.Step {
	avail := len(s) - pos // §2.1: bytes remaining, the current one included
	if avail < 1 {
		return fail(1) // §2.1 preliminary: avail < 1 -> FAIL, advance 1
	}
	c := s[pos]
	switch {
	case c < 0x80:
		return ok(uint32(c), 1) // §2.2 row 00..7F: OK, cp = c, advance 1

	case c < 0xC2:
		return fail(1) // F1 §2.2 row 80..C1: stray trail or C0/C1 lead -> FAIL, advance 1

	case c < 0xE0: // §2.2 rows C2..DF: 2-byte sequence
		switch {
		case avail < 2:
			return fail(1) // F2 §2.2 row C2..DF: avail < 2 (truncated) -> FAIL, advance 1
		case !utf8Trail(s[pos+1]) && utf8Lead(s[pos+1]):
			return fail(1) // F3 §2.2 row C2..DF: s1 not trail and utf8_lead(s1) -> FAIL, advance 1
		case !utf8Trail(s[pos+1]):
			return fail(2) // F3 §2.2 row C2..DF: s1 not trail, not a lead (C0 C1 F5..FF) -> FAIL, advance 2
		}
		cp := uint32(c&0x1F)<<6 | uint32(s[pos+1]&0x3F)
		if cp < 0x80 {
			return fail(2) // F4 §2.2 row C2..DF: cp < 0x80 (unreachable) -> FAIL, advance 2
		}
		return ok(cp, 2) // §2.2 row C2..DF otherwise: OK, advance 2

	case c < 0xF0: // §2.2 rows E0..EF: 3-byte sequence
		if avail >= 3 && utf8Trail(s[pos+1]) && utf8Trail(s[pos+2]) {
			// §2.2 row E0..EF: all bytes present and trails; only now are ranges checked.
			cp := uint32(c&0x0F)<<12 | uint32(s[pos+1]&0x3F)<<6 | uint32(s[pos+2]&0x3F)
			switch {
			case cp < 0x800:
				return fail(3) // F5 §2.2 row E0..EF: cp < 0x800 (overlong E0 80..9F xx) -> FAIL, advance 3
			case cp >= 0xD800 && cp <= 0xDFFF:
				return fail(3) // F6 §2.2 row E0..EF: surrogate (ED A0..BF xx) -> FAIL, advance 3
			}
			return ok(cp, 3) // §2.2 row E0..EF otherwise: OK, advance 3
		}
		switch {
		case avail < 2 || utf8Lead(s[pos+1]):
			return fail(1) // F7 §2.2 row E0..EF: avail < 2 or utf8_lead(s1) -> FAIL, advance 1
		case avail < 3 || utf8Lead(s[pos+2]):
			return fail(2) // F8 §2.2 row E0..EF: avail < 3 or utf8_lead(s2) -> FAIL, advance 2
		default:
			return fail(3) // F9 §2.2 row E0..EF: bad trail, no lead in s1..s2 -> FAIL, advance 3
		}

	case c < 0xF5: // §2.2 rows F0..F4: 4-byte sequence
		if avail >= 4 && utf8Trail(s[pos+1]) && utf8Trail(s[pos+2]) && utf8Trail(s[pos+3]) {
			// §2.2 row F0..F4: all bytes present and trails; only now are ranges checked.
			cp := uint32(c&0x07)<<18 | uint32(s[pos+1]&0x3F)<<12 |
				uint32(s[pos+2]&0x3F)<<6 | uint32(s[pos+3]&0x3F)
			if cp < 0x10000 || cp > 0x10FFFF {
				return fail(4) // F10 §2.2 row F0..F4: overlong (F0 80..8F) or > U+10FFFF (F4 90..BF) -> FAIL, advance 4
			}
			return ok(cp, 4) // §2.2 row F0..F4 otherwise: OK, advance 4
		}
		switch {
		case avail < 2 || utf8Lead(s[pos+1]):
			return fail(1) // F11 §2.2 row F0..F4: avail < 2 or utf8_lead(s1) -> FAIL, advance 1
		case avail < 3 || utf8Lead(s[pos+2]):
			return fail(2) // F12 §2.2 row F0..F4: avail < 3 or utf8_lead(s2) -> FAIL, advance 2
		case avail < 4 || utf8Lead(s[pos+3]):
			return fail(3) // F13 §2.2 row F0..F4: avail < 4 or utf8_lead(s3) -> FAIL, advance 3
		default:
			return fail(4) // F14 §2.2 row F0..F4: bad trail, no lead in s1..s3 -> FAIL, advance 4
		}

	default:
		return fail(1) // F15 §2.2 row F5..FF: never a lead -> FAIL, advance 1
	}
}

// UTF8Decode appends utf8_decode(src) to dst and returns the extended slice (spec §3.1): one
// output byte per php_next_utf8_char() step from position 0 to the end of src, the code point
// itself when the step succeeded with a code point <= U+00FF (Latin-1 identity), otherwise '?'
// (0x3F), so a failure or any code point above U+00FF, astral included, is a single '?'. It
// appends at most len(src) bytes and never modifies src or dst[:len(dst)]. PHP's E_DEPRECATED
// notice has no counterpart here.
func UTF8Decode(dst, src []byte) []byte {
	for pos := 0; pos < len(src); {
		st := NextChar(src, pos)
		if st.OK && st.CP <= 0xFF {
			dst = append(dst, byte(st.CP)) // §3.1: cp <= 0xFF -> the byte cp
		} else {
			dst = append(dst, '?') // §3.1: FAILURE or cp > 0xFF -> '?'
		}
		pos += st.Advance
	}
	return dst
}
