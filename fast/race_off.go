//go:build !race

package fast

// raceRead and raceWrite are no-ops without the race detector (see race_on.go).
func raceRead(b []byte)  {}
func raceWrite(b []byte) {}

// raceReadWrite is raceRead(r) and raceWrite(w) in one call: archClean16 stays within the
// inlining budget with one call, not with two.
func raceReadWrite(r, w []byte) {}
