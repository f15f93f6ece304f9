package fast_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// nextCharTests are the decision tree of spec §2.2, one row per exit: every failure exit with
// its advance (F1..F15, F4 being unreachable and covered by the exhaustive test's success
// rows instead), the success rows, and the preliminary avail < 1 case.
var nextCharTests = []struct {
	id   string
	in   string
	pos  int
	want jsonopt.Step
}{
	// Success rows.
	{"ascii", "A", 0, jsonopt.Step{CP: 'A', Advance: 1, OK: true}},
	{"nul", "\x00", 0, jsonopt.Step{CP: 0, Advance: 1, OK: true}},
	{"2-byte min", "\xc2\x80", 0, jsonopt.Step{CP: 0x80, Advance: 2, OK: true}},
	{"2-byte max", "\xdf\xbf", 0, jsonopt.Step{CP: 0x7FF, Advance: 2, OK: true}},
	{"3-byte min", "\xe0\xa0\x80", 0, jsonopt.Step{CP: 0x800, Advance: 3, OK: true}},
	{"3-byte before surrogates", "\xed\x9f\xbf", 0, jsonopt.Step{CP: 0xD7FF, Advance: 3, OK: true}},
	{"3-byte after surrogates", "\xee\x80\x80", 0, jsonopt.Step{CP: 0xE000, Advance: 3, OK: true}},
	{"3-byte max", "\xef\xbf\xbf", 0, jsonopt.Step{CP: 0xFFFF, Advance: 3, OK: true}},
	{"4-byte min", "\xf0\x90\x80\x80", 0, jsonopt.Step{CP: 0x10000, Advance: 4, OK: true}},
	{"4-byte max", "\xf4\x8f\xbf\xbf", 0, jsonopt.Step{CP: 0x10FFFF, Advance: 4, OK: true}},
	{"at pos", "A\xc3\xa9", 1, jsonopt.Step{CP: 0xE9, Advance: 2, OK: true}},

	// avail < 1 (spec §2.1 preliminary).
	{"empty", "", 0, jsonopt.Step{Advance: 1}},
	{"pos = len", "AB", 2, jsonopt.Step{Advance: 1}},
	{"pos > len", "AB", 7, jsonopt.Step{Advance: 1}},

	// F1: 80..C1.
	{"F1 stray trail 80", "\x80\x80", 0, jsonopt.Step{Advance: 1}},
	{"F1 stray trail BF", "\xbf", 0, jsonopt.Step{Advance: 1}},
	{"F1 C0 overlong lead", "\xc0\xaf", 0, jsonopt.Step{Advance: 1}},
	{"F1 C1 overlong lead", "\xc1\xbf", 0, jsonopt.Step{Advance: 1}},
	// F2: C2..DF, avail < 2.
	{"F2 C3 truncated", "\xc3", 0, jsonopt.Step{Advance: 1}},
	{"F2 DF truncated at pos", "A\xdf", 1, jsonopt.Step{Advance: 1}},
	// F3: C2..DF, s1 not a trail but a lead.
	{"F3 s1 ascii", "\xc3A", 0, jsonopt.Step{Advance: 1}},
	{"F3 s1 C3", "\xc3\xc3\xa9", 0, jsonopt.Step{Advance: 1}},
	{"F3 s1 F4", "\xc3\xf4", 0, jsonopt.Step{Advance: 1}},
	// F3': C2..DF, s1 neither trail nor lead.
	{"F3' s1 FF", "\xc3\xff", 0, jsonopt.Step{Advance: 2}},
	{"F3' s1 C0", "\xc3\xc0A", 0, jsonopt.Step{Advance: 2}},
	{"F3' s1 F5", "\xdf\xf5", 0, jsonopt.Step{Advance: 2}},
	// F5: E0..EF complete, overlong.
	{"F5 overlong E0 80 80", "\xe0\x80\x80", 0, jsonopt.Step{Advance: 3}},
	{"F5 overlong E0 9F BF", "\xe0\x9f\xbf", 0, jsonopt.Step{Advance: 3}},
	// F6: E0..EF complete, surrogate.
	{"F6 surrogate ED A0 80", "\xed\xa0\x80", 0, jsonopt.Step{Advance: 3}},
	{"F6 surrogate ED BF BF", "\xed\xbf\xbf", 0, jsonopt.Step{Advance: 3}},
	// F7: E0..EF, avail < 2 or s1 a lead.
	{"F7 E2 truncated", "\xe2", 0, jsonopt.Step{Advance: 1}},
	{"F7 s1 ascii", "\xe2A\x80", 0, jsonopt.Step{Advance: 1}},
	{"F7 s1 C3", "\xe2\xc3\xa9", 0, jsonopt.Step{Advance: 1}},
	// F8: E0..EF, avail < 3 or s2 a lead.
	{"F8 E2 82 truncated", "\xe2\x82", 0, jsonopt.Step{Advance: 2}},
	{"F8 E0 80 A", "\xe0\x80A", 0, jsonopt.Step{Advance: 2}},
	{"F8 s1 FF s2 ascii", "\xe2\xffA", 0, jsonopt.Step{Advance: 2}},
	{"F8 s1 C0 truncated", "\xe2\xc0", 0, jsonopt.Step{Advance: 2}},
	// F9: E0..EF, bad trail, no lead in s1..s2.
	{"F9 E2 C0 80", "\xe2\xc0\x80", 0, jsonopt.Step{Advance: 3}},
	{"F9 E2 82 FF", "\xe2\x82\xff", 0, jsonopt.Step{Advance: 3}},
	// F10: F0..F4 complete, out of range.
	{"F10 overlong F0 80 80 80", "\xf0\x80\x80\x80", 0, jsonopt.Step{Advance: 4}},
	{"F10 overlong F0 8F BF BF", "\xf0\x8f\xbf\xbf", 0, jsonopt.Step{Advance: 4}},
	{"F10 above max F4 90 80 80", "\xf4\x90\x80\x80", 0, jsonopt.Step{Advance: 4}},
	// F11: F0..F4, avail < 2 or s1 a lead.
	{"F11 F0 truncated", "\xf0", 0, jsonopt.Step{Advance: 1}},
	{"F11 s1 C3", "\xf0\xc3\xa9", 0, jsonopt.Step{Advance: 1}},
	// F12: F0..F4, avail < 3 or s2 a lead.
	{"F12 F0 9F truncated", "\xf0\x9f", 0, jsonopt.Step{Advance: 2}},
	{"F12 s2 ascii", "\xf0\x9fA", 0, jsonopt.Step{Advance: 2}},
	// F13: F0..F4, avail < 4 or s3 a lead.
	{"F13 F0 9F 98 truncated", "\xf0\x9f\x98", 0, jsonopt.Step{Advance: 3}},
	{"F13 s3 C3", "\xf0\x9f\x98\xc3\xa9", 0, jsonopt.Step{Advance: 3}},
	{"F13 s1 FF s2 80 truncated", "\xf0\xff\x80", 0, jsonopt.Step{Advance: 3}},
	// F14: F0..F4, bad trail, no lead in s1..s3.
	{"F14 F0 9F C0 80", "\xf0\x9f\xc0\x80", 0, jsonopt.Step{Advance: 4}},
	{"F14 F4 FF FF FF", "\xf4\xff\xff\xff", 0, jsonopt.Step{Advance: 4}},
	// F15: F5..FF.
	{"F15 F5", "\xf5\x80\x80\x80", 0, jsonopt.Step{Advance: 1}},
	{"F15 FF", "\xff", 0, jsonopt.Step{Advance: 1}},
}

func TestNextChar(t *testing.T) {
	for _, im := range impls(t) {
		for _, tt := range nextCharTests {
			in := []byte(tt.in)
			assert.Equal(t, tt.want, im.nextChar(in, tt.pos), "%s %s: NextChar(%q, %d)", im.name, tt.id, tt.in, tt.pos)
			assert.Equal(t, tt.in, string(in), "%s %s: NextChar modified its input", im.name, tt.id)
			assert.Equal(t, tt.want, modelStep(in, tt.pos), "model %s: modelStep(%q, %d)", tt.id, tt.in, tt.pos)
		}
	}
}

// TestNextCharExhaustive compares NextChar with the model on every string of 1 and 2 bytes,
// every 3-byte string (not with -short), and every 4-byte string over an alphabet with one
// or more bytes of each class, at position 0 and (for 3 and 4 bytes) 1.
func TestNextCharExhaustive(t *testing.T) {
	check := func(s []byte, pos int) bool {
		if got, want := fastNext(s, pos), modelStep(s, pos); got != want {
			t.Errorf("NextChar(% x, %d) = %v; want %v", s, pos, got, want)
			return false
		}
		return true
	}
	var b [4]byte
	for x := 0; x < 1<<16; x++ {
		b[0], b[1] = byte(x>>8), byte(x)
		if !check(b[:1], 0) || !check(b[:2], 0) {
			return
		}
	}
	if !testing.Short() {
		for x := 0; x < 1<<24; x++ {
			b[0], b[1], b[2] = byte(x>>16), byte(x>>8), byte(x)
			if !check(b[:3], 0) {
				return
			}
		}
	}
	alpha := []byte{0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf,
		0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff}
	for _, c0 := range alpha {
		for _, c1 := range alpha {
			for _, c2 := range alpha {
				for _, c3 := range alpha {
					s := []byte{c0, c1, c2, c3}
					if !check(s, 0) || !check(s, 1) {
						return
					}
				}
			}
		}
	}
}
