package fuzz

import (
	"fmt"
	"sync"

	"github.com/difffuzz/difffuzz/boundary"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// GuardedCheck is the CheckFunc of the random campaigns, the native fuzz targets,
// minimization and repro: the Checker's comparison (outputs, errors, decoder steps, panics,
// the input's integrity and the canary in dst's spare capacity), then a guard-page pass that
// calls every candidate again with the input flush against a PROT_NONE page at its end and at
// its start (boundary.Buffer), so that a read of even one byte outside the input faults and
// is reported as read-past-end or read-before-start. Where guard pages are unavailable
// (boundary.Buffer falls back to the heap) the second pass is skipped.
func GuardedCheck(c *Checker, out []*Finding, op Op, cands []Impl, src []byte, opts jsonopt.Options) []*Finding {
	out = c.Check(out, op, cands, src, opts)
	b := guardBuffers.get(len(src))
	if b == nil {
		return out
	}
	defer guardBuffers.put(b)
	var walk []int
	if op == OpDecode {
		for pos := 0; pos < len(src); {
			walk = append(walk, pos)
			pos += Oracle.NextChar(src, pos).Advance
		}
	}
	for _, l := range []boundary.Layout{boundary.EndFlush, boundary.StartFlush} {
		for i := range cands {
			im := &cands[i]
			if !im.Has(op) {
				continue
			}
			s := b.Input(l, len(src), 0)
			copy(s, src)
			pos := -1
			p := boundary.Protect(func() {
				switch op {
				case OpEscape:
					im.Escape(nil, s, opts)
				case OpDecode:
					for _, pos = range walk {
						im.NextChar(s, pos)
					}
				default:
					im.UTF8Decode(nil, s)
				}
			})
			addr, ok := boundary.FaultAddr(p)
			if !ok {
				continue // no fault; another panic is the Checker's finding already
			}
			side, off := b.Where(s, addr)
			kind, where := KindReadPastEnd, "past the end"
			switch side {
			case boundary.After:
			case boundary.Before:
				kind, where = KindReadBeforeStart, "before the start"
			default:
				continue
			}
			f := &Finding{Kind: kind, Op: op, Impl: im.Name, Input: clone(src), Flags: opts,
				Loc: &Location{Loc: boundary.Locate(off), Layout: l},
				Detail: fmt.Sprintf("%s read %s of a %d-byte input laid %s (fault at input offset %d: %v)",
					im.Name, where, len(src), l, off, p)}
			if op == OpDecode {
				f.Pos = pos
				f.Detail += fmt.Sprintf(", in the step at %d", pos)
			}
			out = append(out, f)
		}
	}
	return out
}

// guardPool keeps guarded buffers for reuse (mapping one costs two system calls).
type guardPool struct {
	mu   sync.Mutex
	free []*boundary.Buffer
	off  bool // no guard pages on this system
}

var guardBuffers guardPool

// get returns a guarded buffer for an n-byte input, or nil without guard pages.
func (g *guardPool) get(n int) *boundary.Buffer {
	g.mu.Lock()
	if g.off {
		g.mu.Unlock()
		return nil
	}
	for i, b := range g.free {
		if b.Size() >= n+64 {
			g.free = append(g.free[:i], g.free[i+1:]...)
			g.mu.Unlock()
			return b
		}
	}
	g.mu.Unlock()
	b, err := boundary.NewBuffer(max(n+64, 4096))
	if err != nil || !b.Guarded() {
		if b != nil {
			_ = b.Free()
		}
		g.mu.Lock()
		g.off = true
		g.mu.Unlock()
		return nil
	}
	return b
}

func (g *guardPool) put(b *boundary.Buffer) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.free) < 16 {
		g.free = append(g.free, b)
		return
	}
	_ = b.Free()
}
