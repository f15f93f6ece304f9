package deviation

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/jsonopt"
)

func keys(ds []Deviation) string {
	var k []string
	for _, d := range ds {
		if len(d.Alts) > 0 {
			k = append(k, d.Key()+" (or "+strings.Join(d.Alts, " or ")+")")
			continue
		}
		k = append(k, d.Key())
	}
	return strings.Join(k, " ; ")
}

func TestUTF8Decode(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in, got string
		want    string
	}{
		{"same", "a\xc3\xa9", "a\xe9", ""},
		{"substitute byte", "a\x80b", "a\x1ab", "substitute|1a|?"},
		{"substitute byte for wide and failed", "\xe2\x82\xac\x80", "\x1a\x1a", "substitute|1a|?"},
		{"split", "\xe1\x80", "??", "advance|split|bad-sequence"},
		// PHP's answer cut one byte short reads as its steps do, with the cut the other reading.
		{"merged, or cut", "\xc3\xc3", "?", "advance|merged|failed (or lost|last-byte|string or lost|tail|string)"},
		{"swallows, or cut", "\xe1a", "?", "advance|swallows|failed (or lost|last-byte|string or lost|tail|string)"},
		{"merged", "\xc3\xc3a", "?a", "advance|merged|failed"},
		{"swallows", "\xe1ab", "?b", "advance|swallows|failed"},
		{"the b dropped, or cut", "ab", "a", "substitute||ascii (or lost|last-byte|string or lost|tail|string)"},
		{"the € dropped, or cut", "a\x80\xc3\xa9\xe2\x82\xac", "a?\xe9", "substitute||valid (or lost|last-byte|string or lost|tail|string)"},
		{"overlong accepted", "\xc0\x80", "\x00", "accepted|bits|overlong"},
		{"lenient swallows", "\xc3a", "\xe1", "accepted|bits|bad-sequence"},
		// '?' for E1 61 61 decoded by its bits, or E1 swallowing "aa": the second is the other reading.
		// It is PHP's answer for E1 alone too: two steps lost at the end read as the input cut
		// after E1, with the steps' reading as the other.
		{"lenient swallows two", "\xe1aa", "?", "lost|tail|string (or accepted|bits|bad-sequence)"},
		{"overlong 3 accepted", "\xe0\x80\x80", "\x00", "accepted|bits|overlong"},
		{"wide raw", "\xe2\x82\xac", "\xe2\x82\xac", "raw-copy||?"},
		{"valid dropped", "a\xc2\xadb", "ab", "substitute||valid"},
		// PHP's answer for the first steps only: the input cut, whatever the steps lost were.
		{"stops after 2 bytes", "ab\xc3\xa9\x80c", "ab", "lost|tail|string"},
		{"stops after a failed step", "a\x80bc\xe2\x82\xac", "a?", "lost|tail|string (or advance|swallows|failed)"},
		{"lost", "a\xc3", "", "lost|empty|string"},
		{"surrogate decoded and written raw", "a\xed\xa0\x80", "a\xed\xa0\x80", "accepted|bits|surrogate ; raw-copy||?"},
		{"two faults", "a\x80b\xe2\x82\xac", "a\x1ab\xe2\x82\xac", "substitute|1a|? ; raw-copy||?"},
		{"substitute and merge", "\xc3\xc3a", "\x1aa", "substitute|1a|? ; advance|merged|failed"},
		{"stray trail as byte&0x7f", "a\x85b", "a\x05b", "substitute|low-7-bits|?"},
		// 9A & 0x7F is 0x1A: the constant SUB, with the masked byte as the other reading.
		{"stray 9A as 1A", "a\x9ab", "a\x1ab", "substitute|1a|? (or substitute|low-7-bits|?)"},
		// A lenient decoder takes C3 CE by its bits; the 80 it leaves is a stray byte of its
		// own, written 1A: two faults, though PHP never starts a step at the 80.
		{"decoded into a step, then 1A", "\xc3\xce\x80", "\xce\x1a", "accepted|bits|bad-sequence ; substitute|1a|?"},
		// A dropped default-ignorable character beside a code point written raw: two steps,
		// one written as nothing.
		{"ignorable dropped, wide raw", "\xef\xbb\xbf\xf1\x80\x80\x80", "\xf1\x80\x80\x80", "substitute||valid ; raw-copy||?"},
		// E2 82 C3 decoded by its bits ('?' above U+00FF, as PHP writes for the failure), then
		// the A9 left of C3 A9 written as A9 & 0x7F.
		{"decoded into a step, then byte&0x7F", "\xe2\x82\xc3\xa9", "?)", "accepted|bits|bad-sequence ; substitute|low-7-bits|?"},
		// F1 80 split in two, each written 0x1A, then U+0780 written raw: three faults.
		{"split, 1A and wide raw", "\xf1\x80\xde\x80", "\x1a\x1a\xde\x80", "substitute|1a|? ; advance|split|bad-sequence ; raw-copy||?"},
		// E1 C3 80 decoded by its bits (U+1040), written 0x1A as a code point above U+00FF.
		{"decoded, written 1A", "\xe1\xc3\x80a", "\x1aa", "accepted|bits|bad-sequence ; substitute|1a|?"},
		{"decoded raw into a step, then 1A", "\xd6\xc3\x80", "\xd6\xc3\x1a", "accepted|bits|bad-sequence ; raw-copy||? ; substitute|1a|?"},
	} {
		got := keys(UTF8Decode([]byte(tc.in), []byte(tc.got)))
		if got != tc.want {
			t.Errorf("%s: UTF8Decode(%q, %q) = %q, want %q", tc.name, tc.in, tc.got, got, tc.want)
		}
	}
}

// An answer cut one byte short is one deviation whatever it is: a string without its closing
// quote, the null of PARTIAL_OUTPUT_ON_ERROR as "nul" (with json_last_error()=5), a number.
func TestLastByte(t *testing.T) {
	assert.Equal(t, "lost|last-byte|string", keys(Escape([]byte("\x80"), jsonopt.PartialOutputOnError, []byte("nul"), 5, false)))
	assert.Equal(t, "lost|last-byte|string (or lost|tail|string)", keys(Escape([]byte("12"), jsonopt.NumericCheck, []byte("1"), 0, false)),
		"PHP's answer for 1 too")
	assert.Equal(t, "lost|last-byte|string", keys(Escape([]byte("a"), 0, []byte(`"a`), 0, false)))
	assert.Equal(t, "", keys(Escape([]byte("\x80"), 0, nil, 5, true)), "PHP's false is no deviation")
}

func TestEscape(t *testing.T) {
	const sub, uu, ign = jsonopt.InvalidUTF8Substitute, jsonopt.UnescapedUnicode, jsonopt.InvalidUTF8Ignore
	for _, tc := range []struct {
		name     string
		in       string
		opts     jsonopt.Options
		got      string
		gotFalse bool
		want     string
	}{
		{"same", "a/", 0, `"a\/"`, false, ""},
		{"slash raw", "a/b", 0, `"a/b"`, false, "raw-copy||1.3-slash"},
		{"upper hex", "\x01", 0, `"\u0001"`, false, ""},
		{"upper hex 2", "\xc3\xa9", 0, `"\u00E9"`, false, "escape-form|upper-hex|"},
		{"upper hex of fffd and a control", "\x80\x1f", sub, `"\uFFFD\u001F"`, false, "escape-form|upper-hex|"},
		{"non-ascii raw", "\xc2\xa0", 0, "\"\xc2\xa0\"", false, "escape-form|unescaped|"},
		// U+2028 raw is another fault under UNESCAPED_UNICODE (LINE_TERMINATORS ignored) than
		// without it (UNESCAPED_UNICODE assumed).
		{"line terminator raw", "a\xe2\x80\xa8", uu, "\"a\xe2\x80\xa8\"", false, "escape-form|unescaped-lt| (or escape-form|unescaped|)"},
		{"line terminator raw, no unescaped unicode", "a\xe2\x80\xa9", 0, "\"a\xe2\x80\xa9\"", false, "escape-form|unescaped|"},
		{"short for u", "\x0a", 0, `"\u000a"`, false, "escape-form|u-for-short|1.3-short-escape"},
		{"invalid raw where false", "\x80", 0, "\"\x80\"", false, "not-false|raw-copy|failed"},
		{"empty string where false", "\x80", 0, "", false, "not-false|empty|string"},
		{"invalid as fffd where false", "a\x80", 0, `"a\ufffd"`, false, "not-false|fffd|failed"},
		{"invalid as fffd, slash raw", "/\x80", 0, `"/\ufffd"`, false, "not-false|fffd|failed ; raw-copy||1.3-slash"},
		{"false for valid", "\xc3\xa9", 0, "", true, "rejected||valid"},
		{"false under ignore", "\x80", ign, "", true, "lost|false|failed"},
		{"substitute split", "\xe1\x80", sub, `"\ufffd\ufffd"`, false, "advance|split|bad-sequence"},
		// E2 DD BF decoded by its bits (U+277F) in upper-case hex, then a control byte raw:
		// three faults.
		{"decoded, upper hex, control raw", "\xe2\xdd\xbf\x18", sub, "\"\\u277F\x18\"", false, "accepted|bits|bad-sequence ; escape-form|upper-hex| ; raw-copy||1.3-control"},
		{"substitute as ?", "\xe1\x80", sub, `"?"`, false, "substitute|3f|\\ufffd"},
		{"overlong accepted", "\xc0\x80", sub, `"\u0000"`, false, "accepted|bits|overlong"},
		{"lenient swallows where false", "\xc3a", 0, `"\u00e1"`, false, "accepted|bits|bad-sequence"},
		{"ignore keeps raw", "a\x80", ign, "\"a\x80\"", false, "raw-copy||failed"},
		{"escapes under unescaped unicode", "\xc3\xa9", uu, `"\u00e9"`, false, "escape-form|escapes|valid"},
		{"overlong accepted where false", "a\xe0\x80\x80", 0, `"a\u0000"`, false, "accepted|bits|overlong"},
		{"surrogate accepted where false, slash raw", "/\xed\xa0\x80", 0, `"/\ud800"`, false, "accepted|bits|surrogate ; raw-copy||1.3-slash"},
		{"upper hex and no closing quote", "\xc2\x8a", 0, `"\u008A`, false, "escape-form|upper-hex| ; lost|last-byte|string"},
		{"raw control, fffd, no closing quote", "\x01\x80", sub, "\"\x01\\ufffd", false, "raw-copy||1.3-control ; lost|last-byte|string"},
		{"missing close quote", "ab", 0, `"ab`, false, "lost|last-byte|string"},
		{"raw control, no closing quote", "\x02\xd6", uu | ign, "\"\x02", false, "raw-copy||1.3-control ; lost|last-byte|string"},
		{"decoded, no closing quote", "\xd0\xff", sub, `"\u043f`, false, "accepted|bits|bad-sequence ; lost|last-byte|string"},
		// The first failed step written as U+FFFD and a later one decoded: two faults.
		// Two faults side by side, the added byte of the second ending the first's stretch: each
		// reads as what it does, in either order.
		{"upper hex, then slash escaped", "\xd8\x9c/", jsonopt.UnescapedSlashes, `"\u061C\/"`, false, "escape-form|upper-hex| ; escape-form|escapes|1.3-slash-raw"},
		{"slash escaped, then upper hex", "/\xd8\x9c", jsonopt.UnescapedSlashes, `"\/\u061C"`, false, "escape-form|escapes|1.3-slash-raw ; escape-form|upper-hex|"},
		{"fffd, then overlong decoded, where false", "\xa5ab\xf0\x87\xb4\xa9", uu, "\"\xef\xbf\xbdab\xf0\x87\xb4\xa9\"", false, "not-false|fffd|failed ; accepted|bits|overlong"},
	} {
		got := keys(Escape([]byte(tc.in), tc.opts, []byte(tc.got), map[bool]int{true: 5}[tc.gotFalse], tc.gotFalse))
		if got != tc.want {
			t.Errorf("%s: Escape(%q, %v, %q) = %q, want %q", tc.name, tc.in, tc.opts, tc.got, got, tc.want)
		}
	}
}

func TestStep(t *testing.T) {
	for _, tc := range []struct {
		in   string
		got  jsonopt.Step
		want string
	}{
		{"\xc0\x80", jsonopt.Step{CP: 0, Advance: 2, OK: true}, "accepted|bits|overlong"},
		{"\xc3a", jsonopt.Step{CP: 0xe1, Advance: 2, OK: true}, "accepted|bits|bad-sequence"},
		{"\xed\xa0\x80", jsonopt.Step{CP: 0xD800, Advance: 3, OK: true}, "accepted|bits|surrogate"},
		{"\xc3\xa9", jsonopt.Step{Advance: 1}, "rejected||valid"},
		{"\xe1\x80a", jsonopt.Step{Advance: 3}, "advance|swallows|failed"},
		{"\xc3\xa9", jsonopt.Step{CP: 0xE9, Advance: 2, OK: true}, ""},
	} {
		if got := keys(Step([]byte(tc.in), 0, tc.got)); got != tc.want {
			t.Errorf("Step(%q, %v) = %q, want %q", tc.in, tc.got, got, tc.want)
		}
	}
}

func TestTitle(t *testing.T) {
	d := UTF8Decode([]byte("a\x80b"), []byte("a\x1ab"))[0]
	if got := Title("utf8_decode", d, []string{"80..C1"}); got != "writes the byte 0x1A where PHP writes ? (80..C1)" {
		t.Errorf("Title = %q", got)
	}
	// A printable constant is quoted too, and U+FFFD written raw is said so (it was "writes
	// 5c 75 66 66 66 64 where PHP writes efbfbd").
	sub := Escape([]byte("\x80"), jsonopt.UnescapedUnicode|jsonopt.InvalidUTF8Substitute, []byte(`"\ufffd"`), 0, false)
	require.NotEmpty(t, sub)
	assert.Equal(t, `writes '\ufffd' (5c 75 66 66 66 64) where PHP writes U+FFFD raw (ef bf bd) (80..C1)`, Title("escape", sub[0], []string{"80..C1"}))
	// What the candidate was seen doing, not every row of the spec's family: the overlong
	// sequences of one lead row, one of U+2028 and U+2029.
	over := Deviation{What: Accepted, Detail: "bits", Family: "overlong"}
	assert.Contains(t, Title("decode", over, []string{"E0..EF"}), "an overlong sequence (§2.2: E0 80..9F xx) as")
	assert.Contains(t, Title("decode", over, []string{"E0..EF", "F0..F4"}), "(§2.2: E0 80..9F xx, F0 80..8F xx xx)")
	ds := Escape([]byte("\xe2\x80\xa9"), jsonopt.UnescapedUnicode, []byte("\"\xe2\x80\xa9\""), 0, false)
	require.Len(t, ds, 1)
	assert.Equal(t, "U+2029", ds[0].Row)
	assert.Equal(t, `writes U+2029 raw under JSON_UNESCAPED_UNICODE, where PHP writes \u2029 (as if JSON_UNESCAPED_LINE_TERMINATORS were set)`,
		Title("escape", ds[0], []string{ds[0].Row}))
	assert.Contains(t, Title("escape", ds[0], []string{"U+2028", "U+2029"}), "writes U+2028 and U+2029 raw")
	// A code point above U+00FF dropped by utf8_decode: PHP writes it as ?, which "where PHP
	// writes them" alone denied (a review read EF BB BF, PHP '?', under that title).
	drop := UTF8Decode([]byte("a\xef\xbb\xbfb"), []byte("ab"))
	require.Len(t, drop, 1)
	assert.Equal(t, "wide", drop[0].Row)
	assert.Equal(t, "drops valid code points (U+0100 and above in utf8_decode), where PHP writes them (those above U+00FF as ?)", Title("utf8_decode", drop[0], []string{drop[0].Row}))
	assert.Equal(t, "drops valid code points (C2..DF), where PHP writes them", Title("utf8_decode", drop[0], []string{"C2..DF"}))
}

// TestEmptyCut: an answer that is PHP's for the empty input, to an input PHP reads as one step,
// has the input cut short as its other reading (json_encode in error mode and under
// INVALID_UTF8_SUBSTITUTE, utf8_decode), and says what the candidate wrote ("nothing", not a
// substitute of no bytes); an input of two steps does not.
func TestEmptyCut(t *testing.T) {
	tail := Deviation{What: Lost, Detail: Tail, Family: "string"}.Key()
	for _, tc := range []struct {
		name, in string
		ds       []Deviation
		cut      bool
	}{
		{"escape, PHP false", "\xc3", Escape([]byte("\xc3"), 0, []byte(`""`), 0, false), true},
		{"escape SUBSTITUTE", "\xc3", Escape([]byte("\xc3"), jsonopt.InvalidUTF8Substitute, []byte(`""`), 0, false), true},
		{"utf8_decode", "\xc3", UTF8Decode([]byte("\xc3"), nil), true},
		{"escape, two steps", "\xc3\xc3", Escape([]byte("\xc3\xc3"), 0, []byte(`""`), 0, false), false},
	} {
		require.Len(t, tc.ds, 1, tc.name)
		assert.Equal(t, tc.cut, slices.Contains(tc.ds[0].Alts, tail), "%s: %+v", tc.name, tc.ds[0])
	}
	d := Escape([]byte("\xc3"), 0, []byte(`""`), 0, false)[0]
	assert.Equal(t, "has an answer for invalid UTF-8 (writes the first failed step as nothing, as INVALID_UTF8_IGNORE does), where PHP returns false (json_last_error()=5)",
		Title("escape", d, nil))
}

// TestFormTail: an answer that is PHP's for the input cut short up to the form of its
// characters reads as both faults, the form and the cut, not as one third thing ("writes
// '\uFFFD"' where PHP writes '\ufffd\ufffd"'").
func TestFormTail(t *testing.T) {
	ds := Escape([]byte("\x80\xc3"), jsonopt.InvalidUTF8Substitute, []byte(`"\uFFFD"`), 0, false)
	assert.Equal(t, "escape-form|upper-hex| ; lost|tail|string", keys(ds))
	require.Len(t, ds, 2)
	assert.Equal(t, 1, ds[1].In)
	assert.Equal(t, "last", ds[1].Row)
	// Cut elsewhere than at a step boundary: not a cut.
	assert.NotContains(t, keys(Escape([]byte("\x80\xc3"), jsonopt.InvalidUTF8Substitute, []byte(`"\uFFF"`), 0, false)), "tail")
}

// TestNeighbourFaultsApart: a control byte written in another language's escape (\v for 0B)
// beside another fault is two deviations, not one stretch; and beside a failed step PHP
// drops under INVALID_UTF8_IGNORE it is the \v alone, not "bytes other than PHP's where PHP
// writes nothing". The title names the bytes of an ASCII rule when few.
func TestNeighbourFaultsApart(t *testing.T) {
	ds := Escape([]byte("\x7f\x0b"), 0, []byte(`"\u007f\v"`), 0, false)
	assert.Equal(t, "escape-form|escapes|1.3-clean ; wrong|ascii|1.3-control", keys(ds))
	ds = Escape([]byte("\x0b\x80"), jsonopt.InvalidUTF8Ignore, []byte(`"\v"`), 0, false)
	assert.Equal(t, "wrong|ascii|1.3-control", keys(ds))
	require.Len(t, ds, 1)
	assert.Equal(t, `writes '\v' for the byte 0b (§1.3 rule 1.3-control), where PHP writes '\u000b'`, Title("escape", ds[0], []string{ds[0].Row}))
	d := Escape([]byte("\x7f"), 0, []byte(`"\u007f"`), 0, false)[0]
	assert.Equal(t, "escapes the bytes 1f, 7f (§1.3 rule 1.3-clean), where PHP writes them raw", Title("escape", d, []string{"1f", "7f"}))
	many := []string{"00", "01", "02", "03", "04"}
	assert.Equal(t, "escapes the §1.3 rule 1.3-clean, where PHP writes it raw", Title("escape", d, many))
}

// TestIgnoreSwallows: under INVALID_UTF8_IGNORE a step written as nothing right after a failed
// one PHP drops is that failure swallowing it (as the same fault reads under SUBSTITUTE), of
// any failure alike: not "drops ASCII bytes" or "drops valid code points", one defect per
// kind of character lost; so is the cascade of a decoder that resumes a byte late (the
// character it swallows into fails in turn), however the alignment places the bytes lost.
func TestIgnoreSwallows(t *testing.T) {
	for _, tc := range []struct{ in, got string }{
		{"x\x80ab", `"xb"`},
		{"x\xe0\x80\x80\xc3\xa9b", `"xb"`},
		{"\x80Ea", `"a"`},
		// The cascade of a decoder one byte late: the swallowed lead leaves its continuation
		// byte to fail, which swallows the next byte in turn; or one step late.
		{"\x80\xc3\x80aa", `"a"`},
		{"\xff\xf3\xad\xa7\xbaWdyqg", `"dyqg"`},
		{"\xc2\xf5\xc4\x83`[\r", `"[\r"`},
		// Repeated bytes let the alignment put the lost ones elsewhere (cascadeAround).
		{"\x80aaa\x80a\xc3\x80", `"aa\u00c0"`},
	} {
		ds := Escape([]byte(tc.in), jsonopt.InvalidUTF8Ignore, []byte(tc.got), 0, false)
		assert.True(t, strings.HasPrefix(keys(ds), "advance|swallows|failed (or "), "%q: %s", tc.in, keys(ds))
	}
	// A step dropped elsewhere stays a drop.
	assert.Equal(t, "substitute||ascii (or lost|tail|string)", keys(Escape([]byte("x\x80ab"), jsonopt.InvalidUTF8Ignore, []byte(`"xa"`), 0, false)))
}

// TestCascadeMarkers: a failure that resumes late, under SUBSTITUTE or in utf8_decode (a
// marker for each failure), is the same swallow as under IGNORE: the swallowed lead's
// continuation bytes fail on their own (F1 80 80 then C3 80 written as two \ufffd, not "fails
// on a valid multi-byte sequence"; utf8_decode's "???" for PHP's "??" not "splits one failed
// step"). A split that is not one stays a split. Failures merged, or swallowing, are one
// deviation whatever failed ("failed", not the family of the first).
func TestCascadeMarkers(t *testing.T) {
	sub := jsonopt.InvalidUTF8Substitute
	for _, tc := range []struct {
		in, got string
		decode  bool
	}{
		{"\xf1\x80\x80\xc3\x80", `"\ufffd\ufffd"`, false},
		{"\xf1\x80\x80\xe1\x80\x80", `"\ufffd\ufffd\ufffd"`, false},
		{"\xf1\x80\x80\xe1\x80\x80", "???", true},
	} {
		var ds []Deviation
		if tc.decode {
			ds = UTF8Decode([]byte(tc.in), []byte(tc.got))
		} else {
			ds = Escape([]byte(tc.in), sub, []byte(tc.got), 0, false)
		}
		assert.True(t, strings.HasPrefix(keys(ds), "advance|swallows|failed (or "), "%q: %s", tc.in, keys(ds))
	}
	assert.Equal(t, "advance|split|bad-sequence", keys(UTF8Decode([]byte("\xe1\x80a"), []byte("??a"))))
	for _, in := range []string{"\x80\x80", "\xed\xb8\x80\x80"} {
		assert.True(t, strings.HasPrefix(keys(Escape([]byte(in), sub, []byte(`"\ufffd"`), 0, false)), "advance|merged|failed"), "%q", in)
	}
}

// TestSurrogateHalf: a code point above U+FFFF written as a pair with one half wrong names the
// half (one defect whatever the code point), also beside a failed step PHP drops, which is not
// read into it, beside an 'a' that the pair's last hex digit could stand for, and in a run of
// pairs longer than the resynchronisation bound used to be (64).
func TestSurrogateHalf(t *testing.T) {
	ds := Escape([]byte("a\xf1\x80\x80\x80b"), 0, []byte(`"a\ud900\udc00b"`), 0, false)
	assert.Equal(t, "wrong|high-surrogate|valid", keys(ds))
	ds = Escape([]byte("\xf1\x80\x80\x80\x80"), jsonopt.InvalidUTF8Ignore, []byte(`"\ud900\udc00"`), 0, false)
	assert.Equal(t, "wrong|high-surrogate|valid", keys(ds))
	ds = Escape([]byte("\xf0\x9f\x98\x80"), 0, []byte(`"\ud83d\ude01"`), 0, false)
	assert.Equal(t, "wrong|low-surrogate|valid", keys(ds))
	require.Len(t, ds, 1)
	assert.Contains(t, Title("escape", ds[0], nil), "writes a wrong low surrogate (the second \\uXXXX of the pair) for code points above U+FFFF")
	// The pair's last hex digit 'a' is not the input's 'a' after it (inUEscape).
	ds = Escape([]byte("\xf1\x80\x80\xaaaaa\xf1\x80\x80\x80"), 0, []byte(`"\ud900\udc2aaaa\ud900\udc00"`), 0, false)
	assert.Equal(t, "wrong|high-surrogate|valid", keys(ds))
	// Five pairs in a row, each 12 bytes: PHP's answer resumes 65 steps and bytes on.
	in := append(bytes.Repeat([]byte("\xf1\x80\x80\x80"), 5), bytes.Repeat([]byte("a"), 59)...)
	got := `"` + strings.Repeat(`\ud900\udc00`, 5) + strings.Repeat("a", 59) + `"`
	assert.Equal(t, "wrong|high-surrogate|valid", keys(Escape(in, 0, []byte(got), 0, false)))
}

// TestSurrogateOddAnswers: a pair where PHP writes raw bytes (UNESCAPED_UNICODE) reads without
// a panic, and two \uXXXX that are not a surrogate pair (a code point cut to 16 bits) are one
// wrong code point, not a character dropped and another written wrong.
func TestSurrogateOddAnswers(t *testing.T) {
	assert.NotPanics(t, func() {
		Escape([]byte("\xf0\x9f\x98\x80"), jsonopt.UnescapedUnicode, []byte(`"\uD83D\uDE00"`), 0, false)
		Escape([]byte("ab\xf0\x9f\x98\x80"), jsonopt.UnescapedUnicode, []byte(`"ab\ud83d\ude01"`), 0, false)
	})
	ds := Escape([]byte("\xf0\x9f\x98\x80\xf0\x9f\x98\x80"), 0, []byte(`"\uf600\uf600"`), 0, false)
	assert.NotContains(t, keys(ds), "substitute||valid")
	// A character dropped after a failure under IGNORE keeps the drop as its other reading
	// (a candidate that drops U+200B wherever it is).
	ds = Escape([]byte("\xff\xe2\x80\x8bx"), jsonopt.InvalidUTF8Ignore, []byte(`"x"`), 0, false)
	assert.Equal(t, "advance|swallows|failed (or substitute||valid)", keys(ds))
}

// TestStepsCut: decode steps that end early, each PHP's, are the input cut there.
func TestStepsCut(t *testing.T) {
	d := StepsCut([]byte("a\xc3"), 1)
	require.Len(t, d, 1)
	assert.Equal(t, Deviation{What: Lost, Detail: Tail, Family: "string", Row: "last", In: 1, InEnd: 2, CP: -1}, d[0])
	assert.Equal(t, "first 0", StepsCut([]byte("a\xc3"), 0)[0].Row)
}

// TestTail: an answer that is PHP's answer for the input cut at a step boundary is one Lost
// deviation "tail" at the cut (Row "last" for one step lost, "first K" for more), in json_encode
// (where PHP returns false for what was lost too) and utf8_decode; an answer that only looks
// like a prefix is not.
func TestTail(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		opts     jsonopt.Options
		got      string
		row      string // "" for no tail deviation
		at       int
	}{
		{"escape cut after 3", "abc\ndé", 0, `"abc"`, "first 3", 3},
		{"escape cut, PHP false", "abcd\x80", 0, `"abc"`, "first 3", 3},
		{"escape last step lost, PHP false", "abcd\x80", 0, `"abcd"`, "last", 4},
		{"escape last step lost", "ab\xc3\xa9\n", jsonopt.UnescapedUnicode, "\"ab\xc3\xa9\"", "", 0}, // one definite drop: that reading
		{"escape cut inside a step is not a cut", "ab\xc3\xa9\n", 0, `"ab\u00"`, "", 0},
		{"escape without closing quote only", "abc\nd", 0, `"abc\nd`, "", 0},
		// With its quote the answer is PHP's for a prefix: the cut, and the quote on its own
		// (a candidate that loses its last steps and its closing quote shows both).
		{"escape cut and without closing quote", "abc\nd", 0, `"abc`, "first 3", 3},
		// A raw slash before the cut: the answer is not PHP's for a prefix, its end is cut.
		{"escape cut after a raw slash", "a/bcd", 0, `"a/"`, "first 2", 2},
		{"utf8_decode cut after 2", "ab\xc3\xa9\xe2\x82\xacc", 0, "ab", "first 2", 2},
	} {
		var ds []Deviation
		if tc.name[0] == 'u' {
			ds = UTF8Decode([]byte(tc.in), []byte(tc.got))
		} else {
			ds = Escape([]byte(tc.in), tc.opts, []byte(tc.got), 0, false)
		}
		var tail *Deviation
		for i := range ds {
			if ds[i].Detail == Tail {
				tail = &ds[i]
			}
		}
		if tc.row == "" {
			assert.Nil(t, tail, "%s: %s", tc.name, keys(ds))
			continue
		}
		if assert.NotNil(t, tail, "%s: %s", tc.name, keys(ds)) {
			assert.Equal(t, tc.row, tail.Row, tc.name)
			assert.Equal(t, tc.at, tail.In, tc.name)
			switch tc.name {
			case "escape cut after a raw slash":
			case "escape cut and without closing quote":
				assert.Equal(t, "lost|tail|string (or substitute||ascii) ; lost|last-byte|string", keys(ds), tc.name)
			default:
				assert.Len(t, ds, 1, "%s: the cut is the one deviation: %s", tc.name, keys(ds))
			}
		}
	}
}

// A title stays short whatever the candidate writes: the bytes PHP does not write are clipped.
func TestExtraTitleClipped(t *testing.T) {
	got := make([]byte, 1<<20)
	title := Title("utf8_decode", Deviation{What: Extra, Family: "string", Got: got}, nil)
	assert.Less(t, len(title), 120, title)
	assert.Contains(t, title, "1048576 bytes")
}

// TestNotFalseTitleSaysHow: an answer where PHP returns false says how the candidate wrote the
// first failed step in words, a constant by its byte, never by an internal kind name.
func TestNotFalseTitleSaysHow(t *testing.T) {
	for detail, want := range map[string]string{
		"fffd":          "writes the first failed step as U+FFFD, as INVALID_UTF8_SUBSTITUTE does)",
		"substitute:":   "writes the first failed step as nothing, as INVALID_UTF8_IGNORE does)",
		"substitute:1a": "writes the first failed step as the byte 0x1A)",
		"substitute:3f": "writes the first failed step as the byte 0x3F)",
		"raw-copy":      "writes the first failed step as its input bytes, raw)",
		"wrong":         "writes the first failed step as another character than INVALID_UTF8_SUBSTITUTE's)",
	} {
		got := Title("escape", Deviation{What: NotFalse, Detail: detail, Family: "failed", CP: -1}, nil)
		assert.Contains(t, got, want, detail)
		assert.NotContains(t, got, "as:", detail)
	}
}

// TestEscapeCut: a clipped answer ends before a JSON escape it would cut through, never in a
// lone backslash.
func TestEscapeCut(t *testing.T) {
	for _, tc := range []struct {
		b    string
		k    int
		want int
	}{
		{`"abc\u0022x`, 5, 4}, {`"abc\u0022x`, 7, 4}, {`"abc\u0022x`, 9, 4}, {`"abc\u0022x`, 10, 10},
		{`"ab\"c`, 4, 3}, {`"ab\"c`, 5, 5}, {`"ab\\\"`, 5, 5}, {`"ab\\\"`, 6, 5}, {`"abc`, 3, 3},
	} {
		assert.Equal(t, tc.want, EscapeCut([]byte(tc.b), tc.k), "%s at %d", tc.b, tc.k)
	}
	// Byte 23 of 24 a backslash: its literal would end in \\, an escaped backslash to a reader.
	assert.Equal(t, `'"0123456789012345678901'…`, quote([]byte(`"0123456789012345678901\"xyz"`)))
	assert.Equal(t, `'"0123456789'… 15 bytes`, quoteLen([]byte(`"0123456789\"xy`)))
}
