package reference

import "testing"

// The facts are the Unicode Standard's own examples (§3.9, Table 3-8: "U+FFFD for maximal
// subparts") and the WHATWG Encoding Standard's, with '?' for U+FFFD and Latin-1 bytes for
// code points up to U+00FF.
func TestMaximalSubpartLatin1(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a\xc3\xa9b", "a\xe9b"},
		{"\xe2\x82\xac", "?"},               // U+20AC is above U+00FF
		{"\xc0\xaf", "??"},                  // C0 cannot start a sequence: two errors
		{"\xe0\x80\xaf", "???"},             // E0 needs A0..BF after it: three errors
		{"\xed\xa0\x80", "???"},             // a surrogate: ED needs 80..9F
		{"\xf4\x90\x80\x80", "????"},        // above U+10FFFF: F4 needs 80..8F
		{"\xe1\x80\x41", "?A"},              // E1 80 is a maximal subpart: one error
		{"\xf1\x80\x80\xe1\x80\xc2", "???"}, // Table 3-8's row, three subparts
		{"\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64", "a???b?c??d"}, // Table 3-8
		{"\xc3", "?"},
		{"", ""},
	} {
		if got := string(MaximalSubpartLatin1([]byte(tc.in))); got != tc.want {
			t.Errorf("MaximalSubpartLatin1(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The facts: ECMA-262's QuoteJSONString table (the five short escapes, \u00xx lower case for
// the other controls, everything else as it is) and the WHATWG decoder's U+FFFD per maximal
// subpart, as a browser's JSON.stringify(new TextDecoder().decode(bytes)) answers.
func TestJSONStringify(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"a/b", `"a/b"`},
		{"\"\\", `"\"\\"`},
		{"\b\t\n\f\r", `"\b\t\n\f\r"`},
		{"\x00\x1f\x7f", `"\u0000\u001f` + "\x7f\""},
		{"\xc3\xa9\xe2\x80\xa8", "\"\xc3\xa9\xe2\x80\xa8\""}, // é and U+2028 as they are
		{"\xe1\x80\x41", "\"\xef\xbf\xbdA\""},                // one U+FFFD for the subpart E1 80
		{"\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},
	} {
		if got := string(JSONStringify([]byte(tc.in))); got != tc.want {
			t.Errorf("JSONStringify(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The facts of encoding/json's documentation: HTML-safe escapes, U+2028 and U+2029 escaped,
// invalid UTF-8 coerced to U+FFFD (one per bad byte), \n, \r, \t short.
func TestGoJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"<a&b>", `"\u003ca\u0026b\u003e"`},
		{"\xe2\x80\xa8", `"\u2028"`},
		{"\xe1\x80", `"\ufffd\ufffd"`},
		{"a/\n", `"a/\n"`},
		{"\xc3\xa9", "\"\xc3\xa9\""},
	} {
		if got := string(GoJSON([]byte(tc.in))); got != tc.want {
			t.Errorf("GoJSON(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestLatin1ToUTF8(t *testing.T) {
	if got := string(Latin1ToUTF8([]byte("a\xe9\x80"))); got != "a\xc3\xa9\xc2\x80" {
		t.Errorf("Latin1ToUTF8 = %q", got)
	}
}
