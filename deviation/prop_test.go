package deviation

import (
	"math/rand/v2"
	"testing"

	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
)

// randomBytes is n bytes drawn mostly from the bytes that matter to a decoder (leads,
// continuation bytes, ASCII that needs escaping, 'a').
func randomBytes(r *rand.Rand, n int) []byte {
	pool := []byte{0x00, 0x0a, 0x1f, '"', '/', '\\', '<', 'a', 0x7f, 0x80, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xc3, 0xdf, 0xe0, 0xe1, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff}
	b := make([]byte, n)
	for i := range b {
		if r.IntN(4) == 0 {
			b[i] = byte(r.IntN(256))
		} else {
			b[i] = pool[r.IntN(len(pool))]
		}
	}
	return b
}

// Any input and any candidate answer is described without a panic, and PHP's own answer has
// no deviation: 30,000 random cases of each operation (5,000 under -short).
func TestRandomAnswers(t *testing.T) {
	cases := 30000
	if testing.Short() {
		cases = 5000
	}
	r := rand.New(rand.NewPCG(1, 2))
	opts := []jsonopt.Options{0, jsonopt.InvalidUTF8Substitute, jsonopt.InvalidUTF8Ignore, jsonopt.UnescapedUnicode | jsonopt.InvalidUTF8Substitute,
		jsonopt.HexTag | jsonopt.UnescapedSlashes, jsonopt.PartialOutputOnError}
	for range cases {
		in := randomBytes(r, r.IntN(24))
		o := opts[r.IntN(len(opts))]
		want, err := oracle.Escape(nil, in, o)
		code := 0
		if err != nil {
			code = int(jsonopt.ErrorUTF8)
		}
		if ds := Escape(in, o, want, code, err != nil && len(want) == 0); len(ds) != 0 {
			t.Fatalf("Escape(% x, %v) of PHP's own answer: %v", in, o, ds)
		}
		Escape(in, o, randomBytes(r, r.IntN(40)), 0, false)
		if got := oracle.UTF8Decode(nil, in); len(UTF8Decode(in, got)) != 0 {
			t.Fatalf("UTF8Decode(% x) of PHP's own answer deviates", in)
		}
		UTF8Decode(in, randomBytes(r, r.IntN(30)))
		if len(in) > 0 {
			pos := r.IntN(len(in))
			if len(Step(in, pos, oracle.NextChar(in, pos))) != 0 {
				t.Fatalf("Step(% x, %d) of PHP's own step deviates", in, pos)
			}
			Step(in, pos, jsonopt.Step{CP: uint32(r.IntN(0x110000)), Advance: 1 + r.IntN(4), OK: r.IntN(2) == 0})
		}
	}
}
