//go:build !purego

package fast

import (
	"bytes"
	"fmt"
	"runtime/debug"
	"testing"
	"unicode/utf8"

	"github.com/difffuzz/difffuzz/boundary"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// TestShortMB checks archShortMB, the one-window avx512 kernels for whole short strings
// (escapeShortMBAVX512Y up to 31 bytes, escapeShortMBAVX512 above), against mbRef and
// utf8.Valid at every length from 1 to shortMBMax: text of each kind (one script, 4-byte
// sequences with ASCII, mixed), each invalid sequence and each escaped ASCII byte at every
// position, under option sets that escape different bytes, with src flush against a guard page
// at either end (a read past src faults) and dst's room (3*len(src) bytes, the escape's
// length, one byte less) ending at one (a write past it faults). It must write exactly the
// model's escape (without quotes) and nothing past it when src has only clean ASCII bytes and
// valid sequences, and write nothing at all otherwise.
func TestShortMB(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no avx512 kernel on this CPU")
	}
	bases := []string{"жжжж", "数据数据", "😀😀", "😀a😀 ", "aé", "ab€😀ж c", "\u2028é\u07ff\U0010ffff\u0800\ufffd\U00010000\ud7ff\ue000",
		"\u0080\u00ff\u0100 ~\x7f"}
	// The bytes some option set below escapes (and '>', '&', '\'' that others leave alone).
	specials := []string{"\"", "\\", "/", "\x00", "\x1f", "\n", "<", ">", "&", "'"}
	optSets := []jsonopt.Options{0, jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot,
		jsonopt.UnescapedSlashes, jsonopt.HexTag, jsonopt.InvalidUTF8Substitute}
	src, err := boundary.NewBuffer(4 * shortMBMax)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = src.Free() }()
	out, err := boundary.NewBuffer(4 * shortMBMax)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = out.Free() }()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	const canary = 0xA5
	calls, wrote := 0, 0
	check := func(s []byte, o jsonopt.Options, what string) {
		c := &ctxs[ctxIndex(o)]
		ok := utf8.Valid(s) && !escapesASCII(s, o)
		want := mbRef(string(s))
		rooms := []int{3 * len(s)}
		if ok {
			rooms = append(rooms, len(want), len(want)-1) // exactly enough, one byte short
		}
		for i, room := range rooms {
			fits := ok && i < 2
			for _, l := range []boundary.Layout{boundary.EndFlush, boundary.StartFlush} {
				in := src.Input(l, len(s), 0)
				copy(in, s)
				dst := out.Tail(0, room)[:room]
				for i := range dst {
					dst[i] = canary
				}
				d := archShortMB(kernelAVX512, dst, in, c)
				calls++
				switch {
				case !fits && d != -1:
					t.Fatalf("archShortMB(%s, %d bytes % x, %s, room %d) = %d; want -1 (invalid, an escaped ASCII byte or no room)",
						what, len(s), s, o, room, d)
				case !fits:
					if bytes.Count(dst, []byte{canary}) != len(dst) {
						t.Fatalf("archShortMB(%s, %d bytes % x, %s, room %d) = -1 but wrote dst: % x", what, len(s), s, o, room, dst)
					}
				case d < 0 || string(dst[:d]) != want:
					t.Fatalf("archShortMB(%s, %d bytes % x, %s, room %d) = %d, %q; want %q", what, len(s), s, o, room, d, dst[:max(d, 0)], want)
				case bytes.Count(dst[d:], []byte{canary}) != len(dst)-d:
					t.Fatalf("archShortMB(%s, %d bytes % x, %s) wrote past its %d bytes: % x", what, len(s), s, o, d, dst[d:])
				default:
					wrote++
				}
			}
		}
	}
	step := 1
	if testing.Short() {
		step = 3
	}
	for _, base := range bases {
		text := bytes.Repeat([]byte(base), shortMBMax)
		for n := 1; n <= shortMBMax; n++ {
			s := text[:n] // a cut last character is a defect too
			for _, o := range optSets {
				check(s, o, "text")
			}
			if n%step != 0 && n != shortMBMax {
				continue
			}
			for pos := 0; pos <= n; pos++ {
				for _, d := range append(invalidSeqs, specials...) {
					if len(d)+n > shortMBMax {
						continue
					}
					s := append(append(append([]byte{}, text[:pos]...), d...), text[pos:n]...)
					for _, o := range optSets[:4] {
						check(s, o, fmt.Sprintf("%q at %d", d, pos))
					}
				}
			}
		}
	}
	if wrote == 0 || wrote == calls {
		t.Fatalf("%d of %d calls wrote: the inputs do not cover both outcomes", wrote, calls)
	}
	t.Logf("%d calls, %d wrote the escape", calls, wrote)
}

// escapesASCII reports whether json_encode under opts escapes an ASCII byte of s (spec §1.3):
// controls, '"' and '\\' always, '/' without UNESCAPED_SLASHES, '<' and '>' with HEX_TAG, '&'
// with HEX_AMP, the apostrophe with HEX_APOS.
func escapesASCII(s []byte, opts jsonopt.Options) bool {
	for _, b := range s {
		switch {
		case b < 0x20 || b == '"' || b == '\\':
		case b == '/' && opts&jsonopt.UnescapedSlashes == 0:
		case (b == '<' || b == '>') && opts&jsonopt.HexTag != 0:
		case b == '&' && opts&jsonopt.HexAmp != 0:
		case b == '\'' && opts&jsonopt.HexApos != 0:
		default:
			continue
		}
		return true
	}
	return false
}
