//go:build !purego

package fast

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/difffuzz/difffuzz/corpus"
)

// TestASCIIKernelDensity checks escapeAVX2's third result (and escapeAVX512's), which decides whether the
// multi-byte kernel starts at a stop (archKernel): at every stop at a byte >= 0x80 in French,
// ASCII-with-é and Cyrillic text, a verdict other than denseUnknown is mbDense's on the 32
// bytes from the stop, and both verdicts occur. A wrong verdict only costs speed (Escape's
// output does not show it), so it is checked here.
func TestASCIIKernelDensity(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 on this CPU")
	}
	c := &ctxs[ctxIndex(0)]
	count := map[int]int{}
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
				i += ns
				if i >= len(src) || src[i] < 0x80 {
					if d != denseUnknown {
						t.Fatalf("%s: a return at %d not at a byte >= 0x80 says dense = %d", name, i, d)
					}
					break
				}
				count[d]++
				if d != denseUnknown && (d == denseYes) != mbDense(src[i:]) {
					t.Fatalf("%s: stop at %d (% x): dense = %d, mbDense says %v", name, i, src[i:i+32], d, mbDense(src[i:]))
				}
				for i++; i < len(src) && src[i]&0xC0 == 0x80; i++ {
				}
			}
		}
	}
	if count[denseYes] == 0 || count[denseNo] == 0 {
		t.Errorf("verdicts %v: want both dense and sparse stops", count)
	}
	t.Logf("verdicts at stops: %v (0 sparse, 1 dense, 2 not tested)", count)
}

// TestASCIIKernelBlocks runs the AVX2-family ASCII kernels directly (not through Escape, which
// hides where a kernel stopped and what it wrote past its output) on text whose 64-byte blocks
// are each clean, sparse or dense in escapes, under every ASCII option context, so that the
// avx512 kernels' dense loop (dense64) is entered, left at a clean block, handed a block with a
// byte >= 0x80 or a \u00XX escape in either half, and ended near the end of src. Each call must
// write the reference escape (asciiGeneric) of what it consumed, stop only at a byte >= 0x80
// or with fewer than 32 bytes left, return the density verdict only at a byte >= 0x80 (and
// mbDense's there), and write nothing past ndst+len(src)-nsrc (runKernel's
// contract; dst is filled with a canary, 0xA5, which no ASCII escape contains).
func TestASCIIKernelBlocks(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 on this CPU")
	}
	type kern struct {
		name  string
		f     func(dst, src []byte, kt, esc *uint64) (int, int, int)
		noCtl bool
	}
	ks := []kern{{"escapeAVX2", escapeAVX2, false}, {"escapeAVX2NoCtl", escapeAVX2NoCtl, true}}
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
	calls := 0
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
				ref := make([]byte, 6*ns+8)
				rs, rd := asciiGeneric(ref, src[:ns], c)
				switch {
				case rs != ns || string(dst[:nd]) != string(ref[:rd]):
					t.Fatalf("%s, ctx %d (%v): %d bytes consumed, output differs from the reference\nsrc %q\ngot  %q\nwant %q",
						k.name, ci, ctxOpts(ci), ns, src, dst[:nd], ref[:rd])
				case ns < len(src) && src[ns] < 0x80 && len(src)-ns >= 32:
					t.Fatalf("%s, ctx %d: stopped at %d of %d before a byte < 0x80 (%q)", k.name, ci, ns, len(src), src)
				case (ns == len(src) || src[ns] < 0x80) && dense != denseUnknown:
					t.Fatalf("%s, ctx %d: a return at %d of %d not at a byte >= 0x80 says dense = %d (%q)", k.name, ci, ns, len(src), dense, src)
				case dense != denseUnknown && (dense == denseYes) != mbDense(src[ns:]):
					t.Fatalf("%s, ctx %d: stop at %d: dense = %d, mbDense says otherwise (%q)", k.name, ci, ns, dense, src)
				}
				for i := nd + len(src) - ns; i < len(dst); i++ {
					if dst[i] != 0xA5 {
						t.Fatalf("%s, ctx %d: wrote dst[%d], past ndst %d + %d bytes left (%q)", k.name, ci, i, nd, len(src)-ns, src)
					}
				}
			}
		}
	}
	t.Logf("%d kernel calls", calls)
}

// blockText returns n bytes of text in 64-byte blocks, each clean, sparse (one or two escaped
// bytes), dense (escapes at a random density) or all escapes; with noCtl it has no control
// and no byte >= 0x80, else a block sometimes holds one of each.
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
		if !noCtl && r.IntN(4) == 0 {
			blk[r.IntN(len(blk))] = []byte{0x01, 0x1f, 0x80, 0xC3}[r.IntN(4)]
		}
	}
	return src
}
