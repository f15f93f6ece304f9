package deviation

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
)

// Tail is the Detail of a Lost deviation whose answer is PHP's answer for the input cut at a
// step boundary: the candidate stops early (a fixed-size buffer, a vector loop whose scalar
// tail starts a step late) and writes nothing for the steps after the cut. Its In is the cut,
// its Row "last" when one step is lost, "first K" (K the bytes kept) when more are.
const Tail = "tail"

// tailOf is the Tail deviation of got when it is again(in[:k]) for a boundary k of PHP's steps
// (0 < k < len(in)), where again is PHP's answer for a prefix (nil when it has none). units are
// PHP's steps for in, want PHP's answer, closing what PHP writes after the last step (a
// string's closing quote). Only answers that are a prefix of PHP's are tried: the check costs
// one more answer of the oracle for those.
func tailOf(in []byte, units []unit, want, got []byte, closing string, again func([]byte) []byte) (Deviation, bool) {
	n := len(got) - len(closing)
	if n <= 0 || len(got) >= len(want) || !bytes.HasSuffix(got, []byte(closing)) || !bytes.HasPrefix(want, got[:n]) {
		return Deviation{}, false
	}
	// The boundaries whose output is got's: after the step that writes its last byte and
	// after each step after it that writes nothing (a failed step under INVALID_UTF8_IGNORE),
	// the latest first: the fewest steps lost. The row names the earliest (the candidate
	// read no further than that for all its answer shows).
	var at [4]int
	cuts, out := at[:0], 0
	for i, u := range units {
		out += len(u.want)
		if out > n {
			break
		}
		if out == n && u.inEnd > 0 && u.inEnd < len(in) {
			if len(cuts) == len(at) {
				copy(cuts, cuts[1:])
				cuts = cuts[:len(at)-1]
			}
			cuts = append(cuts, i)
		}
	}
	for c := len(cuts) - 1; c >= 0 && c >= len(cuts)-2; c-- {
		i := cuts[c]
		if k := units[i].inEnd; bytes.Equal(again(in[:k]), got) {
			lost := 0
			for _, v := range units[i+1:] {
				if v.in < len(in) {
					lost++
				}
			}
			row := "last"
			if lost > 1 {
				row = fmt.Sprintf("first %d", units[cuts[0]].inEnd)
			}
			return Deviation{What: Lost, Detail: Tail, Family: "string", Row: row, In: k, InEnd: len(in),
				Want: want[n : len(want)-len(closing)], CP: -1}, true
		}
	}
	return Deviation{}, false
}

// quotedTail is the Tail deviation of a json_encode answer got without its closing quote that,
// with it, is PHP's answer for the input cut at a step boundary (tailOf): a candidate that
// loses its last steps and its quote shows both.
func quotedTail(in []byte, units []unit, want, got []byte, opts jsonopt.Options) (Deviation, bool) {
	return tailOf(in, units, want, append(slices.Clip(got), '"'), `"`, escapeAgain(opts))
}

// escapeAgain is json_encode's answer for a prefix under opts (nil when it returns false).
func escapeAgain(opts jsonopt.Options) func([]byte) []byte {
	return func(p []byte) []byte {
		out, err := oracle.Escape(nil, p, opts)
		if err != nil {
			return nil
		}
		return out
	}
}

// utf8DecodeAgain is utf8_decode's answer for a prefix.
func utf8DecodeAgain(p []byte) []byte { return oracle.UTF8Decode(nil, p) }

// withTail is the reading of an answer that is also PHP's for a prefix of the input (t). When
// one step is lost and the steps read as one definite deviation (the last character dropped,
// a failed step that swallows the bytes after it), that reading stays, with the cut as its
// other reading; when more are lost, the cut is the deviation, with the steps' one definite
// reading as its other (a lenient decoder's E1 61 61 at the end is PHP's answer for E1 too).
// The report files the findings under the other reading when the candidate shows it
// elsewhere and nearly all of them read so.
func withTail(ds []Deviation, t Deviation) []Deviation {
	single := len(ds) == 1 && vagueness(ds) == 1
	switch {
	case single && t.Row == "last":
		ds[0].Alts = append(ds[0].Alts, t.Key())
		return ds
	case single:
		t.Alts = []string{ds[0].Key()}
	}
	return []Deviation{t}
}

// cutRow is the Row of the input of n bytes cut at k: "last" when PHP's steps (units) lose one
// step there, "first K" (K = k) when more.
func cutRow(units []unit, k, n int) string {
	lost := 0
	for _, u := range units {
		if u.in >= k && u.in < n {
			lost++
		}
	}
	if lost > 1 {
		return fmt.Sprintf("first %d", k)
	}
	return "last"
}

// dropsToEnd reads a drop that reaches the end of the input (PHP's last steps written as
// nothing) beside other deviations as the input cut there, as withTail reads an answer that
// is PHP's for a prefix: one step lost keeps the drop, with the cut as its other reading;
// more are the cut, with the drop as its other. An answer with a fault before the cut is
// not PHP's for a prefix, but its end is still cut.
func dropsToEnd(ds []Deviation, units []unit, in []byte) []Deviation {
	for i, d := range ds {
		if d.What != Substitute || d.Detail != "" || d.InEnd != len(in) || d.In <= 0 || len(ds) < 2 {
			continue
		}
		t := Deviation{What: Lost, Detail: Tail, Family: "string", Row: cutRow(units, d.In, len(in)), In: d.In, InEnd: len(in), Want: d.Want, CP: -1}
		if t.Row == "last" {
			ds[i].Alts = append(ds[i].Alts, t.Key())
			continue
		}
		t.Alts = []string{d.Key()}
		ds[i] = t
	}
	return ds
}

// lastStepCut is the Tail deviation of a json_encode answer that is PHP's answer for the input
// without its last step where one of them is not a string (NUMERIC_CHECK: "1.5e+32a" is a
// string, "1.5e+32" a number; "12" without its 2 is the number 1).
func lastStepCut(in, want, got []byte, opts jsonopt.Options) (Deviation, bool) {
	k := len(in) - 1
	for k > 0 && len(in)-k < 4 && in[k]&0xC0 == 0x80 {
		k-- // back to the lead of the last step, if it is a sequence
	}
	if k < 1 || !bytes.Equal(escapeAgain(opts)(in[:k]), got) {
		return Deviation{}, false
	}
	return Deviation{What: Lost, Detail: Tail, Family: "string", Row: "last", In: k, InEnd: len(in), Want: want, Got: got, CP: -1}, true
}

// emptyCut gives the one deviation of an answer that is PHP's answer for the empty input (got
// equal to empty), to an input PHP reads as one step, the input cut short as its other
// reading: a candidate that loses the last step of every input loses all of such an input,
// which reads as that step written as nothing too. The report files the findings under the
// cut when the candidate shows a cut elsewhere (a confirmed Tail of its own).
func emptyCut(ds []Deviation, units []unit, in, got, empty []byte) []Deviation {
	if len(ds) != 1 || len(in) == 0 || !bytes.Equal(got, empty) || ds[0].Detail == Tail {
		return ds
	}
	steps := 0
	for _, u := range units {
		if u.inEnd > u.in {
			steps++
		}
	}
	k := Deviation{What: Lost, Detail: Tail, Family: "string"}.Key()
	if steps == 1 && !slices.Contains(ds[0].Alts, k) {
		ds[0].Alts = append(ds[0].Alts, k)
	}
	return ds
}

// StepsCut is the deviation of a decode answer whose steps, each PHP's, end at pos before the
// end of in: the Tail of a candidate that stops early, "last" when PHP has one step from
// pos on, "first K" (K = pos) when more.
func StepsCut(in []byte, pos int) []Deviation {
	row, steps := "last", 0
	for p := pos; p < len(in); steps++ {
		p += oracle.NextChar(in, p).Advance
	}
	if steps > 1 {
		row = fmt.Sprintf("first %d", pos)
	}
	return []Deviation{{What: Lost, Detail: Tail, Family: "string", Row: row, In: pos, InEnd: len(in), CP: -1}}
}

// formTail is the reading of a json_encode answer that is PHP's answer for the input cut at a
// step boundary up to the case of the hex digits of its \uXXXX escapes (another fault's
// \uFFFD for \ufffd does not hide the cut, nor the cut the other fault): the deviations of
// got from PHP's answer for the cut input, and the cut (Tail). The last two boundaries before
// the end are tried (tailOf's), and only when got has upper-case hex digits.
func formTail(in []byte, units []unit, want, got []byte, opts jsonopt.Options) ([]Deviation, bool) {
	lg := lowerHexEscapes(got)
	if bytes.Equal(lg, got) || len(lg) >= len(want) || !bytes.HasPrefix(want, lg[:len(lg)-1]) {
		return nil, false
	}
	tried := 0
	for i := len(units) - 1; i >= 0 && tried < 2; i-- {
		k := units[i].inEnd
		if k <= 0 || k >= len(in) || units[i].inEnd == units[i].in {
			continue
		}
		tried++
		a := escapeAgain(opts)(in[:k])
		if a == nil || !bytes.Equal(a, lg) {
			continue
		}
		ds := Escape(in[:k], opts, got, 0, false)
		if len(ds) == 0 {
			return nil, false
		}
		t := Deviation{What: Lost, Detail: Tail, Family: "string", Row: cutRow(units, k, len(in)), In: k, InEnd: len(in),
			Want: want[len(a)-1 : len(want)-1], CP: -1}
		return append(ds, t), true
	}
	return nil, false
}

// lowerHexEscapes is b with the hex digits of its \uXXXX escapes in lower case (b itself when
// it has none in upper case).
func lowerHexEscapes(b []byte) []byte {
	var out []byte
	for i := 0; i+5 < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if b[i+1] != 'u' {
			i++ // \\ and the other two-byte escapes
			continue
		}
		for j := i + 2; j < i+6; j++ {
			if c := b[j]; c >= 'A' && c <= 'F' {
				if out == nil {
					out = slices.Clone(b)
				}
				out[j] = c + 'a' - 'A'
			}
		}
		i += 5
	}
	if out == nil {
		return b
	}
	return out
}
