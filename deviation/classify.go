package deviation

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/difffuzz/difffuzz/internal/jsonstr"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
)

// classify describes one stretch r (units [r.i, r.j) of PHP's answer against got[r.p:r.q]).
// marker is what PHP writes for a failed step there ('?' for utf8_decode, \ufffd under
// SUBSTITUTE, nothing otherwise); decode is set for utf8_decode.
func classify(units []unit, in, got []byte, r region, marker []byte, opts jsonopt.Options, decode bool) []Deviation {
	g := got[r.p:r.q]
	var want []byte
	if r.j-r.i == 1 {
		want = units[r.i].want // read only
	} else {
		for _, u := range units[r.i:r.j] {
			want = append(want, u.want...)
		}
	}
	d := Deviation{Want: want, Got: g, CP: -1}
	if decode && onlyMarkers(want, marker) && onlyMarkers(g, marker) && len(g) > 0 {
		// utf8_decode writes '?' for a failed step and for a code point above U+00FF alike: a
		// run of '?' only counts steps. Read it as failed steps ended elsewhere; a sequence
		// decoded by its bits (to one above U+00FF) is the other reading.
		ds := classifyRest(units, in, got, r, marker, opts, decode, d)
		if v, ok := droppedValid(units[r.i:r.j], d, decode); ok && len(g) < len(want) && nFailedIn(units[r.i:r.j]) == 0 {
			// Code points above U+00FF and fewer '?': some were dropped.
			v.In, v.InEnd = units[r.i].in, units[r.j-1].inEnd
			ds = []Deviation{v}
		}
		if acc, ok := accepted(units, in, got, r, opts, decode, d); ok {
			if len(ds) != 1 || ds[0].What != Advance && !(ds[0].What == Substitute && ds[0].Family == "valid") {
				return acc
			}
			if len(acc) == 1 {
				ds[0].Alts = append(ds[0].Alts, acc[0].Key())
			}
		} else if len(ds) == 1 && len(g) < len(want) {
			// Fewer '?': a step inside the run may have taken the bytes after it by their bits.
			for k := r.i + 1; k < r.j; k++ {
				at := r.p + (k-r.i)*len(marker)
				if at > r.q {
					break
				}
				if acc, ok := acceptedAt(units, k, in, got[at:], opts, decode, d); ok && len(acc) == 1 {
					ds[0].Alts = append(ds[0].Alts, acc[0].Key())
					break
				}
			}
		}
		return ds
	}
	if ds, ok := accepted(units, in, got, r, opts, decode, d); ok {
		return acceptedOr(ds, units, in, got, r, marker, opts, decode)
	}
	return classifyRest(units, in, got, r, marker, opts, decode, d)
}

// acceptedOr gives a utf8_decode stretch read as one failed step decoded by its bits (ds) the
// other reading of it, when that is failed steps ended elsewhere or a code point dropped: a
// decoder that takes bytes by their bits alone explains many answers, and '?' then a dropped
// U+00AD is E1 C2 AD decoded by its bits as well as the U+00AD dropped.
func acceptedOr(ds []Deviation, units []unit, in, got []byte, r region, marker []byte, opts jsonopt.Options, decode bool) []Deviation {
	if len(ds) != 1 || !decode || ds[0].What != Accepted {
		return ds
	}
	d := Deviation{Want: bytes.Join(wantsOf(units[r.i:r.j]), nil), Got: got[r.p:r.q], CP: -1}
	if rest := classifyRest(units, in, got, r, marker, opts, decode, d); len(rest) == 1 && (rest[0].What == Advance || rest[0].What == Substitute && rest[0].Family == "valid") {
		ds[0].Alts = append(append(ds[0].Alts, rest[0].Key()), rest[0].Alts...)
	}
	return ds
}

// wantsOf is PHP's output of each step of us.
func wantsOf(us []unit) [][]byte {
	out := make([][]byte, len(us))
	for k, u := range us {
		out[k] = u.want
	}
	return out
}

// nFailedIn counts the failed steps of us.
func nFailedIn(us []unit) int {
	n := 0
	for _, u := range us {
		if u.failed() {
			n++
		}
	}
	return n
}

// onlyMarkers reports whether b is marker repeated (PHP's output for failed steps).
func onlyMarkers(b, marker []byte) bool {
	return len(marker) > 0 && len(b)%len(marker) == 0 && bytes.Equal(b, bytes.Repeat(marker, len(b)/len(marker)))
}

// accepted is the stretch read as a failed step decoded by its bits (acceptedAt), at its start
// or a few steps back.
func accepted(units []unit, in, got []byte, r region, opts jsonopt.Options, decode bool, d Deviation) ([]Deviation, bool) {
	// A failed step decoded by its bits together with the bytes after it: the stretch may begin
	// at the failed step (its written code point is an insertion before PHP's failure) or after
	// it (its output happened to read as PHP's, the bytes it swallowed are the stretch).
	if r.j > r.i || r.j < len(units) {
		if ds, ok := acceptedAt(units, min(r.i, len(units)-1), in, got[r.p:], opts, decode, d); ok && r.i < len(units) {
			return ds, true
		}
	}
	// Or a failed step a few steps back, whose output happened to read as PHP's up to here.
	back := 0
	for k := r.i - 1; k >= 0 && k >= r.i-4; k-- {
		back += len(units[k].want)
		if !units[k].failed() || len(units[k].want) == 0 || r.p < back {
			continue
		}
		if ds, ok := acceptedAt(units, k, in, got[r.p-back:], opts, decode, d); ok {
			if _, n, _ := bits(in[units[k].in:], false); units[k].in+n > units[k].inEnd {
				return ds, true
			}
		}
	}
	return nil, false
}

// classifyRest is classify of a stretch that is not a failed step decoded by its bits.
func classifyRest(units []unit, in, got []byte, r region, marker []byte, opts jsonopt.Options, decode bool, d Deviation) []Deviation {
	g, want := d.Got, d.Want
	if h := HexCase(want, g); h != "" && r.j > r.i {
		// The same escapes with the hex digits in the other case, whatever rule wrote them
		// (a control byte, a code point, \ufffd): one mistake, as printf("%04X") makes it.
		d.What, d.Detail, d.In, d.InEnd = Form, h+"-hex", units[r.i].in, units[r.j-1].inEnd
		return []Deviation{d}
	}
	if r.i == r.j { // bytes PHP does not write
		d.What, d.Family = Extra, "string"
		if r.i > 0 {
			d.In, d.InEnd = units[r.i-1].inEnd, units[r.i-1].inEnd
		}
		if r.i > 0 && units[r.i-1].failed() {
			// Bytes after a failed step: what the candidate writes for it besides PHP's marker.
			d.Family, d.Row = "failed", units[r.i-1].exit.Row()
		}
		return []Deviation{d}
	}
	first := units[r.i]
	d.In, d.InEnd = first.in, units[r.j-1].inEnd
	src := in[d.In:d.InEnd]
	nFailed, nMarked := 0, 0
	for _, u := range units[r.i:r.j] {
		if u.failed() {
			nFailed++
		}
		if len(marker) > 0 && bytes.Equal(u.want, marker) {
			nMarked++ // a failed step, or in utf8_decode a code point above U+00FF
		}
	}
	switch {
	case nFailed > 0:
		return failedStretch(units[r.i:r.j], src, g, d, marker, opts, decode, nMarked)
	case first.in == first.inEnd: // a quote (or the empty string's two)
		d.What, d.Detail, d.Family = Wrong, "quotes", "quotes"
		switch {
		case r.i == len(units)-1 && len(g) == 0:
			// The closing quote dropped: the answer's last byte (lastByte).
			d.What, d.Detail, d.Family = Lost, "last-byte", "string"
		case len(g) < len(want) && bytes.Contains(want, g):
			d.What, d.Detail = Substitute, "" // a quote dropped
		}
		return []Deviation{d}
	case first.multiByte() || decode && first.exit != oracle.ExitASCII:
		return validStretch(first, src, g, d, marker, opts, decode)
	}
	return asciiStretch(first, src, g, d)
}

// acceptedAt reports whether the candidate's answer from the stretch on (rest) starts with the
// code point the bits of the failed step u and the bytes after it give (bits: a decoder that
// does not check continuation bytes, or accepts overlongs and surrogates), written as PHP writes
// a code point, or raw under UNESCAPED_UNICODE; in utf8_decode a '?' for one above U+00FF
// counts only when it took more bytes than PHP's failure.
func acceptedAt(units []unit, k int, in, rest []byte, opts jsonopt.Options, decode bool, d Deviation) ([]Deviation, bool) {
	return acceptedAtLoose(units, k, in, rest, opts, decode, d, false)
}

// acceptedAtLoose is acceptedAt; with loose, the answer after the decoded step may also go on
// with a substitute (0x1A, '?', U+FFFD) where PHP's next step fails: walk checks each step
// after it anyway, so a candidate with a second fault there is still read.
func acceptedAtLoose(units []unit, k int, in, rest []byte, opts jsonopt.Options, decode bool, d Deviation, loose bool) ([]Deviation, bool) {
	u := units[k]
	if !u.failed() || in[u.in] < 0xC0 || in[u.in] > 0xF4 {
		return nil, false
	}
	// Without checking continuation bytes only after a lead (C2..F4: its length is known);
	// C0 and C1 never lead, so a decoder that takes C0 80 as U+0000 checks the 80.
	cp, n, ok := bits(in[u.in:], in[u.in] < 0xC2)
	if !ok || n < 2 {
		return nil, false
	}
	raw := bytes.HasPrefix(rest, in[u.in:u.in+n])
	wideRaw := decode && cp > 0xFF && raw // utf8_decode: decoded, then written as UTF-8
	// json_encode without UNESCAPED_UNICODE: decoded, then written raw (two faults).
	escRaw := !decode && opts&jsonopt.UnescapedUnicode == 0 && raw && n > u.inEnd-u.in-1 && cp >= 0x80
	if decode && cp > 0xFF && n <= u.inEnd-u.in && !wideRaw {
		return nil, false // '?' for it is PHP's answer too
	}
	var eb, ub [12]byte
	enc := appendEncode(eb[:0], cp, opts, decode)
	// utf8_decode: decoded, then written as the 0x1A a converter writes for a code point
	// above U+00FF where PHP writes '?' (two faults).
	wideSub := decode && cp > 0xFF && !bytes.HasPrefix(rest, enc) && bytes.HasPrefix(rest, sub1A)
	if wideSub {
		enc = sub1A
	}
	written := bytes.HasPrefix(rest, enc) ||
		!decode && (bytes.HasPrefix(rest, appendUEscape(ub[:0], cp, false)) || bytes.HasPrefix(rest, appendUEscape(ub[:0], cp, true))) ||
		opts&jsonopt.UnescapedUnicode != 0 && raw || wideRaw || escRaw
	form := enc // the form it wrote, for what follows it
	var fb [12]byte
	if !bytes.HasPrefix(rest, form) && !decode {
		if f := appendUEscape(fb[:0], cp, true); bytes.HasPrefix(rest, f) {
			form = f
		}
	}
	if !written || !resumesAfter(in, u.in+n, rest, enc, in[u.in:u.in+n], opts, decode, 0) &&
		!(loose && (substituteAfter(in, u.in+n, rest, form) || raw && substituteAfter(in, u.in+n, rest, in[u.in:u.in+n]) || rawAfter(in, u.in+n, rest, form))) {
		return nil, false
	}
	d.What, d.Detail, d.CP, d.Row = Accepted, "bits", rune(cp), u.exit.Row()
	d.In, d.InEnd, d.Want, d.Got = u.in, u.in+n, u.want, nil
	var lb [12]byte
	for _, w := range [...][]byte{enc, in[u.in : u.in+n], appendUEscape(lb[:0], cp, false), appendUEscape(ub[:0], cp, true)} {
		if len(w) > 0 && bytes.HasPrefix(rest, w) {
			d.Got = rest[:len(w)] // what it wrote for the step (rest is the answer's)
			break
		}
	}
	d.Family = acceptedFamily(cp, in[u.in:u.in+n], u.exit.Family())
	out := []Deviation{d}
	switch {
	case wideRaw:
		// Two faults in one answer: the step decoded, and a code point above U+00FF written raw.
		w := d
		w.What, w.Detail, w.Family, w.Row, w.CP = RawCopy, "", "?", "wide", -1
		out = append(out, w)
	case !decode && !bytes.Equal(form, enc) && bytes.ContainsAny(form, "ABCDEF"):
		// Two faults: the step decoded, and its \uXXXX written with upper-case hex digits.
		w := d
		w.What, w.Detail, w.Family, w.CP = Form, "upper-hex", "", -1
		out = append(out, w)
	case wideSub:
		w := d
		w.What, w.Detail, w.Family, w.Row, w.CP, w.Want = Substitute, "1a", "?", "wide", -1, subQuestion
		out = append(out, w)
	case escRaw:
		// Two faults: the step decoded, and non-ASCII written raw without UNESCAPED_UNICODE.
		w := d
		w.What, w.Detail, w.Family, w.CP = Form, "unescaped", "", -1
		out = append(out, w)
	}
	return out, true
}

// acceptedWalk is acceptedAt for walk: also how many bytes of b the decoded step wrote and
// where its input ends.
func acceptedWalk(units []unit, k int, in, b []byte, opts jsonopt.Options, decode bool) ([]Deviation, int, int, bool) {
	ds, ok := acceptedAtLoose(units, k, in, b, opts, decode, Deviation{CP: -1}, true)
	if !ok || len(ds[0].Got) == 0 {
		return nil, 0, 0, false
	}
	return ds, len(ds[0].Got), ds[0].InEnd, true // Got: the form it wrote the step in
}

// substituteAfter reports whether rest is the written code point enc, then a substitute a
// candidate writes for a failed step, where PHP's first step after end fails.
func substituteAfter(in []byte, end int, rest, enc []byte) bool {
	if end >= len(in) || !bytes.HasPrefix(rest, enc) {
		return false
	}
	st := oracle.NextChar(in, end)
	if st.OK && st.CP <= 0xFF {
		return false // PHP's next step writes its code point (above U+00FF: '?' in utf8_decode)
	}
	after := rest[len(enc):]
	for _, w := range [][]byte{sub1A, subQuestion, subFFFD, subFFFDRaw} {
		if bytes.HasPrefix(after, w) {
			return true
		}
	}
	// A stray continuation byte written with its top bit cleared (byte & 0x7F).
	return !st.OK && in[end] >= 0x80 && in[end] <= 0xBF && len(after) > 0 && after[0] == in[end]&0x7F
}

// rawAfter reports whether rest is the written code point enc, then the next step's input
// bytes copied raw where PHP writes something else for them (a control byte written raw):
// walk reads that step on its own.
func rawAfter(in []byte, end int, rest, enc []byte) bool {
	if end >= len(in) || !bytes.HasPrefix(rest, enc) {
		return false
	}
	st := oracle.NextChar(in, end)
	n := max(1, st.Advance)
	return in[end] < 0x20 && bytes.HasPrefix(rest[len(enc):], in[end:end+n])
}

// resumesAfter reports whether, after the candidate's writing of a decoded step (one of the
// forms acceptedAt allows), its answer goes on with PHP's answer for the input after the
// decoded bytes (its first step; or the answer ends, as the input does): a code point that
// only happens to read as the next bytes (0x1A decoded from C0 9A, where 0x1A is a substitute
// written for 9A) is not taken for one.
func resumesAfter(in []byte, end int, rest, enc, raw []byte, opts jsonopt.Options, decode bool, depth int) bool {
	next := nextAnswer(in[end:], opts, decode)
	var lb, ub, rb [12]byte // rb for the next step's code point
	forms := [...][]byte{enc, raw, nil, nil}
	if !decode {
		cp, _, _ := bits(raw, false)
		forms[2], forms[3] = appendUEscape(lb[:0], cp, false), appendUEscape(ub[:0], cp, true)
	}
	for _, f := range forms {
		if len(f) == 0 || !bytes.HasPrefix(rest, f) {
			continue
		}
		after := rest[len(f):]
		switch {
		case end == len(in):
			// The input ends: so does the answer, but for the closing quote.
			if len(after) == 0 || !decode && string(after) == `"` {
				return true
			}
		case len(next) > 0 && bytes.HasPrefix(after, next):
			return true
		case string(next) == `"` && len(after) == 0:
			return true // the rest is dropped, and so is the closing quote (another fault)
		case depth < 3:
			// Or the next bytes are decoded the same way (a lenient decoder is lenient twice).
			if cp, n, ok := bits(in[end:], in[end] < 0xC2); ok && n >= 2 && in[end] >= 0xC0 && in[end] <= 0xF4 &&
				resumesAfter(in, end+n, after, appendEncode(rb[:0], cp, opts, decode), in[end:end+n], opts, decode, depth+1) {
				return true
			}
		}
	}
	return false
}

// nextAnswer is what PHP writes for the first step of rest: utf8_decode's byte, or
// json_encode's (without NUMERIC_CHECK, and as INVALID_UTF8_SUBSTITUTE writes a failure when the
// options would make the whole answer false).
func nextAnswer(rest []byte, opts jsonopt.Options, decode bool) []byte {
	if len(rest) == 0 {
		return nil
	}
	if decode {
		// The first step reads at most 4 bytes.
		out, spans := oracle.UTF8DecodeExplain(nil, rest[:min(len(rest), 4)])
		return out[spans[0].Out:spans[0].OutEnd]
	}
	opts &^= jsonopt.NumericCheck
	// The first bytes are enough when the step found starts 4 bytes before their end (a step
	// reads at most 4 bytes; a failure further on changes no step before it).
	for _, n := range [2]int{min(len(rest), 12), len(rest)} {
		out, spans, err := oracle.EscapeExplain(nil, rest[:n], opts)
		if err != nil {
			out, spans, _ = oracle.EscapeExplain(nil, rest[:n], opts|jsonopt.InvalidUTF8Substitute)
		}
		for _, sp := range spans {
			if sp.InEnd > sp.In && sp.OutEnd > sp.Out && (n == len(rest) || sp.In+4 <= n) {
				return out[sp.Out:sp.OutEnd]
			}
		}
	}
	return []byte(`"`) // every step dropped (INVALID_UTF8_IGNORE): the closing quote
}

// failedStretch describes a stretch holding failed steps (and maybe bytes a failed step of the
// candidate swallowed).
func failedStretch(us []unit, src, g []byte, d Deviation, marker []byte, opts jsonopt.Options, decode bool, nMarked int) []Deviation {
	first := us[0]
	for _, u := range us {
		if u.failed() {
			first = u
			break
		}
	}
	d.Family, d.Row = "failed", first.exit.Row()
	if bytes.Equal(g, src) && len(src) > 0 {
		d.What = RawCopy
		return []Deviation{d}
	}
	unitBytes, m := period(g)
	if decode && len(g) > 0 {
		// utf8_decode writes one byte a step: the bytes count the candidate's steps, and what
		// it writes for them is a constant when every byte that is not '?' is the same.
		m, unitBytes = len(g), marker
		if other := bytes.ReplaceAll(g, marker, nil); len(other) > 0 {
			unitBytes = []byte{other[0]}
			if len(bytes.ReplaceAll(other, other[:1], nil)) > 0 {
				unitBytes = []byte("\x00\x00") // not one constant: "other"
			}
		}
	}
	c, hasC, masked, mok := maskedAndConstant(us, src, g, d.In)
	mok = mok && decode
	if mok && masked && (hasC || len(g) != len(us)) {
		// Stray bytes written & 0x7F beside failures written as one constant, or failures
		// split into bytes so written (faults of one converter): each, not "other".
		var out []Deviation
		s := d
		s.What, s.Family = Substitute, markerName(marker)
		if hasC {
			s.Detail = constant([]byte{c})
			out = append(out, s)
		}
		s.Detail = "low-7-bits"
		out = append(out, s)
		if len(g) > nMarked {
			a := d
			a.What, a.Detail, a.Family = Advance, "split", splitFamily(us)
			out = append(out, a)
		}
		return out
	}
	var out []Deviation
	if bytes.Equal(marker, []byte(`\ufffd`)) && bytes.Equal(unitBytes, []byte("\xef\xbf\xbd")) {
		// U+FFFD raw where PHP escapes it: the form of non-ASCII, as a valid sequence raw.
		s := d
		s.What, s.Detail, s.Family = Form, "unescaped", ""
		out = append(out, s)
	} else if !bytes.Equal(unitBytes, marker) && !(len(g) == 0 && len(marker) == 0) {
		s := d
		s.What, s.Detail, s.Family = Substitute, constant(unitBytes), markerName(marker)
		if mok && len(g) == len(us) && masked && !hasC {
			// Each stray byte written with its top bit cleared: a byte computed from the
			// input, which a known constant (9A & 0x7F is 0x1A) only happens to equal.
			if s.Detail == "other" {
				s.Detail = "low-7-bits"
			} else {
				a := s
				a.Detail = "low-7-bits"
				s.Alts = []string{a.Key()}
			}
		}
		if unitBytes == nil && m == 0 && len(g) > 0 {
			s.What, s.Detail, s.Family = Wrong, "failed-step", "failed"
		}
		out = append(out, s)
	}
	if unitBytes != nil || len(g) == 0 {
		if a, ok := advanceOf(us, d, first, marker, decode, nMarked, m, len(g)); ok {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		d.What, d.Detail = Wrong, "failed-step"
		out = append(out, d)
	}
	return out
}

// advanceOf is how a stretch of failed steps us ended elsewhere than PHP's: the candidate
// wrote m markers (or bytes a step) for nMarked of PHP's, gotLen bytes in all; ok false when
// the count does not show a difference.
func advanceOf(us []unit, d Deviation, first unit, marker []byte, decode bool, nMarked, m, gotLen int) (Deviation, bool) {
	a := d
	a.What, a.Family = Advance, first.exit.Family()
	switch {
	case len(marker) == 0:
		a.Detail = "" // PHP writes nothing for a failed step: its length does not show
	case nMarked < len(us) && m <= nMarked:
		a.Detail = "swallows"
	case m > nMarked:
		a.Detail = "split"
		// Only a failure of several bytes can be split: name its family (the first; when
		// another family's could be the one split, that is the other reading).
		found := false
		for _, u := range us {
			if f := u.exit.Family(); u.failed() && u.inEnd-u.in >= 2 {
				if !found {
					a.Family, found = f, true
				} else if f != a.Family {
					o := a
					o.Family = f
					a.Alts = append(a.Alts, o.Key())
				}
			}
		}
	case m < nMarked && gotLen > 0:
		a.Detail = "merged"
	default:
		a.Detail = ""
	}
	if a.Detail == "merged" || a.Detail == "swallows" {
		// Whatever failed: a decoder that merges failed steps, or resumes late after one,
		// does so after a failure of any family (as ignoreSwallows reads it).
		a.Family = "failed"
		if v, ok := droppedValid(us, d, decode); ok && !failedBefore(us) {
			// Fewer '?' than a run holding a multi-byte code point with no failed step
			// before it that could have swallowed it: the code point dropped (a fault
			// that drops characters), or failures merged, are as likely.
			v.Alts = append([]string{a.Key()}, a.Alts...)
			a = v
		} else if ok {
			a.Alts = append(a.Alts, v.Key())
		}
	}
	return a, a.Detail != "" || a.What == Substitute
}

// splitFamily is the family of the first failed step of several bytes in us (only such a
// failure can be split), "failed" when there is none.
func splitFamily(us []unit) string {
	for _, u := range us {
		if u.failed() && u.inEnd-u.in >= 2 {
			return u.exit.Family()
		}
	}
	return "failed"
}

// failedBefore reports whether a failed step comes before the first valid multi-byte step of
// us.
func failedBefore(us []unit) bool {
	for _, u := range us {
		switch {
		case u.failed():
			return true
		case u.multiByte():
			return false
		}
	}
	return false
}

// droppedValid is the stretch us of utf8_decode read as a valid multi-byte sequence dropped,
// when it holds one: fewer steps' output than PHP's around a failure may be the failure
// swallowing or merging, or the code point dropped (a '?' above U+00FF looks like a failure's).
func droppedValid(us []unit, d Deviation, decode bool) (Deviation, bool) {
	if !decode {
		return d, false
	}
	for _, u := range us {
		if !u.failed() && u.multiByte() {
			d.What, d.Detail, d.Family, d.Row = Substitute, "", "valid", u.exit.Row()
			if string(u.want) == "?" {
				d.Row = "wide"
			}
			return d, true
		}
	}
	return d, false
}

// maskedAndConstant reads utf8_decode's bytes g for the steps us (src their input, from offset
// at) one byte a candidate step — a step each of PHP's when as many, else each input byte
// when as many (failures split into bytes) — as PHP's, a stray continuation byte & 0x7F, or
// one constant c (not '?'). c is 0 and hasC false when no byte is a constant; masked is set
// when some byte is the masked one and not c. ok is false when the bytes read otherwise.
func maskedAndConstant(us []unit, src, g []byte, at int) (c byte, hasC, masked, ok bool) {
	type step struct {
		want     byte
		in       byte
		one, bad bool // one input byte; a failure (or a '?' above U+00FF)
	}
	var steps []step
	switch {
	case len(g) == len(us):
		for _, u := range us {
			if len(u.want) != 1 {
				return 0, false, false, false
			}
			steps = append(steps, step{u.want[0], src[u.in-at], u.inEnd-u.in == 1, u.failed() || string(u.want) == "?"})
		}
	case len(g) == len(src):
		for _, u := range us {
			if !u.failed() {
				return 0, false, false, false
			}
			for _, b := range src[u.in-at : u.inEnd-at] {
				steps = append(steps, step{'?', b, true, true})
			}
		}
	default:
		return 0, false, false, false
	}
	var consts []byte
	var maskedAt []int
	for k, st := range steps {
		switch {
		case g[k] == st.want:
		case st.bad && st.one && st.in >= 0x80 && st.in <= 0xBF && g[k] == st.in&0x7F:
			maskedAt = append(maskedAt, k)
		case st.bad:
			consts = append(consts, g[k])
		default:
			return 0, false, false, false
		}
	}
	if len(consts) > 0 && len(bytes.ReplaceAll(consts, consts[:1], nil)) > 0 {
		return 0, false, false, false
	}
	if len(consts) > 0 {
		c, hasC = consts[0], true
	}
	for _, k := range maskedAt {
		masked = masked || !hasC || g[k] != c
	}
	return c, hasC, masked, true
}

// markerName is PHP's output for a failed step, as a family name.
func markerName(m []byte) string {
	switch {
	case len(m) == 0:
		return "nothing"
	case m[0] >= 0x80:
		return fmt.Sprintf("%x", m)
	}
	return string(m)
}

// validStretch describes a valid sequence (or, in utf8_decode, any step) written otherwise.
func validStretch(u unit, src, g []byte, d Deviation, marker []byte, opts jsonopt.Options, decode bool) []Deviation {
	cp, _, _ := bits(src, true)
	d.Family, d.Row = "valid", u.exit.Row()
	if decode && u.rule == oracle.RuleWide {
		d.Family, d.Row = "?", "wide"
	}
	switch {
	case len(g) == 0:
		// Dropped: in utf8_decode a code point above U+00FF too (PHP writes '?' for it).
		d.What, d.Detail, d.Family = Substitute, "", "valid"
	case bytes.Equal(g, src) && !decode && cp&^1 == 0x2028 && opts&jsonopt.UnescapedUnicode != 0:
		// U+2028 or U+2029 raw under UNESCAPED_UNICODE: as if UNESCAPED_LINE_TERMINATORS; or,
		// for a candidate that writes all non-ASCII raw whatever the options, that.
		d.What, d.Detail, d.Family, d.Row = Form, "unescaped-lt", "", fmt.Sprintf("U+%04X", cp)
		d.Alts = append(d.Alts, Deviation{What: Form, Detail: "unescaped"}.Key())
	case bytes.Equal(g, src) && !decode:
		d.What, d.Detail, d.Family = Form, "unescaped", "" // as if UNESCAPED_UNICODE
	case bytes.Equal(g, src):
		d.What = RawCopy
	case decode && u.rule == oracle.RuleWide:
		// PHP writes '?' for a code point above U+00FF: what the candidate wrote instead.
		unitBytes, _ := period(g)
		d.What, d.Detail = Substitute, constant(unitBytes)
		if unitBytes == nil {
			d.What, d.Detail, d.Family = Wrong, "code-point", "valid"
		}
	case bytes.Equal(g, marker) || bytes.Equal(g, []byte(`\ufffd`)) || bytes.Equal(g, []byte("\xef\xbf\xbd")) || decode && bytes.Equal(g, []byte("?")):
		d.What = Rejected
	case !decode && bytes.Equal(g, uEscape(cp, false)):
		d.What, d.Detail = Form, "escapes"
	case !decode && cp > 0xFFFF && len(g) == 12 && len(u.want) == 12 && isSurrogates(g) && isSurrogates(u.want):
		// A pair of \u escapes for a code point above U+FFFF: which half is wrong (§1.4).
		d.What, d.Detail = Wrong, "code-point"
		switch hi, lo := bytes.EqualFold(g[:6], u.want[:6]), bytes.EqualFold(g[6:], u.want[6:]); {
		case hi && !lo:
			d.Detail = "low-surrogate"
		case lo && !hi:
			d.Detail = "high-surrogate"
		}
	default:
		d.What, d.Detail = Wrong, "code-point"
	}
	return []Deviation{d}
}

// isSurrogates reports whether b starts with two \uXXXX escapes of UTF-16 surrogates
// (D800..DFFF, hex digits in either case): a pair, or one whose high half is computed wrong
// (0xD800 | cp >> 10 without the 0x10000 gives DC00 for U+100000).
func isSurrogates(b []byte) bool {
	if len(b) < 12 || !isUEscape(b) || !isUEscape(b[6:]) || b[2]|0x20 != 'd' || b[8]|0x20 != 'd' {
		return false
	}
	return strings.IndexByte("89abcdefABCDEF", b[3]) >= 0 && strings.IndexByte("89abcdefABCDEF", b[9]) >= 0
}

// isUEscape reports whether b starts with a \uXXXX escape (hex digits in either case).
func isUEscape(b []byte) bool {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return false
	}
	for _, c := range b[2:6] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// asciiStretch describes an ASCII byte written otherwise.
func asciiStretch(u unit, src, g []byte, d Deviation) []Deviation {
	d.Family, d.Row = u.rule.String(), fmt.Sprintf("%02x", src[0])
	c := src[0]
	short := shortEscape(c)
	switch {
	case len(g) == 0:
		d.What, d.Detail = Substitute, ""
		d.Family = "ascii"
	case bytes.Equal(g, src):
		d.What, d.Detail = RawCopy, ""
	case bytes.Equal(u.want, src) && (bytes.Equal(g, short) || bytes.EqualFold(g, uEscape(uint32(c), false))):
		d.What, d.Detail = Form, "escapes"
	case short != nil && bytes.Equal(u.want, short) && bytes.EqualFold(g, uEscape(uint32(c), false)):
		d.What, d.Detail = Form, "u-for-short"
	case short != nil && bytes.Equal(g, short):
		d.What, d.Detail = Form, "short-for-u"
	default:
		d.What, d.Detail = Wrong, "ascii"
	}
	return []Deviation{d}
}

// shortEscape is the two-byte escape JSON has for c, nil when it has none (read only).
func shortEscape(c byte) []byte {
	return shortEscapes[c]
}

// cEscapes are the escapes of control bytes that C, PHP and JavaScript string literals have
// and JSON has not (a port that writes 0B as \v): writings split tells apart from a
// neighbour's fault.
var cEscapes = [256][]byte{0x00: []byte(`\0`), 0x07: []byte(`\a`), 0x0B: []byte(`\v`), 0x1B: []byte(`\e`)}

var shortEscapes = func() (t [256][]byte) {
	for _, e := range []string{`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`} {
		c := map[byte]byte{'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[e[1]]
		if c == 0 {
			c = e[1]
		}
		t[c] = []byte(e)
	}
	return t
}()

// HexCase says whether got is want with hex letters in the other case only: "upper" when got
// has upper-case letters where want has lower-case ones, "lower" for the reverse, "" otherwise.
func HexCase(want, got []byte) string {
	if len(want) != len(got) || bytes.Equal(want, got) {
		return ""
	}
	dir := ""
	for i, w := range want {
		g := got[i]
		var k string
		switch {
		case w == g:
			continue
		case 'a' <= w && w <= 'f' && g == w-'a'+'A':
			k = "upper"
		case 'A' <= w && w <= 'F' && g == w-'A'+'a':
			k = "lower"
		default:
			return ""
		}
		if dir != "" && k != dir {
			return ""
		}
		dir = k
	}
	return dir
}

// period is the shortest b such that g is b repeated m times; nil, 0 for an empty g, and for a
// g longer than 6 bytes that repeats nothing shorter (too long to be a substitute).
func period(g []byte) ([]byte, int) {
	if len(g) == 0 {
		return nil, 0
	}
	for n := 1; n <= len(g); n++ {
		if len(g)%n == 0 && bytes.Equal(bytes.Repeat(g[:n], len(g)/n), g) {
			if n > 6 && n == len(g) {
				return nil, 0
			}
			return g[:n], len(g) / n
		}
	}
	return nil, 0
}

// appendEncode appends how PHP would write the code point cp to dst: utf8_decode's byte (or
// '?'), json_encode's \uXXXX (a surrogate pair above U+FFFF) or, under UNESCAPED_UNICODE, its
// shortest UTF-8 (a caller's buffer: no allocation when it has room).
func appendEncode(dst []byte, cp uint32, opts jsonopt.Options, decode bool) []byte {
	switch {
	case decode && cp <= 0xFF:
		return append(dst, byte(cp))
	case decode:
		return append(dst, '?')
	case cp < 0x80:
		if s := shortEscape(byte(cp)); s != nil && cp != '/' {
			return append(dst, s...)
		}
		if cp < 0x20 {
			return appendUEscape(dst, cp, false)
		}
		return append(dst, byte(cp))
	case opts&jsonopt.UnescapedUnicode != 0:
		return jsonstr.AppendUTF8(dst, cp)
	}
	return appendUEscape(dst, cp, false)
}

// uEscape is cp as \uXXXX (a surrogate pair above U+FFFF), lower-case hex unless upper.
func uEscape(cp uint32, upper bool) []byte {
	return appendUEscape(make([]byte, 0, 12), cp, upper)
}

// appendUEscape is uEscape appended to dst.
func appendUEscape(dst []byte, cp uint32, upper bool) []byte {
	digits := "0123456789abcdef"
	if upper {
		digits = "0123456789ABCDEF"
	}
	one := func(b []byte, u uint32) []byte {
		return append(b, '\\', 'u', digits[u>>12&0xF], digits[u>>8&0xF], digits[u>>4&0xF], digits[u&0xF])
	}
	if cp >= 0x10000 {
		cp -= 0x10000
		return one(one(dst, 0xD800+cp>>10), 0xDC00+cp&0x3FF)
	}
	return one(dst, cp)
}

// split divides a stretch of several steps among them when the candidate's bytes read as one
// writing of each (PHP's, the bytes raw, an escape of the code point, a substitute), so that
// neighbouring deviations (a raw slash before a decoded surrogate) are told apart. It returns
// the one-step stretches that differ, or nil when the bytes do not divide so (a failure split
// or merged, a step that swallowed the next one: the stretch stays whole). A division that
// gives a step nothing where PHP writes something is not taken.
func split(units []unit, in, got []byte, r region, opts jsonopt.Options, decode, cut bool) []region {
	if r.j-r.i < 2 || r.j-r.i > maxSplit {
		return nil
	}
	if r.j == len(units) && units[r.j-1].in == units[r.j-1].inEnd && !bytes.HasSuffix(got[r.p:r.q], units[r.j-1].want) {
		// The closing quote is missing: divide the rest, then name the quote on its own.
		if parts := split(units, in, got, region{r.i, r.j - 1, r.p, r.q}, opts, decode, cut); parts != nil || r.j-1-r.i == 1 {
			if parts == nil && !bytes.Equal(got[r.p:r.q], units[r.i].want) {
				parts = []region{{r.i, r.j - 1, r.p, r.q}}
			}
			return append(parts, region{r.j - 1, r.j, r.q, r.q})
		}
	}
	allFailed := true
	for _, u := range units[r.i:r.j] {
		allFailed = allFailed && u.failed()
	}
	if allFailed {
		return nil
	}
	sp := splitPool.Get().(*splitter)
	defer func() { // the pool keeps no answer alive
		sp.units, sp.in, sp.got = nil, nil, nil
		splitPool.Put(sp)
	}()
	*sp = splitter{units: units, in: in, got: got, r: r, opts: opts, decode: decode, parts: sp.parts[:0], dead: sp.dead}
	// PHP's writings and the usual others first; with cut (tried after walk: a decoded step
	// that took the next ones reads better), one valid character written as nothing, then
	// the end lost.
	if cut && !sp.run(1, false) && !sp.run(0, true) || !cut && !sp.run(0, false) {
		return nil
	}
	var out []region
	for _, pr := range sp.parts {
		if !bytes.Equal(got[pr.p:pr.q], units[pr.i].want) {
			out = append(out, pr)
		}
	}
	return out
}

// splitter is one division split tries: the parts so far, and the (step, offset) pairs from
// which no division reaches the end (a bitset over the stretch, reused through splitPool).
type splitter struct {
	units       []unit
	in, got     []byte
	r           region
	opts        jsonopt.Options
	decode, cut bool // cut: the steps to the end may be lost together
	parts       []region
	dead        []uint64
}

var splitPool = sync.Pool{New: func() any { return new(splitter) }}

// run divides the stretch with drops valid characters written as nothing allowed (and with
// the steps to the end lost together when cut); it reports whether a division was found.
func (s *splitter) run(drops int, cut bool) bool {
	s.cut, s.parts = cut, s.parts[:0]
	n := (s.r.j - s.r.i + 1) * (s.r.q - s.r.p + 1) * 2
	if cap(s.dead) < (n+63)/64 {
		s.dead = make([]uint64, (n+63)/64)
	}
	s.dead = s.dead[:(n+63)/64]
	clear(s.dead)
	return s.walk(s.r.i, s.r.p, drops)
}

// lastAsPHP reports whether the last part so far is written as PHP writes its step.
func (s *splitter) lastAsPHP() bool {
	if len(s.parts) == 0 {
		return true
	}
	p := s.parts[len(s.parts)-1]
	return bytes.Equal(s.got[p.p:p.q], s.units[p.i].want)
}

// bit is the index of (k, x, drops) in dead.
func (s *splitter) bit(k, x, drops int) int {
	return ((k-s.r.i)*(s.r.q-s.r.p+1)+(x-s.r.p))*2 + drops
}

// walk divides the steps from k, the candidate's bytes from x, with drops valid characters
// written as nothing still allowed.
func (s *splitter) walk(k, x, drops int) bool {
	r, units := s.r, s.units
	if k == r.j {
		return x == r.q
	}
	b := s.bit(k, x, drops)
	if s.dead[b/64]&(1<<(b%64)) != 0 {
		return false
	}
	if s.cut && x == r.q && k > r.i && !(units[k-1].failed() && s.lastAsPHP()) && units[r.j-1].inEnd == len(s.in) && units[r.j-1].inEnd > units[r.j-1].in {
		// The candidate's bytes end here and PHP's steps go on to the end of the input:
		// they are lost together (the input cut short), one stretch written as nothing
		// (after a failed step written as PHP writes it, a failure that swallowed them:
		// widen reads that).
		s.parts = append(s.parts, region{k, r.j, x, x})
		return true
	}
	u := units[k]
	found := false
	writings(u, s.in[u.in:u.inEnd], s.got[x:r.q], s.opts, s.decode, func(n int) bool {
		left := drops
		if n == 0 && len(u.want) > 0 && u.inEnd > u.in && !afterIgnored(units, k) {
			// Nothing is a writing of a quote (dropped) or of a step PHP drops, not of
			// another — but for one valid character when the rest divides no other way
			// (a dropped default-ignorable character beside another fault), and for the
			// step after a failed one PHP drops (the failure swallowed it: ignoreSwallows).
			if drops == 0 || !u.multiByte() {
				return true
			}
			left--
		}
		s.parts = append(s.parts, region{k, k + 1, x, x + n})
		if found = s.walk(k+1, x+n, left); found {
			return false
		}
		s.parts = s.parts[:len(s.parts)-1]
		return true
	})
	if !found {
		s.dead[b/64] |= 1 << (b % 64)
	}
	return found
}

// afterIgnored reports whether the step before units[k] is a failed one PHP drops
// (INVALID_UTF8_IGNORE).
func afterIgnored(units []unit, k int) bool {
	return k > 0 && units[k-1].failed() && len(units[k-1].want) == 0 && units[k-1].inEnd > units[k-1].in
}

// maxSplit bounds the steps of a stretch split divides.
const maxSplit = 64

// The substitutes implementations write for a failed step (read only).
var (
	subFFFD     = []byte(`\ufffd`)
	subFFFDRaw  = []byte("\xef\xbf\xbd")
	subQuestion = []byte("?")
	sub1A       = []byte{0x1a}
)

// writings calls yield with the length of each way a candidate might write one step's bytes
// src that b starts with — PHP's, raw, the usual substitutes, nothing, the escapes of the code
// point its bits give, PHP's marker once a piece of a split failure — in that order, until
// yield returns false. It allocates nothing: split and walk try it at every step.
func writings(u unit, src, b []byte, opts jsonopt.Options, decode bool, yield func(int) bool) {
	try := func(w []byte) bool { return !bytes.HasPrefix(b, w) || yield(len(w)) }
	ascii := len(src) == 1 && src[0] < 0x80 // no substitute: nothing fails or is unmappable
	for i, w := range [...][]byte{u.want, src, subFFFD, subFFFDRaw, subQuestion, sub1A, nil} {
		if ascii && i >= 2 && i <= 5 {
			continue
		}
		if !try(w) {
			return
		}
	}
	if cp, n, ok := bits(src, false); ok && n == len(src) {
		// The code point the bits give, continuation bytes checked or not.
		var buf [12]byte
		if !try(appendEncode(buf[:0], cp, opts, decode)) || !try(appendUEscape(buf[:0], cp, false)) || !try(appendUEscape(buf[:0], cp, true)) {
			return
		}
		if s := shortEscape(byte(cp)); s != nil && cp < 0x80 && !try(s) {
			return
		}
		if s := cEscapes[byte(cp)]; s != nil && cp < 0x80 && !try(s) {
			return // another language's escape of a control byte (\v for 0B)
		}
		if !decode && cp > 0xFFFF && isSurrogates(b) && !yield(12) {
			return // a surrogate pair of other values (one half computed wrong)
		}
	}
	if u.failed() && len(src) == 1 && src[0] >= 0x80 && !try([]byte{src[0] & 0x7F}) {
		return // a stray byte with its top bit cleared
	}
	if u.failed() && len(u.want) > 0 {
		// A failure split: PHP's marker once a piece, up to one a byte (longest first); then
		// another substitute so (a candidate that splits failures and writes 0x1A for each).
		for i, w := range [...][]byte{u.want, sub1A, subQuestion, subFFFD, subFFFDRaw} {
			if i > 0 && bytes.Equal(w, u.want) {
				continue // PHP's, tried first
			}
			for k := len(src); k >= 2; k-- {
				if repeats(b, w, k) && !yield(k*len(w)) {
					return
				}
			}
		}
	}
}

// repeats reports whether b starts with w k times.
func repeats(b, w []byte, k int) bool {
	if len(b) < k*len(w) {
		return false
	}
	for i := range k {
		if !bytes.Equal(b[i*len(w):(i+1)*len(w)], w) {
			return false
		}
	}
	return true
}

// constant is a substitute as a key's detail: its hex when it is one of the substitutes
// implementations use (0x1A SUB, '?', U+FFFD escaped or raw, NUL, space, nothing), "other"
// otherwise (a byte computed from the input, such as byte & 0x7F, is not one constant).
func constant(b []byte) string {
	switch string(b) {
	case "", "\x1a", "?", `\ufffd`, "\xef\xbf\xbd", `\u001a`, `\u003f`:
		return fmt.Sprintf("%x", b)
	}
	return "other"
}

// acceptedFamily is the family of a sequence seq decoded as cp where PHP fails: a lead without
// all of its continuation bytes when a byte after the lead is not one (a decoder that does not
// check them; the code point it makes means nothing); else what the code point shows
// (overlong, surrogate, above U+10FFFF) whatever exit PHP took first (C0 80 is two
// never-a-lead failures in PHP, an overlong to a decoder that accepts it); else exit.
func acceptedFamily(cp uint32, seq []byte, exit string) string {
	n := len(seq)
	for _, b := range seq[min(1, n):] {
		if b < 0x80 || b > 0xBF {
			return "bad-sequence"
		}
	}
	switch {
	case n == 2 && cp < 0x80, n == 3 && cp < 0x800, n == 4 && cp < 0x10000:
		return "overlong"
	case cp >= 0xD800 && cp <= 0xDFFF:
		return "surrogate"
	case cp > 0x10FFFF:
		return "above-max"
	}
	return exit
}

// bits decodes the first sequence of b by the lead's length and the low bits of the bytes after
// it; with check, the bytes after the lead must be continuation bytes (80..BF). n is how many
// bytes it took.
func bits(b []byte, check bool) (cp uint32, n int, ok bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	c := b[0]
	switch {
	case c < 0x80:
		return uint32(c), 1, true
	case c >= 0xC0 && c < 0xE0:
		n = 2
	case c >= 0xE0 && c < 0xF0:
		n = 3
	case c >= 0xF0 && c < 0xF8:
		n = 4
	default:
		return 0, 1, false
	}
	if len(b) < n {
		return 0, 1, false
	}
	cp = uint32(c) & (0x7F >> n)
	for k := 1; k < n; k++ {
		if check && b[k]&0xC0 != 0x80 {
			return 0, 1, false
		}
		cp = cp<<6 | uint32(b[k]&0x3F)
	}
	return cp, n, true
}
