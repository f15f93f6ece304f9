package peers

import (
	"bytes"
	"encoding/json"
	"unsafe"

	"github.com/bytedance/sonic/encoder"
	gojson "github.com/goccy/go-json"
	segjson "github.com/segmentio/encoding/json"

	"github.com/difffuzz/difffuzz/fast"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// PHPOpts is the PHP option set under which json_encode of a string does the peers' work:
// they escape only '"', '\\' and controls (no '/', no HTML characters: each is configured so),
// write other valid UTF-8 unchanged, and escape U+2028/U+2029 as \u2028/\u2029, as PHP does
// under UNESCAPED_UNICODE without UNESCAPED_LINE_TERMINATORS.
const PHPOpts = jsonopt.UnescapedSlashes | jsonopt.UnescapedUnicode

// Escaper appends the JSON string of s to dst.
type Escaper struct {
	Name string
	F    func(dst, s []byte) []byte
}

// str is s as a string without a copy (the peers take strings; converting would time an
// allocation and a copy of the input that fast does not make). s is never modified.
func str(s []byte) string { return unsafe.String(unsafe.SliceData(s), len(s)) }

// Escapers are fast.Escape under PHPOpts (first) and the peers, each configured to do the same
// work. The Encoders' results alias their own buffer until the next call.
func Escapers() []Escaper {
	var buf bytes.Buffer
	std := json.NewEncoder(&buf)
	std.SetEscapeHTML(false)
	var gbuf bytes.Buffer
	goccy := gojson.NewEncoder(&gbuf)
	goccy.SetEscapeHTML(false)
	return []Escaper{
		{"fast", func(dst, s []byte) []byte { out, _ := fast.Escape(dst, s, PHPOpts); return out }},
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
