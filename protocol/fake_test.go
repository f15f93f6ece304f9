package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// The fake handler is a small stand-in for the oracle, enough for the protocol's examples:
// a full php_next_utf8_char() (spec §2.2, compact rule), an escaper that knows only `"`, `\`,
// control bytes, \uXXXX for BMP code points, the invalid-UTF-8 options and, of
// JSON_NUMERIC_CHECK, only strings of 1 to 18 ASCII digits (written as the integer, so "007"
// is 7; any other numeric string stays a string), and utf8_decode. The escaper refuses
// JSON_PRETTY_PRINT (errFakeRefusal), which PHP ignores for a string, so that the tests have a
// refusal without a PHP error code to send.

var fakeHandler = Handler{Escape: fakeEscape, NextChar: fakeNextChar, UTF8Decode: fakeUTF8Decode}

func fakeNextChar(s []byte, pos int) jsonopt.Step {
	lead := func(b byte) bool { return b < 0x80 || b >= 0xc2 && b <= 0xf4 }
	trail := func(b byte) bool { return b >= 0x80 && b <= 0xbf }
	fail := func(k int) jsonopt.Step { return jsonopt.Step{Advance: k} }
	c, avail := s[pos], len(s)-pos
	var n int
	var cp, min uint32
	switch {
	case c < 0x80:
		return jsonopt.Step{CP: uint32(c), Advance: 1, OK: true}
	case c < 0xc2 || c > 0xf4:
		return fail(1)
	case c < 0xe0:
		n, cp, min = 2, uint32(c&0x1f), 0x80
	case c < 0xf0:
		n, cp, min = 3, uint32(c&0x0f), 0x800
	default:
		n, cp, min = 4, uint32(c&0x07), 0x10000
	}
	for i := 1; i < n; i++ {
		if i >= avail || !trail(s[pos+i]) {
			for k := 1; k < n; k++ {
				if k >= avail || lead(s[pos+k]) {
					return fail(k)
				}
			}
			return fail(n)
		}
		cp = cp<<6 | uint32(s[pos+i]&0x3f)
	}
	if cp < min || cp >= 0xd800 && cp <= 0xdfff || cp > 0x10ffff {
		return fail(n)
	}
	return jsonopt.Step{CP: cp, Advance: n, OK: true}
}

var errPlain = errors.New("plain failure without a PHP code")

// errFakeRefusal is the fake escaper's refusal of JSON_PRETTY_PRINT: a *jsonopt.Error without
// a PHP error code (Code -1), which Serve answers "error " and its Msg. No option set of
// jsonopt.Combo holds PRETTY_PRINT, so only the tests that ask for it get it.
var errFakeRefusal = &jsonopt.Error{Code: -1, Msg: "JSON_PRETTY_PRINT (128) is not implemented by the fake"}

func fakeEscape(dst, src []byte, o jsonopt.Options) ([]byte, error) {
	if o&jsonopt.PrettyPrint != 0 {
		return dst, errFakeRefusal
	}
	if o&jsonopt.NumericCheck != 0 && len(src) > 0 && len(src) <= 18 && fakeDigits(src) {
		v, _ := strconv.ParseUint(string(src), 10, 64)
		return strconv.AppendUint(dst, v, 10), nil
	}
	if bytes.Equal(src, []byte("plain error")) {
		return dst, errPlain
	}
	start := len(dst)
	dst = append(dst, '"')
	for pos := 0; pos < len(src); {
		c := src[pos]
		if c < 0x80 {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c < 0x20:
				dst = fmt.Appendf(dst, `\u%04x`, c)
			default:
				dst = append(dst, c)
			}
			pos++
			continue
		}
		st := fakeNextChar(src, pos)
		pos += st.Advance
		switch {
		case st.OK:
			dst = fmt.Appendf(dst, `\u%04x`, st.CP)
		case o&jsonopt.InvalidUTF8Ignore != 0:
		case o&jsonopt.InvalidUTF8Substitute != 0:
			dst = append(dst, `\ufffd`...)
		default:
			dst = dst[:start]
			if o&jsonopt.PartialOutputOnError != 0 {
				dst = append(dst, "null"...)
			}
			return dst, jsonopt.ErrUTF8
		}
	}
	return append(dst, '"'), nil
}

func fakeDigits(s []byte) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func fakeUTF8Decode(dst, src []byte) []byte {
	for pos := 0; pos < len(src); {
		st := fakeNextChar(src, pos)
		pos += st.Advance
		if !st.OK || st.CP > 0xff {
			dst = append(dst, '?')
		} else {
			dst = append(dst, byte(st.CP))
		}
	}
	return dst
}
