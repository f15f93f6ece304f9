package deviation

import (
	"slices"
	"testing"

	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
	"github.com/stretchr/testify/assert"
)

// skips are the offsets of the skip readings every deviation of ds has (nil when one has none).
func skips(t *testing.T, ds []Deviation) []int {
	t.Helper()
	var out []int
	for i, d := range ds {
		var at []int
		for _, a := range d.Alts {
			if k, ok := SkipAt(a); ok {
				at = append(at, k)
			}
		}
		if i > 0 && !slices.Equal(at, out) {
			t.Errorf("deviation %d has skips %v, the first %v", i, at, out)
		}
		out = at
	}
	return out
}

// without is in without byte k.
func without(in string, k int) []byte { return []byte(in[:k] + in[k+1:]) }

// An answer that is PHP's for the input without one byte reads as skipping it, whatever the
// byte (ASCII, a lead, a continuation byte) and whatever PHP's answer for the rest is (a
// string, false, a number); a run of equal bytes reads as skipping each of them; an answer
// that is PHP's for no input one byte shorter has no skip.
func TestSkipReadings(t *testing.T) {
	esc := func(in []byte, o jsonopt.Options) []byte {
		out, err := oracle.Escape(nil, in, o)
		assert.NoError(t, err)
		return out
	}
	in := "0123456789abcdefXghij"
	assert.Equal(t, []int{16}, skips(t, Escape([]byte(in), 0, esc(without(in, 16), 0), 0, false)), "ASCII byte 16")
	in = "0123456789abcde\xc3\xa9ghij" // é at 15 and 16
	assert.Equal(t, []int{15, 16}, skips(t, Escape([]byte(in), jsonopt.InvalidUTF8Substitute, esc(without(in, 16), jsonopt.InvalidUTF8Substitute), 0, false)),
		"a continuation byte: its lead is \\ufffd, as the continuation byte is without the lead")
	assert.Equal(t, []int{15, 16}, skips(t, Escape([]byte(in), 0, nil, int(jsonopt.ErrorUTF8), true)),
		"false: losing the lead or the continuation byte makes the input invalid")
	in = "0123456789abcdeffffff"
	assert.Equal(t, []int{15, 16, 17, 18, 19, 20}, skips(t, Escape([]byte(in), 0, esc(without(in, 16), 0), 0, false)), "a run of f")
	in = "1234567890123456789"
	assert.Equal(t, []int{16}, skips(t, Escape([]byte(in), jsonopt.NumericCheck, esc(without(in, 16), jsonopt.NumericCheck), 0, false)), "a number")
	in = "0123456789abcdefZ\x80"
	assert.Equal(t, []int{17}, skips(t, Escape([]byte(in), 0, []byte(`"0123456789abcdefZ"`), 0, false)),
		"an answer where PHP returns false: the stray byte skipped")
	in = "0123456789abcdef\xc3\xa9Zq"
	assert.Equal(t, []int{18}, skips(t, UTF8Decode([]byte(in), oracle.UTF8Decode(nil, without(in, 18)))), "utf8_decode")

	in = "0123456789abcdefXghij"
	assert.Nil(t, skips(t, Escape([]byte(in), 0, []byte(`"0123456789abcdefYghij"`), 0, false)), "another byte: no skip")
	assert.Nil(t, skips(t, Escape([]byte(in), 0, []byte(`"0123456789abcdefhij"`), 0, false)), "two bytes lost: no skip")
	assert.Nil(t, skips(t, UTF8Decode([]byte(in), []byte("0123456789abcdefXghi"))[:0]), "no deviation, no skip")
}

// A skip with another fault in the same answer: another form of a character anywhere (a raw
// slash, upper-case hex) leaves the answer PHP's for the input a byte shorter up to the forms,
// and the skip is read on the deviations that are not forms; another fault's substitute byte
// elsewhere leaves the stretch of the skipped byte what the candidate wrote there, and only
// that deviation has the skip.
func TestSkipWithOtherFaults(t *testing.T) {
	alts := func(d Deviation) []int {
		var at []int
		for _, a := range d.Alts {
			if k, ok := SkipAt(a); ok {
				at = append(at, k)
			}
		}
		return at
	}
	in := "0123456789/bcdefXghij"
	ds := Escape([]byte(in), 0, []byte(`"0123456789/bcdefghij"`), 0, false)
	var forms, skipped int
	for _, d := range ds {
		switch {
		case d.What == RawCopy || d.What == Form:
			forms++
			assert.Empty(t, alts(d), "the raw slash is another fault's: %s", d.Key())
		default:
			skipped++
			assert.Equal(t, []int{16}, alts(d), d.Key())
		}
	}
	assert.Equal(t, 1, forms, keys(ds))
	assert.Equal(t, 1, skipped, keys(ds))

	in = "\x80123456789abcdefXghij" // a stray byte written 1A (not '?'), and the X skipped
	ds = UTF8Decode([]byte(in), []byte("\x1a123456789abcdefghij"))
	assert.Len(t, ds, 2, keys(ds))
	for _, d := range ds {
		if d.In == 0 {
			assert.Empty(t, alts(d), "the substitute byte is another fault's: %s", d.Key())
		} else {
			assert.Equal(t, []int{16}, alts(d), d.Key())
		}
	}
	ds = UTF8Decode([]byte(in), []byte("\x1a123456789abcdefYghij"))
	for _, d := range ds {
		assert.Empty(t, alts(d), "X written Y is no skip: %s", d.Key())
	}
}

func TestSkipKey(t *testing.T) {
	k, ok := SkipAt(SkipKey(16))
	assert.True(t, ok)
	assert.Equal(t, 16, k)
	_, ok = SkipAt(Deviation{What: Lost, Detail: Tail, Family: "string"}.Key())
	assert.False(t, ok, "a cut is not a skip")
	assert.Equal(t, "skips the input byte at offset 16, whatever it is: answers as PHP does for the input without that byte, where PHP reads it",
		Title("escape", Deviation{What: Lost, Detail: SkipPrefix + "16", Family: "string"}, nil))
}
