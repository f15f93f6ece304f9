package oracle

import (
	"math"
	"strconv"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// numKind is what PHP 8.2's is_numeric_string() returns: 0, IS_LONG or IS_DOUBLE (spec §1.7.1).
type numKind int

const (
	notNumeric numKind = iota // 0: not a numeric string; json_encode escapes it as a string
	isLong                    // IS_LONG: an integer that fits a zend_long (int64)
	isDouble                  // IS_DOUBLE: a decimal point, an exponent or an integer beyond int64
)

// longMinDigits is zend_operators.c's long_min_digits: the 19 digits of -(math.MinInt64), to
// which a 19-digit integer is compared with strcmp (spec §1.7.1 rule N8).
const longMinDigits = "9223372036854775808"

// phpSpace is one of the six bytes is_numeric_string skips before and after the number
// (spec §1.7.1 rules N1, N7): space, \t, \n, \r, \v, \f. Not NUL, not any non-ASCII space.
func phpSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// phpDigit is ZEND_IS_DIGIT: an ASCII digit, and nothing else (no other Unicode digits).
func phpDigit(c byte) bool { return c >= '0' && c <= '9' }

// numericString is is_numeric_string(s, len, &lval, &dval, allow_errors=0) of PHP 8.2
// (Zend/zend_operators.c _is_numeric_string_ex; spec §1.7.1), read byte at a time as PHP's
// scanner reads it. It returns the kind and, for isLong, the integer; for isDouble, the
// double (which may be ±Inf: §1.7.1 rule N9 leaves that to the caller). s is never modified;
// s is not empty (json_encode tested that first, §1.2 step 1).
func numericString(s []byte) (kind numKind, lval int64, dval float64) {
	at := func(i int) byte { // PHP's strings end with a NUL that the scanner may read
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	i := 0
	for phpSpace(at(i)) {
		i++ // N1: leading whitespace, any amount of the six bytes
	}
	str := i // PHP's str: where the number, sign included, starts
	neg := false
	switch at(i) {
	case '-':
		neg = true // N2: one optional sign
		i++
	case '+':
		i++ // N2
	}

	double := false // IS_DOUBLE: a '.', an exponent, or too many digits for a long
	digits := 0     // significant integer digits: leading zeros are not counted
	switch {
	case phpDigit(at(i)):
		for at(i) == '0' {
			i++ // N3: leading zeros are skipped and not counted ("007" is 7)
		}
		for phpDigit(at(i)) {
			i++ // N3: the integer digits
			digits++
		}
		if at(i) == '.' {
			// N4: a decimal point after digits makes a double; the digits after it are
			// optional ("1." is 1.0, "1.e5" is 100000.0).
			double = true
			i++
			for phpDigit(at(i)) {
				i++
			}
		}
	case at(i) == '.' && phpDigit(at(i+1)):
		// N4: a number may start with its decimal point, if a digit follows (".5"; "." and
		// ".e5" are not numeric).
		double = true
		i++
		for phpDigit(at(i)) {
			i++
		}
	default:
		return notNumeric, 0, 0 // N2: no digit and no ".digit" after the sign (hex, INF, "", " ")
	}
	if c := at(i); c == 'e' || c == 'E' {
		// N5: an exponent, e or E, an optional sign and at least one digit; without a digit
		// it is not part of the number ("1e", "1e+" end the number before the e).
		j := i + 1
		if at(j) == '-' || at(j) == '+' {
			j++
		}
		if phpDigit(at(j)) {
			double = true
			for i = j; phpDigit(at(i)); i++ {
			}
		}
	}
	end := i // the number ends here
	for phpSpace(at(i)) {
		i++ // N7: trailing whitespace, since PHP 8.0, any amount of the six bytes
	}
	if i != len(s) {
		return notNumeric, 0, 0 // N6: anything else left over (NUL included): not numeric
	}

	if !double && digits > len(longMinDigits) {
		double = true // N8: 20 or more significant digits never fit a long
	}
	if !double && digits == len(longMinDigits) {
		// N8: 19 digits are compared with "9223372036854775808" by strcmp, which reads on past
		// the digits into the trailing whitespace (if any) to the NUL. Below it: a long. Above
		// it, or equal and followed by whitespace: a double. Equal and at the end: a long only
		// when negative (-9223372036854775808 is math.MinInt64).
		sig := string(s[end-digits : end])
		switch {
		case sig < longMinDigits:
		case sig == longMinDigits && end == len(s) && neg:
		default:
			double = true
		}
	}
	if double {
		return isDouble, 0, zendStrtod(s[str:end]) // N9
	}
	var u uint64
	for _, c := range s[end-digits : end] {
		u = u*10 + uint64(c-'0') // N10: the integer, accumulated as an unsigned long
	}
	if neg {
		u = -u // N10: negated (-9223372036854775808 wraps to itself)
	}
	return isLong, int64(u), 0
}

// zendStrtod is zend_strtod on a number the scanner accepted (sign, digits, '.', digits,
// exponent; spec §1.7.1 N9): the nearest double, ±Inf out of range, 0 or a subnormal on
// underflow. Two things of zend_strtod (David Gay's strtod) are written out rather than left to
// strconv: an exponent above 19999, or of more than 8 significant digits, counts as 19999; and
// the value is handed to strconv as 0.DIGITS e POINT (leading zeros gone), because strconv's slow
// path loses the scale of an integer part over 800 digits. It allocates only for numbers of
// more than about 60 significant digits.
func zendStrtod(num []byte) float64 {
	i := 0
	neg := num[i] == '-'
	if num[i] == '-' || num[i] == '+' {
		i++
	}
	var buf [64]byte
	text := append(buf[:0], "0."...)
	sig := 0      // significant digits so far (after the leading zeros)
	point := 0    // value = 0.DIGITS × 10^point
	seen := false // past the decimal point
	for ; i < len(num) && (phpDigit(num[i]) || num[i] == '.'); i++ {
		switch c := num[i]; {
		case c == '.':
			seen = true
		case c == '0' && sig == 0:
			if seen {
				point-- // a zero between the point and the first significant digit
			}
		default:
			text, sig = append(text, c), sig+1
			if !seen {
				point++ // an integer digit
			}
		}
	}
	exp := 0
	if i < len(num) { // e or E, an optional sign, digits (the scanner checked)
		i++
		eneg := num[i] == '-'
		if num[i] == '-' || num[i] == '+' {
			i++
		}
		for i < len(num) && num[i] == '0' {
			i++
		}
		from := i
		for ; i < len(num); i++ {
			if i-from < 9 {
				exp = exp*10 + int(num[i]-'0')
			}
		}
		if i-from > 8 || exp > 19999 {
			exp = 19999 // zend_strtod: "avoid confusion from exponents so large that e might overflow"
		}
		if eneg {
			exp = -exp
		}
	}
	if sig == 0 {
		if neg {
			return math.Copysign(0, -1)
		}
		return 0
	}
	text = append(text, 'e')
	text = strconv.AppendInt(text, int64(point+exp), 10)
	d, _ := strconv.ParseFloat(string(text), 64) // ±Inf out of range
	if neg {
		d = -d
	}
	return d
}

// appendDouble appends d as json_encode writes a double with serialize_precision = -1
// (ext/json php_json_encode_double: php_gcvt(d, 17, '.', 'e') in its shortest round-trip
// mode; spec §1.7.2). d is finite. The number is written aside and appended at once, so that
// nothing lands in dst's spare capacity when the append has to grow it.
func appendDouble(dst []byte, d float64, zeroFrac bool) []byte {
	var num [32]byte // at most 24 bytes: -d.16 digits e-324, plus ".0"
	return append(dst, formatDouble(num[:0], d, zeroFrac)...)
}

// formatDouble is appendDouble into dst, which has room.
func formatDouble(dst []byte, d float64, zeroFrac bool) []byte {
	// F1: the shortest digits that read back as d (zend_dtoa mode 0), and the decimal point
	// position decpt: d = 0.DIGITS × 10^decpt. strconv's 'e' format gives the same digits as
	// d.ddd e±x, so decpt = x + 1. Zero has the digit "0" and decpt 1.
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], d, 'e', -1, 64)
	neg := e[0] == '-'
	if neg {
		e = e[1:]
	}
	var digitBuf [17]byte // at most 17 significant digits round-trip any double
	digits := digitBuf[:0]
	k := 0
	for ; e[k] != 'e'; k++ {
		if e[k] != '.' {
			digits = append(digits, e[k])
		}
	}
	x := 0
	for _, c := range e[k+2:] {
		x = x*10 + int(c-'0')
	}
	if e[k+1] == '-' {
		x = -x
	}
	decpt := x + 1

	start := len(dst)
	if neg {
		dst = append(dst, '-') // F2: a minus sign for every negative d, -0 included ("-0")
	}
	switch {
	case decpt < -3 || decpt > 17:
		// F3: exponent form when decpt < -3 (below 0.0001) or decpt > 17 (1e17 and up): the
		// first digit, '.', the other digits or a single 0, 'e', the sign always, and the
		// exponent decpt-1 in decimal without leading zeros (1.0e+25, 5.0e-324,
		// 9.223372036854776e+18).
		dst = append(dst, digits[0], '.')
		if len(digits) == 1 {
			dst = append(dst, '0')
		} else {
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if decpt-1 < 0 {
			dst = append(dst, '-')
		} else {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(abs(decpt-1)), 10)
	case decpt <= 0:
		// F4: 0.0001 up to below 1: "0.", -decpt zeros, the digits (0.5, 0.0001).
		dst = append(dst, '0', '.')
		for i := decpt; i < 0; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		// F5: 1 up to below 1e17: the digits, padded with zeros up to the decimal point, then
		// '.' and the rest if any digits are left (1000, 12345678901234568, 1.5).
		for i := 0; i < decpt; i++ {
			if i < len(digits) {
				dst = append(dst, digits[i])
			} else {
				dst = append(dst, '0')
			}
		}
		if decpt < len(digits) {
			dst = append(dst, '.')
			dst = append(dst, digits[decpt:]...)
		}
	}
	if zeroFrac {
		// F6: PRESERVE_ZERO_FRACTION appends ".0" when what was written has no '.' (1000.0,
		// -0.0); the exponent form always has one.
		dot := false
		for _, c := range dst[start:] {
			dot = dot || c == '.'
		}
		if !dot {
			dst = append(dst, '.', '0')
		}
	}
	return dst
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// escapeNumber is §1.2 step 2 (spec §1.7): under NUMERIC_CHECK a numeric string is written as
// the number and done is true. A string that is not numeric, or whose double is ±Inf, is left
// to the string escaper (done false, dst unchanged).
func escapeNumber(dst, src []byte, o *optionSet) (out []byte, done bool) {
	switch kind, l, d := numericString(src); {
	case kind == isLong:
		// §1.7.2 rule F0: an IS_LONG is written as a decimal integer (smart_str_append_long):
		// "007" is 7, "-0" is 0; PRESERVE_ZERO_FRACTION adds nothing.
		return strconv.AppendInt(dst, l, 10), true
	case kind == isDouble && !isInf(d):
		// §1.7.2 rules F1..F6: a finite double, in PHP's format; PRESERVE_ZERO_FRACTION is read
		// only here.
		return appendDouble(dst, d, o.has(jsonopt.PreserveZeroFraction)), true
	default:
		// §1.7 (K11): not numeric, or a double that is ±Inf ("1e999"): escaped as a string.
		return dst, false
	}
}

func isInf(d float64) bool { return d > 1.7976931348623157e308 || d < -1.7976931348623157e308 }
