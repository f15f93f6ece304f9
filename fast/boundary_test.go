package fast_test

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/difffuzz/difffuzz/fast"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
)

// The vector kernels' edges: every dirty byte and every multi-byte class at every offset of
// clean filler (so at every lane of a 16- and 32-byte block, before, in and after the main
// loops, the 16-byte loop and the overlapping tail), and multi-byte sequences straddling every
// 16- and 32-byte edge at every split point. The expected output is the oracle's, which shares
// no code with fast. Every run also checks the memory contract: src unchanged, dst's prefix
// kept, and no byte written into dst's spare capacity past the returned length.

// edgeOpts make each special byte dirty and clean, and cover every invalid-UTF-8 mode,
// including the two where the output of invalid input is shorter than the input (IGNORE, and
// SUBSTITUTE under UNESCAPED_UNICODE), which the kernels' run-ahead stores must survive.
var edgeOpts = []jsonopt.Options{
	0, // '/' dirty, < > & ' clean
	jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot,
	jsonopt.UnescapedSlashes | jsonopt.HexAmp,
	jsonopt.UnescapedSlashes | jsonopt.HexTag | jsonopt.PartialOutputOnError,
	jsonopt.UnescapedUnicode,
	jsonopt.UnescapedUnicode | jsonopt.UnescapedLineTerminators | jsonopt.HexTag | jsonopt.HexApos,
	jsonopt.UnescapedUnicode | jsonopt.InvalidUTF8Ignore,
	jsonopt.UnescapedUnicode | jsonopt.InvalidUTF8Substitute | jsonopt.UnescapedSlashes,
	jsonopt.InvalidUTF8Substitute | jsonopt.HexQuot,
	jsonopt.InvalidUTF8Ignore | jsonopt.UnescapedLineTerminators,
}

// edgeUnits are the things placed into the filler: every byte below 0x20, every special byte
// and DEL, and every multi-byte class: valid sequences of each length at the edges of their
// ranges (and U+2028/U+2029 with their neighbours), and invalid ones of every failure kind
// of spec §2.2 (stray continuation, C0/C1, F5..FF, truncated, bad trail, overlong,
// surrogate, above U+10FFFF).
func edgeUnits() []string {
	var us []string
	for b := 0; b < 0x20; b++ {
		us = append(us, string(rune(b)))
	}
	for _, b := range "\"\\/<>&'\x7f" {
		us = append(us, string(b))
	}
	for _, r := range []rune{0x80, 0xE9, 0x7FF, 0x800, 0x20AC, 0x2027, 0x2028, 0x2029, 0x202A, 0xD7FF,
		0xE000, 0xFEFF, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF} {
		us = append(us, string(r))
	}
	us = append(us, "\x80", "\xbf", "\xc0\xaf", "\xc1\xbf", "\xc2", "\xdf\x41", "\xc3\xff", "\xc3\xc3\xa9",
		"\xe0\x80\x80", "\xe0\x9f\xbf", "\xe0\xa0", "\xe2\x82", "\xe2\x82\x41", "\xe2\xc0\x80", "\xed\xa0\x80",
		"\xed\xbf\xbf", "\xef\xbf", "\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf", "\xf0\x9f\x98", "\xf0\x9f\xc0\x80",
		"\xf4\x90\x80\x80", "\xf4\x8f\xbf", "\xf5\x80\x80\x80", "\xf8", "\xfe\xff", "\xff")
	return us
}

// edgeFiller is clean under every option set and has no byte the kernels treat specially.
const edgeFiller = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;-_!?()[]{}=+*#~%$@^|`\x7f" +
	"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore" +
	" et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut"

// edgeChecker runs every implementation on an input and compares it with the oracle,
// checking the memory contract with a canary-filled destination.
type edgeChecker struct {
	t   *testing.T
	ims []impl
	buf []byte
}

const edgeCanary = 0xA5

func (c *edgeChecker) check(in []byte, opts jsonopt.Options, what string) {
	c.t.Helper()
	want, wantErr := oracle.Escape(nil, in, opts)
	if wantErr == nil && want == nil {
		want = []byte{}
	}
	src := bytes.Clone(in)
	for _, im := range c.ims {
		// Room for the worst case, so that the output goes into the canary-filled capacity.
		room := 6*len(in) + 80
		if cap(c.buf) < 3+room {
			c.buf = make([]byte, 3+room)
		}
		full := c.buf[:3+room]
		for i := range full {
			full[i] = edgeCanary
		}
		copy(full, "pre")
		dst := full[: 3 : 3+room]
		got, err := im.escape(dst, src, opts)
		if err != wantErr || !bytes.Equal(got[3:], want) {
			c.t.Fatalf("%s: Escape(%q, %s) = %q, %v; want %q, %v (%s)", im.name, in, opts, got[3:], err, want, wantErr, what)
		}
		if !bytes.Equal(src, in) {
			c.t.Fatalf("%s: Escape(%q, %s) modified src to %q (%s)", im.name, in, opts, src, what)
		}
		if string(full[:3]) != "pre" {
			c.t.Fatalf("%s: Escape(%q, %s) modified dst's prefix (%s)", im.name, in, opts, what)
		}
		if i := spareWritten(dst, got, edgeCanary); i >= 0 {
			c.t.Fatalf("%s: Escape(%q, %s) wrote %#x into spare capacity at dst[%d], past the returned length %d (%s)",
				im.name, in, opts, full[i], i, len(got), what)
		}
	}
}

// TestEdgePlacements puts every unit at every offset 0..95 of clean filler, for every total
// length 0..96 (the unit replacing the filler byte at its offset), under every edgeOpts.
func TestEdgePlacements(t *testing.T) {
	c := &edgeChecker{t: t, ims: impls(t)}
	t.Logf("variants: %v", names(c.ims))
	us := edgeUnits()
	maxLen, optsList := 96, edgeOpts
	if testing.Short() {
		maxLen, optsList = 40, []jsonopt.Options{0, edgeOpts[1], edgeOpts[5], edgeOpts[6], edgeOpts[7]}
	}
	in := make([]byte, 0, 128)
	for n := 0; n <= maxLen; n++ {
		clean := edgeFiller[:n]
		for _, opts := range optsList {
			c.check([]byte(clean), opts, "clean")
		}
		for off := 0; off < n; off++ {
			for _, u := range us {
				in = append(append(append(in[:0], clean[:off]...), u...), clean[off+1:]...)
				for _, opts := range optsList {
					c.check(in, opts, fmt.Sprintf("unit %q at %d of %d", u, off, n))
				}
			}
		}
	}
}

// straddleSeqs are the multi-byte sequences split across block edges: for every lead byte
// C2..F4 the smallest and the largest valid sequence, the line terminators, and sequences
// that are invalid in the second, third or fourth byte, truncated, overlong, surrogates and
// above U+10FFFF, plus a pair of characters back to back.
func straddleSeqs() []string {
	var ss []string
	for lead := 0xC2; lead <= 0xF4; lead++ {
		n := 2
		lo, hi := byte(0x80), byte(0xBF)
		switch {
		case lead >= 0xF0:
			n = 4
		case lead >= 0xE0:
			n = 3
		}
		switch lead {
		case 0xE0:
			lo = 0xA0
		case 0xED:
			hi = 0x9F
		case 0xF0:
			lo = 0x90
		case 0xF4:
			hi = 0x8F
		}
		for _, second := range []byte{lo, hi} {
			s := []byte{byte(lead), second}
			for len(s) < n {
				s = append(s, 0x80|byte(len(s)*13)&0x3F)
			}
			ss = append(ss, string(s))
		}
	}
	return append(ss, "\u2028", "\u2029", "\u2027", "\xe2\x80\xa8\xe2\x80\xa9", "é€", "😀😀",
		"\xe0\x80\x80", "\xed\xa0\x80", "\xf0\x80\x80\x80", "\xf4\x90\x80\x80", "\xe2\x82\x41", "\xe2\x41\x82",
		"\xf0\x9f\x98\x41", "\xf0\x9f\x41\x80", "\xf0\x41\x98\x80", "\xc3\xc3", "\xe2\x82\xac\x80", "\xc3\xa9\xa9",
		"\x80\x80", "\xc0\x80", "\xf5\x80\x80\x80")
}

// TestEdgeStraddles places every straddleSeqs sequence across each 16- and 32-byte edge of
// filler of a few lengths at every split point (1..len-1 bytes before the edge), and with a
// dirty ASCII byte just before, just after and at the far end of its block, so that a
// sequence's first byte and its last byte fall into different blocks.
func TestEdgeStraddles(t *testing.T) {
	c := &edgeChecker{t: t, ims: impls(t)}
	optsList := edgeOpts
	if testing.Short() {
		optsList = []jsonopt.Options{0, edgeOpts[4], edgeOpts[5], edgeOpts[6], edgeOpts[7]}
	}
	in := make([]byte, 0, 256)
	totals := []int{100, 161, 200}
	if testing.Short() {
		totals = totals[:1]
	}
	for _, total := range totals {
		clean := edgeFiller[:total]
		for edge := 16; edge < total-4; edge += 16 {
			for _, seq := range straddleSeqs() {
				for split := 1; split < len(seq); split++ {
					off := edge - split
					for _, extra := range []int{-1, 0, 1, 2} {
						in = append(append(append(in[:0], clean[:off]...), seq...), clean[off+len(seq):]...)
						switch extra {
						case 0:
							in[off+len(seq)] = '"' // right after the sequence
						case 1:
							in[off-1] = '\\' // right before
						case 2:
							in[(edge|31)%len(in)] = '\n' // at the end of its 32-byte block
						}
						for _, opts := range optsList {
							c.check(in, opts, fmt.Sprintf("%q at %d across the edge at %d (extra %d)", seq, off, edge, extra))
						}
					}
				}
			}
		}
	}
}

// kernelDomain makes TestKernelPairs fail instead of passing without reading the tables:
// difffuzz mutate's kernel domain sets it.
var kernelDomain = flag.Bool("kernel.domain", false, "TestKernelPairs fails when no variant has an UNESCAPED_UNICODE kernel (the lookup tables' only reader)")

// TestKernelPairs puts every pair of bytes, and many triples and quadruples of lead,
// continuation and other bytes, into 80 bytes of clean filler so that the last byte lands
// inside the first and the second 16-byte lane of a 32-byte block, on the lane edge and on
// the block edge, and into 200 bytes of lower-case letters, and of digits and punctuation, at
// those places of each block of the UNESCAPED_UNICODE kernels' four-block loop, under UNESCAPED_UNICODE (where the kernels check UTF-8 in the vector
// registers through nibble lookup tables instead of leaving non-ASCII to the scalar code),
// and with UNESCAPED_LINE_TERMINATORS and HEX_TAG too (another kernel), through every
// variant with vector kernels (-short: UNESCAPED_UNICODE alone). The
// pairs reach every entry of the tables (the previous byte's two nibbles, this byte's high
// nibble) in each lane's copy, the triples and quadruples the check that a 3- or 4-byte lead
// is followed by enough continuation bytes: a table byte with a bit flipped (difffuzz
// mutate's table-bit-flip mutants) that lets an invalid sequence through fails here; one
// that only flags valid text sends it to the scalar code, which gives the same output.
func TestKernelPairs(t *testing.T) {
	c := &edgeChecker{t: t}
	for _, im := range impls(t) {
		if im.name != "default" && im.name != "swar" && im.name != "generic" {
			c.ims = append(c.ims, im) // the variants with vector kernels
		}
	}
	uu := slices.ContainsFunc(c.ims, func(im impl) bool { return im.name == "avx2" || im.name == "neon" })
	switch {
	case *kernelDomain && !uu:
		// difffuzz mutate proves table bits equivalent on this test: it must reach the tables
		t.Fatalf("-kernel.domain: no variant with an UNESCAPED_UNICODE kernel (avx2, neon) in this build or on this CPU (variants: %v)", names(c.ims))
	case len(c.ims) == 0:
		t.Skip("no vector kernel in this build (purego, or a CPU without SSE2 or NEON)")
	}
	optsList := []jsonopt.Options{jsonopt.UnescapedUnicode, jsonopt.UnescapedUnicode | jsonopt.UnescapedLineTerminators | jsonopt.HexTag}
	if testing.Short() {
		optsList = optsList[:1]
	}
	// Lane 0, the lane edge, lane 1 and the block edge of the first block of 80 bytes of
	// edgeFiller; then of each block of the UNESCAPED_UNICODE kernels' four-block loop (bytes
	// 32 to 159 of 200, one group) in fillers that pass its test under every option set here,
	// so that a test that misses the sequence is not rescued by a filler byte it flags, and
	// with the pair's second byte last in the block, where no filler byte after it can
	// rescue it either (-short: there, the lane edges and the last bytes only).
	type layout struct {
		in, filler []byte
		ends       []int
	}
	layouts := []layout{{[]byte(edgeFiller[:80]), []byte(edgeFiller[:80]), []int{5, 16, 21, 32}}}
	var ends []int
	for _, blk := range []int{32, 64, 96, 128} {
		for _, e := range []int{5, 16, 21, 31, 32} {
			if e == 16 || e == 31 || !testing.Short() {
				ends = append(ends, blk+e)
			}
		}
	}
	// Three fillers: a lookup that takes the wrong nibble sees lower-case letters as leads,
	// digits and punctuation as ASCII. The second and third have no 'r' or ',': the high
	// nibble taken one bit low ((x >> 3) & 15) puts 'r' (0x72) in the escape class of E2 and
	// ',' (0x2C) in that of the backslash, which flags the group and sends it to the exact
	// loop, where the missed sequence is found. The first stays: with it, not with the second,
	// the nibble taken one bit high ((x >> 5) & 15) in escapeUUAVX2's first blocks lets a
	// sequence through (the mutation runs in docs/mutation.md).
	for _, f := range []string{"abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqstuvwxyz", "0123456789 .:;-!?()*+=#%$"} {
		filler := []byte(strings.Repeat(f, 8)[:200])
		layouts = append(layouts, layout{bytes.Clone(filler), filler, ends})
	}
	put := func(seq ...byte) {
		for _, l := range layouts {
			for _, end := range l.ends {
				off := end - len(seq) + 1
				copy(l.in[off:], seq)
				for _, opts := range optsList {
					c.check(l.in, opts, fmt.Sprintf("% x ending at %d", seq, end))
				}
				copy(l.in[off:], l.filler[off:off+len(seq)])
			}
		}
	}
	for a := 0; a < 256; a++ {
		for b := 0; b < 256; b++ {
			put(byte(a), byte(b))
		}
	}
	// every high nibble, with the edges of the ranges the second byte of E0, ED, F0, F4 has
	some := []byte{0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xD0, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF}
	for lead := 0xC0; lead < 0x100; lead++ {
		for _, b := range some {
			for _, c := range some {
				put(byte(lead), b, c)
				if lead >= 0xF0 && lead <= 0xF4 {
					for _, d := range some {
						put(byte(lead), b, c, d)
					}
				}
			}
		}
	}
	// every (previous byte, this byte's high nibble) after a 3-byte lead, after a 2-byte lead
	// and after a 4-byte lead and a continuation: the table entries with and without the
	// "a 3- or 4-byte lead two or three bytes back" that the continuation check XORs in
	for b := 0; b < 256; b++ {
		for hi := 0; hi < 16; hi++ {
			c := byte(hi<<4 | 5)
			put(0xE1, byte(b), c)
			put(0xC3, byte(b), c)
			put(0xF1, 0x90, byte(b), c)
		}
	}
}

// TestEdgeRuns covers long runs that the main loops take whole: clean ASCII, escapes in
// every lane, multi-byte text under UNESCAPED_UNICODE with one odd character at every
// position, at lengths around the loop thresholds of both kernels.
func TestEdgeRuns(t *testing.T) {
	c := &edgeChecker{t: t, ims: impls(t)}
	bases := []string{
		strings.Repeat("ж", 100), strings.Repeat("中", 70), strings.Repeat("😀 ", 40), strings.Repeat("a\"", 100),
		strings.Repeat("é", 3) + strings.Repeat("x", 150), strings.Repeat("\\\\//", 50),
	}
	odd := []string{"\x80", "\u2028", "\"", "\x01", "\xe2\x82", "\xf0\x9f\x98", "é", "<"}
	for _, base := range bases {
		for _, n := range []int{15, 16, 31, 32, 33, 47, 48, 63, 64, 65, 95, 96, 97, 127, 128, 129, 160, 200} {
			if n > len(base) {
				continue
			}
			s := base[:n]
			for _, opts := range edgeOpts {
				c.check([]byte(s), opts, "run")
			}
			for pos := 0; pos < n; pos += 3 {
				for _, o := range odd {
					in := []byte(s[:pos] + o + s[pos:])
					for _, opts := range []jsonopt.Options{0, jsonopt.UnescapedUnicode, edgeOpts[6], edgeOpts[7]} {
						c.check(in, opts, fmt.Sprintf("%q inserted at %d", o, pos))
					}
				}
			}
		}
	}
}

// TestVariantsAMD64 checks the registry: on amd64 every variant this CPU can run is there
// and ranked avx2 > sse2 > swar > generic.
func TestVariantsRanked(t *testing.T) {
	var got []string
	for _, v := range fast.Variants() {
		got = append(got, v.Name)
	}
	order := map[string]int{"avx2": 0, "neon": 0, "sse2": 1, "swar": 2, "generic": 3}
	for i := 1; i < len(got); i++ {
		if order[got[i-1]] > order[got[i]] {
			t.Errorf("Variants() = %v: %s ranked above %s", got, got[i-1], got[i])
		}
	}
	assert.Equal(t, got[0], fast.Default(), "Default() must be the first variant of %v", got)
	t.Logf("variants %v, default %s", got, fast.Default())
}

func names(ims []impl) []string {
	var out []string
	for _, im := range ims {
		out = append(out, im.name)
	}
	return out
}

// TestUULoopTransitions aims at the UNESCAPED_UNICODE kernels' loops over several blocks (the
// amd64 one takes four 32-byte blocks per test and hands a group that fails it to a
// one-block loop): U+2028/U+2029 at every character boundary of multi-byte filler up to
// 420 bytes (so on every side of every block and group edge), alone, after a dirty byte or
// an invalid sequence that makes an earlier group fail (so that the line terminator meets
// the one-block loop's exit at every offset), and after another character with lead byte
// E2 (U+20AC, which the four-block test also stops at).
func TestUULoopTransitions(t *testing.T) {
	c := &edgeChecker{t: t, ims: impls(t)}
	fillers := []string{"жa中😀", "ж", "中", "ab😀"}
	lts := []string{"\u2028", "\u2029"}
	before := []string{"", "\"", "\x01", "\xff", "€", "\u2028"}
	opts := []jsonopt.Options{
		jsonopt.UnescapedUnicode,
		jsonopt.UnescapedUnicode | jsonopt.UnescapedLineTerminators,
		jsonopt.UnescapedUnicode | jsonopt.HexTag | jsonopt.InvalidUTF8Substitute,
		jsonopt.UnescapedUnicode | jsonopt.InvalidUTF8Ignore,
	}
	step := 1
	if testing.Short() {
		step = 5
	}
	const n = 420
	for fi, f := range fillers {
		// The character boundaries of the filler, repeated to n bytes.
		fill := strings.Repeat(f, n/len(f)+1)[:n]
		for len(fill) > 0 && !utf8.ValidString(fill) {
			fill = fill[:len(fill)-1]
		}
		var cuts []int
		for i := range fill {
			cuts = append(cuts, i)
		}
		for ci := 0; ci < len(cuts); ci += step {
			p := cuts[ci]
			for bi, b := range before {
				for _, gap := range []int{0, 37, 100, 150} {
					if b == "" && gap > 0 {
						continue
					}
					// b ends gap bytes (rounded down to a boundary) before the line terminator.
					q := p - gap - len(b)
					for q > 0 && !utf8.RuneStart(fill[q]) {
						q--
					}
					if q < 0 {
						continue
					}
					lt := lts[(ci+bi)%2]
					in := []byte(fill[:q] + b + fill[q:p] + lt + fill[p:])
					for _, o := range opts {
						c.check(in, o, fmt.Sprintf("filler %d, %q at %d, %q %d bytes before", fi, lt, p, b, gap))
					}
				}
			}
		}
	}
}

// TestMBLoopTransitions is TestUULoopTransitions for the kernels that write multi-byte
// sequences as \uXXXX (option sets without UNESCAPED_UNICODE, AVX2's escapeMBAVX2): every
// edge unit (escapes, valid sequences at their range edges, every invalid kind) at every
// character boundary of non-ASCII filler, so at every position of the kernel's 32-byte
// windows, which start at character boundaries and end before a sequence that does not fit,
// at an escaped ASCII byte or at the start of an invalid sequence. Two units, the second 1 to
// 40 bytes after the first, make a window end at one and start at or before the other.
func TestMBLoopTransitions(t *testing.T) {
	c := &edgeChecker{t: t, ims: impls(t)}
	fillers := []string{"жa中😀", "ж", "中", "ab😀", "😀", "é x", "中 ж", "中a中中 ", "ж😀 ", "😀😀a"}
	opts := []jsonopt.Options{
		0,
		jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot | jsonopt.PartialOutputOnError,
		jsonopt.UnescapedSlashes | jsonopt.InvalidUTF8Ignore,
		jsonopt.HexTag | jsonopt.InvalidUTF8Substitute,
	}
	units := edgeUnits()
	step := 1
	if testing.Short() {
		step = 7
	}
	const n = 200
	for fi, f := range fillers {
		fill := strings.Repeat(f, n/len(f)+1)[:n]
		for len(fill) > 0 && !utf8.ValidString(fill) {
			fill = fill[:len(fill)-1]
		}
		var cuts []int
		for i := range fill {
			cuts = append(cuts, i)
		}
		for ci := 0; ci < len(cuts); ci += step {
			p := cuts[ci]
			for ui, u := range units {
				o := opts[(ci+ui)%len(opts)]
				in := []byte(fill[:p] + u + fill[p:])
				c.check(in, o, fmt.Sprintf("filler %d, unit %q at %d", fi, u, p))
				// A second unit 1 to 40 bytes (rounded to a boundary) after the first.
				q := p + 1 + (ci*7+ui*13)%40
				for q < len(fill) && !utf8.RuneStart(fill[q]) {
					q++
				}
				if q < len(fill) {
					v := units[(ui*31+ci)%len(units)]
					in := []byte(fill[:p] + u + fill[p:q] + v + fill[q:])
					c.check(in, opts[(ci+ui+1)%len(opts)], fmt.Sprintf("filler %d, %q at %d, %q at %d", fi, u, p, v, q))
				}
			}
		}
	}
}

// TestASCIILoopTransitions puts each byte that some option set escapes (and a byte >= 0x80,
// which stops the ASCII kernels) at every position of 700 bytes of clean ASCII, alone and
// with a second one 1, 63 or 257 bytes after it, so at every position of the ASCII kernels'
// blocks: the 128-, 64-, 32- and 16-byte loops of escapeAVX2 (with its alignment step) and
// escapeSSE2, with and without the control test (an ASCII string without controls runs the
// NoCtl kernels), and the 32-byte windows of the multi-byte kernels' ASCII part.
func TestASCIILoopTransitions(t *testing.T) {
	c := &edgeChecker{t: t, ims: impls(t)}
	units := []string{"\"", "\\", "/", "<", ">", "&", "'", "\x00", "\x1f", "é", "\xff"}
	opts := []jsonopt.Options{0, jsonopt.HexTag, jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot,
		jsonopt.UnescapedSlashes | jsonopt.HexTag}
	step := 1
	if testing.Short() {
		step = 3
	}
	const n = 700
	fill := strings.Repeat(edgeFiller, n/len(edgeFiller)+1)[:n]
	for p := 0; p < n; p += step {
		for ui, u := range units {
			for _, gap := range []int{0, 1, 63, 257} {
				in := fill[:p] + u + fill[p+1:]
				if gap > 0 {
					q := p + len(u) + gap
					if q >= len(in) {
						continue
					}
					in = in[:q] + units[(ui+gap)%len(units)] + in[q+1:]
				}
				for _, o := range opts {
					c.check([]byte(in), o, fmt.Sprintf("%q at %d, a second %d bytes after it", u, p, gap))
				}
			}
		}
	}
}

// TestDenseEscapes runs text where escapes are the rule, not the exception, through every
// implementation: the 8-byte groups of the vector kernels' register expansion (expandBlock on
// amd64) see every escape mask of a group. Each input repeats an 8-byte pattern whose set bits
// are escaped bytes (each of the two-byte escapes in turn) and whose clear bits are clean, for
// every pattern, at several phases against the kernels' 32-byte blocks and lengths across
// them; then random mixtures of two-byte escapes, \u00XX escapes, clean bytes and bytes >=
// 0x80 at several densities and lengths. Every option set that changes which escape a byte
// takes is used, with and without UNESCAPED_UNICODE.
func TestDenseEscapes(t *testing.T) {
	c := &edgeChecker{t: t, ims: impls(t)}
	opts := []jsonopt.Options{0, jsonopt.UnescapedSlashes, jsonopt.HexQuot,
		jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot, jsonopt.UnescapedUnicode,
		jsonopt.UnescapedUnicode | jsonopt.UnescapedSlashes | jsonopt.HexTag}
	short := "\"\\/\b\f\n\r\t"
	step := 1
	if testing.Short() {
		step = 5
	}
	for m := 0; m < 256; m += step {
		for phase := 0; phase < 8; phase += 3 {
			in := make([]byte, 0, 200)
			for i := 0; len(in) < cap(in); i++ {
				b := edgeFiller[i%len(edgeFiller)]
				if m>>((i+phase)%8)&1 == 1 {
					b = short[(i/8+m)%len(short)]
				}
				in = append(in, b)
			}
			for _, n := range []int{16, 33, 64, 97, 130, 161, 200} {
				for _, o := range opts {
					c.check(in[:n], o, fmt.Sprintf("mask %#x, phase %d, %d bytes", m, phase, n))
				}
			}
		}
	}
	alphabets := []string{
		short,
		short + "abcdefgh",
		short + "abc\x01\x1f<&'",
		short + "abcdef" + "é",
		short + "abcdefghijklmnopqrstuvwxyz\x00",
		"abcdefghijklmnopqrstuvwxyz<>&'\"\x7f\x10",
	}
	r := rand.New(rand.NewPCG(36, 1))
	rounds := 300
	if testing.Short() {
		rounds = 60
	}
	for ai, a := range alphabets {
		units := strings.Split(a, "") // whole UTF-8 characters
		for range rounds {
			n := 16 + r.IntN(300)
			var in []byte
			for len(in) < n {
				in = append(in, units[r.IntN(len(units))]...)
			}
			for _, o := range opts {
				c.check(in, o, fmt.Sprintf("alphabet %d", ai))
			}
		}
	}
}
