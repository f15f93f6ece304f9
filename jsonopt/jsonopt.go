// Package jsonopt is the vocabulary shared by the oracle, the fast implementations and the
// harness: PHP's json_encode option bits with their PHP names and values (spec §1.1), the
// JSON_ERROR_* codes an escape can end with, and the result of one UTF-8 decoder step
// (spec §2). It holds no behaviour, so that oracle and fast share nothing else.
package jsonopt

import (
	"fmt"
	"math/bits"
	"sort"
	"strconv"
	"strings"
)

// Options is a set of PHP json_encode option bits, with PHP's values (spec §1.1).
type Options uint32

// PHP's JSON_* option constants (PHP 8.2, spec §1.1). The eleven in StringOptions change what
// json_encode returns for a string, and so does PreserveZeroFraction, but only for a numeric
// string under NumericCheck that becomes a double (spec §1.7); the others are accepted and
// ignored, as PHP does for a string value.
const (
	HexTag                   Options = 1       // JSON_HEX_TAG: < and > as \u003C \u003E
	HexAmp                   Options = 2       // JSON_HEX_AMP: & as \u0026
	HexApos                  Options = 4       // JSON_HEX_APOS: ' as \u0027
	HexQuot                  Options = 8       // JSON_HEX_QUOT: " as \u0022
	ForceObject              Options = 16      // JSON_FORCE_OBJECT: no effect on strings
	NumericCheck             Options = 32      // JSON_NUMERIC_CHECK: a numeric string as a number (spec §1.7)
	UnescapedSlashes         Options = 64      // JSON_UNESCAPED_SLASHES: / raw
	PrettyPrint              Options = 128     // JSON_PRETTY_PRINT: no effect on strings
	UnescapedUnicode         Options = 256     // JSON_UNESCAPED_UNICODE: valid multi-byte raw
	PartialOutputOnError     Options = 512     // JSON_PARTIAL_OUTPUT_ON_ERROR: invalid -> null
	PreserveZeroFraction     Options = 1024    // JSON_PRESERVE_ZERO_FRACTION: ".0" on a whole double under NumericCheck
	UnescapedLineTerminators Options = 2048    // JSON_UNESCAPED_LINE_TERMINATORS: U+2028/9 raw with UnescapedUnicode
	InvalidUTF8Ignore        Options = 1 << 20 // JSON_INVALID_UTF8_IGNORE: drop invalid sequences
	InvalidUTF8Substitute    Options = 1 << 21 // JSON_INVALID_UTF8_SUBSTITUTE: invalid -> U+FFFD
	ThrowOnError             Options = 1 << 22 // JSON_THROW_ON_ERROR: an error is still ErrUTF8 here
)

// StringOptions are the eleven option bits that change json_encode's result for any string
// value; PreserveZeroFraction, which changes it only for a numeric string under NumericCheck,
// is not among them but rides along in Combo. Every subset of them is one of NumStringCombos.
const StringOptions = HexTag | HexAmp | HexApos | HexQuot | NumericCheck | UnescapedSlashes | UnescapedUnicode |
	UnescapedLineTerminators | PartialOutputOnError | InvalidUTF8Ignore | InvalidUTF8Substitute

// StringPath are the option bits PHP's string path reads: the eleven of StringOptions and
// PreserveZeroFraction (for a double under NumericCheck).
const StringPath = StringOptions | PreserveZeroFraction

// NumStringCombos is the number of subsets of StringOptions (2^11 = 2,048).
const NumStringCombos = 1 << 11

var stringBits = func() [11]Options {
	var b [11]Options
	i := 0
	for v := Options(1); v != 0; v <<= 1 {
		if StringOptions&v != 0 {
			b[i] = v
			i++
		}
	}
	return b
}()

// ComboIndex is the inverse of Combo: the i with Combo(i)&StringOptions == o&StringOptions
// (PreserveZeroFraction and the other bits are not read).
func ComboIndex(o Options) int {
	i := 0
	for k := 0; k < len(stringBits); k++ {
		if o&stringBits[k] != 0 {
			i |= 1 << k
		}
	}
	return i
}

// Combo returns the i-th option set of the exhaustive spaces, for i in [0, NumStringCombos):
// bit k of i selects the k-th lowest bit of StringOptions, and PreserveZeroFraction is set when
// i has an odd number of bits (ComboParity), so that every combination of ten of the eleven bits
// meets PreserveZeroFraction both set and unset. Combo(0) is 0, Combo(1) is
// HexTag|PreserveZeroFraction and Combo(2047) is StringOptions|PreserveZeroFraction.
func Combo(i int) Options {
	var o Options
	for k := 0; k < len(stringBits); k++ {
		if i&(1<<k) != 0 {
			o |= stringBits[k]
		}
	}
	if ComboParity(i) == 1 {
		o |= PreserveZeroFraction
	}
	return o
}

// ComboParity is 1 when Combo(i) holds PreserveZeroFraction (i has an odd number of bits), else 0.
func ComboParity(i int) int { return bits.OnesCount32(uint32(i)) & 1 }

// names lists every option PHP's json_encode knows, in bit order, without the JSON_ prefix.
var names = []struct {
	name string
	bit  Options
}{
	{"HEX_TAG", HexTag},
	{"HEX_AMP", HexAmp},
	{"HEX_APOS", HexApos},
	{"HEX_QUOT", HexQuot},
	{"FORCE_OBJECT", ForceObject},
	{"NUMERIC_CHECK", NumericCheck},
	{"UNESCAPED_SLASHES", UnescapedSlashes},
	{"PRETTY_PRINT", PrettyPrint},
	{"UNESCAPED_UNICODE", UnescapedUnicode},
	{"PARTIAL_OUTPUT_ON_ERROR", PartialOutputOnError},
	{"PRESERVE_ZERO_FRACTION", PreserveZeroFraction},
	{"UNESCAPED_LINE_TERMINATORS", UnescapedLineTerminators},
	{"INVALID_UTF8_IGNORE", InvalidUTF8Ignore},
	{"INVALID_UTF8_SUBSTITUTE", InvalidUTF8Substitute},
	{"THROW_ON_ERROR", ThrowOnError},
}

// Names returns every known option name with its JSON_ prefix, in bit order.
func Names() []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "JSON_" + n.name
	}
	return out
}

// String returns the options as PHP names joined by "|" (JSON_HEX_TAG|JSON_UNESCAPED_UNICODE),
// "0" for none; bits PHP does not name are appended as one decimal number.
func (o Options) String() string {
	if o == 0 {
		return "0"
	}
	var parts []string
	rest := o
	for _, n := range names {
		if o&n.bit != 0 {
			parts = append(parts, "JSON_"+n.name)
			rest &^= n.bit
		}
	}
	if rest != 0 {
		parts = append(parts, strconv.FormatUint(uint64(rest), 10))
	}
	return strings.Join(parts, "|")
}

// Short is String without the JSON_ prefixes (HEX_TAG|UNESCAPED_UNICODE), for tables.
func (o Options) Short() string {
	return strings.ReplaceAll(o.String(), "JSON_", "")
}

// Count is the number of option bits set.
func (o Options) Count() int { return bits.OnesCount32(uint32(o)) }

// Parse reads options as PHP names joined by "|" or "," (with or without the JSON_ prefix,
// any case, spaces allowed) or as PHP's decimal integer value ("320"). The empty string and
// "0" are no options. An unknown name is an error naming it, and so is an empty one
// ("JSON_HEX_TAG|", "A||B": a name left out, as by an unset shell variable); an integer may
// carry any bits.
func Parse(s string) (Options, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if v, err := strconv.ParseUint(s, 10, 32); err == nil {
		return Options(v), nil
	} else if c := s[0]; c >= '0' && c <= '9' {
		return 0, fmt.Errorf("option value %q is not a 32-bit unsigned integer", s)
	}
	var o Options
	for _, f := range strings.Split(strings.ReplaceAll(s, ",", "|"), "|") {
		f = strings.ToUpper(strings.TrimSpace(f))
		if f == "" {
			return 0, fmt.Errorf("%q has an empty option name", s)
		}
		if v, err := strconv.ParseUint(f, 10, 32); err == nil {
			o |= Options(v)
			continue
		}
		name := strings.TrimPrefix(f, "JSON_")
		i := sort.Search(len(sortedNames), func(i int) bool { return sortedNames[i].name >= name })
		if i == len(sortedNames) || sortedNames[i].name != name {
			return 0, fmt.Errorf("unknown option %q (known: %s)", f, strings.Join(Names(), ", "))
		}
		o |= sortedNames[i].bit
	}
	return o, nil
}

var sortedNames = func() []struct {
	name string
	bit  Options
} {
	s := append(names[:0:0], names...)
	sort.Slice(s, func(i, j int) bool { return s[i].name < s[j].name })
	return s
}()

// PHP's json_last_error() codes that an escape of a string can end with (spec §1.1).
const (
	ErrorNone = 0 // JSON_ERROR_NONE
	ErrorUTF8 = 5 // JSON_ERROR_UTF8
)

// Error is a failed escape: Code is the JSON_ERROR_* value json_last_error() would return
// (for a JsonException under THROW_ON_ERROR, its code).
type Error struct {
	Code int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s (JSON_ERROR code %d)", e.Msg, e.Code) }

// ErrUTF8 is json_encode's failure on malformed UTF-8: JSON_ERROR_UTF8 = 5, with PHP's message
// (spec §1.1, K27).
var ErrUTF8 = &Error{Code: ErrorUTF8, Msg: "Malformed UTF-8 characters, possibly incorrectly encoded"}

// ErrorCode is the JSON_ERROR_* code of err: 0 for nil, e.Code for an *Error, -1 otherwise.
func ErrorCode(err error) int {
	if err == nil {
		return ErrorNone
	}
	if e, ok := err.(*Error); ok {
		return e.Code
	}
	return -1
}

// Step is the result of one php_next_utf8_char() call (spec §2.2): on success OK is true and
// CP is the code point; on failure OK is false and CP is 0. Advance is how far the cursor
// moved, in bytes (1..4); the failure advance is part of the contract.
type Step struct {
	CP      uint32
	Advance int
	OK      bool
}

// String renders a step as target protocol v1 does (DESIGN.md §6): "e9/2" for U+00E9 in two
// bytes, "!/2" for a failure that advanced two bytes.
func (s Step) String() string {
	if !s.OK {
		return "!/" + strconv.Itoa(s.Advance)
	}
	return strconv.FormatUint(uint64(s.CP), 16) + "/" + strconv.Itoa(s.Advance)
}
