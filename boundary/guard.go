package boundary

import (
	"fmt"
	"os"
	"runtime/debug"
	"unsafe"
)

// Layout is where an input lies in its guarded buffer.
type Layout uint8

// The layouts of an input. With guard pages a read of even one byte outside the input faults
// in EndFlush (past the end) and StartFlush (before the start); Aligned shows whether code
// depends on the address of the input, and detects only reads past the page.
const (
	EndFlush   Layout = 1 << iota // the input's last byte is the last byte before a PROT_NONE page
	StartFlush                    // the input's first byte is the first byte after a PROT_NONE page
	Aligned                       // the input starts at a chosen address mod 64, as late in the page as that allows
)

func (l Layout) String() string {
	switch l {
	case EndFlush:
		return "end flush against a guard page"
	case StartFlush:
		return "start flush against a guard page"
	case Aligned:
		return "aligned"
	}
	return fmt.Sprintf("Layout(%d)", uint8(l))
}

// Buffer is a byte region between two PROT_NONE guard pages (mmap), from which inputs and
// destinations are sliced so that they touch a guard page. Where mmap is unavailable (not a
// Unix system, or mmap failed) it is an ordinary heap slice with 64 slack bytes on each
// side: everything works, but reads outside a slice are not detected (Guarded reports which).
//
// A Buffer is not safe for concurrent use; Free it when done.
type Buffer struct {
	mem     []byte // the whole mapping (or heap slice), guards included
	data    []byte // the usable bytes between the guards
	lo, hi  uintptr
	guard   int // size of each guard region in bytes (0 without guard pages)
	guarded bool
}

// slack is the heap fallback's padding on each side of the data.
const slack = 64

// noMmap forces the heap fallback (tests).
var noMmap = false

// NewBuffer returns a buffer with at least size usable bytes (rounded up to whole pages).
func NewBuffer(size int) (*Buffer, error) {
	if size < 1 {
		size = 1
	}
	page := os.Getpagesize()
	n := (size + page - 1) / page * page
	if !noMmap {
		if b, err := mapGuarded(n, page); err == nil {
			return b, nil
		}
	}
	mem := make([]byte, n+2*slack)
	b := &Buffer{mem: mem, data: mem[slack : slack+n : slack+n]}
	b.lo = uintptr(unsafe.Pointer(&b.data[0]))
	b.hi = b.lo + uintptr(n)
	return b, nil
}

// Guarded reports whether the buffer has real guard pages (mmap); without them reads past a
// slice's ends are not detected.
func (b *Buffer) Guarded() bool { return b.guarded }

// Size is the number of usable bytes.
func (b *Buffer) Size() int { return len(b.data) }

// Free releases the buffer. Slices taken from it must not be used afterwards.
func (b *Buffer) Free() error {
	if b.mem == nil {
		return nil
	}
	var err error
	if b.guarded {
		err = unmapGuarded(b.mem)
	}
	b.mem, b.data = nil, nil
	return err
}

// Input returns an n-byte slice of the buffer laid out as l (cap n, so appending to it
// reallocates): flush against the trailing guard (EndFlush), against the leading guard
// (StartFlush), or starting at an address ≡ align (mod 64) as late in the buffer as that
// allows (Aligned; align in 0..63). It panics if n does not fit.
func (b *Buffer) Input(l Layout, n, align int) []byte {
	if n < 0 || n+64 > len(b.data) {
		panic(fmt.Sprintf("boundary: an input of %d bytes does not fit a %d-byte buffer", n, len(b.data)))
	}
	at := len(b.data) - n // EndFlush
	switch l {
	case StartFlush:
		at = 0
	case Aligned:
		// The latest start ≡ align (mod 64); b.lo is page aligned with guard pages, the heap
		// fallback's need not be.
		at -= int((b.lo + uintptr(at) - uintptr(align&63)) % 64)
		if at < 0 {
			at += 64
		}
	}
	return b.data[at : at+n : at+n]
}

// Tail returns a destination slice of length dstLen and capacity dstLen+spare whose capacity
// ends flush against the trailing guard, so a write past its capacity faults. It panics if
// dstLen+spare exceeds Size.
func (b *Buffer) Tail(dstLen, spare int) []byte {
	n := dstLen + spare
	if dstLen < 0 || spare < 0 || n > len(b.data) {
		panic(fmt.Sprintf("boundary: a destination of %d+%d bytes does not fit a %d-byte buffer", dstLen, spare, len(b.data)))
	}
	at := len(b.data) - n
	return b.data[at : at+dstLen : len(b.data)]
}

// Side says where an address lies relative to a slice of a buffer.
type Side uint8

// Where a fault address lies (see Buffer.Where).
const (
	Outside Side = iota // not in this buffer or its guards
	Before              // in the leading guard or the buffer before the slice
	Within              // inside the slice's capacity
	After               // past the slice's capacity, in the buffer or the trailing guard
)

// Where classifies addr relative to s (a slice of b) and returns its offset from &s[0]: -1 is
// the byte before the slice, cap(s) the byte after its capacity.
func (b *Buffer) Where(s []byte, addr uintptr) (Side, int) {
	g := uintptr(b.guard)
	if b.mem == nil || addr < b.lo-g || addr >= b.hi+g {
		return Outside, 0
	}
	if cap(s) == 0 {
		// An empty slice has no position of its own (slicing to capacity 0 keeps the base
		// pointer): classify by guard.
		switch {
		case addr >= b.hi:
			return After, int(addr - b.hi)
		case addr < b.lo:
			return Before, int(addr) - int(b.lo)
		}
		return Within, 0
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	off := int(addr) - int(start)
	switch {
	case off < 0:
		return Before, off
	case off >= cap(s):
		return After, off
	}
	return Within, off
}

// FaultAddr returns the address of a memory fault from a value recovered after a fault under
// debug.SetPanicOnFault (the runtime.Error then has an Addr method), and false for any other
// panic value.
func FaultAddr(p any) (uintptr, bool) {
	if a, ok := p.(interface{ Addr() uintptr }); ok {
		return a.Addr(), true
	}
	return 0, false
}

// Protect calls f with debug.SetPanicOnFault(true), so that a fault on a guard page becomes a
// panic, and returns the value of any panic (nil if f returned normally). The previous
// setting is restored; it applies to the calling goroutine only.
func Protect(f func()) (p any) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() { p = recover() }()
	f()
	return nil
}

// Canary is the byte the canary pattern holds at index i of a region: a pattern that depends
// on the position, so a shifted or repeated store is unlikely to rewrite what was there.
func Canary(i int) byte { return 0xA5 ^ byte(i*29) ^ byte(i>>8) }

// FillCanary writes the canary pattern into b, b[k] = Canary(base+k).
func FillCanary(b []byte, base int) {
	for k := range b {
		b[k] = Canary(base + k)
	}
}

// CheckCanary returns the index of the first byte of b that is not Canary(base+k), or -1.
func CheckCanary(b []byte, base int) int {
	for k, c := range b {
		if c != Canary(base+k) {
			return k
		}
	}
	return -1
}
