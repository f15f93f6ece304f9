package fast

import (
	"fmt"
	"testing"

	"github.com/difffuzz/difffuzz/corpus"
)

// BenchmarkScratch measures the choice escapeLong makes for a long non-ASCII string written
// into a caller's spare capacity under the default (error) mode, where an invalid string
// must leave that capacity untouched: escaping into a pooled scratch buffer and copying the
// result (scratch), against the parts of the alternative, proving the string valid first
// (validate: validFrom, the decode loop escapeLong uses for short remainders; vector: the
// default kernel's archValid, where it has one) and then escaping in place (inplace:
// escapeBody straight into a buffer, the lower bound of any such scheme). Scratch wins while
// its cost over inplace (the copy and the pool) is below the check's. Measured on an
// AVX-512 Xeon: at 4 KiB the copy and the pool cost 5-13 % of the escape, validate 2-4 times
// the escape, vector about as much as the copy; at 64 KiB vector costs less than the copy of
// text whose escape is two to three times its length (see mostlyMB), about as much on text
// with an é every few dozen bytes.
func BenchmarkScratch(b *testing.B) {
	k := defaultKernel
	for _, size := range []int{4 << 10, 16 << 10, 64 << 10} {
		for _, name := range []string{"cyrillic", "cjk", "emoji", "french", "ascii-eacute-random"} {
			co, _ := corpus.Lookup(name)
			src := co.Make(size)
			n := len(src)
			need := n + 5*min(n, block+64) + 17
			dst := make([]byte, 0, need)
			buf := make([]byte, need)
			pre := fmt.Sprintf("size=%dKiB/corpus=%s/", size>>10, name)
			b.Run(pre+"scratch", func(b *testing.B) {
				b.SetBytes(int64(n))
				for range b.N {
					dst, _ = escapeScratch(dst[:0], src, 0, &ctxs[0], k, need)
				}
			})
			b.Run(pre+"inplace", func(b *testing.B) {
				b.SetBytes(int64(n))
				for range b.N {
					buf, _, _ = escapeBody(buf, 0, src, 0, &ctxs[0], k, false)
				}
			})
			b.Run(pre+"validate", func(b *testing.B) {
				b.SetBytes(int64(n))
				for range b.N {
					validFrom(src, 0)
				}
			})
			if _, ok := archValid(k, nil); ok {
				b.Run(pre+"vector", func(b *testing.B) {
					b.SetBytes(int64(n))
					for range b.N {
						archValid(k, src)
					}
				})
			}
		}
	}
}
