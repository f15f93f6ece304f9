package fuzz

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
