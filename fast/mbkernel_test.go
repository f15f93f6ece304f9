//go:build !purego && (amd64 || arm64)

package fast

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/difffuzz/difffuzz/boundary"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// mbTestKernel is a multi-byte kernel (an assembly function in mbKernels' sense) for
// TestMBKernelProgress: w is its window size.
type mbTestKernel struct {
	name   string
	w      int
	f      func(dst, src []byte, c *escCtx) (int, int)
	sparse sparseRule
}

// sparseRule is what a multi-byte kernel does with a window of few bytes >= 0x80.
type sparseRule int

const (
	sparseInGo   sparseRule = iota // it gets none: sparse text is turned away in Go (mbDense)
	sparseBack                     // it returns at a window with fewer than three bytes >= 0x80
	sparseWrites                   // it writes a window of at most 8, in 2-byte sequences
)

// TestMBKernelProgress checks the multi-byte kernels' stopping rules directly, which Escape's
// output alone cannot show (Go finishes whatever a kernel leaves): a window of w bytes is
// taken while 2w bytes are left (32 for NEON, 64 for AVX2, 128 for AVX-512), and an invalid sequence
// stops the kernel at the last character start before the first error: the invalid sequence
// itself, or the ASCII byte before a stray continuation byte.
func TestMBKernelProgress(t *testing.T) {
	ks := testMBKernels()
	if len(ks) == 0 {
		t.Skip("no multi-byte kernel runs on this CPU")
	}
	c := &ctxs[ctxIndex(0)]
	run := func(k mbTestKernel, src string) (int, string) {
		// Canary-filled: the kernel's run-ahead stores reach at most w bytes past its output.
		dst := make([]byte, 6*len(src)+64+k.w)
		for i := range dst {
			dst[i] = 0xAA
		}
		s, d := k.f(dst, []byte(src), c)
		if i := strings.IndexFunc(string(dst[d+k.w:]), func(r rune) bool { return r != utf8.RuneError }); i >= 0 {
			t.Errorf("%s(%q...) wrote %d bytes past its output of %d (run-ahead at most %d)", k.name, src[:min(len(src), 28)], k.w+i, d, k.w)
		}
		return s, string(dst[:d])
	}
	for _, k := range ks {
		for n := 2; n <= 400; n += 2 {
			want := 0
			for want+2*k.w <= n {
				want += k.w
			}
			got, out := run(k, strings.Repeat("ж", n/2))
			if got != want || out != strings.Repeat(`\u0436`, got/2) {
				t.Fatalf("%s(%d bytes of ж) = %d, %q; want %d, %d escapes", k.name, n, got, out, want, want/2)
			}
		}
		ascii := strings.Repeat("a", 200)
		switch k.sparse {
		case sparseBack:
			// One 2-byte character in a window is sparse (back to Go at once); one 3-byte
			// character is not.
			if got, _ := run(k, "é"+ascii); got != 0 {
				t.Errorf("%s(é and 200 ASCII bytes) went on to %d; want a return at 0 (sparse)", k.name, got)
			}
		case sparseWrites:
			if got, out := run(k, "é"+ascii); got < k.w || out != mbRef(("é" + ascii)[:got]) {
				t.Errorf("%s(é and 200 ASCII bytes) = %d, %q; want at least a window (%d), escaped", k.name, got, out, k.w)
			}
		}
		if k.sparse != sparseInGo {
			if got, _ := run(k, "€"+ascii); got < k.w {
				t.Errorf("%s(€ and 200 ASCII bytes) stopped at %d; want at least a window (%d)", k.name, got, k.w)
			}
		}
		// Windows start at character boundaries and end before a sequence that does not end
		// in them (or at w): in text whose leads sit at every position of a window's last
		// bytes, the kernel stops where mbWindows says, having written every character.
		for _, text := range [][2]string{{"", "ж"}, {"", "\u07ff"}, {"ж", "\ufffd"}, {"a", "\ufffd"}, {"a", "ж"}, {"", "中"}, {"a", "中"}, {"ab", "中"},
			{"", "😀"}, {"a", "😀"}, {"ab", "😀"}, {"abc", "😀"}, {"", "жa😀"}, {"", "ж中"},
			// E0 and BF at a window's end (threeByteWindow's B).
			{"", "\u0800"}, {"a", "\u0800"}, {"ab", "\u0800"}, {"", "\uffff"}, {"a", "\uffff"}, {"ab", "\uffff"}} {
			full := text[0] + strings.Repeat(text[1], 400/len(text[1])+1)
			for n := 2 * k.w; n <= 400; n++ {
				src := full[:n]
				for !utf8.ValidString(src) {
					src = src[:len(src)-1]
				}
				got, out := run(k, src)
				if want := mbWindows(src, k.w); got != want || out != mbRef(src[:got]) {
					t.Fatalf("%s(%d bytes of %q) = %d, %q; want %d, %q", k.name, len(src), text, got, out, want, mbRef(src[:want]))
				}
			}
		}
		pad := strings.Repeat("ж", 100)
		for _, tc := range []struct {
			src  string
			want int
		}{
			{strings.Repeat("ж", 10) + "\xff" + pad, 20},
			{strings.Repeat("ж", 10) + "\xd0" + pad, 20},     // a lead without its continuation
			{strings.Repeat("ж", 10) + "a\x80" + pad, 20},    // a stray continuation after 'a': stops before 'a'
			{strings.Repeat("ж", 10) + "\xe2\x82" + pad, 20}, // truncated 3-byte sequence
			{"\x80" + pad, 0}, // at the start
			{strings.Repeat("ж", 10) + "\xed\xa0\x80" + pad, 20},     // surrogate
			{strings.Repeat("ж", 10) + "\xf0\x9f\x98\x80" + pad, -1}, // valid: no stop there
			{strings.Repeat("中", 3) + "\xff" + pad, 9},               // 3-byte text, stopped early
			{strings.Repeat("中", 5) + "\xff" + pad, 15},
			{strings.Repeat("中", 6) + "\xff" + pad, 18},
			{strings.Repeat("中", 10) + "\xff" + pad, 30},
			{strings.Repeat("中", 11) + "\xff" + pad, 33},
			{"a" + strings.Repeat("😀", 3) + "\xff" + pad, 13},
		} {
			got, out := run(k, tc.src)
			if tc.want >= 0 && got != tc.want {
				t.Errorf("%s(%q...) stopped at %d; want %d (output %q)", k.name, tc.src[:min(len(tc.src), 28)], got, tc.want, out)
			}
			if tc.want < 0 && got < 24 {
				t.Errorf("%s(%q...) stopped at %d, at a valid 4-byte sequence", k.name, tc.src[:28], got)
			}
			want := mbRef(tc.src[:got])
			ok := out == want
			if tc.want < 0 {
				want = mbRef(tc.src[:20])
				ok = strings.HasPrefix(out, want)
			}
			if !ok {
				t.Errorf("%s(%q...) wrote %q; want the escape of the bytes before its stop, %q", k.name, tc.src[:min(len(tc.src), 28)], out, want)
			}
		}
	}
}

// mbWindows is how much of valid src, without escaped ASCII bytes and dense (three bytes >=
// 0x80 in every window), a multi-byte kernel with window w consumes: windows that start at
// character boundaries, each ending before the first sequence that does not end in it (else
// w bytes long), taken while 2w bytes are left.
func mbWindows(src string, w int) int {
	p := 0
	for len(src)-p >= 2*w {
		b := w
		for q := 0; q < w; q++ {
			if c := src[p+q]; c >= 0xC0 && q+map[bool]int{true: 2, false: 3}[c < 0xE0]+map[bool]int{true: 1, false: 0}[c >= 0xF0] > w {
				b = q
				break
			}
		}
		p += b
	}
	return p
}

// mbRef is the escape of valid src without escaped ASCII bytes under the default options:
// ASCII as itself, every other code point as \uXXXX in lower-case hex (UTF-16 units).
func mbRef(src string) string {
	var b strings.Builder
	for _, r := range src {
		if r < 0x80 {
			b.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&b, `\u%04x`, u)
		}
	}
	return b.String()
}

// kernelRef writes the reference escape of src (a whole number of characters) under c: ASCII
// by asciiGeneric, each sequence >= 0x80 by escapeMB (valid ones as \uXXXX).
func kernelRef(src []byte, c *escCtx) []byte {
	ref := make([]byte, 6*len(src)+16)
	i, d := 0, 0
	for i < len(src) {
		e := i
		for e < len(src) && src[e] < 0x80 {
			e++
		}
		s, n := asciiGeneric(ref[d:], src[i:e], c)
		i, d = i+s, d+n
		if i < len(src) {
			var ok bool
			i, d, ok = escapeMB(ref, d, src, i, min(len(src), i+1), c, 0)
			if !ok {
				return nil
			}
		}
	}
	return ref[:d]
}

// windowDefect is a byte string TestMBTwoByteWindows and TestMBThreeByteWindows put in their
// text, and whether it is valid UTF-8.
type windowDefect struct {
	s     string
	valid bool
}

// TestMBTwoByteWindows checks the multi-byte kernels on text of ASCII and 2-byte sequences
// only (the AVX-512 kernel's twoByteWindow shortcut) with one defect at every offset of its
// first two windows: overlong leads (C0, C1), two leads before their two continuation bytes,
// a lead before ASCII, an escaped byte, another lead or C0, a stray continuation byte, and a
// 3-byte sequence among them (shortWindows); then windows of one invalid shape throughout: a
// 2-byte lead before C0 or C1, whose leads and continuation bytes a wrong lead test could
// take for a valid window's.
func TestMBTwoByteWindows(t *testing.T) {
	// Lower-case letters and the continuation bytes A0..BF have bit 5 set, as the leads C0..DF
	// have not: a test of bit 5 alone cannot tell them apart.
	shortWindows(t, strings.Repeat("aébàç", 40), []windowDefect{
		{"\xc0\xa0", false}, {"\xc1\xbf", false}, {"\xc3\xc3\xa9\xa9", false}, {"\xc3a", false},
		{"\xc3\"", false}, {"\xc3\xc3\xa9", false}, {"a\xa9", false}, {"\xdf\xbf", true}, {"\xc2\x80", true},
		{"€", true}, {"\"", true}, {"\xc3\xc0", false},
	})
	invalidWindows(t, "\xc3\xc0", "\xdf\xc1")
}

// TestMBThreeByteWindows checks the multi-byte kernels on text of 3-byte sequences only (the
// AVX-512 kernel's threeByteWindow shortcut), E0 and ED leads among them at their limits
// (U+0800, U+D7FF, U+E000, U+FFFF), with one defect at every offset of its first two windows:
// overlong (E0 80..9F) and surrogate (ED A0..BF) sequences, a lead before one continuation
// byte, before another lead or before ASCII, a stray continuation byte, leads of other lengths
// (C0, F5) and, valid, ASCII, an escaped byte and 2- and 4-byte sequences among them
// (shortWindows).
func TestMBThreeByteWindows(t *testing.T) {
	shortWindows(t, strings.Repeat("中\u0800文\ud7ff字\ue000\uffff", 20), []windowDefect{
		{"\xe0\x80\x80", false}, {"\xe0\x9f\xbf", false}, {"\xed\xa0\x80", false}, {"\xed\xbf\xbf", false},
		{"\xe4\xb8", false}, {"\xe4\xe4\xb8\xad", false}, {"\xe4a\xad", false}, {"\xe4\xb8a", false},
		{"\xad", false}, {"\xc0\x80", false}, {"\xf5\x80\x80\x80", false},
		{"a", true}, {"\"", true}, {"é", true}, {"😀", true}, {"\xe0\xa0\x80", true}, {"\xed\x9f\xbf", true},
	})
	// Windows of one invalid shape throughout (3-byte leads with one continuation byte each,
	// or three; overlongs; surrogates).
	invalidWindows(t, "\xe4\xb8", "\xe4\xb8\xad\xad", "\xe0\x80\x80", "\xed\xa0\x80")
}

// invalidWindows checks that the multi-byte kernels consume nothing of four windows of each
// invalid shape repeated.
func invalidWindows(t *testing.T, shapes ...string) {
	t.Helper()
	c := &ctxs[ctxIndex(0)]
	for _, k := range testMBKernels() {
		if strings.HasSuffix(k.name, "Tag") {
			continue
		}
		for _, bad := range shapes {
			src := []byte(strings.Repeat(bad, 4*k.w/len(bad)))
			dst := make([]byte, 6*len(src)+64+k.w)
			if got, nd := k.f(dst, src, c); got != 0 {
				t.Errorf("%s(% x...) consumed %d bytes (wrote %q); want none", k.name, bad, got, dst[:nd])
			}
		}
	}
}

// TestMBFourByteWindows checks the multi-byte kernels on text of 4-byte sequences and spaces
// (the AVX-512 kernel's fourByteTriples), F0 and F4 leads at their limits (U+10000, U+3FFFF,
// U+100000, U+10FFFF), with one defect at every offset of its first two windows: overlong (F0
// 80..8F) and too large (F4 90.., F5) sequences, a lead before two continuation bytes or
// before ASCII, a stray continuation byte and, valid, an escaped byte and 2- and 3-byte
// sequences among them (shortWindows).
func TestMBFourByteWindows(t *testing.T) {
	shortWindows(t, strings.Repeat("😀 𐀀𿿿🚀 􀀀􏿿 ", 12), []windowDefect{
		{"\xf0\x8f\xbf\xbf", false}, {"\xf4\x90\x80\x80", false}, {"\xf5\x80\x80\x80", false},
		{"\xf0\x9f\x98", false}, {"\xf0\x9f\x98a", false}, {"\xbf", false}, {"\xf0\xf0\x9f\x98\x80", false},
		{"\"", true}, {"\x1f", true}, {"é", true}, {"中", true}, {"\xf0\x90\x80\x80", true}, {"\xf4\x8f\xbf\xbf", true},
	})
}

// guardedInputs returns a function that copies an input of at most size bytes flush against a
// guard page, where a read past its end faults (a panic in the calling test's goroutine, until
// the test ends); each copy replaces the one before.
func guardedInputs(t *testing.T, size int) func(s []byte) []byte {
	t.Helper()
	buf, err := boundary.NewBuffer(size)
	if err != nil {
		t.Fatal(err)
	}
	old := debug.SetPanicOnFault(true)
	t.Cleanup(func() {
		debug.SetPanicOnFault(old)
		_ = buf.Free()
	})
	return func(s []byte) []byte {
		in := buf.Input(boundary.EndFlush, len(s), 0)
		copy(in, s)
		return in
	}
}

// shortWindows puts each defect at every offset of base's first two windows (of each
// multi-byte kernel) and checks the kernel: it must write the reference escape (kernelRef) of
// valid input up to where it stops, and never consume an invalid byte.
func shortWindows(t *testing.T, base string, defects []windowDefect) {
	t.Helper()
	ks := testMBKernels()
	if len(ks) == 0 {
		t.Skip("no multi-byte kernel runs on this CPU")
	}
	for _, k := range ks {
		for _, ci := range []int{ctxIndex(0), ctxIndex(jsonopt.HexTag | jsonopt.HexQuot)} {
			c := &ctxs[ci]
			if c.tag != strings.HasSuffix(k.name, "Tag") {
				continue
			}
			for _, d := range defects {
				for p := 0; p <= 2*k.w+2; p++ {
					src := []byte(base[:p] + d.s + base[p:])
					for !utf8.Valid(src[:p]) {
						p++
						src = []byte(base[:p] + d.s + base[p:])
					}
					dst := make([]byte, 6*len(src)+64+k.w)
					got, nd := k.f(dst, src, c)
					ref := kernelRef(src[:got], c)
					switch {
					case !d.valid && got > p:
						t.Fatalf("%s, ctx %d: %q at %d: consumed %d bytes, past the invalid bytes", k.name, ci, d.s, p, got)
					case ref == nil || string(dst[:nd]) != string(ref):
						t.Fatalf("%s, ctx %d: %q at %d: wrote %q for the %d bytes it consumed; want %q", k.name, ci, d.s, p, dst[:nd], got, ref)
					}
				}
			}
		}
	}
}

// TestMBSparseWindows checks the multi-byte kernels on ASCII text (escaped bytes among it)
// with a few sequences in a window: valid 2-byte ones (the AVX-512 kernel's sparseWindow
// writes a window of up to 8 bytes >= 0x80 in them), and now and then a 3- or 4-byte one, a
// lead at a window's last byte, or a defect (overlong lead, lead before ASCII or before
// another lead, stray continuation byte). A kernel must write the reference escape of what
// it consumes and never consume an invalid byte; one that writes sparse windows must also
// consume valid text of ASCII and 2-byte sequences up to its last two windows.
func TestMBSparseWindows(t *testing.T) {
	ks := testMBKernels()
	if len(ks) == 0 {
		t.Skip("no multi-byte kernel runs on this CPU")
	}
	// Each input flush against a guard page: a read past its end faults.
	guarded := guardedInputs(t, 1024)
	r := rand.New(rand.NewPCG(36, 8))
	seqs := []string{"é", "ß", "\u0080", "\u07ff", "Ω"}
	odd := []string{"€", "😀", "\xc0\xa0", "\xc1\xbf", "\xc3a", "\xc3\xc3\xa9", "a\xa9", "a\x80", "\xc3\""}
	for _, k := range ks {
		for _, ci := range []int{ctxIndex(0), ctxIndex(jsonopt.HexTag | jsonopt.HexQuot)} {
			c := &ctxs[ci]
			if c.tag != strings.HasSuffix(k.name, "Tag") {
				continue
			}
			// One sequence at every offset of inputs of 128 to 200 bytes (a lead at a
			// window's last byte, its continuation the next window's first, among them),
			// then random text.
			for iter := 0; iter < 73*200+3000; iter++ {
				var src []byte
				bad := -1
				if n, p := 128+iter/200, iter%200; iter < 73*200 {
					// é, or (odd n) U+07FF, whose continuation byte BF must not be taken for a lead at a
					// window's last byte; a quote after it (the window's rest is stored as it is,
					// and the quote must still be escaped).
					seq := []string{"é", "\u07ff"}[n%2]
					if p+3 > n {
						continue
					}
					src = []byte(strings.Repeat("a", p) + seq + `"` + strings.Repeat("b", n-p-3))
				} else {
					src, bad = sparseText(r, 130+r.IntN(300), seqs, odd, iter%3 == 0)
				}
				src = guarded(src)
				dst := make([]byte, 6*len(src)+64+k.w)
				got, nd := k.f(dst, src, c)
				ref := kernelRef(src[:got], c)
				switch {
				case bad >= 0 && got > bad:
					t.Fatalf("%s, ctx %d: consumed %d bytes of %q, past the invalid byte at %d", k.name, ci, got, src, bad)
				case ref == nil || string(dst[:nd]) != string(ref):
					t.Fatalf("%s, ctx %d: wrote %q for the %d bytes it consumed of %q; want %q", k.name, ci, dst[:nd], got, src, ref)
				case k.sparse == sparseWrites && bad < 0 && !bytes.ContainsFunc(src, func(r rune) bool { return r > 0x7ff }) && got < len(src)-2*k.w:
					t.Fatalf("%s, ctx %d: stopped at %d of %d bytes of valid sparse 2-byte text %q", k.name, ci, got, len(src), src)
				}
			}
		}
	}
}

// sparseText is n bytes or so of ASCII prose with escaped bytes (quotes, backslashes, '<',
// a newline) and about one character in 20 from seqs; with odd, now and then one from odd
// too, and a 2-byte sequence put where a 64-byte window ends. bad is the offset of the
// first invalid byte (-1: none).
func sparseText(r *rand.Rand, n int, seqs, odd []string, withOdd bool) (src []byte, bad int) {
	bad = -1
	for len(src) < n {
		switch x := r.IntN(100); {
		case x < 5:
			src = append(src, seqs[r.IntN(len(seqs))]...)
		case x < 7 && withOdd:
			s := odd[r.IntN(len(odd))]
			if bad < 0 && !utf8.ValidString(s) {
				bad = len(src) + strings.IndexFunc(s, func(r rune) bool { return r == utf8.RuneError })
			}
			src = append(src, s...)
		case x < 9:
			src = append(src, `"\<`[r.IntN(3)])
		case x < 10:
			src = append(src, '\n')
		case x < 12 && len(src)%64 > 56:
			src = append(src, bytes.Repeat([]byte{'a'}, 63-len(src)%64)...)
			src = append(src, "é"...)
		default:
			src = append(src, "abcdefghij klmnopqrstuvwxyz"[r.IntN(27)])
		}
	}
	return src, bad
}
