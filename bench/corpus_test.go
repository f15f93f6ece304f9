package bench

import (
	"bytes"
	"testing"

	"github.com/difffuzz/difffuzz/corpus"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
)

// TestCorpora checks that every implementation the benchmarks time agrees with the oracle on
// every corpus, at the benchmark sizes and at sizes around the vector kernels' block and loop
// thresholds, under both benchmarked option sets, so that `go test ./bench` alone proves
// that no benchmark measures a wrong answer.
func TestCorpora(t *testing.T) {
	names, fs := escapeImpls()
	sizes := append([]int{1, 15, 17, 31, 33, 63, 65, 127, 129, 161, 1000}, corpus.Sizes...)
	for _, c := range corpus.All() {
		for _, size := range sizes {
			src := c.Make(size)
			for _, opts := range []jsonopt.Options{0, jsonopt.UnescapedUnicode, jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot | jsonopt.UnescapedSlashes} {
				want, err := oracle.Escape(nil, src, opts)
				if err != nil {
					t.Fatalf("oracle.Escape(%s, %d bytes): %v", c.Name, size, err)
				}
				for i, f := range fs {
					dst := make([]byte, 0, 8*size+64) // room: the output goes into dst's capacity
					got, err := f(dst, src, opts)
					if err != nil || !bytes.Equal(got, want) {
						t.Errorf("%s: Escape(%s, %d bytes, %s) differs from the oracle (err %v)", names[i], c.Name, size, opts, err)
					}
				}
			}
		}
	}
	dnames, dfs := decodeImpls()
	for _, c := range corpus.All() {
		src := c.Make(4096)
		want := oracle.UTF8Decode(nil, src)
		for i, f := range dfs {
			if got := f(nil, src); !bytes.Equal(got, want) {
				t.Errorf("%s: UTF8Decode(%s) differs from the oracle", dnames[i], c.Name)
			}
		}
	}
}
