package fuzz

import (
	"bytes"
	"encoding/hex"
	"sync"
	"unsafe"

	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/mutation/hook"
)

// recheck wraps each candidate's functions for difffuzz mutate's per-call recheck when a
// mutant schema is tracing (hook.Active, docs/DESIGN.md §7): every call runs the original
// code with the traced mutants' expressions evaluated alongside, and each mutant whose
// expression diverged during the call is re-run on the same input with that mutant active;
// a result other than the original's is recorded (hook.Tracer.Differs) with the input, the
// options and the original's result as the witness. The mutant is a package variable, so
// the campaign then runs on one worker. Wrappers are shared per function, so candidates
// that shared a function still do (distinctFuncs). Without a tracing schema it does nothing.
func recheck(impls []Impl, workers *int) []Impl {
	t := hook.Active
	if t == nil {
		return impls
	}
	*workers = 1
	r := &rechecker{t: t, escapes: map[unsafe.Pointer]func([]byte, []byte, jsonopt.Options) ([]byte, error){},
		steps: map[unsafe.Pointer]func([]byte, int) jsonopt.Step{}, decodes: map[unsafe.Pointer]func([]byte, []byte) []byte{}}
	out := make([]Impl, len(impls))
	for i, im := range impls {
		out[i] = r.wrap(im)
	}
	return out
}

// rechecker makes the wrappers of recheck, one per function.
type rechecker struct {
	t       hook.Tracer
	escapes map[unsafe.Pointer]func([]byte, []byte, jsonopt.Options) ([]byte, error)
	steps   map[unsafe.Pointer]func([]byte, int) jsonopt.Step
	decodes map[unsafe.Pointer]func([]byte, []byte) []byte
	// the re-runs' copies of the input and the array of their dst, reused: one goroutine calls
	in, dst, dstBuf []byte
}

func (r *rechecker) wrap(im Impl) Impl {
	if f := im.Escape; f != nil {
		p := funcPtr(f)
		if r.escapes[p] == nil {
			r.escapes[p] = r.escape(f)
		}
		im.Escape = r.escapes[p]
	}
	if f := im.NextChar; f != nil {
		p := funcPtr(f)
		if r.steps[p] == nil {
			r.steps[p] = r.step(f)
		}
		im.NextChar = r.steps[p]
	}
	if f := im.UTF8Decode; f != nil {
		p := funcPtr(f)
		if r.decodes[p] == nil {
			r.decodes[p] = r.utf8Decode(f)
		}
		im.UTF8Decode = r.decodes[p]
	}
	if im.Short != nil {
		s := r.wrap(*im.Short)
		im.Short = &s
	}
	return im
}

func (r *rechecker) escape(f func([]byte, []byte, jsonopt.Options) ([]byte, error)) func([]byte, []byte, jsonopt.Options) ([]byte, error) {
	t, c := r.t, newRecheckCall(OpEscape)
	return func(d, src []byte, opts jsonopt.Options) ([]byte, error) {
		prefix := len(d)
		t.Begin()
		out, err := f(d, src, opts)
		if ids := t.Diverged(); len(ids) > 0 {
			want := out[min(prefix, len(out)):]
			c.set(src, want, 0, jsonopt.Step{}, opts, err)
			t.Hang(&c.witness)
			for _, id := range ids {
				r.in, r.dst = append(r.in[:0], src...), canaryDst(&r.dstBuf, len(want))
				t.Rerun(id)
				got, gerr := rerunEscape(f, r.dst, r.in, opts)
				t.Done()
				if why := rerunDiffers(got, want, r.dst, r.in, src); why != "" || jsonopt.ErrorCode(gerr) != jsonopt.ErrorCode(err) {
					w := c.witness()
					w["got"], w["got_err"], w["how"] = hex.EncodeToString(got), jsonopt.ErrorCode(gerr), why
					t.Differs(id, w)
				}
			}
		}
		t.End()
		return out, err
	}
}

func (r *rechecker) step(f func([]byte, int) jsonopt.Step) func([]byte, int) jsonopt.Step {
	t, c := r.t, newRecheckCall(OpDecode)
	return func(s []byte, pos int) jsonopt.Step {
		t.Begin()
		st := f(s, pos)
		if ids := t.Diverged(); len(ids) > 0 {
			c.set(s, nil, pos, st, 0, nil)
			t.Hang(&c.witness)
			for _, id := range ids {
				r.in = append(r.in[:0], s...)
				t.Rerun(id)
				got, bad := rerunStep(f, r.in, pos)
				t.Done()
				if bad || got != st || !bytes.Equal(r.in, s) {
					w := c.witness()
					w["got_step"] = got.String()
					t.Differs(id, w)
				}
			}
		}
		t.End()
		return st
	}
}

func (r *rechecker) utf8Decode(f func([]byte, []byte) []byte) func([]byte, []byte) []byte {
	t, c := r.t, newRecheckCall(OpUTF8Decode)
	return func(d, src []byte) []byte {
		prefix := len(d)
		t.Begin()
		out := f(d, src)
		if ids := t.Diverged(); len(ids) > 0 {
			want := out[min(prefix, len(out)):]
			c.set(src, want, 0, jsonopt.Step{}, 0, nil)
			t.Hang(&c.witness)
			for _, id := range ids {
				r.in, r.dst = append(r.in[:0], src...), canaryDst(&r.dstBuf, len(want))
				t.Rerun(id)
				got, bad := rerunUTF8Decode(f, r.dst, r.in)
				t.Done()
				if why := rerunDiffers(got, want, r.dst, r.in, src); bad || why != "" {
					w := c.witness()
					w["got"], w["how"] = hex.EncodeToString(got), why
					if bad {
						w["how"] = "panicked"
					}
					t.Differs(id, w)
				}
			}
		}
		t.End()
		return out
	}
}

// recheckCall is the call of one wrapped function whose re-runs are under way, kept (in
// reused buffers: nothing is allocated per call) for the witness of a re-run that differs,
// and of one that hangs, which the schema's watchdog makes from another goroutine: mu
// guards the fields.
type recheckCall struct {
	mu          sync.Mutex
	op          Op
	input, want []byte
	pos         int
	step        jsonopt.Step
	opts        jsonopt.Options
	err         error
	witness     func() map[string]any // c.record, made once: Hang takes its address
}

func newRecheckCall(op Op) *recheckCall {
	c := &recheckCall{op: op}
	c.witness = c.record
	return c
}

// set keeps the call: its input, the original's result (want and err for the escaper and
// utf8_decode, step for the decoder at pos) and the options.
func (c *recheckCall) set(input, want []byte, pos int, step jsonopt.Step, opts jsonopt.Options, err error) {
	c.mu.Lock()
	c.input, c.want = append(c.input[:0], input...), append(c.want[:0], want...)
	c.pos, c.step, c.opts, c.err = pos, step, opts, err
	c.mu.Unlock()
}

// record is the witness of the call as a JSON object: the operation, the input and the
// original's result.
func (c *recheckCall) record() map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := map[string]any{"op": c.op, "input": hex.EncodeToString(c.input)}
	switch c.op {
	case OpEscape:
		r["flags"], r["options"], r["want"], r["want_err"] = uint32(c.opts), c.opts.String(), hex.EncodeToString(c.want), jsonopt.ErrorCode(c.err)
	case OpDecode:
		r["pos"], r["want_step"] = c.pos, c.step.String()
	case OpUTF8Decode:
		r["want"] = hex.EncodeToString(c.want)
	}
	return r
}

// rerunEscape, rerunStep and rerunUTF8Decode call f, turning a panic into a result no
// original returns (an error no PHP error code equals; bad).
func rerunEscape(f func([]byte, []byte, jsonopt.Options) ([]byte, error), dst, in []byte, opts jsonopt.Options) (out []byte, err error) {
	defer func() {
		if recover() != nil {
			out, err = nil, errPanicked
		}
	}()
	return f(dst, in, opts)
}

func rerunStep(f func([]byte, int) jsonopt.Step, in []byte, pos int) (st jsonopt.Step, bad bool) {
	defer func() {
		if recover() != nil {
			bad = true
		}
	}()
	return f(in, pos), false
}

func rerunUTF8Decode(f func([]byte, []byte) []byte, dst, in []byte) (out []byte, bad bool) {
	defer func() {
		if recover() != nil {
			bad = true
		}
	}()
	return f(dst, in), false
}

// recheckCanary fills the spare capacity of a re-run's dst.
const recheckCanary = 0xA5

// canaryDst is an empty dst with room for exactly n bytes and 16 more, all canary, in the
// array *buf (grown when it is too small). Its capacity is cut to n+16, so that what an
// earlier, longer re-run left past it is out of reach.
func canaryDst(buf *[]byte, n int) []byte {
	if cap(*buf) < n+16 {
		*buf = make([]byte, n+16)
	}
	d := (*buf)[:n+16]
	for i := range d {
		d[i] = recheckCanary
	}
	return d[: 0 : n+16]
}

// rerunDiffers says how a re-run's result got differs from the original's want: its output,
// a write to dst's spare capacity past got (when got is in dst's array), or a change to its
// copy of the input; "" when it does not.
func rerunDiffers(got, want, dst, in, src []byte) string {
	switch {
	case !bytes.Equal(got, want):
		return "output"
	case !bytes.Equal(in, src):
		return "input modified"
	case cap(got) > 0 && &got[:1][0] == &dst[:1][0]:
		for _, b := range dst[len(got):cap(dst)] {
			if b != recheckCanary {
				return "spare capacity written"
			}
		}
	}
	return ""
}

// errPanicked stands for a call that panicked.
var errPanicked = panickedError{}

type panickedError struct{}

func (panickedError) Error() string { return "panicked" }
