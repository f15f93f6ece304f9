package fast

import (
	"encoding/binary"
	"math/bits"
)

// Kernel identifiers: the clean-run/ASCII-escape kernel a variant uses. defaultKernel holds
// the one Escape and UTF8Decode dispatch to. Assembly kernels (avx2, sse2, neon) get their own
// identifiers from kernelArch upward and are run by archKernel.
const (
	kernelGeneric = iota // 256-byte class table, a byte at a time
	kernelSWAR           // 8 bytes a word, haszero/hasless
	kernelArch           // first identifier of the per-architecture kernels
)

// runKernel runs kernel k: it processes src from its start, copying clean bytes to dst and
// writing the escape of every dirty ASCII byte (spec §1.3) under the option set of c, and stops
// at the first byte >= 0x80 (a kernel in mbKernels: at one it does not take) or at the end of
// src. It returns how many bytes of src it consumed
// and how many it wrote. The caller guarantees len(dst) >= 6*len(src) and calls it only at
// the start of a character.
//
// Kernels listed in uuKernels also copy valid multi-byte sequences when c.uu is set
// (UNESCAPED_UNICODE), except U+2028/U+2029 without c.lt; they then stop at a character
// boundary at or before the first invalid sequence or line terminator, and may be called at a
// byte >= 0x80 (the start of a character). Other kernels return (0, 0) there.
//
// Memory: a kernel reads only src. It writes dst[:ndst] with final output, and the vector
// kernels may also write dst[ndst:ndst+len(src)-nsrc] with bytes that are not output (their
// one-pass block stores run ahead of the output). Those bytes are overwritten by the rest of
// the escape whenever the escape of the rest of the input is at least as long as that input,
// which holds for every option set on valid input and for invalid input unless
// INVALID_UTF8_IGNORE, or INVALID_UTF8_SUBSTITUTE with UNESCAPED_UNICODE (3 bytes for a
// 4-byte failure), shrinks it: escapeLong therefore validates such input first, or gives it a
// buffer of its own, when it would write into the caller's spare capacity. The portable kernels write only
// final output.
func runKernel(k int, dst, src []byte, c *escCtx) (nsrc, ndst int) {
	switch k {
	case kernelSWAR:
		return asciiSWAR(dst, src, c)
	case kernelGeneric:
		return asciiGeneric(dst, src, c)
	}
	return archKernel(k, dst, src, c, false)
}

// mbDense reports whether the first 32 bytes of s (len(s) >= 32) hold at least three bytes
// >= 0x80: the density at which the multi-byte kernels start (and go on with) a window.
// Sparser non-ASCII text is faster with the ASCII kernels (escapeAVX2 and its forms), which
// write its 2- and 3-byte sequences themselves, and the Go loop for any other character.
func mbDense(s []byte) bool {
	s = s[:32]
	// The four words' high bits, moved to bits 7, 6, 5 and 4 of each byte: one popcount.
	w := binary.LittleEndian.Uint64(s)&hi8 | binary.LittleEndian.Uint64(s[8:])&hi8>>1 |
		binary.LittleEndian.Uint64(s[16:])&hi8>>2 | binary.LittleEndian.Uint64(s[24:])&hi8>>3
	return bits.OnesCount64(w) >= 3
}

// shortMBMax is the longest src archShortMB takes: escapeShortMBAVX512's one 64-byte window
// and the zero after src, at which a sequence cut by the end of src shows as an error (its Y
// form takes up to 31 bytes in a 32-byte window the same way).
const shortMBMax = 63

// mbKernels has bit k set when kernel k also writes valid multi-byte sequences as \uXXXX
// (a surrogate pair above U+FFFF) when c.uu is not set, with the stopping rules of uuKernels
// (U+2028/U+2029 are ordinary characters there). Per-architecture init functions set it.
var mbKernels uint64

// uuKernels has bit k set when kernel k copies valid multi-byte sequences under
// UNESCAPED_UNICODE (see runKernel). Per-architecture init functions set it; it is read-only
// afterwards.
var uuKernels uint64

// archClean16 (per architecture) writes '"', src, '"' to d (len(d) == len(src)+2) and returns
// true when src, of 16 to 31 bytes, has no byte that c escapes and no byte >= 0x80, with two
// overlapping 16-byte vector blocks; otherwise it writes nothing and returns false. k is a
// per-architecture kernel (>= kernelArch). Architectures without it return false.

// asciiPrefix returns the index of the first byte >= 0x80 in s, or len(s), with the fastest
// scan kernel k's CPU supports (archASCIIEnd for the per-architecture kernels). noCtl true
// means that s is ASCII and has no byte < 0x20 either; false means that s is not, or that the
// scan did not look (only the amd64 AVX2 scan does).
func asciiPrefix(k int, s []byte) (p int, noCtl bool) {
	if k >= kernelArch {
		return archASCIIEnd(k, s)
	}
	return asciiEnd(s, 0, k != kernelGeneric), false
}

// escASCII writes the escape of the dirty ASCII byte b of class cls (clsShort or clsU) at
// dst[0:] and returns its length (2 or 6).
func escASCII(dst []byte, b byte, cls uint8) int {
	if cls == clsShort {
		_ = dst[1]
		dst[0] = '\\'
		dst[1] = shortEsc[b&0x7F]
		return 2
	}
	e := uEsc[b&0x7F]
	_ = dst[5]
	binary.LittleEndian.PutUint32(dst, uint32(e))
	binary.LittleEndian.PutUint16(dst[4:], uint16(e>>32))
	return 6
}

// asciiGeneric is the "generic" kernel: clean runs are found with the 256-byte class table of
// c and copied with one copy each.
func asciiGeneric(dst, src []byte, c *escCtx) (int, int) {
	tab := &c.tab
	i, d := 0, 0
	for i < len(src) {
		j := i
		for j+4 <= len(src) && tab[src[j]]|tab[src[j+1]]|tab[src[j+2]]|tab[src[j+3]] == 0 {
			j += 4
		}
		for j < len(src) && tab[src[j]] == 0 {
			j++
		}
		if j > i {
			d += copy(dst[d:], src[i:j])
			i = j
			if i == len(src) {
				break
			}
		}
		// A run of dirty bytes, escaped a byte at a time.
		for i < len(src) {
			b := src[i]
			cls := tab[b]
			if cls == clsClean {
				break
			}
			if cls == clsHigh {
				return i, d
			}
			d += escASCII(dst[d:], b, cls)
			i++
		}
	}
	return i, d
}

// mask3 returns a word whose lowest set bit lies in the first byte of w (little-endian) that
// is < 0x20, >= 0x80 or equal to a byte of s0, s1 or s2 (special bytes times lo8). Bits above
// the first flagged byte may be wrong (borrows), which is harmless because only the lowest
// one is used; below it there are none. It returns 0 when all 8 bytes are clean.
func mask3(w, s0, s1, s2 uint64) uint64 {
	// < 0x20: w - 0x20 sets bit 7 of a byte below 0x20 (and of one >= 0xA0); | w adds >= 0x80.
	// == s: the haszero trick, (x - 0x01) &^ x, on x = w ^ s.
	x0, x1, x2 := w^s0, w^s1, w^s2
	return ((w - 0x20*lo8) | w | (x0-lo8)&^x0 | (x1-lo8)&^x1 | (x2-lo8)&^x2) & hi8
}

// mask4 is the haszero test of w against four special bytes (see mask3).
func mask4(w, s0, s1, s2, s3 uint64) uint64 {
	x0, x1, x2, x3 := w^s0, w^s1, w^s2, w^s3
	return ((x0-lo8)&^x0 | (x1-lo8)&^x1 | (x2-lo8)&^x2 | (x3-lo8)&^x3) & hi8
}

// asciiSWAR is the "swar" kernel: 8 bytes a word, a fully clean word is stored as one uint64,
// the clean prefix of a dirty word with at most three stores.
func asciiSWAR(dst, src []byte, c *escCtx) (int, int) {
	s0, s1, s2 := c.sp[0], c.sp[1], c.sp[2]
	s3, s4, s5, s6 := c.sp[3], c.sp[4], c.sp[5], c.sp[6]
	few := c.few
	i, d := 0, 0
	for {
		for i+8 <= len(src) && d+8 <= len(dst) {
			w := binary.LittleEndian.Uint64(src[i : i+8])
			m := mask3(w, s0, s1, s2)
			if !few {
				m |= mask4(w, s3, s4, s5, s6)
			}
			if m == 0 {
				binary.LittleEndian.PutUint64(dst[d:d+8], w)
				i += 8
				d += 8
				continue
			}
			j := bits.TrailingZeros64(m) >> 3
			// Store the j clean bytes (0..7) of w exactly, never past them.
			o := 0
			if j&4 != 0 {
				binary.LittleEndian.PutUint32(dst[d:d+4], uint32(w))
				o = 4
			}
			if j&2 != 0 {
				binary.LittleEndian.PutUint16(dst[d+o:d+o+2], uint16(w>>(8*o)))
				o += 2
			}
			if j&1 != 0 {
				dst[d+o] = byte(w >> (8 * o))
			}
			i += j
			d += j
			b := src[i]
			cls := c.tab[b]
			if cls == clsHigh {
				return i, d
			}
			d += escASCII(dst[d:], b, cls)
			i++
			// Escapes often come in runs ("quotes", `\\`, `"/`): stay a byte at a time while
			// the next byte is a dirty ASCII byte too.
			for i < len(src) {
				b = src[i]
				cls = c.tab[b]
				if cls == clsClean || cls == clsHigh {
					break
				}
				d += escASCII(dst[d:], b, cls)
				i++
			}
		}
		// Fewer than 8 bytes left: a byte at a time.
		if i >= len(src) {
			return i, d
		}
		b := src[i]
		cls := c.tab[b]
		switch cls {
		case clsClean:
			dst[d] = b
			d++
		case clsHigh:
			return i, d
		default:
			d += escASCII(dst[d:], b, cls)
		}
		i++
	}
}
