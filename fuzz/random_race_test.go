//go:build race

package fuzz

// raceEnabled: the race detector (and with it checkptr) is on.
const raceEnabled = true
