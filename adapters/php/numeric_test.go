package phpadapter_test

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/difffuzz/difffuzz/internal/numgen"
	"github.com/difffuzz/difffuzz/jsonopt"
)

const (
	numericCount      = 120000 // numeric and near-numeric strings, each under every numericOptions set
	shortNumericCount = 4000
)

// numericOptions are the option sets of TestConformanceNumeric: NUMERIC_CHECK alone and with
// PRESERVE_ZERO_FRACTION, PARTIAL_OUTPUT_ON_ERROR, the HEX_ and UNESCAPED_ options and
// INVALID_UTF8_IGNORE/SUBSTITUTE (a near-miss may hold invalid UTF-8), and once without it.
var numericOptions = []jsonopt.Options{
	jsonopt.NumericCheck,
	jsonopt.NumericCheck | jsonopt.PreserveZeroFraction,
	jsonopt.NumericCheck | jsonopt.PartialOutputOnError,
	jsonopt.NumericCheck | jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot | jsonopt.PreserveZeroFraction,
	jsonopt.NumericCheck | jsonopt.UnescapedUnicode | jsonopt.UnescapedSlashes | jsonopt.UnescapedLineTerminators,
	jsonopt.NumericCheck | jsonopt.InvalidUTF8Ignore,
	jsonopt.NumericCheck | jsonopt.InvalidUTF8Substitute | jsonopt.PreserveZeroFraction,
	jsonopt.NumericCheck | jsonopt.PreserveZeroFraction | jsonopt.InvalidUTF8Substitute | jsonopt.UnescapedUnicode | jsonopt.PartialOutputOnError | jsonopt.ThrowOnError,
	jsonopt.PreserveZeroFraction, // without NUMERIC_CHECK: always a string
}

// TestConformanceNumeric compares PHP with the oracle on numericCount strings of the numeric
// space of internal/numgen (signs, whitespace of each kind before and after, 1–25 digits,
// decimal points, exponents −400..400, near-overflow integers, subnormals, near-misses with a
// character inserted or removed, NUL bytes) under each of numericOptions, and on the facts of
// spectest.Numeric. It logs how many strings the oracle found numeric, so that a generator
// that stopped making numbers shows.
func TestConformanceNumeric(t *testing.T) {
	seed := conformanceSeed(t)
	n := numericCount
	if testing.Short() {
		n = shortNumericCount
	}
	r := rand.New(rand.NewPCG(seed, 0x6e756d65726963))
	k := newChecker(t)
	start := time.Now()
	numbers := 0
	var b []byte
	for i := 0; i < n; i++ {
		b = numgen.Append(b[:0], r.IntN)
		s := append([]byte(nil), b...)
		for _, o := range numericOptions {
			k.escape(s, o)
		}
		if want, ok := expectEscape(s, jsonopt.NumericCheck); ok && len(want.Result) > 0 && want.Result[0] != '"' {
			numbers++
		}
	}
	// Long numbers: zend_strtod's cap of the exponent at 19999 and integer parts of thousands of
	// digits (strconv's slow path loses their scale past 800), found by an adversarial run.
	z := strings.Repeat
	long := []string{"1" + z("0", 1000) + "e-1000", "1" + z("0", 2000) + "e-2000", z("9", 1000) + "e-1310",
		"0." + z("0", 19999) + "1e20000", "0." + z("0", 20005) + "1e20006", "1" + z("0", 20005) + "e-20005",
		"1" + z("0", 25000) + "e-25000", "-0." + z("0", 3000) + "e5", "1e19999", "1e-19999", "1e20000",
		"1e000000000000000000000400", "0e99999999999999999999"}
	for i := 0; i < 300; i++ {
		n := 60 + r.IntN(3000)
		b := []byte(pick(r, "", "-", "+"))
		for j := 0; j < n; j++ {
			b = append(b, byte('0'+r.IntN(10)))
		}
		switch r.IntN(4) {
		case 1:
			b = append(b[:len(b)/2], append([]byte("."), b[len(b)/2:]...)...)
		case 2, 3:
			b = append(append(b, pick(r, "e", "e-", "E+")...), strconv.Itoa(r.IntN(30000))...)
		}
		long = append(long, string(b))
	}
	for _, l := range long {
		for _, o := range numericOptions[:2] {
			k.escape([]byte(l), o)
		}
	}
	k.finish("numeric", start)
	t.Logf("numeric space: %d strings (seed %d), %d of them numbers to the oracle, %d option sets", n, seed, numbers, len(numericOptions))
	if numbers < n/4 || numbers > n*9/10 {
		t.Errorf("%d of %d strings are numbers to the oracle: the space should mix numbers and near-misses", numbers, n)
	}
}
