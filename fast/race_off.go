//go:build !race

package fast

// raceRead and raceWrite are no-ops without the race detector (see race_on.go).
func raceRead(b []byte)  {}
func raceWrite(b []byte) {}
