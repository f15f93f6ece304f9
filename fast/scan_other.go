//go:build purego || !(amd64 || arm64)

package fast

// archASCIIEnd is asciiPrefix for the per-architecture kernels: the index of the first byte
// >= 0x80 in s, or len(s). Architectures without a vector scan of their own (see
// kernel_amd64.go for amd64's) use the 8-bytes-a-word scan.
func archASCIIEnd(k int, s []byte) (int, bool) { return asciiEnd(s, 0, true), false }

// archValid is the vector validity check of the amd64 kernels (see kernel_amd64.go): none here.
func archValid(k int, s []byte) (valid, ok bool) { return false, false }

// archEscapeASCII is archKernel for src that asciiPrefix found ASCII (noCtl: without
// controls either); it returns ndst (the kernel consumes all of an ASCII src).
func archEscapeASCII(k int, dst, src []byte, c *escCtx, noCtl bool) int {
	_, d := archKernel(k, dst, src, c, true)
	return d
}

// archDefault is false: without assembly the default kernel is swar (Escape tests it).
const archDefault = false

// archClean16 is the short-string path of the vector kernels (see kernel.go); without one it
// declines, and escape takes its general path.
func archClean16(k int, d, src []byte, c *escCtx) bool { return false }

// archShortMB is the one-window multi-byte kernel of amd64's avx512 variant (see
// kernel_amd64.go): none here.
func archShortMB(k int, dst, src []byte, c *escCtx) int { return -1 }

// shortMBKernel reports whether kernel k has archShortMB's one-window kernel: none here.
func shortMBKernel(k int) bool { return false }
