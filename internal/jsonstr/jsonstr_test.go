package jsonstr

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUnescape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`plain é`, "plain é"},
		{`\"\\\/\b\f\n\r\t`, "\"\\/\b\f\n\r\t"},
		{`\u00e9\u00E9`, "éé"},
		{`\ud83d\ude00`, "😀"},
		{`\uD83D\uDE00`, "😀"},
		{`\ud83d`, "\xed\xa0\xbd"}, // a lone surrogate as its three bytes
		{`a\u12`, `a\u12`},         // a malformed escape kept with what follows
		{`\u0005x\u2028`, "\x05x\u2028"},
	} {
		assert.Equal(t, tc.want, string(Unescape([]byte(tc.in))), tc.in)
	}
	// Two characters above U+FFFF stay apart (a surrogate pair is one code point, not two
	// stand-ins): an answer with another emoji is not the same answer in another form.
	assert.NotEqual(t, Unescape([]byte(`\ud83d\ude00`)), Unescape([]byte(`\ud83d\ude01`)))
	in := []byte("no backslash")
	assert.Same(t, &in[0], &Unescape(in)[0], "returned itself")
}
