//go:build !purego && (amd64 || arm64)

package fast

import (
	"strings"
	"testing"
)

// mbTestKernel is a multi-byte kernel (an assembly function in mbKernels' sense) for
// TestMBKernelProgress: w is its window size.
type mbTestKernel struct {
	name   string
	w      int
	f      func(dst, src []byte, c *escCtx) (int, int)
	sparse bool // it returns at a window with fewer than three bytes >= 0x80
}

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
		dst := make([]byte, 6*len(src)+64)
		s, d := k.f(dst, []byte(src), c)
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
		if k.sparse {
			// One 2-byte character in a window is sparse (back to Go at once); one 3-byte
			// character is not.
			ascii := strings.Repeat("a", 200)
			if got, _ := run(k, "é"+ascii); got != 0 {
				t.Errorf("%s(é and 200 ASCII bytes) went on to %d; want a return at 0 (sparse)", k.name, got)
			}
			if got, _ := run(k, "€"+ascii); got < k.w {
				t.Errorf("%s(€ and 200 ASCII bytes) stopped at %d; want at least a window (%d)", k.name, got, k.w)
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
		} {
			got, out := run(k, tc.src)
			if tc.want >= 0 && got != tc.want {
				t.Errorf("%s(%q...) stopped at %d; want %d (output %q)", k.name, tc.src[:min(len(tc.src), 28)], got, tc.want, out)
			}
			if tc.want < 0 && got < 24 {
				t.Errorf("%s(%q...) stopped at %d, at a valid 4-byte sequence", k.name, tc.src[:28], got)
			}
			if want := strings.Repeat(`\u0436`, min(got, 20)/2); !strings.HasPrefix(out, want) {
				t.Errorf("%s(%q...) wrote %q; want it to start with %q", k.name, tc.src[:min(len(tc.src), 28)], out, want)
			}
		}
	}
}
