//go:build !purego

package fast

import (
	"bytes"
	"testing"
)

// BenchmarkBound measures what bounds the clean-ASCII throughput of the amd64 variants
// against copy(), on the same clean ASCII text (default options) at 4 KiB and 64 KiB:
//
//   - copy: the anchor, copy() of the string;
//   - scan+copy/avx2, scan+copy/sse2: the variant's pre-scan (which proves the string ASCII
//     before anything is written into dst's spare capacity, DESIGN §4) followed by copy()
//     itself: no escape can be faster than this under that contract;
//   - kernel/avx2, kernel/sse2: the escape kernel alone, without the pre-scan;
//   - escape/avx2, escape/sse2: the variant's Escape, as BenchmarkEscape in package bench
//     measures it.
//
// Compare the ns/op of the rows of one size, which run side by side in one binary.
func BenchmarkBound(b *testing.B) {
	line := []byte("The quick brown fox jumps over the lazy dog; 0123456789, (ok) - [x]. ")
	for _, size := range []struct {
		name string
		n    int
	}{{"4KiB", 4 << 10}, {"64KiB", 64 << 10}} {
		n := size.n
		src := make([]byte, n) // fresh allocation: aligned as bench's corpora are
		copy(src, bytes.Repeat(line, n/len(line)+1))
		dst := make([]byte, 6*n+64)
		c := &ctxs[0]
		run := func(name string, f func()) {
			b.Run(size.name+"/"+name, func(b *testing.B) {
				b.SetBytes(int64(n))
				for range b.N {
					f()
				}
			})
		}
		run("copy", func() { copy(dst, src) })
		if hasAVX2 {
			run("scan+copy/avx2", func() {
				if last, _ := lastNonASCIIAVX2(src); last == 0 {
					copy(dst, src)
				}
			})
		}
		run("scan+copy/sse2", func() {
			if lastNonASCIISSE2(src) == 0 {
				copy(dst, src)
			}
		})
		if hasAVX2 {
			run("kernel/avx2", func() { escapeAVX2NoCtl(dst[1:], src, &c.kt[0], &c.esc[0]) })
		}
		run("kernel/sse2", func() { escapeSSE2x3(dst[1:], src, &c.kt[0], &c.esc[0]) })
		out := make([]byte, 0, 7*n)
		avx2, sse2 := escapeVariant(kernelAVX2), escapeVariant(kernelSSE2)
		if hasAVX2 {
			run("escape/avx2", func() { out, _ = avx2(out[:0], src, 0) })
		}
		run("escape/sse2", func() { out, _ = sse2(out[:0], src, 0) })
	}
}
