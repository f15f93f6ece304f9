package fuzz

import (
	"bytes"
	"encoding/hex"
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
	escapes := map[unsafe.Pointer]func([]byte, []byte, jsonopt.Options) ([]byte, error){}
	steps := map[unsafe.Pointer]func([]byte, int) jsonopt.Step{}
	decodes := map[unsafe.Pointer]func([]byte, []byte) []byte{}
	// the re-runs' copies of the input and the array of their dst, reused: one goroutine calls
	var in, dst, dstBuf []byte
	var wrap func(im Impl) Impl
	wrap = func(im Impl) Impl {
		if f := im.Escape; f != nil {
			p := funcPtr(f)
			if escapes[p] == nil {
				escapes[p] = func(d, src []byte, opts jsonopt.Options) ([]byte, error) {
					prefix := len(d)
					t.Begin()
					out, err := f(d, src, opts)
					if ids := t.Diverged(); len(ids) > 0 {
						want := out[min(prefix, len(out)):]
						rec := func() map[string]any {
							return map[string]any{"op": OpEscape, "input": hex.EncodeToString(src), "flags": uint32(opts),
								"options": opts.String(), "want": hex.EncodeToString(want), "want_err": jsonopt.ErrorCode(err)}
						}
						t.Hang(rec)
						for _, id := range ids {
							var got []byte
							var gerr error
							in, dst = append(in[:0], src...), canaryDst(&dstBuf, len(want))
							t.With(id, func() {
								got, gerr = safeCall2(func() ([]byte, error) { return f(dst, in, opts) })
							})
							if why := rerunDiffers(got, want, dst, in, src); why != "" || jsonopt.ErrorCode(gerr) != jsonopt.ErrorCode(err) {
								r := rec()
								r["got"], r["got_err"], r["how"] = hex.EncodeToString(got), jsonopt.ErrorCode(gerr), why
								t.Differs(id, r)
							}
						}
					}
					t.End()
					return out, err
				}
			}
			im.Escape = escapes[p]
		}
		if f := im.NextChar; f != nil {
			p := funcPtr(f)
			if steps[p] == nil {
				steps[p] = func(s []byte, pos int) jsonopt.Step {
					t.Begin()
					st := f(s, pos)
					if ids := t.Diverged(); len(ids) > 0 {
						rec := func() map[string]any {
							return map[string]any{"op": OpDecode, "input": hex.EncodeToString(s), "pos": pos, "want_step": st.String()}
						}
						t.Hang(rec)
						for _, id := range ids {
							var got jsonopt.Step
							var bad bool
							in = append(in[:0], s...)
							t.With(id, func() {
								defer func() { bad = recover() != nil || bad }()
								got = f(in, pos)
							})
							if bad || got != st || !bytes.Equal(in, s) {
								r := rec()
								r["got_step"] = got.String()
								t.Differs(id, r)
							}
						}
					}
					t.End()
					return st
				}
			}
			im.NextChar = steps[p]
		}
		if f := im.UTF8Decode; f != nil {
			p := funcPtr(f)
			if decodes[p] == nil {
				decodes[p] = func(d, src []byte) []byte {
					prefix := len(d)
					t.Begin()
					out := f(d, src)
					if ids := t.Diverged(); len(ids) > 0 {
						want := out[min(prefix, len(out)):]
						rec := func() map[string]any {
							return map[string]any{"op": OpUTF8Decode, "input": hex.EncodeToString(src), "want": hex.EncodeToString(want)}
						}
						t.Hang(rec)
						for _, id := range ids {
							var got []byte
							var bad bool
							in, dst = append(in[:0], src...), canaryDst(&dstBuf, len(want))
							t.With(id, func() {
								defer func() { bad = recover() != nil || bad }()
								got = f(dst, in)
							})
							if why := rerunDiffers(got, want, dst, in, src); bad || why != "" {
								r := rec()
								r["got"], r["how"] = hex.EncodeToString(got), why
								if bad {
									r["how"] = "panicked"
								}
								t.Differs(id, r)
							}
						}
					}
					t.End()
					return out
				}
			}
			im.UTF8Decode = decodes[p]
		}
		if im.Short != nil {
			s := wrap(*im.Short)
			im.Short = &s
		}
		return im
	}
	out := make([]Impl, len(impls))
	for i, im := range impls {
		out[i] = wrap(im)
	}
	return out
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

// safeCall2 calls f, turning a panic into an error that no PHP error code equals.
func safeCall2(f func() ([]byte, error)) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, errPanicked
		}
	}()
	return f()
}

// errPanicked stands for a call that panicked.
var errPanicked = panickedError{}

type panickedError struct{}

func (panickedError) Error() string { return "panicked" }
