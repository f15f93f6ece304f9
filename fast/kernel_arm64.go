//go:build !purego

package fast

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// The arm64 assembly kernel: NEON (ASIMD), which every arm64 CPU has. One arm64 test binary
// runs neon, swar and generic.
const (
	kernelNEON = kernelArch // escapeBlocksNEON (escape_arm64.s), finished by asciiSWAR
	rankNEON   = 100        // above swar: the default on arm64
)

func init() {
	cpuFeatures = fmt.Sprintf("asimd=%v", cpu.ARM64.HasASIMD)
	if !cpu.ARM64.HasASIMD {
		return
	}
	uuKernels |= 1 << kernelNEON
	mbKernels |= 1 << kernelNEON
	register(Variant{
		Name:       "neon",
		Doc:        "arm64 NEON assembly: 16-byte blocks stored before testing, UMAXV to test a block, lanes found only in dirty blocks, blocks of two-byte escapes expanded by TBL, vector UTF-8 validation, \\uXXXX from 16-byte windows (one store per code unit)",
		Escape:     escapeVariant(kernelNEON),
		NextChar:   NextChar,
		UTF8Decode: utf8DecodeWords,
	}, kernelNEON, rankNEON)
}

// archKernel runs the arm64 kernel k with runKernel's contract (valid, which the amd64
// kernels use, changes nothing here).
func archKernel(k int, dst, src []byte, c *escCtx, valid bool) (nsrc, ndst int) {
	if k != kernelNEON {
		panic("fast: no kernel with identifier " + strconv.Itoa(k))
	}
	if c.uu {
		return uuNEON(dst, src, c)
	}
	// ASCII up to the first byte >= 0x80, then the multi-byte kernel from there, which also
	// takes ASCII.
	i, d := 0, 0
	if len(src) == 0 || src[0] < 0x80 {
		i, d = asciiNEON(dst, src, c)
		if i == len(src) || src[i] < 0x80 {
			return i, d
		}
	}
	if len(src)-i < neonMin || !mbDense(src[i:]) {
		return i, d // sparse non-ASCII text: the Go loop (see mbDense)
	}
	s, e := mbNEON(dst[d:], src[i:], c)
	return i + s, d + e
}

// mbNEON is the "neon" kernel's multi-byte part without UNESCAPED_UNICODE (runKernel's
// contract for a kernel in mbKernels), called at a byte >= 0x80: escapeMBNEON writes valid
// multi-byte sequences as \uXXXX and escapes ASCII in 16-byte windows while 32 bytes are
// left, stopping before anything invalid; Go's slow path does the rest.
func mbNEON(dst, src []byte, c *escCtx) (int, int) {
	if len(src) < neonMin || len(dst) < 6*len(src) {
		return 0, 0
	}
	i, d := escapeMBNEON(dst, src, &c.kt, c.esc)
	raceRead(src[:min(len(src), i+32)])
	raceWrite(dst[:min(len(dst), d+16)])
	return i, d
}

// escapeMBNEON is the NEON kernel for option sets without UNESCAPED_UNICODE: escapeBlocksNEON
// for ASCII, and valid multi-byte sequences written as \uXXXX (surrogate pairs above
// U+FFFF), in 16-byte windows that start at character boundaries, while 32 bytes are left;
// it stops at the last character start before the first invalid sequence. It needs len(dst)
// >= 6*len(src), reads only src[:min(len(src), nsrc+32)] and writes only dst[:ndst+16] (see
// escape_arm64.s).
//
//go:noescape
func escapeMBNEON(dst, src []byte, kt *[ktWords]uint64, esc *[128]uint64) (nsrc, ndst int)

// uuNEON is the "neon" kernel under UNESCAPED_UNICODE (runKernel's contract for a kernel in
// uuKernels): escapeUUNEON copies valid multi-byte sequences and escapes ASCII in 16-byte
// blocks while 32 bytes are left, stopping before anything invalid or a line terminator it
// may not copy; asciiSWAR then does the ASCII bytes it leaves before the next byte >= 0x80.
// It may be called at a byte >= 0x80 (the start of a character).
func uuNEON(dst, src []byte, c *escCtx) (int, int) {
	i, d := 0, 0
	if len(src) >= neonMin && len(dst) >= 6*len(src) {
		i, d = escapeUUNEON(dst, src, &c.kt, c.esc, c.lt)
		raceRead(src[:min(len(src), i+35)])
		raceWrite(dst[:min(len(dst), d+32)])
		if i == len(src) || src[i] >= 0x80 {
			return i, d
		}
	}
	ns, nd := asciiSWAR(dst[d:], src[i:], c)
	return i + ns, d + nd
}

// escapeUUNEON is the NEON block kernel under UNESCAPED_UNICODE: escapeBlocksNEON that also
// copies valid multi-byte UTF-8 sequences, validated in the vector loop (Keiser–Lemire
// lookups with PHP's acceptance set), stopping at a character boundary before anything
// invalid and, unless lt, before U+2028/U+2029, or when fewer than 32 bytes are left. It
// needs len(dst) >= 6*len(src), reads only src[:min(len(src), nsrc+35)] and writes only
// dst[:ndst+19] (see escape_arm64.s).
//
//go:noescape
func escapeUUNEON(dst, src []byte, kt *[ktWords]uint64, esc *[128]uint64, lt bool) (nsrc, ndst int)

// neonMin is the shortest src escapeBlocksNEON does anything with: a block and the 16 bytes
// after it.
const neonMin = 32

// asciiNEON is the "neon" kernel (runKernel's contract): escapeBlocksNEON escapes whole
// 16-byte blocks while the 16 bytes after the block are there and ASCII (and then one more
// block if it is clean), stopping at the first byte >= 0x80; asciiSWAR does what it leaves
// before the next byte >= 0x80 or the end (fewer than 32 bytes).
//
// Memory: escapeBlocksNEON may write up to 16 bytes past the ndst it returns (see
// escape_arm64.s). They lie in dst (len(dst) >= 6*len(src)), and src[nsrc:] then holds at
// least as many ASCII bytes, each escaped to at least one byte, so the rest of the escape
// overwrites them under every option set (INVALID_UTF8_IGNORE included): the kernel never
// leaves anything past the final output, which is stricter than runKernel requires.
func asciiNEON(dst, src []byte, c *escCtx) (int, int) {
	i, d := 0, 0
	// The assembly needs src[16:32] to be ASCII before it stores anything: test that here
	// first (PR #23675's pre-check), so that text with a byte >= 0x80 every few bytes does not
	// pay for a call that would return at once.
	if len(src) >= neonMin && len(dst) >= 6*len(src) &&
		(binary.LittleEndian.Uint64(src[16:24])|binary.LittleEndian.Uint64(src[24:32]))&hi8 == 0 {
		i, d = escapeBlocksNEON(dst, src, &c.kt, c.esc, c.nsp)
		raceRead(src[:min(len(src), i+48)])
		raceWrite(dst[:min(len(dst), d+16)])
		if i == len(src) || src[i] >= 0x80 {
			return i, d
		}
	}
	ns, nd := asciiSWAR(dst[d:], src[i:], c)
	return i + ns, d + nd
}

// escapeBlocksNEON escapes src into dst in 16-byte blocks with NEON under the option set of
// the escCtx c whose &c.kt, c.esc and c.nsp it is given. It stops at the first byte >= 0x80,
// and at the end of any block whose next 16 bytes are not all in src and ASCII (after the
// following block if that one is clean). It returns the bytes of src consumed and of dst
// written; with len(src) < 32 or src[16:32] not ASCII it does nothing. It needs len(dst) >=
// 6*len(src), reads only src[:min(len(src), nsrc+48)] and writes only dst[:ndst+16], where
// the bytes past ndst are overwritten by the escape of the ASCII bytes that follow. See
// escape_arm64.s.
//
//go:noescape
func escapeBlocksNEON(dst, src []byte, kt *[ktWords]uint64, esc *[128]uint64, nsp int) (nsrc, ndst int)

// archASCIIEnd is asciiPrefix for the arm64 kernel: the 8-bytes-a-word scan.
func archASCIIEnd(k int, s []byte) (int, bool) { return asciiEnd(s, 0, true), false }

// archValid is the vector validity check of the amd64 kernels (see kernel_amd64.go): none here.
func archValid(k int, s []byte) (valid, ok bool) { return false, false }

// archShortMB is the one-window multi-byte kernel of amd64's avx512 variant (see
// kernel_amd64.go): none here.
func archShortMB(k int, dst, src []byte, c *escCtx) int { return -1 }

// shortMBKernel reports whether kernel k has archShortMB's one-window kernel: none here.
func shortMBKernel(k int) bool { return false }

// archEscapeASCII is archKernel for src that asciiPrefix found ASCII (noCtl: without
// controls either); it returns ndst (the kernel consumes all of an ASCII src).
func archEscapeASCII(k int, dst, src []byte, c *escCtx, noCtl bool) int {
	_, d := archKernel(k, dst, src, c, true)
	return d
}

// archDefault is true: the default kernel is always neon (registered on every arm64 CPU,
// above swar), so Escape need not test defaultKernel >= kernelArch.
const archDefault = true

// archClean16 is the 16-to-31-byte path of the neon variant (see kernel.go): two overlapping
// 16-byte blocks classified with NEON and stored when clean (clean16NEON).
func archClean16(k int, d, src []byte, c *escCtx) bool {
	raceReadWrite(src, d)
	return clean16NEON(unsafe.SliceData(d), src, &c.kt)
}

// clean16NEON writes '"', src, '"' to d[0:len(src)+2] and returns true when src (16 to 31
// bytes) has no byte >= 0x80 and nothing the option set of kt escapes; otherwise it writes
// nothing and returns false. See escape_arm64.s.
//
//go:noescape
func clean16NEON(d *byte, src []byte, kt *[ktWords]uint64) bool

// neonExpConst are escapeBlocksNEON's constants for a block of two-byte escapes (step 3a of
// escape_arm64.s): the two-byte escape classes by high nibble (0x0_, 0x2_, 0x5_: bits 0, 1,
// 2, ANDed with kt's classes by low nibble, bytes 192..207), each control's XOR with its
// escape letter by its value (\b \t \n \f \r), and the lane weights 1..128 of two 8-byte
// groups.
//
//lint:ignore U1000 read by escape_arm64.s, which staticcheck does not see
var neonExpConst = [3][16]byte{
	{0: 1, 2: 2, 5: 4},
	{8: 'b' ^ 8, 9: 't' ^ 9, 0xA: 'n' ^ 0xA, 0xC: 'f' ^ 0xC, 0xD: 'r' ^ 0xD},
	{1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128},
}

// neonExp[m] is the TBL index vector that writes an 8-byte group whose two-byte escapes are
// the set bits of m from [its 8 letters in lanes 0-7; '\\' in lanes 16-31]: 16 then i for an
// escaped byte i, i alone for a clean one, then 0xFF (zero) up to 16 bytes; neonExpLen[m] is
// the output's length, 8 + popcount(m).
//
//lint:ignore U1000 read by escape_arm64.s, which staticcheck does not see
var neonExp, neonExpLen = func() (e [256][16]byte, l [256]uint8) {
	for m := range e {
		j := 0
		for i := 0; i < 8; i++ {
			if m>>i&1 == 1 {
				e[m][j] = 16
				j++
			}
			e[m][j] = byte(i)
			j++
		}
		l[m] = uint8(j)
		for ; j < 16; j++ {
			e[m][j] = 0xFF
		}
	}
	return e, l
}()
