package fuzz

//go:generate go test -run=^TestSeedCorpus$ -update-seeds .

import (
	"fmt"
	"io"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	gofuzz "github.com/google/gofuzz"

	"github.com/difffuzz/difffuzz/corpus"
	"github.com/difffuzz/difffuzz/internal/numgen"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// This file is the random input space of DESIGN.md §3: byte strings built from weighted byte
// classes (unit generators) and option sets, filled by github.com/google/gofuzz custom
// functions. gofuzz's own string filler is never used: its strings hold no control bytes, no
// 4-byte sequences and no invalid UTF-8, which is where the defects are.

// Text is a generated input string. It has its own type so that gofuzz fills it with the
// class-weighted filler rather than its default []byte filler.
type Text []byte

// String renders the text as hex and as a Go string, for gopter's failure reports.
func (t Text) String() string { return fmt.Sprintf("%x %q", []byte(t), []byte(t)) }

// Sample is one generated case: an input and the option set escape uses with it.
type Sample struct {
	Input Text
	Opts  jsonopt.Options
}

// classGen appends one unit of a class to b. It may look at len(b) (clean runs do, to cross
// chunk edges). It returns the extended slice and whether generation must stop after this
// unit (a truncated sequence only truncates at the end of the input).
type classGen func(r *rand.Rand, b []byte) ([]byte, bool)

// class is one byte class of the random space.
type class struct {
	name    string
	doc     string
	weight  int  // relative weight in the mixed profile
	invalid bool // not drawn by the valid-only profile
	gen     classGen
}

// ClassInfo describes one byte class: its name as --stats prints it, what it generates and
// its weight (out of the sum of all weights) in the mixed profile.
type ClassInfo struct {
	Name    string
	Doc     string
	Weight  int
	Invalid bool // the class produces invalid UTF-8 (spec §2.2); valid-only inputs never draw it
}

// Classes lists the byte classes of the random space, in --stats order.
func Classes() []ClassInfo {
	out := make([]ClassInfo, len(classes))
	for i, c := range classes {
		out[i] = ClassInfo{Name: c.name, Doc: c.doc, Weight: c.weight, Invalid: c.invalid}
	}
	return out
}

// cleanBytes are the ASCII bytes PHP's escaper copies verbatim (spec §1.2 step 4): 0x20..0x7F
// without " & ' / < > \.
var cleanBytes = func() []byte {
	var b []byte
	for c := 0x20; c <= 0x7F; c++ {
		if !strings.ContainsRune(`"&'/<>\`, rune(c)) {
			b = append(b, byte(c))
		}
	}
	return b
}()

// edgeASCII are clean bytes next to dirty ones or to the ASCII range's ends: a classifier
// built from ranges or compares gets them wrong first.
var edgeASCII = []byte{0x20, 0x21, 0x23, 0x25, 0x28, 0x2E, 0x30, 0x3B, 0x3D, 0x3F, 0x5B, 0x5D, 0x7E, 0x7F}

// junkBytes are neither leads nor trails (spec §2.1): C0, C1, F5..FF.
var junkBytes = []byte{0xC0, 0xC1, 0xF5, 0xF6, 0xF7, 0xF8, 0xF9, 0xFA, 0xFB, 0xFC, 0xFD, 0xFE, 0xFF}

// otherControls are the control bytes without a short escape (spec §1.3: \u00XX).
var otherControls = func() []byte {
	var b []byte
	for c := 0; c < 0x20; c++ {
		switch c {
		case '\b', '\t', '\n', '\f', '\r':
		default:
			b = append(b, byte(c))
		}
	}
	return b
}()

// Code points at the edges of the UTF-8 length classes and of the ranges PHP treats
// specially (Latin-1 for utf8_decode, surrogates, U+2028/9 neighbours, noncharacters).
var (
	edges2 = []rune{0x80, 0x81, 0xBF, 0xC0, 0xFF, 0x100, 0x7FE, 0x7FF}
	edges3 = []rune{0x800, 0x801, 0xFFF, 0x1000, 0x2027, 0x202A, 0xD7FF, 0xE000, 0xFEFF, 0xFFFD, 0xFFFE, 0xFFFF}
	edges4 = []rune{0x10000, 0x10001, 0x3FFFF, 0x40000, 0xFFFFF, 0x100000, 0x10FFFE, 0x10FFFF, 0x1F600}
)

func pickByte(r *rand.Rand, set []byte) byte { return set[r.Intn(len(set))] }
func trail(r *rand.Rand) byte                { return byte(0x80 + r.Intn(0x40)) }
func junk(r *rand.Rand) byte                 { return pickByte(r, junkBytes) }

// nonLead is a byte that is not a lead (spec §2.1): a trail or a junk byte.
func nonLead(r *rand.Rand) byte {
	if r.Intn(2) == 0 {
		return trail(r)
	}
	return junk(r)
}

// randValid is a random valid code point of n UTF-8 bytes.
func randValid(r *rand.Rand, n int) rune {
	switch n {
	case 2:
		return rune(0x80 + r.Intn(0x800-0x80))
	case 3:
		for {
			c := rune(0x800 + r.Intn(0x10000-0x800))
			if c < 0xD800 || c > 0xDFFF {
				return c
			}
		}
	default:
		return rune(0x10000 + r.Intn(0x110000-0x10000))
	}
}

// nextLead appends what makes a broken sequence stop (spec §2.2): a lead, either an ASCII
// byte or a complete valid multi-byte character.
func nextLead(r *rand.Rand, b []byte) []byte {
	switch r.Intn(4) {
	case 0:
		return append(b, pickByte(r, cleanBytes))
	case 1:
		return append(b, pickByte(r, []byte(`"\/<>&'`+"\n\x00")))
	default:
		return utf8.AppendRune(b, randValid(r, 2+r.Intn(3)))
	}
}

func lead2(r *rand.Rand) byte { return byte(0xC2 + r.Intn(0xE0-0xC2)) }
func lead3(r *rand.Rand) byte { return byte(0xE0 + r.Intn(16)) }
func lead4(r *rand.Rand) byte { return byte(0xF0 + r.Intn(5)) }

// lead3Trail is a 3-byte lead with a first trail that keeps the sequence structurally valid
// and in range, so a later byte decides the failure.
func lead3Trail(r *rand.Rand, b []byte) []byte {
	c := utf8.AppendRune(nil, randValid(r, 3))
	return append(b, c[0], c[1])
}

func lead4Trail(r *rand.Rand, b []byte, n int) []byte {
	c := utf8.AppendRune(nil, randValid(r, 4))
	return append(b, c[:n]...)
}

func one(c byte) classGen {
	return func(_ *rand.Rand, b []byte) ([]byte, bool) { return append(b, c), false }
}

func oneOf(set []byte) classGen {
	return func(r *rand.Rand, b []byte) ([]byte, bool) { return append(b, pickByte(r, set)), false }
}

func runeOf(f func(r *rand.Rand) rune) classGen {
	return func(r *rand.Rand, b []byte) ([]byte, bool) { return utf8.AppendRune(b, f(r)), false }
}

func pickRune(set []rune) func(r *rand.Rand) rune {
	return func(r *rand.Rand) rune { return set[r.Intn(len(set))] }
}

// cleanRun appends a run of clean ASCII bytes that usually ends a few bytes around the next
// 16-, 32- or 64-byte chunk edge, so that runs cross edges and the following unit lands on,
// before or after one.
func cleanRun(r *rand.Rand, b []byte) ([]byte, bool) {
	var n int
	switch k := r.Intn(10); {
	case k < 6:
		w := []int{16, 32, 64}[r.Intn(3)]
		edge := (len(b)/w + 1) * w
		n = max(1, edge+r.Intn(7)-3-len(b))
	case k < 9:
		n = 1 + r.Intn(8)
	default:
		n = 64 + r.Intn(193)
	}
	letters := r.Intn(2) == 0 // half of the runs are letters only, like prose
	for i := 0; i < n; i++ {
		if letters {
			b = append(b, byte('a'+r.Intn(26)))
		} else {
			b = append(b, pickByte(r, cleanBytes))
		}
	}
	return b, false
}

// Corpus texts for the corpus class, made once.
var (
	corpusOnce  sync.Once
	corpusTexts [][]byte
	regressIn   [][]byte
)

func loadCorpus() {
	corpusOnce.Do(func() {
		for _, c := range corpus.All() {
			corpusTexts = append(corpusTexts, c.Make(corpus.Sizes[1]))
		}
		regs, _ := corpus.Regressions() // a malformed store fails TestRegressions, not campaigns
		for _, rg := range regs {
			regressIn = append(regressIn, rg.Input)
		}
	})
}

// corpusUnit appends a window of a named corpus (DESIGN.md §8), which may start or end in the
// middle of a character, or the input of a saved regression.
func corpusUnit(r *rand.Rand, b []byte) ([]byte, bool) {
	loadCorpus()
	// The draws do not depend on the store's size, so that adding a regression changes only
	// the inputs that splice one.
	if k := r.Uint64(); k%5 == 0 && len(regressIn) > 0 {
		return append(b, regressIn[(k/5)%uint64(len(regressIn))]...), false
	}
	t := corpusTexts[r.Intn(len(corpusTexts))]
	n := 1 + r.Intn(96)
	off := r.Intn(len(t) - n)
	return append(b, t[off:off+n]...), false
}

// classes are the byte classes. The invalid ones follow the failure exits of spec §2.2 (the
// oracle's F1..F15; F4 cannot be reached): each unit fails exactly as its name says whatever
// comes after it, because a broken sequence is always followed by a lead here.
var classes = []class{
	{"clean-run", "clean ASCII run ending around a 16/32/64-byte chunk edge", 200, false, cleanRun},
	{"ascii-edge", "clean byte next to a dirty one or the range ends (20 21 23 … 7E 7F)", 12, false, oneOf(edgeASCII)},
	{`dirty "`, `22 " (\" or \u0022)`, 18, false, one('"')},
	{`dirty \`, `5C \ (always \\)`, 18, false, one('\\')},
	{"dirty /", `2F / (\/ unless UNESCAPED_SLASHES)`, 18, false, one('/')},
	{"dirty <", "3C < (HEX_TAG)", 12, false, one('<')},
	{"dirty >", "3E > (HEX_TAG)", 12, false, one('>')},
	{"dirty &", "26 & (HEX_AMP)", 12, false, one('&')},
	{"dirty '", "27 ' (HEX_APOS)", 12, false, one('\'')},
	{`ctl \b`, `08 (\b)`, 7, false, one('\b')},
	{`ctl \t`, `09 (\t)`, 7, false, one('\t')},
	{`ctl \n`, `0A (\n)`, 7, false, one('\n')},
	{`ctl \f`, `0C (\f)`, 7, false, one('\f')},
	{`ctl \r`, `0D (\r)`, 7, false, one('\r')},
	{"ctl other", `00..1F without a short escape (\u00XX, NUL included)`, 20, false, oneOf(otherControls)},
	{"utf8-2", "valid 2-byte character U+0080..U+07FF", 45, false, runeOf(func(r *rand.Rand) rune { return randValid(r, 2) })},
	{"utf8-2 edge", "2-byte range edge: U+0080 U+00FF U+0100 U+07FF …", 15, false, runeOf(pickRune(edges2))},
	{"utf8-3", "valid 3-byte character U+0800..U+FFFF, no surrogates", 45, false, runeOf(func(r *rand.Rand) rune { return randValid(r, 3) })},
	{"utf8-3 edge", "3-byte range edge: U+0800 U+D7FF U+E000 U+FFFD U+FFFF …", 18, false, runeOf(pickRune(edges3))},
	{"utf8-4", "valid 4-byte character U+10000..U+10FFFF", 35, false, runeOf(func(r *rand.Rand) rune { return randValid(r, 4) })},
	{"utf8-4 edge", "4-byte range edge: U+10000 U+FFFFF U+100000 U+10FFFF …", 15, false, runeOf(pickRune(edges4))},
	{"U+2028", "LINE SEPARATOR E2 80 A8", 12, false, runeOf(func(*rand.Rand) rune { return 0x2028 })},
	{"U+2029", "PARAGRAPH SEPARATOR E2 80 A9", 12, false, runeOf(func(*rand.Rand) rune { return 0x2029 })},
	{"corpus", "a window of a named corpus, or a saved regression's input", 25, false, corpusUnit},

	{"bad trail", "F1: stray continuation 80..BF (1 failure per byte)", 20, true, func(r *rand.Rand, b []byte) ([]byte, bool) {
		for n := 1 + r.Intn(3)/2; n > 0; n-- {
			b = append(b, trail(r))
		}
		return b, false
	}},
	{"bad C0/C1", "F1: C0 or C1 lead, maybe with a trail (C0 AF: 2 failures)", 12, true, func(r *rand.Rand, b []byte) ([]byte, bool) {
		b = append(b, 0xC0+byte(r.Intn(2)))
		if r.Intn(2) == 0 {
			b = append(b, trail(r))
		}
		return b, false
	}},
	{"bad F5..FF", "F15: F5..FF, maybe with trails (1 failure per byte)", 12, true, func(r *rand.Rand, b []byte) ([]byte, bool) {
		b = append(b, 0xF5+byte(r.Intn(11)))
		for n := r.Intn(4); n > 0; n-- {
			b = append(b, trail(r))
		}
		return b, false
	}},
	{"bad 2: lead", "F3: C2..DF then a lead (advance 1)", 10, true, func(r *rand.Rand, b []byte) ([]byte, bool) {
		return nextLead(r, append(b, lead2(r))), false
	}},
	{"bad 2: junk", "F3: C2..DF then C0/C1/F5..FF (advance 2)", 10, true, func(r *rand.Rand, b []byte) ([]byte, bool) {
		return append(b, lead2(r), junk(r)), false
	}},
	{"bad 3: overlong", "F5: E0 80..9F xx, overlong (advance 3)", 10, true, func(r *rand.Rand, b []byte) ([]byte, bool) {
		return append(b, 0xE0, byte(0x80+r.Intn(0x20)), trail(r)), false
	}},
	{"bad 3: surrogate", "F6: ED A0..BF xx, UTF-16 surrogate (advance 3)", 10, true, func(r *rand.Rand, b []byte) ([]byte, bool) {
		return append(b, 0xED, byte(0xA0+r.Intn(0x20)), trail(r)), false
	}},
	{"bad 3: lead@1", "F7: E0..EF then a lead (advance 1)", 10, true, func(r *rand.Rand, b []byte) ([]byte, bool) {
		return nextLead(r, append(b, lead3(r))), false
	}},
	{"bad 3: lead@2", "F8: E0..EF trail then a lead (advance 2)", 10, true, func(r *rand.Rand, b []byte) ([]byte, bool) {
		return nextLead(r, append(b, lead3(r), trail(r))), false
	}},
	{"bad 3: junk", "F9: E0..EF with a junk byte and no lead in s1..s2 (advance 3)", 10, true, func(r *rand.Rand, b []byte) ([]byte, bool) {
		if r.Intn(2) == 0 {
			return append(b, lead3(r), junk(r), nonLead(r)), false
		}
		return append(lead3Trail(r, b), junk(r)), false
	}},
	{"bad 4: overlong", "F10: F0 80..8F xx xx, overlong (advance 4)", 10, true, func(r *rand.Rand, b []byte) ([]byte, bool) {
		return append(b, 0xF0, byte(0x80+r.Intn(0x10)), trail(r), trail(r)), false
	}},
	{"bad 4: >U+10FFFF", "F10: F4 90..BF xx xx, above U+10FFFF (advance 4)", 10, true, func(r *rand.Rand, b []byte) ([]byte, bool) {
		return append(b, 0xF4, byte(0x90+r.Intn(0x30)), trail(r), trail(r)), false
	}},
	{"bad 4: lead@1", "F11: F0..F4 then a lead (advance 1)", 10, true, func(r *rand.Rand, b []byte) ([]byte, bool) {
		return nextLead(r, append(b, lead4(r))), false
	}},
	{"bad 4: lead@2", "F12: F0..F4 trail then a lead (advance 2)", 10, true, func(r *rand.Rand, b []byte) ([]byte, bool) {
		return nextLead(r, lead4Trail(r, b, 2)), false
	}},
	{"bad 4: lead@3", "F13: F0..F4 trail trail then a lead (advance 3)", 10, true, func(r *rand.Rand, b []byte) ([]byte, bool) {
		return nextLead(r, lead4Trail(r, b, 3)), false
	}},
	{"bad 4: junk", "F14: F0..F4 with a junk byte and no lead in s1..s3 (advance 4)", 10, true, func(r *rand.Rand, b []byte) ([]byte, bool) {
		k := 1 + r.Intn(3) // position of the junk byte
		b = lead4Trail(r, b, k)
		b = append(b, junk(r))
		for i := k + 1; i < 4; i++ {
			b = append(b, nonLead(r))
		}
		return b, false
	}},
	{"truncated", "F2/F7/F8/F11–F13: a valid 2/3/4-byte character cut short at the end of the input", 14, true, func(r *rand.Rand, b []byte) ([]byte, bool) {
		n := 2 + r.Intn(3)
		c := utf8.AppendRune(nil, randValid(r, n))
		return append(b, c[:1+r.Intn(n-1)]...), true
	}},
}

// profile is a table of cumulative class weights.
type profile struct {
	cum   []int // cum[i] = sum of the weights of classes[0..i]
	total int
}

func newProfile(weight func(c class) int) profile {
	p := profile{cum: make([]int, len(classes))}
	for i, c := range classes {
		p.total += weight(c)
		p.cum[i] = p.total
	}
	return p
}

func (p *profile) draw(r *rand.Rand) int {
	x := r.Intn(p.total)
	return sort.SearchInts(p.cum, x+1)
}

var (
	mixedProfile = newProfile(func(c class) int { return c.weight })
	validProfile = newProfile(func(c class) int {
		if c.invalid {
			return 0
		}
		return c.weight
	})
)

// DefaultMaxLen is the longest input the random space generates unless told otherwise: long
// enough for three 64-byte chunks and a tail on every side of them.
const DefaultMaxLen = 1024

// targetLen draws an input length: short strings, lengths around the 16/32/64-byte chunk
// edges (up to 3×64+1, DESIGN.md §3), any length up to 256, and now and then a long one.
func targetLen(r *rand.Rand, maxLen int) int {
	var n int
	switch k := r.Intn(20); {
	case k < 5:
		n = r.Intn(9)
	case k < 12:
		e := []int{16, 32, 48, 64, 96, 128, 192}[r.Intn(7)]
		n = e + r.Intn(9) - 4
	case k < 19:
		n = r.Intn(257)
	default:
		n = 256 + r.Intn(max(1, maxLen-255))
	}
	return max(0, min(n, maxLen))
}

// appendInput appends one generated input to b: units drawn by class weight (from the valid
// profile only when valid is set) until the drawn length is reached or a truncated sequence
// ends the input. stats, if not nil, counts the draws. The input may overshoot the drawn
// length by one unit and is then cut to maxLen.
func appendInput(r *rand.Rand, b []byte, valid bool, maxLen int, stats *GenStats) []byte {
	start := len(b)
	p := &mixedProfile
	if valid {
		p = &validProfile
	}
	n := targetLen(r, maxLen)
	for len(b)-start < n {
		i := p.draw(r)
		if stats != nil {
			stats.Class[i]++
			stats.Draws++
		}
		var stop bool
		before := len(b)
		b, stop = classes[i].gen(r, b)
		if valid {
			b = append(b[:before], wholeChars(b[before:])...) // a corpus window may cut characters
		}
		if stop {
			break
		}
	}
	if len(b)-start > maxLen {
		cut := start + maxLen
		if valid {
			for cut > start && b[cut]&0xC0 == 0x80 {
				cut--
			}
		}
		b = b[:cut] // unless valid, this may cut a character: still an input worth checking
	}
	return b
}

// wholeChars drops the continuation bytes u starts with and an incomplete character it ends
// with. u is otherwise valid UTF-8 here (it comes from a valid class or a corpus window).
func wholeChars(u []byte) []byte {
	for len(u) > 0 && u[0]&0xC0 == 0x80 {
		u = u[1:]
	}
	for len(u) > 0 && !utf8.Valid(u) {
		u = u[:len(u)-1]
	}
	return u
}

// Option bits as the random space draws them: each string option about half the time (the
// invalid-UTF-8 modes a little less, so that plain failures stay common), NUMERIC_CHECK and
// PRESERVE_ZERO_FRACTION a third of the time, the options PHP ignores for strings now and
// then, and unknown bits rarely.
var optionOdds = []struct {
	bit jsonopt.Options
	pct int
}{
	{jsonopt.HexTag, 40}, {jsonopt.HexAmp, 40}, {jsonopt.HexApos, 40}, {jsonopt.HexQuot, 40},
	{jsonopt.UnescapedSlashes, 50}, {jsonopt.UnescapedUnicode, 50}, {jsonopt.UnescapedLineTerminators, 50},
	{jsonopt.PartialOutputOnError, 30}, {jsonopt.InvalidUTF8Ignore, 25}, {jsonopt.InvalidUTF8Substitute, 40},
	{jsonopt.ForceObject, 5}, {jsonopt.PrettyPrint, 5}, {jsonopt.PreserveZeroFraction, 30}, {jsonopt.ThrowOnError, 5},
	{jsonopt.NumericCheck, 30}, {1 << 12, 1}, {1 << 19, 1}, {1 << 23, 1}, {1 << 31, 1},
}

// drawOptions draws an option set; stats, if not nil, counts each bit.
func drawOptions(r *rand.Rand, stats *GenStats) jsonopt.Options {
	var o jsonopt.Options
	for _, od := range optionOdds {
		if r.Intn(100) < od.pct {
			o |= od.bit
		}
	}
	if stats != nil {
		for k := 0; k < 32; k++ {
			if o&(1<<k) != 0 {
				stats.Option[k]++
			}
		}
	}
	return o
}

// GenStats counts what a generator drew.
type GenStats struct {
	Inputs  uint64     // inputs generated
	Valid   uint64     // of which from the valid-only profile
	Numeric uint64     // of which numeric or near-numeric strings (internal/numgen)
	Bytes   uint64     // total input bytes
	Draws   uint64     // class draws (units)
	Class   []uint64   // draws per class, indexed like Classes()
	Option  [32]uint64 // option sets with bit k set
}

// NewGenStats returns empty statistics.
func NewGenStats() *GenStats { return &GenStats{Class: make([]uint64, len(classes))} }

// Merge adds o to s.
func (s *GenStats) Merge(o *GenStats) {
	s.Inputs += o.Inputs
	s.Valid += o.Valid
	s.Numeric += o.Numeric
	s.Bytes += o.Bytes
	s.Draws += o.Draws
	for i := range s.Class {
		s.Class[i] += o.Class[i]
	}
	for k := range s.Option {
		s.Option[k] += o.Option[k]
	}
}

// Write prints the statistics as two tables: how often each byte class was drawn (count,
// share of all draws, expected share) and how often each option bit was set.
func (s *GenStats) Write(w io.Writer) {
	fmt.Fprintf(w, "%d inputs (%d valid-only, %d numeric), %d bytes, %d class draws\n", s.Inputs, s.Valid, s.Numeric, s.Bytes, s.Draws)
	fmt.Fprintf(w, "  %-18s %12s %7s %9s  %s\n", "class", "draws", "share", "weight", "what")
	for i, c := range classes {
		share, want := 0.0, 100*float64(c.weight)/float64(mixedProfile.total)
		if s.Draws > 0 {
			share = 100 * float64(s.Class[i]) / float64(s.Draws)
		}
		fmt.Fprintf(w, "  %-18s %12d %6.2f%% %8.2f%%  %s\n", c.name, s.Class[i], share, want, c.doc)
	}
	fmt.Fprintf(w, "  %-30s %12s %7s\n", "option bit", "inputs", "share")
	for k := 0; k < 32; k++ {
		if s.Option[k] == 0 {
			continue
		}
		share := 0.0
		if s.Inputs > 0 {
			share = 100 * float64(s.Option[k]) / float64(s.Inputs)
		}
		fmt.Fprintf(w, "  %-30s %12d %6.2f%%\n", jsonopt.Options(1<<k).String(), s.Option[k], share)
	}
}

// splitMix is a SplitMix64 rand.Source64 that can be re-seeded in a few nanoseconds, so that
// every input of a campaign has its own seed (seed, index) and can be regenerated alone.
type splitMix struct{ s uint64 }

func (m *splitMix) Uint64() uint64 {
	m.s += 0x9E3779B97F4A7C15
	z := m.s
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

func (m *splitMix) Int63() int64    { return int64(m.Uint64() >> 1) }
func (m *splitMix) Seed(seed int64) { m.s = uint64(seed) }

// inputSeed is the seed of input i of the campaign seeded with seed.
func inputSeed(seed int64, i uint64) int64 {
	m := splitMix{uint64(seed) ^ 0x5DEECE66D}
	m.s += i * 0xD1B54A32D192ED03
	return int64(m.Uint64())
}

// Generator makes the random space's samples: input i of the campaign seeded with Seed is
// always the same, whatever else was generated before (each input is seeded from the pair),
// so campaigns are reproducible across worker counts. A Generator belongs to one goroutine.
type Generator struct {
	Seed   int64
	MaxLen int       // longest input (default DefaultMaxLen)
	Stats  *GenStats // what was drawn so far

	src *splitMix
	f   *gofuzz.Fuzzer
	buf []byte
}

// NewGenerator returns a generator for the campaign seeded with seed.
func NewGenerator(seed int64) *Generator {
	g := &Generator{Seed: seed, MaxLen: DefaultMaxLen, Stats: NewGenStats(), src: &splitMix{}}
	g.f = gofuzz.New().RandSource(g.src).Funcs(g.fillText, g.fillOptions)
	return g
}

// fillText is gofuzz's custom filler for Text: one input in ten is a numeric or near-numeric
// string (internal/numgen); of the others about a third are valid UTF-8 only, the rest mix
// every class.
func (g *Generator) fillText(t *Text, c gofuzz.Continue) {
	valid := c.Intn(3) == 0
	if c.Intn(10) == 0 {
		// One input in ten is a whole numeric or near-numeric string (JSON_NUMERIC_CHECK,
		// spec §1.7): a number inside other text is no number.
		g.buf = numgen.Append(g.buf[:0], c.Intn)
		g.Stats.Numeric++
	} else {
		g.buf = appendInput(c.Rand, g.buf[:0], valid, g.MaxLen, g.Stats)
	}
	*t = append(Text(nil), g.buf...)
	g.Stats.Inputs++
	g.Stats.Bytes += uint64(len(*t))
	if valid {
		g.Stats.Valid++
	}
}

// fillOptions is gofuzz's custom filler for option sets.
func (g *Generator) fillOptions(o *jsonopt.Options, c gofuzz.Continue) {
	*o = drawOptions(c.Rand, g.Stats)
}

// Sample returns input i of the campaign (and counts it in Stats).
func (g *Generator) Sample(i uint64) Sample {
	g.src.Seed(inputSeed(g.Seed, i))
	var s Sample
	g.f.Fuzz(&s)
	return s
}
