package fuzz

import (
	"testing"

	"github.com/difffuzz/difffuzz/protocol"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResultText: a result is a PHP expression of its bytes (internal/phplit), so that what a
// candidate wrote raw never reads as the escape the oracle wrote.
func TestResultText(t *testing.T) {
	for _, tc := range []struct {
		b      []byte
		code   int
		escape bool
		want   string
	}{
		{[]byte(`"\u2029"`), 0, true, `'"\u2029"'`},
		{[]byte("\"\xe2\x80\xa9\""), 0, true, `'"' . "\xe2\x80\xa9" . '"'`},
		{[]byte("a\x00\n\x7f'\\"), 0, false, `'a' . "\x00\n\x7f" . '\'\\'`},
		{[]byte("\xc3\xa1?"), 0, false, `"\xc3\xa1" . '?'`},
		{nil, 5, true, "false (json_last_error()=5)"},
		{[]byte("null"), 5, true, `'null' (json_last_error()=5)`},
		{nil, 0, true, `''`},
	} {
		assert.Equal(t, tc.want, ResultText(tc.b, tc.code, tc.escape), "% x", tc.b)
	}
	f := &Finding{Op: OpEscape, Kind: KindError, Want: []byte(`"abcdef"`), Got: []byte("\"abc\xff"), GotErr: 5}
	// Clipped: the longest start of the expression that fits, "…" when bytes were left out.
	assert.Equal(t, `'"abcdef"'`, f.AnswerText(true, 10))
	assert.Equal(t, `'"abcd'…`, f.AnswerText(true, 7))
	assert.Equal(t, `'"abc'… (json_last_error()=5)`, f.AnswerText(false, 14))
	assert.Equal(t, `'"abc' . "\xff" (json_last_error()=5)`, f.AnswerText(false, 15))
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

// TestGotText: a target that answers "" with an error code (protocol RESULT "-") returned the
// empty string, not false, and the report says so; nothing with an error otherwise is false.
func TestGotText(t *testing.T) {
	f := &Finding{Op: OpEscape, Kind: KindError, Got: []byte{}, GotErr: 5, WantErr: 5}
	assert.Equal(t, "false (json_last_error()=5)", f.GotText())
	assert.True(t, f.GotFalse())
	f.GotEmpty = true
	assert.Equal(t, `'' (json_last_error()=5)`, f.GotText())
	assert.False(t, f.GotFalse())
}

// TestEmptyAnswerFinding: an escape answer "-" with json_last_error()=5 where PHP returns false
// is a finding whose candidate side is the empty string; "false 5" is no finding.
func TestEmptyAnswerFinding(t *testing.T) {
	c := &Checker{}
	cs := Case{Op: OpEscape, Input: []byte{0x80}}
	for _, tc := range []struct {
		line  string
		empty bool
	}{{"- 5", true}, {"false 5", false}} {
		r, err := protocol.ParseResponse(protocol.OpEscape, tc.line)
		require.NoError(t, err)
		fs := c.compareResponse(nil, "target", cs, r)
		if !tc.empty {
			assert.Empty(t, fs, "false 5 is PHP's answer")
			continue
		}
		require.Len(t, fs, 1)
		assert.True(t, fs[0].GotEmpty)
		assert.Equal(t, `'' (json_last_error()=5)`, fs[0].GotText())
	}
}
