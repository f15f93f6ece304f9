//go:build !purego

package fast

import (
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
