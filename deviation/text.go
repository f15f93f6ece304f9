package deviation

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/difffuzz/difffuzz/internal/phplit"
	"github.com/difffuzz/difffuzz/reference"
)

// familyText names a rule family in the spec's words.
var familyText = map[string]string{
	"failed":       "a failed decoder step (§2.2)",
	"valid":        "a valid multi-byte sequence (§2.2 OK rows, §1.4)",
	"never-a-lead": "a byte that cannot start a character (§2.2 rows 80..C1, F5..FF)",
	"bad-sequence": "a lead without all of its continuation bytes (§2.2 rows C2..DF, E0..EF, F0..F4)",
	"overlong":     "an overlong sequence (§2.2: E0 80..9F xx, F0 80..8F xx xx)",
	"surrogate":    "an encoded surrogate (§2.2: ED A0..BF xx)",
	"above-max":    "a sequence above U+10FFFF (§2.2: F4 90..BF xx xx)",
	"quotes":       "the quotes around the string (§1.2)",
	"string":       "the whole answer",
	"?":            "a code point above U+00FF (§3.1)",
	"ascii":        "an ASCII byte (§1.3)",
	"end":          "a step at the end of the input (§2.1)",
}

// FamilyText is a family (Deviation.Family) in the spec's words.
func FamilyText(f string) string {
	if t, ok := familyText[f]; ok {
		return t
	}
	if strings.HasPrefix(f, "1.3-") {
		return "the §1.3 rule " + f
	}
	return f
}

// hexText is a detail's hex for a title: "the byte 0x1A", "the bytes c3 80", "nothing" when
// empty.
func hexText(h string) string {
	switch h {
	case "":
		return "nothing"
	case "other":
		return "bytes other than PHP's (not one constant)"
	}
	if len(h) == 2 {
		return "the byte 0x" + strings.ToUpper(h)
	}
	return "the bytes " + hexBytes(h)
}

// hexBytes is hex h as bytes apart ("5c 75").
func hexBytes(h string) string {
	var parts []string
	for i := 0; i+2 <= len(h); i += 2 {
		parts = append(parts, h[i:i+2])
	}
	return strings.Join(parts, " ")
}

// constText is a constant written for a stretch (hex, as Substitute's Detail): hexText, after
// the text itself when it is two or more printable ASCII bytes ('\ufffd' (5c 75 66 66 66 64)).
func constText(h string) string {
	b, err := hex.DecodeString(h)
	if err != nil || len(b) < 2 {
		return hexText(h)
	}
	for _, c := range b {
		if c < 0x20 || c > 0x7E {
			return hexText(h)
		}
	}
	return fmt.Sprintf("'%s' (%s)", b, hexBytes(h))
}

// markerText is PHP's output for a stretch as Substitute's Family names it (markerName), for
// a title: U+FFFD written raw (under UNESCAPED_UNICODE) is said so, not as hex alone.
func markerText(f string) string {
	if f == "efbfbd" {
		return "U+FFFD raw (ef bf bd)"
	}
	return f
}

// overlongRows are the overlong sequences of each lead row (§2.2).
var overlongRows = map[string]string{"E0..EF": "E0 80..9F xx", "F0..F4": "F0 80..8F xx xx"}

// Title says what the candidate does, then what PHP does, for the deviations of one key in one
// operation ("escape", "decode", "utf8_decode"); rows lists the spec rows they were seen in.
func Title(op string, d Deviation, rows []string) string {
	where := FamilyText(d.Family)
	if len(rows) > 0 && (d.Family == "failed" || d.Family == "valid") {
		where += " (rows " + rowsList(rows) + ")"
	}
	if manyByteRules[d.Family] && len(rows) > 0 && len(rows) <= 4 && byteRows(rows) {
		// The bytes seen, when few, of a rule of many bytes: DEL escaped is not every byte
		// of 1.3-clean.
		where = "the byte " + strings.Join(rows, ", ") + " (" + where[len("the "):] + ")"
		if len(rows) > 1 {
			where = "the bytes" + where[len("the byte"):]
		}
	}
	if d.Family == "overlong" && len(rows) == 1 && overlongRows[rows[0]] != "" {
		// Seen in one lead row only: that row's overlong sequences, not both rows'.
		where = "an overlong sequence (§2.2: " + overlongRows[rows[0]] + ")"
	}
	if d.What == Lost && strings.HasPrefix(d.Detail, SkipPrefix) {
		return skipText(d.Detail)
	}
	switch d.What {
	case RawCopy:
		return fmt.Sprintf("copies the input bytes raw for %s, where PHP writes %s", where, phpWrites(op, d))
	case Substitute:
		r := ""
		if len(rows) > 0 {
			r = " (" + rowsList(rows) + ")"
		}
		switch d.Family {
		case "valid":
			if slices.Contains(rows, "wide") {
				// utf8_decode: PHP writes a code point above U+00FF as ?, not as itself.
				return "drops valid code points" + r + ", where PHP writes them (those above U+00FF as ?)"
			}
			return "drops valid code points" + r + ", where PHP writes them"
		case "ascii":
			return fmt.Sprintf("drops ASCII bytes PHP writes%s", r)
		case "quotes":
			return "drops a quote PHP writes around the string (§1.2 steps 3 and 8)"
		}
		if d.Detail == "low-7-bits" {
			return fmt.Sprintf("writes a stray byte with its top bit cleared (byte & 0x7F) where PHP writes %s%s", d.Family, r)
		}
		return fmt.Sprintf("writes %s where PHP writes %s%s", constText(d.Detail), markerText(d.Family), r)
	case Advance:
		switch d.Detail {
		case "split":
			return "splits one failed step into several, where PHP ends it later: " + where
		case "merged":
			return "merges failed steps into one, where PHP fails them one by one: " + where
		case "swallows":
			return "lets a failed step swallow the bytes after it, where PHP ends it before them: " + where
		case "longer":
			return "ends a failed step after more bytes than PHP: " + where
		}
		return "ends a failed step after fewer bytes than PHP: " + where
	case Accepted:
		if d.Detail == "bits" {
			return "decodes " + where + " as the code point its bits give, where PHP fails the step"
		}
		return "decodes " + where + " as some code point, where PHP fails the step"
	case Rejected:
		return fmt.Sprintf("fails on %s, where PHP decodes it", where)
	case Form:
		if d.Detail == "unescaped-lt" && len(rows) == 1 && strings.HasPrefix(rows[0], "U+") {
			// One of the two seen (the row is the code point): that one.
			return fmt.Sprintf("writes %s raw under JSON_UNESCAPED_UNICODE, where PHP writes \\u%s (as if JSON_UNESCAPED_LINE_TERMINATORS were set)",
				rows[0], strings.ToLower(rows[0][2:]))
		}
		return formTitle(d.Detail, where)
	case Lost:
		switch d.Detail {
		case "false":
			if d.Family == "failed" {
				return "returns false for invalid UTF-8 under INVALID_UTF8_IGNORE or INVALID_UTF8_SUBSTITUTE, where PHP writes the string"
			}
			return "returns false for valid UTF-8, where PHP writes the string"
		case "last-byte":
			if d.Family == "string" {
				return "writes the answer without its last byte (the string's closing quote)"
			}
			return "writes the answer without its last byte (a string's closing quote, a number's last digit, the l of null)"
		case Tail:
			return tailTitle(rows)
		}
		return "writes nothing, where PHP has an answer"
	case NotFalse:
		if d.Detail == "empty" {
			return "returns the empty string for invalid UTF-8, where PHP returns false (json_last_error()=5)"
		}
		return fmt.Sprintf("has an answer for invalid UTF-8 (writes the first failed step %s), where PHP returns false (json_last_error()=5)", notFalseHow(d.Detail))
	case ErrorCode:
		return fmt.Sprintf("sets json_last_error()=%s, where PHP sets another code", d.Detail)
	case Model:
		t, ok := reference.Texts[d.Detail]
		if !ok {
			t = d.Detail
		}
		return "answers as " + t + " answers, not as PHP"
	case Extra:
		if d.Family == "failed" {
			return fmt.Sprintf("writes %s after a failed step besides what PHP writes for it", quoteLen(d.Got))
		}
		return fmt.Sprintf("writes bytes PHP does not write (%s)", quoteLen(d.Got))
	}
	if d.What == Wrong && (d.Detail == "high-surrogate" || d.Detail == "low-surrogate") {
		wrong, right, which := "high", "low", "first"
		if d.Detail == "low-surrogate" {
			wrong, right, which = "low", "high", "second"
		}
		return fmt.Sprintf("writes a wrong %s surrogate (the %s \\uXXXX of the pair) for code points above U+FFFF, the %s one as PHP does (§1.4: %s where PHP writes %s)",
			wrong, which, right, quote(d.Got), quote(d.Want))
	}
	return fmt.Sprintf("writes %s for %s, where PHP writes %s", quote(d.Got), where, quote(d.Want))
}

// tailTitle is the title of a Tail deviation named by rows: "first K" for a cut that keeps K
// bytes (a character boundary at or before it), "last" for the last step lost.
func tailTitle(rows []string) string {
	k := 0
	for _, r := range rows {
		if n, err := fmt.Sscanf(r, "first %d", &k); err == nil && n == 1 {
			break
		}
	}
	if k == 0 {
		return "loses the last character of the input: answers as PHP does for the input without its last step, where PHP writes it"
	}
	return fmt.Sprintf("stops reading after %d bytes (at the last character boundary at or before it): answers as PHP does for that start of the input and loses the rest", k)
}

// rowsList is rows for a title, the row "wide" said as what it is.
func rowsList(rows []string) string {
	out := slices.Clone(rows)
	for i, r := range out {
		if r == "wide" {
			out[i] = "U+0100 and above in utf8_decode"
		}
	}
	return strings.Join(out, ", ")
}

// quoteLen is b as a PHP expression clipped to 12 bytes, then its length (a title stays one
// short line whatever a target writes).
func quoteLen(b []byte) string {
	if len(b) > 12 {
		return fmt.Sprintf("%s… %d bytes", phplit.Quote(b[:EscapeCut(b, 12)]), len(b))
	}
	return phplit.Quote(b)
}

// quote is b as a PHP expression (phplit), clipped to 24 bytes.
func quote(b []byte) string {
	if len(b) > 24 {
		return phplit.Quote(b[:EscapeCut(b, 24)]) + "…"
	}
	return phplit.Quote(b)
}

// EscapeCut is where a clip of an escaper's answer b to k bytes ends: k, or the start of the
// JSON escape (\", \n, \u0022, ...) it would cut through, so that a clipped answer never ends
// in a lone backslash that reads as an escaped one.
func EscapeCut(b []byte, k int) int {
	for i := 0; i < k; {
		if b[i] != '\\' {
			i++
			continue
		}
		n := 2
		if i+1 < len(b) && b[i+1] == 'u' {
			n = 6
		}
		if i+n > k {
			return i
		}
		i += n
	}
	return k
}

// formTitle is the title of a Form deviation.
func formTitle(detail, where string) string {
	switch detail {
	case "upper-hex":
		return "writes upper-case hex digits in the \\uXXXX it computes (not the JSON_HEX_* literals), where PHP writes lower case"
	case "lower-hex":
		return "writes lower-case hex digits in HEX_* escapes (\\u003c), where PHP writes the upper-case literals (\\u003C, \\u003E)"
	case "escapes":
		if strings.HasPrefix(where, "the bytes ") {
			return "escapes " + where + ", where PHP writes them raw"
		}
		return "escapes " + where + ", where PHP writes it raw"
	case "unescaped":
		return "writes non-ASCII raw, where PHP writes \\uXXXX (as if JSON_UNESCAPED_UNICODE were set)"
	case "unescaped-lt":
		return "writes U+2028 and U+2029 raw under JSON_UNESCAPED_UNICODE, where PHP writes \\u2028 and \\u2029 (as if JSON_UNESCAPED_LINE_TERMINATORS were set)"
	case "u-for-short":
		return "writes \\u00XX for " + where + ", where PHP writes the two-byte escape"
	case "short-for-u":
		return "writes a two-byte escape for " + where + ", where PHP writes \\u00XX"
	}
	return "writes another escape of " + where + " than PHP"
}

// phpWrites is what PHP writes for the deviation's bytes, in a few words.
func phpWrites(op string, d Deviation) string {
	switch {
	case d.Family == "failed" && op == "utf8_decode":
		return "? for each failed step"
	case d.Family == "failed":
		return "\\ufffd, nothing, or false (INVALID_UTF8_* options)"
	case d.Family == "?":
		return "? for a code point above U+00FF"
	case d.Family == "valid" && op == "utf8_decode":
		return "the code point's byte"
	case d.Family == "valid":
		return "\\uXXXX"
	}
	return "its escape"
}

// manyByteRules are the §1.3 rules of more than one or two bytes.
var manyByteRules = map[string]bool{"1.3-clean": true, "1.3-control": true, "1.3-short-escape": true, "1.3-hex-off": true}

// byteRows reports whether every row is a byte in hex ("7f"), as an ASCII rule's rows are.
func byteRows(rows []string) bool {
	for _, r := range rows {
		if len(r) != 2 || strings.Trim(r, "0123456789abcdef") != "" {
			return false
		}
	}
	return true
}

// notFalseHow says how a candidate wrote the first step PHP fails on (NotFalse's Detail, from
// notFalseDetail), for a title.
func notFalseHow(detail string) string {
	if h, ok := notFalseHows[detail]; ok {
		return h
	}
	if c, ok := strings.CutPrefix(detail, "substitute:"); ok {
		return "as " + constText(c)
	}
	return "otherwise (" + detail + ")"
}

// notFalseHows are notFalseHow's words for the details that are not a constant written.
var notFalseHows = map[string]string{
	"fffd":           "as U+FFFD, as INVALID_UTF8_SUBSTITUTE does",
	"substitute:":    "as nothing, as INVALID_UTF8_IGNORE does", // a substitute of no bytes
	"other":          "as other bytes than INVALID_UTF8_SUBSTITUTE's",
	string(RawCopy):  "as its input bytes, raw",
	string(Accepted): "as the code point its bits give",
	string(Advance):  "ending it elsewhere than PHP",
	string(Wrong):    "as another character than INVALID_UTF8_SUBSTITUTE's",
	string(Form):     "as U+FFFD in another escape form",
	string(Lost):     "as nothing",
}
