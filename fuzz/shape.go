package fuzz

import (
	"strconv"
	"strings"
)

// ByteClass names the class of one input byte in a witness's shape: the byte classes that
// json_encode and php_next_utf8_char tell apart (spec §1.3, §2.1, §2.2).
//
//	a          a clean ASCII byte: 0x20..0x7E other than the special bytes below, and DEL 0x7F
//	" \ / & '  each special byte by itself
//	<>         < and > (JSON_HEX_TAG writes both)
//	ctl-short  0x08 0x09 0x0A 0x0C 0x0D (escaped \b \t \n \f \r)
//	ctl        every other byte below 0x20 (escaped \u00XX)
//	cont       a continuation byte 0x80..0xBF
//	C0-C1 C2-DF E0-EF F0-F4 F5-FF
//	           the lead ranges of the §2.2 rows (C0, C1 and F5..FF are never leads)
func ByteClass(c byte) string {
	switch {
	case c == '<' || c == '>':
		return "<>"
	case c == '"' || c == '\\' || c == '/' || c == '&' || c == '\'':
		return string(c)
	case c == 0x08 || c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D:
		return "ctl-short"
	case c < 0x20:
		return "ctl"
	case c < 0x80:
		return "a"
	case c < 0xC0:
		return "cont"
	case c < 0xC2:
		return "C0-C1"
	case c < 0xE0:
		return "C2-DF"
	case c < 0xF0:
		return "E0-EF"
	case c < 0xF5:
		return "F0-F4"
	}
	return "F5-FF"
}

// Shape is the byte-class shape of an input: the ByteClass of each byte, space-separated, a run
// of n > 1 clean ASCII bytes written "a×n" ("a×15 \"" for 15 clean bytes and a quote, "E0-EF
// cont cont"); "(empty)" for the empty input.
func Shape(in []byte) string {
	switch len(in) {
	case 0:
		return "(empty)"
	case 1:
		return shortShapes[classID[in[0]]]
	case 2:
		return shortShapes[len(classRep)*(1+int(classID[in[0]]))+int(classID[in[1]])]
	}
	return shape(in)
}

// classID numbers the byte classes (ByteClass) in the order bytes first show them, classRep
// holds one byte of each, shortShapes the shapes of every input of one or two bytes by their
// classes' numbers (Shape's answer for the many short findings, made once).
var classID, classRep, shortShapes = func() (id [256]uint8, rep []byte, shapes []string) {
	seen := map[string]uint8{}
	for c := range 256 {
		k, ok := seen[ByteClass(byte(c))]
		if !ok {
			k = uint8(len(rep))
			seen[ByteClass(byte(c))] = k
			rep = append(rep, byte(c))
		}
		id[c] = k
	}
	for _, a := range rep {
		shapes = append(shapes, shape([]byte{a}))
	}
	for _, a := range rep {
		for _, b := range rep {
			shapes = append(shapes, shape([]byte{a, b}))
		}
	}
	return id, rep, shapes
}()

// shape is Shape, worked out.
func shape(in []byte) string {
	var b strings.Builder
	b.Grow(6 * len(in))
	for i := 0; i < len(in); {
		c := ByteClass(in[i])
		n := 1
		if c == "a" {
			for i+n < len(in) && ByteClass(in[i+n]) == "a" {
				n++
			}
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c)
		if n > 1 {
			b.WriteString("×")
			b.WriteString(strconv.Itoa(n))
		}
		i += n
	}
	return b.String()
}

// representatives are the bytes the minimizer tries in place of a byte of each class (besides
// 'a'), so that witnesses of one defect converge on one shape: a byte of the middle of its
// range, clear of the lead bytes whose second byte the §2.2 range checks look at (E0, ED, F0,
// F4).
var representatives = map[string]byte{
	"a": 'a', "<>": '<', "ctl-short": '\n', "ctl": 0x01, "cont": 0x80,
	"C0-C1": 0xC0, "C2-DF": 0xC3, "E0-EF": 0xE1, "F0-F4": 0xF1, "F5-FF": 0xFF,
}

// representative is the byte the minimizer tries in place of c (see representatives): c itself
// for the special bytes.
func representative(c byte) byte {
	if r, ok := representatives[ByteClass(c)]; ok {
		return r
	}
	return c
}
