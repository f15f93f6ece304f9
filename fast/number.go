package fast

import (
	"bytes"
	"math"
	"strconv"
	"unsafe"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// numClass classifies bytes for JSON_NUMERIC_CHECK (spec §1.7): numFirst for a byte a numeric
// string may start with (a digit, '.', a sign or one of PHP's six whitespace bytes), numLast
// for one it may end with (a digit, '.' or whitespace), numDigit for '0'..'9', numSpace for the
// whitespace bytes. Two lookups reject almost every string that is not a number.
var numClass = func() (t [256]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] = numFirst | numLast | numDigit
	}
	for _, c := range []byte(" \t\n\r\v\f") {
		t[c] = numFirst | numLast | numSpace
	}
	t['.'] = numFirst | numLast
	t['+'], t['-'] = numFirst, numFirst
	return t
}()

const (
	numFirst = 1 << iota
	numLast
	numDigit
	numSpace
)

// startClass is numClass for a string's first byte on the 16-to-31-byte clean path: bit 0 for a
// byte >= 0x80 (never clean), bit 5 for a byte a number may start with (numFirst), so that one
// load tests both, the second only under NUMERIC_CHECK (bit 5 of the options).
var startClass = func() (t [256]uint8) {
	for c := range t {
		if c >= 0x80 {
			t[c] = 1
		}
		if numClass[c]&numFirst != 0 {
			t[c] |= uint8(jsonopt.NumericCheck)
		}
	}
	return t
}()

// cleanStart reports whether a 16-to-31-byte string starting with c may take the clean path
// under opts: c is ASCII and, under NUMERIC_CHECK, cannot start a number.
func cleanStart(c byte, opts jsonopt.Options) bool {
	return startClass[c]&(1|uint8(opts&jsonopt.NumericCheck)) == 0
}

// mayBeNumber reports whether src (not empty) passes the first- and last-byte test of a
// numeric string; a false answer is final.
func mayBeNumber(src []byte) bool {
	return numClass[src[0]]&numFirst != 0 && numClass[src[len(src)-1]]&numLast != 0
}

// appendNumber is json_encode's NUMERIC_CHECK path (spec §1.2 step 2, §1.7): when src is a
// numeric string whose value is not ±Inf, it appends the number as PHP writes it and reports
// true; otherwise it reports false and dst is unchanged.
func appendNumber(dst, src []byte, opts jsonopt.Options) ([]byte, bool) {
	n := len(src)
	if n == 0 || !mayBeNumber(src) {
		return dst, false
	}
	i := 0
	for i < n && numClass[src[i]]&numSpace != 0 {
		i++
	}
	start := i
	neg := false
	if i < n && (src[i] == '-' || src[i] == '+') {
		neg = src[i] == '-'
		i++
	}
	afterSign := i
	for i < n && src[i] == '0' {
		i++
	}
	sig := i
	var v uint64
	for i < n && numClass[src[i]]&numDigit != 0 {
		if i-sig < 19 {
			v = v*10 + uint64(src[i]-'0')
		}
		i++
	}
	digits := i - sig
	intDigits := i > afterSign // any integer digit, leading zeros included
	isDouble := false
	if i < n && src[i] == '.' {
		j := i + 1
		for j < n && numClass[src[j]]&numDigit != 0 {
			j++
		}
		if !intDigits && j == i+1 {
			return dst, false // "." or "-." without a digit on either side
		}
		i, isDouble = j, true
	} else if !intDigits {
		return dst, false
	}
	if i < n && src[i]|0x20 == 'e' {
		j := i + 1
		if j < n && (src[j] == '-' || src[j] == '+') {
			j++
		}
		if j < n && numClass[src[j]]&numDigit != 0 {
			for j < n && numClass[src[j]]&numDigit != 0 {
				j++
			}
			i, isDouble = j, true
		}
	}
	end := i
	for i < n && numClass[src[i]]&numSpace != 0 {
		i++
	}
	if i != n {
		return dst, false
	}
	if !isDouble {
		const minDigits = 9223372036854775808 // -math.MinInt64, as 19 digits
		switch {
		case digits < 19 || (digits == 19 && v < minDigits):
			if neg {
				return strconv.AppendInt(dst, -int64(v), 10), true
			}
			return strconv.AppendUint(dst, v, 10), true
		case digits == 19 && v == minDigits && neg && end == n:
			return strconv.AppendInt(dst, math.MinInt64, 10), true
		}
		// 20 digits or more, or 19 at or above 2^63 (and -2^63 followed by whitespace, which
		// PHP's strcmp sees): a double.
	}
	var d float64
	if end-start <= 64 {
		// Short numbers read the same in strconv as in zend_strtod: at most 64 digits, and
		// an exponent of at most 60 digits is either below 19999 or far out of range anyway
		// (zend_strtod's cap of 19999 then changes nothing).
		d, _ = strconv.ParseFloat(unsafe.String(&src[start], end-start), 64)
	} else {
		d = longStrtod(src[start:end])
	}
	if math.IsInf(d, 0) {
		return dst, false // "1e999": a string
	}
	return appendPHPDouble(dst, d, opts&jsonopt.PreserveZeroFraction != 0), true
}

// longStrtod is zend_strtod for a long number text (sign, digits, '.', digits, exponent, as
// appendNumber accepted it): the significant digits are handed to strconv as 0.DIGITS e N,
// since strconv's slow path loses the scale of more than 800 integer digits, and an exponent
// over 19999 (or of 9 digits and more) counts as 19999, as in zend_strtod.
func longStrtod(num []byte) float64 {
	neg := num[0] == '-'
	if num[0] == '-' || num[0] == '+' {
		num = num[1:]
	}
	e := len(num)
	for k, c := range num {
		if c|0x20 == 'e' {
			e = k
			break
		}
	}
	mant, ex := num[:e], []byte(nil)
	if e < len(num) {
		ex = num[e+1:]
	}
	dot := bytes.IndexByte(mant, '.')
	intLen := len(mant)
	if dot >= 0 {
		intLen = dot
	}
	digits := make([]byte, 0, len(mant)+24)
	digits = append(digits, "0."...)
	pos := intLen // where the point is relative to the first kept digit
	for _, c := range mant {
		switch {
		case c == '.':
		case c == '0' && len(digits) == 2:
			pos-- // a leading zero, before or after the point: the point moves left of what is kept
		default:
			digits = append(digits, c)
		}
	}
	if len(digits) == 2 { // no significant digit: a signed zero
		if neg {
			return math.Copysign(0, -1)
		}
		return 0
	}
	x := 0
	if len(ex) > 0 {
		eneg := ex[0] == '-'
		if ex[0] == '-' || ex[0] == '+' {
			ex = ex[1:]
		}
		ex = bytes.TrimLeft(ex, "0")
		if len(ex) > 8 {
			x = 19999
		} else {
			for _, c := range ex {
				x = x*10 + int(c-'0')
			}
			x = min(x, 19999)
		}
		if eneg {
			x = -x
		}
	}
	digits = append(digits, 'e')
	digits = strconv.AppendInt(digits, int64(pos+x), 10)
	d, _ := strconv.ParseFloat(string(digits), 64)
	if neg {
		d = -d
	}
	return d
}

// appendPHPDouble appends the finite d as PHP's json_encode writes it with serialize_precision
// -1 (spec §1.7.2): the shortest round-trip digits, fixed notation for 1e-4 <= |d| < 1e17 (and
// 0), else d.ddde±x; ".0" appended under PRESERVE_ZERO_FRACTION when there is no '.'. The
// number is formatted on the stack (at most 24 bytes) and appended to dst in one append, so
// that when dst must grow its old spare capacity is left untouched (the package contract).
func appendPHPDouble(dst []byte, d float64, zeroFrac bool) []byte {
	var num [32]byte
	return append(dst, formatPHPDouble(num[:0], d, zeroFrac)...)
}

// formatPHPDouble is appendPHPDouble appending piece by piece, to a buffer of its own.
func formatPHPDouble(dst []byte, d float64, zeroFrac bool) []byte {
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], d, 'e', -1, 64) // [-]d[.ddd]e±xx
	p := 0
	if e[0] == '-' {
		dst = append(dst, '-')
		p = 1
	}
	k := len(e) - 4 // 'e' of e±xx, or of e±xxx
	if e[k] != 'e' {
		k--
	}
	exp := int(e[k+2]-'0')*10 + int(e[k+3]-'0')
	if k+4 < len(e) {
		exp = exp*10 + int(e[k+4]-'0')
	}
	if e[k+1] == '-' {
		exp = -exp
	}
	first, rest := e[p], e[p:k][min(2, k-p):] // the first digit and the digits after the '.'
	if exp < -4 || exp >= 17 {
		dst = append(dst, first, '.')
		if len(rest) == 0 {
			dst = append(dst, '0')
		} else {
			dst = append(dst, rest...)
		}
		dst = append(dst, 'e', e[k+1])
		if exp < 0 {
			exp = -exp
		}
		return strconv.AppendInt(dst, int64(exp), 10)
	}
	// Fixed notation: what strconv writes in 'f' format with the same shortest digits.
	if exp < 0 {
		dst = append(dst, '0', '.')
		for z := -1; z > exp; z-- {
			dst = append(dst, '0')
		}
		dst = append(dst, first)
		return append(dst, rest...)
	}
	dst = append(dst, first)
	if exp < len(rest) {
		dst = append(dst, rest[:exp]...)
		dst = append(dst, '.')
		return append(dst, rest[exp:]...)
	}
	dst = append(dst, rest...)
	for z := len(rest); z < exp; z++ {
		dst = append(dst, '0')
	}
	if zeroFrac {
		dst = append(dst, '.', '0')
	}
	return dst
}
