package deviation

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/difffuzz/difffuzz/internal/jsonstr"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
)

// SkipPrefix starts the Detail of a Lost deviation whose answer is PHP's answer for the input
// without one byte, at the offset the Detail ends in ("skip-16"): a vector loop that steps one
// byte too far at a chunk's edge loses whatever sits there (an ASCII byte, a lead, a
// continuation byte), and its answers read as a dozen deviations of the rules those bytes
// fall under. It is only ever another reading (Deviation.Alts) of what the steps read as: the
// report files findings under it when most of them, across several keys, have the same offset.
const SkipPrefix = "skip-"

// SkipKey is the key of the reading "skips the input byte at offset at".
func SkipKey(at int) string {
	return Deviation{What: Lost, Detail: SkipPrefix + strconv.Itoa(at), Family: "string"}.Key()
}

// SkipAt is the offset a key of SkipKey names; ok is false for any other key.
func SkipAt(key string) (at int, ok bool) {
	rest, ok := strings.CutPrefix(key, string(Lost)+"|"+SkipPrefix)
	if !ok {
		return 0, false
	}
	n, _, _ := strings.Cut(rest, "|")
	at, err := strconv.Atoi(n)
	return at, err == nil
}

// skipText is the title of the reading skip-N.
func skipText(detail string) string {
	return fmt.Sprintf("skips the input byte at offset %s, whatever it is: answers as PHP does for the input without that byte, where PHP reads it",
		strings.TrimPrefix(detail, SkipPrefix))
}

// Skips are read in inputs of minSkipIn to maxSkipIn bytes (in shorter ones a byte dropped at
// one place is as likely a coincidence: the exhaustive spaces drop every byte somewhere), at
// skipTries places at most (more, and no skip is read: the answers do not tell one place).
const (
	minSkipIn = 8
	maxSkipIn = 1024
	skipTries = 24
)

// skipsOf are the offsets k in [lo, hi] that try admits such that same(in without byte k)
// holds: the candidate answered as PHP does for the input without that byte. Every byte of a
// run of equal bytes gives the same input, so a run's bytes are all in or all out.
func skipsOf(in []byte, lo, hi int, try func(k int) bool, same func([]byte) bool) []int {
	n := len(in)
	lo, hi = max(lo, 0), min(hi, n-1)
	if n < minSkipIn || n > maxSkipIn || lo > hi {
		return nil
	}
	var places [skipTries]int
	tries := places[:0]
	for k := lo; k <= hi; k++ {
		if k > lo && in[k] == in[k-1] || try != nil && !try(k) {
			continue // the run's first byte tried gives the same input
		}
		if len(tries) == skipTries {
			return nil // too many places to tell one (counted before any is tried)
		}
		tries = append(tries, k)
	}
	var found []int
	buf := make([]byte, 0, n)
	for _, k := range tries {
		buf = append(append(buf[:0], in[:k]...), in[k+1:]...)
		if same(buf) {
			found = append(found, k)
		}
	}
	// Each offset found stands for its whole run, which may reach past lo and hi.
	var out []int
	for _, k := range found {
		a, z := runOf(in, k)
		for j := a; j <= z; j++ {
			if len(out) == 0 || j > out[len(out)-1] {
				out = append(out, j)
			}
		}
	}
	return out
}

// skipRange is where a byte whose loss turns PHP's answer want into got can be: not more than
// three bytes after the step whose output holds their first difference (a lead before the
// byte lost takes the bytes after it), and not more than four bytes before the step whose
// output holds their last (a sequence the loss cuts resynchronises within them).
func skipRange(in []byte, units []unit, want, got []byte) (lo, hi int) {
	p := 0
	for p < len(want) && p < len(got) && want[p] == got[p] {
		p++
	}
	s := 0
	for s < len(want)-p && s < len(got)-p && want[len(want)-1-s] == got[len(got)-1-s] {
		s++
	}
	lo, hi = 0, len(in)-1
	out := 0
	for _, u := range units {
		end := out + len(u.want)
		if end > p && u.inEnd > u.in {
			hi = min(hi, u.inEnd+2)
			break
		}
		out = end
	}
	out = 0
	for _, u := range units {
		end := out + len(u.want)
		if end > len(want)-s-1 && u.inEnd > u.in {
			lo = max(0, u.in-4)
			break
		}
		out = end
	}
	return lo, max(lo-1, hi)
}

// withSkips adds the offsets' skip readings to the deviations' other readings: to every
// deviation but those of the form of a character (Form, RawCopy), which are another fault's
// in an answer that is PHP's for the input a byte shorter up to the form of its characters;
// to every one when all are.
func withSkips(ds []Deviation, at []int) []Deviation {
	forms := 0
	for _, d := range ds {
		if d.What == Form || d.What == RawCopy {
			forms++
		}
	}
	for _, k := range at {
		key := SkipKey(k)
		for i, d := range ds {
			if forms == len(ds) || d.What != Form && d.What != RawCopy {
				ds[i].Alts = append(ds[i].Alts, key)
			}
		}
	}
	return ds
}

// localSkips adds a skip reading to the deviations of an answer that shows another fault too
// (its answer is PHP's for no input a byte shorter): a deviation whose stretch, without one of
// its bytes k, is what the candidate wrote for it (stretch: PHP's answer for those bytes
// alone, false when it has none; compared up to the form of each character, so that another
// fault's \u00E9 or raw control byte in it does not hide the skip) reads as skipping k too.
// The other deviations are other faults' and keep their readings.
func localSkips(ds []Deviation, in []byte, stretch func([]byte) ([]byte, bool)) []Deviation {
	if len(in) < minSkipIn {
		return ds
	}
	buf := make([]byte, 0, maxStretch)
	for i, d := range ds {
		if d.What == Form || d.What == RawCopy || d.InEnd-d.In > maxStretch || d.In < 0 || d.InEnd > len(in) {
			continue // the character in another form is never a byte skipped
		}
		for k := d.In; k < d.InEnd; k++ {
			if k > d.In && in[k] == in[k-1] {
				continue // the same bytes as the byte before
			}
			out, ok := stretch(append(append(buf[:0], in[d.In:k]...), in[k+1:d.InEnd]...))
			if !ok || !bytes.Equal(jsonstr.Unescape(out), jsonstr.Unescape(d.Got)) {
				continue
			}
			a, z := runOf(in, k)
			for j := a; j <= z; j++ {
				ds[i].Alts = append(ds[i].Alts, SkipKey(j))
			}
			break
		}
	}
	return ds
}

// maxStretch is the longest stretch localSkips tries.
const maxStretch = 8

// runOf is the run of bytes equal to in[k] around k, [a, z].
func runOf(in []byte, k int) (a, z int) {
	a, z = k, k
	for a > 0 && in[a-1] == in[k] {
		a--
	}
	for z+1 < len(in) && in[z+1] == in[k] {
		z++
	}
	return a, z
}

// escapeSkips are the skips (skipsOf) of a json_encode answer (got, its error and false), which
// is PHP's for the input without the byte up to the form of its characters (jsonstr.Unescape:
// another fault's \u00E9 for \u00e9, or raw control bytes, do not hide the skip). Where both
// answers are strings (or numbers), the byte lost is between their first and last difference
// (skipRange); where PHP's is a string and the candidate fails, it is a byte >= 0x80 (losing
// an ASCII byte leaves valid input valid); where PHP fails, it is at most four bytes from the
// first failed step (losing it must end that failure).
func escapeSkips(in []byte, opts jsonopt.Options, units []unit, want []byte, werr error, got []byte, gotErr int, gotFalse bool) []int {
	fails := gotFalse || gotErr != 0
	ug := jsonstr.Unescape(got)
	same := func(b []byte) bool {
		out, err := oracle.Escape(nil, b, opts)
		return (err != nil) == fails && (bytes.Equal(out, got) || bytes.Equal(jsonstr.Unescape(out), ug))
	}
	switch {
	case werr == nil && !fails: // strings, or numbers (NUMERIC_CHECK)
		lo, hi := skipRange(in, units, want, got)
		return skipsOf(in, lo, hi, nil, same)
	case werr == nil && fails:
		return skipsOf(in, 0, len(in)-1, func(k int) bool { return in[k] >= 0x80 }, same)
	case werr != nil && !fails && len(units) > 0:
		return skipsOf(in, units[0].in-4, units[0].inEnd+3, nil, same)
	}
	return nil
}

// utf8DecodeSkips are the skips (skipsOf) of a utf8_decode answer.
func utf8DecodeSkips(in []byte, units []unit, want, got []byte) []int {
	lo, hi := skipRange(in, units, want, got)
	return skipsOf(in, lo, hi, nil, func(b []byte) bool { return bytes.Equal(oracle.UTF8Decode(nil, b), got) })
}
