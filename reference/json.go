package reference

import (
	"encoding/json"
	"unicode/utf8"
)

// Texts says what each known behaviour does, by name, in a report's words ("answers as ...
// does"): maximal-subpart (MaximalSubpartLatin1), json-stringify (JSONStringify), go-json
// (GoJSON), latin1-json (PHP's json_encode of Latin1ToUTF8 of the input) and passthrough (a
// utf8_decode that returns its input).
var Texts = map[string]string{
	"maximal-subpart": "the Unicode maximal-subpart practice (W3C/WHATWG, ICU, mbstring: each maximal subpart of an " +
		"ill-formed sequence is one '?', where PHP's php_next_utf8_char fails steps as §2.2 says)",
	"json-stringify": "ECMAScript JSON.stringify (UTF-8 read as a WHATWG TextDecoder reads it; only \", \\ and controls escaped)",
	"go-json":        "Go's encoding/json (<, >, & and U+2028/U+2029 escaped, invalid UTF-8 as \\ufffd)",
	"latin1-json":    "PHP for the bytes read as ISO-8859-1, each byte one code point (no UTF-8 decoding)",
	"passthrough":    "a no-op (the bytes returned as they came, no UTF-8 decoding)",
}

// JSONStringify is ECMAScript's JSON.stringify (ECMA-262 §25.5.2.3 QuoteJSONString) of the
// string a JavaScript port gets for src: the bytes decoded as the WHATWG Encoding Standard's
// UTF-8 decoder does (U+FFFD for each maximal subpart of an ill-formed sequence), then ", \
// and the controls escaped (\b \t \n \f \r, else \u00xx in lower-case hex) and every other
// code point written as it is, in UTF-8 (/ and U+2028 included).
func JSONStringify(src []byte) []byte {
	out := []byte{'"'}
	for _, r := range decodeWHATWG(src) {
		switch e, short := quoteJSONString[r]; {
		case short:
			out = append(out, e...)
		case r < 0x20:
			const hex = "0123456789abcdef"
			out = append(out, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xF])
		default:
			out = utf8.AppendRune(out, r)
		}
	}
	return append(out, '"')
}

// quoteJSONString are ECMA-262's short escapes (the table of QuoteJSONString).
var quoteJSONString = map[rune]string{'"': `\"`, '\\': `\\`, '\b': `\b`, '\t': `\t`, '\n': `\n`, '\f': `\f`, '\r': `\r`}

// decodeWHATWG is src decoded as UTF-8 with U+FFFD for each maximal subpart of an ill-formed
// sequence (WHATWG Encoding Standard; the same subparts as MaximalSubpartLatin1).
func decodeWHATWG(src []byte) []rune {
	var out []rune
	for i := 0; i < len(src); {
		c := src[i]
		if c < 0x80 {
			out = append(out, rune(c))
			i++
			continue
		}
		n, lo, hi := sequence(c)
		if n == 0 {
			out = append(out, utf8.RuneError)
			i++
			continue
		}
		j := i + 1
		cp := rune(c) & (0x7F >> n)
		for k := 1; k < n && j < len(src); k++ {
			b := src[j]
			if k == 1 && (b < lo || b > hi) || k > 1 && (b < 0x80 || b > 0xBF) {
				break
			}
			cp = cp<<6 | rune(b&0x3F)
			j++
		}
		if j-i < n {
			cp = utf8.RuneError
		}
		out = append(out, cp)
		i = j
	}
	return out
}

// GoJSON is Go's encoding/json encoding of src as a string (json.Marshal(string(src))): the
// model is the library itself, as a Go port that calls it answers.
func GoJSON(src []byte) []byte {
	b, err := json.Marshal(string(src))
	if err != nil {
		return nil // not reached: a string always encodes
	}
	return b
}

// Latin1ToUTF8 is src read as ISO-8859-1 (each byte the code point of its value), in UTF-8.
func Latin1ToUTF8(src []byte) []byte {
	out := make([]byte, 0, 2*len(src))
	for _, c := range src {
		out = utf8.AppendRune(out, rune(c))
	}
	return out
}
