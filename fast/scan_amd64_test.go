//go:build !purego

package fast

import "testing"

// TestArchASCIIEnd checks the amd64 scans behind asciiPrefix on their own: for every length
// 0..600, clean ASCII, then the bytes 00, 01, 0A, 1F (controls) and 80, C3, E2, FF at every
// position, one at a time, and (for every seventh length) after an earlier byte >= 0x80. p must be the index of the first byte >= 0x80, and noCtl true exactly when the
// string is ASCII without a byte < 0x20 and the AVX2 scan ran (32 bytes or more).
func TestArchASCIIEnd(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 300
	}
	src := make([]byte, n)
	checks := 0
	check := func(k int, s []byte) {
		t.Helper()
		wantP, ctl := len(s), false
		for i, b := range s {
			if b < 0x20 {
				ctl = true
			}
			if b >= 0x80 && wantP == len(s) {
				wantP = i
			}
		}
		wantNoCtl := k == kernelAVX2 && hasAVX2 && len(s) >= 32 && wantP == len(s) && !ctl
		if p, noCtl := archASCIIEnd(k, s); p != wantP || noCtl != wantNoCtl {
			t.Fatalf("kernel %d: archASCIIEnd(%q) = %d, %v; want %d, %v", k, s, p, noCtl, wantP, wantNoCtl)
		}
		checks++
	}
	kernels := []int{kernelSSE2}
	if hasAVX2 {
		kernels = append(kernels, kernelAVX2)
	}
	for _, k := range kernels {
		for l := 0; l <= n; l++ {
			s := src[:l]
			for i := range s {
				s[i] = 'a' + byte(i%26)
			}
			check(k, s)
			for p := 0; p < l; p++ {
				for _, b := range []byte{0x00, 0x01, 0x0A, 0x1F, 0x80, 0xC3, 0xE2, 0xFF} {
					old := s[p]
					s[p] = b
					check(k, s)
					if p > 0 && l%7 == 0 {
						s[p/2] = 0x80 // an earlier byte >= 0x80
						check(k, s)
						s[p/2] = 'a' + byte(p/2%26)
					}
					s[p] = old
				}
			}
		}
	}
	t.Logf("%d scans", checks)
}
