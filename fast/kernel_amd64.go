//go:build !purego

package fast

import "strconv"

// archKernel: placeholder until the amd64 assembly kernels land (see arch_none.go).
func archKernel(k int, dst, src []byte, c *escCtx) (nsrc, ndst int) {
	panic("fast: no kernel with identifier " + strconv.Itoa(k))
}
