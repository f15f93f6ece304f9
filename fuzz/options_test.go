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

// TestOptionMap: a map's options (one-way: B read from A's bit; swap: each read from the
// other's), the findings it explains (PHP's answer under the mapped options, an error
// included) and those it does not (an answer no map of the pair gives, options it leaves as
// they are), and the maps of a set of bits (each ordered pair one-way, each pair swapped once,
// never JSON_NUMERIC_CHECK).
func TestOptionMap(t *testing.T) {
	apos, quot, tag := jsonopt.HexApos, jsonopt.HexQuot, jsonopt.HexTag
	oneWay := OptionMap{A: quot, B: apos}
	swap := OptionMap{A: apos, B: quot, Swap: true}
	for _, tc := range []struct {
		m        OptionMap
		in, want jsonopt.Options
	}{
		{oneWay, quot, apos | quot},
		{oneWay, apos, 0},
		{oneWay, apos | quot | tag, apos | quot | tag},
		{oneWay, tag, tag},
		{swap, apos, quot},
		{swap, quot | tag, apos | tag},
		{swap, apos | quot, apos | quot},
		{swap, 0, 0},
	} {
		assert.Equal(t, tc.want, tc.m.Apply(tc.in), "%+v of %v", tc.m, tc.in)
	}
	esc := func(in, got string, flags jsonopt.Options, gotErr int) *Finding {
		return &Finding{Op: OpEscape, Kind: KindOutput, Input: []byte(in), Flags: flags, Got: []byte(got), GotErr: gotErr}
	}
	assert.True(t, oneWay.Explains(esc("'", `"\u0027"`, quot, 0)))
	assert.True(t, oneWay.Explains(esc("'", `"'"`, apos, 0)))
	assert.False(t, oneWay.Explains(esc(`"`, `"\""`, quot, 0)), "HEX_QUOT itself is read right")
	assert.False(t, oneWay.Explains(esc("'", `"'"`, tag, 0)), "options the map leaves as they are")
	assert.True(t, swap.Explains(esc(`"`, `"\u0022"`, apos, 0)))
	assert.False(t, swap.Explains(esc(`"`, `"\u0022"`, apos, int(jsonopt.ErrorUTF8))), "PHP's answer has no error")
	sub := OptionMap{A: jsonopt.InvalidUTF8Substitute, B: jsonopt.InvalidUTF8Ignore}
	assert.True(t, sub.Explains(esc("a\xff", `"a"`, jsonopt.InvalidUTF8Substitute, 0)))
	assert.False(t, OptionMap{A: apos, B: quot}.Explains(&Finding{Op: OpUTF8Decode, Kind: KindOutput, Input: []byte("'")}))

	// Needs: the bits the answer cares about. " under HEX_APOS read as HEX_QUOT needs the
	// HEX_QUOT set, not the HEX_APOS cleared; a candidate that ignores INVALID_UTF8_IGNORE
	// "swaps" it with UNESCAPED_SLASHES on 80, but only the clear is needed.
	set, clear := swap.Needs(esc(`"`, `"\u0022"`, apos, 0))
	assert.Equal(t, []jsonopt.Options{quot, 0}, []jsonopt.Options{set, clear})
	set, clear = swap.Needs(esc("'", `"'"`, apos, 0))
	assert.Equal(t, []jsonopt.Options{0, apos}, []jsonopt.Options{set, clear})
	vacuous := OptionMap{A: jsonopt.UnescapedSlashes, B: jsonopt.InvalidUTF8Ignore, Swap: true}
	ign := esc("\x80", "", jsonopt.InvalidUTF8Ignore, int(jsonopt.ErrorUTF8))
	assert.True(t, vacuous.Explains(ign))
	set, clear = vacuous.Needs(ign)
	assert.Equal(t, []jsonopt.Options{0, jsonopt.InvalidUTF8Ignore}, []jsonopt.Options{set, clear})
	// Shown: a swap needs each bit set where the other is given; a one-way map B set where A
	// is given and B cleared where B is.
	assert.True(t, swap.Shown(apos|quot, 0))
	assert.False(t, swap.Shown(quot, apos|quot), "HEX_APOS never shown set where HEX_QUOT is given")
	assert.True(t, oneWay.Shown(apos, apos))
	assert.False(t, oneWay.Shown(apos, 0))
	assert.False(t, oneWay.Shown(quot, apos), "the bits of another map")

	maps := OptionMaps(apos | quot | tag | jsonopt.NumericCheck | jsonopt.PreserveZeroFraction)
	assert.Len(t, maps, 9, "3 bits: 6 one-way maps, 3 swaps; NUMERIC_CHECK and PRESERVE_ZERO_FRACTION in none")
	for _, m := range maps {
		assert.NotEqual(t, m.A, m.B)
		assert.Zero(t, (m.A|m.B)&(jsonopt.NumericCheck|jsonopt.PreserveZeroFraction))
	}
	assert.Equal(t, "answers JSON_HEX_APOS as JSON_HEX_QUOT and JSON_HEX_QUOT as JSON_HEX_APOS: the two options swapped", swap.String())
}
