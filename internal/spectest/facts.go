// Package spectest holds the oracle facts of spec §5.2 (J1–J72 for json_encode, U1–U17 for
// utf8_decode), each verified on PHP 8.2.36, as data for the table tests of oracle, fast and
// fuzz. It is test vocabulary only: it holds no behaviour, so oracle and fast still share
// nothing but facts about PHP.
//
// Generated once from ../shared/spec/php-json-utf8.md §5.2 and checked by hand; the
// conformance test against real PHP (adapters/php) re-checks every row on each CI run.
package spectest

import "github.com/difffuzz/difffuzz/jsonopt"

// EscapeFact is one json_encode fact: Want is the returned string (quotes included) or nil
// when json_encode returned false; Err is json_last_error() after the call.
type EscapeFact struct {
	ID    string
	In    []byte
	Flags jsonopt.Options
	Want  []byte // nil: json_encode returned false
	Err   int
	Note  string
}

// DecodeFact is one utf8_decode fact (spec §3.1).
type DecodeFact struct {
	ID   string
	In   []byte
	Want []byte
	Note string
}

// Escape lists facts J1–J72 of spec §5.2.
var Escape = []EscapeFact{
	{"J1", []byte(""), 0, []byte("\"\""), 0, "empty string"},
	{"J2", []byte("\x00"), 0, []byte("\"\\u0000\""), 0, "NUL"},
	{"J3", []byte("\x01"), 0, []byte("\"\\u0001\""), 0, ""},
	{"J4", []byte("\x1f"), 0, []byte("\"\\u001f\""), 0, "lowercase hex digits"},
	{"J5", []byte("\x0b"), 0, []byte("\"\\u000b\""), 0, "VT has no short form"},
	{"J6", []byte("\x08\x09\x0a\x0c\x0d"), 0, []byte("\"\\b\\t\\n\\f\\r\""), 0, "the five short escapes"},
	{"J7", []byte("\x7f"), 0, []byte("\"\x7f\""), 0, "DEL is copied raw"},
	{"J8", []byte(" "), 0, []byte("\" \""), 0, ""},
	{"J9", []byte("\""), 0, []byte("\"\\\"\""), 0, ""},
	{"J10", []byte("\""), jsonopt.HexQuot, []byte("\"\\u0022\""), 0, ""},
	{"J11", []byte("\\"), jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot | jsonopt.UnescapedSlashes, []byte("\"\\\\\""), 0, "backslash is never hex-escaped"},
	{"J12", []byte("/"), 0, []byte("\"\\/\""), 0, ""},
	{"J13", []byte("/"), jsonopt.UnescapedSlashes, []byte("\"/\""), 0, ""},
	{"J14", []byte("<>&'"), 0, []byte("\"<>&'\""), 0, "no flags: raw"},
	{"J15", []byte("<>"), jsonopt.HexTag, []byte("\"\\u003C\\u003E\""), 0, "uppercase C/E"},
	{"J16", []byte("&"), jsonopt.HexAmp, []byte("\"\\u0026\""), 0, ""},
	{"J17", []byte("'"), jsonopt.HexApos, []byte("\"\\u0027\""), 0, ""},
	{"J18", []byte("<>&'/\""), jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot | jsonopt.UnescapedSlashes, []byte("\"\\u003C\\u003E\\u0026\\u0027/\\u0022\""), 0, ""},
	{"J19", []byte("</"), jsonopt.PrettyPrint, []byte("\"<\\/\""), 0, "PRETTY_PRINT has no effect on a string"},
	{"J20", []byte("\xc3\xa9"), 0, []byte("\"\\u00e9\""), 0, "U+00E9"},
	{"J21", []byte("\xc3\xa9"), jsonopt.UnescapedUnicode, []byte("\"\xc3\xa9\""), 0, ""},
	{"J22", []byte("\xc2\x80"), 0, []byte("\"\\u0080\""), 0, "U+0080"},
	{"J23", []byte("\xe2\x82\xac"), 0, []byte("\"\\u20ac\""), 0, "U+20AC lowercase"},
	{"J24", []byte("\xef\xbb\xbf"), 0, []byte("\"\\ufeff\""), 0, "BOM is just U+FEFF"},
	{"J25", []byte("\xef\xbf\xbf"), 0, []byte("\"\\uffff\""), 0, "noncharacter U+FFFF accepted"},
	{"J26", []byte("\xf0\x90\x80\x80"), 0, []byte("\"\\ud800\\udc00\""), 0, "U+10000"},
	{"J27", []byte("\xf0\x9f\x98\x80"), 0, []byte("\"\\ud83d\\ude00\""), 0, "U+1F600 -> surrogate pair"},
	{"J28", []byte("\xf0\x9f\x98\x80"), jsonopt.UnescapedUnicode, []byte("\"\xf0\x9f\x98\x80\""), 0, ""},
	{"J29", []byte("\xf4\x8f\xbf\xbf"), 0, []byte("\"\\udbff\\udfff\""), 0, "U+10FFFF"},
	{"J30", []byte("\xe2\x80\xa8"), 0, []byte("\"\\u2028\""), 0, "U+2028"},
	{"J31", []byte("\xe2\x80\xa8"), jsonopt.UnescapedUnicode, []byte("\"\\u2028\""), 0, "still escaped"},
	{"J32", []byte("\xe2\x80\xa8"), jsonopt.UnescapedLineTerminators, []byte("\"\\u2028\""), 0, "flag alone does nothing"},
	{"J33", []byte("\xe2\x80\xa8"), jsonopt.UnescapedUnicode | jsonopt.UnescapedLineTerminators, []byte("\"\xe2\x80\xa8\""), 0, "raw"},
	{"J34", []byte("\xe2\x80\xa9"), jsonopt.UnescapedUnicode, []byte("\"\\u2029\""), 0, ""},
	{"J35", []byte("\xe2\x80\xa7"), jsonopt.UnescapedUnicode, []byte("\"\xe2\x80\xa7\""), 0, "U+2027 raw"},
	{"J36", []byte("\x80"), 0, nil, jsonopt.ErrorUTF8, "lone continuation"},
	{"J37", []byte("\x80"), jsonopt.PartialOutputOnError, []byte("null"), jsonopt.ErrorUTF8, ""},
	{"J38", []byte("\x80"), jsonopt.InvalidUTF8Ignore, []byte("\"\""), 0, ""},
	{"J39", []byte("\x80"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\""), 0, ""},
	{"J40", []byte("\x80"), jsonopt.UnescapedUnicode | jsonopt.InvalidUTF8Substitute, []byte("\"\xef\xbf\xbd\""), 0, "raw EF BF BD"},
	{"J41", []byte("\x80"), jsonopt.InvalidUTF8Ignore | jsonopt.InvalidUTF8Substitute, []byte("\"\""), 0, "IGNORE wins over SUBSTITUTE"},
	{"J42", []byte("\x80"), jsonopt.PartialOutputOnError | jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\""), 0, ""},
	{"J43", []byte("a\xb0b"), jsonopt.InvalidUTF8Ignore, []byte("\"ab\""), 0, ""},
	{"J44", []byte("\xe0\x80A"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffdA\""), 0, "overlong-looking E0 80 then A: 2 bytes consumed"},
	{"J45", []byte("\xe0\x80A"), jsonopt.InvalidUTF8Ignore, []byte("\"A\""), 0, ""},
	{"J46", []byte("\xe0\x80\x80"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\""), 0, "complete 3-byte overlong: 1 replacement"},
	{"J47", []byte("\xc0\xaf"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\\ufffd\""), 0, "C0 never a lead: 1 per byte"},
	{"J48", []byte("\xc1\xbf"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\\ufffd\""), 0, ""},
	{"J49", []byte("\xed\xa0\x80"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\""), 0, "surrogate D800: 1 replacement"},
	{"J50", []byte("\xed\xa0\xbd\xed\xb0\x80"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\\ufffd\""), 0, "CESU-8 pair: 2 replacements"},
	{"J51", []byte("\xf4\x90\x80\x80"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\""), 0, "> U+10FFFF: 1 replacement"},
	{"J52", []byte("\xf0\x80\x80\x80"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\""), 0, "4-byte overlong: 1 replacement"},
	{"J53", []byte("\xf5\x80\x80\x80"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\\ufffd\\ufffd\\ufffd\""), 0, "F5 + 3 continuations: 4 replacements"},
	{"J54", []byte("\xfe"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\""), 0, ""},
	{"J55", []byte("\xffA"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffdA\""), 0, ""},
	{"J56", []byte("\xe2\x82"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\""), 0, "truncated at end: 1 replacement (2 bytes)"},
	{"J57", []byte("\xe2\x82A"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffdA\""), 0, ""},
	{"J58", []byte("\xf0\x9f\x98"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\""), 0, "truncated 4-byte: 1 replacement"},
	{"J59", []byte("\xf0\x9f\x98A"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffdA\""), 0, ""},
	{"J60", []byte("\xc3\xc3\xa9"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\\u00e9\""), 0, "bad trail is a lead: advance 1"},
	{"J61", []byte("\xc3A"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffdA\""), 0, ""},
	{"J62", []byte("\xc3\xff"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\""), 0, "bad trail is not a lead: both bytes swallowed"},
	{"J63", []byte("\xc3\xc0A"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffdA\""), 0, "C0 swallowed with C3"},
	{"J64", []byte("\xe2\xffA"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffdA\""), 0, "E2 FF consumed together"},
	{"J65", []byte("\xe2\xc0\x80"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\""), 0, "E2 C0 80: all three consumed, 1 replacement"},
	{"J66", []byte("\xe2\x82\xff"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\""), 0, ""},
	{"J67", []byte("\xe2\x82\xc3\xa9"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\\u00e9\""), 0, ""},
	{"J68", []byte("\xf0\x9f\xc0\x80"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\""), 0, "F0 9F C0 80: 4 consumed, 1 replacement"},
	{"J69", []byte("\xf0\xc3\xa9"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\\u00e9\""), 0, ""},
	{"J70", []byte("\xf0\x9f\x98\xc3\xa9"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ufffd\\u00e9\""), 0, ""},
	{"J71", []byte("\xf0\x9f\x98\x80\xf0"), jsonopt.InvalidUTF8Substitute, []byte("\"\\ud83d\\ude00\\ufffd\""), 0, ""},
	{"J72", []byte("abc\xe0"), jsonopt.PartialOutputOnError, []byte("null"), jsonopt.ErrorUTF8, "whole string replaced by null"},
}

// UTF8Decode lists facts U1–U17 of spec §5.2.
var UTF8Decode = []DecodeFact{
	{"U1", []byte("A\xc3\xa9B"), []byte("A\xe9B"), "U+00E9 -> E9"},
	{"U2", []byte("\xc2\xa0\xc3\xbf"), []byte("\xa0\xff"), "U+00A0, U+00FF"},
	{"U3", []byte("\xc4\x80"), []byte("?"), "U+0100 > FF -> ?"},
	{"U4", []byte("\xe2\x82\xac"), []byte("?"), "U+20AC -> ?"},
	{"U5", []byte("\xf0\x9f\x98\x80"), []byte("?"), "astral -> one ?"},
	{"U6", []byte("\xc3"), []byte("?"), "truncated -> ?"},
	{"U7", []byte("abc\xe0"), []byte("abc?"), "bug #43957"},
	{"U8", []byte("\xe0\x80A"), []byte("?A"), "? then A"},
	{"U9", []byte("\xc0\xaf"), []byte("??"), "two ?"},
	{"U10", []byte("\xed\xa0\x80"), []byte("?"), "surrogate -> one ?"},
	{"U11", []byte("\xf5\x80\x80\x80"), []byte("????"), "four ?"},
	{"U12", []byte("\xc3\xc3\xa9"), []byte("?\xe9"), "? then E9"},
	{"U13", []byte("\xe2\xc0\x80"), []byte("?"), "one ? (3 bytes consumed)"},
	{"U14", []byte("A\xc2>B"), []byte("A?>B"), "bug #49687 case 1"},
	{"U15", []byte("\xe3\x80\""), []byte("?\""), "bug #49687 case 2"},
	{"U16", []byte("A\x98\xbaB\xe2\x98C\xe2\x98\xba\xe2\x98"), []byte("A??B?C??"), "bug #49687 case 3"},
	{"U17", []byte("\x00"), []byte("\x00"), "NUL preserved"},
}

// Numeric lists the JSON_NUMERIC_CHECK facts of spec §5.2 on a single string (K1–K16,
// K18–K20; K17 is about array keys), and the rows of spec §1.7's tables that were verified on
// PHP 8.2.36 with them (N-prefixed IDs), all with serialize_precision = -1.
var Numeric = []EscapeFact{
	{"K1", []byte("123"), nc, []byte("123"), 0, ""},
	{"K2", []byte("-0"), nc, []byte("0"), 0, "an integer: no sign"},
	{"K3", []byte("-0.0"), nc, []byte("-0"), 0, "a double: -0"},
	{"K4", []byte("1e3"), nc, []byte("1000"), 0, "no .0"},
	{"K5", []byte(".5"), nc, []byte("0.5"), 0, ""},
	{"K6", []byte("1."), nc, []byte("1"), 0, ""},
	{"K7", []byte(" 1"), nc, []byte("1"), 0, "leading whitespace"},
	{"K8", []byte("1 "), nc, []byte("1"), 0, "trailing whitespace"},
	{"K9", []byte("\n1"), nc, []byte("1"), 0, ""},
	{"K10", []byte("0x1A"), nc, []byte("\"0x1A\""), 0, "no hex"},
	{"K11", []byte("1e999"), nc, []byte("\"1e999\""), 0, "INF stays a string"},
	{"K12", []byte("9223372036854775808"), nc, []byte("9.223372036854776e+18"), 0, "integer overflow: a double"},
	{"K13", []byte("007"), nc, []byte("7"), 0, ""},
	{"K14", []byte("+5"), nc, []byte("5"), 0, ""},
	{"K15", []byte("abc"), nc, []byte("\"abc\""), 0, ""},
	{"K16", []byte(""), nc, []byte("\"\""), 0, "empty before NUMERIC_CHECK"},
	{"K18", []byte("1.0"), nc | pzf, []byte("1.0"), 0, ""},
	{"K19", []byte("1"), nc | pzf, []byte("1"), 0, "an integer: no .0"},
	{"K20", []byte("-0.0"), nc | pzf, []byte("-0.0"), 0, ""},
	{"N1", []byte("-9223372036854775808"), nc, []byte("-9223372036854775808"), 0, "math.MinInt64 is a long"},
	{"N2", []byte("-9223372036854775808 "), nc, []byte("-9.223372036854776e+18"), 0, "strcmp reads the trailing space: a double"},
	{"N3", []byte("9223372036854775807 "), nc, []byte("9223372036854775807"), 0, ""},
	{"N4", []byte("0.0001"), nc, []byte("0.0001"), 0, "decpt -3: not yet the exponent form"},
	{"N5", []byte("0.00001"), nc, []byte("1.0e-5"), 0, "decpt -4: exponent form"},
	{"N6", []byte("1e16"), nc | pzf, []byte("10000000000000000.0"), 0, "decpt 17: not yet the exponent form"},
	{"N7", []byte("1e17"), nc | pzf, []byte("1.0e+17"), 0, "decpt 18: exponent form"},
	{"N8", []byte("4.9e-324"), nc, []byte("5.0e-324"), 0, "the smallest subnormal"},
	{"N9", []byte("-1e-999"), nc | pzf, []byte("-0.0"), 0, "underflow: -0"},
	{"N10", []byte("12345678901234567.0"), nc, []byte("12345678901234568"), 0, "17 digits, rounded"},
	{"N11", []byte("123456789012345678901"), nc, []byte("1.2345678901234568e+20"), 0, "21 digits: a double"},
	{"N12", []byte("1.e5"), nc, []byte("100000"), 0, ""},
	{"N13", []byte("\v1\f"), nc, []byte("1"), 0, "\\v and \\f are whitespace"},
	{"N14", []byte("1\x00"), nc, []byte("\"1\\u0000\""), 0, "NUL is not whitespace"},
	{"N15", []byte("1e+"), nc, []byte("\"1e+\""), 0, "an exponent needs a digit"},
	{"N16", []byte("1_000"), nc, []byte("\"1_000\""), 0, ""},
	{"N17", []byte("\u0661"), nc, []byte("\"\\u0661\""), 0, "no other Unicode digits"},
	{"N18", []byte("."), nc, []byte("\".\""), 0, ""},
	{"N19", []byte("  "), nc, []byte("\"  \""), 0, "whitespace alone"},
	{"N20", []byte(" 1 1"), nc, []byte("\" 1 1\""), 0, ""},
}

const nc, pzf = jsonopt.NumericCheck, jsonopt.PreserveZeroFraction
