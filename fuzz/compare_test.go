package fuzz

import "testing"

// TestEqualShort: the exhaustive hot path's comparison agrees with bytes.Equal on every pair
// of short slices differing in one byte or in length (a comparison that cannot fail would
// hide every difference).
func TestEqualShort(t *testing.T) {
	for n := 0; n <= 40; n++ {
		a := make([]byte, n)
		for i := range a {
			a[i] = byte(i*7 + 1)
		}
		if !equalShort(a, append([]byte(nil), a...)) {
			t.Fatalf("equalShort(%x, copy) = false", a)
		}
		if n > 0 && equalShort(a, a[:n-1]) {
			t.Fatalf("equalShort: lengths %d and %d equal", n, n-1)
		}
		for i := 0; i < n; i++ {
			b := append([]byte(nil), a...)
			b[i] ^= 0x80
			if equalShort(a, b) {
				t.Fatalf("equalShort(%x, %x) = true", a, b)
			}
		}
	}
}
