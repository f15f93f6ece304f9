package fuzz

import (
	"testing"

	"github.com/difffuzz/difffuzz/fast"
)

// BenchmarkQuickEscape measures the exhaustive escape hot path: one 3-byte string under all
// 2,048 option sets against the oracle and each candidate (ns/op is per string).
func BenchmarkQuickEscape(b *testing.B) {
	for _, name := range []string{"oracle-only", "swar", "all"} {
		b.Run(name, func(b *testing.B) {
			var cands []Impl
			switch name {
			case "swar":
				v, _ := fast.Lookup("swar")
				cands = []Impl{fromVariant(v)}
			case "all":
				cands, _ = Candidates("")
			}
			var c Checker
			opts := AllCombos()
			buf := []byte("a\xc3\xa9")
			for i := 0; i < b.N; i++ {
				buf[0] = byte(i)
				if !c.quick(OpEscape, cands, buf, opts) {
					b.Fatal("difference")
				}
			}
		})
	}
}
