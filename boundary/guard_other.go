//go:build !unix

package boundary

import "errors"

// mapGuarded is unavailable without Unix mmap: NewBuffer falls back to the heap.
func mapGuarded(n, page int) (*Buffer, error) {
	return nil, errors.New("boundary: no mmap on this system")
}

func unmapGuarded(mem []byte) error { return nil }
