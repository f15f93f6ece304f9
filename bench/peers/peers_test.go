package peers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"unsafe"

	"github.com/bytedance/sonic/encoder"
	gojson "github.com/goccy/go-json"
	segjson "github.com/segmentio/encoding/json"

	"github.com/difffuzz/difffuzz/corpus"
	"github.com/difffuzz/difffuzz/fast"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// phpOpts is the PHP option set under which json_encode of a string does the peers' work:
// they escape only '"', '\\' and controls (no '/', no HTML characters: each is configured so),
// write other valid UTF-8 unchanged, and escape U+2028/U+2029 as \u2028/\u2029, as PHP does
// under UNESCAPED_UNICODE without UNESCAPED_LINE_TERMINATORS.
const phpOpts = jsonopt.UnescapedSlashes | jsonopt.UnescapedUnicode

// escaper appends the JSON string of s to dst.
type escaper struct {
	name string
	f    func(dst, s []byte) []byte
}

// str is s as a string without a copy (the peers take strings; converting would time an
// allocation and a copy of the input that fast does not make). s is never modified.
func str(s []byte) string { return unsafe.String(unsafe.SliceData(s), len(s)) }

func escapers() []escaper {
	var buf bytes.Buffer
	std := json.NewEncoder(&buf)
	std.SetEscapeHTML(false)
	var gbuf bytes.Buffer
	goccy := gojson.NewEncoder(&gbuf)
	goccy.SetEscapeHTML(false)
	return []escaper{
		{"fast", func(dst, s []byte) []byte { out, _ := fast.Escape(dst, s, phpOpts); return out }},
		{"sonic", func(dst, s []byte) []byte {
			_ = encoder.EncodeInto(&dst, str(s), encoder.ValidateString)
			return dst
		}},
		// The Encoders write into their own buffer: its bytes are the result (no copy to dst).
		{"goccy", func(dst, s []byte) []byte {
			gbuf.Reset()
			_ = goccy.Encode(str(s))
			return bytes.TrimSuffix(gbuf.Bytes(), []byte("\n"))
		}},
		{"segmentio", func(dst, s []byte) []byte { return segjson.AppendEscape(dst, str(s), 0) }},
		{"encoding-json", func(dst, s []byte) []byte {
			buf.Reset()
			_ = std.Encode(str(s))
			return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		}},
	}
}

// sizes are the sizes the peers are timed at.
var sizes = []int{4 << 10, 64 << 10}

// TestSameOutput checks that every peer writes exactly fast's output under phpOpts on every
// corpus and size, so that the benchmarks time the same work.
func TestSameOutput(t *testing.T) {
	for _, c := range corpus.All() {
		for _, n := range sizes {
			src := c.Make(n)
			want, err := fast.Escape(nil, src, phpOpts)
			if err != nil {
				t.Fatalf("%s/%d: fast: %v", c.Name, n, err)
			}
			for _, e := range escapers()[1:] {
				if got := e.f(nil, src); !bytes.Equal(got, want) {
					i := 0
					for i < len(got) && i < len(want) && got[i] == want[i] {
						i++
					}
					t.Errorf("%s/%d: %s differs from fast at byte %d: %q vs %q", c.Name, n, e.name, i,
						got[i:min(len(got), i+16)], want[i:min(len(want), i+16)])
				}
			}
		}
	}
}

// BenchmarkPeers times fast.Escape and each peer on every corpus and size under phpOpts, and
// copy() of the output's size (the write bound); compare the rows of one corpus and size.
func BenchmarkPeers(b *testing.B) {
	for _, c := range corpus.All() {
		for _, n := range sizes {
			src := c.Make(n)
			out, _ := fast.Escape(nil, src, phpOpts)
			for _, e := range escapers() {
				b.Run(fmt.Sprintf("corpus=%s/size=%s/impl=%s", c.Name, corpus.SizeName(n), e.name), func(b *testing.B) {
					dst := e.f(nil, src)
					b.SetBytes(int64(n))
					for range b.N {
						dst = e.f(dst[:0], src)
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
