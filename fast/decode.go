package fast

import (
	"encoding/binary"
	"math/bits"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// isTrail is html.c's utf8_trail(c) (spec §2.1): a continuation byte 80..BF.
func isTrail(c byte) bool { return c&0xC0 == 0x80 }

// isLead is html.c's utf8_lead(c) (spec §2.1): ASCII or C2..F4, a byte that may start a
// character.
func isLead(c byte) bool { return c < 0x80 || c-0xC2 <= 0xF4-0xC2 }

// NextChar is one php_next_utf8_char(s, len(s), &pos, &status) step (spec §2.2): it decodes the
// character starting at byte offset pos of s, reading at most 4 bytes and never past len(s).
// It returns the code point (CP; 0 on failure), the cursor advance in bytes (Advance, 1..4, on
// failure too: the failure advance is part of the contract) and success (OK). pos must be
// non-negative; for pos >= len(s) the step fails with advance 1 (spec §2.1, avail < 1). s is
// never modified.
//
// Valid sequences are decoded inline; anything else goes to the slow path, a transcription
// of the spec §2.2 decision tree (the shape of php-src PR #24283). Every Variant shares this
// function.
func NextChar(s []byte, pos int) jsonopt.Step {
	if pos >= len(s) {
		return jsonopt.Step{Advance: 1}
	}
	c := s[pos]
	if c < 0x80 {
		return jsonopt.Step{CP: uint32(c), Advance: 1, OK: true}
	}
	if cp, n := decodeValid(s, pos, c); n != 0 {
		return jsonopt.Step{CP: cp, Advance: n, OK: true}
	}
	return nextCharSlow(s, pos)
}

// decodeValid decodes the multi-byte sequence with lead byte c = s[i] >= 0x80 when it is valid
// UTF-8 (spec §2.2 success rows), returning its code point and length; it returns n = 0 for
// anything else (invalid, truncated, overlong, surrogate, > U+10FFFF), which the caller hands to
// nextCharSlow. It is the inline fast path and small enough to be inlined.
func decodeValid(s []byte, i int, c byte) (cp uint32, n int) {
	switch {
	case c < 0xC2:
		return 0, 0
	case c < 0xE0:
		if i+1 < len(s) && isTrail(s[i+1]) {
			return uint32(c&0x1F)<<6 | uint32(s[i+1]&0x3F), 2
		}
	case c < 0xF0:
		if i+2 < len(s) {
			c1, c2 := s[i+1], s[i+2]
			cp = uint32(c&0x0F)<<12 | uint32(c1&0x3F)<<6 | uint32(c2&0x3F)
			if isTrail(c1) && isTrail(c2) && cp >= 0x800 && cp&0xF800 != 0xD800 {
				return cp, 3
			}
		}
	case c < 0xF5:
		if i+3 < len(s) {
			c1, c2, c3 := s[i+1], s[i+2], s[i+3]
			cp = uint32(c&0x07)<<18 | uint32(c1&0x3F)<<12 | uint32(c2&0x3F)<<6 | uint32(c3&0x3F)
			if isTrail(c1) && isTrail(c2) && isTrail(c3) && cp-0x10000 <= 0x10FFFF-0x10000 {
				return cp, 4
			}
		}
	}
	return 0, 0
}

// fail is MB_FAILURE(pos, k) of spec §2.1: failure, code point 0, advance k.
func fail(k int) jsonopt.Step { return jsonopt.Step{Advance: k} }

// nextCharSlow is the full spec §2.2 decision tree for the character at s[pos], pos < len(s):
// this package's own slow path for every sequence decodeValid does not accept. It also
// accepts valid input (the caller never relies on that), so it is a complete NextChar.
func nextCharSlow(s []byte, pos int) jsonopt.Step {
	avail := len(s) - pos
	c := s[pos]
	switch {
	case c < 0x80:
		return jsonopt.Step{CP: uint32(c), Advance: 1, OK: true}
	case c < 0xC2: // stray trail, or C0/C1 (overlong lead)
		return fail(1)
	case c < 0xE0: // 2-byte lead
		if avail < 2 {
			return fail(1)
		}
		s1 := s[pos+1]
		if !isTrail(s1) {
			if isLead(s1) {
				return fail(1)
			}
			return fail(2)
		}
		// cp < 0x80 cannot happen for c >= C2 (spec §2.2, unreachable exit).
		return jsonopt.Step{CP: uint32(c&0x1F)<<6 | uint32(s1&0x3F), Advance: 2, OK: true}
	case c < 0xF0: // 3-byte lead
		if avail >= 3 && isTrail(s[pos+1]) && isTrail(s[pos+2]) {
			cp := uint32(c&0x0F)<<12 | uint32(s[pos+1]&0x3F)<<6 | uint32(s[pos+2]&0x3F)
			if cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF) {
				return fail(3) // overlong or surrogate: one failure for the whole sequence
			}
			return jsonopt.Step{CP: cp, Advance: 3, OK: true}
		}
		switch {
		case avail < 2 || isLead(s[pos+1]):
			return fail(1)
		case avail < 3 || isLead(s[pos+2]):
			return fail(2)
		}
		return fail(3)
	case c < 0xF5: // 4-byte lead
		if avail >= 4 && isTrail(s[pos+1]) && isTrail(s[pos+2]) && isTrail(s[pos+3]) {
			cp := uint32(c&0x07)<<18 | uint32(s[pos+1]&0x3F)<<12 | uint32(s[pos+2]&0x3F)<<6 | uint32(s[pos+3]&0x3F)
			if cp < 0x10000 || cp > 0x10FFFF {
				return fail(4) // overlong or above U+10FFFF
			}
			return jsonopt.Step{CP: cp, Advance: 4, OK: true}
		}
		switch {
		case avail < 2 || isLead(s[pos+1]):
			return fail(1)
		case avail < 3 || isLead(s[pos+2]):
			return fail(2)
		case avail < 4 || isLead(s[pos+3]):
			return fail(3)
		}
		return fail(4)
	default: // F5..FF: never a lead
		return fail(1)
	}
}

// asciiEnd returns the index of the first byte >= 0x80 in s[i:], or len(s), scanning a byte
// at a time (words is false) or 8 bytes a word (words is true).
func asciiEnd(s []byte, i int, words bool) int {
	if words {
		for ; i+32 <= len(s); i += 32 {
			w0 := binary.LittleEndian.Uint64(s[i:])
			w1 := binary.LittleEndian.Uint64(s[i+8:])
			w2 := binary.LittleEndian.Uint64(s[i+16:])
			w3 := binary.LittleEndian.Uint64(s[i+24:])
			if (w0|w1|w2|w3)&hi8 != 0 {
				break
			}
		}
		for ; i+8 <= len(s); i += 8 {
			if m := binary.LittleEndian.Uint64(s[i:]) & hi8; m != 0 {
				return i + bits.TrailingZeros64(m)>>3
			}
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return i
		}
	}
	return i
}

// utf8Decode is utf8_decode() (spec §3.1) for every variant: ASCII runs are found with
// asciiEnd and copied in bulk, valid sequences decoded inline, the rest by nextCharSlow. The
// output is at most len(src) bytes, so dst grows at most once.
func utf8Decode(dst, src []byte, words bool) []byte {
	out, d := reserve(dst, len(dst), len(src))
	for i := 0; i < len(src); {
		c := src[i]
		if c < 0x80 {
			if i+1 < len(src) && src[i+1] >= 0x80 {
				out[d] = c // a lone ASCII byte (a space between words)
				d++
				i++
				continue
			}
			j := asciiEnd(src, i, words)
			d += copy(out[d:], src[i:j])
			i = j
			continue
		}
		if c-0xC2 <= 0xDF-0xC2 && i+1 < len(src) && src[i+1]&0xC0 == 0x80 {
			// A valid 2-byte sequence, inline: U+0080..U+00FF (leads C2, C3) is its
			// Latin-1 byte, anything above is '?'.
			out[d] = '?'
			if c <= 0xC3 {
				out[d] = c<<6 | src[i+1]&0x3F
			}
			d++
			i += 2
			continue
		}
		if c&0xF0 == 0xE0 && i+2 < len(src) {
			// A valid 3-byte sequence, inline: always above U+00FF, so '?'.
			b1, b2 := src[i+1], src[i+2]
			cp := uint32(c&0x0F)<<12 | uint32(b1&0x3F)<<6 | uint32(b2&0x3F)
			if b1&0xC0 == 0x80 && b2&0xC0 == 0x80 && cp >= 0x800 && cp&0xF800 != 0xD800 {
				out[d] = '?'
				d++
				i += 3
				continue
			}
		}
		if c-0xF0 <= 0xF4-0xF0 && i+3 < len(src) {
			// A valid 4-byte sequence, inline: astral, so '?'.
			b1, b2, b3 := src[i+1], src[i+2], src[i+3]
			cp := uint32(c&0x07)<<18 | uint32(b1&0x3F)<<12 | uint32(b2&0x3F)<<6 | uint32(b3&0x3F)
			if b1&0xC0 == 0x80 && b2&0xC0 == 0x80 && b3&0xC0 == 0x80 && cp-0x10000 <= 0x10FFFF-0x10000 {
				out[d] = '?'
				d++
				i += 4
				continue
			}
		}
		cp, n := decodeValid(src, i, c)
		if n == 0 {
			st := nextCharSlow(src, i)
			cp, n = st.CP, st.Advance
			if !st.OK {
				cp = '?'
			}
		}
		if cp > 0xFF {
			cp = '?'
		}
		out[d] = byte(cp)
		d++
		i += n
	}
	return out[:d]
}

// reserve returns a slice with b[:d] as its prefix and at least need bytes of capacity after
// d, resliced to its full capacity; it reallocates (growing geometrically) only when b's
// capacity is short.
func reserve(b []byte, d, need int) ([]byte, int) {
	if cap(b)-d < need {
		nc := 2 * cap(b)
		if nc < d+need {
			nc = d + need
		}
		nb := make([]byte, nc)
		copy(nb, b[:d])
		b = nb
	}
	return b[:cap(b)], d
}
