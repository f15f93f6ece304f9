package fuzz

import (
	"bytes"
	"fmt"
	"unsafe"

	"github.com/difffuzz/difffuzz/boundary"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// The kinds of finding the memory checks add (DESIGN.md §4).
const (
	KindReadPastEnd     Kind = "read-past-end"     // a fault on the guard page after the input
	KindReadBeforeStart Kind = "read-before-start" // a fault on the guard page before the input
	KindDstOverflow     Kind = "dst-overflow"      // a write into dst past the returned length (or an access past its capacity)
)

// memIssue is one memory finding of a call: its kind, the offset it is at (in the input, or
// in the output appended to dst when output is set) and what happened.
type memIssue struct {
	kind   Kind
	off    int
	output bool
	detail string
}

// memEnv is one worker's guarded memory for the boundary space: an input buffer between two
// PROT_NONE pages, and a destination buffer whose capacity ends at one, kept equal to a
// canary pattern between calls. Every call copies the input in, lays dst out, runs the
// candidate with faults turned into panics, and then checks the input against its copy, the
// canary past the returned length and the bytes already in dst.
type memEnv struct {
	in, out *boundary.Buffer
	outData []byte // out's usable bytes: equal to tmpl between calls
	tmpl    []byte // the canary pattern, tmpl[i] = boundary.Canary(i)
	got     []byte // copy of the last output
	issues  []memIssue
	align   int  // the last input's address mod 64
	faulted bool // the last call ended in a guard-page fault (an issue)
}

// newMemEnv maps the buffers: inputs up to maxIn bytes (plus 64 for alignment), outputs up
// to maxOut bytes (dst length and spare capacity together).
func newMemEnv(maxIn, maxOut int) (*memEnv, error) {
	in, err := boundary.NewBuffer(maxIn + 64)
	if err != nil {
		return nil, err
	}
	out, err := boundary.NewBuffer(maxOut)
	if err != nil {
		_ = in.Free()
		return nil, err
	}
	e := &memEnv{in: in, out: out}
	e.outData = out.Tail(0, out.Size())[:out.Size()]
	e.tmpl = make([]byte, len(e.outData))
	boundary.FillCanary(e.tmpl, 0)
	copy(e.outData, e.tmpl)
	return e, nil
}

func (e *memEnv) free() {
	_ = e.in.Free()
	_ = e.out.Free()
}

// guarded reports whether reads outside the input are detected (real guard pages).
func (e *memEnv) guarded() bool { return e.in.Guarded() }

// src copies x into the input buffer laid out as l and returns the copy.
func (e *memEnv) src(x []byte, l boundary.Layout, align int) []byte {
	s := e.in.Input(l, len(x), align)
	copy(s, x)
	e.align = int(uintptr(unsafe.Pointer(unsafe.SliceData(s))) % 64)
	e.faulted = false
	return s
}

// dst returns the destination: dstLen bytes (canary bytes, standing for earlier output) and
// spare bytes of spare capacity, its capacity ending at the guard page.
func (e *memEnv) dst(dstLen, spare int) []byte {
	at := len(e.outData) - dstLen - spare
	return e.outData[at : at+dstLen : len(e.outData)]
}

// fault classifies the value p recovered from a call on input s and destination dst (nil
// for decode) and returns the issue, or ok false for a panic that is not a guard-page fault.
func (e *memEnv) fault(name string, p any, s, dst []byte) (memIssue, bool) {
	addr, ok := boundary.FaultAddr(p)
	if !ok {
		return memIssue{}, false
	}
	switch side, off := e.in.Where(s, addr); side {
	case boundary.After:
		return memIssue{kind: KindReadPastEnd, off: off,
			detail: fmt.Sprintf("%s read past the end of a %d-byte input (fault at input offset %d, address %#x, on the guard page)", name, len(s), off, addr)}, true
	case boundary.Before:
		return memIssue{kind: KindReadBeforeStart, off: off,
			detail: fmt.Sprintf("%s read before the start of a %d-byte input (fault at input offset %d, address %#x, on the guard page)", name, len(s), off, addr)}, true
	}
	if dst != nil {
		if side, off := e.out.Where(dst[:0:cap(dst)], addr); side == boundary.After {
			return memIssue{kind: KindDstOverflow, off: off - len(dst), output: true,
				detail: fmt.Sprintf("%s accessed dst past its capacity (%d bytes in dst, %d spare; fault at output offset %d, address %#x, on the guard page)",
					name, len(dst), cap(dst)-len(dst), off-len(dst), addr)}, true
		}
	}
	return memIssue{}, false
}

// checkInput records an issue if the candidate changed its input s (a copy of x).
func (e *memEnv) checkInput(name string, s, x []byte) {
	if bytes.Equal(s, x) {
		return
	}
	if d := FirstDiff(s, x); d >= 0 {
		e.issues = append(e.issues, memIssue{kind: KindInputModified, off: d,
			detail: fmt.Sprintf("%s changed its input at offset %d: % x became % x", name, d, x[d:min(d+8, len(x))], s[d:min(d+8, len(s))])})
	}
}

// checkDst checks dst (as handed to the candidate) against out (as returned), records dst
// issues, copies the appended output into e.got and restores the canary pattern.
func (e *memEnv) checkDst(name string, dst, out []byte) {
	at := len(e.outData) - cap(dst)
	n := len(dst)
	whole := e.outData[at:]
	tmpl := e.tmpl[at:]
	same := cap(out) > 0 && cap(dst) > 0 && unsafe.SliceData(out) == unsafe.SliceData(dst)
	if bytes.Equal(whole[:n], tmpl[:n]) {
		// the bytes already in dst are intact
	} else if d := FirstDiff(whole[:n], tmpl[:n]); d >= 0 {
		e.issues = append(e.issues, memIssue{kind: KindDstPrefix, off: d - n, output: true,
			detail: fmt.Sprintf("%s changed byte %d of the %d bytes already in dst", name, d, n)})
	} else if !same && (len(out) < n || !bytes.Equal(out[:n], tmpl[:n])) {
		e.issues = append(e.issues, memIssue{kind: KindDstPrefix, off: 0, output: true,
			detail: fmt.Sprintf("%s returned a slice that does not start with the %d bytes of dst", name, n)})
	}
	// A write past the returned length: in place, any byte from len(out) on; after growing
	// into a new array, any byte of the old spare capacity from len(out) on (writing into it
	// before growing is harmless to the caller).
	from := max(n, len(out))
	if from < len(whole) && !bytes.Equal(whole[from:], tmpl[from:]) {
		if d := FirstDiff(whole[from:], tmpl[from:]); d >= 0 {
			e.issues = append(e.issues, memIssue{kind: KindDstOverflow, off: from + d - n, output: true,
				detail: fmt.Sprintf("%s wrote into dst past the %d bytes it returned: output offset %d (%d bytes in dst, %d spare) became %02x",
					name, len(out)-min(n, len(out)), from+d-n, n, cap(dst)-n, whole[from+d])})
		}
	}
	if len(out) >= n {
		e.got = append(e.got[:0], out[n:]...)
	} else {
		e.got = e.got[:0]
	}
	if same && len(e.issues) == 0 {
		copy(whole[n:len(out)], tmpl[n:len(out)])
	} else {
		copy(whole, tmpl)
	}
}

// escape runs f like json_encode on a guarded copy of x and returns the appended output (valid
// until the next call), a non-fault panic value, the memory issues found and the error.
func (e *memEnv) escape(name string, f func(dst, src []byte, opts jsonopt.Options) ([]byte, error),
	x []byte, l boundary.Layout, align, dstLen, spare int, opts jsonopt.Options) ([]byte, any, []memIssue, error) {
	e.issues = e.issues[:0]
	s := e.src(x, l, align)
	d := e.dst(dstLen, spare)
	var out []byte
	var err error
	p := boundary.Protect(func() { out, err = f(d, s, opts) })
	got := e.finish(name, p, s, x, d, out)
	p = e.panicValue(name, p, s, d)
	return got, p, e.issues, err
}

// utf8Decode is escape for utf8_decode.
func (e *memEnv) utf8Decode(name string, f func(dst, src []byte) []byte,
	x []byte, l boundary.Layout, align, dstLen, spare int) ([]byte, any, []memIssue) {
	e.issues = e.issues[:0]
	s := e.src(x, l, align)
	d := e.dst(dstLen, spare)
	var out []byte
	p := boundary.Protect(func() { out = f(d, s) })
	got := e.finish(name, p, s, x, d, out)
	p = e.panicValue(name, p, s, d)
	return got, p, e.issues
}

// finish checks memory after a call and returns the appended output.
func (e *memEnv) finish(name string, p any, s, x, d, out []byte) []byte {
	if p != nil {
		if is, ok := e.fault(name, p, s, d); ok {
			e.issues = append(e.issues, is)
			e.faulted = true
		}
		copy(e.outData, e.tmpl)
		e.got = e.got[:0]
		e.checkInput(name, s, x)
		return e.got
	}
	e.checkInput(name, s, x)
	e.checkDst(name, d, out)
	return e.got
}

// panicValue is p unless it is a guard-page fault already recorded as an issue.
func (e *memEnv) panicValue(name string, p any, s, d []byte) any {
	if p == nil {
		return nil
	}
	if _, ok := e.fault(name, p, s, d); ok {
		return nil
	}
	return p
}

// decode calls f at each position of steps (the oracle's walk over x) on a guarded copy of
// x, and returns the index of the first step that differs (len(steps) if none), the step the
// candidate returned there, a non-fault panic value (with the index of the step it happened
// at) and the memory issues found.
func (e *memEnv) decode(name string, f func(s []byte, pos int) jsonopt.Step, x []byte, steps []posStep,
	l boundary.Layout, align int) (int, jsonopt.Step, any, []memIssue) {
	e.issues = e.issues[:0]
	s := e.src(x, l, align)
	i := 0
	var got jsonopt.Step
	p := boundary.Protect(func() {
		for ; i < len(steps); i++ {
			got = f(s, steps[i].pos)
			if got != steps[i].st {
				return
			}
		}
	})
	if p != nil {
		if is, ok := e.fault(name, p, s, nil); ok {
			e.issues = append(e.issues, is)
			e.faulted = true
			p = nil
		}
	}
	e.checkInput(name, s, x)
	return i, got, p, e.issues
}

// posStep is one oracle decoder step and its position.
type posStep struct {
	pos int
	st  jsonopt.Step
}

// spareCanary is the Checker's destination for escape and utf8_decode: a heap buffer whose
// bytes hold the canary pattern between calls, so a write past the returned length shows.
type spareCanary struct {
	buf, tmpl []byte
}

// dst returns an empty destination with room for want bytes of output and at least 64
// canary bytes after them.
func (s *spareCanary) dst(want int) []byte {
	if need := want + 64; cap(s.buf) < need {
		n := max(256, 2*need)
		s.buf = make([]byte, n)
		s.tmpl = make([]byte, n)
		boundary.FillCanary(s.tmpl, 0)
		copy(s.buf, s.tmpl)
	}
	return s.buf[:0]
}

// check copies the output into *keep (out may live in the buffer) and returns the copy, and
// the output offset of the first byte of the buffer changed past len(out) (bad). It
// restores the canary pattern.
func (s *spareCanary) check(dst, out []byte, keep *[]byte) (got []byte, off int, bad bool) {
	*keep = append((*keep)[:0], out...)
	got = *keep
	off = -1
	// In place: the spare capacity past len(out). Grown into a new array: the old spare
	// capacity past len(out) must be untouched too (writing there before growing is
	// harmless, writing past what is returned is not).
	if n := len(out); n < len(s.buf) && !bytes.Equal(s.buf[n:], s.tmpl[n:]) {
		off = n + FirstDiff(s.buf[n:], s.tmpl[n:])
	}
	copy(s.buf, s.tmpl)
	return got, off, off >= 0
}

// spareFinding is a dst-overflow finding of the Checker: output offset off changed.
func spareFinding(op Op, impl string, src []byte, opts jsonopt.Options, got []byte, off int) *Finding {
	return &Finding{Kind: KindDstOverflow, Op: op, Impl: impl, Input: clone(src), Flags: opts, Got: clone(got),
		Loc:    &Location{Loc: boundary.Locate(off), Output: true},
		Detail: fmt.Sprintf("%s wrote into dst's spare capacity past the %d bytes it returned (output offset %d)", impl, len(got), off)}
}
