package fuzz

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"runtime/debug"

	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
)

// The safe* wrappers call one implementation and turn a panic into a value, so one bad
// input never ends a campaign (the deferred recover is open-coded and costs a few ns).

func safeEscape(f func(dst, src []byte, opts jsonopt.Options) ([]byte, error), dst, src []byte, opts jsonopt.Options) (out []byte, p any, err error) {
	defer func() {
		if r := recover(); r != nil {
			p = r
		}
	}()
	out, err = f(dst, src, opts)
	return
}

func safeNextChar(f func(s []byte, pos int) jsonopt.Step, s []byte, pos int) (st jsonopt.Step, p any) {
	defer func() {
		if r := recover(); r != nil {
			p = r
		}
	}()
	return f(s, pos), nil
}

func safeUTF8Decode(f func(dst, src []byte) []byte, dst, src []byte) (out []byte, p any) {
	defer func() {
		if r := recover(); r != nil {
			p = r
		}
	}()
	return f(dst, src), nil
}

// Checker compares candidates with the oracle one input at a time. It owns scratch buffers,
// so a Checker belongs to one goroutine. The zero value is ready to use.
//
// Besides outputs, errors and steps, the per-call methods (Escape, Decode, UTF8Decode,
// Check) check memory: each call runs with debug.SetPanicOnFault, so a fault is a panic
// finding rather than a crash; the input is compared with a copy after each call
// (input-modified); and escape and utf8_decode get a dst whose spare capacity holds a canary,
// checked after each call (dst-overflow: a write past the returned length). Reads outside
// the input are caught only by the boundary space's guard pages (Boundary).
type Checker struct {
	want, got []byte
	in        []byte // the copy of the input handed to candidates
	steps     []jsonopt.Step
	spare     spareCanary

	// byClass lets quick reuse the oracle's escape answers across option sets
	// (oracle.EscapeTrace) when given jsonopt.Combo sets in increasing index order, those whose
	// position in opts plus one pos holds (0: not given); done is its scratch.
	byClass bool
	pos     *[jsonopt.NumStringCombos]int16
	idx     []int16 // the Combo index of each set, in order
	posN    int     // the number of sets pos holds
	// box, when not zero, says the sets of pos are every combination of box[0]'s index bits
	// without NUMERIC_CHECK and of box[1]'s with it (jsonopt.Combo indexes): a class then
	// only walks those bits, and meets no index that is not given.
	box  [2]int
	done [jsonopt.NumStringCombos / 64]uint64 // option indexes already checked
	// canary makes quick give escape and utf8_decode a dst whose spare capacity holds a
	// canary, checked after each call (spotCheck sets it).
	canary bool
}

// numericIndexBit is NUMERIC_CHECK's bit in a jsonopt.Combo index.
var numericIndexBit = bits.TrailingZeros(uint(jsonopt.ComboIndex(jsonopt.NumericCheck)))

// comboBox is Checker.box for the Combo indexes given by pos (n of them), or zero when they
// are not two boxes.
func comboBox(pos *[jsonopt.NumStringCombos]int16, n int) (box [2]int) {
	for i, q := range pos {
		if q != 0 {
			box[i>>numericIndexBit&1] |= i &^ (1 << numericIndexBit)
		}
	}
	size := 0
	for k := range box {
		if box[k] != 0 || pos[k<<numericIndexBit] != 0 {
			size += 1 << bits.OnesCount(uint(box[k]))
		}
	}
	if size != n {
		return [2]int{}
	}
	return box
}

// equalShort is bytes.Equal without a call, for the few bytes of the exhaustive spaces:
// 8 bytes a word, then the rest.
func equalShort(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	i := 0
	for ; i+8 <= len(a); i += 8 {
		if binary.LittleEndian.Uint64(a[i:]) != binary.LittleEndian.Uint64(b[i:]) {
			return false
		}
	}
	for ; i < len(a); i++ {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func clone(b []byte) []byte { return append([]byte{}, b...) }

// input copies src into the candidate-owned input buffer.
func (c *Checker) input(src []byte) []byte {
	c.in = append(c.in[:0], src...)
	return c.in
}

// Escape compares json_encode(src, opts) of every candidate with the oracle's, appending a
// finding per differing candidate to out. Errors are compared before bytes.
func (c *Checker) Escape(out []*Finding, cands []Impl, src []byte, opts jsonopt.Options) []*Finding {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	want, werr := Oracle.Escape(c.want[:0], src, opts)
	c.want = want[:0]
	wcode := jsonopt.ErrorCode(werr)
	for i := range cands {
		im := &cands[i]
		in := c.input(src)
		dst := c.spare.dst(len(want))
		got, p, gerr := safeEscape(im.Escape, dst, in, opts)
		got, d, bad := c.spare.check(dst, got, &c.got)
		if bad && p == nil {
			out = append(out, spareFinding(OpEscape, im.Name, src, opts, got, d))
		}
		if p != nil {
			out = append(out, &Finding{Kind: KindPanic, Op: OpEscape, Impl: im.Name, Input: clone(src), Flags: opts,
				Want: clone(want), WantErr: wcode, Detail: fmt.Sprint(p)})
			continue
		}
		gcode := jsonopt.ErrorCode(gerr)
		switch {
		case gcode != wcode:
			out = append(out, &Finding{Kind: KindError, Op: OpEscape, Impl: im.Name, Input: clone(src), Flags: opts,
				Want: clone(want), Got: clone(got), WantErr: wcode, GotErr: gcode, Detail: errDetail(gerr)})
		case !bytes.Equal(got, want):
			out = append(out, &Finding{Kind: KindOutput, Op: OpEscape, Impl: im.Name, Input: clone(src), Flags: opts,
				Want: clone(want), Got: clone(got), WantErr: wcode, GotErr: gcode})
		}
		if !bytes.Equal(in, src) {
			out = append(out, &Finding{Kind: KindInputModified, Op: OpEscape, Impl: im.Name, Input: clone(src), Flags: opts,
				Detail: fmt.Sprintf("input became % x", in)})
		}
	}
	return out
}

func errDetail(err error) string {
	if err == nil {
		return ""
	}
	return "candidate error: " + err.Error()
}

// Decode walks src with the oracle's decoder steps from position 0 and compares each
// candidate's step at every position (code point, advance, status). It reports the first
// differing step per candidate; the walk follows the oracle's advances.
func (c *Checker) Decode(out []*Finding, cands []Impl, src []byte) []*Finding {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	c.steps = c.steps[:0]
	for pos := 0; pos < len(src); {
		st := Oracle.NextChar(src, pos)
		c.steps = append(c.steps, st)
		if st.Advance <= 0 {
			break // never happens with the oracle; guards the loop
		}
		pos += st.Advance
	}
	for i := range cands {
		im := &cands[i]
		in := c.input(src)
		pos := 0
		for _, want := range c.steps {
			got, p := safeNextChar(im.NextChar, in, pos)
			if p != nil {
				out = append(out, &Finding{Kind: KindPanic, Op: OpDecode, Impl: im.Name, Input: clone(src), Pos: pos,
					WantStep: want, Detail: fmt.Sprint(p)})
				break
			}
			if got != want {
				out = append(out, &Finding{Kind: KindStep, Op: OpDecode, Impl: im.Name, Input: clone(src), Pos: pos,
					WantStep: want, GotStep: got})
				break
			}
			pos += want.Advance
		}
		if !bytes.Equal(in, src) {
			out = append(out, &Finding{Kind: KindInputModified, Op: OpDecode, Impl: im.Name, Input: clone(src),
				Detail: fmt.Sprintf("input became % x", in)})
		}
	}
	return out
}

// UTF8Decode compares utf8_decode(src) of every candidate with the oracle's.
func (c *Checker) UTF8Decode(out []*Finding, cands []Impl, src []byte) []*Finding {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	want := Oracle.UTF8Decode(c.want[:0], src)
	c.want = want[:0]
	for i := range cands {
		im := &cands[i]
		in := c.input(src)
		dst := c.spare.dst(len(want))
		got, p := safeUTF8Decode(im.UTF8Decode, dst, in)
		got, d, bad := c.spare.check(dst, got, &c.got)
		if bad && p == nil {
			out = append(out, spareFinding(OpUTF8Decode, im.Name, src, 0, got, d))
		}
		if p != nil {
			out = append(out, &Finding{Kind: KindPanic, Op: OpUTF8Decode, Impl: im.Name, Input: clone(src),
				Want: clone(want), Detail: fmt.Sprint(p)})
			continue
		}
		if !bytes.Equal(got, want) {
			out = append(out, &Finding{Kind: KindOutput, Op: OpUTF8Decode, Impl: im.Name, Input: clone(src),
				Want: clone(want), Got: clone(got)})
		}
		if !bytes.Equal(in, src) {
			out = append(out, &Finding{Kind: KindInputModified, Op: OpUTF8Decode, Impl: im.Name, Input: clone(src),
				Detail: fmt.Sprintf("input became % x", in)})
		}
	}
	return out
}

// Check runs one operation on one input (opts is used by escape only).
func (c *Checker) Check(out []*Finding, op Op, cands []Impl, src []byte, opts jsonopt.Options) []*Finding {
	switch op {
	case OpEscape:
		return c.Escape(out, cands, src, opts)
	case OpDecode:
		return c.Decode(out, cands, src)
	default:
		return c.UTF8Decode(out, cands, src)
	}
}

// quick checks one input under every option set in opts against every candidate on the hot
// path of the exhaustive spaces: one recover per input rather than per call, no copies, no
// findings. It reports true when everything agreed and the input was left intact; on false
// (or a panic) the caller re-runs the input through the per-call Check, which attributes
// each difference to a candidate and builds the findings.
func (c *Checker) quick(op Op, cands []Impl, src []byte, opts []jsonopt.Options) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	in := c.input(src)
	switch op {
	case OpEscape:
		if c.byClass && len(opts) == c.posN {
			// opts are the jsonopt.Combo sets of c.pos in index order: the oracle's answer is
			// traced once per class of option sets that agree on the bits it tested
			// (oracle.EscapeTrace), and the candidates run under every given set of the class
			// against it. (A spot check's single set is checked set by set below.)
			clear(c.done[:])
			for p, i16 := range c.idx {
				i := int(i16)
				if c.done[i>>6]>>(i&63)&1 != 0 {
					continue
				}
				want, tested, werr := oracle.EscapeTrace(c.want[:0], src, opts[p])
				c.want = want[:0]
				m := jsonopt.ComboIndex(tested)
				free := (jsonopt.NumStringCombos - 1) &^ m
				if c.box != [2]int{} {
					free &= c.box[i>>numericIndexBit&1]
				}
				// A traced PRESERVE_ZERO_FRACTION (a double under NUMERIC_CHECK) keeps the class
				// to the sets of i's parity, the ones that hold it as opts[p] does (jsonopt.Combo).
				pz := tested&jsonopt.PreserveZeroFraction != 0
				par := jsonopt.ComboParity(i)
				g := c.got[:0] // in a register across the class
				for s := 0; ; {
					x := i&m | s
					if q := c.pos[x]; q != 0 && (!pz || jsonopt.ComboParity(x) == par) {
						c.done[x>>6] |= 1 << (x & 63)
						o := opts[q-1]
						for j := range cands {
							got, gerr := cands[j].Escape(g, in, o)
							g = got[:0]
							if gerr != werr || !equalShort(got, want) {
								c.got = g
								return false
							}
						}
					}
					if s = (s - free) & free; s == 0 {
						break
					}
				}
				c.got = g
			}
			break
		}
		for _, o := range opts {
			want, werr := Oracle.Escape(c.want[:0], src, o)
			c.want = want[:0]
			for i := range cands {
				var got []byte
				var gerr error
				if c.canary {
					d := c.spare.dst(6*len(src) + 2)
					out, err := cands[i].Escape(d, in, o)
					var bad bool
					if got, _, bad = c.spare.check(d, out, &c.got); bad {
						return false
					}
					gerr = err
				} else {
					got, gerr = cands[i].Escape(c.got[:0], in, o)
				}
				c.got = got[:0]
				if gerr != werr || !bytes.Equal(got, want) {
					return false
				}
			}
		}
	case OpDecode:
		for pos := 0; pos < len(src); {
			want := Oracle.NextChar(src, pos)
			for i := range cands {
				if cands[i].NextChar(in, pos) != want {
					return false
				}
			}
			if want.Advance <= 0 {
				return false
			}
			pos += want.Advance
		}
	default:
		want := Oracle.UTF8Decode(c.want[:0], src)
		c.want = want[:0]
		for i := range cands {
			var got []byte
			if c.canary {
				d := c.spare.dst(len(src))
				var bad bool
				if got, _, bad = c.spare.check(d, cands[i].UTF8Decode(d, in), &c.got); bad {
					return false
				}
			} else {
				got = cands[i].UTF8Decode(c.got[:0], in)
			}
			c.got = got[:0]
			if !bytes.Equal(got, want) {
				return false
			}
		}
	}
	return bytes.Equal(in, src)
}

// spotEvery: the decode and utf8_decode spaces spot-check one input in spotEvery (64).
const spotEvery = 64

// spotCheck is quick for a sample of the work, with dst's spare capacity checked too: v
// numbers the input within its space. For escape, a 1-byte input runs through every
// candidate under every option set (256 strings are too few to rotate over); a longer one
// runs through each candidate under one option set, opts[(v + j*len(opts)/len(cands)) %
// len(opts)] for the j-th, so that over a space of 65,536 strings or more every candidate
// meets every option set at least 64 times. For decode and utf8_decode every spotEvery-th
// input runs through one candidate, in turn.
func (c *Checker) spotCheck(op Op, cands []Impl, v uint64, src []byte, opts []jsonopt.Options) bool {
	if len(cands) == 0 {
		return true
	}
	c.canary = true
	defer func() { c.canary = false }()
	if op != OpEscape {
		if v%spotEvery != 0 {
			return true
		}
		j := int(v / spotEvery % uint64(len(cands)))
		return c.quick(op, cands[j:j+1], src, opts)
	}
	if len(src) <= 1 {
		byClass := c.byClass
		c.byClass = false
		ok := c.quick(op, cands, src, opts)
		c.byClass = byClass
		return ok
	}
	for j := range cands {
		i := (v + uint64(j*len(opts)/len(cands))) % uint64(len(opts))
		if !c.quick(op, cands[j:j+1], src, opts[i:i+1]) {
			return false
		}
	}
	return true
}
