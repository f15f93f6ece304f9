package boundary

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// DefaultMaxLen is the longest input of the space: three 64-byte chunks and one byte.
const DefaultMaxLen = 3*64 + 1

// Ample as Placement.Spare asks for a destination with room for any output plus a canary
// tail (the caller knows how long outputs can get).
const Ample = -1

// Config describes a boundary space.
type Config struct {
	// Units are placed alone at every offset around every edge, for every total length
	// (families edge and straddle), and at a few positions under every source alignment and
	// destination offset and spare capacity (families align and dst). At most MaxUnitLen
	// bytes each.
	Units []Unit
	// Pairs are placed two to a block, every ordered pair (family pair); nil: Units.
	Pairs []Unit
	// Triples are placed three to a block, every ordered triple (family triple); nil: Pairs.
	Triples []Unit
	// Filler is the clean alphabet around the units: the input byte at offset i, where no
	// unit is, is Filler[i%len(Filler)]. A filler that is not periodic in 16, 32 or 64 makes
	// a lane mix-up visible in the output. Required.
	Filler []byte
	// MaxLen is the longest input (default DefaultMaxLen, at least 68 for the embedded
	// exhaustive space).
	MaxLen int
}

// Item is one unit (or embedded string) of a placement.
type Item struct {
	Off  int   // its offset in the input
	Len  int   // its length
	Unit *Unit // nil for an embedded string of the exhaustive families
}

// Placement is one input of the space and the memory layout to run it in.
type Placement struct {
	Family string // the family it belongs to
	Index  uint64 // its index in the family
	Len    int    // the input's length

	// Items are the units placed into the filler, in offset order (at most 3).
	Items []Item

	// Layouts are the layouts to run the input in, a set of Layout bits: EndFlush|StartFlush
	// for most families, EndFlush alone for the embedded exhaustive ones, Aligned for align.
	Layouts Layout
	Align   int // Aligned: the input's address mod 64 (0..63)

	// The destination: DstLen bytes already in it, Spare bytes of spare capacity (Ample: room
	// for any output). Its capacity ends flush against a guard page.
	DstLen int
	Spare  int

	items [3]Item
}

// Edge returns the first multiple of 16 strictly inside the placement's first item, and the
// number of its bytes before it (the split point), or (0, 0) if the first item straddles no
// edge.
func (p *Placement) Edge() (edge, split int) {
	if len(p.Items) == 0 {
		return 0, 0
	}
	it := p.Items[0]
	e := (it.Off/Lanes + 1) * Lanes
	if e < it.Off+it.Len {
		return e, e - it.Off
	}
	return 0, 0
}

// String describes the placement: "straddle #123: U+20AC (e2 82 ac) at 15 (chunk 0, lane 15
// of 16, 1 byte before the 16-byte edge at 16), split 1+2 across 16; 18 bytes; dst 0+ample".
func (p *Placement) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s #%d:", p.Family, p.Index)
	if len(p.Items) == 0 {
		b.WriteString(" filler only")
	}
	for i, it := range p.Items {
		if i > 0 {
			b.WriteString(";")
		}
		if it.Unit != nil {
			fmt.Fprintf(&b, " %s (% x)", it.Unit.Name, it.Unit.Bytes)
		} else {
			fmt.Fprintf(&b, " %d-byte string", it.Len)
		}
		fmt.Fprintf(&b, " at %d (%s)", it.Off, Locate(it.Off))
		if e := (it.Off/Lanes + 1) * Lanes; e < it.Off+it.Len {
			fmt.Fprintf(&b, ", split %d+%d across %d", e-it.Off, it.Off+it.Len-e, e)
		}
	}
	fmt.Fprintf(&b, "; %d bytes", p.Len)
	if p.Layouts == Aligned {
		fmt.Fprintf(&b, "; source address ≡ %d mod 64", p.Align)
	}
	if p.Spare == Ample {
		fmt.Fprintf(&b, "; dst %d+ample", p.DstLen)
	} else {
		fmt.Fprintf(&b, "; dst %d+%d spare", p.DstLen, p.Spare)
	}
	return b.String()
}

// slot is where a group's units go: their offsets, the total length and the memory layout.
type slot struct {
	off    [3]int16
	n      int16 // total length
	align  int8
	dstLen int8
	spare  int16
}

// group is a run of placements of one family: the same units (or embedded-string length) in
// each of a list of slots.
type group struct {
	units []*Unit // nil for the embedded families
	k     int     // embedded string length (embedded families)
	slots []slot
	first uint64 // index of the group's first placement in the family
	count uint64
}

// Family is one kind of placement (see New for the list). Its placements are numbered
// 0..Len()-1; At builds one. A Family is safe for concurrent use.
type Family struct {
	Name    string
	Doc     string // what the family covers, with its size
	Layouts Layout // the layouts each placement runs in

	space  *Space
	groups []group
	n      uint64
}

// Len is the number of placements of the family.
func (f *Family) Len() uint64 { return f.n }

// At fills p with placement i (0 <= i < Len()) and writes its input into buf, which it
// returns (reallocated if too short). It panics if i is out of range.
func (f *Family) At(i uint64, p *Placement, buf []byte) []byte {
	if i >= f.n {
		panic(fmt.Sprintf("boundary: placement %d of family %s out of range [0, %d)", i, f.Name, f.n))
	}
	g := sort.Search(len(f.groups), func(j int) bool { return f.groups[j].first+f.groups[j].count > i }) // first group ending past i
	gr := &f.groups[g]
	r := i - gr.first
	var value uint64
	var sl *slot
	if gr.units == nil {
		// Embedded strings: value-major, so consecutive placements share a string.
		value, sl = r/uint64(len(gr.slots)), &gr.slots[r%uint64(len(gr.slots))]
	} else {
		sl = &gr.slots[r]
	}
	*p = Placement{Family: f.Name, Index: i, Len: int(sl.n), Layouts: f.Layouts, Align: int(sl.align),
		DstLen: int(sl.dstLen), Spare: int(sl.spare)}
	buf = f.space.fill(buf, int(sl.n))
	if gr.units == nil {
		o := int(sl.off[0])
		for j := 0; j < gr.k; j++ {
			buf[o+j] = byte(value >> (8 * uint(gr.k-1-j)))
		}
		p.items[0] = Item{Off: o, Len: gr.k}
		p.Items = p.items[:1]
		return buf
	}
	for j, u := range gr.units {
		o := int(sl.off[j])
		copy(buf[o:], u.Bytes)
		p.items[j] = Item{Off: o, Len: len(u.Bytes), Unit: u}
	}
	p.Items = p.items[:len(gr.units)]
	return buf
}

// Sample is a deterministic sample of a family: Len placements, one per stride of the
// family's index range, each at a pseudo-random position within its stride.
type Sample struct {
	Len    uint64 // placements in the sample
	n      uint64
	stride uint64
}

// Sample returns a sample of at most max placements of f (all of them if max is 0 or at
// least Len()).
func (f *Family) Sample(max uint64) Sample {
	if max == 0 || max >= f.n {
		return Sample{Len: f.n, n: f.n, stride: 1}
	}
	stride := (f.n + max - 1) / max
	return Sample{Len: (f.n + stride - 1) / stride, n: f.n, stride: stride}
}

// Index is the family index of the sample's k-th placement (0 <= k < Len).
func (s Sample) Index(k uint64) uint64 {
	if s.stride == 1 {
		return k
	}
	h := k*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
	h ^= h >> 29
	i := k*s.stride + h%s.stride
	if i >= s.n {
		i = k * s.stride
	}
	return i
}

// Space is the boundary space of a Config: its families, in order.
type Space struct {
	Units, Pairs, Triples []Unit
	MaxLen                int

	filler []byte // the filler of an input of MaxLen bytes
	fams   []*Family
}

// fill returns buf resized to n bytes of filler.
func (s *Space) fill(buf []byte, n int) []byte {
	if cap(buf) < n {
		buf = make([]byte, n, s.MaxLen)
	}
	buf = buf[:n]
	copy(buf, s.filler)
	return buf
}

// Filler returns the filler byte at offset i.
func (s *Space) Filler(i int) byte { return s.filler[i] }

// Families returns the families in order.
func (s *Space) Families() []*Family { return s.fams }

// Family returns the family called name, or nil.
func (s *Space) Family(name string) *Family {
	for _, f := range s.fams {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Len is the number of placements of all families.
func (s *Space) Len() uint64 {
	var n uint64
	for _, f := range s.fams {
		n += f.n
	}
	return n
}

// EmbedOffsets are the offsets of the 1- and 2-byte strings of families embed1 and embed2:
// across the start and each 16-, 32- and 64-byte edge.
var EmbedOffsets = []int{0, 1, 2, 3, 12, 13, 14, 15, 16, 17, 18, 19, 28, 29, 30, 31, 32, 33, 34, 35, 60, 61, 62, 63, 64, 65, 66, 67}

// New builds the space of cfg. Its families, in order (counts for the fuzz package's units:
// see its documentation):
//
//   - clean: filler alone, every length 0..MaxLen.
//   - edge: each unit alone at every offset o whose unit lies within 3 bytes of a multiple
//     of 16 (o in [e-len-3, e+3] for e = 0, 16, ..., so around every 16-, 32- and 64-byte
//     edge) without crossing one, for every total length from o+len to MaxLen.
//   - straddle: the same for the offsets where the unit crosses a multiple of 16: every
//     split point (1+1, 1+2, 2+1, 1+3, 2+2, 3+1, ...) across every edge, every length.
//   - pair: every ordered pair of Pairs in one block of width W = 16, 32 and 64 (the block
//     [W, 2W)): the first at every lane, the second 0, 1, 2, 3, 5, 8, 13, 21 or 34 bytes
//     after it and starting in the same block; length: the second unit's end, and 3W.
//   - triple: every ordered triple of Triples in the block [W, 2W) for W = 16 and 64: the
//     first at every lane, gaps of 0, 1 or 4 bytes, the third starting in the block;
//     length: the third unit's end, and 3W.
//   - align: each unit at offset 0 alone, straddling 16 (in a 33-byte input) and just
//     after 64 at the end of the input, each with the input's address ≡ 0..63 (mod 64).
//   - dst: the same three positions with 0..64 bytes already in dst (ample spare
//     capacity), and with 3 bytes in dst and 0..64 bytes of spare capacity.
//   - embed1, embed2: every 1- and 2-byte string (256 and 65,536) at every offset of
//     EmbedOffsets, at the end of the input and followed by 17 filler bytes.
//   - embed3: every 3-byte string (16,777,216) at offset 0 (length 3) and across the 16-,
//     32- and 64-byte edges at every split (offsets 16-j, 32-j, 64-j for j = 0..3: before,
//     1+2, 2+1 and after), ending the input at the 16-byte edge, followed by filler up to
//     48 bytes at the 32-byte edge, and followed by one filler byte at the 64-byte edge.
//
// Every family but embed* runs each input both flush against the trailing guard page and
// flush against the leading one (Layouts); the embedded families run end flush only, and
// align in its own alignments.
func New(cfg Config) (*Space, error) {
	if len(cfg.Filler) == 0 {
		return nil, errors.New("boundary: Config.Filler is empty")
	}
	if cfg.MaxLen == 0 {
		cfg.MaxLen = DefaultMaxLen
	}
	if cfg.MaxLen < 68 || cfg.MaxLen > 1<<14 {
		return nil, fmt.Errorf("boundary: MaxLen %d out of range [68, 16384]", cfg.MaxLen)
	}
	if cfg.Pairs == nil {
		cfg.Pairs = cfg.Units
	}
	if cfg.Triples == nil {
		cfg.Triples = cfg.Pairs
	}
	for _, us := range [][]Unit{cfg.Units, cfg.Pairs, cfg.Triples} {
		for _, u := range us {
			if len(u.Bytes) < 1 || len(u.Bytes) > MaxUnitLen {
				return nil, fmt.Errorf("boundary: unit %s has %d bytes, want 1..%d", u.Name, len(u.Bytes), MaxUnitLen)
			}
		}
	}
	s := &Space{Units: cfg.Units, Pairs: cfg.Pairs, Triples: cfg.Triples, MaxLen: cfg.MaxLen}
	s.filler = make([]byte, cfg.MaxLen)
	for i := range s.filler {
		s.filler[i] = cfg.Filler[i%len(cfg.Filler)]
	}
	both := EndFlush | StartFlush
	s.add("clean", "filler alone, every length", both, s.cleanGroups())
	edge, straddle := s.singleGroups()
	s.add("edge", "one unit within 3 bytes of each 16/32/64-byte edge, every length", both, edge)
	s.add("straddle", "one unit across each edge at every split point, every length", both, straddle)
	s.add("pair", "two units in one 16-, 32- or 64-byte block", both, s.multiGroups(s.Pairs, 2))
	s.add("triple", "three units in one 16- or 64-byte block", both, s.multiGroups(s.Triples, 3))
	s.add("align", "each unit at 3 positions, source address 0..63 mod 64", Aligned, s.alignGroups())
	s.add("dst", "each unit at 3 positions, dst offset 0..64 and spare capacity 0..64", EndFlush, s.dstGroups())
	for k := 1; k <= 3; k++ {
		s.add(fmt.Sprintf("embed%d", k), fmt.Sprintf("every %d-byte string across the start and every edge", k), EndFlush, s.embedGroups(k))
	}
	return s, nil
}

func (s *Space) add(name, doc string, l Layout, groups []group) {
	f := &Family{Name: name, Layouts: l, space: s}
	for _, g := range groups {
		if g.units == nil {
			g.count = uint64(len(g.slots)) << (8 * uint(g.k))
		} else {
			g.count = uint64(len(g.slots))
		}
		if g.count == 0 {
			continue
		}
		g.first = f.n
		f.n += g.count
		f.groups = append(f.groups, g)
	}
	f.Doc = fmt.Sprintf("%s (%d placements)", doc, f.n)
	s.fams = append(s.fams, f)
}

func (s *Space) cleanGroups() []group {
	var sl []slot
	for n := 0; n <= s.MaxLen; n++ {
		sl = append(sl, slot{n: int16(n), spare: Ample})
	}
	return []group{{units: []*Unit{}, slots: sl}}
}

func crosses(o, m int) bool { return o/Lanes != (o+m-1)/Lanes }

// singleGroups builds families edge and straddle: one group per unit.
func (s *Space) singleGroups() (edge, straddle []group) {
	type pair struct{ e, s []slot }
	byLen := map[int]pair{}
	for i := range s.Units {
		u := &s.Units[i]
		m := len(u.Bytes)
		sl, ok := byLen[m]
		if !ok {
			seen := map[int]bool{}
			for e := 0; e <= s.MaxLen; e += Lanes {
				for o := e - m - 3; o <= e+3; o++ {
					if o < 0 || o+m > s.MaxLen || seen[o] {
						continue
					}
					seen[o] = true
					for n := o + m; n <= s.MaxLen; n++ {
						x := slot{off: [3]int16{int16(o)}, n: int16(n), spare: Ample}
						if crosses(o, m) {
							sl.s = append(sl.s, x)
						} else {
							sl.e = append(sl.e, x)
						}
					}
				}
			}
			byLen[m] = sl
		}
		edge = append(edge, group{units: []*Unit{u}, slots: sl.e})
		straddle = append(straddle, group{units: []*Unit{u}, slots: sl.s})
	}
	return edge, straddle
}

var (
	pairGaps   = []int{0, 1, 2, 3, 5, 8, 13, 21, 34}
	tripleGaps = []int{0, 1, 4}
)

// multiGroups builds families pair (k = 2) and triple (k = 3): one group per ordered tuple.
func (s *Space) multiGroups(units []Unit, k int) []group {
	widths := []int{16, 32, 64}
	gaps := pairGaps
	if k == 3 {
		widths, gaps = []int{16, 64}, tripleGaps
	}
	cache := map[[3]int][]slot{}
	slotsFor := func(ms [3]int) []slot {
		if sl, ok := cache[ms]; ok {
			return sl
		}
		var sl []slot
		for _, w := range widths {
			for o1 := w; o1 < 2*w; o1++ {
				for _, g1 := range gaps {
					for _, g2 := range gaps {
						if k == 2 && g2 != 0 {
							continue
						}
						offs := [3]int16{int16(o1)}
						o, ok := o1, true
						for j := 1; j < k; j++ {
							g := g1
							if j == 2 {
								g = g2
							}
							o += ms[j-1] + g
							if o >= 2*w {
								ok = false
							}
							offs[j] = int16(o)
						}
						end := o + ms[k-1]
						if !ok || end > s.MaxLen {
							continue
						}
						sl = append(sl, slot{off: offs, n: int16(end), spare: Ample})
						if n := min(3*w, s.MaxLen); n > end {
							sl = append(sl, slot{off: offs, n: int16(n), spare: Ample})
						}
					}
				}
			}
		}
		cache[ms] = sl
		return sl
	}
	var out []group
	var idx [3]int
	var rec func(j int)
	rec = func(j int) {
		if j == k {
			g := group{}
			var ms [3]int
			for t := 0; t < k; t++ {
				u := &units[idx[t]]
				g.units = append(g.units, u)
				ms[t] = len(u.Bytes)
			}
			g.slots = slotsFor(ms)
			out = append(out, g)
			return
		}
		for i := range units {
			idx[j] = i
			rec(j + 1)
		}
	}
	rec(0)
	return out
}

// basePositions are the three positions of families align and dst for a unit of m bytes:
// alone, straddling 16 in a 33-byte input, and just after 64 at the end of the input.
func basePositions(m int) [3][2]int {
	return [3][2]int{{0, m}, {16 - (m+1)/2, max(33, 16-(m+1)/2+m)}, {64 - m/2, 64 - m/2 + m}}
}

func (s *Space) alignGroups() []group {
	var out []group
	for i := range s.Units {
		u := &s.Units[i]
		var sl []slot
		for _, p := range basePositions(len(u.Bytes)) {
			for a := 0; a < 64; a++ {
				sl = append(sl, slot{off: [3]int16{int16(p[0])}, n: int16(p[1]), align: int8(a), spare: Ample})
			}
		}
		out = append(out, group{units: []*Unit{u}, slots: sl})
	}
	return out
}

func (s *Space) dstGroups() []group {
	var out []group
	for i := range s.Units {
		u := &s.Units[i]
		var sl []slot
		for _, p := range basePositions(len(u.Bytes)) {
			for d := 0; d <= 64; d++ {
				sl = append(sl, slot{off: [3]int16{int16(p[0])}, n: int16(p[1]), dstLen: int8(d), spare: Ample})
			}
			for sp := 0; sp <= 64; sp++ {
				sl = append(sl, slot{off: [3]int16{int16(p[0])}, n: int16(p[1]), dstLen: 3, spare: int16(sp)})
			}
		}
		out = append(out, group{units: []*Unit{u}, slots: sl})
	}
	return out
}

func (s *Space) embedGroups(k int) []group {
	var sl []slot
	if k < 3 {
		for _, o := range EmbedOffsets {
			for _, t := range []int{0, 17} {
				if o+k+t <= s.MaxLen {
					sl = append(sl, slot{off: [3]int16{int16(o)}, n: int16(o + k + t), spare: Ample})
				}
			}
		}
	} else {
		sl = append(sl, slot{off: [3]int16{0}, n: 3, spare: Ample})
		for _, e := range []int{16, 32, 64} {
			for j := 0; j <= 3; j++ {
				o := e - j
				n := o + 3 // 16: the string ends the input
				switch e {
				case 32:
					n = 48
				case 64:
					n = o + 4
				}
				sl = append(sl, slot{off: [3]int16{int16(o)}, n: int16(n), spare: Ample})
			}
		}
	}
	return []group{{k: k, slots: sl}}
}
