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

// raceReadWrite is raceRead(r) and raceWrite(w) in one call (see race_off.go).
func raceReadWrite(r, w []byte) {
	raceRead(r)
	raceWrite(w)
}
