//go:build !purego

package fast

import (
	"fmt"
	"runtime/debug"
	"testing"

	"github.com/difffuzz/difffuzz/boundary"
)

// invalidSeqs are the ill-formed sequences the kernels' tests plant: a lone continuation
// byte, overlongs (C0/C1, E0 80-9F, F0 80-8F), surrogates (ED A0-BF), truncated sequences,
// a code point above U+10FFFF (F4 90), bytes that never lead (F5, FF) and a continuation
// byte too many after a two- and a four-byte sequence.
var invalidSeqs = []string{"\x80", "\xbf", "\xc0\xaf", "\xc1\xbf", "\xc3", "\xe2\x82", "\xe0\x80\x80", "\xe0\x9f\xbf",
	"\xed\xa0\x80", "\xed\xbf\xbf", "\xf0\x8f\xbf\xbf", "\xf0\x9f\x98", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80",
	"\xff", "\xc3\xa9\xa9", "\xf0\x9f\x98\x80\x80"}

// TestArchValid checks archValid, the vector validity check escapeLong runs before it writes a
// long non-ASCII string into the caller's spare capacity, against validFrom for each kernel
// with a check (validAVX512): text of each kind at every length to 640 bytes (the
// first block and two rounds of four), and invalid sequences at every step-th position of
// every step-th length, flush against a guard page at either end (a read outside s faults).
func TestArchValid(t *testing.T) {
	var kernels []int
	if hasAVX512 {
		kernels = append(kernels, kernelAVX512)
	}
	if len(kernels) == 0 {
		t.Skip("no vector validity check on this CPU")
	}
	bases := []string{"жжжж", "数据数据", "😀😀", "aé", "ab€😀ж c", "\u2028é\u07ff\U0010ffff\u0800\ufffd"}
	// Lengths up to past the first block and two rounds of four (64 + 2*256),
	// a defect every step bytes of every step-th length.
	maxLen, step := 640, 5
	if testing.Short() {
		maxLen, step = 640, 11
	}
	buf, err := boundary.NewBuffer(2 * maxLen)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = buf.Free() }()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	calls := 0
	check := func(k int, s []byte, what string) {
		for _, l := range []boundary.Layout{boundary.EndFlush, boundary.StartFlush} {
			in := buf.Input(l, len(s), 0)
			copy(in, s)
			want := validFrom(in, 0)
			got, ok := archValid(k, in)
			calls++
			if !ok || got != want {
				t.Fatalf("kernel %d: archValid(%s, %d bytes, % x) = %v, %v; validFrom says %v",
					k, what, len(s), s[max(0, len(s)-72):], got, ok, want)
			}
		}
	}
	for _, k := range kernels {
		for _, base := range bases {
			text := []byte{}
			for len(text) < maxLen+8 {
				text = append(text, base...)
			}
			for n := 0; n <= maxLen; n++ {
				// A cut character at the end is itself a defect: validFrom judges it too.
				check(k, text[:n], "text")
				if n%step != 0 {
					continue
				}
				for _, d := range invalidSeqs {
					for pos := 0; pos <= n; pos += step {
						s := append(append(append([]byte{}, text[:pos]...), d...), text[pos:n]...)
						check(k, s, fmt.Sprintf("%q at %d", d, pos))
					}
				}
			}
		}
	}
	t.Logf("%d checks on kernels %v", calls, kernels)
}
