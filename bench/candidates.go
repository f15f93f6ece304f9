package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	"github.com/difffuzz/difffuzz/fast"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
	"github.com/difffuzz/difffuzz/protocol"
)

// Impl is an in-process implementation of the three operations, as the oracle and each fast
// variant provide them (the contracts of DESIGN.md §2).
type Impl struct {
	Name       string
	Escape     func(dst, src []byte, opts jsonopt.Options) ([]byte, error)
	NextChar   func(s []byte, pos int) jsonopt.Step
	UTF8Decode func(dst, src []byte) []byte
}

// Impls returns the oracle and every fast variant this CPU runs, in that order.
func Impls() []Impl {
	out := []Impl{{Name: "oracle", Escape: oracle.Escape, NextChar: oracle.NextChar, UTF8Decode: oracle.UTF8Decode}}
	for _, v := range fast.Variants() {
		out = append(out, Impl{Name: v.Name, Escape: v.Escape, NextChar: v.NextChar, UTF8Decode: v.UTF8Decode})
	}
	return out
}

// Local makes a candidate of an in-process implementation: each cell's answer is checked
// against the oracle's, then timed with the monotonic clock, dst reused between runs.
func Local(im Impl) Candidate {
	return Candidate{Name: im.Name, Prepare: func(c Cell) (Timer, error) {
		switch c.Op {
		case protocol.OpEscape:
			if im.Escape == nil {
				return nil, fmt.Errorf("escape: %w", ErrSkip)
			}
			dst := make([]byte, 0, 8*c.Size+64)
			for _, in := range c.Inputs {
				want, werr := oracle.Escape(nil, in, c.Options)
				got, err := im.Escape(dst[:0], in, c.Options)
				if !bytes.Equal(got, want) || (err == nil) != (werr == nil) {
					return nil, fmt.Errorf("%w on a %d-byte input: %s (error %v; the oracle's %v)", ErrWrongAnswer, len(in), firstDiff(got, want), err, werr)
				}
			}
			return Timed(func() {
				for _, in := range c.Inputs {
					dst, _ = im.Escape(dst[:0], in, c.Options)
				}
			}), nil
		case protocol.OpUTF8Decode:
			if im.UTF8Decode == nil {
				return nil, fmt.Errorf("utf8_decode: %w", ErrSkip)
			}
			dst := make([]byte, 0, c.Size+16)
			for _, in := range c.Inputs {
				if got, want := im.UTF8Decode(dst[:0], in), oracle.UTF8Decode(nil, in); !bytes.Equal(got, want) {
					return nil, fmt.Errorf("%w on a %d-byte input: %s", ErrWrongAnswer, len(in), firstDiff(got, want))
				}
			}
			return Timed(func() {
				for _, in := range c.Inputs {
					dst = im.UTF8Decode(dst[:0], in)
				}
			}), nil
		case protocol.OpDecode:
			if im.NextChar == nil {
				return nil, fmt.Errorf("decode: %w", ErrSkip)
			}
			for _, in := range c.Inputs {
				for pos := 0; pos < len(in); {
					got, want := im.NextChar(in, pos), oracle.NextChar(in, pos)
					if got != want {
						return nil, fmt.Errorf("%w at byte %d of %d: %v; the oracle's %v", ErrWrongAnswer, pos, len(in), got, want)
					}
					pos += want.Advance
				}
			}
			var sink uint32
			return Timed(func() {
				for _, in := range c.Inputs {
					for pos := 0; pos < len(in); {
						st := im.NextChar(in, pos)
						sink += st.CP
						pos += st.Advance
					}
				}
				sinkCP = sink
			}), nil
		}
		return nil, fmt.Errorf("%s: %w", c.Op, ErrSkip)
	}}
}

// sinkCP keeps the decode loops' results alive (written, never read: the compiler cannot
// drop the loops that feed it).
//
//lint:ignore U1000 written only, on purpose
var sinkCP uint32

// Timed is the Timer of run: n runs timed by the monotonic clock.
func Timed(run func()) Timer {
	return func(n int) (time.Duration, error) {
		start := time.Now()
		for range n {
			run()
		}
		return time.Since(start), nil
	}
}

// Anchors returns the reference points timed with the candidates, for op: for escape,
// "copy" (copy() of the input), "append-quoted" (the input between quotes, appended),
// "encoding-json" (json.Marshal of the string) and "json-encoder" (a json.Encoder with
// SetEscapeHTML(false)); for utf8_decode, "copy"; for decode (ns per code point),
// "utf8.DecodeRune" (a DecodeRune loop over the input) and "utf8.Valid". The Go encoders
// escape differently (\u003c, U+2028 …): they do the same kind of work, not the same answer.
func Anchors() []Candidate {
	each := func(c Cell, f func(in []byte)) Timer {
		return Timed(func() {
			for _, in := range c.Inputs {
				f(in)
			}
		})
	}
	only := func(c Cell, ops ...protocol.Op) error {
		for _, op := range ops {
			if c.Op == op {
				return nil
			}
		}
		return fmt.Errorf("%s: %w", c.Op, ErrSkip)
	}
	return []Candidate{
		{Name: "copy", Anchor: true, Prepare: func(c Cell) (Timer, error) {
			if err := only(c, protocol.OpEscape, protocol.OpUTF8Decode); err != nil {
				return nil, err
			}
			dst := make([]byte, c.Size+16)
			return each(c, func(in []byte) { copy(dst, in) }), nil
		}},
		{Name: "append-quoted", Anchor: true, Prepare: func(c Cell) (Timer, error) {
			if err := only(c, protocol.OpEscape); err != nil {
				return nil, err
			}
			dst := make([]byte, 0, c.Size+16)
			return each(c, func(in []byte) {
				dst = append(dst[:0], '"')
				dst = append(dst, in...)
				dst = append(dst, '"')
			}), nil
		}},
		{Name: "encoding-json", Anchor: true, Prepare: func(c Cell) (Timer, error) {
			if err := only(c, protocol.OpEscape); err != nil {
				return nil, err
			}
			strs := stringsOf(c)
			return Timed(func() {
				for _, s := range strs {
					if _, err := json.Marshal(s); err != nil {
						panic(err) // a string always marshals
					}
				}
			}), nil
		}},
		{Name: "json-encoder", Anchor: true, Prepare: func(c Cell) (Timer, error) {
			if err := only(c, protocol.OpEscape); err != nil {
				return nil, err
			}
			strs := stringsOf(c)
			enc := json.NewEncoder(io.Discard)
			enc.SetEscapeHTML(false)
			return Timed(func() {
				for _, s := range strs {
					if err := enc.Encode(s); err != nil {
						panic(err)
					}
				}
			}), nil
		}},
		{Name: "utf8.DecodeRune", Anchor: true, Prepare: func(c Cell) (Timer, error) {
			if err := only(c, protocol.OpDecode); err != nil {
				return nil, err
			}
			var sink rune
			return each(c, func(in []byte) {
				for len(in) > 0 {
					r, n := utf8.DecodeRune(in)
					sink += r
					in = in[n:]
				}
				sinkCP = uint32(sink)
			}), nil
		}},
		{Name: "utf8.Valid", Anchor: true, Prepare: func(c Cell) (Timer, error) {
			if err := only(c, protocol.OpDecode); err != nil {
				return nil, err
			}
			return each(c, func(in []byte) {
				if utf8.Valid(in) {
					sinkCP++
				}
			}), nil
		}},
	}
}

func stringsOf(c Cell) []string {
	out := make([]string, len(c.Inputs))
	for i, in := range c.Inputs {
		out[i] = string(in)
	}
	return out
}

// firstDiff says where got first differs from want, quoting both around that byte: `output
// byte 7 of 30 differs: got "https://ex", the oracle's "https:\/\/e"`.
func firstDiff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(i-8, 0)
	around := func(b []byte) string {
		s := fmt.Sprintf("%q", b[min(lo, len(b)):min(i+16, len(b))])
		if lo > 0 {
			s = "…" + s
		}
		if i+16 < len(b) {
			s += "…"
		}
		return s
	}
	return fmt.Sprintf("output byte %d of %d differs: got %s, the oracle's %s", i+1, len(got), around(got), around(want))
}
