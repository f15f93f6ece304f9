package fuzz

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// TestAddedOptions: an answer that is PHP's under one more option names that option (a test of
// the wrong bit: ' escaped under HEX_QUOT is PHP's answer under HEX_APOS; / written raw is
// PHP's under UNESCAPED_SLASHES); PHP's own answer, or one no single bit gives, names none.
func TestAddedOptions(t *testing.T) {
	for _, tc := range []struct {
		in, got string
		flags   jsonopt.Options
		want    jsonopt.Options
	}{
		{"'", `"\u0027"`, jsonopt.HexQuot, jsonopt.HexApos},
		{"a/b", `"a/b"`, 0, jsonopt.UnescapedSlashes},
		{"a/b", `"a\/b"`, 0, 0},
		{"<'", `"\u003C\u0027"`, 0, 0}, // two bits at once
		{"é", `"é"`, 0, jsonopt.UnescapedUnicode},
	} {
		f := &Finding{Op: OpEscape, Kind: KindOutput, Input: []byte(tc.in), Flags: tc.flags, Got: []byte(tc.got)}
		assert.Equal(t, tc.want, AddedOptions(f), "%q %v", tc.in, tc.flags)
	}
	assert.Zero(t, AddedOptions(&Finding{Op: OpUTF8Decode, Kind: KindOutput, Input: []byte("/"), Got: []byte("/")}))
}
