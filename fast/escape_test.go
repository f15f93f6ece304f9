package fast_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// placeOpts are the option sets the placement test runs under: every ASCII rule of spec §1.3
// is switched both ways, and every invalid-UTF-8 mode of §1.5 occurs.
var placeOpts = []jsonopt.Options{
	0,
	jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot,
	jsonopt.UnescapedSlashes | jsonopt.HexTag,
	jsonopt.HexAmp | jsonopt.HexApos | jsonopt.PartialOutputOnError,
	jsonopt.UnescapedUnicode,
	jsonopt.UnescapedUnicode | jsonopt.UnescapedLineTerminators | jsonopt.InvalidUTF8Substitute,
	jsonopt.InvalidUTF8Ignore | jsonopt.HexQuot,
	jsonopt.InvalidUTF8Substitute | jsonopt.UnescapedLineTerminators,
	jsonopt.InvalidUTF8Ignore | jsonopt.UnescapedUnicode,
}

// A unit is one dirty thing placed into clean filler: an ASCII byte (cp < 0x80, escaped by
// asciiOut), a valid sequence of code point cp, or an invalid sequence that decodes to bad
// failing steps when followed by filler or the end of the string (spec §2.2).
type unit struct {
	in  string
	cp  rune // valid sequence (or ASCII byte) when bad == 0
	bad int  // number of failing decoder steps
}

func units() []unit {
	var us []unit
	for b := 0; b < 0x20; b++ {
		us = append(us, unit{in: string(rune(b)), cp: rune(b)})
	}
	for _, b := range `"\/<>&'` + "\x7f" {
		us = append(us, unit{in: string(b), cp: b})
	}
	for _, r := range []rune{0x80, 0xE9, 0x7FF, 0x800, 0x20AC, 0x2027, 0x2028, 0x2029, 0xFEFF, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF} {
		us = append(us, unit{in: string(r), cp: r})
	}
	for _, u := range []struct {
		in  string
		bad int
	}{
		{"\x80", 1}, {"\xbf", 1}, {"\xc0\xaf", 2}, {"\xc3", 1}, {"\xc3\xff", 1}, {"\xe2\x82", 1},
		{"\xe0\x80\x80", 1}, {"\xed\xa0\x80", 1}, {"\xe2\xc0\x80", 1}, {"\xf0\x9f\x98", 1},
		{"\xf0\x80\x80\x80", 1}, {"\xf4\x90\x80\x80", 1}, {"\xf0\x9f\xc0\x80", 1}, {"\xf5\x80", 2}, {"\xff", 1},
	} {
		us = append(us, unit{in: u.in, bad: u.bad})
	}
	return us
}

// unitOut is what json_encode makes of u under opts (spec §1.3–§1.5); ok is false when the
// whole escape fails.
func unitOut(u unit, opts jsonopt.Options) (string, bool) {
	if u.bad > 0 {
		s, ok := badOut(opts)
		return strings.Repeat(s, u.bad), ok
	}
	if u.cp < 0x80 {
		return asciiOut(byte(u.cp), opts), true
	}
	return cpOut(uint32(u.cp), []byte(u.in), opts), true
}

// filler is clean under every option set: letters, digits, space, '-', '.', DEL.
const filler = "The quick brown fox - jumps over 42 lazy dogs.\x7f 0123456789 abcdefghijklmnopqrstuvwxyz"

// TestPlacements puts each unit at each offset of clean filler of every length 0..70 and
// compares every implementation with the expected output built from the unit's rule.
func TestPlacements(t *testing.T) {
	ims := impls(t)
	us := units()
	maxLen := 70
	if testing.Short() {
		maxLen = 40
	}
	var dst []byte
	for n := 0; n <= maxLen; n++ {
		clean := filler[:n]
		for _, opts := range placeOpts {
			want := `"` + clean + `"`
			for _, im := range ims {
				got, err := im.escape(dst[:0], []byte(clean), opts)
				if err != nil || string(got) != want {
					t.Fatalf("%s: Escape(%q, %s) = %q, %v; want %q", im.name, clean, opts, got, err, want)
				}
				dst = got
			}
		}
		for off := 0; off < n; off++ {
			for _, u := range us {
				in := clean[:off] + u.in + clean[off+1:]
				for _, opts := range placeOpts {
					mid, ok := unitOut(u, opts)
					want, wantErr := `"`+clean[:off]+mid+clean[off+1:]+`"`, error(nil)
					if !ok {
						want, wantErr = "", jsonopt.ErrUTF8
						if opts&jsonopt.PartialOutputOnError != 0 {
							want = "null"
						}
					}
					for _, im := range ims {
						got, err := im.escape(dst[:0], []byte(in), opts)
						if err != wantErr || string(got) != want {
							t.Fatalf("%s: Escape(%q, %s) = %q, %v; want %q, %v (unit %q at %d of %d)",
								im.name, in, opts, got, err, want, wantErr, u.in, off, n)
						}
						if got != nil {
							dst = got
						}
					}
				}
			}
		}
	}
}

// TestBuffers checks that Escape and UTF8Decode keep dst's prefix, never modify src, and
// never write into dst's spare capacity past the returned length — whether dst has room or
// must grow, and on error too — and that they append what the model says. Under
// NUMERIC_CHECK the numeric inputs become numbers (an integer, doubles in both of PHP's
// notations, one of 18 bytes with whitespace), "1e999" stays a string, and the others are
// escaped as strings, invalid UTF-8 included.
func TestBuffers(t *testing.T) {
	inputs := []string{"", "plain", "a\"b\\c/d\x00", "é€😀\u2028", "abc\x80def", "\xe0\x80A", strings.Repeat("ж<&>'", 300),
		"007", " -1.5e3\t", "1e999", "1e-7", "\f\v   12.000e15  "}
	optsList := append([]jsonopt.Options{jsonopt.PartialOutputOnError, jsonopt.NumericCheck,
		jsonopt.NumericCheck | jsonopt.PreserveZeroFraction | jsonopt.PartialOutputOnError}, placeOpts...)
	const canary = 0xA5
	for _, im := range impls(t) {
		for _, in := range inputs {
			for _, opts := range optsList {
				for _, room := range []int{0, 3, 10 * len(in), 10*len(in) + 64} {
					buf := make([]byte, 5, 5+room)
					copy(buf, "pre:!")
					for i := range buf[5:cap(buf)] {
						buf[:cap(buf)][5+i] = canary
					}
					src := []byte(in)
					got, err := im.escape(buf, src, opts)
					name := fmt.Sprintf("%s: Escape(%q, %s) with %d spare", im.name, in, opts, room)
					assert.Equal(t, in, string(src), "%s modified src", name)
					assert.Equal(t, "pre:!", string(buf), "%s modified dst's prefix", name)
					assert.Equal(t, "pre:!", string(got[:min(len(got), 5)]), "%s lost dst's prefix", name)
					want, code := modelEscape(src, opts) // want nil is false: nothing appended
					assert.Equal(t, code, jsonopt.ErrorCode(err), "%s: error %v: code", name, err)
					assert.Equal(t, string(want), string(got[5:]), "%s; want %s", name, show(want))
					if i := spareWritten(buf, got, canary); i >= 0 {
						t.Errorf("%s wrote %#x into spare capacity at dst[%d], past the returned length %d",
							name, buf[:cap(buf)][i], i, len(got))
					}
				}
			}
			// UTF8Decode: same buffer rules.
			for _, room := range []int{0, len(in) + 8} {
				buf := make([]byte, 2, 2+room)
				copy(buf, "p:")
				for i := range buf[2:cap(buf)] {
					buf[:cap(buf)][2+i] = canary
				}
				src := []byte(in)
				got := im.utf8Decode(buf, src)
				assert.Equal(t, in, string(src), "%s: UTF8Decode(%q) modified src", im.name, in)
				assert.Equal(t, "p:", string(buf), "%s: UTF8Decode(%q) modified dst's prefix", im.name, in)
				assert.Equal(t, "p:"+string(modelUTF8Decode(src)), string(got), "%s: UTF8Decode(%q)", im.name, in)
				if i := spareWritten(buf, got, canary); i >= 0 {
					t.Errorf("%s: UTF8Decode(%q) wrote into spare capacity at dst[%d]", im.name, in, i)
				}
			}
		}
	}
}

// TestLong covers inputs longer than the escaper's 16 KiB block, with a multi-byte character
// straddling each block edge and worst-case expansion. With -short (the mutation killer
// "long") it keeps the sizes one byte either side of the block and two repetition counts of
// each tail.
func TestLong(t *testing.T) {
	var inputs [][]byte
	sizes, reps := []int{16<<10 - 2, 16<<10 - 1, 16 << 10, 16<<10 + 1, 40 << 10}, 5
	if testing.Short() {
		sizes, reps = []int{16<<10 - 1, 16<<10 + 1}, 2
	}
	for _, n := range sizes {
		for _, tail := range []string{"é", "€", "😀", "\u2028", "\x80", "\x01", "\"", "\xf0\x9f\x98"} {
			s := []byte(strings.Repeat("a", n) + tail + strings.Repeat("b", 100))
			inputs = append(inputs, s)
			for i := 0; i < reps; i++ {
				inputs = append(inputs, bytes.Repeat([]byte(tail), (n+16<<10)/len(tail)+i))
			}
			// Long text made invalid by its last byte, a lead with nothing after it.
			inputs = append(inputs, append(bytes.Repeat([]byte(tail), (n+16<<10)/len(tail)), 0xC3))
		}
	}
	opts := []jsonopt.Options{0, jsonopt.UnescapedUnicode, jsonopt.InvalidUTF8Substitute,
		jsonopt.InvalidUTF8Substitute | jsonopt.UnescapedUnicode, jsonopt.InvalidUTF8Ignore | jsonopt.HexQuot}
	ims := impls(t)
	const canary = 0xA5
	for _, in := range inputs {
		// dst with room for the output: a long non-ASCII string goes into the spare capacity
		// once proven valid (or a scratch buffer), which an invalid one must leave untouched.
		spare := bytes.Repeat([]byte{canary}, 7*len(in))[:0]
		for _, o := range opts {
			want, code := modelEscape(in, o) // once per input and option set: the model is the slow part
			for _, im := range ims {
				for _, dst := range [][]byte{nil, spare} {
					escapeAgainstModel(t, im, dst, in, o, want, code, canary)
				}
			}
		}
		want := modelUTF8Decode(in)
		for _, im := range ims {
			if got := im.utf8Decode(nil, in); !bytes.Equal(got, want) {
				t.Fatalf("%s: UTF8Decode(%d bytes) differs from the model", im.name, len(in))
			}
		}
	}
}

// escapeAgainstModel runs im's Escape of in under o into dst, whose spare capacity holds
// canary, and fails the test unless the output and error code are the model's (want, code)
// and nothing was written into that capacity past the returned length; it then fills the
// spare capacity with canary again.
func escapeAgainstModel(t *testing.T, im impl, dst, in []byte, o jsonopt.Options, want []byte, code int, canary byte) {
	t.Helper()
	got, err := im.escape(dst, in, o)
	if jsonopt.ErrorCode(err) != code || !bytes.Equal(got, want) && !(want == nil && len(got) == 0) {
		t.Fatalf("%s: Escape(%d bytes ending % x, %s) differs from the model (len %d vs %d, err %v)",
			im.name, len(in), in[max(0, len(in)-8):], o, len(got), len(want), err)
	}
	if i := spareWritten(dst, got, canary); i >= 0 {
		t.Fatalf("%s: Escape(%d bytes ending % x, %s) wrote %#x into spare capacity at dst[%d], past the returned length %d",
			im.name, len(in), in[max(0, len(in)-8):], o, dst[:cap(dst)][i], i, len(got))
	}
	full := dst[:cap(dst)]
	for i := len(dst); i < len(full); i++ {
		full[i] = canary
	}
}

// spareWritten returns the index of the first byte of dst's spare capacity that is no longer
// canary although it lies past what got (the result of appending to dst) covers, or -1. If got
// is a new array, none of dst's spare capacity may have changed.
func spareWritten(dst, got []byte, canary byte) int {
	from := len(dst)
	if cap(got) > 0 && cap(dst) > 0 && &got[:1][0] == &dst[:1][0] {
		from = len(got)
	}
	full := dst[:cap(dst)]
	for i := from; i < len(full); i++ {
		if full[i] != canary {
			return i
		}
	}
	return -1
}

// TestCheckedInPlace covers strings of 256 bytes to 16 KiB that start with 4-byte sequences,
// written into dst's spare capacity in error mode: escapeLong proves them valid with the
// kernel's vector check and escapes them in place with the kernel's form for valid input
// (checkPays). Valid, and with a defect in the middle or at the end, which must leave the spare
// capacity untouched.
func TestCheckedInPlace(t *testing.T) {
	bases := []string{"😀😀😀 ", "😀😀😀😀жé€ c\n", "\U0010ffff\U00010000\U0001f600"}
	defects := []string{"\xc3", "\xed\xa0\x80", "\xf0\x9f\x98", "\x80", "\xf4\x90\x80\x80", "\xf0\x8f\xbf\xbf"}
	var inputs [][]byte
	for _, n := range []int{256, 1000, 4096 + 5, 16<<10 - 1} {
		for _, base := range bases {
			for _, prefix := range []string{"", "abc"} {
				text := []byte(prefix + strings.Repeat(base, n/len(base)+1))[:n]
				text = []byte(strings.ToValidUTF8(string(text), "")) // no cut last character
				inputs = append(inputs, text)
				for _, d := range defects {
					for _, at := range []int{len(text) / 2, len(text) - 1, len(text)} {
						for at < len(text) && text[at]&0xC0 == 0x80 {
							at++ // at a character's start
						}
						inputs = append(inputs, append(append(append([]byte{}, text[:at]...), d...), text[at:]...))
					}
				}
			}
		}
	}
	const canary = 0xA5
	ims := impls(t)
	for _, in := range inputs {
		spare := bytes.Repeat([]byte{canary}, 7*len(in)+64)[:0]
		for _, o := range []jsonopt.Options{0, jsonopt.PartialOutputOnError} {
			want, code := modelEscape(in, o)
			for _, im := range ims {
				escapeAgainstModel(t, im, spare, in, o, want, code, canary)
			}
		}
	}
}

// TestShortInPlace covers strings of 16 to 70 bytes with bytes >= 0x80, the lengths where
// escapeLong and archMB's last bytes go to the one-window kernel (archShortMB), written after a
// prefix already in dst and into its spare capacity: valid text of each kind, and with an
// invalid sequence or an escaped ASCII byte at several places, under option sets that escape
// different bytes and each invalid-UTF-8 mode. The spare capacity past the result must keep its
// canary, all of it when the string fails.
func TestShortInPlace(t *testing.T) {
	bases := []string{"жжжж", "数据数据", "😀😀", "aé", "ab€😀ж c", "\u2028é\u07ff\U0010ffff\u0800\ufffd"}
	extras := []string{"\xc3", "\xed\xa0\x80", "\xf0\x9f\x98", "\x80", "\xff", "\"", "\n", "/", "<", "&", "'"}
	opts := []jsonopt.Options{0, jsonopt.PartialOutputOnError, jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos,
		jsonopt.UnescapedSlashes, jsonopt.InvalidUTF8Substitute, jsonopt.InvalidUTF8Ignore}
	var inputs [][]byte
	for n := 16; n <= 70; n++ {
		for _, base := range bases {
			text := []byte(strings.ToValidUTF8(string(bytes.Repeat([]byte(base), n)[:n]), ""))
			inputs = append(inputs, text)
			for _, x := range extras {
				for _, at := range []int{0, len(text) / 2, len(text) - 1, len(text)} {
					for at < len(text) && text[at]&0xC0 == 0x80 {
						at++
					}
					inputs = append(inputs, append(append(append([]byte{}, text[:at]...), x...), text[at:]...))
				}
			}
		}
	}
	const canary = 0xA5
	ims := impls(t)
	for _, in := range inputs {
		for _, o := range opts {
			want, code := modelEscape(in, o)
			for _, prefix := range []string{"", "[1,"} {
				dst := append(bytes.Repeat([]byte{canary}, 7*len(in)+64)[:0], prefix...)
				for _, im := range ims {
					escapeAgainstModel(t, im, dst, in, o, append([]byte(prefix), want...), code, canary)
				}
			}
			for _, im := range ims { // no room: escapeLong's other paths
				escapeAgainstModel(t, im, nil, in, o, want, code, canary)
			}
		}
	}
}

// TestConcurrent runs every implementation from several goroutines at once on inputs that take
// the pooled scratch-buffer path (long, non-ASCII, no IGNORE/SUBSTITUTE, dst with room), valid
// and invalid, so that -race sees the pool shared.
func TestConcurrent(t *testing.T) {
	inputs := [][]byte{
		[]byte(strings.Repeat("привет мир ", 50)),
		[]byte(strings.Repeat("привет мир ", 50) + "\xff"),
		[]byte(strings.Repeat("a\"😀", 100)),
	}
	ims := impls(t)
	done := make(chan string)
	for g := 0; g < 4; g++ {
		go func() {
			dst := make([]byte, 0, 1<<14)
			for r := 0; r < 50; r++ {
				for _, in := range inputs {
					for _, im := range ims {
						want, code := modelEscape(in, jsonopt.PartialOutputOnError)
						got, err := im.escape(dst[:0], in, jsonopt.PartialOutputOnError)
						if jsonopt.ErrorCode(err) != code || !bytes.Equal(got, want) {
							done <- fmt.Sprintf("%s: Escape(%.20q…) = %.20q…, %v", im.name, in, got, err)
							return
						}
					}
				}
			}
			done <- ""
		}()
	}
	for g := 0; g < 4; g++ {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}
