package fuzz

import (
	"bytes"
	"fmt"
	"math/bits"
	"strings"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// CheckOne runs one candidate against the oracle on one input and returns the findings; it is
// what minimization re-runs (OneCheck makes one from a CheckFunc; an external target makes
// its own).
type CheckOne func(op Op, im Impl, src []byte, opts jsonopt.Options) []*Finding

// OneCheck adapts a CheckFunc to one candidate, with a Checker of its own (so the result
// belongs to one goroutine).
func OneCheck(check CheckFunc) CheckOne {
	var c Checker
	return func(op Op, im Impl, src []byte, opts jsonopt.Options) []*Finding {
		return check(&c, nil, op, []Impl{im}, src, opts)
	}
}

// maxMinimizeChecks bounds the candidate runs of one minimization (a 1 KiB input needs a
// few thousand at most).
const maxMinimizeChecks = 50000

// Minimize shrinks f while the candidate keeps producing a finding of the same kind for the
// same operation: delta debugging (Zeller's ddmin) on the input bytes, alternated with
// removing whole 64/32/16/8/4-byte blocks (see shrink), then on the option bits
// (each set bit is cleared if the finding survives without it), then bytes once more if an
// option went; last, every byte that can be replaced by 'a', or else by the representative of
// its byte class, is (see simplify), and options and bytes are minimized again when that
// changed something. The result is 1-minimal: removing any one byte or clearing any one option
// bit makes the finding go away. It returns the finding made by the minimal input (with
// Origin extended to say what was removed), or f itself if im cannot reproduce it. check
// nil means OneCheck(DefaultCheck).
func Minimize(f *Finding, im Impl, check CheckOne) *Finding {
	return MinimizeSame(f, im, check, nil)
}

// MinimizeSame is Minimize with its own test of which findings on the way still show the
// defect: same(g) (nil: any finding of f's kind). Package report keeps the oracle's rule at
// the first difference, so that minimizing an input that shows two defects does not slip from
// the one it was found for to the other, and lets the kind change where the rule stays (an
// output difference under INVALID_UTF8_SUBSTITUTE that is an error difference without it).
func MinimizeSame(f *Finding, im Impl, check CheckOne, same func(g *Finding) bool) *Finding {
	return MinimizeWith(f, im, check, MinimizeOptions{Same: same})
}

// MinimizeOptions say which findings on the way of a minimization still show the defect.
type MinimizeOptions struct {
	// Same accepts a finding while bytes are removed and option bits cleared (nil: any finding
	// of the original's kind).
	Same func(g *Finding) bool
	// Simplify, if set, is called with the finding the removing ended with and returns the
	// test of the last steps, which replace bytes (it applies besides Same): package report
	// shrinks a witness without keeping its rule, then keeps the rule it ended with, so that
	// replacing bytes cannot turn one defect's witness into another's.
	Simplify func(g *Finding) func(*Finding) bool
}

// MinimizeWith is Minimize with the tests of opt (see MinimizeOptions).
func MinimizeWith(f *Finding, im Impl, check CheckOne, opt MinimizeOptions) *Finding {
	if check == nil {
		check = OneCheck(DefaultCheck)
	}
	if _, ok := LimitOf(f); ok || EveryAnswer(f) {
		return f // its target fails after so many requests, or every answer, whatever they ask: no input to shrink
	}
	m := &minimizer{f: f, im: im, check: check, same: opt.Same}
	opts := f.Flags
	m.runs++
	first := m.check(f.Op, im, f.Input, opts)
	if g := flaky(f, first, im.Name); g != nil {
		return g
	}
	if m.pick(first) == nil {
		return f // not reproducible alone (flaky or order-dependent): keep as found
	}
	in := m.shrink(f.Input, opts)
	if f.Op == OpEscape {
		if o := m.minOptions(in, opts); o != opts {
			opts = o
			in = m.shrink(in, opts)
		}
	}
	if opt.Simplify != nil {
		if g := m.test(in, opts); g != nil {
			also, same := opt.Simplify(g), m.same
			m.same = func(h *Finding) bool { return (same == nil && h.Kind == f.Kind || same != nil && same(h)) && also(h) }
		}
	}
	// Making bytes 'a' or representative can let more bytes and option bits go: simplify,
	// clear options and shrink again until nothing changes (a few rounds at most).
	for round := 0; round < 4; round++ {
		before, beforeOpts := string(in), opts
		in = m.simplify(in, opts)
		if string(in) == before {
			break
		}
		if f.Op == OpEscape {
			opts = m.minOptions(in, opts)
		}
		if in = m.shrink(in, opts); len(in) == len(before) && opts == beforeOpts {
			break
		}
	}
	in, anchored := m.slide(in, opts)
	g := m.test(in, opts)
	if g == nil { // cannot happen: every accepted step was tested
		return f
	}
	g.Origin, g.Space, g.Minimized, g.Anchored = f.Origin, f.Space, true, anchored
	var what []string
	if len(in) < len(f.Input) {
		what = append(what, fmt.Sprintf("from %d to %d bytes", len(f.Input), len(in)))
	}
	if opts != f.Flags {
		what = append(what, fmt.Sprintf("options from %d to %d bits", bits.OnesCount32(uint32(f.Flags)), bits.OnesCount32(uint32(opts))))
	}
	if len(what) > 0 {
		note := "minimized " + what[0]
		for _, w := range what[1:] {
			note += ", " + w
		}
		note += fmt.Sprintf(" (%d runs)", m.runs)
		if g.Origin != "" {
			g.Origin += "; " + note
		} else {
			g.Origin = note
		}
	}
	return g
}

// smallNumbers are the shortest numeric strings of each kind (spec §1.7), shortest first: an
// integer, a double with a point, a signed one, an exponent, whitespace before and after.
var smallNumbers = []string{"0", "1", "0.", ".0", "1.", ".1", "-0", "-1", " 0", "0 ", "0e0", "1e0", "-0.", "0.0", "1e9"}

type minimizer struct {
	f     *Finding
	im    Impl
	check CheckOne
	same  func(*Finding) bool
	runs  int
}

// test returns the finding the candidate makes on (in, opts) if it is of f's kind (or, with
// same, one same accepts).
func (m *minimizer) test(in []byte, opts jsonopt.Options) *Finding {
	m.runs++
	return m.pick(m.check(m.f.Op, m.im, in, opts))
}

// pick is the finding of fs that still shows the defect, or nil.
func (m *minimizer) pick(fs []*Finding) *Finding {
	for _, g := range fs {
		if g.Impl == m.im.Name && (m.same == nil && g.Kind == m.f.Kind || m.same != nil && m.same(g)) {
			return g
		}
	}
	return nil
}

// FlakyMarker starts the note Minimize adds to the detail of an external target's finding
// whose answer changed when it was asked again (Flaky).
const FlakyMarker = "; nondeterministic: "

// Flaky returns the note on a finding whose target answered its input otherwise when asked
// again alone (in a new process, or later in the same one): its witness may not reproduce.
func Flaky(f *Finding) (string, bool) {
	_, note, ok := strings.Cut(f.Detail, FlakyMarker)
	return note, ok
}

// flaky returns f with a note when it is an external target's finding and the target's
// answer changed when asked again (again: the findings of that): minimizing it would follow
// the new answer, or nothing, so it is kept as found. nil when the answer is the same.
func flaky(f *Finding, again []*Finding, impl string) *Finding {
	if !f.External {
		return nil
	}
	why := answerChanged(f, again, impl)
	if why == "" {
		return nil
	}
	g := *f
	g.Detail += FlakyMarker + why
	return &g
}

// answerChanged says how the target's answer in again (the findings of asking f's case
// again) differs from the one f recorded, "" when it is the same.
func answerChanged(f *Finding, again []*Finding, impl string) string {
	var g *Finding
	for _, h := range again {
		if h.Impl == impl {
			g = h
			break
		}
	}
	was := answerText(f)
	switch {
	case g == nil:
		return fmt.Sprintf("asked again alone, the target answered as the oracle does, where it had answered %s: not minimized", was)
	case g.Kind != f.Kind:
		return fmt.Sprintf("asked again alone, the target answered %s, where it had answered %s: not minimized", answerText(g), was)
	}
	if now := answerText(g); now != was {
		return fmt.Sprintf("asked again alone, the target answered %s, where it had answered %s: not minimized", now, was)
	}
	return ""
}

// answerText is the candidate's answer of a finding, for a note: the result or step, or the
// kind of a failure.
func answerText(f *Finding) string {
	switch f.Kind {
	case KindOutput, KindError:
		return f.GotText()
	case KindStep:
		if f.Detail != "" && f.GotStep == (jsonopt.Step{}) {
			return fmt.Sprintf("%q at offset %d", f.Detail, f.Pos)
		}
		return fmt.Sprintf("%s at offset %d", StepText(f.GotStep), f.Pos)
	}
	return string(f.Kind)
}

func (m *minimizer) fails(in []byte, opts jsonopt.Options) bool {
	return m.runs < maxMinimizeChecks && m.test(in, opts) != nil
}

// allRangesUpTo is the input length up to which shrink tries removing every contiguous range.
const allRangesUpTo = 48

// shrink alternates ddmin with removing whole blocks of 64, 32, 16, 8 or 4 bytes at any
// offset: ddmin alone is 1-minimal, but a defect tied to a position in a vector chunk (a
// sequence straddling the 16-byte edge) needs the bytes before it removed a chunk at a
// time, which keeps it in its lane. An input of at most allRangesUpTo bytes then also loses
// any contiguous range it can do without (a valid 3-byte character before an overlong one:
// removing one or two of its bytes leaves invalid bytes that fail everywhere), so that no
// shorter input made by removing one range still fails.
func (m *minimizer) shrink(in []byte, opts jsonopt.Options) []byte {
	in = m.ddmin(in, opts)
	for m.runs < maxMinimizeChecks {
		shorter := false
		widths := []int{64, 32, 16, 8, 4}
		if len(in) <= allRangesUpTo {
			widths = widths[:0]
			for w := len(in); w >= 2; w-- {
				widths = append(widths, w)
			}
		}
		for _, w := range widths {
			for lo := 0; lo+w <= len(in) && !shorter; lo++ {
				c := append(append([]byte(nil), in[:lo]...), in[lo+w:]...)
				if m.fails(c, opts) {
					in, shorter = c, true
				}
			}
			if shorter {
				break
			}
		}
		if !shorter {
			return in
		}
		in = m.ddmin(in, opts)
	}
	return in
}

// ddmin is delta debugging on bytes: split the input into n parts; keep a part that still
// fails, else a complement that still fails (one part removed), else split finer, until the
// parts are single bytes. The empty input is tried first.
func (m *minimizer) ddmin(in []byte, opts jsonopt.Options) []byte {
	in = append([]byte(nil), in...)
	if len(in) > 0 && m.fails(nil, opts) {
		return []byte{}
	}
	n := 2
	for len(in) >= 2 && m.runs < maxMinimizeChecks {
		size := (len(in) + n - 1) / n
		reduced := false
		// Subsets first: a part alone that still fails.
		for lo := 0; lo < len(in) && n > 2; lo += size {
			part := in[lo:min(lo+size, len(in))]
			if m.fails(part, opts) {
				in, n, reduced = append([]byte(nil), part...), 2, true
				break
			}
		}
		if !reduced {
			// Complements: the input with one part removed.
			for lo := 0; lo < len(in); lo += size {
				hi := min(lo+size, len(in))
				c := append(append([]byte(nil), in[:lo]...), in[hi:]...)
				if m.fails(c, opts) {
					in, n, reduced = c, max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= len(in) {
				break
			}
			n = min(2*n, len(in))
		}
	}
	if len(in) == 1 && m.fails(nil, opts) {
		return []byte{}
	}
	return in
}

// simplify makes the minimal input readable and canonical without changing its length: each
// byte that can become 'a' (keeping the finding) does, else, if it can, 0x80 (the plainest
// byte that is not ASCII), else the representative of its byte class (representative: E4
// becomes E1, F4 81 becomes F1 80 when that keeps the finding). A byte only moves up that
// order, so passes converge; they repeat while a byte changed (one made representative can let
// another become 'a'), at most three times. The bytes left are the ones that matter, and the
// witnesses of one defect found from different inputs come out alike.
func (m *minimizer) simplify(in []byte, opts jsonopt.Options) []byte {
	// Under NUMERIC_CHECK a numeric witness rarely shrinks by removing bytes ("2E6" loses its
	// double with its exponent): the smallest numbers of each kind are tried whole, shortest first.
	if m.f.Op == OpEscape && opts&jsonopt.NumericCheck != 0 {
		for _, n := range smallNumbers {
			if len(n) < len(in) && m.fails([]byte(n), opts) {
				return []byte(n)
			}
		}
		// Whitespace around a number is one kind: a space stands for all six.
		for i, c := range in {
			if c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' {
				if in[i] = ' '; !m.fails(in, opts) {
					in[i] = c
				}
			}
		}
	}
	// All at once first: when the bytes do not matter (a target that fails on any long
	// input) one run does what one a byte would (and a restart a byte, for a crash).
	if all := bytes.Repeat([]byte("a"), len(in)); len(in) > 1 && !bytes.Equal(all, in) && m.fails(all, opts) {
		return all
	}
	// A valid multi-byte character becomes as many 'a's in one step: no single byte of it can.
	for i := 0; i < len(in); {
		st := Oracle.NextChar(in, i)
		if st.OK && st.Advance > 1 {
			old := append([]byte(nil), in[i:i+st.Advance]...)
			copy(in[i:], bytes.Repeat([]byte("a"), st.Advance))
			if !m.fails(in, opts) {
				copy(in[i:], old)
			}
		}
		i += st.Advance
	}
	for pass := 0; pass < 3; pass++ {
		changed := false
		for i := range in {
			old := in[i]
			var better []byte
			switch {
			case old == 'a':
			case old == 0x80:
				better = []byte{'a'}
			case representative(old) == old:
				better = []byte{'a', 0x80}
			default:
				better = []byte{'a', 0x80, representative(old)}
			}
			for _, c := range better {
				in[i] = c
				if m.fails(in, opts) {
					changed = true
					break
				}
				in[i] = old
			}
		}
		if !changed {
			break
		}
	}
	return in
}

// MinFiller is how many filler bytes ('a') a minimal witness must keep around the bytes that
// matter for Minimize to try them at other offsets (see Finding.Anchored): a vector kernel's
// lane or edge needs 15 bytes before the last lane of a 16-byte chunk, a kernel that only
// checks full chunks 15 bytes beside the one it gets wrong.
const MinFiller = 4

// slide takes a minimal input that is filler 'a' around a span of other bytes (at least
// MinFiller of them) and tries the span at every other offset, first to last. When it fails
// at another offset too, the defect needs the filler for the length, not for the place: the
// span moves to the first offset where it fails (so that the witnesses of one defect found at
// different lanes come out alike) and anchored is false. When it fails only where it is, the
// defect depends on the place (anchored).
func (m *minimizer) slide(in []byte, opts jsonopt.Options) (out []byte, anchored bool) {
	lo, hi := -1, 0
	for i, b := range in {
		if b != 'a' {
			if lo < 0 {
				lo = i
			}
			hi = i + 1
		}
	}
	if lo < 0 {
		return in, false
	}
	span := append([]byte(nil), in[lo:hi]...)
	filler := len(in) - len(span)
	if filler < MinFiller {
		return in, false
	}
	for p := 0; p <= filler; p++ {
		if p == lo {
			continue
		}
		c := bytes.Repeat([]byte("a"), len(in))
		copy(c[p:], span)
		if m.fails(c, opts) {
			if p < lo {
				return c, false
			}
			return in, false
		}
		if m.runs >= maxMinimizeChecks {
			return in, false // not known: do not claim a position
		}
	}
	return in, true
}

// minOptions clears every option bit whose absence keeps the finding, highest bit first,
// until no single bit can go.
func (m *minimizer) minOptions(in []byte, opts jsonopt.Options) jsonopt.Options {
	for changed := true; changed; {
		changed = false
		for k := 31; k >= 0; k-- {
			b := jsonopt.Options(1) << k
			if opts&b != 0 && m.fails(in, opts&^b) {
				opts &^= b
				changed = true
			}
		}
	}
	return opts
}
