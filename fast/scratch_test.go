package fast

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/difffuzz/difffuzz/corpus"
)

// BenchmarkScratch measures the choice escapeLong makes for a long non-ASCII string written
// into a caller's spare capacity under the default (error) mode, where an invalid string
// must leave that capacity untouched: escaping into a pooled scratch buffer and copying the
// result (scratch), against proving the string valid first with the default kernel's vector
// check, where it has one, and then escaping in place with the kernel's form for valid input
// (check), and the parts (validate: validFrom, the decode loop escapeLong uses for short
// remainders; vector: archValid alone; inplace: escapeBody straight into a buffer without the
// valid form, the lower bound of the scratch way). checkPays is the rule drawn from it.
func BenchmarkScratch(b *testing.B) {
	k := defaultKernel
	for _, size := range []int{1 << 10, 4 << 10, 16 << 10, 64 << 10} {
		for _, name := range []string{"cyrillic", "cjk", "emoji", "french", "non-ascii", "ascii-eacute-random"} {
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
				b.Run(pre+"check", func(b *testing.B) {
					b.SetBytes(int64(n))
					for range b.N {
						valid, _ := archValid(k, src)
						buf, _, _ = escapeBody(buf, 0, src, 0, &ctxs[0], k, valid)
					}
				})
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

// TestCheckPays checks escapeLong's choice between the vector check and the scratch buffer
// (checkPays) on the corpora it was measured on, and its count of bytes >= 0xF0 (bits 7 to 4
// ANDed within each byte of a word) against a byte loop on random text around its threshold.
func TestCheckPays(t *testing.T) {
	for _, c := range []struct {
		corpus string
		size   int
		want   bool
	}{
		{"emoji", 256, true}, {"emoji", 4 << 10, true}, {"emoji", 64 << 10, true}, {"emoji", 255, false},
		{"non-ascii", 4 << 10, false}, {"non-ascii", 64 << 10, true},
		{"cyrillic", 4 << 10, false}, {"cyrillic", 64 << 10, true},
		{"cjk", 4 << 10, false}, {"cjk", 64 << 10, true},
		{"french", 64 << 10, false}, {"ascii-eacute-random", 64 << 10, false},
	} {
		co, _ := corpus.Lookup(c.corpus)
		s := co.Make(c.size)
		for len(s) > 0 && s[0] < 0x80 {
			s = s[1:] // from the first byte >= 0x80, as escapeLong calls it
		}
		if got := checkPays(s); got != c.want {
			t.Errorf("checkPays(%s, %d bytes) = %v, want %v", c.corpus, len(s), got, c.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	s := make([]byte, 256)
	for range 4000 {
		// A 4-byte lead first (or, one time in four, another byte >= 0x80), bytes below
		// 0xF0, then up to 15 at or above it at random places among the first 64: around
		// the threshold of 8.
		for i := range s {
			s[i] = byte(r.IntN(0xF0))
		}
		s[0] = 0xF0
		for range r.IntN(16) {
			s[r.IntN(64)] = byte(0xF0 + r.IntN(16))
		}
		if r.IntN(4) == 0 {
			s[0] = byte(0x80 + r.IntN(0x70)) // not a 4-byte lead first: no check
		}
		four := 0
		for _, b := range s[:64] {
			if b >= 0xF0 {
				four++
			}
		}
		if got := checkPays(s); got != (four >= 8 && s[0] >= 0xF0) {
			t.Fatalf("checkPays(% x) = %v with %d bytes >= 0xF0 in the first 64", s[:64], got, four)
		}
	}
}
