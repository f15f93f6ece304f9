//go:build !purego

package fast

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/difffuzz/difffuzz/corpus"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// TestASCIIKernelDensity checks escapeAVX2's third result (and escapeAVX512's), which decides whether the
// multi-byte kernel starts at a stop (archKernel), and the sparse-text path beside it: in
// French, ASCII-with-é and Cyrillic text, the kernels stop at a byte >= 0x80 only where
// mbDense finds the text dense (verdict denseYes) or at a sequence the sparse path does not
// take (verdict denseNo: 4-byte or invalid, none in these texts), or without a verdict in the
// last 64 bytes (the 16-byte loop's), and they take the 2- and 3-byte sequences of sparse text
// themselves (sparseSeq). Both must happen. A wrong verdict only costs
// speed (Escape's output does not show it), so it is checked here.
func TestASCIIKernelDensity(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 on this CPU")
	}
	c := &ctxs[ctxIndex(0)]
	stops, taken := 0, 0
	for _, name := range []string{"french", "ascii-eacute-random", "ascii-eacute-periodic", "cyrillic"} {
		co, _ := corpus.Lookup(name)
		src := co.Make(4096)
		dst := make([]byte, 6*len(src)+64)
		fs := []func(dst, src []byte, kt, esc *uint64) (int, int, int){escapeAVX2, escapeAVX2Tag}
		if hasAVX512 {
			fs = append(fs, escapeAVX512, escapeAVX512Tag)
		}
		for _, f := range fs {
			for i := 0; len(src)-i >= 16; {
				ns, _, d := f(dst, src[i:], &c.kt[0], &c.esc[0])
				taken += leads(src[i : i+ns])
				i += ns
				if i >= len(src) || src[i] < 0x80 {
					if d != denseUnknown {
						t.Fatalf("%s: a return at %d not at a byte >= 0x80 says dense = %d", name, i, d)
					}
					break
				}
				stops++
				switch {
				case d == denseUnknown && len(src)-i >= 64:
					t.Fatalf("%s: stop at %d, %d bytes before the end, without a verdict", name, i, len(src)-i)
				case d != denseUnknown && (d != denseYes || !mbDense(src[i:]) || sparseSeq(src, i)):
					t.Fatalf("%s: stop at %d (% x): dense = %d, mbDense says %v; sparse 2- and 3-byte sequences are the kernel's",
						name, i, src[i:i+32], d, mbDense(src[i:]))
				}
				for i++; i < len(src) && src[i]&0xC0 == 0x80; i++ {
				}
			}
		}
	}
	if stops == 0 || taken == 0 {
		t.Errorf("%d dense stops, %d sequences taken in sparse text: want both", stops, taken)
	}
	t.Logf("%d dense stops, %d sequences taken in sparse text", stops, taken)
}

// leads counts the lead bytes in s.
func leads(s []byte) int {
	n := 0
	for _, b := range s {
		if b >= 0xC0 {
			n++
		}
	}
	return n
}

// sparseSeq reports whether s[i:] (32 bytes or more) starts with a sequence the ASCII kernels
// write themselves in sparse text: a valid 2-byte one with no other byte >= 0x80 in the 32
// bytes from it, or a valid 3-byte one with none but its own.
func sparseSeq(s []byte, i int) bool {
	hi := 0
	for _, b := range s[i : i+32] {
		hi += int(b >> 7)
	}
	switch validLen(s, i, s[i], true) {
	case 2:
		return hi < 3
	case 3:
		return hi == 3
	}
	return false
}

// TestASCIIKernelBlocks runs the AVX2-family ASCII kernels directly (not through Escape, which
// hides where a kernel stopped and what it wrote past its output) on text whose 64-byte blocks
// are each clean, sparse or dense in escapes, under every ASCII option context, so that the
// avx512 kernels' dense loop (dense64) is entered, left at a clean block, handed a block with a
// byte >= 0x80 or a \u00XX escape in either half, and ended near the end of src; sequences of
// every length, valid or not, sparse or dense, are placed in it. Each call must write the
// reference escape (kernelRef) of what it consumed, stop only at a byte >= 0x80 or with fewer
// than 32 bytes left, return the density verdict only at a byte >= 0x80 (and mbDense's
// there), not stop at a sequence of sparse text that it takes (sparseSeq), and write nothing
// past ndst+len(src)-nsrc (runKernel's contract; dst is filled with a canary, 0xA5, which no
// escape contains).
func TestASCIIKernelBlocks(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 on this CPU")
	}
	type kern struct {
		name  string
		f     func(dst, src []byte, kt, esc *uint64) (int, int, int)
		noCtl bool
	}
	ks := []kern{{"escapeAVX2", escapeAVX2, false}, {"escapeAVX2NoCtl", escapeAVX2NoCtl, true},
		{"escapeAVX2Tag", escapeAVX2Tag, false}, {"escapeAVX2TagNoCtl", escapeAVX2TagNoCtl, true}}
	if hasAVX512 {
		ks = append(ks, kern{"escapeAVX512", escapeAVX512, false}, kern{"escapeAVX512NoCtl", escapeAVX512NoCtl, true},
			kern{"escapeAVX512Tag", escapeAVX512Tag, false}, kern{"escapeAVX512TagNoCtl", escapeAVX512TagNoCtl, true})
	}
	r := rand.New(rand.NewPCG(36, 64))
	rounds := 400
	if testing.Short() {
		rounds = 100
	}
	escs := []byte("\"\\/\b\f\n\r\t<>&'")
	calls, taken := 0, 0
	for ci := range ctxs {
		if asciiCtx(ci) != ci {
			continue
		}
		c := &ctxs[ci]
		for _, k := range ks {
			if (c.tag) != strings.Contains(k.name, "Tag") {
				continue
			}
			for range rounds {
				src := blockText(r, 16+r.IntN(600), escs, k.noCtl)
				dst := make([]byte, 6*len(src)+64)
				for i := range dst {
					dst[i] = 0xA5
				}
				ns, nd, dense := k.f(dst, src, &c.kt[0], &c.esc[0])
				calls++
				taken += leads(src[:ns])
				switch ref := kernelRef(src[:ns], c); {
				case ref == nil || string(dst[:nd]) != string(ref):
					t.Fatalf("%s, ctx %d (%v): %d bytes consumed, output differs from the reference\nsrc %q\ngot  %q\nwant %q",
						k.name, ci, ctxOpts(ci), ns, src, dst[:nd], ref)
				case ns < len(src) && src[ns] < 0x80 && len(src)-ns >= 32:
					t.Fatalf("%s, ctx %d: stopped at %d of %d before a byte < 0x80 (%q)", k.name, ci, ns, len(src), src)
				case (ns == len(src) || src[ns] < 0x80) && dense != denseUnknown:
					t.Fatalf("%s, ctx %d: a return at %d of %d not at a byte >= 0x80 says dense = %d (%q)", k.name, ci, ns, len(src), dense, src)
				case dense != denseUnknown && (dense == denseYes) != mbDense(src[ns:]):
					t.Fatalf("%s, ctx %d: stop at %d: dense = %d, mbDense says otherwise (%q)", k.name, ci, ns, dense, src)
				case dense != denseUnknown && sparseSeq(src, ns):
					t.Fatalf("%s, ctx %d: stop at %d, sparse text, at a sequence it takes (% x)", k.name, ci, ns, src[ns:ns+3])
				}
				for i := nd + len(src) - ns; i < len(dst); i++ {
					if dst[i] != 0xA5 {
						t.Fatalf("%s, ctx %d: wrote dst[%d], past ndst %d + %d bytes left (%q)", k.name, ci, i, nd, len(src)-ns, src)
					}
				}
			}
		}
	}
	if taken == 0 {
		t.Errorf("%d sequences >= 0x80 taken by the kernels: want some", taken)
	}
	t.Logf("%d kernel calls, %d sequences >= 0x80 taken", calls, taken)
}

// blockText returns n bytes of text in 64-byte blocks, each clean, sparse (one or two escaped
// bytes), dense (escapes at a random density) or all escapes; with noCtl it has no control
// and no byte >= 0x80, else a block sometimes holds a control, and a single 2-byte sequence
// (valid or not) or up to three sequences >= 0x80 (seqs: valid ones of each length at their
// edges, and invalid ones) at random places.
func blockText(r *rand.Rand, n int, escs []byte, noCtl bool) []byte {
	src := make([]byte, n)
	for i := range src {
		src[i] = 'a' + byte(i%26)
	}
	for b := 0; b < n; b += 64 {
		blk := src[b:min(n, b+64)]
		var p float64
		switch r.IntN(4) {
		case 1:
			p = 2.0 / 64
		case 2:
			p = r.Float64()
		case 3:
			p = 1
		}
		for i := range blk {
			if r.Float64() < p {
				blk[i] = escs[r.IntN(len(escs))]
				if noCtl && blk[i] < 0x20 {
					blk[i] = '"'
				}
			}
		}
		if noCtl {
			continue
		}
		if r.IntN(4) == 0 {
			blk[r.IntN(len(blk))] = []byte{0x01, 0x1f}[r.IntN(2)]
		}
		if r.IntN(3) == 0 {
			// A single 2-byte sequence (the avx512 dense loop writes it in the loop), valid
			// or not (overlong, truncated, the start of a longer one, two leads, two
			// continuation bytes), anywhere in the block, also across its end.
			q := [][]byte{{0xC3, 0xA9}, {0xC2, 0x80}, {0xDF, 0xBF}, {0xC1, 0xBF}, {0xC3, 'a'}, {0xC3, 0xC3},
				{0xE2, 0x80}, {0xF0, 0x9F}, {0xA9, 0xA9}}[r.IntN(9)]
			copy(src[b+r.IntN(len(blk)):], q)
			continue
		}
		for range r.IntN(4) {
			q := seqs[r.IntN(len(seqs))]
			copy(blk[r.IntN(len(blk)):], q)
		}
	}
	return src
}

// seqs are the sequences >= 0x80 blockText places: valid 2-, 3- and 4-byte ones at the edges of
// their ranges, overlongs, surrogates, a lone continuation byte, leads without their
// continuation bytes, and bytes that never start a sequence.
var seqs = [][]byte{
	{0xC2, 0x80}, {0xC3, 0xA9}, {0xDF, 0xBF}, {0xE0, 0xA0, 0x80}, {0xE2, 0x80, 0xA8}, {0xE2, 0x80, 0x99},
	{0xED, 0x9F, 0xBF}, {0xEE, 0x80, 0x80}, {0xEF, 0xBF, 0xBF}, {0xF0, 0x9F, 0x98, 0x80}, {0xF4, 0x8F, 0xBF, 0xBF},
	{0xC0, 0x80}, {0xC1, 0xBF}, {0xE0, 0x9F, 0xBF}, {0xED, 0xA0, 0x80}, {0xED, 0xBF, 0xBF}, {0x80}, {0xBF},
	{0xC3, 'a'}, {0xE2, 0x80, 'a'}, {0xE2, 'a'}, {0xC3, 0xC3, 0xA9}, {0xF5, 0x80}, {0xFF},
}

// TestTwoByteTableEveryCodePoint writes every code point of a 2-byte sequence (U+0080..U+07FF)
// through each assembly path that takes its \uXXXX from the kU2 table (hexU2): the ASCII
// kernels' sparse-text step (seqSparse: one sequence in clean ASCII), the avx512 ASCII
// kernels' dense loop (dense64Seq: one sequence in a block of escape-dense text) and the
// AVX-512 multi-byte kernel's sparse windows (sparseWindow: three sequences in a window of
// ASCII); and through the one that computes its digits from the sequence's nibbles, that
// kernel's 2-byte windows (twoByteWindow: twelve sequences, an ASCII byte after each, so that
// the code point is at every third offset of a window's 16-byte lanes). Each is checked against
// the reference escape (kernelRef) of what the kernel consumed, which must reach past the
// sequence. A wrong entry anywhere in the table, or a wrong digit of any code point in a 2-byte
// window, fails here.
func TestTwoByteTableEveryCodePoint(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 on this CPU")
	}
	c := &ctxs[ctxIndex(0)]
	type kern struct {
		name string
		f    func(dst, src []byte, kt, esc *uint64) (int, int)
		text func(seq string) string
	}
	sparse := func(seq string) string { return strings.Repeat("a", 40) + seq + strings.Repeat("b", 200) }
	dense := func(seq string) string {
		q := strings.Repeat(`"a`, 32)
		return q + `"a"a"a"a"a` + seq + q[:64-10-2] + q + q + q
	}
	window := func(seq string) string {
		return strings.Repeat("a", 10) + seq + "bb" + seq + "cc" + seq + strings.Repeat("d", 200)
	}
	twoByte := func(seq string) string { return strings.Repeat(seq+"a", 12) + strings.Repeat("d", 200) }
	ascii := func(f func(dst, src []byte, kt, esc *uint64) (int, int, int)) func(dst, src []byte, kt, esc *uint64) (int, int) {
		return func(dst, src []byte, kt, esc *uint64) (int, int) { s, d, _ := f(dst, src, kt, esc); return s, d }
	}
	ks := []kern{{"escapeAVX2 (sparse text)", ascii(escapeAVX2), sparse}}
	if hasAVX512 {
		ks = append(ks, kern{"escapeAVX512 (sparse text)", ascii(escapeAVX512), sparse},
			kern{"escapeAVX512 (dense loop)", ascii(escapeAVX512), dense},
			kern{"escapeMBAVX512 (sparse window)", escapeMBAVX512, window},
			kern{"escapeMBAVX512 (2-byte window)", escapeMBAVX512, twoByte})
	}
	for _, k := range ks {
		for r := rune(0x80); r < 0x800; r++ {
			src := []byte(k.text(string(r)))
			dst := make([]byte, 6*len(src)+128)
			ns, nd := k.f(dst, src, &c.kt[0], &c.esc[0])
			if ref := kernelRef(src[:ns], c); ns < strings.LastIndex(string(src), string(r))+2 || string(dst[:nd]) != string(ref) {
				t.Fatalf("%s, U+%04X: consumed %d of %d bytes, wrote %q; want past the last sequence, %q", k.name, r, ns, len(src), dst[:nd], ref)
			}
		}
	}
}

// TestFourByteEveryCodePoint writes every code point of a 4-byte sequence (U+10000..U+10FFFF)
// through the AVX-512 multi-byte kernel's triples for windows of 4-byte sequences and ASCII
// (fourByteTriples), twelve code points a window, each before a space (so that each of them is
// at every fifth offset of a window's 16-byte lanes in turn), against the reference escape
// (kernelRef) of what the kernel consumed, which must reach past the last of them. A wrong
// digit of any surrogate pair fails here.
func TestFourByteEveryCodePoint(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512 VBMI2 on this CPU")
	}
	c := &ctxs[ctxIndex(0)]
	src := make([]byte, 0, 60+200)
	dst := make([]byte, 12*cap(src))
	for r := rune(0x10000); r <= 0x10FFFF; r += 12 {
		src = src[:0]
		for i := range rune(12) {
			src = utf8.AppendRune(src, min(r+i, 0x10FFFF))
			src = append(src, ' ')
		}
		src = append(src, strings.Repeat("d", 200)...)
		ns, nd := escapeMBAVX512(dst, src, &c.kt[0], &c.esc[0])
		if ref := kernelRef(src[:ns], c); ns < 60 || string(dst[:nd]) != string(ref) {
			t.Fatalf("U+%04X..U+%04X: consumed %d of %d bytes, wrote %q; want past byte 60, %q", r, r+11, ns, len(src), dst[:nd], ref)
		}
	}
}

// TestMBValidForms checks the AVX-512 multi-byte kernel's forms for input proven valid
// (escapeMBAVX512Valid, escapeMBAVX512TagValid), which skip the validation: on valid text of
// every mix the kernel's paths take (sparse, 2-, 3- and 4-byte windows, mixed scripts,
// escaped bytes among them, at lengths 128 to 640) each must consume what its validating form
// consumes and write the same bytes; on the same text with one byte made invalid it must still
// read no byte past the input (flush against a guard page), consume no more than it, and write
// no more than 64 bytes past its output, which is at most six bytes a consumed byte.
func TestMBValidForms(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512 VBMI2 on this CPU")
	}
	guarded := guardedInputs(t, 1024)
	pieces := [][]string{
		{"a", "b", " ", "e", "\"", "/", "\n", "<", "\\"},
		{"é", "ж", "ß", "\u0080", "\u07ff"},
		{"中", "€", "\u0800", "\uffff", "\ue000", "\ud7ff", "\u2028"},
		{"😀", "\U00010000", "\U0010ffff", "🚀"},
	}
	forms := []struct {
		name        string
		check, fast func(dst, src []byte, kt, esc *uint64) (int, int)
		opts        jsonopt.Options
	}{
		{"escapeMBAVX512Valid", escapeMBAVX512, escapeMBAVX512Valid, 0},
		{"escapeMBAVX512TagValid", escapeMBAVX512Tag, escapeMBAVX512TagValid, jsonopt.HexTag | jsonopt.HexQuot},
	}
	r := rand.New(rand.NewPCG(36, 12))
	for iter := range 12000 {
		// A weight per piece class: one class alone, or a mix.
		var w [4]int
		for i := range w {
			w[i] = r.IntN(4) * r.IntN(2)
		}
		w[iter%4] += 4
		var text []byte
		for n := 128 + r.IntN(513); len(text) < n; {
			x := r.IntN(w[0] + w[1] + w[2] + w[3])
			cl := 0
			for x >= w[cl] {
				x -= w[cl]
				cl++
			}
			text = append(text, pieces[cl][r.IntN(len(pieces[cl]))]...)
		}
		f := forms[iter%2]
		c := &ctxs[ctxIndex(f.opts)]
		src := guarded(text)
		want := make([]byte, 6*len(src)+128)
		ws, wd := f.check(want, src, &c.kt[0], &c.esc[0])
		got := make([]byte, 6*len(src)+128)
		gs, gd := f.fast(got, src, &c.kt[0], &c.esc[0])
		if gs != ws || string(got[:gd]) != string(want[:wd]) {
			t.Fatalf("%s(%q): consumed %d, wrote %q; the validating form consumed %d, wrote %q", f.name, text, gs, got[:gd], ws, want[:wd])
		}
		// One byte made invalid (0xFF, a continuation byte or a lead).
		src[r.IntN(len(src))] = []byte{0xFF, 0x80, 0xBF, 0xC3, 0xE4, 0xF0}[r.IntN(6)]
		for i := range got {
			got[i] = 0xAA
		}
		gs, gd = f.fast(got, src, &c.kt[0], &c.esc[0])
		tail := got[min(len(got), gd+64):]
		if gs > len(src) || gd > 6*gs || slices.ContainsFunc(tail, func(b byte) bool { return b != 0xAA }) {
			t.Fatalf("%s(% x): consumed %d of %d bytes, wrote %d (and past it: %q)", f.name, src, gs, len(src), gd, tail)
		}
	}
}
