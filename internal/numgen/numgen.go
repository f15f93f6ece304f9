// Package numgen generates numeric and near-numeric strings for JSON_NUMERIC_CHECK (spec §1.7):
// the space the conformance test against PHP draws from, and the random campaign's numeric
// inputs. It holds no behaviour of json_encode: it only writes strings, and whether each is
// numeric is for the oracle (and PHP) to say.
package numgen

// Spaces are the six bytes PHP's is_numeric_string skips before and after a number.
const Spaces = " \t\n\r\v\f"

// nearOverflow are integers at the edges of int64 and uint64, where is_numeric_string switches
// from a long to a double (spec §1.7.1 rule N8).
var nearOverflow = []string{
	"9223372036854775807", "9223372036854775808", "9223372036854775809", "9223372036854775806",
	"922337203685477580", "92233720368547758070", "9999999999999999999", "1000000000000000000",
	"10000000000000000000", "18446744073709551615", "18446744073709551616", "9223372036854775800",
	"92233720368547758080", // 20 digits whose first 19 are -(math.MinInt64)
}

// specials are doubles at the edges of the format and of the range: subnormals, the smallest
// normal, the largest finite double and just above it, and the exponent-form switches.
var specials = []string{
	"4.9e-324", "5e-324", "2.4703282292062328e-324", "2.4703282292062327e-324", "1e-323",
	"2.2250738585072014e-308", "2.225073858507201e-308", "2.2250738585072011e-308",
	"1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "1.8e308",
	"0.0001", "0.00001", "0.00009999999999999999", "1e16", "1e17", "99999999999999999",
	"9007199254740993", "0.1", "0.30000000000000004", "123456789012345678901234567890",
	"1e-400", "1e400", "0e400", "0.0", ".0", "0.", "-0", "-0.0", "1.5", "100000000000000000000",
}

// nearMisses are characters inserted into numbers to make near-misses: letters a scanner might
// take for part of a number, separators, NUL, other whitespace, a non-ASCII digit's bytes.
var nearMisses = []string{
	"x", "X", "e", "E", ".", "+", "-", " ", "\x00", "a", "_", ",", "i", "n", "f", "0x", "\u00a0",
	"\u0661", "\x85", "\x80", "\x1f", "\x7f", "d", "D", "#", "'", "/", "\"",
}

// Append appends one string of the numeric space to b and returns it: an optionally signed
// integer of 1–25 digits (sometimes with leading zeros), a near-overflow integer, a decimal
// (digits on either side of the point, or both), or a special double, with an optional
// exponent (e or E, optional sign, value −400..400, sometimes with leading zeros), optional
// leading and trailing whitespace of the six kinds, and, one time in four, a near-miss: a
// character inserted (or one removed) anywhere. intn(n) returns a uniform int in [0, n);
// pass a seeded math/rand's Intn or IntN.
func Append(b []byte, intn func(int) int) []byte {
	start := len(b)
	if intn(2) == 0 {
		b = appendSpaces(b, intn)
	}
	switch intn(10) {
	case 0, 1:
	case 2:
		b = append(b, '-')
	case 3:
		b = append(b, '+')
	default:
		if intn(3) == 0 {
			b = append(b, '-')
		}
	}
	switch k := intn(10); {
	case k < 3: // integer digits 1–25 long
		b = appendDigits(b, 1+intn(25), intn)
	case k < 4:
		if intn(3) == 0 {
			b = append(b, "000"[:1+intn(3)]...)
		}
		b = append(b, nearOverflow[intn(len(nearOverflow))]...)
	case k < 8: // a decimal: digits on either side of the point
		switch intn(4) {
		case 0:
			b = appendDigits(append(b, '.'), 1+intn(20), intn)
		case 1:
			b = append(appendDigits(b, 1+intn(20), intn), '.')
		default:
			b = appendDigits(b, 1+intn(12), intn)
			b = appendDigits(append(b, '.'), 1+intn(18), intn)
		}
	default:
		b = append(b, specials[intn(len(specials))]...)
	}
	if intn(5) < 2 {
		b = append(b, "eE"[intn(2)])
		switch intn(3) {
		case 0:
			b = append(b, '-')
		case 1:
			b = append(b, '+')
		}
		if intn(6) == 0 {
			b = append(b, '0')
		}
		e := intn(401)
		if intn(4) == 0 {
			e = intn(31) // small exponents are the common ones
		}
		b = appendInt(b, e)
	}
	if intn(2) == 0 {
		b = appendSpaces(b, intn)
	}
	if intn(4) == 0 && len(b) > start {
		at := start + intn(len(b)-start+1)
		if intn(4) == 0 && at < len(b) {
			b = append(b[:at], b[at+1:]...) // a character removed
		} else {
			m := nearMisses[intn(len(nearMisses))]
			b = append(b[:at], append([]byte(m), b[at:]...)...)
		}
	}
	return b
}

func appendSpaces(b []byte, intn func(int) int) []byte {
	for n := 1 + intn(3); n > 0; n-- {
		b = append(b, Spaces[intn(len(Spaces))])
	}
	return b
}

func appendDigits(b []byte, n int, intn func(int) int) []byte {
	if intn(6) == 0 {
		b = append(b, '0') // a leading zero now and then
		n--
	}
	for ; n > 0; n-- {
		b = append(b, byte('0'+intn(10)))
	}
	return b
}

func appendInt(b []byte, v int) []byte {
	if v >= 10 {
		b = appendInt(b, v/10)
	}
	return append(b, byte('0'+v%10))
}
