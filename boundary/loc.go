package boundary

import "fmt"

// Lanes is the width of the chunk grid locations are reported on: the 16 bytes of one SSE2
// or NEON vector. Wider vector code (32-byte AVX2, 64-byte unrolled loops) has its edges at
// multiples of 16 too; Loc names the widest edge.
const Lanes = 16

// Widths are the chunk widths whose edges the space places units around, narrowest first.
var Widths = [...]int{16, 32, 64}

// Loc places a byte offset on the chunk grid.
type Loc struct {
	Off   int // the byte offset (negative: before the start of the buffer)
	Chunk int // Off / Lanes, rounded down (-1 for the 16 bytes before the start)
	Lane  int // Off mod Lanes, 0..15

	// The nearest edge: a multiple of 16 (the start, offset 0, is an edge of every width).
	Edge      int // its offset
	EdgeWidth int // the widest of Widths that divides Edge (64 for Edge 0)
	Dist      int // Off - Edge: negative before the edge, 0 for the first byte after it
}

// Locate returns the location of byte offset off. Ties (off 8 bytes past an edge) go to the
// earlier edge; a negative offset is located relative to the start.
func Locate(off int) Loc {
	l := Loc{Off: off, Chunk: floorDiv(off, Lanes)}
	l.Lane = off - l.Chunk*Lanes
	l.Edge = l.Chunk * Lanes
	if l.Lane > Lanes/2 {
		l.Edge += Lanes
	}
	if l.Edge < 0 {
		l.Edge = 0 // before the buffer: relative to its start
	}
	l.Dist = off - l.Edge
	l.EdgeWidth = Widths[0]
	for _, w := range Widths {
		if l.Edge%w == 0 {
			l.EdgeWidth = w
		}
	}
	return l
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// EdgeString describes the nearest edge: "2 bytes before the 32-byte edge at 32",
// "at the 16-byte edge at 16", "1 byte after the start".
func (l Loc) EdgeString() string {
	name := fmt.Sprintf("the %d-byte edge at %d", l.EdgeWidth, l.Edge)
	if l.Edge == 0 {
		name = "the start"
	}
	switch {
	case l.Dist == 0:
		return "at " + name
	case l.Dist < 0:
		return fmt.Sprintf("%s before %s", plural(-l.Dist, "byte"), name)
	}
	return fmt.Sprintf("%s after %s", plural(l.Dist, "byte"), name)
}

// String is "chunk 1, lane 4 of 16, 4 bytes after the 16-byte edge at 16".
func (l Loc) String() string {
	return fmt.Sprintf("chunk %d, lane %d of %d, %s", l.Chunk, l.Lane, Lanes, l.EdgeString())
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
