package boundary

import "fmt"

// Unit is one byte string the space places into clean filler: a byte an escaper treats
// specially, a valid UTF-8 sequence, an invalid one. Units are supplied by the caller (who
// knows what is special to the code under test) or come from UTF8Units.
type Unit struct {
	Class string // the unit's class, for reports and grouping ("utf8-3", "invalid/surrogate")
	Name  string // the unit itself, for reports ("U+2028", "stray continuation 80")
	Bytes []byte // 1..MaxUnitLen bytes
}

// MaxUnitLen is the longest unit a Space accepts: the single-unit placements put a unit at
// every offset within 3 bytes of each edge, and the windows of two neighbouring 16-byte edges
// must not overlap.
const MaxUnitLen = 8

func (u Unit) String() string { return fmt.Sprintf("%s % x", u.Name, u.Bytes) }

// ByteUnits returns one single-byte unit of the given class per byte, named by its hex value
// ("0x22").
func ByteUnits(class string, bs ...byte) []Unit {
	out := make([]Unit, len(bs))
	for i, b := range bs {
		out[i] = Unit{Class: class, Name: fmt.Sprintf("0x%02x", b), Bytes: []byte{b}}
	}
	return out
}

// encodeUTF8 is the UTF-8 encoding of cp (any cp up to 0x1FFFFF, surrogates included, so that
// invalid units can be built with it).
func encodeUTF8(cp rune) []byte {
	switch {
	case cp < 0x80:
		return []byte{byte(cp)}
	case cp < 0x800:
		return []byte{0xC0 | byte(cp>>6), 0x80 | byte(cp)&0x3F}
	case cp < 0x10000:
		return []byte{0xE0 | byte(cp>>12), 0x80 | byte(cp>>6)&0x3F, 0x80 | byte(cp)&0x3F}
	}
	return []byte{0xF0 | byte(cp>>18), 0x80 | byte(cp>>12)&0x3F, 0x80 | byte(cp>>6)&0x3F, 0x80 | byte(cp)&0x3F}
}

// UTF8Units returns the UTF-8 units of the boundary space (they are about UTF-8, not about
// any format built on it):
//
//   - valid, class "utf8-N" for N = 2, 3, 4 bytes: the first and the last code point of each
//     range of the well-formed byte sequences table (Unicode Table 3-7: U+0080..U+07FF,
//     U+0800..U+0FFF, U+1000..U+CFFF, U+D000..U+D7FF, U+E000..U+FFFF, U+10000..U+3FFFF,
//     U+40000..U+FFFFF, U+100000..U+10FFFF), and U+2028, U+2029, U+FFFD, U+FEFF (class
//     "utf8-special"; U+10FFFF is already a range end);
//   - invalid, class "invalid/..." (the failure classes of php_next_utf8_char, spec §2.2): a
//     stray continuation (80, BF), the never-lead bytes C0, C1 and F5..FF (C0, C1, C0 AF, F5,
//     F8, FE, FF), 3- and 4-byte overlongs (E0 80 80, E0 9F BF, F0 80 80 80, F0 8F BF BF),
//     surrogates (ED A0 80, ED BF BF), code points above U+10FFFF (F4 90 80 80, F7 BF BF BF),
//     truncation at every length (C3 | E2 | E2 82 | F0 | F0 9F | F0 9F 98, and E0 A0, F4 8F BF),
//     a bad continuation that is itself a lead (C3 C3 A9, E2 82 C3 A9, F0 9F 98 C3 A9,
//     E2 F0 9F 98 80) and one that is not (C3 FF, E2 C0 80, E2 82 FF, F0 9F C0 80, E2 FF).
//
// Placed before clean ASCII filler a truncated unit is also a sequence whose continuation is
// an ASCII lead; placed at the end of the input it is truncated by the end.
func UTF8Units() []Unit {
	var out []Unit
	valid := func(class string, cps ...rune) {
		for _, cp := range cps {
			out = append(out, Unit{Class: class, Name: fmt.Sprintf("U+%04X", cp), Bytes: encodeUTF8(cp)})
		}
	}
	valid("utf8-2", 0x80, 0x7FF)
	valid("utf8-3", 0x800, 0xFFF, 0x1000, 0xCFFF, 0xD000, 0xD7FF, 0xE000, 0xFFFF)
	valid("utf8-4", 0x10000, 0x3FFFF, 0x40000, 0xFFFFF, 0x100000, 0x10FFFF)
	valid("utf8-special", 0x2028, 0x2029, 0xFFFD, 0xFEFF)
	bad := func(class, name string, b ...byte) {
		out = append(out, Unit{Class: "invalid/" + class, Name: name, Bytes: b})
	}
	bad("stray-continuation", "stray continuation 80", 0x80)
	bad("stray-continuation", "stray continuation BF", 0xBF)
	bad("c0-c1", "lead C0", 0xC0)
	bad("c0-c1", "lead C1", 0xC1)
	bad("c0-c1", "overlong 2-byte C0 AF", 0xC0, 0xAF)
	bad("f5-ff", "byte F5", 0xF5)
	bad("f5-ff", "byte F8", 0xF8)
	bad("f5-ff", "byte FE", 0xFE)
	bad("f5-ff", "byte FF", 0xFF)
	bad("overlong-3", "overlong 3-byte E0 80 80", 0xE0, 0x80, 0x80)
	bad("overlong-3", "overlong 3-byte E0 9F BF", 0xE0, 0x9F, 0xBF)
	bad("overlong-4", "overlong 4-byte F0 80 80 80", 0xF0, 0x80, 0x80, 0x80)
	bad("overlong-4", "overlong 4-byte F0 8F BF BF", 0xF0, 0x8F, 0xBF, 0xBF)
	bad("surrogate", "surrogate U+D800", 0xED, 0xA0, 0x80)
	bad("surrogate", "surrogate U+DFFF", 0xED, 0xBF, 0xBF)
	bad("above-10ffff", "U+110000", 0xF4, 0x90, 0x80, 0x80)
	bad("above-10ffff", "U+1FFFFF", 0xF7, 0xBF, 0xBF, 0xBF)
	bad("truncated", "2-byte truncated after 1", 0xC3)
	bad("truncated", "3-byte truncated after 1", 0xE2)
	bad("truncated", "3-byte truncated after 2", 0xE2, 0x82)
	bad("truncated", "3-byte E0 truncated after 2", 0xE0, 0xA0)
	bad("truncated", "4-byte truncated after 1", 0xF0)
	bad("truncated", "4-byte truncated after 2", 0xF0, 0x9F)
	bad("truncated", "4-byte truncated after 3", 0xF0, 0x9F, 0x98)
	bad("truncated", "4-byte F4 truncated after 3", 0xF4, 0x8F, 0xBF)
	bad("bad-trail-lead", "C3 then lead C3 A9", 0xC3, 0xC3, 0xA9)
	bad("bad-trail-lead", "E2 82 then lead C3 A9", 0xE2, 0x82, 0xC3, 0xA9)
	bad("bad-trail-lead", "F0 9F 98 then lead C3 A9", 0xF0, 0x9F, 0x98, 0xC3, 0xA9)
	bad("bad-trail-lead", "E2 then lead F0 9F 98 80", 0xE2, 0xF0, 0x9F, 0x98, 0x80)
	bad("bad-trail-not-lead", "C3 FF", 0xC3, 0xFF)
	bad("bad-trail-not-lead", "E2 C0 80", 0xE2, 0xC0, 0x80)
	bad("bad-trail-not-lead", "E2 82 FF", 0xE2, 0x82, 0xFF)
	bad("bad-trail-not-lead", "F0 9F C0 80", 0xF0, 0x9F, 0xC0, 0x80)
	bad("bad-trail-not-lead", "E2 FF", 0xE2, 0xFF)
	return out
}
