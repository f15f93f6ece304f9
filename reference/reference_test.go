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
