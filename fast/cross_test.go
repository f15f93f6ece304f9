package fast_test

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/difffuzz/difffuzz/internal/numgen"
	"github.com/difffuzz/difffuzz/jsonopt"
)

var (
	crossSeed = flag.Uint64("cross.seed", 1, "seed of TestCrossVariant's random strings")
	crossN    = flag.Int("cross.n", 300000, "number of random strings in TestCrossVariant (a tenth with -short)")
)

// byte classes the random strings are drawn from.
var (
	asciiBytes   = []byte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;-_!?()[]{}=+*#~\x7f")
	specialBytes = []byte("\"\\/<>&'")
	validSeqs    = []string{"é", "ж", "ß", "\u0080", "\u07ff", "€", "中", "\u0800", "\u2027", "\u2028", "\u2029",
		"\ufeff", "\uffff", "\ud7ff", "\ue000", "😀", "\U00010000", "\U0010ffff", "𝄞"}
	invalidSeqs = []string{"\x80", "\xbf", "\xc0", "\xc1", "\xc3", "\xe2\x82", "\xe0\x80", "\xed\xa0\x80", "\xf0\x9f\x98",
		"\xf4\x90\x80\x80", "\xf0\x80\x80\x80", "\xf5", "\xff", "\xfe", "\xe0", "\xf0", "\xf4"}
)

// randomString appends n random units to b, drawn with weights that are themselves random
// per string, so that some strings are nearly clean and others nearly all escapes.
func randomString(r *rand.Rand, b []byte, n int) []byte {
	var w [6]int
	total := 0
	for i := range w {
		w[i] = r.IntN(8)
		if r.IntN(3) == 0 {
			w[i] = 0
		}
		total += w[i]
	}
	if total == 0 {
		w[0], total = 1, 1
	}
	for len(b) < n {
		k := r.IntN(total)
		class := 0
		for k >= w[class] {
			k -= w[class]
			class++
		}
		switch class {
		case 0:
			b = append(b, asciiBytes[r.IntN(len(asciiBytes))])
		case 1:
			b = append(b, specialBytes[r.IntN(len(specialBytes))])
		case 2:
			b = append(b, byte(r.IntN(0x20)))
		case 3:
			b = append(b, validSeqs[r.IntN(len(validSeqs))]...)
		case 4:
			b = append(b, invalidSeqs[r.IntN(len(invalidSeqs))]...)
		case 5:
			b = append(b, byte(0x80+r.IntN(0x80)))
		}
	}
	return b
}

// randomOpts is a random subset of the string options, sometimes with bits that have no effect
// on strings.
func randomOpts(r *rand.Rand) jsonopt.Options {
	o := jsonopt.Combo(r.IntN(jsonopt.NumStringCombos))
	if r.IntN(4) == 0 {
		o |= jsonopt.PrettyPrint | jsonopt.ForceObject | jsonopt.ThrowOnError
	}
	return o
}

// TestCrossVariant runs every implementation on random strings with random options: all must
// agree with each other and with the tests' model, on Escape and UTF8Decode. One string in
// eight comes from the numeric space (internal/numgen), so that the option sets with
// NUMERIC_CHECK (half of them) meet numbers, near-misses and Inf, not only strings that a
// first- or last-byte test rules out.
func TestCrossVariant(t *testing.T) {
	ims := impls(t)
	n := *crossN
	if testing.Short() {
		n /= 10
	}
	t.Logf("seed %d (-cross.seed), %d strings", *crossSeed, n)
	r := rand.New(rand.NewPCG(*crossSeed, 0x5eed))
	var src, dst []byte
	numbers := 0
	for i := 0; i < n; i++ {
		size := r.IntN(24)
		if r.IntN(8) == 0 {
			size = r.IntN(300)
		}
		if r.IntN(8) == 0 {
			src = numgen.Append(src[:0], r.IntN)
		} else {
			src = randomString(r, src[:0], size)
		}
		opts := randomOpts(r)
		want, code := modelEscape(src, opts)
		if opts&jsonopt.NumericCheck != 0 && len(want) > 0 && want[0] != '"' && want[0] != 'n' {
			numbers++ // a number (not a string, not null)
		}
		for _, im := range ims {
			got, err := im.escape(dst[:0], src, opts)
			if jsonopt.ErrorCode(err) != code || !bytes.Equal(got, want) && !(want == nil && len(got) == 0) {
				t.Fatalf("%s: Escape(%q, %s) = %q, %v; want %s, code %d", im.name, src, opts, got, err, show(want), code)
			}
			dst = got
		}
		if i%4 == 0 {
			wantD := modelUTF8Decode(src)
			for _, im := range ims {
				if got := im.utf8Decode(dst[:0], src); !bytes.Equal(got, wantD) {
					t.Fatalf("%s: UTF8Decode(%q) = %q; want %q", im.name, src, got, wantD)
				}
			}
		}
	}
	t.Logf("%d escapes under NUMERIC_CHECK wrote a number", numbers)
	if numbers < n/40 {
		t.Errorf("only %d of %d escapes wrote a number: NUMERIC_CHECK is barely exercised", numbers, n)
	}
}
