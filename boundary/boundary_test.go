package boundary

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

func TestLocate(t *testing.T) {
	for _, c := range []struct {
		off  int
		want string
	}{
		{0, "chunk 0, lane 0 of 16, at the start"},
		{3, "chunk 0, lane 3 of 16, 3 bytes after the start"},
		{8, "chunk 0, lane 8 of 16, 8 bytes after the start"},
		{9, "chunk 0, lane 9 of 16, 7 bytes before the 16-byte edge at 16"},
		{15, "chunk 0, lane 15 of 16, 1 byte before the 16-byte edge at 16"},
		{16, "chunk 1, lane 0 of 16, at the 16-byte edge at 16"},
		{31, "chunk 1, lane 15 of 16, 1 byte before the 32-byte edge at 32"},
		{33, "chunk 2, lane 1 of 16, 1 byte after the 32-byte edge at 32"},
		{62, "chunk 3, lane 14 of 16, 2 bytes before the 64-byte edge at 64"},
		{193, "chunk 12, lane 1 of 16, 1 byte after the 64-byte edge at 192"},
		{-1, "chunk -1, lane 15 of 16, 1 byte before the start"},
		{-16, "chunk -1, lane 0 of 16, 16 bytes before the start"},
	} {
		if got := Locate(c.off).String(); got != c.want {
			t.Errorf("Locate(%d) = %q; want %q", c.off, got, c.want)
		}
		l := Locate(c.off)
		if l.Chunk*Lanes+l.Lane != c.off || l.Lane < 0 || l.Lane >= Lanes || l.Edge+l.Dist != c.off {
			t.Errorf("Locate(%d) = %+v: inconsistent", c.off, l)
		}
	}
}

func TestUTF8Units(t *testing.T) {
	seen := map[string]bool{}
	for _, u := range UTF8Units() {
		if seen[string(u.Bytes)] {
			t.Errorf("unit %s twice", u)
		}
		seen[string(u.Bytes)] = true
		valid := strings.HasPrefix(u.Class, "utf8")
		if utf8.Valid(u.Bytes) != valid {
			t.Errorf("unit %s (class %s): utf8.Valid = %v", u, u.Class, !valid)
		}
		if valid {
			r, n := utf8.DecodeRune(u.Bytes)
			if n != len(u.Bytes) || fmt.Sprintf("U+%04X", r) != u.Name {
				t.Errorf("unit %s decodes to U+%04X in %d bytes", u, r, n)
			}
		}
	}
	// Every valid length and the specials are there.
	for _, name := range []string{"U+0080", "U+07FF", "U+0800", "U+FFFF", "U+10000", "U+10FFFF", "U+2028", "U+2029", "U+FFFD", "U+FEFF"} {
		found := false
		for _, u := range UTF8Units() {
			found = found || u.Name == name
		}
		if !found {
			t.Errorf("no unit %s", name)
		}
	}
}

func testSpace(t *testing.T) *Space {
	t.Helper()
	units := append(ByteUnits("dirty", '"', 0x01, '\\'), UTF8Units()...)
	s, err := New(Config{Units: units, Pairs: units[:6], Triples: units[:4], Filler: []byte("abcdefg")})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSpace checks every placement of every family (a sample of the embedded exhaustive
// ones): the input is filler except for the items, which lie where the family says.
func TestSpace(t *testing.T) {
	s := testSpace(t)
	var p Placement
	var buf []byte
	for _, f := range s.Families() {
		smp := f.Sample(0)
		if strings.HasPrefix(f.Name, "embed") {
			smp = f.Sample(200000)
		}
		lens := map[int]bool{}
		splits := map[[2]int]bool{}
		for k := uint64(0); k < smp.Len; k++ {
			i := smp.Index(k)
			buf = f.At(i, &p, buf)
			if len(buf) != p.Len || p.Len > s.MaxLen || p.Family != f.Name || p.Index != i {
				t.Fatalf("%s: bad placement %+v, len %d", f.Name, p, len(buf))
			}
			lens[p.Len] = true
			covered := make([]bool, p.Len)
			prevEnd := 0
			for _, it := range p.Items {
				if it.Off < prevEnd || it.Off+it.Len > p.Len {
					t.Fatalf("%s: item %+v out of place in %s", f.Name, it, p.String())
				}
				prevEnd = it.Off + it.Len
				if it.Unit != nil && string(buf[it.Off:it.Off+it.Len]) != string(it.Unit.Bytes) {
					t.Fatalf("%s: item %+v not at its offset in % x", f.Name, it, buf)
				}
				for j := it.Off; j < it.Off+it.Len; j++ {
					covered[j] = true
				}
			}
			for j, b := range buf {
				if !covered[j] && b != s.Filler(j) {
					t.Fatalf("%s: byte %d of %s is not filler", f.Name, j, p.String())
				}
			}
			switch f.Name {
			case "clean":
				if len(p.Items) != 0 {
					t.Fatalf("clean placement with items")
				}
			case "edge", "straddle":
				it := p.Items[0]
				near := false
				for e := 0; e <= s.MaxLen; e += Lanes {
					near = near || (it.Off >= e-it.Len-3 && it.Off <= e+3)
				}
				if !near || crosses(it.Off, it.Len) != (f.Name == "straddle") {
					t.Fatalf("%s: %s", f.Name, p.String())
				}
				if e, sp := p.Edge(); f.Name == "straddle" {
					splits[[2]int{sp, it.Len - sp}] = true
					if e%Lanes != 0 || sp < 1 || sp >= it.Len {
						t.Fatalf("straddle %s: edge %d split %d", p.String(), e, sp)
					}
				}
			case "pair", "triple":
				w := 16
				if p.Items[0].Off >= 64 {
					w = 64
				} else if p.Items[0].Off >= 32 {
					w = 32
				}
				for _, it := range p.Items {
					if it.Off < w || it.Off >= 2*w {
						t.Fatalf("%s: item outside block [%d, %d): %s", f.Name, w, 2*w, p.String())
					}
				}
			case "align":
				if p.Layouts != Aligned || p.Align < 0 || p.Align > 63 {
					t.Fatalf("align: %s", p.String())
				}
			case "dst":
				if p.DstLen < 0 || p.DstLen > 64 || p.Spare < Ample || p.Spare > 64 {
					t.Fatalf("dst: %s", p.String())
				}
			}
		}
		if f.Name == "clean" || f.Name == "edge" {
			for n := 1; n <= s.MaxLen; n++ {
				if !lens[n] {
					t.Errorf("%s: no input of length %d", f.Name, n)
				}
			}
		}
		if f.Name == "straddle" {
			for _, sp := range [][2]int{{1, 1}, {1, 2}, {2, 1}, {1, 3}, {2, 2}, {3, 1}} {
				if !splits[sp] {
					t.Errorf("straddle: no split %d+%d", sp[0], sp[1])
				}
			}
		}
		t.Logf("%-8s %10d placements (%d checked)", f.Name, f.Len(), smp.Len)
	}
}

// TestEmbedded checks that the embedded families hold every string of their length at each
// of their offsets.
func TestEmbedded(t *testing.T) {
	s := testSpace(t)
	var p Placement
	var buf []byte
	for k, name := range []string{"", "embed1", "embed2"} {
		if k == 0 || (k == 2 && testing.Short()) {
			continue
		}
		f := s.Family(name)
		seen := map[[2]int]int{}
		for i := uint64(0); i < f.Len(); i++ {
			buf = f.At(i, &p, buf)
			it := p.Items[0]
			v := 0
			for _, b := range buf[it.Off : it.Off+it.Len] {
				v = v<<8 | int(b)
			}
			seen[[2]int{it.Off, v}]++
		}
		for _, o := range EmbedOffsets {
			for v := 0; v < 1<<(8*k); v++ {
				if seen[[2]int{o, v}] != 2 {
					t.Fatalf("%s: string %x at %d placed %d times, want 2", name, v, o, seen[[2]int{o, v}])
				}
			}
		}
	}
	f := s.Family("embed3")
	if f.Len() != 13<<24 {
		t.Errorf("embed3: %d placements, want 13 × 2^24", f.Len())
	}
	// The 13 placements of one string: offset 0 and every split across 16, 32, 64.
	offs := map[int]bool{}
	for i := uint64(0x414243 * 13); i < 0x414244*13; i++ {
		buf = f.At(i, &p, buf)
		if string(buf[p.Items[0].Off:p.Items[0].Off+3]) != "ABC" {
			t.Fatalf("embed3 #%d: %s", i, p.String())
		}
		offs[p.Items[0].Off] = true
	}
	for _, o := range []int{0, 13, 14, 15, 16, 29, 30, 31, 32, 61, 62, 63, 64} {
		if !offs[o] {
			t.Errorf("embed3: no placement at %d", o)
		}
	}
}

func TestSample(t *testing.T) {
	s := testSpace(t)
	for _, f := range s.Families() {
		for _, max := range []uint64{1, 7, 1000} {
			smp := f.Sample(max)
			if smp.Len > max || smp.Len == 0 {
				t.Errorf("%s: sample of %d has %d", f.Name, max, smp.Len)
			}
			prev := int64(-1)
			for k := uint64(0); k < smp.Len; k++ {
				i := smp.Index(k)
				if int64(i) <= prev || i >= f.Len() {
					t.Fatalf("%s: sample index %d = %d after %d", f.Name, k, i, prev)
				}
				prev = int64(i)
			}
		}
	}
}

//go:nocheckptr
//go:noinline
func peek(p unsafe.Pointer, off int) byte { return *(*byte)(unsafe.Add(p, off)) }

//go:nocheckptr
//go:noinline
func poke(p unsafe.Pointer, off int) { *(*byte)(unsafe.Add(p, off)) = 1 }

// TestGuard checks that a read one byte outside an input flush against a guard page faults,
// that the fault is located, and that a write past a destination's capacity faults.
func TestGuard(t *testing.T) {
	b, err := NewBuffer(300)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free()
	if !b.Guarded() {
		t.Skip("no guard pages (mmap unavailable)")
	}
	for _, n := range []int{1, 15, 16, 17, 193} {
		in := b.Input(EndFlush, n, 0)
		if len(in) != n || cap(in) != n {
			t.Fatalf("EndFlush(%d): len %d cap %d", n, len(in), cap(in))
		}
		base := unsafe.Pointer(unsafe.SliceData(in))
		if p := Protect(func() { _ = peek(base, n-1) }); p != nil {
			t.Fatalf("reading the last byte faulted: %v", p)
		}
		p := Protect(func() { _ = peek(base, n) })
		addr, ok := FaultAddr(p)
		if !ok {
			t.Fatalf("reading past the end of a %d-byte input: %v, want a fault", n, p)
		}
		if side, off := b.Where(in, addr); side != After || off != n {
			t.Errorf("fault past the end of %d bytes: %v at %d", n, side, off)
		}

		in = b.Input(StartFlush, n, 0)
		base = unsafe.Pointer(unsafe.SliceData(in))
		p = Protect(func() { _ = peek(base, -1) })
		addr, ok = FaultAddr(p)
		if !ok {
			t.Fatalf("reading before the start of a %d-byte input: %v, want a fault", n, p)
		}
		if side, off := b.Where(in, addr); side != Before || off != -1 {
			t.Errorf("fault before the start of %d bytes: %v at %d", n, side, off)
		}
	}
	for a := 0; a < 64; a++ {
		in := b.Input(Aligned, 33, a)
		if got := int(uintptr(unsafe.Pointer(unsafe.SliceData(in))) % 64); got != a || len(in) != 33 {
			t.Errorf("Aligned(33, %d): address ≡ %d, len %d", a, got, len(in))
		}
	}
	d := b.Tail(5, 10)
	if len(d) != 5 || cap(d) != 15 {
		t.Fatalf("Tail(5, 10): len %d cap %d", len(d), cap(d))
	}
	base := unsafe.Pointer(unsafe.SliceData(d))
	if p := Protect(func() { poke(base, 14) }); p != nil {
		t.Fatalf("writing the last byte of capacity faulted: %v", p)
	}
	p := Protect(func() { poke(base, 15) })
	addr, ok := FaultAddr(p)
	if !ok {
		t.Fatalf("writing past the capacity: %v, want a fault", p)
	}
	if side, off := b.Where(d[:0:cap(d)], addr); side != After || off != 15 {
		t.Errorf("fault past the capacity: %v at %d", side, off)
	}
	// An ordinary panic is not a fault.
	if _, ok := FaultAddr(Protect(func() { panic("x") })); ok {
		t.Error("FaultAddr(panic(\"x\")) = ok")
	}
}

// TestFallback checks the heap fallback used without mmap.
func TestFallback(t *testing.T) {
	noMmap = true
	defer func() { noMmap = false }()
	b, err := NewBuffer(300)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free()
	if b.Guarded() {
		t.Fatal("fallback buffer claims guard pages")
	}
	for _, l := range []Layout{EndFlush, StartFlush} {
		in := b.Input(l, 20, 0)
		copy(in, "0123456789abcdefghij")
		if len(in) != 20 || cap(in) != 20 || string(in) != "0123456789abcdefghij" {
			t.Errorf("%v: %q cap %d", l, in, cap(in))
		}
	}
	for a := 0; a < 64; a++ {
		in := b.Input(Aligned, 20, a)
		if got := int(uintptr(unsafe.Pointer(unsafe.SliceData(in))) % 64); got != a {
			t.Errorf("Aligned(20, %d): address ≡ %d", a, got)
		}
	}
}

func TestCanary(t *testing.T) {
	b := make([]byte, 300)
	FillCanary(b, 7)
	if CheckCanary(b, 7) != -1 {
		t.Fatal("fresh canary reported changed")
	}
	b[123]++
	if got := CheckCanary(b, 7); got != 123 {
		t.Errorf("CheckCanary = %d, want 123", got)
	}
	same := 0
	for i := 1; i < 256; i++ {
		if Canary(i) == Canary(i-1) {
			same++
		}
	}
	if same > 2 {
		t.Errorf("canary repeats a byte %d times in 256", same)
	}
}
