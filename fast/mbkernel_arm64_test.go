//go:build !purego

package fast

// testMBKernels is the arm64 multi-byte kernel.
func testMBKernels() []mbTestKernel {
	return []mbTestKernel{{"escapeMBNEON", 16, func(dst, src []byte, c *escCtx) (int, int) {
		return escapeMBNEON(dst, src, &c.kt, c.esc)
	}, sparseInGo}}
}
