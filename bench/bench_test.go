package bench

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/difffuzz/difffuzz/corpus"
	"github.com/difffuzz/difffuzz/fast"
	"github.com/difffuzz/difffuzz/internal/numgen"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
)

type escapeFunc = func(dst, src []byte, opts jsonopt.Options) ([]byte, error)
type decodeFunc = func(dst, src []byte) []byte

// escapeImpls are oracle, fast (the entry point, which dispatches to the best variant: what
// `make benchcmp` compares between the pure-Go and the assembly build) and every fast variant,
// in that order.
func escapeImpls() (names []string, fs []escapeFunc) {
	names, fs = []string{"oracle", "fast"}, []escapeFunc{oracle.Escape, fast.Escape}
	for _, v := range fast.Variants() {
		names, fs = append(names, v.Name), append(fs, v.Escape)
	}
	return
}

func decodeImpls() (names []string, fs []decodeFunc) {
	names, fs = []string{"oracle", "fast"}, []decodeFunc{oracle.UTF8Decode, fast.UTF8Decode}
	for _, v := range fast.Variants() {
		names, fs = append(names, v.Name), append(fs, v.UTF8Decode)
	}
	return
}

func BenchmarkEscape(b *testing.B)        { benchEscape(b, 0) }
func BenchmarkEscapeUnicode(b *testing.B) { benchEscape(b, jsonopt.UnescapedUnicode) }

func benchEscape(b *testing.B, opts jsonopt.Options) {
	names, fs := escapeImpls()
	for _, c := range corpus.All() {
		b.Run("corpus="+c.Name, func(b *testing.B) {
			for _, size := range corpus.Sizes {
				src := c.Make(size)
				b.Run("size="+corpus.SizeName(size), func(b *testing.B) {
					want, err := oracle.Escape(nil, src, opts)
					if err != nil {
						b.Fatalf("oracle.Escape: %v", err)
					}
					for i, f := range fs {
						b.Run("impl="+names[i], func(b *testing.B) {
							dst, err := f(nil, src, opts)
							if err != nil || !bytes.Equal(dst, want) {
								b.Fatalf("%s: output differs from the oracle's (err %v)", names[i], err)
							}
							b.SetBytes(int64(len(src)))
							b.ResetTimer()
							for range b.N {
								dst, _ = f(dst[:0], src, opts)
							}
						})
					}
					benchAnchors(b, src)
					// The write bound: copy() of the output's size (issue 36's floors are in
					// copies of it), timed per input byte like the rest.
					b.Run("impl=copy-output", func(b *testing.B) {
						out := make([]byte, len(want))
						b.SetBytes(int64(len(src)))
						for range b.N {
							copy(out, want)
						}
					})
					b.Run("impl=encoding-json", func(b *testing.B) {
						s := string(src)
						b.SetBytes(int64(len(src)))
						b.ReportAllocs()
						for range b.N {
							if _, err := json.Marshal(s); err != nil {
								b.Fatal(err)
							}
						}
					})
				})
			}
		})
	}
}

// benchAnchors runs the copy and append-quoted anchors on src.
func benchAnchors(b *testing.B, src []byte) {
	b.Run("impl=copy", func(b *testing.B) {
		dst := make([]byte, len(src))
		b.SetBytes(int64(len(src)))
		for range b.N {
			copy(dst, src)
		}
	})
	b.Run("impl=append-quoted", func(b *testing.B) {
		dst := make([]byte, 0, len(src)+2)
		b.SetBytes(int64(len(src)))
		for range b.N {
			dst = append(dst[:0], '"')
			dst = append(dst, src...)
			dst = append(dst, '"')
		}
	})
}

func BenchmarkUTF8Decode(b *testing.B) {
	names, fs := decodeImpls()
	for _, c := range corpus.All() {
		b.Run("corpus="+c.Name, func(b *testing.B) {
			for _, size := range corpus.Sizes {
				src := c.Make(size)
				b.Run("size="+corpus.SizeName(size), func(b *testing.B) {
					want := oracle.UTF8Decode(nil, src)
					for i, f := range fs {
						b.Run("impl="+names[i], func(b *testing.B) {
							dst := f(nil, src)
							if !bytes.Equal(dst, want) {
								b.Fatalf("%s: output differs from the oracle's", names[i])
							}
							b.SetBytes(int64(len(src)))
							b.ResetTimer()
							for range b.N {
								dst = f(dst[:0], src)
							}
						})
					}
					b.Run("impl=copy", func(b *testing.B) {
						dst := make([]byte, len(src))
						b.SetBytes(int64(len(src)))
						for range b.N {
							copy(dst, src)
						}
					})
				})
			}
		})
	}
}

// BenchmarkNumericCheck is JSON_NUMERIC_CHECK's cost to strings that are not numbers: fast's
// Escape on every corpus at 16 B and 4 KiB, without options and under NUMERIC_CHECK, side by
// side (`benchstat -col /opts`; the bound is 5 %). corpus=numbers times the number path
// itself: 1,024 numeric and near-numeric strings of internal/numgen per op, with and without.
func BenchmarkNumericCheck(b *testing.B) {
	run := func(b *testing.B, srcs [][]byte, n int) {
		for _, o := range []struct {
			name string
			opts jsonopt.Options
		}{{"none", 0}, {"NUMERIC_CHECK", jsonopt.NumericCheck}} {
			b.Run("opts="+o.name, func(b *testing.B) {
				var dst []byte
				for _, src := range srcs {
					want, _ := oracle.Escape(nil, src, o.opts)
					if got, _ := fast.Escape(nil, src, o.opts); string(got) != string(want) {
						b.Fatalf("fast.Escape(%q, %v) = %q; oracle %q", src, o.opts, got, want)
					}
				}
				b.SetBytes(int64(n))
				b.ResetTimer()
				for range b.N {
					for _, src := range srcs {
						dst, _ = fast.Escape(dst[:0], src, o.opts)
					}
				}
			})
		}
	}
	for _, c := range corpus.All() {
		b.Run("corpus="+c.Name, func(b *testing.B) {
			for _, size := range corpus.Sizes[:2] {
				src := c.Make(size)
				b.Run("size="+corpus.SizeName(size), func(b *testing.B) { run(b, [][]byte{src}, len(src)) })
			}
		})
	}
	r := rand.New(rand.NewPCG(1, 2))
	var srcs [][]byte
	total := 0
	for range 1024 {
		s := numgen.Append(nil, r.IntN)
		srcs, total = append(srcs, s), total+len(s)
	}
	b.Run("corpus=numbers/size=batch", func(b *testing.B) { run(b, srcs, total) })
}
