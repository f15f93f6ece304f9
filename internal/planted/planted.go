// Package planted holds deliberately broken implementations of the three operations, for the
// tests of triage (package report) and of the command line: each Fault is one defect of the
// kind real ports of json_encode and php_next_utf8_char have, and an Impl carries any set of
// them, so that a test can check that one fault makes its own defect classes and several faults
// at once make one set each. Serve speaks target protocol v1 for an Impl, so the same faults
// are checked through --exec (Target, ServeFromEnv).
//
// It is test vocabulary, built on the oracle: every operation is the oracle's except where a
// fault says otherwise. Nothing outside tests and the planted-target program uses it.
package planted

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
	"github.com/difffuzz/difffuzz/protocol"
)

// Fault is one planted defect.
type Fault string

// The faults. The decoder faults change NextChar and, through it, Escape and UTF8Decode; the
// escaper faults change Escape only; the target faults exist only behind Serve.
const (
	// Lenient does not check continuation bytes: a lead C2..F4 with enough bytes after it is
	// decoded from their low six bits whatever they are (the range checks still apply).
	Lenient Fault = "lenient"
	// Overlong accepts overlong 3- and 4-byte sequences (E0 80..9F xx, F0 80..8F xx xx).
	Overlong Fault = "overlong"
	// Surrogate accepts UTF-16 surrogates encoded in UTF-8 (ED A0..BF xx).
	Surrogate Fault = "surrogate"
	// IgnoreOptions answers every escape as if no option were set (JSON_NUMERIC_CHECK included).
	IgnoreOptions Fault = "ignore-options"
	// SwapAposQuot answers JSON_HEX_APOS as JSON_HEX_QUOT and JSON_HEX_QUOT as JSON_HEX_APOS
	// (the two bits' masks swapped): ' is escaped under HEX_QUOT, " under HEX_APOS.
	SwapAposQuot Fault = "swap-apos-quot"
	// SwapTagAmp answers JSON_HEX_TAG as JSON_HEX_AMP and JSON_HEX_AMP as JSON_HEX_TAG.
	SwapTagAmp Fault = "swap-tag-amp"
	// AposReadsQuot escapes ' as \u0027 under JSON_HEX_QUOT rather than JSON_HEX_APOS (a test of
	// the wrong bit); " is right.
	AposReadsQuot Fault = "apos-reads-quot"
	// RawApos ignores JSON_HEX_APOS: ' is written raw under it.
	RawApos Fault = "raw-apos"
	// EscapedUnicode ignores JSON_UNESCAPED_UNICODE: non-ASCII is written as \uXXXX (and an
	// invalid sequence as \ufffd under INVALID_UTF8_SUBSTITUTE) under it.
	EscapedUnicode Fault = "escaped-unicode"
	// LowerHexTag writes \u003c and \u003e (lower-case) under JSON_HEX_TAG.
	LowerHexTag Fault = "lower-hex-tag"
	// RawSlash writes / raw even without JSON_UNESCAPED_SLASHES.
	RawSlash Fault = "raw-slash"
	// DropQuote leaves out the closing quote of every escaped string: wrong on every input.
	DropQuote Fault = "drop-quote"
	// UpperUnicode writes the \uXXXX of non-ASCII code points with upper-case hex digits.
	UpperUnicode Fault = "upper-unicode"
	// ControlRaw writes the control bytes without a short escape (0x00..0x1F but \b \t \n \f
	// \r) raw instead of \u00XX.
	ControlRaw Fault = "control-raw"
	// LaneLast16 writes an ASCII byte that needs escaping raw when it sits at an input offset
	// 15 modulo 16, the last lane of a 16-byte chunk (a vector kernel's mask one lane short).
	LaneLast16 Fault = "lane-last-16"
	// SlashBlock16 writes / raw anywhere in a full 16-byte chunk of the input (offsets below
	// len(src) rounded down to 16): a vector kernel whose chunk classifier takes / for clean,
	// while the scalar tail is right. Its witnesses need 16 bytes, but not a place in them.
	SlashBlock16 Fault = "slash-block-16"
	// NumericTrailingSpace takes a number followed by whitespace for a string under
	// JSON_NUMERIC_CHECK ("1 " as "1 "), as PHP 7 did: trailing whitespace is allowed since 8.0.
	NumericTrailingSpace Fault = "numeric-trailing-space"
	// NumericZeroFraction ignores JSON_PRESERVE_ZERO_FRACTION: "1.0" is 1, not 1.0.
	NumericZeroFraction Fault = "numeric-zero-fraction"
	// SplitBadSequence ends the failure of a lead without all of its continuation bytes after
	// the lead (advance 1), where PHP ends it before the first byte that is not one: "E1 80"
	// is two failures, not one (a decoder that resumes after every failed byte).
	SplitBadSequence Fault = "split-bad-sequence"
	// LongC080 decodes C0 80 as U+0000 (Java's modified UTF-8) but only in strings of 16 bytes
	// or more, where a vector kernel takes over: a fault of the length, not of a place.
	LongC080 Fault = "long-c080"
	// Sub1A writes the substitute byte 0x1A where utf8_decode writes '?' (a failed step and a
	// code point above U+00FF), as an ISO-8859-1 converter with SUB for unmappable does.
	Sub1A Fault = "sub-1a"
	// WideRaw writes a code point above U+00FF as its UTF-8 bytes in utf8_decode.
	WideRaw Fault = "wide-raw"
	// TrailAnd7F writes a stray continuation byte (80..BF on its own) as byte & 0x7F in
	// utf8_decode.
	TrailAnd7F Fault = "trail-and-7f"
	// DropIgnorable drops default-ignorable code points (U+00AD, U+200B..U+200F, U+FEFF) in
	// utf8_decode.
	DropIgnorable Fault = "drop-ignorable"
	// LostAtEnd returns nothing from utf8_decode when the input ends inside a sequence.
	LostAtEnd Fault = "lost-at-end"
	// RawUnicode copies valid non-ASCII raw in json_encode, as if JSON_UNESCAPED_UNICODE.
	RawUnicode Fault = "raw-unicode"
	// LastLost16 loses the last character (decoder step) of strings of 16 bytes or more in
	// json_encode and utf8_decode: a vector loop whose scalar tail starts one step late.
	LastLost16 Fault = "last-lost-16"
	// Skip16 skips the input byte at offset 16 of strings of 17 bytes or more in json_encode
	// and utf8_decode, whatever it is (ASCII, a lead or a continuation byte): a vector loop
	// that steps one byte too far at the end of its first 16-byte chunk.
	Skip16 Fault = "skip-16"
	// Stop40 reads only the first 40 bytes of the input (up to the last step boundary at or
	// before byte 40) in json_encode and utf8_decode, as a fixed-size buffer does.
	Stop40 Fault = "stop-40"
	// FFFDNotFalse writes invalid UTF-8 as \ufffd where json_encode returns false (no
	// INVALID_UTF8_* option), as if JSON_INVALID_UTF8_SUBSTITUTE.
	FFFDNotFalse Fault = "fffd-not-false"
	// IgnoreNext lets a failed step that json_encode drops under JSON_INVALID_UTF8_IGNORE
	// swallow the byte after it, whatever it is: a decoder that resumes one byte late after a
	// failure it skips (and so, inside a character, fails on its next byte in turn).
	IgnoreNext Fault = "ignore-next"
	// HighSurrogate computes the high surrogate of a code point above U+FFFF from the code
	// point itself, 0xD800 | cp >> 10, not from cp - 0x10000: U+10000 is \ud840\udc00.
	HighSurrogate Fault = "high-surrogate"
	// MergeSubstitute writes one U+FFFD for a run of failed steps with nothing valid between
	// them under JSON_INVALID_UTF8_SUBSTITUTE (Go's bytes.ToValidUTF8 does so), where PHP
	// writes one for each.
	MergeSubstitute Fault = "merge-substitute"
	// Swallow4 ends the failure of a lead F0..F4 whose first two continuation bytes are there
	// but whose third byte is not one a byte later, with that byte (ASCII or a lead): a 4-byte
	// branch that does not test the fourth byte before it skips it.
	Swallow4 Fault = "swallow-4"
	// DropLastLead drops a lead byte C2..F4 that ends the input before any operation reads it
	// (Serve only: decode answers no step for it), as a port whose loop stops one byte early
	// when a sequence cannot fit does: "a" and C3 answered as "a" is, C3 as the empty string.
	DropLastLead Fault = "drop-last-lead"
	// Hang never answers a request whose input contains EF BF BD (U+FFFD) (Serve only).
	Hang Fault = "hang-efbfbd"
	// Crash exits with status 3 on a request whose input contains the byte FE (Serve only).
	Crash Fault = "crash-fe"
	// CrashFalse exits with status 3 where json_encode returns false, as a port that throws on
	// invalid UTF-8 does (Serve only).
	CrashFalse Fault = "crash-false"
	// Options0 announces options=0 in its hello and implements no option (Serve only).
	Options0 Fault = "options-0"
	// Unflushed flushes its hello but holds its answers in a buffer until the end of input,
	// as a Python or C stdio target on a pipe does when it forgets to flush (Serve only).
	Unflushed Fault = "unflushed"
)

// All lists every fault.
var All = []Fault{Lenient, Overlong, Surrogate, IgnoreOptions, SwapAposQuot, SwapTagAmp, AposReadsQuot, RawApos, EscapedUnicode, LowerHexTag, RawSlash, DropQuote, UpperUnicode, ControlRaw, LaneLast16, SlashBlock16,
	NumericTrailingSpace, NumericZeroFraction, SplitBadSequence, LongC080, Sub1A, WideRaw, TrailAnd7F, DropIgnorable, LostAtEnd,
	RawUnicode, FFFDNotFalse, LastLost16, Skip16, Stop40, IgnoreNext, HighSurrogate, MergeSubstitute, Swallow4, DropLastLead, Hang, Crash, CrashFalse, Options0, Unflushed}

// Parse reads a comma-separated list of faults.
func Parse(list string) ([]Fault, error) {
	var out []Fault
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		ok := false
		for _, f := range All {
			ok = ok || Fault(s) == f
		}
		if !ok {
			return nil, fmt.Errorf("unknown planted fault %q (known: %v)", s, All)
		}
		out = append(out, Fault(s))
	}
	return out, nil
}

// Impl is an implementation carrying a set of faults.
type Impl struct {
	faults map[Fault]bool
}

// New returns an implementation with the given faults.
func New(faults ...Fault) *Impl {
	p := &Impl{faults: map[Fault]bool{}}
	for _, f := range faults {
		p.faults[f] = true
	}
	return p
}

// Has reports whether p carries fault f.
func (p *Impl) Has(f Fault) bool { return p.faults[f] }

// Name is the faults joined by "+", in a fixed order ("lenient+raw-slash").
func (p *Impl) Name() string {
	var s []string
	for f := range p.faults {
		s = append(s, string(f))
	}
	sort.Strings(s)
	return strings.Join(s, "+")
}

// NextChar is one php_next_utf8_char step with the decoder faults.
func (p *Impl) NextChar(s []byte, pos int) jsonopt.Step {
	st, e := oracle.NextCharExplain(s, pos)
	if st.OK || pos >= len(s) {
		return st
	}
	c := s[pos]
	trail := func(k int) bool { return pos+k < len(s) && s[pos+k] >= 0x80 && s[pos+k] <= 0xBF }
	if p.faults[Swallow4] && c >= 0xF0 && c <= 0xF4 && st.Advance == 3 && pos+3 < len(s) && trail(1) && trail(2) && !trail(3) {
		return jsonopt.Step{Advance: 4}
	}
	if p.faults[LongC080] && len(s) >= 16 && c == 0xC0 && pos+1 < len(s) && s[pos+1] == 0x80 {
		return jsonopt.Step{CP: 0, Advance: 2, OK: true}
	}
	if p.faults[SplitBadSequence] && e.Family() == "bad-sequence" && !p.faults[Lenient] {
		return jsonopt.Step{Advance: 1}
	}
	n := 0
	switch {
	case c >= 0xC2 && c < 0xE0:
		n = 2
	case c >= 0xE0 && c < 0xF0:
		n = 3
	case c >= 0xF0 && c < 0xF5:
		n = 4
	}
	if n == 0 || len(s)-pos < n {
		return st
	}
	cp := uint32(c) & (0x7F >> n)
	trails := true
	for k := 1; k < n; k++ {
		trails = trails && s[pos+k] >= 0x80 && s[pos+k] <= 0xBF
		cp = cp<<6 | uint32(s[pos+k]&0x3F)
	}
	ok := jsonopt.Step{CP: cp, Advance: n, OK: true}
	switch {
	case !trails && p.faults[Lenient]:
		// The range checks still apply, as in the oracle's order.
		min := [...]uint32{2: 0x80, 3: 0x800, 4: 0x10000}[n]
		if (cp >= min || p.faults[Overlong]) && (cp < 0xD800 || cp > 0xDFFF || p.faults[Surrogate]) && cp <= 0x10FFFF {
			return ok
		}
	case (e == oracle.ExitF5 || e == oracle.ExitF10Overlong) && p.faults[Overlong]:
		return ok
	case e == oracle.ExitF6 && p.faults[Surrogate]:
		return ok
	}
	return st
}

// Escape is json_encode with the decoder and escaper faults.
func (p *Impl) Escape(dst, src []byte, opts jsonopt.Options) ([]byte, error) {
	src = p.cut(src)
	if p.faults[IgnoreOptions] {
		opts = 0
	}
	if p.faults[RawApos] {
		opts &^= jsonopt.HexApos
	}
	if p.faults[EscapedUnicode] {
		opts &^= jsonopt.UnescapedUnicode
	}
	if tag, amp := opts&jsonopt.HexTag, opts&jsonopt.HexAmp; p.faults[SwapTagAmp] {
		opts = opts&^(jsonopt.HexTag|jsonopt.HexAmp) | tag<<1 | amp>>1
	}
	switch apos, quot := opts&jsonopt.HexApos, opts&jsonopt.HexQuot; {
	case p.faults[SwapAposQuot]:
		opts = opts&^(jsonopt.HexApos|jsonopt.HexQuot) | apos<<1 | quot>>1
	case p.faults[AposReadsQuot]:
		opts = opts&^jsonopt.HexApos | quot>>1
	}
	if opts&jsonopt.NumericCheck != 0 && len(src) > 0 {
		// §1.7: the oracle's number, unless a numeric fault says otherwise.
		o := opts
		if p.faults[NumericZeroFraction] {
			o &^= jsonopt.PreserveZeroFraction
		}
		last := src[len(src)-1]
		spaced := last == ' ' || last == '\t' || last == '\n' || last == '\r' || last == '\v' || last == '\f'
		if out, err := oracle.Escape(nil, src, o); err == nil && out[0] != '"' && !(spaced && p.faults[NumericTrailingSpace]) {
			return append(dst, out...), nil
		}
		opts &^= jsonopt.NumericCheck
	}
	valid := true
	for pos := 0; pos < len(src); {
		st := p.NextChar(src, pos)
		valid = valid && st.OK
		pos += st.Advance
	}
	if p.faults[FFFDNotFalse] && opts&jsonopt.InvalidUTF8Ignore == 0 {
		opts |= jsonopt.InvalidUTF8Substitute
	}
	if p.faults[RawUnicode] {
		opts |= jsonopt.UnescapedUnicode | jsonopt.UnescapedLineTerminators
	}
	if !valid && opts&(jsonopt.InvalidUTF8Ignore|jsonopt.InvalidUTF8Substitute) == 0 {
		if opts&jsonopt.PartialOutputOnError != 0 {
			return append(dst, "null"...), jsonopt.ErrUTF8
		}
		return dst, jsonopt.ErrUTF8
	}
	dst = append(dst, '"')
	var piece []byte
	merge := false // MergeSubstitute: the last step was a failure written as U+FFFD
	for pos := 0; pos < len(src); {
		c := src[pos]
		if c < 0x80 {
			merge = false
			switch {
			case pos%16 == 15 && p.faults[LaneLast16]:
				dst = append(dst, c)
			case c == '/' && (p.faults[RawSlash] || p.faults[SlashBlock16] && pos < len(src)&^15):
				dst = append(dst, '/')
			case c < 0x20 && p.faults[ControlRaw] && !bytes.ContainsRune([]byte("\b\t\n\f\r"), rune(c)):
				dst = append(dst, c)
			default:
				piece, _ = oracle.Escape(piece[:0], src[pos:pos+1], opts)
				piece = piece[1 : len(piece)-1]
				if p.faults[LowerHexTag] {
					piece = bytes.ReplaceAll(piece, []byte(`\u003C`), []byte(`\u003c`))
					piece = bytes.ReplaceAll(piece, []byte(`\u003E`), []byte(`\u003e`))
				}
				dst = append(dst, piece...)
			}
			pos++
			continue
		}
		st := p.NextChar(src, pos)
		merged := merge
		merge = !st.OK && opts&jsonopt.InvalidUTF8Ignore == 0 && p.faults[MergeSubstitute]
		switch {
		case !st.OK && opts&jsonopt.InvalidUTF8Ignore != 0:
			if p.faults[IgnoreNext] {
				pos++
			}
		case !st.OK && merged:
		case !st.OK && opts&jsonopt.UnescapedUnicode != 0:
			dst = append(dst, 0xEF, 0xBF, 0xBD)
		case !st.OK:
			dst = append(dst, `\ufffd`...)
		case opts&jsonopt.UnescapedUnicode != 0 && (st.CP < 0x2028 || st.CP > 0x2029 || opts&jsonopt.UnescapedLineTerminators != 0):
			dst = append(dst, src[pos:pos+st.Advance]...)
		case st.CP >= 0x10000:
			v := st.CP - 0x10000
			hi := 0xD800 | v>>10
			if p.faults[HighSurrogate] {
				hi = 0xD800 | st.CP>>10
			}
			dst = p.appendU(p.appendU(dst, hi), 0xDC00|v&0x3FF)
		default:
			dst = p.appendU(dst, st.CP)
		}
		pos += st.Advance
	}
	if p.faults[DropQuote] {
		return dst, nil
	}
	return append(dst, '"'), nil
}

// cut is the part of src that Stop40, LastLost16 and Skip16 read: every step (by NextChar)
// that ends at or before byte 40, or every step but the last in a string of 16 bytes or more,
// or every byte but byte 16.
func (p *Impl) cut(src []byte) []byte {
	if p.faults[Skip16] && len(src) > 16 {
		src = append(append(make([]byte, 0, len(src)-1), src[:16]...), src[17:]...)
	}
	if !p.faults[Stop40] && !(p.faults[LastLost16] && len(src) >= 16) {
		return src
	}
	last, end := 0, 0 // the start of the last step, the end of the last one within 40 bytes
	for pos := 0; pos < len(src); {
		next := pos + max(1, p.NextChar(src, pos).Advance)
		if next <= 40 {
			end = next
		}
		last, pos = pos, next
	}
	if p.faults[Stop40] && len(src) > 40 {
		src = src[:end]
	}
	if p.faults[LastLost16] && len(src) >= 16 {
		src = src[:min(last, len(src))]
	}
	return src
}

// appendU appends \uXXXX for a code unit, lower-case unless UpperUnicode.
func (p *Impl) appendU(dst []byte, u uint32) []byte {
	if p.faults[UpperUnicode] {
		return fmt.Appendf(dst, `\u%04X`, u)
	}
	return fmt.Appendf(dst, `\u%04x`, u)
}

// UTF8Decode is utf8_decode with the decoder faults.
func (p *Impl) UTF8Decode(dst, src []byte) []byte {
	src = p.cut(src)
	q := byte('?')
	if p.faults[Sub1A] {
		q = 0x1A
	}
	if p.faults[LostAtEnd] {
		last := 0
		for pos := 0; pos < len(src); pos += p.NextChar(src, last).Advance {
			last = pos
		}
		st := p.NextChar(src, last)
		if _, e := oracle.NextCharExplain(src, last); len(src) > 0 && !st.OK && e.Family() == "bad-sequence" && last+st.Advance >= len(src) {
			return dst // the input ends inside a sequence: everything is lost
		}
	}
	for pos := 0; pos < len(src); {
		st := p.NextChar(src, pos)
		switch {
		case st.OK && p.faults[DropIgnorable] && (st.CP == 0xAD || st.CP >= 0x200B && st.CP <= 0x200F || st.CP == 0xFEFF):
		case st.OK && st.CP <= 0xFF:
			dst = append(dst, byte(st.CP))
		case st.OK && p.faults[WideRaw]:
			dst = append(dst, src[pos:pos+st.Advance]...)
		case !st.OK && p.faults[TrailAnd7F] && src[pos] >= 0x80 && src[pos] <= 0xBF:
			dst = append(dst, src[pos]&0x7F)
		default:
			dst = append(dst, q)
		}
		pos += st.Advance
	}
	return dst
}

// Handler is the protocol handler of p with its target faults: Hang and Crash wrap every
// operation, Options0 announces options=0.
func (p *Impl) Handler() protocol.Handler {
	trap := func(in []byte) {
		if p.faults[Crash] && bytes.IndexByte(in, 0xFE) >= 0 {
			fmt.Fprintln(os.Stderr, "planted target: crashing on FE")
			os.Exit(3)
		}
		if p.faults[Hang] && bytes.Contains(in, []byte{0xEF, 0xBF, 0xBD}) {
			time.Sleep(time.Hour)
		}
	}
	h := protocol.Handler{
		Escape: func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
			trap(src)
			out, err := p.Escape(dst, src, o)
			if err != nil && p.faults[CrashFalse] {
				fmt.Fprintln(os.Stderr, "planted target: uncaught exception: malformed UTF-8")
				os.Exit(3)
			}
			return out, err
		},
		NextChar: func(s []byte, pos int) jsonopt.Step {
			trap(s)
			return p.NextChar(s, pos)
		},
		UTF8Decode: func(dst, src []byte) []byte {
			trap(src)
			return p.UTF8Decode(dst, src)
		},
	}
	if p.faults[Options0] {
		h.Caps = protocol.Capabilities{OptionsSet: true, Options: 0}
	}
	return h
}

// Serve serves target protocol v1 on r and w for p with its target faults (Handler), and
// with Unflushed holds back everything written after the hello until the end of input.
func (p *Impl) Serve(r io.Reader, w io.Writer) error {
	if p.faults[DropLastLead] {
		r = dropLastLead(r)
	}
	if !p.faults[Unflushed] {
		return protocol.Serve(r, w, p.Handler())
	}
	h := &holdWriter{w: w}
	if err := protocol.Serve(r, h, p.Handler()); err != nil {
		return err
	}
	_, err := w.Write(h.held.Bytes())
	return err
}

// dropLastLead is r with the last byte of each request's input left out when it is a lead
// C2..F4 (lines that are not requests pass as they are).
func dropLastLead(r io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<30)
		var err error
		for sc.Scan() && err == nil {
			line := sc.Text()
			if req, perr := protocol.ParseRequest(line); perr == nil {
				if n := len(req.Input); n > 0 && req.Input[n-1] >= 0xC2 && req.Input[n-1] <= 0xF4 {
					req.Input = req.Input[:n-1]
					line = req.String()
				}
			}
			_, err = io.WriteString(pw, line+"\n")
		}
		pw.CloseWithError(sc.Err())
	}()
	return pr
}

// holdWriter passes its first line (the hello) through and keeps the rest.
type holdWriter struct {
	w     io.Writer
	hello bool
	held  bytes.Buffer
}

func (h *holdWriter) Write(b []byte) (int, error) {
	if h.hello {
		return h.held.Write(b)
	}
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return h.w.Write(b)
	}
	h.hello = true
	if _, err := h.w.Write(b[:i+1]); err != nil {
		return 0, err
	}
	h.held.Write(b[i+1:])
	return len(b), nil
}

// EnvVar names the environment variable ServeFromEnv reads: a comma-separated list of faults.
const EnvVar = "DIFFFUZZ_PLANTED"

// ServeFromEnv, when EnvVar is set, serves target protocol v1 on stdin/stdout for an Impl with
// its faults and exits (0 at the end of input); otherwise it returns. Test binaries call it from
// TestMain, so that a test can start itself as a planted target (the os/exec helper-process
// pattern): Command(os.Args[0], faults...).
func ServeFromEnv() {
	list, ok := os.LookupEnv(EnvVar)
	if !ok {
		return
	}
	faults, err := Parse(list)
	if err != nil {
		fmt.Fprintln(os.Stderr, "planted target:", err)
		os.Exit(2)
	}
	if err := New(faults...).Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "planted target:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Command is the --exec command line that runs the test binary exe as a planted target with the
// given faults (see ServeFromEnv): "env DIFFFUZZ_PLANTED=lenient,raw-slash EXE".
func Command(exe string, faults ...Fault) string {
	s := make([]string, len(faults))
	for i, f := range faults {
		s[i] = string(f)
	}
	return fmt.Sprintf("env %s=%s %q", EnvVar, strings.Join(s, ","), exe)
}
