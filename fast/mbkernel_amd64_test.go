//go:build !purego

package fast

// testMBKernels are the amd64 multi-byte kernels this CPU runs.
func testMBKernels() []mbTestKernel {
	var ks []mbTestKernel
	wrap := func(f func(dst, src []byte, kt, esc *uint64) (int, int)) func(dst, src []byte, c *escCtx) (int, int) {
		return func(dst, src []byte, c *escCtx) (int, int) { return f(dst, src, &c.kt[0], &c.esc[0]) }
	}
	if hasAVX2 {
		ks = append(ks, mbTestKernel{"escapeMBAVX2", 32, wrap(escapeMBAVX2), sparseBack}, mbTestKernel{"escapeMBAVX2Tag", 32, wrap(escapeMBAVX2Tag), sparseBack})
	}
	if hasAVX512 {
		ks = append(ks, mbTestKernel{"escapeMBAVX512", 64, wrap(escapeMBAVX512), sparseWrites}, mbTestKernel{"escapeMBAVX512Tag", 64, wrap(escapeMBAVX512Tag), sparseWrites})
	}
	return ks
}
