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

// nearMiss is b changed as faulty candidates change PHP's answers: a byte dropped, repeated,
// replaced or inserted, a run repeated, the last byte dropped (a few times over).
func nearMiss(r *rand.Rand, b []byte) []byte {
	out := append([]byte(nil), b...)
	for range 1 + r.IntN(3) {
		if len(out) == 0 {
			return append(out, randomBytes(r, 1)...)
		}
		i := r.IntN(len(out))
		switch r.IntN(6) {
		case 0:
			out = append(out[:i], out[i+1:]...)
		case 1:
			out = append(out[:i+1], out[i:]...)
		case 2:
			out[i] = randomBytes(r, 1)[0]
		case 3:
			out = append(out[:i], append(randomBytes(r, 1), out[i:]...)...)
		case 4:
			j := min(len(out), i+1+r.IntN(6))
			out = append(out[:j], append(append([]byte(nil), out[i:j]...), out[j:]...)...)
		default:
			out = out[:len(out)-1]
		}
	}
	return out
}

// Any input and any candidate answer is described without a panic, and PHP's own answer has
// no deviation: 30,000 random cases of each operation (5,000 under -short), each with a
// random answer and one near PHP's (nearMiss).
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
		if err == nil {
			Escape(in, o, nearMiss(r, want), 0, false)
		} else if sub, err := oracle.Escape(nil, in, o|jsonopt.InvalidUTF8Substitute); err == nil {
			Escape(in, o, nearMiss(r, sub), 0, false) // an answer where PHP has none
		}
		if got := oracle.UTF8Decode(nil, in); len(UTF8Decode(in, got)) != 0 {
			t.Fatalf("UTF8Decode(% x) of PHP's own answer deviates", in)
		} else {
			UTF8Decode(in, nearMiss(r, got))
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
