//go:build purego || !(amd64 || arm64)

package fast

import "strconv"

// archKernel runs a per-architecture clean-run/ASCII-escape kernel (an identifier >=
// kernelArch) with runKernel's contract. No assembly kernel is compiled in yet: the files that
// add one (kernel_amd64.go, kernel_arm64.go, …) replace this stand-in under build constraints
// and register their variants from init (valid: src is known valid UTF-8, which a kernel may
// use to skip its validation). register is never given an identifier this function
// does not know, so reaching the panic is a bug in this package.
func archKernel(k int, dst, src []byte, c *escCtx, valid bool) (nsrc, ndst int) {
	panic("fast: no kernel with identifier " + strconv.Itoa(k))
}
