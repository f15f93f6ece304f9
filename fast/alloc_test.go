package fast_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/difffuzz/difffuzz/fast"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// TestAppendAllocs pins the allocations of the append paths, which output comparison cannot
// see (a reserve that grows dst when it already has exactly enough room returns the same
// bytes): utf8_decode allocates nothing when dst has len(src) bytes of room and exactly once
// with one byte less; the escape of a short string with something to escape allocates nothing
// when dst has its worst case (6 × len(src) + 17 bytes) of room and exactly once with one byte
// less (but none at all for an invalid string that fails with an error: it never touches
// dst). Under NUMERIC_CHECK a short string that is not numeric (one that passes the first- and
// last-byte test, one that does not) keeps those counts, and a numeric string, short or long,
// allocates nothing when dst has room for the number and exactly once with one byte less —
// except a double that overflows to ±Inf ("1e999"), where strconv's range error allocates.
func TestAppendAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage counters allocate")
	}
	for _, src := range []string{"abc", "a\"b", "\u00e9t\u00e9", "\xff\xfe", "\xe2\x82", strings.Repeat("x", 40) + "\u00e9", strings.Repeat("\u044f", 30)} {
		in := []byte(src)
		for _, tc := range []struct {
			room, want int
		}{{len(in), 0}, {len(in) - 1, 1}} {
			dst := make([]byte, 2, 2+tc.room)
			got := testing.AllocsPerRun(20, func() { _ = fast.UTF8Decode(dst[:2], in) })
			assert.Equal(t, float64(tc.want), got, "UTF8Decode(%d bytes of room, %q): allocations", tc.room, src)
		}
	}
	for _, v := range fast.Variants() {
		for _, src := range []string{"a\"b", "<\u00e9>\n", "\x01\x02\x03\x04\x05\x06\x07\x08", "\xff", "tab\there", "quote\"quote\"!!", "1\t2"} {
			in := []byte(src)
			if len(in) >= fast.ShortLen {
				panic(fmt.Sprintf("%q is not short", src))
			}
			for _, opts := range []jsonopt.Options{0, jsonopt.UnescapedUnicode | jsonopt.InvalidUTF8Substitute, jsonopt.HexTag | jsonopt.HexQuot,
				jsonopt.NumericCheck | jsonopt.PreserveZeroFraction} {
				short := 1
				if !utf8.ValidString(src) && opts&(jsonopt.InvalidUTF8Ignore|jsonopt.InvalidUTF8Substitute) == 0 {
					short = 0
				}
				for _, tc := range []struct {
					room, want int
				}{{6*len(in) + 17, 0}, {6*len(in) + 16, short}} {
					dst := make([]byte, 3, 3+tc.room)
					got := testing.AllocsPerRun(20, func() { _, _ = v.Escape(dst[:3], in, opts) })
					assert.Equal(t, float64(tc.want), got, "%s: Escape(%d bytes of room, %q, %s): allocations", v.Name, tc.room, src, opts)
				}
			}
		}
		for _, src := range []string{"7", "007", "-0", " -1.5e3\t", "1e-7", "0.1", "-9223372036854775808", "-9223372036854775808 ",
			"123456789012345678901", "4.9e-324", "\f\v   12.000e15  "} {
			in := []byte(src)
			for _, opts := range []jsonopt.Options{jsonopt.NumericCheck, jsonopt.NumericCheck | jsonopt.PreserveZeroFraction} {
				out, err := v.Escape(nil, in, opts)
				if !assert.NoError(t, err, "%s: Escape(%q, %s)", v.Name, src, opts) || !assert.NotEqual(t, byte('"'), out[0], "%s: Escape(%q, %s) = %s: not a number", v.Name, src, opts, out) {
					continue
				}
				for _, tc := range []struct {
					room, want int
				}{{len(out), 0}, {len(out) - 1, 1}} {
					dst := make([]byte, 3, 3+tc.room)
					got := testing.AllocsPerRun(20, func() { _, _ = v.Escape(dst[:3], in, opts) })
					assert.Equal(t, float64(tc.want), got, "%s: Escape(%d bytes of room, %q, %s) = %s: allocations", v.Name, tc.room, src, opts, out)
				}
			}
		}
	}
}
