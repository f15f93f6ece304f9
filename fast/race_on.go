//go:build race

package fast

import (
	"runtime"
	"unsafe"
)

// raceRead and raceWrite tell the race detector which memory an assembly kernel is about to
// read or write, since it cannot see inside assembly.
func raceRead(b []byte) {
	if len(b) > 0 {
		runtime.RaceReadRange(unsafe.Pointer(&b[0]), len(b))
	}
}

func raceWrite(b []byte) {
	if len(b) > 0 {
		runtime.RaceWriteRange(unsafe.Pointer(&b[0]), len(b))
	}
}
