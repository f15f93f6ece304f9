// Package deviation says what a candidate did where its answer differs from PHP's, in the
// spec's vocabulary (DESIGN.md §4): it aligns the candidate's output with the oracle's answer
// step by step (oracle.EscapeExplain, oracle.UTF8DecodeExplain, oracle.NextCharExplain) and
// describes each differing stretch as a Deviation — the input copied raw, a constant written
// for PHP's substitute, failures split or merged, a failed step decoded as a code point, another
// escape form of the same character, output lost, output where PHP returns false, bytes PHP
// does not write. One answer may deviate several times; each deviation is reported, so that one
// fault cannot hide another behind the first difference.
//
// The oracle stays the spec: this package reads its answers and explanations and adds nothing
// to them.
package deviation

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
)

// What is the kind of a deviation: what the candidate did instead of what PHP does.
type What string

// The kinds of deviation.
const (
	RawCopy    What = "raw-copy"    // copies the input bytes where PHP writes something else
	Substitute What = "substitute"  // writes a constant where PHP writes its own (Detail: its hex, "" for nothing, "other" when not one constant)
	Advance    What = "advance"     // ends failed steps elsewhere: Detail "split", "merged", "swallows"
	Accepted   What = "accepted"    // decodes a sequence PHP fails on as a code point (Detail "bits": the code point its bits give)
	Rejected   What = "rejected"    // fails on a valid sequence PHP decodes (Got holds what it writes instead)
	Form       What = "escape-form" // writes the same character in another form (Detail: "u-for-short", "short-for-u", "upper-hex", "lower-hex", "escapes", "unescaped", "unescaped-lt")
	Lost       What = "lost"        // returns false or nothing where PHP has output (Detail "false", "empty")
	NotFalse   What = "not-false"   // has output where PHP returns false (Detail: what it writes for the first failed step)
	ErrorCode  What = "error-code"  // the same bytes with another json_last_error()
	Extra      What = "extra"       // writes bytes PHP does not write (Got holds them)
	Wrong      What = "wrong"       // writes another character than PHP (nothing above fits)
	Model      What = "as-model"    // answers as a known other rule does (Detail: its name; package reference)
)

// Deviation is one stretch where the candidate's answer departs from PHP's.
type Deviation struct {
	What   What
	Detail string // part of the key: stable across inputs (see What)
	// Family is the PHP rule family the deviation departs from: "failed" (a failed decoder
	// step), "valid" (a valid multi-byte sequence), an exit family for the decoder ("overlong",
	// "surrogate", "above-max", "bad-sequence", "never-a-lead"), an ASCII rule of §1.3 (its
	// oracle.Rule id), "quotes", "string" (the whole answer), for Substitute the PHP output it
	// replaces ("?", `\ufffd`, ...), or "" where the deviation is the same whatever the rule
	// (the case of hex digits, non-ASCII written raw).
	Family string
	// Row names the part of the spec the witness hit, for listing: the §2.2 row of a decoder
	// step ("80..C1"), "wide" for a code point above U+00FF in utf8_decode, the byte for ASCII.
	Row       string
	In, InEnd int    // the input bytes of the stretch
	Want, Got []byte // PHP's and the candidate's output for them
	CP        rune   // for Accepted: the code point; -1 otherwise
	// Alts are the keys of other readings of the same stretch, as likely on this answer alone
	// (0x1A written for the stray byte 9A is the constant 0x1A and 9A & 0x7F): the report
	// files the deviation under one when the candidate's other answers show it and nearly
	// every answer that shows this key could be read so.
	Alts []string
}

// Key is what the findings of one defect share: the kind, its detail and the family.
func (d Deviation) Key() string { return string(d.AppendKey(nil)) }

// AppendKey appends the key to b (a map lookup through it allocates nothing).
func (d Deviation) AppendKey(b []byte) []byte {
	return append(append(append(append(append(b, d.What...), '|'), d.Detail...), '|'), d.Family...)
}

// unit is one step of PHP's answer: the input bytes it consumed and the bytes it wrote.
type unit struct {
	in, inEnd int
	want      []byte
	rule      oracle.Rule
	exit      oracle.Exit
}

func (u unit) failed() bool {
	f := u.exit.Family()
	return f != "" && f != "valid" && f != "end"
}

func (u unit) multiByte() bool {
	return u.exit == oracle.ExitOK2 || u.exit == oracle.ExitOK3 || u.exit == oracle.ExitOK4
}

// region is a stretch that does not match: units [i, j) against got [p, q).
type region struct{ i, j, p, q int }

// maxSkip bounds the search for a resynchronisation point (units plus bytes skipped); past it
// the rest of both answers is one stretch.
const maxSkip = 128

// align matches the units' outputs against got from the left and returns the stretches that
// differ. At a mismatch it looks for the nearest point (fewest of PHP's steps and bytes of got
// skipped; of two as near, the one that consumes more steps) from which PHP's answer goes on in
// got for the next resumeSteps steps (or to the end of both); failing that, for one step. A
// step PHP writes nothing for (INVALID_UTF8_IGNORE) matches nothing unless got holds at that
// point what a candidate would write for its bytes (writes reports that). A stretch that only
// removes or only adds whole steps' bytes is moved as far left as it can go (as a variant
// caller normalises an indel): "?aaaa" against "?a" lost the "aaa" after the failure, not at
// the end.
func align(units []unit, got []byte, paired, esc bool, writes func(unit, []byte) bool, divides func(region) bool) []region {
	var out []region
	i, p, done := 0, 0, 0
	for i < len(units) || p < len(got) {
		// A step PHP drops matches when PHP's next step goes on there, or got shows nothing a
		// candidate would write for it.
		if i < len(units) && bytes.HasPrefix(got[p:], units[i].want) && (len(units[i].want) > 0 || resumesAt(units, got, i+1, p, 1) || !writes(units[i], got[p:])) {
			p += len(units[i].want)
			i++
			continue
		}
		r, ok := resync(units, got, i, p, paired, esc, resumeSteps)
		if !ok && len(units)-i > maxSplit {
			// Too far to divide step by step (classifyAll): resume where one step matches.
			r, _ = resync(units, got, i, p, paired, esc, 1)
		}
		// Steps PHP drops (INVALID_UTF8_IGNORE) where the stretch ends belong to it when it
		// has bytes: they may be what the candidate wrote for them.
		for r.j < len(units) && len(units[r.j].want) == 0 && r.q > r.p && units[r.j].inEnd > units[r.j].in {
			r.j++
		}
		if whole := (region{i, len(units), p, len(got)}); r.j < len(units) && r.j-r.i >= 2 && !divides(r) && divides(whole) {
			// PHP's answer resumed by chance (a quote the candidate wrote for another step):
			// the rest divides step by step.
			r = whole
		}
		r = leftmost(units, got, r, done)
		out = append(out, r)
		i, p, done = r.j, r.q, r.j
	}
	return out
}

// resumesAt reports whether PHP's answer goes on in got at q from unit j for the next steps
// steps that write something (or to the end of both).
func resumesAt(units []unit, got []byte, j, q, steps int) bool {
	for n := 0; ; n++ {
		for j < len(units) && len(units[j].want) == 0 {
			j++
		}
		switch {
		case j == len(units):
			return q == len(got)
		case n == steps:
			return true
		}
		w := units[j].want
		if len(got)-q < len(w) || got[q] != w[0] || len(w) > 1 && !bytes.Equal(got[q+1:q+len(w)], w[1:]) {
			return false
		}
		q += len(w)
		j++
	}
}

// resumeSteps is how many of PHP's steps after a resynchronisation point must match.
const resumeSteps = 3

// resync is the stretch that starts at unit i and got offset p: up to the nearest point where
// PHP's answer resumes (see align); ok false when none lies within maxSkip (the stretch then
// runs to the end of both).
//
// The cost of a point that skips dj steps and dq bytes is dj+dq, one more for a stretch that
// only removes or only adds: a quote written raw is one step written otherwise, not a quote
// added here and one lost later. With paired set it is max(dj, dq), one more when they are
// not as many (each step paired with bytes written otherwise, the rest added or lost): three
// stray bytes written 1A 1A 1A where PHP writes ??? are three steps written otherwise, not
// one written as 1A 1A 1A and two '?' lost at the end. Of points as near, the one that
// consumes more steps, then the one with more bytes. With esc (json_encode's answers), no
// point cuts a \uXXXX of got: its last hex digit 'a' is not PHP's next 'a'.
func resync(units []unit, got []byte, i, p int, paired, esc bool, steps int) (region, bool) {
	// first[dj] is the first byte PHP writes from unit i+dj on (-1: nothing, up to the end):
	// a point where got holds another byte is no point, found without asking resumesAt.
	var first [maxSkip + 1]int16
	next, top := -1, min(maxSkip, len(units)-i)
	for j := i + top; j < len(units); j++ { // past the window, for the steps PHP drops at its end
		if len(units[j].want) > 0 {
			next = int(units[j].want[0])
			break
		}
	}
	for dj := top; dj >= 0; dj-- {
		if w := units[i+dj:]; len(w) > 0 && len(w[0].want) > 0 {
			next = int(w[0].want[0])
		}
		first[dj] = int16(next)
	}
	try := func(dj, dq int) bool {
		if dj == 0 && dq == 0 || i+dj > len(units) || p+dq > len(got) {
			return false
		}
		if b := first[dj]; b < 0 && p+dq != len(got) || b >= 0 && (p+dq == len(got) || int16(got[p+dq]) != b) {
			return false
		}
		return (!esc || !inUEscape(got, p+dq)) && resumesAt(units, got, i+dj, p+dq, steps)
	}
	for c := 1; c <= maxSkip; c++ {
		if paired {
			if try(c, c) {
				return region{i, i + c, p, p + c}, true
			}
			for dq := c - 2; dq >= 0; dq-- { // c-1 steps
				if try(c-1, dq) {
					return region{i, i + c - 1, p, p + dq}, true
				}
			}
			for dj := c - 2; dj >= 0; dj-- { // c-1 bytes
				if try(dj, c-1) {
					return region{i, i + dj, p, p + c - 1}, true
				}
			}
			continue
		}
		for dj := min(c, len(units)-i); dj >= 0; dj-- {
			switch {
			case dj > 0 && c-dj > 0 && try(dj, c-dj): // steps written otherwise
				return region{i, i + dj, p, p + c - dj}, true
			case dj > 0 && c == dj+1 && try(dj, 0): // steps lost
				return region{i, i + dj, p, p}, true
			case dj == 0 && c > 1 && try(0, c-1): // bytes added
				return region{i, i, p, p + c - 1}, true
			}
		}
	}
	return region{i, len(units), p, len(got)}, false
}

// inUEscape reports whether offset q of a JSON string's bytes lies inside a \uXXXX, after its
// 'u' and before its fourth hex digit.
func inUEscape(b []byte, q int) bool {
	for k := q - 2; k >= max(0, q-5); k-- {
		if b[k] != '\\' || b[k+1] != 'u' {
			continue
		}
		n := 0 // backslashes before k: an odd count escapes b[k]
		for n < k && b[k-1-n] == '\\' {
			n++
		}
		for _, c := range b[k+2 : q] {
			if !isHex(c) {
				return false
			}
		}
		return n%2 == 0
	}
	return false
}

// isHex reports whether c is a hex digit, of either case.
func isHex(c byte) bool { return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f' }

// ascii reports whether u is an ASCII byte's step: its output says which step it is. (A '?'
// of utf8_decode or a \ufffd may be any failed step's, or a code point's.)
func ascii(u unit) bool {
	return u.exit == oracle.ExitASCII || u.exit == oracle.ExitNone && u.inEnd > u.in
}

// leftmost moves a stretch that only removes steps' bytes, or only adds bytes, left while the
// step before it is an ASCII byte's that reads the same as its last step (or its last bytes),
// not past unit done.
func leftmost(units []unit, got []byte, r region, done int) region {
	switch {
	case r.p == r.q && r.j > r.i:
		// Not across a failed step: its marker reading as the next one's is no reason to move.
		for r.i > done && bytes.Equal(units[r.i-1].want, units[r.j-1].want) && len(units[r.i-1].want) > 0 && ascii(units[r.i-1]) {
			r.i, r.j = r.i-1, r.j-1
			r.p -= len(units[r.i].want)
			r.q = r.p
		}
	case r.i == r.j && r.q > r.p:
		for r.i > done {
			w := units[r.i-1].want
			if len(w) == 0 || !ascii(units[r.i-1]) || r.q-r.p < len(w) || r.p < len(w) || !bytes.Equal(got[r.q-len(w):r.q], w) {
				break
			}
			r.i, r.j = r.i-1, r.j-1
			r.p, r.q = r.p-len(w), r.q-len(w)
		}
	}
	return r
}

// dividesFor reports whether a stretch of several steps divides among them (split).
func dividesFor(units []unit, in, got []byte, opts jsonopt.Options, decode bool) func(region) bool {
	return func(r region) bool {
		return split(units, in, got, r, opts, decode, false) != nil || split(units, in, got, r, opts, decode, true) != nil
	}
}

// writesFor reports whether b starts with what a candidate might write for the bytes src of a
// failed step PHP drops: the bytes raw, \ufffd, EF BF BD, '?' or 0x1A, or the escape of the
// code point their bits give.
func writesFor(in []byte) func(unit, []byte) bool {
	return func(u unit, b []byte) bool {
		src := in[u.in:u.inEnd]
		if len(src) == 0 {
			return false
		}
		if bytes.HasPrefix(b, src) {
			return true
		}
		for _, w := range [][]byte{subFFFD, subFFFDRaw, subQuestion, sub1A} {
			if bytes.HasPrefix(b, w) {
				return true
			}
		}
		// A decoder that takes the bytes after the lead by their bits alone.
		if cp, n, ok := bits(in[u.in:], false); ok {
			return bytes.HasPrefix(b, uEscape(cp, false)) || bytes.HasPrefix(b, uEscape(cp, true)) || bytes.HasPrefix(b, in[u.in:u.in+n])
		}
		return false
	}
}

// widen joins a stretch with the failed steps next to it when what the candidate wrote there
// reads as their markers: one more '?' after a failure is the failure split, one '?' missing
// is two failures merged, a byte missing after a failure is the failure swallowing it.
func widen(units []unit, got []byte, r region, marker []byte) region {
	g := got[r.p:r.q]
	isMarker := func(k int) bool {
		return k >= 0 && k < len(units) && units[k].failed() && bytes.Equal(units[k].want, marker)
	}
	switch {
	case string(marker) == "?" && r.i == r.j && len(g) > 0 && isMarker(r.i-1):
		// utf8_decode writes a byte a step: bytes added after a failure are steps of it.
		r.i--
		r.p -= len(marker)
		return r
	case string(marker) == "?" && r.i == r.j && len(g) > 0 && isMarker(r.j):
		r.j++ // or of the failure after them
		r.q += len(marker)
		return r
	}
	if len(marker) > 0 && r.j > r.i && bytes.HasPrefix(g, marker) && !bytes.HasPrefix(units[r.i].want, marker) && isMarker(r.i-1) && r.p >= len(marker) {
		// A marker more before a step PHP writes otherwise, after a failure: that failure
		// split (split divides the rest).
		r.i--
		r.p -= len(marker)
		return r
	}
	if len(marker) == 0 || len(g) > 0 && len(bytes.ReplaceAll(g, marker, nil)) > 0 {
		return r
	}
	if r.j == len(units) && r.j-r.i == 1 && units[r.i].in == units[r.i].inEnd && len(g) > 0 && isMarker(r.i-1) {
		// Markers where the closing quote belongs: a failure split, and the quote dropped.
		r.i--
		r.p -= len(marker)
		return r
	}
	switch {
	case r.i == r.j && isMarker(r.j): // a marker more, before a failure: that failure split
		r.j++
		r.q += len(marker)
	case r.i == r.j && isMarker(r.i-1): // a marker more, after a failure: back to one that can split
		k := r.i - 1
		for k > 0 && units[k].inEnd-units[k].in < 2 && isMarker(k-1) && r.i-k < 4 {
			k--
		}
		if units[k].inEnd-units[k].in < 2 {
			k = r.i - 1
		}
		r.p -= len(marker) * (r.i - k)
		r.i = k
	case len(g) == 0 && isMarker(r.i-1) && units[r.i].inEnd > units[r.i].in: // steps lost after a failure: it swallowed them
		r.i--
		r.p -= len(marker)
	case len(g) == 0 && r.j > r.i && isMarker(r.j) && units[r.i].failed(): // a failure lost before another: merged
		r.j++
		r.q += len(marker)
	case len(g) > 0 && isMarker(r.j) && units[r.i].failed(): // fewer markers: merged with the next
		r.j++
		r.q += len(marker)
	}
	return r
}

// Escape is the deviations of a candidate's json_encode answer (got; gotErr its
// json_last_error(), gotFalse set when it returned false) from PHP's for input in under opts.
func Escape(in []byte, opts jsonopt.Options, got []byte, gotErr int, gotFalse bool) []Deviation {
	want, spans, werr := oracle.EscapeExplain(nil, in, opts)
	return EscapeExplained(in, opts, want, spans, werr, got, gotErr, gotFalse)
}

// EscapeExplained is Escape with PHP's explained answer given (want, spans, werr: what
// oracle.EscapeExplain returns for in and opts), for a caller that has it already. When the
// answer is PHP's for the input without one byte (up to the form of its characters), its
// deviations but those of form have that reading too (SkipKey, withSkips); else a deviation
// whose stretch, without one byte, is what the candidate wrote there has it (localSkips).
func EscapeExplained(in []byte, opts jsonopt.Options, want []byte, spans []oracle.Span, werr error, got []byte, gotErr int, gotFalse bool) []Deviation {
	pu := escapeUnits(spans, want)
	defer putUnits(pu)
	ds := escapeExplained(in, opts, want, spans, *pu, werr, got, gotErr, gotFalse)
	if len(ds) == 0 {
		return ds
	}
	if at := escapeSkips(in, opts, *pu, want, werr, got, gotErr, gotFalse); len(at) > 0 {
		return withSkips(ds, at)
	}
	return localSkips(ds, in, func(b []byte) ([]byte, bool) {
		out, err := oracle.Escape(nil, b, opts&^(jsonopt.NumericCheck|jsonopt.PartialOutputOnError))
		return out[min(1, len(out)):max(0, len(out)-1)], err == nil // without its quotes
	})
}

// escapeExplained is EscapeExplained without the skip readings (units: the spans as units).
func escapeExplained(in []byte, opts jsonopt.Options, want []byte, spans []oracle.Span, units []unit, werr error, got []byte, gotErr int, gotFalse bool) []Deviation {
	whole := func(w What, detail string, row string) []Deviation {
		return []Deviation{{What: w, Detail: detail, Family: "string", Row: row, In: 0, InEnd: len(in), Want: want, Got: got, CP: -1}}
	}
	if werr == nil && !gotFalse && gotErr == 0 && (len(want) == 0 || want[0] != '"' || len(got) == 0 || got[0] != '"') {
		// A number (NUMERIC_CHECK) on either side: the cut is read on the answers whole.
		if t, ok := lastStepCut(in, want, got, opts); ok {
			if !lastByte(want, werr, got, gotErr, gotFalse) {
				return []Deviation{t}
			}
			ds := whole(Lost, "last-byte", "")
			ds[0].Alts = []string{t.Key()}
			return ds
		}
	}
	if lastByte(want, werr, got, gotErr, gotFalse) {
		return whole(Lost, "last-byte", "")
	}
	switch {
	case werr != nil && !gotFalse && len(got) == 0 && len(want) == 0:
		return whole(NotFalse, "empty", "") // "" where PHP returns false
	case werr != nil && (gotFalse || gotErr != 0 && bytes.Equal(got, want)):
		if gotErr != 0 && gotErr != int(jsonopt.ErrorUTF8) {
			return whole(ErrorCode, fmt.Sprint(gotErr), "")
		}
		return nil
	case werr != nil:
		return notFalse(in, opts, spans, got)
	case gotFalse || gotErr != 0 && len(got) == 0:
		return lostFalse(in, spans, want, got)
	case gotErr != 0:
		if bytes.Equal(got, want) {
			return whole(ErrorCode, fmt.Sprint(gotErr), "")
		}
	}
	marker := []byte(nil)
	switch {
	case opts&jsonopt.InvalidUTF8Ignore != 0: // §1.5: IGNORE is tested before SUBSTITUTE
	case opts&jsonopt.InvalidUTF8Substitute != 0 && opts&jsonopt.UnescapedUnicode != 0:
		marker = []byte("\xef\xbf\xbd")
	case opts&jsonopt.InvalidUTF8Substitute != 0:
		marker = []byte(`\ufffd`)
	}
	if len(got) == 0 && len(want) > 0 {
		return whole(Lost, "empty", "")
	}
	t, cut := tailOf(in, units, want, got, `"`, escapeAgain(opts))
	if n := len(units); n > 1 && units[n-1].in == len(in) && string(units[n-1].want) == `"` && got[len(got)-1] != '"' {
		// The closing quote is missing (an answer that ends early): the rest is read without
		// it, the quote named on its own — the one stretch that reaches the end would
		// otherwise hold the quote and every difference before it.
		ds := read(units[:n-1], in, got, marker, opts, false)
		if t, cut := quotedTail(in, units, want, got, opts); cut {
			// With its quote, the answer is PHP's for the input cut short: the cut too (a
			// candidate that loses its last step and its quote shows both faults).
			ds = withTail(ds, t)
		}
		return dedupe(append(ds, classify(units, in, got, region{n - 1, n, len(got), len(got)}, marker, opts, false)...))
	}
	if cut {
		return withTail(read(units, in, got, marker, opts, false), t)
	}
	if ds, ok := formTail(in, units, want, got, opts); ok {
		return ds
	}
	return emptyCut(dropsToEnd(read(units, in, got, marker, opts, false), units, in), units, in, got, []byte(`""`))
}

// lastByte reports whether the candidate's answer is PHP's without its last byte, with the
// same failure or none (a closing quote dropped; "nul" for the null of PARTIAL_OUTPUT_ON_ERROR,
// "1" for 12 under NUMERIC_CHECK: an output cut one byte short, as substr($r, 0, -1) cuts it).
func lastByte(want []byte, werr error, got []byte, gotErr int, gotFalse bool) bool {
	return len(want) > 0 && !gotFalse && (werr != nil) == (gotErr != 0) && bytes.Equal(got, want[:len(want)-1])
}

// lostFalse describes a false where PHP has an answer: under INVALID_UTF8_IGNORE or _SUBSTITUTE
// on invalid input, the option is what the candidate misses; on valid input with a multi-byte
// sequence, the candidate rejects the first (the decoder's fault, as decode and utf8_decode
// show it); otherwise the whole answer is lost.
func lostFalse(in []byte, spans []oracle.Span, want, got []byte) []Deviation {
	d := Deviation{What: Lost, Detail: "false", Family: "string", In: 0, InEnd: len(in), Want: want, Got: got, CP: -1}
	for _, sp := range spans {
		if sp.Rule == oracle.RuleIgnore || sp.Rule == oracle.RuleSubstitute || sp.Rule == oracle.RuleSubstituteRaw {
			d.Family, d.Row = "failed", sp.Exit.Row()
			return []Deviation{d}
		}
	}
	for _, sp := range spans {
		if sp.Exit == oracle.ExitOK2 || sp.Exit == oracle.ExitOK3 || sp.Exit == oracle.ExitOK4 {
			d.What, d.Detail, d.Family, d.Row, d.In, d.InEnd = Rejected, "", "valid", sp.Exit.Row(), sp.In, sp.InEnd
			return []Deviation{d}
		}
	}
	return []Deviation{d}
}

// notFalse describes an answer where PHP returns false (or null): one NotFalse deviation named
// by what the candidate wrote for the first failed step, read by aligning its answer with PHP's
// answer under INVALID_UTF8_SUBSTITUTE; then the deviations of the valid parts.
func notFalse(in []byte, opts jsonopt.Options, spans []oracle.Span, got []byte) []Deviation {
	first := spans[0]
	sub := opts | jsonopt.InvalidUTF8Substitute
	sub &^= jsonopt.InvalidUTF8Ignore | jsonopt.PartialOutputOnError
	want, sspans, _ := oracle.EscapeExplain(nil, in, sub)
	pu := escapeUnits(sspans, want)
	defer putUnits(pu)
	units := *pu
	marker := []byte(`\ufffd`)
	if sub&jsonopt.UnescapedUnicode != 0 {
		marker = []byte("\xef\xbf\xbd")
	}
	if t, ok := tailOf(in, units, want, got, `"`, escapeAgain(opts)); ok {
		return []Deviation{t} // PHP's answer for the start of the input: the failure is in what it lost
	}
	if n := len(units); n > 1 && len(got) > 0 && got[len(got)-1] != '"' && string(units[n-1].want) == `"` {
		if t, ok := quotedTail(in, units, want, got, opts); ok {
			// With its quote it would be: the failure is in what it lost, and the quote is
			// missing too (two faults).
			return dedupe(append([]Deviation{t}, classify(units, in, got, region{n - 1, n, len(got), len(got)}, marker, sub, false)...))
		}
	}
	nf := Deviation{What: NotFalse, Detail: "other", Family: "failed", Row: first.Exit.Row(), In: first.In, InEnd: first.InEnd, Got: got, CP: -1}
	var rest, decs []Deviation
	matchedFirst := true
	prev := region{}
	for _, r := range align(units, got, false, true, writesFor(in), dividesFor(units, in, got, sub, false)) {
		if w := widen(units, got, r, marker); widened(units, got, r, w, prev) {
			r = w
		}
		prev = r
		for _, d := range classifyAll(units, in, got, r, marker, sub, false) {
			onFailed := false
			for _, u := range units[r.i:r.j] {
				onFailed = onFailed || u.failed() && u.in <= d.In && d.In < u.inEnd
			}
			switch {
			case d.What == Accepted:
				decs = append(decs, d)
			case d.What == Advance:
				// Failed steps ended elsewhere, and written: a fault of its own beside the
				// answer where PHP has none.
				rest = append(rest, d)
			case d.What == Form && d.Detail == "unescaped" && len(decs) > 0:
				rest = append(rest, d) // the decoded step written raw: a second fault
			case onFailed || d.Family == "failed" || isExitFamily(d.Family):
				// How the candidate wrote a step PHP fails on: the NotFalse deviation says it.
				if d.In <= first.In && first.In < max(d.InEnd, d.In+1) {
					matchedFirst = false
					nf.Detail = notFalseDetail(d)
				}
			default:
				rest = append(rest, d)
			}
		}
	}
	if matchedFirst {
		nf.Detail = "fffd"
	}
	for k, d := range decs {
		if d.In <= first.In && first.In < d.InEnd {
			// The candidate decoded the step PHP fails on: that is the fault (decode and
			// utf8_decode show it alike), PHP's false only its consequence.
			nf, decs = d, slices.Delete(decs, k, k+1)
			break
		}
	}
	// A step decoded after the first failed one is a fault of its own beside the answer.
	ds := dropsToEnd(dedupe(append(append([]Deviation{nf}, decs...), rest...)), units, in)
	return emptyCut(ds, units, in, got, []byte(`""`))
}

// notFalseDetail names how a candidate wrote the first step PHP fails on: U+FFFD in any form
// (as INVALID_UTF8_SUBSTITUTE does, escaped or raw, in either case), raw, nothing, another
// constant.
func notFalseDetail(d Deviation) string {
	switch {
	case d.What == Form && (d.Detail == "unescaped" || strings.HasSuffix(d.Detail, "-hex")):
		return "fffd"
	case d.What == Substitute && (d.Detail == fmt.Sprintf("%x", `\ufffd`) || d.Detail == "efbfbd"):
		return "fffd"
	case d.What == Substitute:
		return "substitute:" + d.Detail
	}
	return string(d.What)
}

func isExitFamily(f string) bool {
	switch f {
	case "never-a-lead", "bad-sequence", "overlong", "surrogate", "above-max":
		return true
	}
	return false
}

// escapeUnits are the oracle's spans as units, in a slice from a pool that putUnits returns
// it to (a deviation copies what it needs of a unit: nothing keeps the slice).
func escapeUnits(spans []oracle.Span, want []byte) *[]unit {
	p := unitPool.Get().(*[]unit)
	if cap(*p) < len(spans) {
		*p = make([]unit, len(spans))
	}
	*p = (*p)[:len(spans)]
	for k, sp := range spans {
		(*p)[k] = unit{in: sp.In, inEnd: sp.InEnd, want: want[sp.Out:sp.OutEnd], rule: sp.Rule, exit: sp.Exit}
	}
	return p
}

// putUnits returns units to the pool, cleared: the pool keeps no answer alive.
func putUnits(p *[]unit) {
	clear(*p)
	unitPool.Put(p)
}

var unitPool = sync.Pool{New: func() any { return new([]unit) }}

// costPool holds alignBytes's tables.
var costPool = sync.Pool{New: func() any { return new([]int32) }}

// spanPool holds the span buffers UTF8Decode explains PHP's answer into.
var spanPool = sync.Pool{New: func() any { return new([]oracle.Span) }}

// UTF8Decode is the deviations of a candidate's utf8_decode answer got from PHP's for in.
func UTF8Decode(in, got []byte) []Deviation {
	sp := spanPool.Get().(*[]oracle.Span)
	defer spanPool.Put(sp)
	want, spans := oracle.UTF8DecodeExplainTo(make([]byte, 0, len(in)), *sp, in)
	*sp = spans[:0] // the units copy what they need of a span
	return UTF8DecodeExplained(in, want, spans, got)
}

// UTF8DecodeExplained is UTF8Decode with PHP's explained answer given (want, spans: what
// oracle.UTF8DecodeExplain returns for in), for a caller that has it already. When the answer
// is PHP's for the input without one byte, its deviations have that reading too (SkipKey,
// withSkips); else a deviation whose stretch, without one byte, is what the candidate wrote
// there has it (localSkips).
func UTF8DecodeExplained(in, want []byte, spans []oracle.Span, got []byte) []Deviation {
	pu := escapeUnits(spans, want)
	defer putUnits(pu)
	ds := utf8DecodeExplained(in, want, spans, *pu, got)
	if len(ds) == 0 {
		return ds
	}
	if at := utf8DecodeSkips(in, *pu, want, got); len(at) > 0 {
		return withSkips(ds, at)
	}
	return localSkips(ds, in, func(b []byte) ([]byte, bool) { return oracle.UTF8Decode(nil, b), true })
}

// utf8DecodeExplained is UTF8DecodeExplained without the skip readings (units: the spans as
// units).
func utf8DecodeExplained(in, want []byte, spans []oracle.Span, units []unit, got []byte) []Deviation {
	whole := func(detail string) []Deviation {
		return []Deviation{{What: Lost, Detail: detail, Family: "string", In: 0, InEnd: len(in), Want: want, Got: got, CP: -1}}
	}
	var ds []Deviation
	t, cut := tailOf(in, units, want, got, "", utf8DecodeAgain)
	if len(got) == 0 && (len(want) > 1 || endsInside(in, spans)) {
		ds = whole("empty")
	} else {
		ds = read(units, in, got, subQuestion, 0, true)
	}
	if len(want) > 0 && bytes.Equal(got, want[:len(want)-1]) {
		// The answer cut one byte short, as substr($r, 0, -1) cuts it, where the steps read
		// as one definite deviation too ("??" to "?" merges two failures, "ab" to "a" drops
		// the b): that stays, with the cut as its other reading, which the report files the
		// findings under when the candidate cuts answers elsewhere (json_encode's closing
		// quote) and nearly all of them read so. Else the cut is the deviation.
		if len(ds) != 1 || vagueness(ds) != 1 {
			ds = whole("last-byte")
		} else {
			ds[0].Alts = append(ds[0].Alts, whole("last-byte")[0].Key())
		}
		if cut {
			// The last step lost is the cut too: its other reading (a candidate that stops
			// early in json_encode as well is filed there).
			ds[0].Alts = append(ds[0].Alts, t.Key())
		}
		return emptyCut(ds, units, in, got, nil)
	}
	if cut {
		return withTail(ds, t)
	}
	if len(got) == 0 {
		return ds
	}
	return dropsToEnd(ds, units, in)
}

// Step is the deviation of a candidate's php_next_utf8_char step got at pos from PHP's (none
// when they agree).
func Step(in []byte, pos int, got jsonopt.Step) []Deviation {
	want, e := oracle.NextCharExplain(in, pos)
	if want == got {
		return nil
	}
	d := Deviation{In: pos, InEnd: min(pos+max(want.Advance, got.Advance), len(in)), Row: e.Row(), Family: e.Family(), CP: -1}
	switch {
	case !want.OK && got.OK && bitsGive(in[pos:], got):
		// Decoded by the bits of the lead and the bytes after it, whatever they are (a decoder
		// that does not check continuation bytes swallows what PHP decodes on its own).
		d.What, d.Detail, d.CP = Accepted, "bits", rune(got.CP)
		d.Family = acceptedFamily(got.CP, in[pos:min(pos+got.Advance, len(in))], d.Family)
	case !want.OK && got.OK && got.Advance > want.Advance && swallowsValid(in, pos+want.Advance, pos+got.Advance):
		d.What, d.Detail, d.Family = Advance, "swallows", "failed"
	case !want.OK && got.OK:
		d.What, d.Detail, d.CP = Accepted, "other", rune(got.CP)
	case want.OK && !got.OK:
		d.What, d.Family = Rejected, "valid"
	case !want.OK && got.Advance < want.Advance:
		d.What, d.Detail = Advance, "split"
	case !want.OK:
		// Longer than PHP's failure: over bytes PHP fails as well (merged) or decodes (swallows).
		// Of any family, as classify reads them in a string (the fault is where the step
		// ends, not what failed).
		d.What, d.Detail, d.Family = Advance, "merged", "failed"
		if swallowsValid(in, pos+want.Advance, pos+got.Advance) {
			d.Detail = "swallows"
		}
	default:
		d.What, d.Detail, d.Family = Wrong, "code-point", "valid"
		if want.CP == got.CP {
			d.Detail = "advance"
		}
	}
	return []Deviation{d}
}

// read is the deviations of got against PHP's units: of the alignments (align, steps and bytes
// skipped counted apart or paired; for utf8_decode also alignBytes), the one read as fewer
// and more definite deviations (vagueness), the first when as good. A run of '?' can line up
// with a candidate's bytes more than one way; the reading that needs fewer things to have
// gone wrong, each a known behaviour, is the likelier.
func read(units []unit, in, got []byte, marker []byte, opts jsonopt.Options, decode bool) []Deviation {
	writes, divides := writesFor(in), dividesFor(units, in, got, opts, decode)
	rs := align(units, got, false, !decode, writes, divides)
	ds := ignoreSwallows(classifyRegions(units, in, got, rs, marker, opts, decode), units, in, opts, decode)
	if v := vagueness(ds); len(rs) < 2 && v < 2 || len(marker) == 0 && v == len(ds) {
		return ds // one definite deviation, or definite ones and no run of markers to read otherwise
	}
	alts := [][]region{align(units, got, true, !decode, writes, divides)}
	if decode {
		alts = append(alts, alignBytes(units, got))
	}
	for _, ps := range alts {
		if ps == nil || slices.Equal(ps, rs) {
			continue
		}
		if pds := ignoreSwallows(classifyRegions(units, in, got, ps, marker, opts, decode), units, in, opts, decode); vagueness(pds) < vagueness(ds) {
			rs, ds = ps, pds
		}
	}
	return ds
}

// ignoreSwallows reads a step written as nothing right after a failed step PHP drops
// (INVALID_UTF8_IGNORE) as that failure swallowing it, as the same answer reads under
// SUBSTITUTE, where PHP's marker shows where the failure ends: a decoder that resumes one
// step late drops the character after every failure, whatever it is. So does a longer
// stretch from there that such a decoder writes as the candidate did (cascade): resuming a
// byte late inside a character makes its other bytes fail in turn, each swallowing the next.
func ignoreSwallows(ds []Deviation, units []unit, in []byte, opts jsonopt.Options, decode bool) []Deviation {
	for i, d := range ds {
		if d.What != Substitute || d.Detail != "" {
			continue
		}
		for k := 1; k < len(units); k++ {
			u, p := units[k], units[k-1]
			// The stretch is the step after the dropped failure, or both (a longer one from
			// there is cascadeAround's, below).
			if (u.in == d.In || p.in == d.In) && u.inEnd == d.InEnd && p.inEnd == u.in && afterIgnored(units, k) {
				// Whatever failed: the failure's family does not matter to the fault.
				// The drop stays its other reading: a candidate that drops the character
				// (a default-ignorable one) wherever it is is filed there.
				ds[i] = Deviation{What: Advance, Detail: "swallows", Family: "failed", Row: p.exit.Row(), In: p.in, InEnd: d.InEnd,
					Want: d.Want, Got: d.Got, CP: -1, Alts: append(slices.Clip(d.Alts), d.Key())}
				break
			}
		}
	}
	for i := 0; i < len(ds); i++ {
		// (A split failure in escape shows its \ufffd apart: there a cascade is read from the
		// stretch after it, which takes the split in.)
		if d := ds[i]; d.What == Substitute || d.What == Rejected || d.What == Wrong && d.Detail == "failed-step" || decode && d.What == Advance && d.Detail == "split" {
			if w, o, ok := cascadeAround(d, ds, units, in, opts, decode); ok {
				if o >= 0 { // the failure's own stretch, now in w: its readings are w's too
					w.Alts = append(append(w.Alts, ds[o].Key()), ds[o].Alts...)
				}
				ds[i] = w
				if o >= 0 {
					ds = slices.Delete(ds, o, o+1)
					i--
				}
			}
		}
	}
	return ds
}

// maxCascade bounds the steps cascadeAround widens a stretch by, each way.
const maxCascade = 8

// cascadeAround reads a stretch d after a failed step (IGNORE or SUBSTITUTE) as that failure's
// cascade (see cascades), widened to start at the failure and to end a few steps later:
// repeated bytes ("80 61 61 61 80 61", written "aa") let the alignment put the dropped ones
// elsewhere than where the swallows took them, and under SUBSTITUTE the failure's \ufffd
// matches PHP's, so the stretch begins after it ("F1 80 80 C3 80" written "\ufffd\ufffd": the
// swallowed lead's continuation byte fails on its own). The steps it takes in beside d match
// PHP's (no other deviation lies there), so the candidate wrote PHP's bytes for them; but for
// a deviation of the failure itself, right before d (its marker written twice: "split"),
// which it takes in too, and returns the index of (o; -1 when none).
func cascadeAround(d Deviation, ds []Deviation, units []unit, in []byte, opts jsonopt.Options, decode bool) (Deviation, int, bool) {
	i0 := slices.IndexFunc(units, func(u unit) bool { return u.in == d.In })
	j := slices.IndexFunc(units, func(u unit) bool { return u.in == d.InEnd })
	if j < 0 && len(units) > 0 && units[len(units)-1].inEnd == d.InEnd {
		j = len(units) // d runs to the end (utf8_decode has no closing quote's step)
	}
	if i0 < 0 || j < 0 {
		return d, -1, false
	}
	// The failure the cascade starts at: d's own first step, or one before it, nearest first.
	for f := i0; f >= max(0, i0-maxCascade); f-- {
		if u := units[f]; !u.failed() || u.inEnd == u.in {
			continue
		}
		if w, o, ok := cascadeFrom(d, ds, units, in, opts, decode, f, i0, j); ok {
			return w, o, true
		}
	}
	return d, -1, false
}

// cascadeFrom is cascadeAround's test of a cascade from the failed step units[f] (f <= i0, the
// step d starts at; j: the step it ends before).
func cascadeFrom(d Deviation, ds []Deviation, units []unit, in []byte, opts jsonopt.Options, decode bool, f, i0, j int) (Deviation, int, bool) {
	from := units[f].in
	var pre, suf []byte
	for _, u := range units[f:i0] {
		pre = append(pre, u.want...)
	}
	o := -1
	for n, e := range ds {
		switch {
		case e.In >= d.In || e.InEnd <= from:
		case e.In == from && e.InEnd == d.In && f+1 == i0:
			o, pre = n, e.Got
		default:
			return d, -1, false
		}
	}
	for e := j; e <= min(len(units), j+maxCascade); e++ {
		end := d.InEnd
		if e > j {
			end = units[e-1].inEnd
			if slices.ContainsFunc(ds, func(o Deviation) bool { return o.In >= units[e-1].in && o.In < end }) {
				break
			}
			suf = append(suf, units[e-1].want...)
		}
		got := slices.Concat(pre, d.Got, suf)
		if cascades(in, from, end, got, opts, decode) {
			want := slices.Concat(units[f].want, d.Want, suf)
			if o < 0 {
				want = slices.Concat(pre, d.Want, suf)
			}
			return Deviation{What: Advance, Detail: "swallows", Family: "failed", Row: units[f].exit.Row(), In: from, InEnd: end,
				Want: want, Got: got, CP: -1, Alts: append(slices.Clip(d.Alts), d.Key())}, o, true
		}
	}
	return d, -1, false
}

// cascades reports whether a decoder whose failed step at from (a failure PHP's decoder sees
// too) resumes one byte or one step late writes got for in[from:to], its steps ending at to:
// each failure written as PHP writes one under opts (nothing under IGNORE, U+FFFD under
// SUBSTITUTE), every later failure resuming late as well or only the first.
func cascades(in []byte, from, to int, got []byte, opts jsonopt.Options, decode bool) bool {
	var marker []byte
	switch {
	case decode:
		marker = subQuestion // utf8_decode's '?'
	case opts&jsonopt.InvalidUTF8Ignore != 0:
	case opts&jsonopt.InvalidUTF8Substitute == 0:
		return false // the string fails: nothing is written
	case opts&jsonopt.UnescapedUnicode != 0:
		marker = subFFFDRaw
	default:
		marker = subFFFD
	}
	for v := range 4 {
		byByte, every := v&1 == 0, v&2 == 0
		out, ok := cascade(in, from, to, marker, opts, decode, byByte, every)
		if ok && bytes.Equal(out, got) {
			return true
		}
	}
	return false
}

// cascade is what cascades' decoder writes for in[from:to] (one way it may resume), and
// whether its steps end at to.
func cascade(in []byte, from, to int, marker []byte, opts jsonopt.Options, decode, byByte, every bool) ([]byte, bool) {
	var out []byte
	pos, first, skip := from, true, false
	for pos < to {
		st := oracle.NextChar(in, pos)
		switch {
		case skip && byByte:
			pos, skip = pos+1, false
		case skip:
			pos, skip = pos+max(1, st.Advance), false
		case !st.OK:
			out = append(out, marker...)
			pos, skip, first = pos+max(1, st.Advance), first || every, false
		case decode:
			out = appendEncode(out, st.CP, opts, true)
			pos += st.Advance
		default:
			e, err := oracle.Escape(nil, in[pos:pos+st.Advance], opts&^(jsonopt.NumericCheck|jsonopt.PartialOutputOnError))
			if err != nil || len(e) < 2 {
				return nil, false
			}
			out = append(out, e[1:len(e)-1]...)
			pos += st.Advance
		}
	}
	return out, pos == to
}

// vagueness scores a reading: one for each deviation, three for one that names no known
// behaviour (bytes other than PHP's, not one constant; bytes added; another character).
func vagueness(ds []Deviation) int {
	n := 0
	for _, d := range ds {
		switch {
		case d.What == Wrong || d.What == Extra || d.Detail == "other":
			n += 3
		default:
			n++
		}
	}
	return n
}

// maxCells bounds the table alignBytes fills (steps times bytes between the common prefix and
// suffix); past it there is no third reading.
const maxCells = 1 << 16

// alignBytes aligns utf8_decode's answer, one byte a step, with PHP's by the fewest steps and
// bytes written otherwise, lost or added (an edit distance; of equal ones, pairing first): a
// run of '?' one longer than PHP's on each side of an 'a' is two failed steps split, not one
// 'a' written as "?a?". It returns the stretches that differ, nil when the table would be too
// large or a step writes other than one byte.
func alignBytes(units []unit, got []byte) []region {
	for _, u := range units {
		if len(u.want) != 1 {
			return nil
		}
	}
	lo := 0
	for lo < len(units) && lo < len(got) && units[lo].want[0] == got[lo] {
		lo++
	}
	n, m := len(units)-lo, len(got)-lo
	for n > 0 && m > 0 && units[lo+n-1].want[0] == got[lo+m-1] {
		n, m = n-1, m-1
	}
	if (n+1)*(m+1) > maxCells {
		return nil
	}
	// The table is filled in a band of diagonals: those between the one from (0,0) and the one
	// to (n,m), and band more on either side. A path that leaves the band takes band+1 bytes
	// added and as many lost beyond the |m-n| it must: when the cost found in the band is
	// below that, every cheapest path, and so the walk back below, lies in it. Else the band
	// widens (a long answer with a few differences is the usual; one far off, rare).
	buf := costPool.Get().(*[]int32)
	defer costPool.Put(buf)
	var t costBand
	for band := 16; ; {
		t = costBand{dlo: min(0, m-n) - band, dhi: max(0, m-n) + band}
		t.w = t.dhi - t.dlo + 1
		if cap(*buf) < (n+1)*t.w {
			*buf = make([]int32, (n+1)*t.w)
		}
		t.cost = (*buf)[:(n+1)*t.w] // every cell read is written first
		t.fill(units[lo:lo+n], got[lo:lo+m])
		c := int(t.at(n, m))
		if c <= abs(m-n)+2*band+1 || band >= n+m {
			break
		}
		// A band as wide as the cost says is enough: the cost in it is at most c.
		band = max(band*2, (c-abs(m-n))/2+1)
	}
	// Back from the end: a pair (match or step written otherwise) first, then a step lost,
	// then a byte added; differing moves next to each other are one stretch.
	var out []region
	k, q := n, m
	open := false
	for (k > 0 || q > 0) && k >= 0 && q >= 0 {
		k0, q0 := k, q
		same := false
		switch {
		case k > 0 && q > 0 && t.at(k, q) == t.at(k-1, q-1)+b2i(units[lo+k-1].want[0] != got[lo+q-1]):
			same = units[lo+k-1].want[0] == got[lo+q-1]
			k, q = k-1, q-1
		case k > 0 && t.at(k, q) == t.at(k-1, q)+1:
			k--
		default:
			q--
		}
		switch {
		case same:
			open = false
		case open:
			out[len(out)-1].i, out[len(out)-1].p = lo+k, lo+q
		default:
			out = append(out, region{lo + k, lo + k0, lo + q, lo + q0})
			open = true
		}
	}
	slices.Reverse(out)
	return out
}

// costBand is alignBytes's table in a band of diagonals dlo <= q-k <= dhi, w cells a row;
// a cell outside it costs more than any inside.
type costBand struct {
	cost        []int32
	w, dlo, dhi int
}

// fill fills the band for PHP's steps us (one byte each) against the bytes g: the cell (k, q)
// is the fewest steps and bytes written otherwise, lost or added that align us[:k] with g[:q].
// A cell sits at k*w + q-k-dlo; its neighbours up-left, up and left are one row back on the
// same diagonal, one row back on the next, and the cell before it.
func (t *costBand) fill(us []unit, g []byte) {
	n, m := len(us), len(g)
	for k := 0; k <= n; k++ {
		for q := max(0, k+t.dlo); q <= min(m, k+t.dhi); q++ {
			d := q - k
			at := k*t.w + d - t.dlo
			switch {
			case k == 0:
				t.cost[at] = int32(q)
			case q == 0:
				t.cost[at] = int32(k)
			default:
				c := t.cost[at-t.w]
				if us[k-1].want[0] != g[q-1] {
					c++
				}
				if d+1 <= t.dhi {
					c = min(c, t.cost[at-t.w+1]+1)
				}
				if d-1 >= t.dlo {
					c = min(c, t.cost[at-1]+1)
				}
				t.cost[at] = c
			}
		}
	}
}

func (t *costBand) at(k, q int) int32 {
	if d := q - k; d < t.dlo || d > t.dhi || k < 0 {
		return math.MaxInt32 / 2
	}
	return t.cost[k*t.w+q-k-t.dlo]
}

func abs(x int) int { return max(x, -x) }

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// classifyRegions is the deviations of the stretches align found, each widened to the failed
// steps next to it (widen) and classified (classifyAll), one per key (dedupe).
func classifyRegions(units []unit, in, got []byte, rs []region, marker []byte, opts jsonopt.Options, decode bool) []Deviation {
	if len(rs) == 1 && len(marker) == 0 { // the usual case: no second slice to gather into
		r := rs[0]
		if w := widen(units, got, r, marker); widened(units, got, r, w, region{}) {
			r = w
		}
		ds, _ := classifyNext(units, in, got, r, region{}, len(units), marker, opts, decode)
		return dedupe(ds)
	}
	out := make([]Deviation, 0, len(rs))
	prev := region{}
	for k, r := range rs {
		if w := widen(units, got, r, marker); widened(units, got, r, w, prev) {
			r = w
		}
		next := region{len(units), len(units), len(got), len(got)}
		if k+1 < len(rs) {
			next = rs[k+1]
		}
		if len(marker) > 0 {
			r = markerRun(units, got, r, prev, next, marker)
		}
		var ds []Deviation
		ds, r = classifyNext(units, in, got, r, prev, next.i, marker, opts, decode)
		out = append(out, ds...)
		prev = r
	}
	return dedupe(out)
}

// classifyNext is classifyBack, and when that reads as no known behaviour, the stretch with
// the step after it too (one got matched, before the next stretch), if that reads better: bytes
// a candidate adds before a step's writing (the \ of \/ where PHP writes /) go to the stretch
// before it when that one deviates too, and the two then read as nothing PHP writes
// ("\u061C\" for "\u061c"), where each step alone reads as what the candidate does. It
// returns the stretch read.
func classifyNext(units []unit, in, got []byte, r, prev region, end int, marker []byte, opts jsonopt.Options, decode bool) ([]Deviation, region) {
	ds := classifyBack(units, in, got, r, prev, marker, opts, decode)
	if vagueness(ds) < 3 || r.j >= end || !bytes.HasPrefix(got[r.q:], units[r.j].want) {
		return ds, r
	}
	n := region{r.i, r.j + 1, r.p, r.q + len(units[r.j].want)}
	if nds := classifyAll(units, in, got, n, marker, opts, decode); vagueness(nds) < vagueness(ds) {
		return nds, n
	}
	return ds, r
}

// classifyBack is classifyAll, and when that reads as no known behaviour, the stretch with the
// failed step before it too, if that reads better: a decoder that takes a failed step's bytes
// and the lead after it by their bits may write what PHP writes for the failure ('?' for a
// code point above U+00FF), and what it writes for the rest of the next step then reads as
// nothing PHP writes for that step.
func classifyBack(units []unit, in, got []byte, r, prev region, marker []byte, opts jsonopt.Options, decode bool) []Deviation {
	ds := classifyAll(units, in, got, r, marker, opts, decode)
	if vagueness(ds) < 3 || r.i == 0 || r.i-1 < prev.j || !units[r.i-1].failed() || r.p < len(units[r.i-1].want) {
		return ds
	}
	b := region{r.i - 1, r.j, r.p - len(units[r.i-1].want), r.q}
	if bds := classifyAll(units, in, got, b, marker, opts, decode); vagueness(bds) < vagueness(ds) {
		return bds
	}
	return ds
}

// widened reports whether w, the stretch r widened, is one: within the answers, not into the
// stretch before it (prev), and what it takes on either side is steps got matched as PHP
// writes them.
func widened(units []unit, got []byte, r, w, prev region) bool {
	if w.i < prev.j || w.p < prev.q || w.i > r.i || w.p > r.p || w.j < r.j || w.q < r.q || w.j > len(units) || w.q > len(got) {
		return false
	}
	var left, right []byte
	for _, u := range units[w.i:r.i] {
		left = append(left, u.want...)
	}
	for _, u := range units[r.j:w.j] {
		right = append(right, u.want...)
	}
	return bytes.Equal(left, got[w.p:r.p]) && bytes.Equal(right, got[r.q:w.q])
}

// markersOnly reports whether PHP's steps in r and the candidate's bytes there are all
// markers.
func markersOnly(units []unit, got []byte, r region, marker []byte) bool {
	if !onlyMarkers(got[r.p:r.q], marker) {
		return false
	}
	for _, u := range units[r.i:r.j] {
		if !bytes.Equal(u.want, marker) {
			return false
		}
	}
	return true
}

// markerRun widens a stretch of markers against markers (PHP's '?' of utf8_decode, its
// \ufffd under SUBSTITUTE) to the whole run of steps PHP writes the marker for (in
// utf8_decode failed steps and code points above U+00FF alike) and the markers they matched,
// between the stretches before and after it: which step wrote which marker does not show, only
// how many the run has.
func markerRun(units []unit, got []byte, r, prev, next region, marker []byte) region {
	if !onlyMarkers(got[r.p:r.q], marker) && r.q > r.p {
		return r
	}
	for _, u := range units[r.i:r.j] {
		if !bytes.Equal(u.want, marker) {
			return r
		}
	}
	n := len(marker)
	for r.i > prev.j && r.p-n >= prev.q && bytes.Equal(units[r.i-1].want, marker) && bytes.Equal(got[r.p-n:r.p], marker) {
		r.i, r.p = r.i-1, r.p-n
	}
	for r.j < next.i && r.q+n <= next.p && bytes.Equal(units[r.j].want, marker) && bytes.HasPrefix(got[r.q:], marker) {
		r.j, r.q = r.j+1, r.q+n
	}
	return r
}

// classifyAll is classify of the stretch, or of each of its steps when it divides among them
// (split).
func classifyAll(units []unit, in, got []byte, r region, marker []byte, opts jsonopt.Options, decode bool) []Deviation {
	parts := split(units, in, got, r, opts, decode, false)
	if parts == nil {
		if ds, ok := walk(units, in, got, r, marker, opts, decode); ok {
			return acceptedOr(ds, units, in, got, r, marker, opts, decode)
		}
		if parts = split(units, in, got, r, opts, decode, true); parts == nil {
			return classify(units, in, got, r, marker, opts, decode)
		}
	}
	if len(parts) == 1 {
		return classify(units, in, got, parts[0], marker, opts, decode)
	}
	out := make([]Deviation, 0, len(parts))
	covered := 0 // input bytes a decoded step took, past its own: their steps are part of it
	for _, p := range parts {
		if units[p.i].in < covered {
			continue
		}
		ds := classify(units, in, got, p, marker, opts, decode)
		for _, d := range ds {
			if d.What == Accepted {
				if _, n, ok := bits(in[d.In:], false); ok {
					covered = max(covered, d.In+n)
				}
			}
		}
		out = append(out, ds...)
	}
	return out
}

// walk divides a stretch step by step from its start when split cannot (a decoded step took
// the bytes of the steps after it): at each step, a failed step decoded by its bits
// (acceptedAt) takes its bytes and what it wrote; any other step takes one of its writings
// (PHP's first). It reports false when some step's bytes read as none of them.
func walk(units []unit, in, got []byte, r region, marker []byte, opts jsonopt.Options, decode bool) ([]Deviation, bool) {
	if r.j-r.i < 2 || r.j-r.i > maxSplit || decode && markersOnly(units, got, r, marker) {
		return nil, false // a run of '?' against '?' counts steps (classify)
	}
	var out []Deviation
	x, k := r.p, r.i
	for k < r.j {
		u := units[k]
		if ds, used, end, ok := acceptedWalk(units, k, in, got[x:], opts, decode); ok && x+used <= r.q {
			out = append(out, ds...)
			x += used
			for k < r.j && units[k].in < end {
				k++
			}
			if last := units[k-1]; last.inEnd > end {
				// The decoded step ended inside one of PHP's: the candidate's next step starts
				// where PHP's does not (C3 CE 80 taken as C3 CE, then 80 alone).
				ds, n, ok := fromInside(in, end, last.inEnd, got, x, r.q, marker, opts, decode)
				if !ok {
					return nil, false
				}
				out = append(out, ds...)
				x += n
			}
			continue
		}
		n, ok := writingAt(u, in, got[x:r.q], opts, decode)
		if !ok {
			return nil, false
		}
		if !bytes.Equal(got[x:x+n], u.want) {
			out = append(out, classify(units, in, got, region{k, k + 1, x, x + n}, marker, opts, decode)...)
		}
		x += n
		k++
	}
	return out, x == r.q
}

// fromInside reads the candidate's answer from got[x:q] for the input bytes in[from:to], which
// PHP decodes as part of a step that starts before from: against what PHP writes for those
// bytes when a step starts at from. It returns the deviations, how many bytes of got they
// took, false when the bytes read as no writing of those steps.
func fromInside(in []byte, from, to int, got []byte, x, q int, marker []byte, opts jsonopt.Options, decode bool) ([]Deviation, int, bool) {
	var want []byte
	var spans []oracle.Span
	if decode {
		want, spans = oracle.UTF8DecodeExplain(nil, in[from:to])
	} else {
		var err error
		opts &^= jsonopt.NumericCheck
		if want, spans, err = oracle.EscapeExplain(nil, in[from:to], opts); err != nil {
			want, spans, _ = oracle.EscapeExplain(nil, in[from:to], opts|jsonopt.InvalidUTF8Substitute)
		}
	}
	var us []unit
	for _, sp := range spans {
		if sp.InEnd > sp.In { // not json_encode's quotes
			us = append(us, unit{in: from + sp.In, inEnd: from + sp.InEnd, want: want[sp.Out:sp.OutEnd], rule: sp.Rule, exit: sp.Exit})
		}
	}
	var out []Deviation
	start := x
	for j, u := range us {
		n, ok := writingAt(u, in, got[x:q], opts, decode)
		if !ok {
			return nil, 0, false
		}
		if !bytes.Equal(got[x:x+n], u.want) {
			out = append(out, classify(us, in, got, region{j, j + 1, x, x + n}, marker, opts, decode)...)
		}
		x += n
	}
	return out, x - start, true
}

// writingAt is the length of the first writing of u (PHP's first) that b starts with.
func writingAt(u unit, in, b []byte, opts jsonopt.Options, decode bool) (int, bool) {
	n, ok := 0, false
	writings(u, in[u.in:u.inEnd], b, opts, decode, func(m int) bool {
		if m == 0 && len(u.want) > 0 && u.inEnd > u.in {
			return true
		}
		n, ok = m, true
		return false
	})
	return n, ok
}

// bitsGive reports whether got is the step the bits of b's first sequence give (bits).
func bitsGive(b []byte, got jsonopt.Step) bool {
	cp, n, ok := bits(b, false)
	return ok && n == got.Advance && cp == got.CP
}

// endsInside reports whether the input ends inside a sequence: its last step is a lead
// (C2..F4) whose failure reaches the end of the input.
func endsInside(in []byte, spans []oracle.Span) bool {
	if len(spans) == 0 {
		return false
	}
	last := spans[len(spans)-1]
	c := in[last.In]
	return last.Exit.Family() == "bad-sequence" && last.InEnd == len(in) && c >= 0xC2 && c <= 0xF4
}

// swallowsValid reports whether PHP decodes a valid step in in[from:to] (steps starting there).
func swallowsValid(in []byte, from, to int) bool {
	for at := from; at < min(to, len(in)); {
		st, _ := oracle.NextCharExplain(in, at)
		if st.OK {
			return true
		}
		at += st.Advance
	}
	return false
}

// dedupe drops repeated keys of one answer (a substitute byte written for five failed steps
// is one deviation of the answer), keeping the first of each and the rows of all.
func dedupe(ds []Deviation) []Deviation {
	out := ds[:0] // in place: out never passes the element being read
	for _, d := range ds {
		k := slices.IndexFunc(out, func(o Deviation) bool { return o.What == d.What && o.Detail == d.Detail && o.Family == d.Family })
		if k < 0 {
			out = append(out, d)
			continue
		}
		if d.Row != "" && !strings.Contains(out[k].Row, d.Row) {
			rows := append(strings.Split(out[k].Row, ", "), d.Row)
			sort.Strings(rows)
			out[k].Row = strings.Trim(strings.Join(rows, ", "), ", ")
		}
	}
	return out
}
