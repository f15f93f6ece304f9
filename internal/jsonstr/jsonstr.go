// Package jsonstr reads JSON string content back into the bytes it stands for, for comparing a
// candidate's answer with PHP's up to the form of its characters (package fuzz, attributing a
// step to the bytes a candidate wrote for it; package deviation, reading an answer as another
// input's). It is a leaf: stdlib only.
package jsonstr

import "bytes"

// Unescape decodes the escapes of JSON string content (\" \\ \/ \b \f \n \r \t and \uXXXX in
// either case, a surrogate pair joined, a lone surrogate as its three-byte form) and keeps
// every other byte: the bytes a candidate's output stands for. A malformed \u escape and what
// follows it are kept as they are. Content without a backslash is returned itself.
func Unescape(z []byte) []byte {
	if bytes.IndexByte(z, '\\') < 0 {
		return z
	}
	out := make([]byte, 0, len(z))
	for i := 0; i < len(z); i++ {
		c := z[i]
		if c != '\\' || i+1 >= len(z) {
			out = append(out, c)
			continue
		}
		i++
		switch z[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			u, ok := hex4(z[i+1:])
			if !ok {
				return append(out, z[i-1:]...)
			}
			i += 4
			if u >= 0xD800 && u < 0xDC00 && i+6 < len(z) && z[i+1] == '\\' && z[i+2] == 'u' {
				if lo, ok := hex4(z[i+3:]); ok && lo >= 0xDC00 && lo < 0xE000 {
					u = 0x10000 + (u-0xD800)<<10 + (lo - 0xDC00)
					i += 6
				}
			}
			out = AppendUTF8(out, u)
		default:
			out = append(out, z[i])
		}
	}
	return out
}

// hex4 reads four hex digits of either case.
func hex4(b []byte) (uint32, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var u uint32
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			u = u<<4 | uint32(c-'0')
		case c >= 'a' && c <= 'f':
			u = u<<4 | uint32(c-'a'+10)
		case c >= 'A' && c <= 'F':
			u = u<<4 | uint32(c-'A'+10)
		default:
			return 0, false
		}
	}
	return u, true
}

// AppendUTF8 appends u's shortest UTF-8 form, a surrogate as the three bytes ED xx xx its bits
// give (as a candidate that accepts them reads them).
func AppendUTF8(b []byte, u uint32) []byte {
	switch {
	case u < 0x80:
		return append(b, byte(u))
	case u < 0x800:
		return append(b, 0xC0|byte(u>>6), 0x80|byte(u&0x3F))
	case u < 0x10000:
		return append(b, 0xE0|byte(u>>12), 0x80|byte(u>>6&0x3F), 0x80|byte(u&0x3F))
	}
	return append(b, 0xF0|byte(u>>18), 0x80|byte(u>>12&0x3F), 0x80|byte(u>>6&0x3F), 0x80|byte(u&0x3F))
}
