package oracle_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"unicode/utf8" // tests only: an independent cross-check of the acceptance set (spec §2.2)

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/internal/spectest"
	"github.com/difffuzz/difffuzz/internal/testlevel"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
)

// wantErrOf maps a spec fact's json_last_error() to the error Escape must return.
func wantErrOf(code int) error {
	if code == jsonopt.ErrorUTF8 {
		return jsonopt.ErrUTF8
	}
	return nil
}

// assertErr asserts that err is exactly want: nil, or the very sentinel (errors.Is, and *jsonopt.Error
// has no Is or Unwrap, so this is ==).
func assertErr(t *testing.T, want, err error, msgAndArgs ...any) bool {
	t.Helper()
	if want == nil {
		return assert.NoError(t, err, msgAndArgs...)
	}
	return assert.ErrorIs(t, err, want, msgAndArgs...)
}

// TestEscapeFacts checks every json_encode fact J1–J72 of spec §5.2.
func TestEscapeFacts(t *testing.T) {
	if len(spectest.Escape) != 72 {
		t.Fatalf("spectest.Escape has %d facts; want 72 (J1–J72)", len(spectest.Escape))
	}
	for _, f := range spectest.Escape {
		got, err := oracle.Escape(nil, f.In, f.Flags)
		want := f.Want
		if want == nil { // json_encode returned false: nothing appended
			want = []byte{}
		}
		assert.Equal(t, string(want), string(got), "%s: Escape(%q, %s)", f.ID, f.In, f.Flags.Short())
		assertErr(t, wantErrOf(f.Err), err, "%s: Escape(%q, %s)", f.ID, f.In, f.Flags.Short())
		assert.Equal(t, f.Err, jsonopt.ErrorCode(err), "%s: Escape(%q, %s) error code", f.ID, f.In, f.Flags.Short())
	}
}

// TestUTF8DecodeFacts checks every utf8_decode fact U1–U17 of spec §5.2.
func TestUTF8DecodeFacts(t *testing.T) {
	if len(spectest.UTF8Decode) != 17 {
		t.Fatalf("spectest.UTF8Decode has %d facts; want 17 (U1–U17)", len(spectest.UTF8Decode))
	}
	for _, f := range spectest.UTF8Decode {
		got := oracle.UTF8Decode(nil, f.In)
		assert.Equal(t, string(f.Want), string(got), "%s: UTF8Decode(%q)", f.ID, f.In)
	}
}

func ok(cp uint32, n int) jsonopt.Step { return jsonopt.Step{CP: cp, Advance: n, OK: true} }
func fail(n int) jsonopt.Step          { return jsonopt.Step{Advance: n} }

// nextCharTests covers each first-byte class and each of the 15 failure exits F1..F15 of the
// spec §2.2 table (numbered as in oracle.go; F4 is unreachable), the §2.2 and §7 examples, and
// the §2.1 preliminary avail < 1.
var nextCharTests = []struct {
	name string
	in   string
	pos  int
	want jsonopt.Step
}{
	// §2.1 preliminary: avail < 1.
	{"empty", "", 0, fail(1)},
	{"pos==len", "A", 1, fail(1)},
	{"pos>len", "A", 5, fail(1)},
	{"pos==len after multi-byte", "\xc3\xa9", 2, fail(1)},

	// 00..7F.
	{"NUL", "\x00", 0, ok(0, 1)},
	{"A", "A\xc3\xa9", 0, ok('A', 1)},
	{"DEL", "\x7f", 0, ok(0x7F, 1)},
	{"ASCII before trail", "A\x80", 0, ok('A', 1)},
	{"mid-string", "A\xc3\xa9", 1, ok(0xE9, 2)},

	// F1: 80..C1.
	{"F1 80", "\x80", 0, fail(1)},
	{"F1 80 80", "\x80\x80", 0, fail(1)},
	{"F1 BF", "\xbf", 0, fail(1)},
	{"F1 C0 AF", "\xc0\xaf", 0, fail(1)},
	{"F1 C0 80", "\xc0\x80", 0, fail(1)},
	{"F1 C1 BF", "\xc1\xbf", 0, fail(1)},

	// C2..DF.
	{"C2 80", "\xc2\x80", 0, ok(0x80, 2)},
	{"C3 A9", "\xc3\xa9", 0, ok(0xE9, 2)},
	{"C4 80", "\xc4\x80", 0, ok(0x100, 2)},
	{"DF BF", "\xdf\xbf", 0, ok(0x7FF, 2)},
	{"C3 A9 41", "\xc3\xa9A", 0, ok(0xE9, 2)},
	{"F2 C3 end", "\xc3", 0, fail(1)},
	{"F2 DF end", "A\xdf", 1, fail(1)},
	{"F3 C3 41 (lead ASCII)", "\xc3A", 0, fail(1)},
	{"F3 C3 00", "\xc3\x00", 0, fail(1)},
	{"F3 C3 C3 A9 (lead C2..F4)", "\xc3\xc3\xa9", 0, fail(1)},
	{"F3 C3 F4", "\xc3\xf4", 0, fail(1)},
	{"F3 C3 FF (not lead)", "\xc3\xff", 0, fail(2)},
	{"F3 C3 C0 41", "\xc3\xc0A", 0, fail(2)},
	{"F3 C2 C1", "\xc2\xc1", 0, fail(2)},
	{"F3 DF F5", "\xdf\xf5", 0, fail(2)},
	// F4 (cp < 0x80) is unreachable: c >= C2 gives cp >= 0x80.

	// E0..EF.
	{"E0 A0 80", "\xe0\xa0\x80", 0, ok(0x800, 3)},
	{"E2 82 AC", "\xe2\x82\xac", 0, ok(0x20AC, 3)},
	{"E2 80 A8", "\xe2\x80\xa8", 0, ok(0x2028, 3)},
	{"ED 9F BF", "\xed\x9f\xbf", 0, ok(0xD7FF, 3)},
	{"EE 80 80", "\xee\x80\x80", 0, ok(0xE000, 3)},
	{"EF BB BF", "\xef\xbb\xbf", 0, ok(0xFEFF, 3)},
	{"EF BF BF", "\xef\xbf\xbf", 0, ok(0xFFFF, 3)},
	{"F5 E0 80 80", "\xe0\x80\x80", 0, fail(3)},
	{"F5 E0 9F BF", "\xe0\x9f\xbf", 0, fail(3)},
	{"F6 ED A0 80", "\xed\xa0\x80", 0, fail(3)},
	{"F6 ED BF BF", "\xed\xbf\xbf", 0, fail(3)},
	{"F6 ED A0 BD ED B0 80", "\xed\xa0\xbd\xed\xb0\x80", 0, fail(3)},
	{"F7 E2 end", "\xe2", 0, fail(1)},
	{"F7 E2 41", "\xe2A", 0, fail(1)},
	{"F7 E2 C3 A9", "\xe2\xc3\xa9", 0, fail(1)},
	{"F7 E0 41 80", "\xe0A\x80", 0, fail(1)},
	{"F8 E2 82 end", "\xe2\x82", 0, fail(2)},
	{"F8 E0 80 41", "\xe0\x80A", 0, fail(2)},
	{"F8 E2 82 41", "\xe2\x82A", 0, fail(2)},
	{"F8 E2 82 C3 A9", "\xe2\x82\xc3\xa9", 0, fail(2)},
	{"F8 E2 FF 41", "\xe2\xffA", 0, fail(2)},
	{"F8 E2 FF end", "\xe2\xff", 0, fail(2)},
	{"F8 E3 80 22", "\xe3\x80\"", 0, fail(2)},
	{"F9 E2 C0 80", "\xe2\xc0\x80", 0, fail(3)},
	{"F9 E2 82 FF", "\xe2\x82\xff", 0, fail(3)},
	{"F9 E2 82 C0", "\xe2\x82\xc0", 0, fail(3)},
	{"F9 EF FF FF", "\xef\xff\xff", 0, fail(3)},

	// F0..F4.
	{"F0 90 80 80", "\xf0\x90\x80\x80", 0, ok(0x10000, 4)},
	{"F0 9F 98 80", "\xf0\x9f\x98\x80", 0, ok(0x1F600, 4)},
	{"F4 8F BF BF", "\xf4\x8f\xbf\xbf", 0, ok(0x10FFFF, 4)},
	{"F10 F0 80 80 80", "\xf0\x80\x80\x80", 0, fail(4)},
	{"F10 F0 8F BF BF", "\xf0\x8f\xbf\xbf", 0, fail(4)},
	{"F10 F4 90 80 80", "\xf4\x90\x80\x80", 0, fail(4)},
	{"F10 F4 BF BF BF", "\xf4\xbf\xbf\xbf", 0, fail(4)},
	{"F11 F0 end", "\xf0", 0, fail(1)},
	{"F11 F0 41", "\xf0A", 0, fail(1)},
	{"F11 F0 C3 A9", "\xf0\xc3\xa9", 0, fail(1)},
	{"F11 F4 F4", "\xf4\xf4", 0, fail(1)},
	{"F12 F0 9F end", "\xf0\x9f", 0, fail(2)},
	{"F12 F0 9F 41", "\xf0\x9f" + "A", 0, fail(2)},
	{"F12 F0 FF C2", "\xf0\xff\xc2", 0, fail(2)},
	{"F13 F0 9F 98 end", "\xf0\x9f\x98", 0, fail(3)},
	{"F13 F0 9F 98 41", "\xf0\x9f\x98" + "A", 0, fail(3)},
	{"F13 F0 9F 98 C3 A9", "\xf0\x9f\x98\xc3\xa9", 0, fail(3)},
	{"F13 F0 C0 FF end", "\xf0\xc0\xff", 0, fail(3)},
	{"F14 F0 9F C0 80", "\xf0\x9f\xc0\x80", 0, fail(4)},
	{"F14 F0 9F 98 FF", "\xf0\x9f\x98\xff", 0, fail(4)},
	{"F14 F4 FF FF FF", "\xf4\xff\xff\xff", 0, fail(4)},
	{"F14 F1 C1 80 F5", "\xf1\xc1\x80\xf5", 0, fail(4)},

	// F15: F5..FF.
	{"F15 F5 80 80 80", "\xf5\x80\x80\x80", 0, fail(1)},
	{"F15 F7 BF BF BF", "\xf7\xbf\xbf\xbf", 0, fail(1)},
	{"F15 F8", "\xf8\x88\x80\x80\x80", 0, fail(1)},
	{"F15 FE", "\xfe", 0, fail(1)},
	{"F15 FF 41", "\xffA", 0, fail(1)},
}

func TestNextChar(t *testing.T) {
	for _, tt := range nextCharTests {
		in := []byte(tt.in)
		assert.Equal(t, tt.want, oracle.NextChar(in, tt.pos), "%s: NextChar(%q, %d)", tt.name, tt.in, tt.pos)
		assert.Equal(t, tt.in, string(in), "%s: NextChar modified its input", tt.name)
	}
}

// compactStep is the "equivalent compact rule" of spec §2.2, written independently of the
// decision tree, with unicode/utf8 deciding validity of a complete sequence.
func compactStep(s []byte) jsonopt.Step {
	if len(s) == 0 {
		return fail(1)
	}
	lead := func(c byte) bool { return c < 0x80 || (c >= 0xC2 && c <= 0xF4) }
	trail := func(c byte) bool { return c >= 0x80 && c <= 0xBF }
	c := s[0]
	var n int
	switch {
	case c < 0x80:
		return ok(uint32(c), 1)
	case c >= 0xC2 && c <= 0xDF:
		n = 2
	case c >= 0xE0 && c <= 0xEF:
		n = 3
	case c >= 0xF0 && c <= 0xF4:
		n = 4
	default:
		return fail(1)
	}
	complete := len(s) >= n
	for i := 1; complete && i < n; i++ {
		complete = trail(s[i])
	}
	if complete {
		r, size := utf8.DecodeRune(s[:n])
		if (r == utf8.RuneError && string(s[:n]) != "\uFFFD") || size != n {
			return fail(n)
		}
		return ok(uint32(r), n)
	}
	for i := 1; i < n; i++ {
		if i >= len(s) || lead(s[i]) {
			return fail(i)
		}
	}
	return fail(n)
}

// TestNextCharCompactRule compares NextChar with the compact rule of §2.2 on every string of
// length 0–3, and on every 4-byte string whose last three bytes come from a class alphabet.
func TestNextCharCompactRule(t *testing.T) {
	check := func(s []byte) bool {
		got, want := oracle.NextChar(s, 0), compactStep(s)
		if got != want {
			t.Errorf("NextChar(%q, 0) = %v; want %v (compact rule)", s, got, want)
			return false
		}
		return true
	}
	var b [4]byte
	fails := 0
	check(b[:0])
	for x := 0; x < 1<<24 && fails < 10; x++ {
		b[0], b[1], b[2] = byte(x>>16), byte(x>>8), byte(x)
		if !check(b[:3]) {
			fails++
		}
		if x&0xFFFF == 0 && !check(b[:1]) {
			fails++
		}
		if x&0xFF == 0 && !check(b[:2]) {
			fails++
		}
	}
	classes := []byte{0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2,
		0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF}
	for c0 := 0; c0 < 256 && fails < 10; c0++ {
		for _, c1 := range classes {
			for _, c2 := range classes {
				for _, c3 := range classes {
					b = [4]byte{byte(c0), c1, c2, c3}
					if !check(b[:]) {
						fails++
					}
				}
			}
		}
	}
}

// TestNextCharAcceptance checks that a string of length 1–3 is accepted as one whole step exactly
// when unicode/utf8 says it is one valid rune (spec §2.2: accepted set = RFC 3629).
func TestNextCharAcceptance(t *testing.T) {
	for n := 1; n <= 3; n++ {
		b := make([]byte, n)
		for x := 0; x < 1<<(8*n); x++ {
			for i := range b {
				b[i] = byte(x >> (8 * i))
			}
			st := oracle.NextChar(b, 0)
			whole := st.OK && st.Advance == n
			r, size := utf8.DecodeRune(b)
			valid := size == n && (r != utf8.RuneError || string(b) == "\uFFFD")
			if whole != valid || (whole && st.CP != uint32(r)) {
				t.Fatalf("NextChar(%q, 0) = %v; utf8.DecodeRune = %U, %d", b, st, r, size)
			}
		}
	}
}

// TestNextCharInvariants checks on every string of length 1–2 that a failure has CP 0 and that
// the advance is between 1 and the bytes available (spec §2.1, §2.2).
func TestNextCharInvariants(t *testing.T) {
	var b [2]byte
	for x := 0; x < 1<<16; x++ {
		b[0], b[1] = byte(x>>8), byte(x)
		for n := 1; n <= 2; n++ {
			st := oracle.NextChar(b[:n], 0)
			if (!st.OK && st.CP != 0) || st.Advance < 1 || st.Advance > n {
				t.Fatalf("NextChar(%q, 0) = %#v", b[:n], st)
			}
		}
	}
}

// TestEscapeASCII checks §1.3 for every ASCII byte under the flag sets that matter.
func TestEscapeASCII(t *testing.T) {
	all := jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot | jsonopt.UnescapedSlashes
	for _, opts := range []jsonopt.Options{0, jsonopt.HexTag, jsonopt.HexAmp, jsonopt.HexApos,
		jsonopt.HexQuot, jsonopt.UnescapedSlashes, all, all | jsonopt.UnescapedUnicode} {
		for c := 0; c < 0x80; c++ {
			var want string
			switch {
			case c == 0x08:
				want = `\b`
			case c == 0x09:
				want = `\t`
			case c == 0x0A:
				want = `\n`
			case c == 0x0C:
				want = `\f`
			case c == 0x0D:
				want = `\r`
			case c < 0x20:
				want = fmt.Sprintf(`\u%04x`, c)
			case c == '"' && opts&jsonopt.HexQuot != 0:
				want = `\u0022`
			case c == '"':
				want = `\"`
			case c == '\\':
				want = `\\`
			case c == '/' && opts&jsonopt.UnescapedSlashes == 0:
				want = `\/`
			case c == '<' && opts&jsonopt.HexTag != 0:
				want = `\u003C`
			case c == '>' && opts&jsonopt.HexTag != 0:
				want = `\u003E`
			case c == '&' && opts&jsonopt.HexAmp != 0:
				want = `\u0026`
			case c == '\'' && opts&jsonopt.HexApos != 0:
				want = `\u0027`
			default:
				want = string(rune(c))
			}
			want = `"` + want + `"`
			in := []byte{byte(c)}
			got, err := oracle.Escape(nil, in, opts)
			assert.Equal(t, want, string(got), "Escape(%q, %s)", in, opts.Short())
			assert.NoError(t, err, "Escape(%q, %s)", in, opts.Short())
		}
	}
}

// TestEscapeLineTerminators checks the table of §1.4.
func TestEscapeLineTerminators(t *testing.T) {
	uu, ult := jsonopt.UnescapedUnicode, jsonopt.UnescapedLineTerminators
	for _, tt := range []struct {
		in   string
		opts jsonopt.Options
		want string
	}{
		{"\u2028", 0, `"\u2028"`},
		{"\u2028", uu, `"\u2028"`},
		{"\u2028", ult, `"\u2028"`},
		{"\u2028", uu | ult, "\"\u2028\""},
		{"\u2029", 0, `"\u2029"`},
		{"\u2029", uu, `"\u2029"`},
		{"\u2029", ult, `"\u2029"`},
		{"\u2029", uu | ult, "\"\u2029\""},
		{"\u2027", 0, `"\u2027"`},
		{"\u2027", uu, "\"\u2027\""},
		{"\u2027", ult, `"\u2027"`},
		{"\u2027", uu | ult, "\"\u2027\""},
		{"\u202a", 0, `"\u202a"`},
		{"\u202a", uu, "\"\u202a\""},
		{"\u202a", ult, `"\u202a"`},
		{"\u202a", uu | ult, "\"\u202a\""},
	} {
		got, err := oracle.Escape(nil, []byte(tt.in), tt.opts)
		assert.Equal(t, tt.want, string(got), "Escape(%q, %s)", tt.in, tt.opts.Short())
		assert.NoError(t, err, "Escape(%q, %s)", tt.in, tt.opts.Short())
	}
}

// TestEscapeMore covers rules of §1.2–§1.5 beyond the facts: mixed strings, rollback of a
// valid prefix, substitution in the middle, surrogate-pair arithmetic.
func TestEscapeMore(t *testing.T) {
	sub, ign, uu, partial := jsonopt.InvalidUTF8Substitute, jsonopt.InvalidUTF8Ignore,
		jsonopt.UnescapedUnicode, jsonopt.PartialOutputOnError
	for _, tt := range []struct {
		in      string
		opts    jsonopt.Options
		want    string
		wantErr error
	}{
		{"a/b\"c\\d\n\x00\x7f", 0, `"a\/b\"c\\d\n\u0000` + "\x7f\"", nil},
		{"\xd0\xbf\xd1\x80\xd0\xb8", 0, `"\u043f\u0440\u0438"`, nil},
		{"\xf0\x9d\x84\x80", 0, `"\ud834\udd00"`, nil},
		{"\xf3\xbf\xbf\xbd", 0, `"\udbbf\udffd"`, nil},
		{"\xe6\x97\xa5\xef\xbc\x95", 0, `"\u65e5\uff15"`, nil},
		{"\xe6\x97\xa5/", uu, "\"\xe6\x97\xa5\\/\"", nil},
		{"abc\xe2\x82\xacdef\x80", 0, "", jsonopt.ErrUTF8},
		{"abc\xe2\x82\xacdef\x80", partial, "null", jsonopt.ErrUTF8},
		{"abc\xe2\x82\xacdef\x80", partial | jsonopt.ThrowOnError, "null", jsonopt.ErrUTF8},
		{"abc\xe2\x82\xacdef\x80", jsonopt.ThrowOnError, "", jsonopt.ErrUTF8},
		{"\x80", uu, "", jsonopt.ErrUTF8},
		{"\x80", ign | partial, `""`, nil},
		{"\x80", ign | uu, `""`, nil},
		{"\x80", sub | ign | uu, `""`, nil},
		{"a\x80", sub, `"a\ufffd"`, nil},
		{"a\xf0\x80\x80A", sub, `"a\ufffdA"`, nil},
		{"a\xf0\x80\x80A", ign, `"aA"`, nil},
		{"a\xf0\x80\x80A", sub | uu, "\"a\xef\xbf\xbdA\"", nil},
		{"a\xb0b", sub | uu, "\"a\xef\xbf\xbdb\"", nil},
		{"\xe0\x80\xbe", ign, `""`, nil},
		{"\xe0y", ign, `"y"`, nil},
		{"\xc3y", ign, `"y"`, nil},
		{"<\x80>", sub | jsonopt.HexTag, `"\u003C\ufffd\u003E"`, nil},
	} {
		got, err := oracle.Escape(nil, []byte(tt.in), tt.opts)
		assert.Equal(t, tt.want, string(got), "Escape(%q, %s)", tt.in, tt.opts.Short())
		assertErr(t, tt.wantErr, err, "Escape(%q, %s)", tt.in, tt.opts.Short())
	}
}

// escapeInputs is a small mix of every byte class used by the property tests below.
var escapeInputs = []string{
	"", "a", "\x00", "\"", "\\", "/", "<>&'", "\x7f", "\xc3\xa9", "\xe2\x80\xa8", "\xf0\x9f\x98\x80",
	"\x80", "abc\xe0", "\xe0\x80A", "\xc3\xff", "\xf5\x80\x80\x80", "x\xed\xa0\x80y",
	"long clean string with an \xc3\xa9 and a / and \"quotes\" and \xf0\x9f\x98\x80",
	" -1.5e3\t", "1e-7", "007", "\f\v   12.000e15  ", "1e999", // numbers under NUMERIC_CHECK
}

// interestingOptions returns every option set of the exhaustive spaces (jsonopt.Combo).
func interestingOptions() []jsonopt.Options {
	out := make([]jsonopt.Options, jsonopt.NumStringCombos)
	for i := range out {
		out[i] = jsonopt.Combo(i)
	}
	return out
}

// TestEscapePrefixAndSpareCapacity checks that Escape appends after a non-empty dst, leaves
// dst[:len(dst)] intact, never writes into spare capacity past the returned length (on error
// too), and does not modify src.
func TestEscapePrefixAndSpareCapacity(t *testing.T) {
	const prefix = "prefix:"
	for _, in := range escapeInputs {
		for _, opts := range interestingOptions() {
			want, wantErr := oracle.Escape(nil, []byte(in), opts)

			buf := make([]byte, 256)
			for i := range buf {
				buf[i] = 0xA5 // canary
			}
			copy(buf, prefix)
			dst := buf[:len(prefix)]
			src := []byte(in)
			got, err := oracle.Escape(dst, src, opts)
			if err != wantErr || string(got) != prefix+string(want) { // gate: 18k runs
				assert.Equal(t, prefix+string(want), string(got), "Escape(%q+, %q, %s)", prefix, in, opts.Short())
				assertErr(t, wantErr, err, "Escape(%q+, %q, %s)", prefix, in, opts.Short())
			}
			if string(buf[:len(prefix)]) != prefix {
				t.Errorf("Escape(%q, %s) modified the dst prefix: %q", in, opts.Short(), buf[:len(prefix)])
			}
			if len(got) <= len(buf) && &got[:1][0] == &buf[0] {
				for i := len(got); i < len(buf); i++ {
					if buf[i] != 0xA5 {
						t.Errorf("Escape(%q, %s) wrote %#x at %d, past the returned length %d", in, opts.Short(), buf[i], i, len(got))
						break
					}
				}
			}
			if string(src) != in {
				t.Errorf("Escape(%q, %s) modified src to %q", in, opts.Short(), src)
			}
		}
	}
}

// TestEscapeIgnoredOptions checks that options without effect on a string (§1.8), and bits PHP
// does not define, change nothing; nor does PRESERVE_ZERO_FRACTION without NUMERIC_CHECK.
func TestEscapeIgnoredOptions(t *testing.T) {
	for _, in := range escapeInputs {
		for _, opts := range interestingOptions() {
			ignored := jsonopt.PrettyPrint | jsonopt.ForceObject | jsonopt.ThrowOnError | 1<<12 | 1<<19 | 1<<23 | 1<<31
			if opts&jsonopt.NumericCheck == 0 {
				ignored |= jsonopt.PreserveZeroFraction
			}
			want, wantErr := oracle.Escape(nil, []byte(in), opts)
			got, err := oracle.Escape(nil, []byte(in), opts|ignored)
			if err != wantErr || !bytes.Equal(got, want) { // gate: 18k runs
				assert.Equal(t, string(want), string(got), "Escape(%q, %s) (as without the ignored bits)", in, (opts | ignored).Short())
				assertErr(t, wantErr, err, "Escape(%q, %s) (as without the ignored bits)", in, (opts | ignored).Short())
			}
		}
	}
}

// TestEscapeNumericCheck checks the facts of spec §1.7 (spectest.Numeric, each verified on PHP
// 8.2), appended after a prefix that stays intact, and what EscapeTrace says was read: nothing
// for "" (§1.2 step 1 comes first), NUMERIC_CHECK alone for an integer, PRESERVE_ZERO_FRACTION
// too for a double, and the string options for a string that is not a number.
func TestEscapeNumericCheck(t *testing.T) {
	for _, f := range spectest.Numeric {
		dst := append(make([]byte, 0, 64), "keep"...)
		got, err := oracle.Escape(dst, f.In, f.Flags)
		require.NoError(t, err, "%s", f.ID)
		assert.Equal(t, "keep"+string(f.Want), string(got), "%s: Escape(%q, %s) (%s)", f.ID, f.In, f.Flags.Short(), f.Note)
		// The same with every other string option set: a number ignores them all.
		if f.Want[0] != '"' {
			got, err = oracle.Escape(nil, f.In, f.Flags|jsonopt.StringOptions)
			assert.Equal(t, string(f.Want), string(got), "%s under every string option", f.ID)
			assert.NoError(t, err)
		}
	}
	for _, tc := range []struct {
		in     string
		tested jsonopt.Options
	}{
		{"", 0},
		{"12", jsonopt.NumericCheck},
		{"1.5", jsonopt.NumericCheck | jsonopt.PreserveZeroFraction},
		{"1e999", jsonopt.NumericCheck}, // Inf: a string with nothing to escape
		{"1/", jsonopt.NumericCheck | jsonopt.UnescapedSlashes},
	} {
		_, tested, err := oracle.EscapeTrace(nil, []byte(tc.in), jsonopt.NumericCheck)
		assert.NoError(t, err)
		assert.Equal(t, tc.tested, tested, "EscapeTrace(%q, NUMERIC_CHECK) read %s", tc.in, tested.Short())
	}
}

func TestUTF8DecodePrefix(t *testing.T) {
	for _, in := range escapeInputs {
		want := oracle.UTF8Decode(nil, []byte(in))
		assert.LessOrEqual(t, len(want), len(in), "UTF8Decode(%q) = %q: longer than its input", in, want)
		src := []byte(in)
		got := oracle.UTF8Decode([]byte("pre"), src)
		assert.Equal(t, "pre"+string(want), string(got), "UTF8Decode(\"pre\", %q)", in)
		assert.Equal(t, in, string(src), "UTF8Decode(\"pre\", %q) modified src", in)
	}
}

// TestUTF8DecodeSegmentation checks the invariant of §3.1 on every string of length 1–2: one
// output byte per decoder step, '?' exactly where SUBSTITUTE would emit U+FFFD or cp > 0xFF.
func TestUTF8DecodeSegmentation(t *testing.T) {
	var b [2]byte
	for x := 0; x < 1<<16; x++ {
		b[0], b[1] = byte(x>>8), byte(x)
		for n := 1; n <= 2; n++ {
			var want []byte
			for pos := 0; pos < n; {
				st := oracle.NextChar(b[:n], pos)
				if st.OK && st.CP <= 0xFF {
					want = append(want, byte(st.CP))
				} else {
					want = append(want, '?')
				}
				pos += st.Advance
			}
			if got := oracle.UTF8Decode(nil, b[:n]); !bytes.Equal(got, want) {
				t.Fatalf("UTF8Decode(%q) = %q; want %q", b[:n], got, want)
			}
		}
	}
}

// TestNoAllocs checks that nothing allocates when dst has room, errors included.
func TestNoAllocs(t *testing.T) {
	dst := make([]byte, 0, 1024)
	src := []byte("a\"/\x00\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80\x80\xe0\x80A")
	allocs := testing.AllocsPerRun(100, func() {
		for _, opts := range []jsonopt.Options{0, jsonopt.PartialOutputOnError, jsonopt.InvalidUTF8Substitute,
			jsonopt.InvalidUTF8Ignore | jsonopt.UnescapedUnicode, jsonopt.NumericCheck} {
			_, _ = oracle.Escape(dst, src, opts)
		}
		for _, num := range []string{"-12", " 1.5e-7 ", "9223372036854775808", "1e-999"} { // not 1e999: strconv's error allocates
			_, _ = oracle.Escape(dst, []byte(num), jsonopt.NumericCheck|jsonopt.PreserveZeroFraction)
		}
		_ = oracle.UTF8Decode(dst, src)
		_ = oracle.NextChar(src, 4)
	})
	if allocs != 0 {
		t.Errorf("Escape/UTF8Decode/NextChar allocated %v times per run; want 0", allocs)
	}
}

func ExampleEscape() {
	out, err := oracle.Escape(nil, []byte("<a href=\"/\">\xc3\xa9\xf0\x9f\x98\x80</a>"), jsonopt.HexTag)
	fmt.Println(string(out), err)

	// E0 80 is one bad sequence (the 41 after it is a lead, spec §2.2), replaced once.
	out, err = oracle.Escape(nil, []byte("\xe0\x80A"), jsonopt.InvalidUTF8Substitute)
	fmt.Println(string(out), err)

	out, err = oracle.Escape([]byte("["), []byte("abc\xe0"), jsonopt.PartialOutputOnError)
	fmt.Println(string(out), jsonopt.ErrorCode(err))

	out, err = oracle.Escape(nil, []byte("abc\xe0"), 0)
	fmt.Printf("%q %d\n", out, jsonopt.ErrorCode(err))
	// Output:
	// "\u003Ca href=\"\/\"\u003E\u00e9\ud83d\ude00\u003C\/a\u003E" <nil>
	// "\ufffdA" <nil>
	// [null 5
	// "" 5
}

func ExampleNextChar() {
	s := []byte("A\xe0\x80A\xc3\xa9")
	for pos := 0; pos < len(s); {
		st := oracle.NextChar(s, pos)
		fmt.Print(st, " ")
		pos += st.Advance
	}
	fmt.Println()
	// Output: 41/1 !/2 41/1 e9/2
}

func ExampleUTF8Decode() {
	fmt.Printf("%q\n", oracle.UTF8Decode(nil, []byte("A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xe2\xc0\x80B")))
	// Output: "A\xe9???B"
}

// TestEscapeTrace checks EscapeTrace's promise, on which package fuzz's exhaustive escape
// space relies: every option set that agrees with opts on the tested bits gets the same bytes
// and error. It replays that space's reuse for each string: option sets in index order, the
// first of a class traced and its answer given to every set agreeing on the tested bits; each
// of the 2,048 answers is checked against a direct Escape. All 1- and 2-byte strings, and
// random strings of 3–12 bytes from a class alphabet. It also shows that the trace is not
// trivially every bit (then the promise would hold vacuously and save nothing).
func TestEscapeTrace(t *testing.T) {
	// Every 1-byte string and every 7th 2-byte one (a prime stride meets every lead and every
	// second byte), with the 2,000 random strings; in the long tier (internal/testlevel)
	// every 1–2-byte string.
	stride := 7
	if testlevel.Long() {
		stride = 1
	}
	strs, classes, err := replayTrace(oracle.EscapeTrace, stride)
	if err != nil {
		t.Fatal(err)
	}
	// "abc" tests no string option but NUMERIC_CHECK: two answers (the same twice) for 2,048 sets.
	if _, tested, _ := oracle.EscapeTrace(nil, []byte("abc"), 0); tested&jsonopt.StringOptions != jsonopt.NumericCheck {
		t.Errorf(`"abc" tested %v, want NUMERIC_CHECK alone`, tested)
	}
	t.Logf("%d strings × 2,048 option sets: %d traced classes (%.1f a string)", strs, classes, float64(classes)/float64(strs))

	// A trace that forgets one bit it tested must be caught.
	for _, bit := range []jsonopt.Options{jsonopt.HexTag, jsonopt.UnescapedUnicode, jsonopt.InvalidUTF8Ignore, jsonopt.PartialOutputOnError,
		jsonopt.NumericCheck, jsonopt.PreserveZeroFraction} {
		forgetful := func(dst, src []byte, o jsonopt.Options) ([]byte, jsonopt.Options, error) {
			out, tested, err := oracle.EscapeTrace(dst, src, o)
			return out, tested &^ bit, err
		}
		if _, _, err := replayTrace(forgetful, stride); err == nil {
			t.Errorf("a trace without %v was not caught", bit)
		}
	}
}

// replayTrace replays the exhaustive escape space's reuse of trace's answers (see
// TestEscapeTrace) and returns the number of strings, of traced classes, and the first
// answer that differs from a direct oracle.Escape.
func replayTrace(trace func(dst, src []byte, o jsonopt.Options) ([]byte, jsonopt.Options, error), stride int) (strs, classes int, err error) {
	var class [jsonopt.NumStringCombos]int16
	var outs [][]byte
	var errs []error
	check := func(src []byte) error {
		clear(class[:])
		outs, errs = outs[:0], errs[:0]
		for i := 0; i < jsonopt.NumStringCombos; i++ {
			o := jsonopt.Combo(i)
			if class[i] == 0 {
				want, tested, werr := trace(nil, src, o)
				outs, errs = append(outs, want), append(errs, werr)
				m := jsonopt.ComboIndex(tested)
				free := (jsonopt.NumStringCombos - 1) &^ m
				pz := tested&jsonopt.PreserveZeroFraction != 0 // the class keeps i's parity
				for s := 0; ; {
					if x := i&m | s; !pz || jsonopt.ComboParity(x) == jsonopt.ComboParity(i) {
						class[x] = int16(len(outs))
					}
					if s = (s - free) & free; s == 0 {
						break
					}
				}
			}
			k := class[i] - 1
			got, gerr := oracle.Escape(nil, src, o)
			if gerr != errs[k] || !bytes.Equal(got, outs[k]) {
				return fmt.Errorf("%x under %v gives %q %v, but its class answer is %q %v", src, o, got, gerr, outs[k], errs[k])
			}
		}
		classes += len(outs)
		strs++
		return nil
	}
	for v := 0; v < 1<<16+1<<8; v++ {
		src := []byte{byte(v >> 8), byte(v)}
		if v >= 1<<16 {
			src = src[1:]
		} else if v%stride != 0 {
			continue
		}
		if err := check(src); err != nil {
			return strs, classes, err
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	alpha := []byte("a\"\\/<>&'\x00\x1f\x7f\xc2\xc3\xa9\x80\xbf\xe2\x80\xa8\xa9\xed\xa0\xf0\x9f\x98\x80\xf4\x90\xff")
	for k := 0; k < 2000; k++ {
		src := make([]byte, 3+rng.IntN(10))
		for j := range src {
			src[j] = alpha[rng.IntN(len(alpha))]
		}
		if err := check(src); err != nil {
			return strs, classes, err
		}
	}
	return strs, classes, nil
}

// exitAdvance is the cursor advance every exit of spec §2.2 fixes, and whether it succeeds.
var exitAdvance = map[oracle.Exit]struct {
	adv int
	ok  bool
}{
	oracle.ExitEnd: {1, false}, oracle.ExitASCII: {1, true}, oracle.ExitF1: {1, false},
	oracle.ExitF2: {1, false}, oracle.ExitF3Lead: {1, false}, oracle.ExitF3: {2, false}, oracle.ExitF4: {2, false}, oracle.ExitOK2: {2, true},
	oracle.ExitF5: {3, false}, oracle.ExitF6: {3, false}, oracle.ExitOK3: {3, true}, oracle.ExitF7: {1, false}, oracle.ExitF8: {2, false}, oracle.ExitF9: {3, false},
	oracle.ExitF10Overlong: {4, false}, oracle.ExitF10Range: {4, false}, oracle.ExitOK4: {4, true},
	oracle.ExitF11: {1, false}, oracle.ExitF12: {2, false}, oracle.ExitF13: {3, false}, oracle.ExitF14: {4, false}, oracle.ExitF15: {1, false},
}

// TestNextCharExplain names the exit of one example per exit of the §2.2 table (F4 is
// unreachable), the §7 quirks among them, and checks over every 1–3-byte string and the 4-byte
// strings of a class alphabet that the step is NextChar's and that each exit's fixed advance and
// status hold.
func TestNextCharExplain(t *testing.T) {
	tests := []struct {
		in   string
		pos  int
		want oracle.Exit
	}{
		{"", 0, oracle.ExitEnd},
		{"A", 0, oracle.ExitASCII},
		{"\x80", 0, oracle.ExitF1},
		{"\xc0\xaf", 0, oracle.ExitF1},
		{"\xc3", 0, oracle.ExitF2},
		{"\xc3A", 0, oracle.ExitF3Lead},
		{"\xc3\xc3\xa9", 0, oracle.ExitF3Lead},
		{"\xc3\xff", 0, oracle.ExitF3},
		{"\xc3\xa9", 0, oracle.ExitOK2},
		{"\xe0\x80\x80", 0, oracle.ExitF5},
		{"\xed\xa0\x80", 0, oracle.ExitF6},
		{"\xe2\x82\xac", 0, oracle.ExitOK3},
		{"\xe2", 0, oracle.ExitF7},
		{"\xe0\x41", 0, oracle.ExitF7},
		{"\xe0\x80\x41", 0, oracle.ExitF8},
		{"\xe2\x82", 0, oracle.ExitF8},
		{"\xe2\xc0\x80", 0, oracle.ExitF9},
		{"\xe2\x82\xff", 0, oracle.ExitF9},
		{"\xf0\x80\x80\x80", 0, oracle.ExitF10Overlong},
		{"\xf4\x90\x80\x80", 0, oracle.ExitF10Range},
		{"\xf0\x9f\x98\x80", 0, oracle.ExitOK4},
		{"\xf0A", 0, oracle.ExitF11},
		{"\xf0\x9fA", 0, oracle.ExitF12},
		{"\xf0\x9f\x98", 0, oracle.ExitF13},
		{"\xf0\x9f\xc0\x80", 0, oracle.ExitF14},
		{"\xf5\x80\x80\x80", 0, oracle.ExitF15},
		{"A\xe0\x80\x41", 1, oracle.ExitF8},
	}
	for _, tc := range tests {
		st, e := oracle.NextCharExplain([]byte(tc.in), tc.pos)
		assert.Equal(t, tc.want, e, "NextCharExplain(%q, %d) exit (%s)", tc.in, tc.pos, e.Spec())
		assert.Equal(t, oracle.NextChar([]byte(tc.in), tc.pos), st, "NextCharExplain(%q, %d) step", tc.in, tc.pos)
	}
	seen := map[oracle.Exit]int{}
	check := func(s []byte) bool {
		for pos := 0; pos < len(s); {
			st, e := oracle.NextCharExplain(s, pos)
			want, fixed := exitAdvance[e]
			if st != oracle.NextChar(s, pos) || !fixed || st.Advance != want.adv || st.OK != want.ok {
				t.Errorf("NextCharExplain(% x, %d) = %v, %v (%s); NextChar %v", s, pos, st, e, e.Spec(), oracle.NextChar(s, pos))
				return false
			}
			seen[e]++
			pos += st.Advance
		}
		return true
	}
	for v := 0; v < 1<<24; v++ {
		s := []byte{byte(v >> 16), byte(v >> 8), byte(v)}
		if !check(s) || !check(s[1:]) && v < 1<<16 || !check(s[2:]) && v < 1<<8 {
			return
		}
	}
	alpha := []byte{0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xef, 0xf0, 0xf1, 0xf4, 0xf5, 0xff}
	for _, a := range alpha {
		for _, b := range alpha {
			for _, c := range alpha {
				for _, d := range alpha {
					if !check([]byte{a, b, c, d}) {
						return
					}
				}
			}
		}
	}
	for e := range exitAdvance {
		if e != oracle.ExitF4 && e != oracle.ExitEnd && seen[e] == 0 {
			t.Errorf("exit %s (%s) never seen", e, e.Spec())
		}
	}
	require.Zero(t, seen[oracle.ExitF4], "F4 is unreachable")
}

// TestEscapeExplain checks EscapeExplain over every 1- and 2-byte string under all 2,048 option
// sets in the long tier (internal/testlevel; by default every 7th, with -short every 31st): the bytes and error are Escape's; without an error the spans tile the input and the
// output in order, each output span being what the oracle writes for its input bytes alone (a
// quote, a decoder step or an ASCII byte); with one, there is one span, on the first failing
// step, with RuleFalse (nothing appended) or RulePartialNull (null).
func TestEscapeExplain(t *testing.T) {
	var piece []byte
	check := func(src []byte, o jsonopt.Options) bool {
		want, werr := oracle.Escape([]byte("prefix"), src, o)
		got, spans, err := oracle.EscapeExplain([]byte("prefix"), src, o)
		if err != werr || !bytes.Equal(got, want) {
			t.Errorf("EscapeExplain(% x, %v) = %q, %v; Escape gives %q, %v", src, o, got, err, want, werr)
			return false
		}
		out := got[len("prefix"):]
		if werr != nil {
			r := oracle.RuleFalse
			if len(out) > 0 {
				r = oracle.RulePartialNull
			}
			if len(spans) != 1 || spans[0].Rule != r || spans[0].Out != 0 || spans[0].OutEnd != len(out) ||
				exitAdvance[spans[0].Exit].ok || spans[0].InEnd-spans[0].In != exitAdvance[spans[0].Exit].adv {
				t.Errorf("EscapeExplain(% x, %v): error spans %+v", src, o, spans)
				return false
			}
			return true
		}
		in, at := 0, 0
		for i, sp := range spans {
			if sp.In != in || sp.Out != at || sp.InEnd < sp.In || sp.OutEnd < sp.Out {
				t.Errorf("EscapeExplain(% x, %v): span %d %+v does not follow input %d, output %d", src, o, i, sp, in, at)
				return false
			}
			switch sp.Rule {
			case oracle.RuleOpenQuote, oracle.RuleCloseQuote, oracle.RuleEmpty:
				piece = append(piece[:0], `""`[:sp.OutEnd-sp.Out]...)
			case oracle.RuleNumber: // the whole input, the whole answer
				piece, _ = oracle.Escape(piece[:0], src[sp.In:sp.InEnd], o)
			default: // a piece of a string: escaped as a string ("1" alone would be a number)
				piece, _ = oracle.Escape(piece[:0], src[sp.In:sp.InEnd], o&^jsonopt.NumericCheck)
				piece = piece[1 : len(piece)-1]
			}
			step := sp.InEnd > sp.In && src[sp.In] >= 0x80 // a decoder step has an exit, nothing else does
			if string(out[sp.Out:sp.OutEnd]) != string(piece) || (sp.Exit != oracle.ExitNone) != step {
				t.Errorf("EscapeExplain(% x, %v): span %d %+v (%s) holds %q; its input alone gives %q", src, o, i, sp, sp.Rule, out[sp.Out:sp.OutEnd], piece)
				return false
			}
			in, at = sp.InEnd, sp.OutEnd
		}
		if in != len(src) || at != len(out) {
			t.Errorf("EscapeExplain(% x, %v): spans end at input %d, output %d of %d, %d", src, o, in, at, len(src), len(out))
			return false
		}
		return true
	}
	stride := 7 // 293 option sets
	switch {
	case testing.Short():
		stride = 31 // 67 option sets
	case testlevel.Long():
		stride = 1
	}
	for i := 0; i < jsonopt.NumStringCombos; i += stride {
		o := jsonopt.Combo(i)
		if !check(nil, o) {
			return
		}
		for v := 0; v < 1<<16+1<<8; v++ {
			src := []byte{byte(v >> 8), byte(v)}
			if v >= 1<<16 {
				src = src[1:]
			}
			if !check(src, o) {
				return
			}
		}
	}
}

// TestEscapeExplainRules names the rule of every span in a few answers that use each rule once.
func TestEscapeExplainRules(t *testing.T) {
	rules := func(src string, o jsonopt.Options) []string {
		_, spans, _ := oracle.EscapeExplain(nil, []byte(src), o)
		var out []string
		for _, sp := range spans {
			s := sp.Rule.String()
			if sp.Exit != oracle.ExitNone {
				s += "/" + sp.Exit.String()
			}
			out = append(out, s)
		}
		return out
	}
	tests := []struct {
		in   string
		opts jsonopt.Options
		want []string
	}{
		{"", 0, []string{"1.2-empty"}},
		{"a\b\x01\"\\/<&'", 0, []string{"1.2-open-quote", "1.3-clean", "1.3-short-escape", "1.3-control", "1.3-quote", "1.3-backslash",
			"1.3-slash", "1.3-hex-off", "1.3-hex-off", "1.3-hex-off", "1.2-close-quote"}},
		{"\"/<>&'", jsonopt.HexQuot | jsonopt.UnescapedSlashes | jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos,
			[]string{"1.2-open-quote", "1.3-quote-hex", "1.3-slash-raw", "1.3-tag-hex", "1.3-tag-hex", "1.3-amp-hex", "1.3-apos-hex", "1.2-close-quote"}},
		{"\xc3\xa9\xf0\x9f\x98\x80\xe2\x80\xa8", 0, []string{"1.2-open-quote", "1.4-unicode/ok2", "1.4-surrogate-pair/ok4", "1.4-unicode/ok3", "1.2-close-quote"}},
		{"\xc3\xa9\xe2\x80\xa8", jsonopt.UnescapedUnicode, []string{"1.2-open-quote", "1.4-unescaped-unicode/ok2", "1.4-line-terminator/ok3", "1.2-close-quote"}},
		{"\xe2\x80\xa8", jsonopt.UnescapedUnicode | jsonopt.UnescapedLineTerminators, []string{"1.2-open-quote", "1.4-unescaped-unicode/ok3", "1.2-close-quote"}},
		{"\xe0\x80\x41", jsonopt.InvalidUTF8Substitute, []string{"1.2-open-quote", "1.5-substitute/F8", "1.3-clean", "1.2-close-quote"}},
		{"\xed\xa0\x80", jsonopt.InvalidUTF8Substitute | jsonopt.UnescapedUnicode, []string{"1.2-open-quote", "1.5-substitute-raw/F6", "1.2-close-quote"}},
		{"a\xc0", jsonopt.InvalidUTF8Ignore | jsonopt.InvalidUTF8Substitute, []string{"1.2-open-quote", "1.3-clean", "1.5-ignore/F1", "1.2-close-quote"}},
		{"ab\xf4\x90\x80\x80\x80", 0, []string{"1.5-false/F10-range"}},
		{"ab\xf0\x80\x80\x80", jsonopt.PartialOutputOnError, []string{"1.5-partial-null/F10-overlong"}},
		{"x", jsonopt.NumericCheck, []string{"1.2-open-quote", "1.3-clean", "1.2-close-quote"}},
		{" -1.5e3 ", jsonopt.NumericCheck, []string{"1.7-number"}},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, rules(tc.in, tc.opts), "EscapeExplain(%q, %v)", tc.in, tc.opts)
	}
	for r := oracle.RuleNone; r.String() != fmt.Sprintf("Rule(%d)", uint8(r)); r++ {
		assert.NotEmpty(t, r.Spec(), "rule %d", r)
		assert.NotContains(t, r.String(), " ", "rule ids are single words")
	}
}

// TestUTF8DecodeExplain checks UTF8DecodeExplain against UTF8Decode over every 1- and 2-byte
// string and names its three rules.
func TestUTF8DecodeExplain(t *testing.T) {
	for v := 0; v < 1<<16+1<<8; v++ {
		src := []byte{byte(v >> 8), byte(v)}
		if v >= 1<<16 {
			src = src[1:]
		}
		got, spans := oracle.UTF8DecodeExplain([]byte("p"), src)
		if want := oracle.UTF8Decode([]byte("p"), src); !bytes.Equal(got, want) || len(spans) != len(got)-1 {
			t.Fatalf("UTF8DecodeExplain(% x) = %q, %d spans; UTF8Decode %q", src, got, len(spans), want)
		}
	}
	_, spans := oracle.UTF8DecodeExplain(nil, []byte("\xc3\xa9\xe2\x82\xac\x80"))
	require.Len(t, spans, 3)
	assert.Equal(t, []oracle.Rule{oracle.RuleLatin1, oracle.RuleWide, oracle.RuleQuestion}, []oracle.Rule{spans[0].Rule, spans[1].Rule, spans[2].Rule})
	assert.Equal(t, oracle.Span{In: 2, InEnd: 5, Out: 1, OutEnd: 2, Rule: oracle.RuleWide, Exit: oracle.ExitOK3}, spans[1])
}
