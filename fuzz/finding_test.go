package fuzz

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResultText: a result is quoted byte by byte, so that what a candidate wrote raw never
// reads as the escape the oracle wrote.
func TestResultText(t *testing.T) {
	for _, tc := range []struct {
		b      []byte
		code   int
		escape bool
		want   string
	}{
		{[]byte(`"\u2029"`), 0, true, `"\"\\u2029\""`},
		{[]byte("\"\xe2\x80\xa9\""), 0, true, `"\"\xe2\x80\xa9\""`},
		{[]byte("a\x00\n\x7f'\\"), 0, false, `"a\x00\n\x7f'\\"`},
		{[]byte("\xc3\xa1?"), 0, false, `"\xc3\xa1?"`},
		{nil, 5, true, "false (json_last_error()=5)"},
		{[]byte("null"), 5, true, `"null" (json_last_error()=5)`},
		{nil, 0, true, `""`},
	} {
		assert.Equal(t, tc.want, ResultText(tc.b, tc.code, tc.escape), "% x", tc.b)
	}
}

// TestShape: the byte-class shape names each byte's class and counts runs of clean ASCII.
func TestShape(t *testing.T) {
	for in, want := range map[string]string{
		"":                          "(empty)",
		"a":                         "a",
		"abc\"":                     "a×3 \"",
		"\xe1\x80\x80":              "E0-EF cont cont",
		"ab<\n\x01\xc0\xf5zz\xf1/x": "a×2 <> ctl-short ctl C0-C1 F5-FF a×2 F0-F4 / a",
	} {
		assert.Equal(t, want, Shape([]byte(in)), "% x", in)
	}
	// The table of short shapes is the shapes worked out.
	for a := range 256 {
		require.Equal(t, shape([]byte{byte(a)}), Shape([]byte{byte(a)}))
		for b := range 256 {
			require.Equal(t, shape([]byte{byte(a), byte(b)}), Shape([]byte{byte(a), byte(b)}))
		}
	}
}
