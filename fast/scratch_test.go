package fast

import (
	"testing"

	"github.com/difffuzz/difffuzz/corpus"
)

// BenchmarkScratch measures the choice escapeLong makes for a long non-ASCII string written
// into a caller's spare capacity under the default (error) mode, where an invalid string
// must leave that capacity untouched: escaping into a pooled scratch buffer and copying the
// result (scratch, what escapeLong does), against the two parts of the alternative, proving
// the string valid first (validate: validFrom, the decode loop escapeLong uses for short
// remainders) and then escaping in place (inplace: escapeBody straight into a buffer, the
// lower bound of any such scheme). Scratch wins while its cost over inplace (the copy and
// the pool) is below validate's; on this package's corpora at 4 KiB it is 5-13 % of the
// escape, validate 2-4 times the escape.
func BenchmarkScratch(b *testing.B) {
	k := defaultKernel
	for _, name := range []string{"cyrillic", "cjk", "french", "ascii-eacute-random"} {
		co, _ := corpus.Lookup(name)
		src := co.Make(4 << 10)
		n := len(src)
		need := n + 5*min(n, block+64) + 17
		dst := make([]byte, 0, need)
		buf := make([]byte, need)
		b.Run("corpus="+name+"/scratch", func(b *testing.B) {
			b.SetBytes(int64(n))
			for range b.N {
				dst, _ = escapeLong(dst[:0], src, 0, &ctxs[0], k)
			}
		})
		b.Run("corpus="+name+"/inplace", func(b *testing.B) {
			b.SetBytes(int64(n))
			for range b.N {
				escapeBody(buf, 0, src, 0, &ctxs[0], k)
			}
		})
		b.Run("corpus="+name+"/validate", func(b *testing.B) {
			b.SetBytes(int64(n))
			for range b.N {
				validFrom(src, 0)
			}
		})
	}
}
