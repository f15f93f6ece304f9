package fast_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/difffuzz/difffuzz/internal/numgen"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
)

// TestNumericCheck compares every variant with the oracle under JSON_NUMERIC_CHECK on the
// numeric space of internal/numgen, and on the same strings padded with whitespace to the
// lengths where the variants take their 16-, 32- and 64-byte paths, under NUMERIC_CHECK alone,
// with PRESERVE_ZERO_FRACTION, and with the options that change the string path. The tests'
// model (modelEscape), which TestCrossVariant and TestBuffers compare with, is checked against
// the oracle on the same strings.
func TestNumericCheck(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 4000
	}
	optsList := []jsonopt.Options{
		jsonopt.NumericCheck,
		jsonopt.NumericCheck | jsonopt.PreserveZeroFraction,
		jsonopt.NumericCheck | jsonopt.PreserveZeroFraction | jsonopt.InvalidUTF8Substitute | jsonopt.UnescapedUnicode | jsonopt.HexQuot,
		jsonopt.NumericCheck | jsonopt.PartialOutputOnError | jsonopt.UnescapedSlashes,
	}
	r := rand.New(rand.NewPCG(7, 7))
	var in []byte
	fails, numbers := 0, 0
	for i := 0; i < n; i++ {
		in = numgen.Append(in[:0], r.IntN)
		variants := [][]byte{in}
		for _, pad := range []int{16, 31, 32, 33, 64, 100} {
			if len(in) < pad {
				p := strings.Repeat(numgen.Spaces[r.IntN(6):][:1], pad-len(in))
				variants = append(variants, append([]byte(p), in...), append(append([]byte{}, in...), p...))
			}
		}
		for _, s := range variants {
			for _, o := range optsList {
				want, werr := oracle.Escape([]byte("<"), s, o)
				if o == jsonopt.NumericCheck && werr == nil && want[1] != '"' {
					numbers++
				}
				if m, code := modelEscape(s, o); code != jsonopt.ErrorCode(werr) || !bytes.Equal(m, want[1:]) {
					if fails++; fails <= 20 {
						t.Errorf("model: modelEscape(%q, %s) = %s, code %d; oracle %q, %v", s, o.Short(), show(m), code, want, werr)
					}
				}
				for _, im := range impls(t) {
					got, gerr := im.escape([]byte("<"), s, o)
					if gerr != werr || !bytes.Equal(got, want) {
						if fails++; fails <= 20 {
							t.Errorf("%s: Escape(%q, %s) = %q, %v; oracle %q, %v", im.name, s, o.Short(), got, gerr, want, werr)
						}
					}
				}
			}
		}
	}
	if numbers < n/2 {
		t.Errorf("only %d numbers among the strings: the numeric space is not numeric", numbers)
	}
}
