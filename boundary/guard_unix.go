//go:build unix

package boundary

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapGuarded maps n usable bytes (a multiple of the page size) between two PROT_NONE pages.
func mapGuarded(n, page int) (*Buffer, error) {
	mem, err := unix.Mmap(-1, 0, n+2*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, err
	}
	if err := unix.Mprotect(mem[:page], unix.PROT_NONE); err != nil {
		_ = unix.Munmap(mem)
		return nil, err
	}
	if err := unix.Mprotect(mem[page+n:], unix.PROT_NONE); err != nil {
		_ = unix.Munmap(mem)
		return nil, err
	}
	b := &Buffer{mem: mem, data: mem[page : page+n : page+n], guard: page, guarded: true}
	b.lo = uintptr(unsafe.Pointer(&b.data[0]))
	b.hi = b.lo + uintptr(n)
	return b, nil
}

func unmapGuarded(mem []byte) error { return unix.Munmap(mem) }
