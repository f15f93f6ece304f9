package fast

import (
	"testing"
	"unsafe"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// TestArchClean16 checks archClean16, the 16-to-31-byte path of each assembly kernel compiled
// in (avx2 and sse2 on amd64, neon on arm64), on its own: every byte value at every position
// of clean filler, for every length 16..31 and every one of the 32 ASCII option contexts. It
// must report clean exactly when the byte is copied unchanged under the context, write
// '"'+src+'"' then, and write nothing otherwise.
func TestArchClean16(t *testing.T) {
	var kernels []int
	for _, e := range registry {
		if e.kernel >= kernelArch {
			kernels = append(kernels, e.kernel)
		}
	}
	if len(kernels) == 0 {
		t.Skip("no assembly kernel compiled in or supported (purego, or another architecture)")
	}
	src := make([]byte, 31)
	d := make([]byte, 34)
	calls := 0
	for _, k := range kernels {
		for ci := range ctxs {
			if asciiCtx(ci) != ci {
				continue // the 32 ASCII contexts only
			}
			c := &ctxs[ci]
			for n := 16; n <= 31; n++ {
				for p := 0; p < n; p++ {
					for b := 0; b < 256; b++ {
						for i := range src[:n] {
							src[i] = 'a' + byte(i%26)
						}
						src[p] = byte(b)
						for i := range d {
							d[i] = 0xA5
						}
						got := archClean16(k, d[:n+2], src[:n], c)
						calls++
						want := c.tab[b] == clsClean
						if got != want {
							t.Fatalf("kernel %d, ctx %d (%v), %d bytes, byte %#02x at %d: clean %v, want %v",
								k, ci, ctxOpts(ci), n, b, p, got, want)
						}
						if got && (d[0] != '"' || string(d[1:n+1]) != string(src[:n]) || d[n+1] != '"' || d[n+2] != 0xA5) {
							t.Fatalf("kernel %d, %d bytes: wrote %q", k, n, d)
						}
						if !got {
							for i, x := range d {
								if x != 0xA5 {
									t.Fatalf("kernel %d, %d bytes, byte %#02x at %d: declined but wrote d[%d]", k, n, b, p, i)
								}
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d calls over kernels %v", calls, kernels)
}

// TestASCIIContext checks that ctxOpts inverts ctxIndex, and escCtx.ascii for every combination
// of the low 16 option bits: the context of the option set without UNESCAPED_UNICODE and
// UNESCAPED_LINE_TERMINATORS.
func TestASCIIContext(t *testing.T) {
	if n := unsafe.Sizeof(escCtx{}); n != 768 && unsafe.Sizeof(uintptr(0)) == 8 {
		t.Errorf("escCtx is %d bytes, want 768 on a 64-bit CPU (3*256: &ctxs[i] without a multiplication; see escCtx.ascii)", n)
	}
	for i := range ctxs {
		if got := ctxIndex(ctxOpts(i)); got != i {
			t.Fatalf("ctxIndex(ctxOpts(%d)) = %d", i, got)
		}
	}
	for o := jsonopt.Options(0); o < 1<<16; o++ {
		got := &ctxs[ctxs[ctxIndex(o)].ascii]
		if want := &ctxs[ctxIndex(o&^(jsonopt.UnescapedUnicode|jsonopt.UnescapedLineTerminators))]; got != want {
			t.Fatalf("ctxs[ctxs[ctxIndex(%#x)].ascii] is not the context of %#x without UNESCAPED_UNICODE and UNESCAPED_LINE_TERMINATORS", uint32(o), uint32(o))
		}
	}
}
