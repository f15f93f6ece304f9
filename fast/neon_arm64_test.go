//go:build !purego

package fast

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
	"golang.org/x/sys/cpu"
	"golang.org/x/sys/unix"
)

// Tests of the NEON kernel (escape_arm64.s) at three levels: the assembly alone
// (escapeBlocksNEON: exact stopping point, output, and where it may write), the kernel as
// runKernel runs it (asciiNEON against asciiGeneric), and every variant's Escape against the
// oracle with a canary in dst's spare capacity.

// neonOpts make each special byte dirty and clean, and give the assembly every number k = 0..5
// of extra specials (those of '/', '<', '>', '&' and the apostrophe the option set escapes):
//
//	k=0: UNESCAPED_SLASHES
//	k=1: none ('/'), HEX_QUOT ('"' as \u0022), HEX_AMP|UNESCAPED_SLASHES
//	k=2: HEX_APOS, HEX_TAG|UNESCAPED_SLASHES
//	k=3: HEX_TAG, HEX_TAG|HEX_AMP|UNESCAPED_SLASHES
//	k=4: all four HEX options with UNESCAPED_SLASHES; k=5: without it
var neonOpts = []jsonopt.Options{
	jsonopt.UnescapedSlashes,
	0,
	jsonopt.HexQuot,
	jsonopt.HexAmp | jsonopt.UnescapedSlashes,
	jsonopt.HexApos,
	jsonopt.HexTag | jsonopt.UnescapedSlashes,
	jsonopt.HexTag,
	jsonopt.HexTag | jsonopt.HexAmp | jsonopt.UnescapedSlashes,
	jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot | jsonopt.UnescapedSlashes,
	jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot,
}

// neonE2EOpts add the options that change what follows a byte >= 0x80, where the assembly
// hands over to Go: IGNORE lets a byte produce no output at all.
var neonE2EOpts = append(append([]jsonopt.Options{}, neonOpts...),
	jsonopt.InvalidUTF8Ignore,
	jsonopt.InvalidUTF8Ignore|jsonopt.UnescapedUnicode|jsonopt.HexTag,
	jsonopt.InvalidUTF8Substitute|jsonopt.UnescapedUnicode,
	jsonopt.PartialOutputOnError|jsonopt.HexAmp,
)

// neonBytes are the bytes placed into clean filler: every escape class, the clean neighbours
// of the specials and of the signed compare's edges (0x20, 0x7F), and bytes >= 0x80.
var neonBytes = []byte{
	0x00, 0x01, '\b', '\t', '\n', 0x0b, '\f', '\r', 0x1f,
	'"', '\\', '/', '<', '>', '&', '\'',
	' ', '!', '#', '.', '0', ';', '=', '?', '[', ']', 0x7f,
	0x80, 0xbf, 0xc3, 0xe2, 0xff,
}

// neonFiller is clean under every option set.
var neonFiller = bytes.Repeat([]byte("abcdefghij ABCDEFGHIJ.0123456789-xyz "), 8)

const neonCanary = 0xA5

// neonModel is where escapeBlocksNEON must stop on src under c: nowhere with fewer than 32
// bytes or when src[16:32] is not ASCII; else at the first byte >= 0x80 of a block it
// processes, which it does while the 16 bytes after the block are there and ASCII; and then
// after the next block if that one is clean.
func neonModel(src []byte, c *escCtx) int {
	if len(src) < 32 || !asciiOnly(src[16:32]) {
		return 0
	}
	for i := 0; ; {
		for j := i; j < i+16; j++ {
			if src[j] >= 0x80 {
				return j
			}
		}
		i += 16
		if i+32 > len(src) || !asciiOnly(src[i+16:i+32]) {
			for _, b := range src[i : i+16] {
				if c.tab[b] != clsClean {
					return i
				}
			}
			return i + 16
		}
	}
}

func asciiOnly(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func asciiCount(b []byte) int {
	n := 0
	for _, c := range b {
		if c < 0x80 {
			n++
		}
	}
	return n
}

// canaryDst returns a dst of length 6*n inside a buffer of 6*n+64 canary bytes.
func canaryDst(n int) (dst, full []byte) {
	full = bytes.Repeat([]byte{neonCanary}, 6*n+64)
	return full[:6*n], full
}

// lastWritten is one past the last non-canary byte of full, or 0.
func lastWritten(full []byte) int {
	for i := len(full) - 1; i >= 0; i-- {
		if full[i] != neonCanary {
			return i + 1
		}
	}
	return 0
}

// checkKernels checks escapeBlocksNEON and asciiNEON on src under opts against asciiGeneric.
func checkKernels(t *testing.T, src []byte, opts jsonopt.Options) {
	t.Helper()
	c := &ctxs[ctxIndex(opts)]
	ref := make([]byte, 6*len(src)+16)
	what := func() string { return fmt.Sprintf("src %q (len %d), %s", src, len(src), opts) }

	// The assembly alone.
	dst, full := canaryDst(len(src))
	ns, nd := escapeBlocksNEON(dst, src, &c.kt, c.esc, c.nsp)
	if want := neonModel(src, c); ns != want {
		t.Fatalf("escapeBlocksNEON(%s) stopped at %d; want %d", what(), ns, want)
	}
	rs, rd := asciiGeneric(ref, src[:ns], c)
	if rs != ns || nd != rd || !bytes.Equal(dst[:nd], ref[:rd]) {
		t.Fatalf("escapeBlocksNEON(%s) = %d, %d, %q; want %d, %d, %q", what(), ns, nd, dst[:nd], rs, rd, ref[:rd])
	}
	if w := lastWritten(full); w > nd && (w > nd+16 || w-nd > asciiCount(src[ns:])) {
		t.Fatalf("escapeBlocksNEON(%s) = %d, %d wrote dst[%d:%d], which the %d ASCII bytes after src[%d] need not overwrite",
			what(), ns, nd, nd, w, asciiCount(src[ns:]), ns)
	}

	if c.uu {
		checkUUKernel(t, src, opts)
		return
	}

	// The kernel as runKernel runs it: at least the ASCII prefix (which is all the generic
	// kernel takes), and past a byte >= 0x80 whatever escapeMBNEON takes, with the output
	// of the escape of src[:ns] (the generic variant's escape body is the reference).
	dst, full = canaryDst(len(src))
	ns, nd = runKernel(kernelNEON, dst, src, c)
	rs, _ = asciiGeneric(ref, src, c)
	if ns < rs || ns > len(src) {
		t.Fatalf("neon kernel(%s) stopped at %d, before the first byte >= 0x80 at %d", what(), ns, rs)
	}
	if want := escapeRef(src[:ns], opts); !bytes.Equal(dst[:nd], want) {
		t.Fatalf("neon kernel(%s) = %d, %d, %q; want %q for src[:%d]", what(), ns, nd, dst[:nd], want, ns)
	}
	// Run-ahead: ASCII input is escaped to at least as many bytes, so the ASCII kernel never
	// leaves a byte past the final output; past a byte >= 0x80 runKernel's contract allows
	// up to len(src)-ns bytes.
	bound := asciiCount(src[ns:])
	if rs < len(src) {
		bound = len(src) - ns
	}
	if w := lastWritten(full); w > nd && w-nd > bound {
		t.Fatalf("neon kernel(%s) = %d, %d wrote dst[%d:%d] past what follows can overwrite", what(), ns, nd, nd, w)
	}
}

// escapeRef is the escape of s (valid, or invalid under IGNORE/SUBSTITUTE) under opts
// without its quotes, from the generic kernel's escape body.
func escapeRef(s []byte, opts jsonopt.Options) []byte {
	out := make([]byte, 6*len(s)+32)
	out, d, ok := escapeBody(out, 0, s, opts&^jsonopt.NumericCheck, &ctxs[ctxIndex(opts)], kernelGeneric, false)
	if !ok {
		return nil
	}
	return out[1 : d-1]
}

// checkEscape compares every variant's Escape of src with the oracle's, with dst's spare
// capacity full of canaries that must survive past the returned length.
func checkEscape(t *testing.T, vs []Variant, src []byte, opts jsonopt.Options) {
	t.Helper()
	want, wantErr := oracle.Escape([]byte("pre"), src, opts)
	for _, v := range vs {
		for _, room := range []int{len(want), 7*len(src) + 64} {
			buf := append(make([]byte, 0, 3+room), "pre"...)
			spare := buf[3:cap(buf)]
			for i := range spare {
				spare[i] = neonCanary
			}
			got, err := v.Escape(buf, src, opts)
			if err != wantErr || !bytes.Equal(got, want) {
				t.Fatalf("%s: Escape(%q, %s) = %q, %v; want %q, %v (oracle)", v.Name, src, opts, got, err, want, wantErr)
			}
			from := 0 // got is a new array: none of buf's spare capacity may change
			if &got[0] == &buf[0] {
				from = len(got) - 3
			}
			{
				for i := from; i < len(spare); i++ {
					if spare[i] != neonCanary {
						t.Fatalf("%s: Escape(%q, %s) with %d spare wrote %#x at dst[%d], past the returned length %d",
							v.Name, src, opts, room, spare[i], 3+i, len(got))
					}
				}
			}
		}
	}
}

func TestNEONRegistered(t *testing.T) {
	if !cpu.ARM64.HasASIMD {
		t.Skip("no ASIMD")
	}
	_, ok := Lookup("neon")
	require.True(t, ok, "Lookup(neon): want neon registered")
	require.Equal(t, "neon", Default(), "Default()")
	require.Equal(t, kernelNEON, defaultKernel, "defaultKernel")
	var names []string
	for _, v := range Variants() {
		names = append(names, v.Name)
	}
	assert.Equal(t, []string{"neon", "swar", "generic"}, names, "Variants()")
}

// TestNEONLanes puts each of neonBytes at every offset of clean filler of every length 0..96
// (so at every lane 0..15 of every block, and before, in and after the lookahead block), under
// every option set of neonOpts.
func TestNEONLanes(t *testing.T) {
	vs := Variants()
	maxLen := 96
	bs := neonBytes
	e2e := neonE2EOpts
	if testing.Short() {
		// The other tests run swar and generic; here the neon variant alone is enough.
		neon, _ := Lookup("neon")
		vs = []Variant{neon}
		bs = []byte{0x00, '\n', 0x1f, '"', '\\', '/', '<', '>', '&', '\'', ' ', 0x7f, 0x80, 0xff}
		e2e = []jsonopt.Options{0, jsonopt.UnescapedSlashes, neonOpts[len(neonOpts)-1],
			jsonopt.InvalidUTF8Ignore, jsonopt.InvalidUTF8Ignore | jsonopt.UnescapedUnicode | jsonopt.HexTag}
	}
	for n := 0; n <= maxLen; n++ {
		src := append([]byte(nil), neonFiller[:n]...)
		for _, opts := range neonOpts {
			checkKernels(t, src, opts)
			checkEscape(t, vs, src, opts)
		}
		for p := 0; p < n; p++ {
			for _, b := range bs {
				src[p] = b
				for _, opts := range neonOpts {
					checkKernels(t, src, opts)
				}
				for _, opts := range e2e {
					checkEscape(t, vs, src, opts)
				}
			}
			src[p] = neonFiller[p]
		}
	}
}

// TestNEONAllBytes puts every byte value 0x00..0xFF at every lane of the first and the second
// block of a 64-byte string.
func TestNEONAllBytes(t *testing.T) {
	src := append([]byte(nil), neonFiller[:64]...)
	for p := 0; p < 32; p++ {
		for b := 0; b < 256; b++ {
			src[p] = byte(b)
			for _, opts := range neonOpts {
				checkKernels(t, src, opts)
			}
		}
		src[p] = neonFiller[p]
	}
}

// TestNEONSeveral puts two dirty bytes at every pair of offsets of a 64-byte string (pairs in
// one block, in adjacent blocks, a dirty byte followed by a byte >= 0x80 and the reverse), and
// fills whole blocks with dirty bytes.
func TestNEONSeveral(t *testing.T) {
	vs := Variants()
	pairs := [][2]byte{{'"', '\\'}, {'\n', '<'}, {'/', '&'}, {0x01, '\''}, {'"', 0xc3}, {0x80, '\\'}}
	n := 64
	if testing.Short() {
		n = 48
	}
	src := append([]byte(nil), neonFiller[:n]...)
	for p1 := 0; p1 < n; p1++ {
		for p2 := p1 + 1; p2 < n; p2++ {
			for _, pr := range pairs {
				src[p1], src[p2] = pr[0], pr[1]
				for _, opts := range neonOpts {
					checkKernels(t, src, opts)
				}
				if p1%3 == 0 || p2-p1 < 3 {
					for _, opts := range neonE2EOpts[:len(neonOpts)+2] {
						checkEscape(t, vs, src, opts)
					}
				}
				src[p1], src[p2] = neonFiller[p1], neonFiller[p2]
			}
		}
	}
	// Whole blocks of dirty bytes, and every byte of a block dirty but one.
	for _, fill := range []string{`"`, `\`, "\n", `/<>&'`, "\"\\\x00/", "a\"", "ab\\c"} {
		for n := 0; n <= 96; n++ {
			src := bytes.Repeat([]byte(fill), n/len(fill)+1)[:n]
			for _, opts := range neonE2EOpts {
				checkKernels(t, src, opts)
				checkEscape(t, vs, src, opts)
			}
			for p := 0; p < n; p++ {
				c := src[p]
				src[p] = 'x'
				checkKernels(t, src, 0)
				src[p] = c
			}
		}
	}
}

// TestNEONRandom: random strings of lengths 0..200 biased to dirty bytes, bytes >= 0x80 and
// clean runs of block length.
func TestNEONRandom(t *testing.T) {
	vs := Variants()
	r := rand.New(rand.NewPCG(3, 0x4e454f4e))
	iters := 20000
	if testing.Short() {
		iters = 3000
	}
	alpha := []byte("\"\\/<>&'\x00\n\x1f\x7f ab.")
	var src []byte
	for it := 0; it < iters; it++ {
		src = src[:0]
		n := r.IntN(201)
		dirty := r.IntN(40)
		for len(src) < n {
			switch k := r.IntN(100); {
			case k < dirty:
				src = append(src, alpha[r.IntN(len(alpha))])
			case k < dirty+2:
				src = append(src, "é€\xff\x80"[r.IntN(4)])
			case k < dirty+5:
				src = append(src, neonFiller[:16]...)
			default:
				src = append(src, 'a'+byte(r.IntN(26)))
			}
		}
		src = src[:n]
		opts := neonE2EOpts[r.IntN(len(neonE2EOpts))]
		checkKernels(t, src, opts)
		checkEscape(t, vs, src, opts)
	}
}

// TestNEONGuardPages runs the assembly and the neon Escape with src flush against an
// inaccessible page at its end and at its start, and the assembly with dst (of exactly the
// length the kernel contract promises, 6*len(src)) flush against one at its end: a read or
// write outside them faults, which SetPanicOnFault turns into a test failure.
func TestNEONGuardPages(t *testing.T) {
	ps := unix.Getpagesize()
	mem, err := unix.Mmap(-1, 0, 5*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer unix.Munmap(mem)
	// Pages: [0] guard, [1] src-after-guard, [2] src-before-guard, [3] guard ... dst uses [0:3]
	// after the src tests, with [3] as its guard.
	for _, g := range []int{0, 3} {
		if err := unix.Mprotect(mem[g*ps:(g+1)*ps], unix.PROT_NONE); err != nil {
			t.Skipf("mprotect: %v", err)
		}
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	if !faults(func() { guardSink = mem[3*ps] }) || !faults(func() { guardSink = mem[ps-1] }) {
		t.Fatal("the guard pages do not fault")
	}
	neon, _ := Lookup("neon")
	var last string
	defer func() {
		if e := recover(); e != nil {
			t.Fatalf("fault during %s: %v", last, e)
		}
	}()
	dstBuf := make([]byte, 6*200+64)
	for n := 0; n <= 200; n++ {
		for _, p := range []int{-1, 0, 15, 16, 17, n / 2, n - 17, n - 16, n - 1} {
			for _, b := range []byte{'"', 0xff} {
				for _, at := range []string{"end", "start"} {
					var src []byte
					if at == "end" {
						src = mem[3*ps-n : 3*ps]
					} else {
						src = mem[ps : ps+n]
					}
					copy(src, neonFiller[:n])
					if p >= 0 && p < n {
						src[p] = b
					}
					last = fmt.Sprintf("src %q at the %s of a page", src, at)
					c := &ctxs[0]
					escapeBlocksNEON(dstBuf, src, &c.kt, c.esc, c.nsp)
					runKernel(kernelNEON, dstBuf, src, c)
					for _, opts := range []jsonopt.Options{0, jsonopt.InvalidUTF8Ignore} {
						got, err := neon.Escape(nil, src, opts)
						want, wantErr := oracle.Escape(nil, src, opts)
						if err != wantErr || !bytes.Equal(got, want) {
							t.Fatalf("neon: Escape(%q, %s) = %q, %v; want %q, %v", src, opts, got, err, want, wantErr)
						}
					}
				}
			}
		}
	}
	// dst flush against the guard page [3], src in ordinary memory.
	for n := 0; n <= 200; n++ {
		for _, fill := range []string{"a", `"`, "a\"", "\x00bc"} {
			src := bytes.Repeat([]byte(fill), n/len(fill)+1)[:n]
			dst := mem[3*ps-6*n : 3*ps]
			last = fmt.Sprintf("dst flush against a page, src %q", src)
			for _, opts := range neonOpts {
				c := &ctxs[ctxIndex(opts)]
				escapeBlocksNEON(dst, src, &c.kt, c.esc, c.nsp)
				runKernel(kernelNEON, dst, src, c)
			}
		}
	}
}

var guardSink byte

// faults reports whether f panics (with SetPanicOnFault on: faults on a memory access).
func faults(f func()) (faulted bool) {
	defer func() { faulted = recover() != nil }()
	f()
	return false
}

// TestNEONShort: the assembly leaves strings shorter than 32 bytes alone.
func TestNEONShort(t *testing.T) {
	for n := 0; n < 32; n++ {
		src := bytes.Repeat([]byte{'"'}, n)
		dst := make([]byte, 6*n)
		if ns, nd := escapeBlocksNEON(dst, src, &ctxs[0].kt, ctxs[0].esc, ctxs[0].nsp); ns != 0 || nd != 0 {
			t.Errorf("escapeBlocksNEON(%d bytes) = %d, %d; want 0, 0", n, ns, nd)
		}
	}
}

// TestNEONIgnoreTail ends ASCII with dirty bytes in it by a run of invalid bytes, which
// INVALID_UTF8_IGNORE drops: nothing after the ASCII part produces output, so any block store
// past the output of the ASCII part would stay in dst's spare capacity. (This is what the
// assembly's lookahead rule protects; the canary in checkEscape sees a violation.)
func TestNEONIgnoreTail(t *testing.T) {
	vs := Variants()
	opts := []jsonopt.Options{jsonopt.InvalidUTF8Ignore, jsonopt.InvalidUTF8Ignore | jsonopt.UnescapedUnicode | jsonopt.HexQuot}
	for n := 0; n <= 96; n++ {
		for s := 0; s <= n; s++ {
			for _, qs := range [][]int{nil, {s - 1}, {s - 2}, {s - 3}, {s - 15}, {s - 16}, {s - 17}, {s / 2}, {0, s - 1}, {s - 18, s - 2}} {
				src := append(append([]byte(nil), neonFiller[:s]...), bytes.Repeat([]byte{0xff}, n-s)...)
				for _, q := range qs {
					if q >= 0 && q < s {
						src[q] = '"'
					}
				}
				for _, o := range opts {
					checkKernels(t, src, o)
					checkEscape(t, vs, src, o)
				}
			}
		}
	}
}

// checkUUKernel checks the neon kernel under UNESCAPED_UNICODE (uuNEON, through runKernel)
// on src: what it consumed must be valid UTF-8 ending at a character boundary, its output
// exactly the oracle's escape of that prefix, it must not stop before a byte < 0x80 that it
// could escape, and it may write past its output only as far as runKernel allows (one byte
// per byte of src it leaves).
func checkUUKernel(t *testing.T, src []byte, opts jsonopt.Options) {
	t.Helper()
	c := &ctxs[ctxIndex(opts)]
	dst, full := canaryDst(len(src))
	ns, nd := runKernel(kernelNEON, dst, src, c)
	what := func() string { return fmt.Sprintf("src %q (len %d), %s", src, len(src), opts) }
	strict := opts &^ (jsonopt.InvalidUTF8Ignore | jsonopt.InvalidUTF8Substitute | jsonopt.PartialOutputOnError)
	want, err := oracle.Escape(nil, src[:ns], strict)
	if err != nil {
		t.Fatalf("neon UU kernel(%s) consumed %d bytes, not valid UTF-8 (or cut a character)", what(), ns)
	}
	if got := dst[:nd]; !bytes.Equal(got, want[1:len(want)-1]) {
		t.Fatalf("neon UU kernel(%s) = %d, %d, %q; want %q (oracle on src[:%d])", what(), ns, nd, got, want[1:len(want)-1], ns)
	}
	if ns < len(src) && src[ns] < 0x80 {
		t.Fatalf("neon UU kernel(%s) stopped at %d, an ASCII byte", what(), ns)
	}
	if w := lastWritten(full); w > nd && w-nd > len(src)-ns {
		t.Fatalf("neon UU kernel(%s) = %d, %d wrote dst[%d:%d], more than the %d bytes left", what(), ns, nd, nd, w, len(src)-ns)
	}
}

// TestNEONUU runs the UNESCAPED_UNICODE kernel on strings of 1-4-byte characters, U+2028/9,
// escapes and invalid sequences (random, seeded) of 0..130 bytes, under UNESCAPED_UNICODE with
// and without UNESCAPED_LINE_TERMINATORS, HEX_TAG and the invalid-UTF-8 modes, kernel alone
// and through every variant's Escape.
func TestNEONUU(t *testing.T) {
	units := []string{"a", "b", "0", " ", "\"", "\\", "/", "<", "&", "'", "\x01", "\x1f", "\x7f",
		"é", "ж", "\u07ff", "€", "\u2028", "\u2029", "\ufeff", "\uffff", "😀", "\U0010ffff",
		"\xc3", "\xe2\x80", "\xf0\x9f\x98", "\x80", "\xbf", "\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xff", "\xe2\x80\xa8"[:2]}
	optSets := []jsonopt.Options{
		jsonopt.UnescapedUnicode,
		jsonopt.UnescapedUnicode | jsonopt.UnescapedLineTerminators,
		jsonopt.UnescapedUnicode | jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot,
		jsonopt.UnescapedUnicode | jsonopt.UnescapedSlashes | jsonopt.InvalidUTF8Ignore,
		jsonopt.UnescapedUnicode | jsonopt.UnescapedLineTerminators | jsonopt.InvalidUTF8Substitute,
	}
	rng := rand.New(rand.NewPCG(3, 4))
	vs := Variants()
	n := 0
	for k := 0; k < 3000; k++ {
		var src []byte
		size := rng.IntN(131)
		valid := k%2 == 0 // half the strings have only valid units
		for len(src) < size {
			u := units[rng.IntN(len(units))]
			if valid && !utf8.ValidString(u) {
				continue
			}
			src = append(src, u...)
		}
		for _, o := range optSets {
			checkUUKernel(t, src, o)
			checkEscape(t, vs, src, o)
			n++
		}
	}
	t.Logf("%d strings × option sets", n)
}
