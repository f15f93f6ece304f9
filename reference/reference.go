// Package reference holds behaviours other implementations are known to have, so that a
// report can say "answers as X does" instead of listing the differences one by one (DESIGN.md
// §4). Each model is small, written from its own specification, tested on its own facts, and
// shares nothing with the oracle: a candidate that answers as a model does is a candidate
// that follows another rule, not one with many faults.
package reference

// MaximalSubpartLatin1 is utf8_decode() as a converter that follows the Unicode
// "maximal subpart" practice (Unicode §3.9, U+FFFD substitution of maximal subparts; the
// WHATWG Encoding Standard's UTF-8 decoder, ICU, PHP's mbstring): every maximal subpart of an
// ill-formed sequence is one error, written '?', and every code point above U+00FF is '?'. A
// maximal subpart is the longest prefix of a well-formed sequence (Unicode Table 3-7) at the
// error, or the one byte that cannot start one.
func MaximalSubpartLatin1(src []byte) []byte {
	out := make([]byte, 0, len(src))
	for _, r := range decodeWHATWG(src) {
		if r <= 0xFF {
			out = append(out, byte(r))
		} else {
			out = append(out, '?') // an error (U+FFFD) or a code point above U+00FF
		}
	}
	return out
}

// sequence is, for a lead byte, the length of its well-formed sequences and the range of
// their second byte (Unicode Table 3-7); n is 0 for a byte that cannot start one.
func sequence(c byte) (n int, lo, hi byte) {
	switch {
	case c >= 0xC2 && c <= 0xDF:
		return 2, 0x80, 0xBF
	case c == 0xE0:
		return 3, 0xA0, 0xBF
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		return 3, 0x80, 0xBF
	case c == 0xED:
		return 3, 0x80, 0x9F
	case c == 0xF0:
		return 4, 0x90, 0xBF
	case c >= 0xF1 && c <= 0xF3:
		return 4, 0x80, 0xBF
	case c == 0xF4:
		return 4, 0x80, 0x8F
	}
	return 0, 0, 0
}
