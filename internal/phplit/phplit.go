// Package phplit writes a byte string as a PHP expression that evaluates to exactly those bytes:
// the one convention for every string a difffuzz report, a defect block or a one-input command
// shows (docs/report.md, "How strings are shown").
//
// Runs of printable ASCII (0x20..0x7E) are single-quoted literals, where PHP reads only \' and
// \\ as escapes: a quote is written \', a backslash is written \\ when it is next to another
// backslash, before a quote or at the end of the literal, and as itself elsewhere, so that
// json_encode's "a\/b" reads '"a\/b"'. Every other byte is in a double-quoted literal as \xNN
// (lower-case hex, as the reports' hex columns), or \t, \n, \r. The pieces are joined with " . ".
// Examples, bytes then expression:
//
//	(none)            ''
//	22 61 5c 2f 62 22 '"a\/b"'
//	5c 5c 27          '\\\\\''
//	c3 28             "\xc3" . '('
//	e2 80 a8 0a       "\xe2\x80\xa8\n"
package phplit

import "strings"

// Quote is b as a PHP expression (see the package comment).
func Quote(b []byte) string {
	s, _ := Clip(b, -1)
	return s
}

// Clip is Quote of the longest start of b whose expression is at most max bytes long (all of b
// when max < 0), and how many bytes of b it holds. An empty start is the empty literal
// (two single quotes).
func Clip(b []byte, max int) (string, int) {
	var sb strings.Builder
	n := 0
	for n < len(b) {
		whole := run(b[n:])
		k, sep := whole, ""
		if n > 0 {
			sep = " . "
		}
		if max >= 0 {
			// A piece of k bytes is longer than k: as much of the run as fits. A literal never
			// gets shorter when its run does not, so the longest start that fits is found by
			// halving (one literal a byte would be quadratic in a long run).
			room := max - sb.Len() - len(sep)
			lo, hi := 0, min(k, max)
			for lo < hi {
				if mid := hi - (hi-lo)/2; len(literal(b[n:n+mid])) <= room {
					lo = mid
				} else {
					hi = mid - 1
				}
			}
			k = lo
		}
		if k == 0 {
			break
		}
		sb.WriteString(sep + literal(b[n:n+k]))
		n += k
		if k < whole {
			break
		}
	}
	if n == 0 {
		return "''", 0
	}
	return sb.String(), n
}

// printable reports whether c is printable ASCII.
func printable(c byte) bool { return 0x20 <= c && c <= 0x7e }

// run is the length of the run b starts with: printable ASCII bytes, or other bytes.
func run(b []byte) int {
	p := printable(b[0])
	k := 1
	for k < len(b) && printable(b[k]) == p {
		k++
	}
	return k
}

// literal is one run as a PHP literal: single-quoted for printable ASCII, else double-quoted.
func literal(b []byte) string {
	var sb strings.Builder
	if !printable(b[0]) {
		sb.WriteByte('"')
		for _, c := range b {
			switch c {
			case '\t':
				sb.WriteString(`\t`)
			case '\n':
				sb.WriteString(`\n`)
			case '\r':
				sb.WriteString(`\r`)
			default:
				const digits = "0123456789abcdef"
				sb.WriteString(`\x`)
				sb.WriteByte(digits[c>>4])
				sb.WriteByte(digits[c&15])
			}
		}
		sb.WriteByte('"')
		return sb.String()
	}
	sb.WriteByte('\'')
	for i, c := range b {
		switch {
		case c == '\'':
			sb.WriteString(`\'`)
		case c == '\\' && (i+1 == len(b) || b[i+1] == '\\' || b[i+1] == '\'' || i > 0 && b[i-1] == '\\'):
			sb.WriteString(`\\`)
		default:
			sb.WriteByte(c)
		}
	}
	sb.WriteByte('\'')
	return sb.String()
}
