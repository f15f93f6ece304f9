package peers

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/difffuzz/difffuzz/corpus"
	"github.com/difffuzz/difffuzz/fast"
)

// sizes are the sizes the peers are timed at.
var sizes = []int{4 << 10, 64 << 10}

// TestSameOutput checks that every peer writes exactly fast's output under PHPOpts on every
// corpus and size, so that the benchmarks time the same work.
func TestSameOutput(t *testing.T) {
	for _, c := range corpus.All() {
		for _, n := range sizes {
			src := c.Make(n)
			want, err := fast.Escape(nil, src, PHPOpts)
			if err != nil {
				t.Fatalf("%s/%d: fast: %v", c.Name, n, err)
			}
			for _, e := range Escapers()[1:] {
				if got := e.F(nil, src); !bytes.Equal(got, want) {
					i := 0
					for i < len(got) && i < len(want) && got[i] == want[i] {
						i++
					}
					t.Errorf("%s/%d: %s differs from fast at byte %d: %q vs %q", c.Name, n, e.Name, i,
						got[i:min(len(got), i+16)], want[i:min(len(want), i+16)])
				}
			}
		}
	}
}

// BenchmarkPeers times fast.Escape and each peer on every corpus and size under PHPOpts, and
// copy() of the output's size (the write bound); compare the rows of one corpus and size.
func BenchmarkPeers(b *testing.B) {
	for _, c := range corpus.All() {
		for _, n := range sizes {
			src := c.Make(n)
			out, _ := fast.Escape(nil, src, PHPOpts)
			for _, e := range Escapers() {
				b.Run(fmt.Sprintf("corpus=%s/size=%s/impl=%s", c.Name, corpus.SizeName(n), e.Name), func(b *testing.B) {
					dst := e.F(nil, src)
					b.SetBytes(int64(n))
					for range b.N {
						dst = e.F(dst[:0], src)
					}
				})
			}
			b.Run(fmt.Sprintf("corpus=%s/size=%s/impl=copy", c.Name, corpus.SizeName(n)), func(b *testing.B) {
				dst := make([]byte, len(out))
				b.SetBytes(int64(n))
				for range b.N {
					copy(dst, out)
				}
			})
		}
	}
}
