// Command _asm generates fast's amd64 assembly kernels with avo:
//
//	cd fast/_asm && go run . -out ../escape_amd64.s -stubs ../escape_stubs_amd64.go
//
// It lives in its own module so that avo stays out of difffuzz's module graph. The generated
// files are committed; regenerating them must not change a byte (CI checks that).
//
// The kernels have the contract of fast's runKernel (kernel.go) and are documented in the
// style of Go's internal/bytealg: each function starts with a comment giving its contract, its
// register use and its algorithm. The Go side (kernel_amd64.go) picks the function for the
// option set and the CPU, calls it only for len(src) >= 16, and finishes with the portable
// SWAR kernel where the assembly stops before the end (the last bytes of the input, or the
// bytes just before a non-ASCII byte).
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math/bits"
	"os"
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Layout of the per-option-set kernel table kt (escCtx.kt in tables.go, [ktWords]uint64).
const (
	ktShuf = 0   // 32 bytes: VPSHUFB table, entry l = the escaped special byte with low nibble l, else 0xFF (both lanes)
	ktSpec = 32  // 7 x 16 bytes: the escaped special bytes, each broadcast to 16 bytes, in use order, then 0xFF
	ktLT   = 144 // 16 bytes: '<' with HEX_TAG, else 0xFF (never equal to an ASCII byte)
	ktELo  = 160 // 32 bytes: escape classes by low nibble (bit 0 always; bits 1/2/3: 0x2_/0x3_/0x5_ escaped; without UNESCAPED_LINE_TERMINATORS bit 4: 2, bit 5: 8, 9)
	ktSLo  = 192 // 32 bytes: two-byte escape classes by low nibble (bits 0/1/2: 0x0_/0x2_/0x5_ takes \x)
	ktHexU = 224 // 1 byte: 1 when a byte >= 0x20 takes a \u00XX escape (HEX_TAG, _AMP, _APOS, _QUOT), else 0
	ktNSP  = 225 // 1 byte: escCtx.nsp, the number of escaped special bytes (clean16's SSE2 path)
	ktPerm = 232 // 128 bytes: VPERMI2B table by ASCII byte: 0 clean, the letter of a two-byte escape, 0x80 for \u00XX
)

// utf8consts, the constants shared by the kernels (the UTF-8 validator's, Keiser–Lemire
// "lookup" algorithm, and the escapers'): konst is the symbol, k(off) a constant in it.
var konst Mem

// The layout of utf8consts. region hands out the offsets, in the order of the var block
// below (package variables that do not depend on one another are initialized in declaration
// order), and data checks every DATA that tables writes against it.
var (
	konstSize  int    // the bytes handed out so far; after package initialization, the symbol's size
	konstSpans []span // the regions, in offset order
	konstEnd   int    // the end of the last DATA written
)

// span is a region of utf8consts: n bytes from off, of which written have been written.
type span struct{ off, n, written int }

// region hands out the next n bytes of utf8consts and returns their offset. Every region
// starts at a multiple of 32 (n is rounded up), the alignment of the widest loads but
// AVX-512's.
func region(n int) int {
	off := konstSize
	konstSpans = append(konstSpans, span{off: off, n: n})
	konstSize += (n + 31) &^ 31
	return off
}

// hole skips n unused bytes of utf8consts (n a multiple of 32).
func hole(n int) int {
	konstSize += n
	return konstSize - n
}

var (
	kByte1High = region(32)       // error bits by the high nibble of the previous byte
	kByte1Low  = region(32)       // error bits by the low nibble of the previous byte
	kByte2High = region(32)       // error bits by the high nibble of the current byte
	k0F        = region(32)       // 0x0F
	k60        = region(32)       // 0xE0-0x80: saturating prev2-0x60 >= 0x80 iff prev2 >= 0xE0
	k70        = region(32)       // 0xF0-0x80 (also: VPADDUSB of it keeps bytes < 0x10 below 0x80, with their low nibble)
	k80        = region(32)       // 0x80
	kE2        = region(32)       // 0xE2, lead of U+2028/U+2029
	k01        = region(32)       // 0x01
	kA9        = region(32)       // 0xA9 (A8|1): last byte of U+2028/U+2029
	kEHi       = region(32)       // escape classes by high nibble (0,1: bit 0; 2: bit 1; 3: bit 2; 5: bit 3; E: bit 4)
	k20        = region(32)       // 0x20
	kHex       = region(32)       // "0123456789abcdef" in both lanes (hex digit by nibble)
	kCls       = region(32)       // byte classes by high nibble: bit 7 continuation (8-B), bit 6 2-byte lead (C, D), bit 5 3-byte lead (E), bit 4 4-byte lead (F)
	k03        = region(32)       // 0x03
	k07        = region(32)       // 0x07
	k08        = region(32)       // 0x08
	k0C        = region(32)       // 0x0C
	k0D        = region(32)       // 0x0D
	kBS        = region(32)       // '\\'
	kU         = region(32)       // 'u'
	k06        = region(32)       // 0x06
	k3C        = region(32)       // '<'
	k3F        = region(32)       // 0x3F
	kTriP      = region(3 * 8)    // bits 0, 1, 2 mod 3 (escapeMBAVX512's triples)
	_          = hole(32)         // (kTriP's region rounded up to 64 bytes)
	k0E        = region(32)       // 0x0E
	kBF        = region(32)       // 0xBF (signed x > 0xBF: a lead byte or ASCII)
	kC0        = region(32)       // 0xC0
	k10        = region(32)       // 0x10
	kE0        = region(32)       // 0xE0
	kF0        = region(32)       // 0xF0
	k02        = region(32)       // 0x02
	_          = hole(64)         // unused (kept: the AVX-512 tables below keep the offsets they were measured with)
	kNext      = region(64)       // 1 2 ... 63 63 (VPERMB: the next byte's)
	kPerm2     = region(64)       // escapeMBAVX512's permutation for 3-byte text (see there)
	kSurA      = region(32)       // a high surrogate's 2nd hex digit by L (see runs)
	kSurB      = region(32)       // its 3rd digit's upper two bits by L
	kRun3      = region(256 * 32) // byte-triple groups, 3 bytes of a byte >= 0x80 (see runs)
	kRun2      = region(256 * 32) // the same, 2 bytes of a byte >= 0x80
	kTri       = region(3 * 64)   // escapeMBAVX512's triple indexes (see there)
	kPrev      = region(64)       // 63 0 1 ... 62 (VPERMB: the previous byte's)
	kSHi       = region(32)       // two-byte escape classes by high nibble (0: bit 0; 2: bit 1; 5: bit 2)
	kCtlX      = region(32)       // control byte XOR its escape letter by low nibble (\b \t \n \f \r), else 0
	kExp       = region(256 * 16) // VPSHUFB expansion of 8 bytes + '\\' by two-byte escape mask (see expandBlock)
	kExpLen    = region(256)      // 8 + popcount(mask), the length of kExp's output
	kW1248     = region(32)       // 1 2 4 8 repeated (a lane's weight in its 4-byte group)
	kW16       = region(32)       // 16-bit ones (VPMADDWD: sum of the two words of a dword)
	kUC        = region(32)       // "\\u00" repeated
	kExpU      = region(256 * 32) // expandU's VPSHUFB masks of a 4-byte group by its index (see expUEntry)
	kC2        = region(32)       // 0xC2, the first lead of a 2-byte sequence
	kEHiX      = region(32)       // escapeUUAVX512's kEHi: A: bit 5 (A8/A9 with ktELo), E: none
	kDF        = region(32)       // 0xDF (all classes but bit 5)
	kED        = region(32)       // 0xED, the lead of the surrogates' 3-byte sequences
	kU2        = region(1920 * 8) // \\u0XYZ of the code points 0x80..0x7FF (8 bytes each, the top two 0)
	k30        = region(32)       // '0'
)

// data is DATA for utf8consts: it panics unless v lies inside one region, after everything
// written before (avo wants DATA in offset order), so that no table overlaps another or runs
// past its region.
func data(off int, v Constant) {
	end := off + v.Bytes()
	if off < konstEnd {
		panic(fmt.Sprintf("utf8consts: DATA at %d is before the end of the last one (%d)", off, konstEnd))
	}
	for i := range konstSpans {
		if s := &konstSpans[i]; s.off <= off && end <= s.off+s.n {
			s.written += v.Bytes()
			konstEnd = end
			DATA(off, v)
			return
		}
	}
	panic(fmt.Sprintf("utf8consts: DATA at %d..%d is outside every region", off, end))
}

// checkKonst panics unless tables filled every region exactly and the symbol ends where the
// layout does.
func checkKonst() {
	for _, s := range konstSpans {
		if s.written != s.n {
			panic(fmt.Sprintf("utf8consts: the region at %d has %d bytes of %d written", s.off, s.written, s.n))
		}
	}
	if konstEnd != konstSize {
		panic(fmt.Sprintf("utf8consts: the DATA ends at %d, the layout at %d", konstEnd, konstSize))
	}
}

// Error bits of the lookup tables (simdjson's names).
const (
	tooShort     = 1 << 0 // 11______ followed by 0_______ or 11______
	tooLong      = 1 << 1 // 0_______ followed by 10______
	overlong3    = 1 << 2 // 11100000 100_____
	tooLarge     = 1 << 3 // 11110100 1001____ and up, 11110101..11111111 10______
	surrogate    = 1 << 4 // 11101101 101_____
	overlong2    = 1 << 5 // 1100000_ 10______
	tooLarge1000 = 1 << 6 // 11110101..11111111 1000____
	overlong4    = 1 << 6 // 11110000 1000____
	twoConts     = 1 << 7 // 10______ 10______
	carry        = tooShort | tooLong | twoConts
)

func tables() {
	konst = GLOBL("utf8consts", RODATA|NOPTR)
	b1h := [16]byte{
		tooLong, tooLong, tooLong, tooLong, tooLong, tooLong, tooLong, tooLong,
		twoConts, twoConts, twoConts, twoConts,
		tooShort | overlong2,
		tooShort,
		tooShort | overlong3 | surrogate,
		tooShort | tooLarge | tooLarge1000 | overlong4,
	}
	b1l := [16]byte{
		carry | overlong3 | overlong2 | overlong4,
		carry | overlong2,
		carry,
		carry,
		carry | tooLarge,
		carry | tooLarge | tooLarge1000,
		carry | tooLarge | tooLarge1000,
		carry | tooLarge | tooLarge1000,
		carry | tooLarge | tooLarge1000,
		carry | tooLarge | tooLarge1000,
		carry | tooLarge | tooLarge1000,
		carry | tooLarge | tooLarge1000,
		carry | tooLarge | tooLarge1000,
		carry | tooLarge | tooLarge1000 | surrogate,
		carry | tooLarge | tooLarge1000,
		carry | tooLarge | tooLarge1000,
	}
	b2h := [16]byte{
		tooShort, tooShort, tooShort, tooShort, tooShort, tooShort, tooShort, tooShort,
		tooLong | overlong2 | twoConts | overlong3 | tooLarge1000 | overlong4,
		tooLong | overlong2 | twoConts | overlong3 | tooLarge,
		tooLong | overlong2 | twoConts | surrogate | tooLarge,
		tooLong | overlong2 | twoConts | surrogate | tooLarge,
		tooShort, tooShort, tooShort, tooShort,
	}
	table := func(off int, t [16]byte) {
		for i := 0; i < 32; i++ {
			data(off+i, U8(t[i%16]))
		}
	}
	bcast := func(off int, b byte) {
		for i := 0; i < 32; i += 8 {
			data(off+i, U64(uint64(b)*0x0101010101010101))
		}
	}
	table(kByte1High, b1h)
	table(kByte1Low, b1l)
	table(kByte2High, b2h)
	bcast(k0F, 0x0F)
	bcast(k60, 0xE0-0x80)
	bcast(k70, 0xF0-0x80)
	bcast(k80, 0x80)
	bcast(kE2, 0xE2)
	bcast(k01, 0x01)
	bcast(kA9, 0xA9)
	table(kEHi, [16]byte{0: 1, 1: 1, 2: 2, 3: 4, 5: 8, 0xE: 0x10})
	bcast(k20, 0x20)
	table(kHex, [16]byte{'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'})
	table(kCls, [16]byte{8: 0x80, 9: 0x80, 0xA: 0x80, 0xB: 0x80, 0xC: 0x40, 0xD: 0x40, 0xE: 0x20, 0xF: 0x10})
	bcast(k03, 0x03)
	bcast(k07, 0x07)
	bcast(k08, 0x08)
	bcast(k0C, 0x0C)
	bcast(k0D, 0x0D)
	bcast(kBS, '\\')
	bcast(kU, 'u')
	bcast(k06, 0x06)
	bcast(k3C, '<')
	bcast(k3F, 0x3F)
	for r := 0; r < 3; r++ {
		data(kTriP+8*r, U64(uint64(0x9249249249249249)<<r))
	}
	bcast(k0E, 0x0E)
	bcast(kBF, 0xBF)
	bcast(kC0, 0xC0)
	bcast(k10, 0x10)
	bcast(kE0, 0xE0)
	bcast(kF0, 0xF0)
	bcast(k02, 0x02)
	for i := 0; i < 64; i++ {
		data(kNext+i, U8(byte(min(i+1, 63))))
	}
	// Lane l: positions 8l..8l+7, then 32+8l..32+8l+7 (VPUNPCKLBW/HBW then give positions
	// 0-31 and 32-63 in order).
	for l := 0; l < 4; l++ {
		for i := 0; i < 16; i++ {
			data(kPerm2+16*l+i, U8(byte(32*(i/8)+8*l+i%8)))
		}
	}
	// L = (lead & 3) << 2 | 2nd byte >> 4 & 3 is the plane of a code point with the leads
	// 0xF0-0xF3, so w = L - 1; only 0xF4 (plane 16, w = 15) has L = 0 in valid text.
	var surA, surB [16]byte
	for l := 0; l < 16; l++ {
		w := (l - 1) & 15
		surA[l], surB[l] = byte(8|w>>2), byte(w&3<<2)
	}
	table(kSurA, surA)
	table(kSurB, surB)
	for _, t := range []struct{ off, n int }{{kRun3, 3}, {kRun2, 2}} {
		for m := 0; m < 256; m++ {
			// Two lanes: the groups of m's low and high nibble (VPSHUFB works per lane).
			lo, hi := runEntry(m&15, t.n), runEntry(m>>4, t.n)
			e := append(lo[:], hi[:]...)
			for i := 0; i < 32; i += 8 {
				var q uint64
				for b := 7; b >= 0; b-- {
					q = q<<8 | uint64(e[i+b])
				}
				data(t.off+32*m+i, U64(q))
			}
		}
	}
	// Byte k of chunk j: triple p / 3 of p = 64j + k, its A (r = p % 3 = 0, C at 2) or B
	// (r = 1: + 64, the second table of VPERMI2B).
	for p := 0; p < 192; p++ {
		x := p / 3
		if p%3 == 1 {
			x += 64
		}
		data(kTri+p, U8(byte(x)))
	}
	for i := 0; i < 64; i++ {
		data(kPrev+i, U8(byte((i+63)%64)))
	}
	table(kSHi, [16]byte{0: 1, 2: 2, 5: 4})
	table(kCtlX, [16]byte{8: 'b' ^ 8, 9: 't' ^ 9, 0xA: 'n' ^ 0xA, 0xC: 'f' ^ 0xC, 0xD: 'r' ^ 0xD})
	for m := 0; m < 256; m++ {
		e := expEntry(m)
		for i := 0; i < 16; i += 8 {
			var q uint64
			for b := 7; b >= 0; b-- {
				q = q<<8 | uint64(e[i+b])
			}
			data(kExp+16*m+i, U64(q))
		}
	}
	for m := 0; m < 256; m++ {
		data(kExpLen+m, U8(byte(8+bits.OnesCount8(uint8(m)))))
	}
	for i := 0; i < 32; i += 4 {
		data(kW1248+i, U32(0x08040201))
	}
	for i := 0; i < 32; i += 4 {
		data(kW16+i, U32(0x00010001))
	}
	for i := 0; i < 32; i += 4 {
		data(kUC+i, String("\\u00"))
	}
	for m := 0; m < 256; m++ {
		e := expUEntry(m)
		for i := 0; i < 32; i += 8 {
			var q uint64
			for b := 7; b >= 0; b-- {
				q = q<<8 | uint64(e[i+b])
			}
			data(kExpU+32*m+i, U64(q))
		}
	}
	bcast(kC2, 0xC2)
	table(kEHiX, [16]byte{0: 1, 1: 1, 2: 2, 3: 4, 5: 8, 0xA: 0x20})
	bcast(kDF, 0xDF)
	bcast(kED, 0xED)
	for cp := 0x80; cp < 0x800; cp++ {
		const hex = "0123456789abcdef"
		e := [8]byte{'\\', 'u', '0', hex[cp>>8], hex[cp>>4&15], hex[cp&15]}
		data(kU2+8*(cp-0x80), U64(binary.LittleEndian.Uint64(e[:])))
	}
	bcast(k30, '0')
	checkKonst()
}

func k(off int) Mem { return konst.Offset(off) }

// expEntry is the VPSHUFB mask of expandBlock for the 8-byte group whose bytes with a
// two-byte escape are the set bits of m, applied to the 16 bytes [the group, translated; 8
// times '\\']: byte i of the group becomes 8 (the '\\' of lane 8) then i when bit i is set,
// else i alone, in order; the rest of the 16 bytes (past 8+popcount(m), don't-care) are 0x80
// (zero).
func expEntry(m int) [16]byte {
	var e [16]byte
	j := 0
	for i := 0; i < 8; i++ {
		if m>>i&1 == 1 {
			e[j] = 8
			j++
		}
		e[j] = byte(i)
		j++
	}
	for ; j < 16; j++ {
		e[j] = 0x80
	}
	return e
}

// expUEntry is the 32-byte entry of kExpU for index m of a 4-byte group: bit i (0..3) set
// when byte i takes a two-byte escape, bit 4+i when it takes a \u00XX one. It shuffles the 16
// bytes [4 letters; 4 high hex digits; 4 low hex digits; '\\' 'u' '0' '0'] (the same in both
// lanes) into the group's output: 12 i for a two-byte escape, 12 13 14 15 4+i 8+i for a
// \u00XX one, i for a clean byte; the rest is 0x80 (zero) but for byte 31, the output's
// length (at most 24, so byte 31 of the output is past it).
func expUEntry(m int) [32]byte {
	var e [32]byte
	j := 0
	for i := 0; i < 4; i++ {
		switch {
		case m>>(4+i)&1 == 1:
			j += copy(e[j:], []byte{12, 13, 14, 15, byte(4 + i), byte(8 + i)})
		case m>>i&1 == 1:
			j += copy(e[j:], []byte{12, byte(i)})
		default:
			e[j] = byte(i)
			j++
		}
	}
	for k := j; k < 31; k++ {
		e[k] = 0x80
	}
	e[31] = byte(j)
	return e
}

// runEntry is the VPSHUFB mask of runs' group of four dwords [A B C 0] whose bytes >= 0x80
// are the set bits of m: byte 0 of an ASCII byte's dword, bytes 0 to n-1 of the others', in
// order, then 0x80 (zero); byte 15 is the output's length (at most 12, so its own output
// byte, past the length, is don't-care).
func runEntry(m, n int) [16]byte {
	var e [16]byte
	j := 0
	for i := 0; i < 4; i++ {
		w := 1
		if m>>i&1 == 1 {
			w = n
		}
		for b := 0; b < w; b++ {
			e[j] = byte(4*i + b)
			j++
		}
	}
	for i := j; i < 15; i++ {
		e[i] = 0x80
	}
	e[15] = byte(j)
	return e
}

func main() {
	// The generated files belong to package fast, not to this directory's package.
	if err := flag.CommandLine.Set("pkg", "fast"); err != nil {
		panic(err)
	}
	ConstraintExpr("!purego")
	tables()
	asciiEndAVX2()
	asciiEndSSE2()
	lastNonASCIIAVX2()
	lastNonASCIISSE2()
	for _, x512 := range []bool{false, true} {
		for _, ctl := range []bool{true, false} {
			for _, tag := range []bool{false, true} {
				escapeAVX2(tag, ctl, x512)
			}
		}
		for _, tag := range []bool{false, true} {
			for _, lt := range []bool{false, true} {
				escapeUUAVX2(tag, lt, x512)
			}
		}
	}
	for _, tag := range []bool{false, true} {
		escapeMBAVX2(tag)
	}
	for _, valid := range []bool{false, true} {
		for _, tag := range []bool{false, true} {
			escapeMBAVX512(tag, valid)
		}
	}
	for n := 2; n <= 7; n++ {
		escapeSSE2(n)
	}
	escapeShortMBAVX512(false)
	clean16()
	validAVX512()
	escapeShortMBAVX512(true)
	Generate()
	if err := noEscape(flag.Lookup("stubs").Value.String(), "escapeMBAVX2", "escapeMBAVX2Tag", "escapeMBAVX512",
		"escapeMBAVX512Tag", "escapeMBAVX512Valid", "escapeMBAVX512TagValid", "escapeShortMBAVX512",
		"escapeShortMBAVX512Y"); err != nil {
		fmt.Fprintln(os.Stderr, "asm:", err)
		os.Exit(1)
	}
	if err := alignLoops(flag.Lookup("out").Value.String(), map[string][]string{
		"escapeMBAVX2": {"loop", "place"}, "escapeMBAVX2Tag": {"loop", "place"},
		"escapeAVX2": {"block32"}, "escapeAVX2Tag": {"block32"},
		"escapeAVX512": {"block32", "d64/64"}, "escapeAVX512NoCtl": {"d64"}, "escapeAVX512Tag": {"block32"},
	}); err != nil {
		fmt.Fprintln(os.Stderr, "asm:", err)
		os.Exit(1)
	}
}

// noEscape marks the given functions' stubs //go:noescape (which avo does not emit): they
// keep no pointer, so that archMB's stack buffers for a string's last bytes stay on the stack.
func noEscape(path string, names ...string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(b)
	for _, n := range names {
		decl := "\nfunc " + n + "("
		if strings.Count(s, decl) != 1 {
			return fmt.Errorf("%s: no single declaration of %s", path, n)
		}
		s = strings.Replace(s, decl, "\n//\n//go:noescape"+decl, 1)
	}
	return os.WriteFile(path, []byte(s), 0o644)
}

// alignLoops puts PCALIGN $32 (which avo does not emit) before the given labels of the given
// functions in the generated file. Measured on a Xeon when escapeAVX2 grew by a few
// instructions: escapeMBAVX2's window loop and per-unit store loop ran 17 % slower on French
// text, and escapeAVX2's block handler 9 % slower on text with many quotes, only because of
// where the code before them left them; aligned, both were back. It also starts every function
// with PCALIGN $64, which pads nothing there but makes the linker start the function on a
// 64-byte boundary: a kernel's code then sits the same way in the cache lines and the decoded
// instruction cache whatever Go code is linked before it (escapeAVX512 moved from 0 to 32 mod
// 64 when Go code before it grew, and text with an é every 64 bytes ran 21-23 % slower).
func alignLoops(path string, labels map[string][]string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var out []string
	fn, n := "", 0
	for _, l := range strings.Split(string(data), "\n") {
		if name, ok := strings.CutPrefix(l, "TEXT ·"); ok {
			fn, _, _ = strings.Cut(name, "(")
			out = append(out, l, "\tPCALIGN $64")
			continue
		}
		for _, lb := range labels[fn] {
			// "label/64" aligns to 64 bytes instead of 32.
			name, align, _ := strings.Cut(lb, "/")
			if align == "" {
				align = "32"
			}
			if l == name+":" {
				out = append(out, "\tPCALIGN $"+align)
				n++
			}
		}
		out = append(out, l)
	}
	want := 0
	for _, ls := range labels {
		want += len(ls)
	}
	if n != want {
		return fmt.Errorf("alignLoops: %d of %d labels found in %s", n, want, path)
	}
	return os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o644)
}

// Register names used throughout, as in internal/bytealg.
var (
	rSI  = RSI // current source position
	rDI  = RDI // current destination position (see the block handlers for its meaning there)
	rBeg = R8  // start of src
	rDst = R9  // start of dst
	rEnd = R10 // end of src
	rEsc = R11 // escape table
)

func mem(base Register, disp int) Mem { return Mem{Base: base, Disp: disp} }

func memi(base, index Register, disp int) Mem {
	return Mem{Base: base, Index: index, Scale: 1, Disp: disp}
}

// ---------------------------------------------------------------------------------------------
// asciiEnd

func asciiEndAVX2() {
	TEXT("asciiEndAVX2", NOSPLIT, "func(s []byte) int")
	Doc("asciiEndAVX2 returns the index of the first byte >= 0x80 in s, or len(s).",
		"It requires AVX2 and len(s) >= 32.")
	Comment(
		"asciiEndAVX2 returns the index of the first byte >= 0x80 in s, or len(s).",
		"",
		"Contract: requires AVX2 and len(s) >= 32; reads only s[0:len(s)].",
		"",
		"Registers: SI = s, CX = current position, DX = end of s, AX = byte mask, Y0-Y1 data.",
		"",
		"Algorithm: 128 bytes per iteration (four loads OR-ed together, one VPMOVMSKB of the",
		"sign bits), then 32 bytes per iteration to find the block, then one 32-byte load that",
		"ends exactly at the end of s, its already checked lanes shifted out of the mask.",
	)
	si := Load(Param("s").Base(), RSI)
	n := Load(Param("s").Len(), RDX)
	ADDQ(si, n) // DX = end
	MOVQ(si, RCX)

	Label("loop128")
	LEAQ(mem(RCX, 128), RAX)
	CMPQ(RAX, RDX)
	JHI(LabelRef("loop32"))
	VMOVDQU(mem(RCX, 0), Y0)
	VPOR(mem(RCX, 32), Y0, Y1)
	VPOR(mem(RCX, 64), Y1, Y1)
	VPOR(mem(RCX, 96), Y1, Y1)
	VPMOVMSKB(Y1, EAX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("loop32"))
	ADDQ(U8(128), RCX)
	JMP(LabelRef("loop128"))

	Label("loop32")
	LEAQ(mem(RCX, 32), RAX)
	CMPQ(RAX, RDX)
	JHI(LabelRef("tail"))
	VMOVDQU(mem(RCX, 0), Y0)
	VPMOVMSKB(Y0, EAX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("found"))
	ADDQ(U8(32), RCX)
	JMP(LabelRef("loop32"))

	Label("tail")
	Comment("Fewer than 32 bytes left: the last 32 bytes of s, minus the lanes already checked.")
	CMPQ(RCX, RDX)
	JEQ(LabelRef("end"))
	VMOVDQU(mem(RDX, -32), Y0)
	VPMOVMSKB(Y0, EAX)
	MOVQ(RCX, RBX)
	SUBQ(RDX, RBX)
	ADDQ(U8(32), RBX) // BX = lanes already checked (1..31)
	XCHGQ(RBX, RCX)
	SHRL(CL, EAX)
	MOVQ(RBX, RCX)
	TESTL(EAX, EAX)
	JZ(LabelRef("end"))

	Label("found")
	BSFL(EAX, EAX)
	ADDQ(RAX, RCX)
	SUBQ(si, RCX)
	Store(RCX, ReturnIndex(0))
	VZEROUPPER()
	RET()

	Label("end")
	SUBQ(si, RDX)
	Store(RDX, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

func asciiEndSSE2() {
	TEXT("asciiEndSSE2", NOSPLIT, "func(s []byte) int")
	Doc("asciiEndSSE2 returns the index of the first byte >= 0x80 in s, or len(s).",
		"It requires len(s) >= 16.")
	Comment(
		"asciiEndSSE2 returns the index of the first byte >= 0x80 in s, or len(s).",
		"",
		"Contract: SSE2 only; requires len(s) >= 16; reads only s[0:len(s)].",
		"",
		"Registers: SI = s, CX = current position, DX = end of s, AX = byte mask, X0-X3 data.",
		"",
		"Algorithm: as asciiEndAVX2 with 16-byte blocks: 64 bytes per iteration, then 16, then",
		"one load ending exactly at the end of s.",
	)
	si := Load(Param("s").Base(), RSI)
	n := Load(Param("s").Len(), RDX)
	ADDQ(si, n)
	MOVQ(si, RCX)

	Label("loop64")
	LEAQ(mem(RCX, 64), RAX)
	CMPQ(RAX, RDX)
	JHI(LabelRef("loop16"))
	MOVOU(mem(RCX, 0), X0)
	MOVOU(mem(RCX, 16), X1)
	MOVOU(mem(RCX, 32), X2)
	MOVOU(mem(RCX, 48), X3)
	POR(X1, X0)
	POR(X3, X2)
	POR(X2, X0)
	PMOVMSKB(X0, EAX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("loop16"))
	ADDQ(U8(64), RCX)
	JMP(LabelRef("loop64"))

	Label("loop16")
	LEAQ(mem(RCX, 16), RAX)
	CMPQ(RAX, RDX)
	JHI(LabelRef("tail"))
	MOVOU(mem(RCX, 0), X0)
	PMOVMSKB(X0, EAX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("found"))
	ADDQ(U8(16), RCX)
	JMP(LabelRef("loop16"))

	Label("tail")
	Comment("Fewer than 16 bytes left: the last 16 bytes of s, minus the lanes already checked.")
	CMPQ(RCX, RDX)
	JEQ(LabelRef("end"))
	MOVOU(mem(RDX, -16), X0)
	PMOVMSKB(X0, EAX)
	MOVQ(RCX, RBX)
	SUBQ(RDX, RBX)
	ADDQ(U8(16), RBX)
	XCHGQ(RBX, RCX)
	SHRL(CL, EAX)
	MOVQ(RBX, RCX)
	TESTL(EAX, EAX)
	JZ(LabelRef("end"))

	Label("found")
	BSFL(EAX, EAX)
	ADDQ(RAX, RCX)
	SUBQ(si, RCX)
	Store(RCX, ReturnIndex(0))
	RET()

	Label("end")
	SUBQ(si, RDX)
	Store(RDX, ReturnIndex(0))
	RET()
}

// lastNonASCII emits the backward scan: 1 + the index of the last byte >= 0x80 in s, or 0.
func lastNonASCII(name string, o vecOps, unroll int, ctl bool) {
	w := o.w
	sig := "func(s []byte) int"
	if ctl {
		sig = "func(s []byte) (last int, ctl bool)"
	}
	TEXT(name, NOSPLIT, sig)
	doc := []string{name + " returns 1 + the index of the last byte >= 0x80 in s, or 0 when s is ASCII."}
	if ctl {
		doc = append(doc, "When s is ASCII, ctl reports whether s has a byte < 0x20 (else ctl is false).")
	}
	Doc(append(doc, fmt.Sprintf("It requires len(s) >= %d.", w))...)
	regNote := "Registers: SI = s, CX = current end (scanning down), DX = end of s, AX = byte mask."
	if ctl {
		regNote = "Registers: SI = s, CX = current end (scanning down), DX = end of s, AX = byte mask,\n" +
			"Y8 = signed minimum of the bytes scanned so far, Y9 = 0x20."
	}
	comment := []string{
		name + " returns 1 + the index of the last byte >= 0x80 in s, or 0 when s is ASCII.",
		"",
		fmt.Sprintf("Contract: requires len(s) >= %d; reads only s[0:len(s)].", w),
		"",
	}
	comment = append(comment, strings.Split(regNote, "\n")...)
	comment = append(comment, "",
		fmt.Sprintf("Algorithm: from the end of s down, %d bytes per iteration (the loads OR-ed", unroll*w),
		fmt.Sprintf("together, one sign-bit mask), then %d bytes to find the block, then one load", w),
		"at the start of s with the lanes already checked masked off; BSR gives the lane.",
		"It runs backwards so that the start of s, where the escape begins next, is the part",
		"left in the L1 cache.")
	if ctl {
		comment = append(comment,
			"The loads are combined by signed minimum rather than OR (the sign bit is the same",
			"test) and the minimum is kept across iterations: an ASCII s has a control byte",
			"exactly when that minimum is below 0x20, which lets the escape skip that test.")
	}
	Comment(comment...)
	si := Load(Param("s").Base(), RSI)
	n := Load(Param("s").Len(), RDX)
	ADDQ(si, n)
	MOVQ(RDX, RCX)
	if ctl {
		MOVL(U32(0x7f7f7f7f), EAX)
		VMOVD(EAX, X8)
		VPBROADCASTD(X8, Y8)
		MOVL(U32(0x20202020), EAX)
		VMOVD(EAX, X9)
		VPBROADCASTD(X9, Y9)
	}
	var regs []VecPhysical
	for i := 0; i < unroll; i++ {
		if w == 32 {
			regs = append(regs, []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7}[i])
		} else {
			regs = append(regs, xreg(i))
		}
	}
	Label("loopN")
	MOVQ(RCX, RAX)
	SUBQ(si, RAX)
	CMPQ(RAX, U32(unroll*w))
	JB(LabelRef("loop1"))
	for i := 0; i < unroll; i++ {
		o.load(mem(RCX, -(i+1)*w), regs[i])
	}
	for step := 1; step < unroll; step *= 2 {
		for i := 0; i+step < unroll; i += 2 * step {
			switch {
			case ctl:
				VPMINSB(regs[i+step], regs[i], regs[i])
			case o.vex:
				VPOR(regs[i+step], regs[i], regs[i])
			default:
				POR(regs[i+step], regs[i])
			}
		}
	}
	if ctl {
		VPMINSB(regs[0], Y8, Y8)
	}
	o.movmsk(regs[0], EAX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("loop1"))
	SUBQ(U32(unroll*w), RCX)
	JMP(LabelRef("loopN"))

	Label("loop1")
	MOVQ(RCX, RAX)
	SUBQ(si, RAX)
	CMPQ(RAX, U8(w))
	JB(LabelRef("head"))
	o.load(mem(RCX, -w), regs[0])
	if ctl {
		VPMINSB(regs[0], Y8, Y8)
	}
	o.movmsk(regs[0], EAX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("found"))
	SUBQ(U8(w), RCX)
	JMP(LabelRef("loop1"))

	Label("head")
	Comment(fmt.Sprintf("Fewer than %d bytes left at the start: the first %d bytes of s, lanes >= CX-SI masked off.", w, w))
	TESTQ(RAX, RAX)
	JZ(LabelRef("none"))
	o.load(mem(si, 0), regs[0])
	if ctl {
		Comment("All of them count towards the minimum: the others were scanned already.")
		VPMINSB(regs[0], Y8, Y8)
	}
	o.movmsk(regs[0], EBX)
	MOVQ(RAX, RCX)
	MOVL(U32(1), EAX)
	SHLL(CL, EAX)
	DECL(EAX)
	ANDL(EBX, EAX)
	JZ(LabelRef("none"))
	BSRL(EAX, EAX)
	INCQ(RAX)
	Store(RAX, ReturnIndex(0))
	if ctl {
		XORL(EBX, EBX)
		Store(BL, ReturnIndex(1))
	}
	if o.vex {
		VZEROUPPER()
	}
	RET()

	Label("found")
	BSRL(EAX, EAX)
	LEAQ(Mem{Base: RCX, Index: RAX, Scale: 1, Disp: -w + 1}, RAX)
	SUBQ(si, RAX)
	Store(RAX, ReturnIndex(0))
	if ctl {
		XORL(EBX, EBX)
		Store(BL, ReturnIndex(1))
	}
	if o.vex {
		VZEROUPPER()
	}
	RET()

	Label("none")
	XORL(EAX, EAX)
	Store(RAX, ReturnIndex(0))
	if ctl {
		Comment("ASCII: a control byte is there exactly when the signed minimum is below 0x20.")
		VPCMPGTB(Y8, Y9, Y8)
		VPMOVMSKB(Y8, EAX)
		TESTL(EAX, EAX)
		SETNE(AL)
		Store(AL, ReturnIndex(1))
	}
	if o.vex {
		VZEROUPPER()
	}
	RET()
}

func lastNonASCIIAVX2() { lastNonASCII("lastNonASCIIAVX2", opsY, 8, true) }
func lastNonASCIISSE2() { lastNonASCII("lastNonASCIISSE2", opsX, 8, false) }

// ---------------------------------------------------------------------------------------------
// Escape kernels

const escSig = "func(dst, src []byte, kt *uint64, esc *uint64) (nsrc, ndst int)"

// escSigDense is escSig with the density verdict of escapeAVX2 (see its contract).
const escSigDense = "func(dst, src []byte, kt *uint64, esc *uint64) (nsrc, ndst, dense int)"

// Density verdicts of escapeAVX2 at a stop at a byte >= 0x80 (R12 until the epilogue).
const (
	denseNo      = 0 // fewer than three bytes >= 0x80 in the 32 bytes from the stop
	denseYes     = 1 // three or more
	denseUnknown = 2 // not tested (any other return)
)

// prologue loads the arguments into rSI, rDI, rBeg, rDst, rEnd, rEsc and returns kt's register.
func prologue() Register {
	Load(Param("dst").Base(), rDI)
	Load(Param("src").Base(), rSI)
	Load(Param("src").Len(), rEnd)
	kt := Load(Param("kt"), RAX)
	Load(Param("esc"), rEsc)
	MOVQ(rSI, rBeg)
	MOVQ(rDI, rDst)
	ADDQ(rSI, rEnd)
	return kt
}

// epilogue is the common return: nsrc = SI - start of src, ndst = DI - start of dst.
func epilogue(vzero bool) { epilogueDense(vzero, false) }

// epilogueDense is epilogue that also returns R12 as dense (escSigDense) when dense is set.
func epilogueDense(vzero, dense bool) {
	Label("ret")
	SUBQ(rBeg, rSI)
	SUBQ(rDst, rDI)
	Store(rSI, Return("nsrc"))
	Store(rDI, Return("ndst"))
	if dense {
		Store(R12, Return("dense"))
	}
	if vzero {
		VZEROUPPER()
	}
	RET()
}

// vecOps abstracts the 16-byte (SSE2 or VEX.128) and 32-byte (VEX.256) forms.
type vecOps struct {
	w      int
	vex    bool
	load   func(m Mem, x VecPhysical)
	store  func(x VecPhysical, m Mem)
	movmsk func(x VecPhysical, r Register)
}

var (
	opsY = vecOps{w: 32, vex: true,
		load:   func(m Mem, x VecPhysical) { VMOVDQU(m, x) },
		store:  func(x VecPhysical, m Mem) { VMOVDQU(x, m) },
		movmsk: func(x VecPhysical, r Register) { VPMOVMSKB(x, r) }}
	opsXV = vecOps{w: 16, vex: true,
		load:   func(m Mem, x VecPhysical) { VMOVDQU(m, x) },
		store:  func(x VecPhysical, m Mem) { VMOVDQU(x, m) },
		movmsk: func(x VecPhysical, r Register) { VPMOVMSKB(x, r) }}
	opsX = vecOps{w: 16, vex: false,
		load:   func(m Mem, x VecPhysical) { MOVOU(m, x) },
		store:  func(x VecPhysical, m Mem) { MOVOU(x, m) },
		movmsk: func(x VecPhysical, r Register) { PMOVMSKB(x, r) }}
)

// expandBlock emits the vector path of a dirty 32-byte block (at SI, already stored unchanged
// at DI; AX holds its nonzero dirty mask; it requires POPCNT): the block is written again at DI from registers, and SI and DI advance past it before
// the jump to next. A block with a single dirty byte, with a byte >= 0x80 among its dirty bytes,
// or with a \u00XX escape and fewer than expandUMin dirty bytes (under an option set with HEX_
// escapes, any block with fewer, before any test) goes to fallback (the byte-at-a-time block
// handler) with AX unchanged. kt holds the option set's kernel table (ktSLo: its two-byte escape classes by low
// nibble); uu is set for the UNESCAPED_UNICODE kernels, whose dirty bytes are all ASCII;
// x512 selects expand512 for the two-byte path (the avx512 variant's kernels); dirty(x, out,
// tmp) sets out to 0xFF in the dirty lanes of x as the kernel's own classification does (only Y0-Y8 are used, so the caller's Y9-Y15 survive).
//
// Algorithm: a lane takes a two-byte escape (\" \\ \/ \b \f \n \r \t) when its classes by low
// nibble (ktSLo) and by high nibble (kSHi: 0x0_, 0x2_, 0x5_) share a bit. Each byte is
// replaced by its escape letter (a control XOR kCtlX by its low nibble, found only for bytes
// < 0x10 by a saturating add of 0x70; the others are their own letter). When every dirty lane
// takes a two-byte escape, each 8-byte group, with eight '\\' after it (VPUNPCKLQDQ/HQDQ), is
// shuffled by the group's entry of kExp (indexed by its 8 bits of the mask: '\\' before each
// escaped byte) and stored with one 16-byte store; DI advances by the entry's length (kExpLen:
// 8 + popcount). Otherwise (expandU) each 4-byte group is shuffled from the 16 bytes [its 4
// letters; their high hex digits; their low hex digits; '\\' 'u' '0' '0'] (VPUNPCKL/HDQ and
// L/HQDQ), broadcast to both lanes (VPERMQ), by the 32-byte entry of kExpU indexed by the
// group's two-byte escape bits and \u00XX bits (computed in the vector unit: class values 1
// and 16 times lane weights 1, 2, 4, 8, summed per dword by VPMADDUBSW and VPMADDWD), and
// stored with one 32-byte store; the entry's last byte is its length. The stores run at most
// 32 bytes ahead of the output, within what runKernel's contract allows: the block has at
// least 32 more bytes of src after it, and every byte's escape is at least one byte.
func expandBlock(name, fallback, next string, kt Register, uu, x512 bool, dirty func(x, out, tmp VecPhysical)) {
	Label(name)
	if !uu {
		Comment("A first dirty byte >= 0x80 ends the kernel at once: the byte handler's own test,",
			"ahead of everything else (in mostly-ASCII text every such stop comes through here).")
		BSFL(EAX, ECX)
		MOVBLZX(memi(rSI, RCX, 0), EDX)
		CMPL(EDX, U32(0x80))
		JAE(LabelRef(fallback + "_high"))
	}
	Commentf("A single dirty byte costs less byte at a time; so do fewer than %d under an option set", expandUMin)
	Comment("with \\u00XX escapes of special bytes (expandU would take most such blocks).")
	POPCNTL(EAX, ECX)
	CMPL(ECX, U8(2))
	JB(LabelRef(fallback))
	CMPB(mem(kt, ktHexU), U8(0))
	JEQ(LabelRef(name + "_c"))
	CMPL(ECX, U8(expandUMin))
	JB(LabelRef(fallback))
	Label(name + "_c")
	VMOVDQU(mem(rSI, 0), Y0)
	if !uu {
		Comment("A later byte >= 0x80 (dirty here): the byte handler escapes what comes before it.")
		VPMOVMSKB(Y0, EDX)
		TESTL(EDX, EAX)
		JNZ(LabelRef(fallback))
	}
	Comment("Y1/Y2 = high/low nibbles; Y3 = 0xFF where a lane takes no two-byte escape.")
	VMOVDQU(k(k0F), Y3)
	VPSRLW(U8(4), Y0, Y1)
	VPAND(Y3, Y1, Y1)
	VPAND(Y3, Y0, Y2)
	VMOVDQU(mem(kt, ktSLo), Y3)
	VPSHUFB(Y2, Y3, Y3)
	VMOVDQU(k(kSHi), Y4)
	VPSHUFB(Y1, Y4, Y4)
	VPAND(Y4, Y3, Y3)
	VPXOR(Y4, Y4, Y4)
	VPCMPEQB(Y4, Y3, Y3)
	VPMOVMSKB(Y3, EDX)
	TESTL(EDX, EAX)
	JNZ(LabelRef(name + "_u"))
	if x512 {
		expand512(next)
	} else {
		expand8(next)
	}
	expandU(name+"_u", fallback, next, dirty)
}

// expand8 is expandBlock's two-byte path with AVX2: four 8-byte groups, a VPSHUFB table each.
func expand8(next string) {
	Comment("Two-byte escapes only: the escape letters, then the four 8-byte groups each followed",
		"by eight '\\'.")
	escLetters()
	VMOVDQU(k(kBS), Y2)
	VPUNPCKLQDQ(Y2, Y0, Y1)
	VPUNPCKHQDQ(Y2, Y0, Y2)
	VEXTRACTI128(U8(1), Y1, X3)
	VEXTRACTI128(U8(1), Y2, X4)
	LEAQ(k(kExp), RBX)
	for j, x := range []VecPhysical{X1, X2, X3, X4} {
		MOVBLZX(AL, ECX)
		if j < 3 {
			SHRL(U8(8), EAX)
		}
		MOVBLZX(memi(RBX, RCX, kExpLen-kExp), EDX)
		SHLL(U8(4), ECX)
		VPSHUFB(memi(RBX, RCX, 0), x, X5)
		VMOVDQU(X5, mem(rDI, 0))
		ADDQ(RDX, rDI)
	}
	ADDQ(U8(32), rSI)
	JMP(LabelRef(next))
}

// expand512 is expandBlock's two-byte path with AVX-512 (VBMI2, BMI2, POPCNT): the block's
// 32 letters go to their places in a 64-byte output of '\\' by one VPEXPANDB under the mask
// of the letters' places, stored with one 64-byte store (at most 32 bytes past the output).
// The mask: with two slots per input byte (a '\\' slot, used when the byte is escaped, then
// the letter's), the used slots are V = PDEP(AX, 0x55...) | 0xAA...; the letters' places are
// the letter slots among the used ones, in order: PEXT(0xAA..., V).
func expand512(next string) {
	Comment("Two-byte escapes only: the escape letters, expanded into '\\' by VPEXPANDB.")
	escLetters()
	letterPlaces(K1)
	VPBROADCASTB(k(kBS), Z1)
	VPEXPANDB(Z0, K1, Z1)
	VMOVDQU64(Z1, mem(rDI, 0))
	POPCNTL(EAX, ECX)
	LEAQ(Mem{Base: rDI, Index: RCX, Scale: 1, Disp: 32}, rDI)
	ADDQ(U8(32), rSI)
	JMP(LabelRef(next))
}

// escLetters replaces each byte of Y0 by its escape letter (see expandBlock), with Y1 and Y2.
func escLetters() {
	VPADDUSB(k(k70), Y0, Y1)
	VMOVDQU(k(kCtlX), Y2)
	VPSHUFB(Y1, Y2, Y1)
	VPXOR(Y1, Y0, Y0)
}

// expandUMin is the fewest dirty bytes of a block with a \u00XX escape that expandU takes:
// it costs about as much as the byte-at-a-time handler on eight (measured on a Xeon, 4 KiB of
// random text with HEX_TAG|HEX_AMP|HEX_APOS|HEX_QUOT: 25 % of '<>&"' ran at the same speed,
// 12 % 15 % slower, 50 % 1.7 times faster).
const expandUMin = 10

// expandU is expandBlock's path for a block with \u00XX escapes: Y0 = the block, Y1/Y2 its
// high/low nibbles, Y3 = 0xFF where a lane takes no two-byte escape, AX = the dirty mask and
// DX = Y3's mask.
func expandU(name, fallback, next string, dirty func(x, out, tmp VecPhysical)) {
	Label(name)
	Commentf("Fewer than %d dirty bytes: byte at a time.", expandUMin)
	POPCNTL(EAX, ECX)
	CMPL(ECX, U8(expandUMin))
	JB(LabelRef(fallback))
	Comment("The groups' table indexes: 1 (two-byte) or 16 (\\u00XX) in the dirty lanes, times",
		"1, 2, 4, 8 by lane, summed per dword; AX = groups 0-3, DX = groups 4-7, a byte each.")
	dirty(Y0, Y5, Y6)
	VMOVDQU(k(k01), Y6)
	VPBLENDVB(Y3, k(k10), Y6, Y6)
	VPAND(Y5, Y6, Y6)
	VPMADDUBSW(k(kW1248), Y6, Y6)
	VPMADDWD(k(kW16), Y6, Y6)
	VPACKUSDW(Y6, Y6, Y6)
	VPACKUSWB(Y6, Y6, Y6)
	VMOVD(X6, EAX)
	VEXTRACTI128(U8(1), Y6, X6)
	VMOVD(X6, EDX)
	Comment("Y8 = high hex digits, Y7 = low ones (upper case for 0x3_: \\u003C, \\u003E), Y0 = letters.")
	VMOVDQU(k(kHex), Y7)
	VPSHUFB(Y1, Y7, Y8)
	VPSHUFB(Y2, Y7, Y7)
	VPCMPEQB(k(k03), Y1, Y1)
	VPAND(k(k20), Y1, Y1)
	VPSUBB(Y1, Y7, Y7)
	escLetters()
	Comment("Group sources [letters, high digits, low digits, \\u00]: Y4, Y5, Y0, Y7 hold groups",
		"0-3 in their low lanes and 4-7 in their high lanes.")
	VMOVDQU(k(kUC), Y2)
	VPUNPCKLDQ(Y8, Y0, Y1)
	VPUNPCKLDQ(Y2, Y7, Y3)
	VPUNPCKLQDQ(Y3, Y1, Y4)
	VPUNPCKHQDQ(Y3, Y1, Y5)
	VPUNPCKHDQ(Y8, Y0, Y1)
	VPUNPCKHDQ(Y2, Y7, Y3)
	VPUNPCKLQDQ(Y3, Y1, Y0)
	VPUNPCKHQDQ(Y3, Y1, Y7)
	LEAQ(k(kExpU), RBX)
	for j := 0; j < 8; j++ {
		src := []VecPhysical{Y4, Y5, Y0, Y7}[j%4]
		// Groups 0-3 from AX, 4-7 from DX, a byte each (no shift after the last of each).
		idx, lane := EAX, U8(0x44)
		if j >= 4 {
			idx, lane = EDX, U8(0xEE)
		}
		MOVBLZX(idx.As8(), ECX)
		if j%4 < 3 {
			SHRL(U8(8), idx)
		}
		VPERMQ(lane, src, Y1)
		SHLL(U8(5), ECX)
		VPSHUFB(memi(RBX, RCX, 0), Y1, Y1)
		VMOVDQU(Y1, mem(rDI, 0))
		MOVBLZX(memi(RBX, RCX, 31), ECX)
		ADDQ(RCX, rDI)
	}
	ADDQ(U8(32), rSI)
	JMP(LabelRef(next))
}

// blockHandler emits the slow path of a w-byte block: the block (at SI) was stored at DI and
// AX holds its nonzero dirty mask. For each set bit j, lowest first: a byte >= 0x80 (only
// possible when !uu) ends the kernel at it; otherwise the byte's escape (esc[b]: up to 6
// bytes, length in the top byte) is stored with one 8-byte store at DI+j, DI advances by
// length-1 so that byte j+1 of the block belongs at DI+j+1, and unless byte j+1 is dirty
// too the w bytes of src after byte j are loaded and stored there again, so that the clean
// bytes up to the next dirty one are in place. When the mask is empty the block is done: SI
// and DI advance by w and the handler jumps to next.
func blockHandler(name string, o vecOps, uu bool, next string) {
	blockHandlerDense(name, o, uu, next, false, false)
}

// blockHandlerDense is blockHandler that, with dense set (escapeAVX2's 32-byte blocks, which
// have 32 more bytes of src after them), sets R12 to the density verdict of the 32 bytes from
// a byte >= 0x80: denseYes at three or more bytes >= 0x80 (the mask keeps a bit after
// clearing its lowest two), which ends the kernel there, else denseNo. With seqs also set, a
// valid 2- or 3-byte sequence with no other byte >= 0x80 in the 32 bytes from its lead (a
// 3-byte one's own three are no density) is written as \uXXXX by seqSparse and the kernel
// goes on after it (from the alignment step); any other byte >= 0x80 ends the kernel.
func blockHandlerDense(name string, o vecOps, uu bool, next string, dense, seqs bool) {
	Label(name)
	BSFL(EAX, ECX)
	MOVBLZX(memi(rSI, RCX, 0), EDX)
	if !uu {
		CMPL(EDX, U32(0x80))
		JAE(LabelRef(name + "_high"))
	}
	MOVQ(Mem{Base: rEsc, Index: RDX, Scale: 8}, RBX)
	MOVQ(RBX, memi(rDI, RCX, 0))
	SHRQ(U8(56), RBX)
	LEAQ(Mem{Base: rDI, Index: RBX, Scale: 1, Disp: -1}, rDI)
	LEAL(mem(RAX, -1), EDX)
	ANDL(EDX, EAX)
	LEAL(mem(RCX, 1), EDX)
	BTL(EDX, EAX)
	JCS(LabelRef(name))
	var t VecPhysical = X5
	if o.w == 32 {
		t = Y5
	}
	o.load(memi(rSI, RCX, 1), t)
	o.store(t, memi(rDI, RCX, 1))
	TESTL(EAX, EAX)
	JNZ(LabelRef(name))
	ADDQ(U8(o.w), rSI)
	ADDQ(U8(o.w), rDI)
	JMP(LabelRef(next))
	if !uu {
		Label(name + "_high")
		if dense {
			VMOVDQU(memi(rSI, RCX, 0), Y5)
			VPMOVMSKB(Y5, EDX)
			LEAL(mem(RDX, -1), EAX)
			ANDL(EAX, EDX)
			LEAL(mem(RDX, -1), EAX)
			ANDL(EAX, EDX)
			MOVL(U32(denseNo), R12L)
			if seqs {
				JZ(LabelRef(name + "_2"))
			}
			if seqs {
				MOVL(U32(denseYes), R12L)
				Comment("Three bytes >= 0x80: a 3-byte sequence's own are no density.")
				LEAL(mem(RDX, -1), EAX)
				TESTL(EAX, EDX)
				JZ(LabelRef(name + "_3"))
				JMP(LabelRef(name + "_stop"))
				seqSparse(name)
			} else {
				MOVL(U32(denseYes), EAX)
				TESTL(EDX, EDX)
				CMOVLNE(EAX, R12L)
			}
		}
		Label(name + "_stop")
		ADDQ(RCX, rSI)
		ADDQ(RCX, rDI)
		JMP(LabelRef("ret"))
	}
}

// seqSparse emits blockHandlerDense's paths for a byte >= 0x80 at SI+CX in sparse text (at
// name_2: fewer than three bytes >= 0x80 in the 32 from it; at name_3: exactly three). A
// valid 2-byte sequence (C2..DF, then a continuation byte) at name_2, or 3-byte one (E0..EF
// and two continuation bytes, U+0800..U+FFFF without the surrogates D800..DFFF: spec §2.2)
// at name_3, is written as \uXXXX (lower-case hex, §1.4) with one 8-byte store at DI+CX; SI
// and DI move past it and the kernel goes back to its alignment step with R12 = denseUnknown
// again. Anything else jumps to name_stop (the kernel ends at the byte). The block has 32
// more bytes of src after it, so the 4-byte load at SI+CX stays in src, and the store's last
// two bytes are overwritten by the next block's. No BMI2: the avx2 variant does not require
// it.
func seqSparse(name string) {
	stop := LabelRef(name + "_stop")
	Comment("Sparse text: a valid 2- or 3-byte sequence becomes \\uXXXX here (BX = its bytes, then",
		"its code point).")
	Label(name + "_2")
	MOVL(memi(rSI, RCX, 0), EBX)
	seq2(stop)
	LEAQ(Mem{Base: rSI, Index: RCX, Scale: 1, Disp: 2}, rSI)
	hexU2()
	JMP(LabelRef(name + "_store"))

	Label(name + "_3")
	MOVL(memi(rSI, RCX, 0), EBX)
	MOVL(EBX, EDX)
	ANDL(U32(0xC0C0F0), EDX)
	CMPL(EDX, U32(0x8080E0))
	JNE(stop)
	MOVL(EBX, EDX)
	ANDL(U8(0x0F), EDX)
	SHLL(U8(12), EDX)
	MOVL(EBX, EAX)
	SHRL(U8(2), EAX)
	ANDL(U32(0xFC0), EAX)
	ORL(EAX, EDX)
	SHRL(U8(16), EBX)
	ANDL(U8(0x3F), EBX)
	ORL(EDX, EBX)
	CMPL(EBX, U32(0x800)) // overlong
	JB(stop)
	MOVL(EBX, EDX)
	ANDL(U32(0xF800), EDX)
	CMPL(EDX, U32(0xD800)) // surrogate
	JE(stop)
	LEAQ(Mem{Base: rSI, Index: RCX, Scale: 1, Disp: 3}, rSI)

	hexU()
	Label(name + "_store")
	MOVQ(RBX, memi(rDI, RCX, 0))
	LEAQ(Mem{Base: rDI, Index: RCX, Scale: 1, Disp: 6}, rDI)
	MOVL(U32(denseUnknown), R12L)
	JMP(LabelRef("align"))
}

// seq2 decodes the 2-byte sequence in BX's low two bytes (lead first) into its code point in
// EBX, or jumps to bad when they are not a valid one (a lead C2..DF, then a continuation byte:
// spec §2.2). It uses DX.
func seq2(bad LabelRef) {
	MOVL(EBX, EDX)
	ANDL(U32(0xC0E0), EDX)
	CMPL(EDX, U32(0x80C0))
	JNE(bad)
	TESTL(U32(0x1E), EBX) // C0 and C1 start overlongs
	JZ(bad)
	MOVL(EBX, EDX)
	ANDL(U8(0x1F), EDX)
	SHLL(U8(6), EDX)
	SHRL(U8(8), EBX)
	ANDL(U8(0x3F), EBX)
	ORL(EDX, EBX)
}

// hexU2 is hexU for a code point in EBX of a 2-byte sequence (0x80..0x7FF, as seq2 gives
// it): one load from kU2. It uses DX.
func hexU2() {
	LEAQ(k(kU2), RDX)
	MOVQ(Mem{Base: RDX, Index: RBX, Scale: 8, Disp: -0x80 * 8}, RBX)
}

// hexU turns the code point in EBX (at most 0xFFFF) into its escape \uXXXX (lower-case hex,
// spec §1.4) in RBX's low 6 bytes (the top two are 0), in general registers. It uses AX and DX.
func hexU() {
	Comment("The code point's four nibbles, highest first, one a byte; then hex digits: '0' plus",
		"the nibble, plus 39 more from 10 on ('a' - '0' - 10).")
	MOVL(EBX, EDX)
	SHLL(U8(8), EDX)
	ORL(EDX, EBX)
	ANDL(U32(0x00FF00FF), EBX)
	MOVL(EBX, EDX)
	SHLL(U8(4), EDX)
	ORL(EDX, EBX)
	ANDL(U32(0x0F0F0F0F), EBX)
	LEAL(mem(RBX, 0x06060606), EDX)
	SHRL(U8(4), EDX)
	ANDL(U32(0x01010101), EDX)
	LEAL(Mem{Base: RDX, Index: RDX, Scale: 4}, EAX)
	LEAL(Mem{Base: RBX, Index: RAX, Scale: 8}, EBX)
	SUBL(EDX, EBX)
	ADDL(U32(0x30303030), EBX)
	BSWAPL(EBX)
	SHLQ(U8(16), RBX)
	ORQ(U32(0x755C), RBX) // '\\' 'u'
}

// escRegs loads the registers of the escape test: Y15 = the option set's VPSHUFB table of
// special bytes (kt+ktShuf), Y14 = c in every byte, and with HEX_TAG Y13 = '<' in every byte.
func escRegs(kt Register, c uint32, tag bool) {
	VMOVDQU(mem(kt, ktShuf), Y15)
	MOVL(U32(c), EBX)
	VMOVD(EBX, X14)
	VPBROADCASTB(X14, Y14)
	if tag {
		MOVL(U32('<'), EBX)
		VMOVD(EBX, X13)
		VPBROADCASTB(X13, Y13)
	}
}

// classifyVEX sets out to 0xFF in the lanes of x that must be escaped or are >= 0x80: the
// VPSHUFB table lookup by low nibble matches every active special byte (one per nibble), the
// signed compare 0x20 > x catches controls and bytes >= 0x80, and with HEX_TAG a separate
// compare finds '<' (which shares its low nibble with '\').
func classifyVEX(x, out, tmp, shuf, c20, lt VecPhysical, tag bool) {
	VPSHUFB(x, shuf, out)
	VPCMPEQB(x, out, out)
	VPCMPGTB(x, c20, tmp)
	VPOR(tmp, out, out)
	if tag {
		VPCMPEQB(x, lt, tmp)
		VPOR(tmp, out, out)
	}
}

// oneBlock32 emits one step of escapeAVX2's one-block loops: with 64 bytes left, copy and
// classify the next 32-byte block, go to block32 when it is dirty, else on to next (loop32
// again, or align after a run of dirty blocks); with fewer, to loop16.
func oneBlock32(tag bool, next string) {
	LEAQ(mem(rSI, 64), RAX)
	CMPQ(RAX, rEnd)
	JHI(LabelRef("loop16"))
	VMOVDQU(mem(rSI, 0), Y0)
	VMOVDQU(Y0, mem(rDI, 0))
	classifyVEX(Y0, Y2, Y4, Y15, Y14, Y13, tag)
	VPMOVMSKB(Y2, EAX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("block32"))
	ADDQ(U8(32), rSI)
	ADDQ(U8(32), rDI)
	JMP(LabelRef(next))
}

func escapeAVX2(tag, ctl, x512 bool) {
	name := "escapeAVX2"
	if x512 {
		name = "escapeAVX512"
	}
	if tag {
		name += "Tag"
	}
	if !ctl {
		name += "NoCtl"
	}
	TEXT(name, NOSPLIT, escSigDense)
	req := "It requires AVX2 and len(src) >= 16."
	if x512 {
		req = "It is the avx512 variant's form of " + strings.Replace(name, "AVX512", "AVX2", 1) + " (two-byte escapes expanded by VPEXPANDB) and requires AVX-512 (F, BW, VL, VBMI2), BMI2, POPCNT and len(src) >= 16."
	}
	if ctl {
		Doc(name+" is the AVX2 clean-run/ASCII-escape kernel (runKernel's contract) for option sets",
			map[bool]string{false: "without HEX_TAG.", true: "with HEX_TAG."}[tag],
			req)
	} else {
		Doc(name+" is "+strings.TrimSuffix(name, "NoCtl")+" for src without bytes < 0x20 or >= 0x80 (as",
			"lastNonASCIIAVX2 proves): its main loop does not test for them.",
			req)
		Comment(name+" is "+strings.TrimSuffix(name, "NoCtl")+" (below) with one difference: src must have no byte",
			"< 0x20 or >= 0x80, and the 128-byte loop tests only the special bytes (no signed",
			"minimum against 0x20: 5 vector operations less per 128 bytes). The other loops and",
			"the block handler are the same and would still handle such bytes.",
			"")
	}
	Comment(
		name+" escapes src into dst until a byte >= 0x80 it leaves to the caller or until",
		"too few bytes are left for its blocks, and returns how many bytes of src it consumed",
		"and how many it wrote ("+map[bool]string{false: "option sets without HEX_TAG", true: "option sets with HEX_TAG"}[tag]+").",
		"",
		"Contract: requires AVX2, len(src) >= 16 and len(dst) >= 6*len(src). kt is the",
		"option set's kernel table (escCtx.kt), esc its escape table (esc[b] = escape of the",
		"ASCII byte b in the low 6 bytes, its length in the top byte). It reads only",
		"src[0:len(src)]. It writes dst[0:ndst] with the final output and may also write",
		"dst[ndst:ndst+len(src)-nsrc] with bytes that the escape of src[nsrc:] overwrites",
		"whenever that escape is at least as long as its input (see kernel.go). It stops",
		"either at a byte >= 0x80 or with fewer than 32 bytes left; the caller finishes.",
		"A valid 2- or 3-byte sequence with no other byte >= 0x80 in the 32 bytes from its",
		"lead is no stop: it is written as \\uXXXX (seqSparse).",
		"dense is the density verdict of a stop at a byte >= 0x80 in a 32-byte block: 1 when",
		"the 32 bytes from it hold at least three bytes >= 0x80 (the multi-byte kernel's",
		"threshold, mbDense), 0 when they do not (a 4-byte or invalid sequence); 2 at any",
		"other return (not tested). It saves the caller that test, which in mostly-ASCII",
		"text costs more than the stop itself.",
		"",
		"Registers: SI/DI = src/dst position, R8/R9 = src/dst start, R10 = src end,",
		"R11 = esc, R12 = dense, R13 = kt, AX = dirty mask, BX/CX/DX scratch; Y15 = VPSHUFB table of the escaped",
		"special bytes, Y14 = 0x20 in every byte, Y13 = '<' (HEX_TAG only), Y0-Y11 data.",
		"",
		"Algorithm: one pass. Each 32-byte block is loaded, stored to dst unchanged, then",
		"classified (table lookup of the special bytes by low nibble, VPCMPEQB; controls and",
		"bytes >= 0x80 by a signed VPCMPGTB against 0x20); a clean block costs nothing more.",
		"The main loop takes 128 bytes per iteration and tests the four masks at once; a dirty",
		"block goes to the block handler: a block whose escapes are all two-byte ones is",
		"rewritten in registers, four 8-byte groups each expanded by one VPSHUFB",
		"(expandBlock); any other is rewritten a dirty byte at a time from its mask before",
		"going on (never one return to Go per escape). The avx512 forms without HEX_TAG take",
		"a run of dirty blocks 64 bytes at a time instead (dense64). Blocks are taken only",
		"while 32 more bytes of src follow them, so that the reload after an escape never",
		"reads past src; then one 16-byte block per iteration while 16 more bytes follow;",
		"finally 16 to 31 remaining bytes are done with two overlapping 16-byte loads when",
		"both are clean (exact stores), and otherwise left to the caller.",
	)
	kt := prologue()
	MOVQ(kt, R13) // kt, for expandBlock
	escRegs(kt, 0x20, tag)
	MOVL(U32(denseUnknown), R12L)

	Label("align")
	Comment("Align the main loop's loads, or its stores when 8 KiB or more are left: one block",
		"stored at DI, then advance only to the next 32-byte boundary of src (or dst) when the",
		"block is clean (the rest is stored again). Measured here: from the L1 cache a load",
		"that crosses a cache line costs more than a store that does; from L2 the reverse.")
	LEAQ(mem(rSI, 160), RAX)
	CMPQ(RAX, rEnd)
	JHI(LabelRef("loop64"))
	MOVQ(rEnd, RAX)
	SUBQ(rSI, RAX)
	MOVL(ESI, ECX)
	CMPQ(RAX, U32(8192))
	CMOVLCC(EDI, ECX)
	NEGL(ECX)
	ANDL(U8(31), ECX)
	JZ(LabelRef("loop128"))
	VMOVDQU(mem(rSI, 0), Y0)
	VMOVDQU(Y0, mem(rDI, 0))
	classifyVEX(Y0, Y4, Y8, Y15, Y14, Y13, tag)
	VPMOVMSKB(Y4, EAX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("block32"))
	ADDQ(RCX, rSI)
	ADDQ(RCX, rDI)

	Label("loop128")
	Comment("128 bytes per iteration while 160 bytes are left.")
	LEAQ(mem(rSI, 160), RAX)
	CMPQ(RAX, rEnd)
	JHI(LabelRef("loop64"))
	for i, y := range []VecPhysical{Y0, Y1, Y2, Y3} {
		VMOVDQU(mem(rSI, 32*i), y)
	}
	if ctl {
		Comment("Special bytes per block; controls and bytes >= 0x80 once for all four, from their signed minimum.")
	} else {
		Comment("Special bytes per block (src has no controls and no bytes >= 0x80).")
	}
	for i, y := range []VecPhysical{Y0, Y1, Y2, Y3} {
		e := []VecPhysical{Y4, Y5, Y6, Y7}[i]
		VPSHUFB(y, Y15, e)
		VPCMPEQB(y, e, e)
		if tag {
			VPCMPEQB(y, Y13, Y8)
			VPOR(Y8, e, e)
		}
	}
	Comment("The stores (unchanged blocks) go after the lookups, which measured faster.")
	for i, y := range []VecPhysical{Y0, Y1, Y2, Y3} {
		VMOVDQU(y, mem(rDI, 32*i))
	}
	if ctl {
		VPMINSB(Y0, Y1, Y8)
		VPMINSB(Y2, Y3, Y9)
		VPMINSB(Y8, Y9, Y8)
		VPCMPGTB(Y8, Y14, Y8)
	}
	VPOR(Y4, Y5, Y9)
	VPOR(Y6, Y7, Y10)
	VPOR(Y9, Y10, Y9)
	if ctl {
		VPOR(Y8, Y9, Y8)
		VPMOVMSKB(Y8, EAX)
	} else {
		VPMOVMSKB(Y9, EAX)
	}
	TESTL(EAX, EAX)
	JNZ(LabelRef("dirty128"))
	ADDQ(U8(128), rSI)
	ADDQ(U32(128), rDI)
	JMP(LabelRef("loop128"))

	Label("dirty128")
	Comment("The first dirty block of the four goes to the block handler; the clean ones before it are done.")
	for i, y := range []VecPhysical{Y0, Y1, Y2, Y3} {
		classifyVEX(y, Y4, Y8, Y15, Y14, Y13, tag)
		VPMOVMSKB(Y4, EAX)
		TESTL(EAX, EAX)
		JNZ(LabelRef("block32"))
		if i < 3 {
			ADDQ(U8(32), rSI)
			ADDQ(U8(32), rDI)
		}
	}
	Comment("Not reached: one of the four blocks is dirty.")
	JMP(LabelRef("block32"))

	Label("loop64")
	Comment("64 bytes per iteration while 96 bytes are left.")
	LEAQ(mem(rSI, 96), RAX)
	CMPQ(RAX, rEnd)
	JHI(LabelRef("loop32"))
	VMOVDQU(mem(rSI, 0), Y0)
	VMOVDQU(mem(rSI, 32), Y1)
	VMOVDQU(Y0, mem(rDI, 0))
	VMOVDQU(Y1, mem(rDI, 32))
	classifyVEX(Y0, Y2, Y4, Y15, Y14, Y13, tag)
	classifyVEX(Y1, Y3, Y5, Y15, Y14, Y13, tag)
	VPOR(Y2, Y3, Y4)
	VPMOVMSKB(Y4, EAX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("dirty64"))
	ADDQ(U8(64), rSI)
	ADDQ(U8(64), rDI)
	JMP(LabelRef("loop64"))

	Label("dirty64")
	VPMOVMSKB(Y2, EAX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("block32"))
	ADDQ(U8(32), rSI)
	ADDQ(U8(32), rDI)
	VPMOVMSKB(Y3, EAX)
	JMP(LabelRef("block32"))

	Label("loop32")
	Comment("One 32-byte block while 64 bytes are left.")
	oneBlock32(tag, "loop32")

	block := "block32"
	if x512 && !tag {
		dense64("block32", "block32x", "block32s_high", ctl)
		block = "block32x"
	}
	expandBlock(block, "block32s", "dense", R13, false, x512, func(x, out, tmp VecPhysical) {
		classifyVEX(x, out, tmp, Y15, Y14, Y13, tag)
	})

	Label("dense")
	Comment("After a block expandBlock rewrote: one block at a time while they are dirty (escapes",
		"come in runs; the 128-byte loop would test four blocks and then find the first again),",
		"back to the alignment step and the wide loops at the first clean one.")
	oneBlock32(tag, "align")
	blockHandlerDense("block32s", opsY, false, "dense", true, ctl)

	Label("loop16")
	Comment("One 16-byte block while 32 bytes are left.")
	LEAQ(mem(rSI, 32), RAX)
	CMPQ(RAX, rEnd)
	JHI(LabelRef("tail"))
	VMOVDQU(mem(rSI, 0), X0)
	VMOVDQU(X0, mem(rDI, 0))
	classifyVEX(X0, X2, X4, X15, X14, X13, tag)
	VPMOVMSKB(X2, EAX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("block16"))
	ADDQ(U8(16), rSI)
	ADDQ(U8(16), rDI)
	JMP(LabelRef("loop16"))

	blockHandler("block16", opsXV, false, "loop16")

	tail16(opsXV, func(x, out, tmp VecPhysical) { classifyVEX(x, out, tmp, X15, X14, X13, tag) })
	epilogueDense(true, true)
}

// tail16 emits the exit path for 16..31 remaining bytes: two overlapping 16-byte loads (the
// first at SI, the second ending exactly at the end of src); when both are clean they are
// stored exactly (the second ending at the output's end) and the kernel has consumed all of
// src. Otherwise, or with fewer than 16 bytes left, the kernel returns and the caller finishes.
func tail16(o vecOps, classify func(x, out, tmp VecPhysical)) {
	Label("tail")
	Comment("16 to 31 bytes left: two overlapping 16-byte blocks, stored exactly when clean.")
	MOVQ(rEnd, RCX)
	SUBQ(rSI, RCX)
	CMPQ(RCX, U8(16))
	JB(LabelRef("ret"))
	o.load(mem(rSI, 0), X0)
	o.load(mem(rEnd, -16), X1)
	classify(X0, X2, X4)
	classify(X1, X3, X4)
	if o.vex {
		VPOR(X2, X3, X3)
	} else {
		POR(X2, X3)
	}
	o.movmsk(X3, EAX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("ret"))
	o.store(X0, mem(rDI, 0))
	o.store(X1, memi(rDI, RCX, -16))
	ADDQ(RCX, rSI)
	ADDQ(RCX, rDI)
}

func escapeUUAVX2(tag, lt, x512 bool) {
	name := "escapeUUAVX2"
	if x512 {
		name = "escapeUUAVX512"
	}
	if tag {
		name += "Tag"
	}
	if lt {
		name += "LT"
	}
	opts := "UNESCAPED_UNICODE"
	if tag {
		opts += ", HEX_TAG"
	}
	if lt {
		opts += ", UNESCAPED_LINE_TERMINATORS"
	} else {
		opts += ", no UNESCAPED_LINE_TERMINATORS"
	}
	TEXT(name, NOSPLIT, escSig)
	req := "It requires AVX2 and len(src) >= 16."
	if x512 {
		req = "It is the avx512 variant's form of " + strings.Replace(name, "AVX512", "AVX2", 1) + " (two-byte escapes expanded by VPEXPANDB) and requires AVX-512 (F, BW, VL, VBMI2), BMI2, POPCNT and len(src) >= 16."
	}
	Doc(name+" is the AVX2 kernel under "+opts+": it also copies valid",
		"multi-byte sequences. "+req)
	Comment(
		name+" escapes src into dst under "+opts+".",
		"",
		"Contract: as escapeAVX2, except that valid multi-byte UTF-8 sequences are copied",
		"unchanged"+map[bool]string{false: " (but U+2028/U+2029, E2 80 A8/A9, stop it)", true: ""}[lt]+": it stops at",
		"a character boundary before the first invalid sequence (it may stop up to 3 bytes",
		"earlier, before a valid character), or with fewer than 64 bytes left. src[0] must",
		"start a character. The bytes it stops at are left to the caller.",
		"",
		"Registers: SI/DI = src/dst position, R8/R9 = src/dst start, R10 = src end,",
		"R11 = esc, R12 = kt, R13 = end of the blocks left to the one-block loop, AX = dirty",
		"mask, BX/CX/DX scratch; Y12/Y11/Y10 = the three validation tables, Y9 = 0x0F. In the",
		"one-block loop: Y15 = VPSHUFB table of the escaped special bytes, Y14 = 0x1F, Y13 =",
		"'<' (HEX_TAG only); Y0 = the block, Y3/Y4/Y2 = the block shifted by 1/2/3 bytes",
		"(prev1..prev3), Y1 = its escape lanes, Y5-Y8 scratch. In the four-block loop: Y8/Y15",
		"= escape classes by low/high nibble, Y14 = 0x80, Y13 = 0x60, Y0 = the OR of the",
		"blocks' tests, Y1-Y7 per block.",
		"",
		"Algorithm: one pass over 32-byte blocks while 64 bytes are left. Each block is",
		"stored unchanged, then checked: escapes (special bytes by VPSHUFB table lookup,",
		"controls by unsigned min against 0x1F) and UTF-8 validity with the Keiser–Lemire",
		"lookup algorithm (simdjson's lookup4; the accepted set is RFC 3629, exactly PHP's",
		"php_next_utf8_char successes): three VPSHUFB lookups of the previous byte's nibbles",
		"and the current byte's high nibble flag bad pairs (too short, too long, overlong,",
		"surrogate, above U+10FFFF, stray continuation), and saturating subtractions of the",
		"bytes two and three back flag a missing or extra third/fourth byte. The bytes one,",
		"two and three back are plain unaligned loads at SI-1, SI-2, SI-3 (the first block,",
		"at the start of src, shifts in zeros with VPERM2I128 + VPALIGNR instead), so a",
		"sequence that straddles two blocks is checked in the second. Clean stretches go",
		"four blocks per iteration (while 160 bytes are left) with one combined test: both",
		"nibble lookups of the escape classes share the UTF-8 check's high nibble, and the",
		"constants live in the registers the one-block path frees; when the test fails, those",
		"four blocks go through the one-block loop (exact escape mask, slow path) first.",
	)
	if !lt {
		Comment("U+2028/U+2029 (E2 80 A8/A9): a block with E2 two bytes back takes the slow path,",
			"which tests the exact pattern (E2 two back, 80 one back, A8/A9 here).")
	}
	Comment(
		"A block with only escapes goes to the block handler (every escape of the block",
		"before going on). A block with an invalid sequence or a line terminator, and the",
		"end of the loop, return to Go at the start of the block, moved back to the lead byte",
		"of a character that straddles into it (found from the three bytes before it, which",
		"were validated), so that Go's slow path sees whole characters.",
	)
	kt := prologue()
	MOVQ(kt, R12) // kt, kept for the two-block loop
	escRegs(kt, 0x1F, tag)
	VMOVDQU(k(kByte1High), Y12)
	VMOVDQU(k(kByte1Low), Y11)
	VMOVDQU(k(kByte2High), Y10)
	VMOVDQU(k(k0F), Y9)

	// body emits the checks of the block at SI; first: prev bytes are zeros (start of src).
	body := func(first bool) {
		VMOVDQU(mem(rSI, 0), Y0)
		VMOVDQU(Y0, mem(rDI, 0))
		if first {
			VPXOR(Y8, Y8, Y8)
			VPERM2I128(U8(0x21), Y0, Y8, Y2)
			VPALIGNR(U8(15), Y2, Y0, Y3)
			VPALIGNR(U8(14), Y2, Y0, Y4)
			VPALIGNR(U8(13), Y2, Y0, Y2)
		} else {
			VMOVDQU(mem(rSI, -1), Y3)
			VMOVDQU(mem(rSI, -2), Y4)
			VMOVDQU(mem(rSI, -3), Y2)
		}
		Comment("Escapes: active special bytes and controls (bytes >= 0x80 never match).")
		uuEscapes(Y0, Y1, Y5, tag)
		Comment("must23_80: 0x80 where a third or fourth byte must be a continuation.")
		VPSUBUSB(k(k60), Y4, Y5)
		VPSUBUSB(k(k70), Y2, Y6)
		VPOR(Y6, Y5, Y5)
		VPAND(k(k80), Y5, Y5)
		Comment("Special cases: byte1 high nibble & byte1 low nibble & byte2 high nibble.")
		VPSRLW(U8(4), Y3, Y6)
		VPAND(Y9, Y6, Y6)
		VPSHUFB(Y6, Y12, Y6)
		VPAND(Y9, Y3, Y7)
		VPSHUFB(Y7, Y11, Y7)
		VPAND(Y7, Y6, Y6)
		VPSRLW(U8(4), Y0, Y7)
		VPAND(Y9, Y7, Y7)
		VPSHUFB(Y7, Y10, Y7)
		VPAND(Y7, Y6, Y6)
		VPXOR(Y5, Y6, Y6) // Y6 = UTF-8 errors
		VPOR(Y6, Y1, Y7)
		if !lt {
			VPCMPEQB(k(kE2), Y4, Y8)
			VPOR(Y8, Y7, Y7)
		}
		VPTEST(Y7, Y7)
		JNZ(LabelRef("slow"))
		ADDQ(U8(32), rSI)
		ADDQ(U8(32), rDI)
	}

	MOVQ(rSI, R13)
	Comment("The first block: at the start of src, nothing before it.")
	LEAQ(mem(rSI, 64), RAX)
	CMPQ(RAX, rEnd)
	JHI(LabelRef("back"))
	body(true)
	JMP(LabelRef("loop2"))

	// check emits the fast test of the block at SI+disp (stored unchanged to DI+disp): Y7
	// ends up nonzero in every lane that needs the slow path. Escapes are found by two
	// nibble lookups (VPSHUFB of the low nibble in the option set's table at kt+ktELo, of
	// the high nibble in kEHi), sharing the high nibble with the UTF-8 check.
	check := func(disp int, x VecPhysical) {
		if x512 {
			checkX512(disp, x, lt)
			return
		}
		copyBack3(disp, x)
		VPSUBUSB(Y13, Y4, Y5)
		VPSUBUSB(k(k70), Y2, Y6)
		VPOR(Y6, Y5, Y5)
		VPAND(Y14, Y5, Y5)
		VPSRLW(U8(4), Y3, Y6)
		VPAND(Y9, Y6, Y6)
		VPSHUFB(Y6, Y12, Y6)
		VPAND(Y9, Y3, Y7)
		VPSHUFB(Y7, Y11, Y7)
		VPAND(Y7, Y6, Y6)
		VPSRLW(U8(4), x, Y7)
		VPAND(Y9, Y7, Y7)
		VPSHUFB(Y7, Y10, Y2)
		VPAND(Y2, Y6, Y6)
		VPXOR(Y5, Y6, Y6)
		VPSHUFB(Y7, Y15, Y7)
		VPAND(Y9, x, Y2)
		VPSHUFB(Y2, Y8, Y2)
		VPAND(Y2, Y7, Y7)
		VPOR(Y6, Y7, Y7)
	}

	Label("loop2")
	Comment("Blocks before R13 (the end of four blocks that failed the fast test) go to the",
		"one-block loop, whose registers are still set up.")
	CMPQ(rSI, R13)
	JB(LabelRef("loop1"))
	if !lt && !x512 {
		Comment("So does the block after an E2 in the last two bytes of the one before: the",
			"four-block test finds E2 itself (class 0x10 of the nibble tables), not E2 two",
			"bytes back, so U+2028/U+2029 straddling into this block would pass it.")
		CMPB(mem(rSI, -1), U8(0xE2))
		JEQ(LabelRef("loop1"))
		CMPB(mem(rSI, -2), U8(0xE2))
		JEQ(LabelRef("loop1"))
	}
	Comment("In the four-block loop Y8/Y15 = the escape classes by low/high nibble (with",
		"UNESCAPED_LINE_TERMINATORS unset, E2 is in class 0x10), Y14 = 0x80, Y13 = 0x60;",
		"the one-block loop below restores Y13-Y15.")
	VMOVDQU(mem(R12, ktELo), Y8)
	if x512 {
		Comment("(escapeUUAVX512: kEHiX, whose class 0x20 is A8/A9, tested with the byte two",
			"back, in place of E2 itself.)")
		VMOVDQU(k(kEHiX), Y15)
	} else {
		VMOVDQU(k(kEHi), Y15)
	}
	VMOVDQU(k(k80), Y14)
	VMOVDQU(k(k60), Y13)
	Label("loop4")
	Comment("Four blocks per iteration while 160 bytes are left, one test for all; a block that",
		"needs more goes to the one-block loop below, which has the slow path.")
	LEAQ(mem(rSI, 160), RAX)
	CMPQ(RAX, rEnd)
	JHI(LabelRef("loop"))
	check(0, Y0)
	VMOVDQA(Y7, Y0)
	for _, d := range []int{32, 64, 96} {
		check(d, Y1)
		VPOR(Y7, Y0, Y0)
	}
	VPTEST(Y0, Y0)
	JNZ(LabelRef("dirty4"))
	SUBQ(I8(-128), rSI)
	SUBQ(I8(-128), rDI)
	JMP(LabelRef("loop4"))

	Label("dirty4")
	LEAQ(mem(rSI, 128), R13)
	Label("loop")
	escRegs(R12, 0x1F, tag)
	Label("loop1")
	LEAQ(mem(rSI, 64), RAX)
	CMPQ(RAX, rEnd)
	JHI(LabelRef("back"))
	body(false)
	JMP(LabelRef("loop2"))

	Label("slow")
	VPTEST(Y6, Y6)
	JNZ(LabelRef("back"))
	if !lt {
		Comment("E2 two bytes back: is it E2 80 A8/A9?")
		VPCMPEQB(k(kE2), Y4, Y4)
		VPCMPEQB(k(k80), Y3, Y5)
		VPAND(Y5, Y4, Y4)
		VPOR(k(k01), Y0, Y5)
		VPCMPEQB(k(kA9), Y5, Y5)
		VPAND(Y5, Y4, Y4)
		VPTEST(Y4, Y4)
		JNZ(LabelRef("back"))
	}
	VPMOVMSKB(Y1, EAX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("block"))
	ADDQ(U8(32), rSI)
	ADDQ(U8(32), rDI)
	JMP(LabelRef("loop2"))
	expandBlock("block", "blocks", "loop2", R12, true, x512, func(x, out, tmp VecPhysical) {
		uuEscapes(x, out, tmp, tag)
	})
	blockHandler("blocks", opsY, true, "loop2")

	Label("back")
	Comment("Return at the lead byte of a character that straddles into the block at SI.")
	CMPQ(rSI, rBeg)
	JEQ(LabelRef("ret"))
	MOVBLZX(mem(rSI, -1), EAX)
	CMPL(EAX, U32(0xC0))
	JAE(LabelRef("back1"))
	MOVBLZX(mem(rSI, -2), EAX)
	CMPL(EAX, U32(0xE0))
	JAE(LabelRef("back2"))
	MOVBLZX(mem(rSI, -3), EAX)
	CMPL(EAX, U32(0xF0))
	JB(LabelRef("ret"))
	DECQ(rSI)
	DECQ(rDI)
	Label("back2")
	DECQ(rSI)
	DECQ(rDI)
	Label("back1")
	DECQ(rSI)
	DECQ(rDI)
	epilogue(true)
}

// copyBack3 is the four-block test's loads: the block at SI+disp into x, stored unchanged at
// DI+disp, and the bytes 1, 2 and 3 back into Y3, Y4 and Y2.
func copyBack3(disp int, x VecPhysical) {
	VMOVDQU(mem(rSI, disp), x)
	VMOVDQU(x, mem(rDI, disp))
	VMOVDQU(mem(rSI, disp-1), Y3)
	VMOVDQU(mem(rSI, disp-2), Y4)
	VMOVDQU(mem(rSI, disp-3), Y2)
}

// checkX512 is escapeUUAVX2's four-block test of the block at SI+disp in escapeUUAVX512 (Y7
// nonzero in every lane that needs the one-block loop), with VPTERNLOGD (AVX-512 VL) folding
// its ANDs, ORs and XOR. Without UNESCAPED_LINE_TERMINATORS it flags A8/A9 (class 0x20 of
// kEHiX and ktELo) only where the byte two back is E2: U+2028/U+2029 and the rare E2 xx A8/A9
// (the one-block loop's exact test sorts them), not every block with an E2, as escapeUUAVX2's
// class 0x10 does. Y4 (the byte two back) is loaded from memory, so a sequence that straddles
// into the block is found in it.
func checkX512(disp int, x VecPhysical, lt bool) {
	copyBack3(disp, x)
	VPSUBUSB(Y13, Y4, Y5)
	VPSUBUSB(k(k70), Y2, Y6)
	VPTERNLOGD(U8(0xA8), Y14, Y6, Y5) // Y5 = (Y5 | Y6) & 0x80: must23_80
	if !lt {
		VPCMPEQB(k(kE2), Y4, Y4) // Y4 = E2 two back
	}
	VPSRLW(U8(4), Y3, Y6)
	VPAND(Y9, Y6, Y6)
	VPSHUFB(Y6, Y12, Y6)
	VPAND(Y9, Y3, Y7)
	VPSHUFB(Y7, Y11, Y7)
	VPSRLW(U8(4), x, Y3)
	VPAND(Y9, Y3, Y3) // Y3 = high nibbles
	VPSHUFB(Y3, Y10, Y2)
	VPTERNLOGD(U8(0x80), Y2, Y7, Y6) // Y6 = Y6 & Y7 & Y2: the special cases
	VPSHUFB(Y3, Y15, Y7)             // escape classes by high nibble
	VPAND(Y9, x, Y2)
	VPSHUFB(Y2, Y8, Y2) // ... by low nibble
	if lt {
		VPAND(Y2, Y7, Y7)
	} else {
		VPOR(k(kDF), Y4, Y4)
		VPTERNLOGD(U8(0x80), Y4, Y2, Y7) // Y7 = classes, 0x20 only with E2 two back
	}
	VPTERNLOGD(U8(0xF6), Y5, Y6, Y7) // Y7 |= Y6 ^ Y5 (UTF-8 errors)
}

// uuEscapes sets out to 0xFF in the lanes of x that the UNESCAPED_UNICODE kernels escape:
// the special bytes by the VPSHUFB table Y15, controls by unsigned minimum against Y14 (0x1F),
// and '<' (Y13) with HEX_TAG.
func uuEscapes(x, out, tmp VecPhysical, tag bool) {
	VPSHUFB(x, Y15, out)
	VPCMPEQB(x, out, out)
	VPMINUB(x, Y14, tmp)
	VPCMPEQB(x, tmp, tmp)
	VPOR(tmp, out, out)
	if tag {
		VPCMPEQB(x, Y13, tmp)
		VPOR(tmp, out, out)
	}
}

// clean16 emits the short-string path: 16 to 31 bytes as two overlapping 16-byte blocks.
func clean16() {
	TEXT("clean16", NOSPLIT, "func(d *byte, src []byte, kt *uint64, sse int) bool")
	Doc("clean16 writes '\"', src, '\"' to d[0:len(src)+2] and returns true when src (16 to 31",
		"bytes) has nothing to escape under kt's option set and no byte >= 0x80; otherwise it",
		"writes nothing and returns false. sse 0 selects the VEX-encoded code (AVX2 required),",
		"else SSE2 compares against the first nsp (2..7, kt's byte ktNSP) special-byte slots of kt.")
	Comment(
		"clean16 is the short-string path: a 16- to 31-byte string without anything to escape",
		"is stored with its quotes; anything else is left to the caller.",
		"",
		"Contract: 16 <= len(src) < 32; d has room for len(src)+2 bytes; with sse == 0 the",
		"CPU has AVX2, else SSE2 only is used and nsp (2..7, at kt+ktNSP) is the option set's number of",
		"escaped special bytes. It reads only src and kt and writes d[0:len(src)+2] only",
		"when it returns true.",
		"",
		"Registers: SI = src, CX = len(src), DI = d, AX = kt, X0/X1 = the two blocks, X2-X5",
		"classification, X6 and X13-X15 the table or special bytes; BX = nsp.",
		"",
		"Algorithm: two overlapping 16-byte loads (the first at src, the second ending exactly",
		"at its end) classified as in the kernels (VPSHUFB table lookup with AVX2, one",
		"PCMPEQB per special byte slot with SSE2); when both masks are empty, two overlapping",
		"16-byte stores and the two quotes. No loop, no byte-at-a-time tail.",
	)
	Load(Param("d"), RDI)
	Load(Param("src").Base(), RSI)
	Load(Param("src").Len(), RCX)
	Load(Param("kt"), RAX)
	Load(Param("sse"), RBX)
	TESTQ(RBX, RBX)
	JZ(LabelRef("avx"))
	MOVBQZX(mem(RAX, ktNSP), RBX)

	Comment("SSE2 (the fall-through: the one of the two paths that is slower).")
	MOVOU(mem(RSI, 0), X0)
	MOVOU(Mem{Base: RSI, Index: RCX, Scale: 1, Disp: -16}, X1)
	MOVOU(k(k20), X2)
	MOVOA(X2, X3)
	PCMPGTB(X0, X2)
	PCMPGTB(X1, X3)
	for i := 0; i < 7; i++ {
		if i >= 2 {
			Commentf("Slot %d only when %d or more special bytes are escaped.", i, i+1)
			CMPQ(RBX, U8(i))
			JBE(LabelRef("test"))
		}
		MOVOU(mem(RAX, ktSpec+16*i), X6)
		MOVOA(X0, X4)
		PCMPEQB(X6, X4)
		POR(X4, X2)
		PCMPEQB(X1, X6)
		POR(X6, X3)
	}
	Label("test")
	POR(X2, X3)
	clean16Result(opsX, "dirty")

	Label("avx")

	VMOVDQU(mem(RSI, 0), X0)
	VMOVDQU(Mem{Base: RSI, Index: RCX, Scale: 1, Disp: -16}, X1)
	VMOVDQU(mem(RAX, ktShuf), X15)
	VMOVDQU(mem(RAX, ktLT), X13)
	MOVL(U32(0x20), EBX)
	VMOVD(EBX, X14)
	VPBROADCASTB(X14, X14)
	classifyVEX(X0, X2, X4, X15, X14, X13, true)
	classifyVEX(X1, X3, X5, X15, X14, X13, true)
	VPOR(X2, X3, X3)
	clean16Result(opsXV, "dirtyv")
}

// clean16Result ends clean16: X3 holds the dirty lanes of both blocks; when there are none,
// the quotes and the blocks X0 (at d+1) and X1 (ending at d+1+len(src)) are stored and the
// result is true, else (at label dirty) false.
func clean16Result(o vecOps, dirty string) {
	o.movmsk(X3, EDX)
	TESTL(EDX, EDX)
	JNZ(LabelRef(dirty))
	MOVB(U8('"'), mem(RDI, 0))
	MOVB(U8('"'), Mem{Base: RDI, Index: RCX, Scale: 1, Disp: 1})
	o.store(X0, mem(RDI, 1))
	o.store(X1, Mem{Base: RDI, Index: RCX, Scale: 1, Disp: -15})
	if o.vex {
		VZEROUPPER()
	}
	MOVB(U8(1), AL)
	Store(AL, ReturnIndex(0))
	RET()
	Label(dirty)
	if o.vex {
		VZEROUPPER()
	}
	MOVB(U8(0), AL)
	Store(AL, ReturnIndex(0))
	RET()
}

// classifySSE2 sets out to 0xFF in the lanes of x that must be escaped or are >= 0x80, with
// one PCMPEQB per active special byte (X8.. X8+n-1) and a signed PCMPGTB against 0x20 (X15).
func classifySSE2(n int, x, out, tmp VecPhysical) {
	MOVOA(X15, out)
	PCMPGTB(x, out)
	for i := 0; i < n; i++ {
		MOVOA(x, tmp)
		PCMPEQB(VecPhysical(xreg(8+i)), tmp)
		POR(tmp, out)
	}
}

func xreg(i int) VecPhysical {
	return []VecPhysical{X0, X1, X2, X3, X4, X5, X6, X7, X8, X9, X10, X11, X12, X13, X14, X15}[i]
}

func escapeSSE2(n int) {
	name := fmt.Sprintf("escapeSSE2x%d", n)
	TEXT(name, NOSPLIT, escSig)
	Doc(fmt.Sprintf("%s is the SSE2 clean-run/ASCII-escape kernel (runKernel's contract) for option", name),
		fmt.Sprintf("sets that escape %d special bytes. It requires len(src) >= 16.", n))
	Comment(
		fmt.Sprintf("%s escapes src into dst for option sets that escape exactly %d special", name, n),
		"bytes besides the controls (the first n of kt's broadcast special bytes).",
		"",
		"Contract: as escapeAVX2 (SSE2 only, 16-byte blocks): requires len(src) >= 16 and",
		"len(dst) >= 6*len(src); reads only src; writes dst[0:ndst] and possibly",
		"dst[ndst:ndst+len(src)-nsrc] (bytes the rest of the escape overwrites); stops at a",
		"byte >= 0x80 or with fewer than 16 bytes left.",
		"",
		"Registers: SI/DI = src/dst position, R8/R9 = src/dst start, R10 = src end,",
		"R11 = esc, AX = dirty mask, BX/CX/DX scratch; X15 = 0x20 in every byte, X8.. = the",
		"escaped special bytes (one register each), X0-X5 data.",
		"",
		"Algorithm: as escapeAVX2 with one PCMPEQB per escaped special byte (SSE2 has no",
		"PSHUFB): 32 bytes per iteration while 48 are left, 16 while 32 are left, then two",
		"overlapping 16-byte loads for the last 16 to 31 bytes when both are clean.",
	)
	kt := prologue()
	MOVL(U32(0x20202020), EBX)
	MOVQ(RBX, X15)
	PSHUFD(U8(0), X15, X15)
	for i := 0; i < n; i++ {
		MOVOU(mem(kt, ktSpec+16*i), xreg(8+i))
	}

	Label("loop32")
	Comment("32 bytes per iteration while 48 bytes are left.")
	LEAQ(mem(rSI, 48), RAX)
	CMPQ(RAX, rEnd)
	JHI(LabelRef("loop16"))
	MOVOU(mem(rSI, 0), X0)
	MOVOU(mem(rSI, 16), X1)
	MOVOU(X0, mem(rDI, 0))
	MOVOU(X1, mem(rDI, 16))
	classifySSE2(n, X0, X2, X4)
	classifySSE2(n, X1, X3, X5)
	MOVOA(X2, X4)
	POR(X3, X4)
	PMOVMSKB(X4, EAX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("dirty32"))
	ADDQ(U8(32), rSI)
	ADDQ(U8(32), rDI)
	JMP(LabelRef("loop32"))

	Label("dirty32")
	PMOVMSKB(X2, EAX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("block16"))
	ADDQ(U8(16), rSI)
	ADDQ(U8(16), rDI)
	PMOVMSKB(X3, EAX)
	JMP(LabelRef("block16"))

	Label("loop16")
	Comment("One 16-byte block while 32 bytes are left.")
	LEAQ(mem(rSI, 32), RAX)
	CMPQ(RAX, rEnd)
	JHI(LabelRef("tail"))
	MOVOU(mem(rSI, 0), X0)
	MOVOU(X0, mem(rDI, 0))
	classifySSE2(n, X0, X2, X4)
	PMOVMSKB(X2, EAX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("block16"))
	ADDQ(U8(16), rSI)
	ADDQ(U8(16), rDI)
	JMP(LabelRef("loop16"))

	blockHandler("block16", opsX, false, "loop32")

	tail16(opsX, func(x, out, tmp VecPhysical) { classifySSE2(n, x, out, tmp) })
	epilogue(false)
}

// dense64 emits the avx512 escape kernels' loop for text dense in two-byte escapes (option sets
// without \u00XX escapes of bytes >= 0x20, that is without HEX_ options). It is entered at name
// with a dirty 32-byte block at SI (stored at DI, AX its mask: the entry of the 32-byte block
// handler, which is fallback; a first dirty byte >= 0x80 goes to its exit, high, unless the
// 64 bytes at SI hold just one 2-byte sequence: dense64Seq) and takes 64-byte blocks while 128
// bytes of src are left:
//
//   - one VPERMI2B of the block by the option set's 128-byte table (ktPerm) gives every lane its
//     escape letter (0 when clean, 0x80 for a \u00XX escape); a lane >= 0x80 (or whose entry is
//     0x80) makes the block "complex": a block whose only bytes >= 0x80 are one valid 2-byte
//     sequence is written in the loop (dense64Seq); any other's first dirty 32-byte half goes
//     to fallback, which escapes it (and stops the kernel at a byte >= 0x80 it does not take);
//   - a block of clean bytes and two-byte escapes is written from registers: each 32-byte half's
//     letters (the escaped lanes' letters, the clean lanes' own bytes) go to their places in a
//     64-byte output of '\\' by one VPEXPANDB (as expand512), stored with one 64-byte store;
//     a single clean block too, the second clean block in a row ends the loop (back to the
//     wide clean-run loops at align);
//   - each block is loaded two blocks ahead of the stores in between (see the loop);
//   - under 128 bytes from the end, dense64Tail finishes src.
//
// The stores run at most 64 bytes past the output (a block with a 2-byte sequence: its lanes
// after it; 32 for others), and the 128 bytes left cover that and fallback's 32-byte
// lookahead. Without ctl (the NoCtl forms: src has no control and no byte
// >= 0x80, and without HEX_ options no byte takes \u00XX) no block is complex and there is no
// test for it. Registers: Z16/Z17 = the table, Z18 = '\\' in every byte.
func dense64(name, fallback, high string, ctl bool) {
	Label(name)
	Comment("A first dirty byte >= 0x80 goes to d64_high (with CX its index, as fallback would):",
		"in mostly-ASCII text every such byte comes through here.")
	BSFL(EAX, ECX)
	MOVBLZX(memi(rSI, RCX, 0), EDX)
	CMPL(EDX, U32(0x80))
	if ctl {
		JAE(LabelRef("d64_high"))
	} else {
		JAE(LabelRef(high))
	}
	LEAQ(mem(rSI, 128), RDX)
	CMPQ(RDX, rEnd)
	JHI(LabelRef(fallback))
	CMPB(mem(R13, ktHexU), U8(0))
	JNE(LabelRef(fallback))
	VMOVDQU64(mem(rSI, 0), Z6)
	VMOVDQU64(mem(rSI, 64), Z7)
	Label("d64_enter")
	VMOVDQU64(mem(R13, ktPerm), Z16)
	VMOVDQU64(mem(R13, ktPerm+64), Z17)
	VPBROADCASTB(k(kBS), Z18)

	Label("d64")
	Comment("Z0 = this block, loaded (as Z7, then Z6) two blocks ahead, before the stores of the",
		"blocks before it: a load after them waits for their addresses (which come late, from",
		"the masks) whenever its own address matches one of theirs modulo 4096, and then the",
		"loop runs at half speed. The load two ahead is clamped to the last 64 bytes of src.")
	VMOVDQA64(Z6, Z0)
	VMOVDQA64(Z7, Z6)
	LEAQ(mem(rSI, 128), RDX)
	LEAQ(mem(rEnd, -64), RCX)
	CMPQ(RDX, RCX)
	CMOVQHI(RCX, RDX)
	VMOVDQU64(mem(RDX, 0), Z7)
	VMOVDQA64(Z0, Z1)
	VPERMI2B(Z17, Z16, Z1)
	Comment("Bit 7 of byte | entry: a byte >= 0x80 or a \\u00XX escape (letters are ASCII; the",
		"NoCtl forms have neither: no test). The vector ports are the bottleneck here: few mask",
		"operations, and the clean test in AX.")
	if ctl {
		VPORQ(Z0, Z1, Z3)
		VPMOVB2M(Z3, K2)
		KORTESTQ(K2, K2)
		JNZ(LabelRef("d64_seq"))
	}
	VPTESTMB(Z1, Z1, K1)
	KMOVQ(K1, RAX)
	Comment("R12 = the block before's mask (nonzero at entry: denseUnknown): a second clean block",
		"in a row ends the loop; a single one is expanded like any other (no branch on it).")
	MOVQ(RAX, RDX)
	ORQ(R12, RDX)
	JZ(LabelRef("d64_clean"))
	MOVQ(RAX, R12)
	expand64()
	ADDQ(U8(64), rSI)
	LEAQ(mem(rSI, 128), RDX)
	CMPQ(RDX, rEnd)
	JLS(LabelRef("d64"))

	dense64Tail(ctl)
	dense64Exits(fallback, ctl)
	if ctl {
		dense64Seq(high)
	}
}

// dense64Seq emits dense64's way in at a first dirty byte >= 0x80 (d64_high, CX its index in
// the block at SI) and its path for a block whose only bytes >= 0x80 are one 2-byte sequence
// (d64_seq). The loop is entered when the 64 bytes at SI hold exactly two bytes >= 0x80 (and
// it may run: 128 bytes left, no HEX_ option); else the byte goes to high as before. In the
// loop, a block whose complex lanes (K2) are exactly two bytes >= 0x80 at L and L+1, a valid
// 2-byte sequence (C2..DF, then a continuation byte: spec §2.2), is written with \uXXXX at
// lane L's place (one 8-byte store): without escapes in the block, after its lanes before L
// (the block stored whole) and before those after L+1 (a load at L+2 stored after it), and the
// loop goes on at the next block, as after any other (measured on ascii-eacute-periodic, an é
// in every block: 19-21 % faster than going on from L+2, whose loads waited for L); with
// escapes, the block is expanded as any block, DI set back to lane L's place, and the loop
// goes on from L+2 with its loads two blocks ahead started again. Such text is sparse (two
// bytes >= 0x80 in 64): the multi-byte kernel would not start there. Any other complex block
// goes on at d64_complex, dense64Exits' way out.
func dense64Seq(high string) {
	Label("d64_high")
	LEAQ(mem(rSI, 128), RDX)
	CMPQ(RDX, rEnd)
	JHI(LabelRef(high))
	CMPB(mem(R13, ktHexU), U8(0))
	JNE(LabelRef(high))
	Comment("The loop's first two blocks, loaded here for the test and kept (Z6, Z7).")
	VMOVDQU64(mem(rSI, 0), Z6)
	VPMOVB2M(Z6, K3)
	KMOVQ(K3, RDX)
	POPCNTQ(RDX, RDX)
	CMPQ(RDX, U8(2))
	JNE(LabelRef(high))
	VMOVDQU64(mem(rSI, 64), Z7)
	VPMOVB2M(Z7, K3)
	KORTESTQ(K3, K3)
	JZ(LabelRef(high))
	JMP(LabelRef("d64_enter"))

	Label("d64_seq")
	Comment("One 2-byte sequence (BX = the block's bytes >= 0x80, DX = its complex lanes; CX = L).")
	VPMOVB2M(Z0, K3)
	KMOVQ(K2, RDX)
	KMOVQ(K3, RBX)
	CMPQ(RDX, RBX)
	JNE(LabelRef("d64_complex"))
	BSFQ(RBX, RCX)
	SHRQ(CL, RBX)
	CMPQ(RBX, U8(3))
	JNE(LabelRef("d64_complex"))
	MOVWLZX(memi(rSI, RCX, 0), EBX)
	seq2(LabelRef("d64_complex"))
	Comment("R12 = the escape (nonzero: this block was dirty, for the clean-run test).")
	hexU2()
	MOVQ(RBX, R12)
	VPTESTMB(Z1, Z1, K1)
	KMOVQ(K1, RAX)
	TESTQ(RAX, RAX)
	JNZ(LabelRef("d64_seqx"))
	Comment("No escape in the block: its lanes before L, the escape at DI + L, and its lanes",
		"after L+1, from a load at SI + L + 2 (within the 128 bytes left) stored after the",
		"escape (at most 64 bytes past the output). The next block is at SI + 64 as after",
		"any block: no address waits for L, and its loads, two blocks ahead, stand.")
	VMOVDQU64(Z0, mem(rDI, 0))
	MOVQ(R12, memi(rDI, RCX, 0))
	VMOVDQU64(memi(rSI, RCX, 2), Z2)
	VMOVDQU64(Z2, memi(rDI, RCX, 6))
	ADDQ(U8(64), rSI)
	ADDQ(U8(68), rDI)
	LEAQ(mem(rSI, 128), RDX)
	CMPQ(RDX, rEnd)
	JLS(LabelRef("d64"))
	MOVL(U32(denseUnknown), R12L)
	JMP(LabelRef("d64t"))
	Label("d64_seqx")
	Comment("Escapes too: R14 = DI at lane L (DI + L + the escapes before it); SI moves past",
		"the sequence, and the loop starts again there.")
	BZHIQ(RCX, RAX, RDX)
	POPCNTQ(RDX, RDX)
	ADDQ(RCX, RDX)
	LEAQ(Mem{Base: rDI, Index: RDX, Scale: 1}, R14)
	LEAQ(Mem{Base: rSI, Index: RCX, Scale: 1, Disp: 2}, rSI)
	expand64()
	Label("d64_seqw")
	MOVQ(R14, rDI)
	MOVQ(R12, mem(rDI, 0))
	ADDQ(U8(6), rDI)
	LEAQ(mem(rSI, 128), RDX)
	CMPQ(RDX, rEnd)
	JHI(LabelRef("d64_seqt"))
	VMOVDQU64(mem(rSI, 0), Z6)
	VMOVDQU64(mem(rSI, 64), Z7)
	JMP(LabelRef("d64"))
	Label("d64_seqt")
	MOVL(U32(denseUnknown), R12L)
	JMP(LabelRef("d64t"))
}

// dense64Exits emits dense64's ways out of its loop: at the second clean block in a row (the
// block is stored, back to align), and with ctl at a complex block (its first dirty half to
// fallback, the 32-byte handler).
func dense64Exits(fallback string, ctl bool) {
	Label("d64_clean")
	MOVL(U32(denseUnknown), R12L)
	VMOVDQU64(Z0, mem(rDI, 0))
	ADDQ(U8(64), rSI)
	ADDQ(U8(64), rDI)
	JMP(LabelRef("align"))

	if !ctl {
		return
	}
	Label("d64_complex")
	MOVL(U32(denseUnknown), R12L)
	Comment("The first dirty half goes to the 32-byte handler: AX = every dirty lane (a nonzero",
		"entry, or bit 7 of byte | entry).")
	VPTESTMB(Z1, Z1, K1)
	KORQ(K2, K1, K1)
	KMOVQ(K1, RAX)
	VMOVDQU(Y0, mem(rDI, 0))
	TESTL(EAX, EAX)
	JNZ(LabelRef(fallback))
	ADDQ(U8(32), rSI)
	ADDQ(U8(32), rDI)
	VEXTRACTI64X4(U8(1), Z0, Y0)
	VMOVDQU(Y0, mem(rDI, 0))
	SHRQ(U8(32), RAX)
	JMP(LabelRef(fallback))
}

// expand64 writes the 64-byte block Z0 at DI with its escaped lanes (K1 and AX, their letters
// in Z1) each after a '\\', two halves by expandHalf, and advances DI past them. It uses Z2
// and what expandHalf uses; AX is shifted right by 32.
func expand64() {
	Comment("Letters in the escaped lanes, the bytes themselves in the others.")
	VPBLENDMB(Z1, Z0, K1, Z2)
	expandHalf(Z2)
	SHRQ(U8(32), RAX)
	VEXTRACTI64X4(U8(1), Z2, Y2)
	expandHalf(Z2)
}

// expandHalf writes the 32 lanes of x's low half (letters in place of escaped bytes; AX's low
// 32 bits their mask) at DI, each escaped one after a '\\' (expand512's VPEXPANDB), and
// advances DI past them. It uses BX, CX, DX, K4 and Z5.
func expandHalf(x VecPhysical) {
	expandTo(x)
	VMOVDQU64(Z5, mem(rDI, 0))
	POPCNTL(EAX, ECX)
	LEAQ(Mem{Base: rDI, Index: RCX, Scale: 1, Disp: 32}, rDI)
}

// dense64Tail emits dense64's end: fewer than 128 bytes left, up to 32 a step to the end of src
// with masked loads and exact masked stores; with ctl a step with a byte >= 0x80 or a \u00XX
// escape goes back to the 32-byte loops (at dense).
func dense64Tail(ctl bool) {
	MOVL(U32(denseUnknown), R12L)

	Label("d64t")
	Comment("Fewer than 128 bytes left: up to 32 at a time, masked loads and exact masked",
		"stores (nothing past the output: no src is left to cover run-ahead), to the end of",
		"src; a block with a byte >= 0x80 or a \\u00XX escape goes back to the 32-byte loops.")
	MOVQ(rEnd, RCX)
	SUBQ(rSI, RCX)
	JZ(LabelRef("ret"))
	MOVL(U32(32), EDX)
	CMPQ(RCX, U8(32))
	CMOVQHI(RDX, RCX)
	MOVQ(I32(-1), RDX)
	BZHIQ(RCX, RDX, RDX)
	KMOVQ(RDX, K5)
	VMOVDQU8_Z(mem(rSI, 0), K5, Z0)
	VMOVDQA64(Z0, Z1)
	VPERMI2B(Z17, Z16, Z1)
	VPTESTMB(Z1, Z1, K5, K1)
	if ctl {
		VPMOVB2M(Z0, K2)
		VPMOVB2M(Z1, K3)
		KORQ(K3, K2, K2)
		KANDQ(K5, K2, K2)
		KORTESTQ(K2, K2)
		JNZ(LabelRef("dense"))
	}
	VPBLENDMB(Z1, Z0, K1, Z2)
	KMOVQ(K1, RAX)
	expandTo(Z2)
	Comment("AX = the output's length: the bytes taken and one '\\\\' per escape.")
	POPCNTL(EAX, EAX)
	ADDQ(RCX, RAX)
	ADDQ(RCX, rSI)
	MOVQ(I32(-1), RDX)
	BZHIQ(RAX, RDX, RDX)
	KMOVQ(RDX, K6)
	VMOVDQU8(Z5, K6, mem(rDI, 0))
	ADDQ(RAX, rDI)
	JMP(LabelRef("d64t"))

}

// expandTo sets Z5 to the 32 lanes of x's low half placed among '\\' bytes (Z18): each lane
// whose bit is set in AX's low 32 bits after a '\\' (expand512's VPEXPANDB). It uses BX, DX
// and K4.
func expandTo(x VecPhysical) {
	letterPlaces(K4)
	VMOVDQA64(Z18, Z5)
	VPEXPANDB(x, K4, Z5)
}

// letterPlaces sets the mask register k to the places of 32 letters in an output of '\\'
// whose escaped ones (AX's low 32 bits) each follow a '\\': PEXT(0xAA..., PDEP(AX, 0x55...) |
// 0xAA...) (see expand512). It uses BX and DX.
func letterPlaces(k Op) {
	MOVQ(U64(0x5555555555555555), RBX)
	PDEPQ(RBX, RAX, RDX)
	NOTQ(RBX)
	ORQ(RBX, RDX)
	PEXTQ(RDX, RBX, RDX)
	KMOVQ(RDX, k)
}
