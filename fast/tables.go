package fast

import (
	"encoding/binary"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// Byte classes of the escape class tables (spec §1.2 step 4, §1.3), per option set.
const (
	clsClean = 0 // copied unchanged
	clsShort = 1 // two bytes: '\\' and shortEsc[c]
	clsU     = 2 // six bytes: uEsc[c] (\u00XX)
	clsHigh  = 3 // >= 0x80: the start of a UTF-8 sequence, handled outside the ASCII kernels
)

// Bits of shortClass: why a byte may need more than a copy. A string of bytes whose classes
// OR to nothing in shortDirty(opts) is copied unchanged under opts.
const (
	scAlways = 1 << iota // 0x00..0x1F, '"', '\\': escaped under every option set
	scHigh               // >= 0x80: the start of a UTF-8 sequence
	scSlash              // '/': escaped unless UNESCAPED_SLASHES
	scTag                // '<', '>': escaped under HEX_TAG (HexTag << 3)
	scAmp                // '&': escaped under HEX_AMP (HexAmp << 3)
	scApos               // '\'': escaped under HEX_APOS (HexApos << 3)
)

// shortClass is one 256-byte table for all option sets (it stays in the L1 cache where the
// 128 per-option-set tables of ctxs need not), used by escapeShort's clean test.
var shortClass = func() (t [256]uint8) {
	for b := 0; b < 256; b++ {
		switch {
		case b < 0x20 || b == '"' || b == '\\':
			t[b] = scAlways
		case b >= 0x80:
			t[b] = scHigh
		case b == '/':
			t[b] = scSlash
		case b == '<' || b == '>':
			t[b] = scTag
		case b == '&':
			t[b] = scAmp
		case b == '\'':
			t[b] = scApos
		}
	}
	return t
}()

// shortDirty is the shortClass bits that need more than a copy under opts.
func shortDirty(opts jsonopt.Options) uint8 {
	m := scAlways | scHigh | uint8(opts&(jsonopt.HexTag|jsonopt.HexAmp|jsonopt.HexApos))<<3
	if opts&jsonopt.UnescapedSlashes == 0 {
		m |= scSlash
	}
	return m
}

// asciiOpts are the option bits that change how an ASCII byte is escaped (spec §1.3).
const asciiOpts = jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot | jsonopt.UnescapedSlashes

// ctxIndex maps the asciiOpts bits of opts, UNESCAPED_UNICODE and UNESCAPED_LINE_TERMINATORS to
// 0..127: the asciiOpts bits stay where they are (HexTag, HexAmp, HexApos, HexQuot are bits
// 0..3, UnescapedSlashes bit 6), UnescapedLineTerminators (2048) becomes bit 4 and
// UnescapedUnicode (256) bit 5, the two bits the asciiOpts leave free. Every entry (Escape,
// escapeVariant) computes it, so it is kept to two moved bits: ten instructions, where moving
// UnescapedSlashes too took fourteen. The contexts of ASCII input (asciiCtx) are the indexes
// with bits 4 and 5 clear.
func ctxIndex(opts jsonopt.Options) int {
	return int(opts&asciiOpts) | int(opts>>3)&0x20 | int(opts>>7)&0x10
}

// asciiCtx is the index in ctxs of the context of option set i without UNESCAPED_UNICODE and
// UNESCAPED_LINE_TERMINATORS.
func asciiCtx(i int) int { return i &^ 0x30 }

// ctxOpts is the inverse of ctxIndex: the option bits an escCtx index stands for.
func ctxOpts(i int) jsonopt.Options {
	return jsonopt.Options(i)&asciiOpts | jsonopt.Options(i>>5&1)*jsonopt.UnescapedUnicode |
		jsonopt.Options(i>>4&1)*jsonopt.UnescapedLineTerminators
}

// ktWords is the size of escCtx.kt in 8-byte words; the layout is fixed by the assembly
// generator (fast/_asm): bytes 0..31 the VPSHUFB table, bytes 32..143 the special bytes,
// bytes 144..159 '<' under HEX_TAG, bytes 160..191 the escape classes by low nibble, bytes
// 192..223 the two-byte escape classes by low nibble, byte 224 the HEX_ escape flag, byte 225
// nsp, bytes 232..359 the avx512 dense loop's VPERMI2B table (by ASCII byte: 0 when clean, the
// letter of a two-byte escape, 0x80 for a \u00XX one), bytes 360..423 padding (escCtx is 768
// bytes, 3*256).
const ktWords = 53

// escCtx is everything an ASCII kernel needs for one option set: the class of each byte and,
// for the word-at-a-time kernel, the special bytes to look for broadcast to every byte of a
// word.
type escCtx struct {
	tab [256]uint8 // clsClean, clsShort, clsU or clsHigh for each byte value

	// few is true when the dirty ASCII set is only controls, '"', '\\' and possibly '/' (no
	// HEX_TAG, HEX_AMP or HEX_APOS): the SWAR kernel then tests 3 special bytes, else 7.
	few bool
	// sp are the special bytes times lo8: sp[0] '"', sp[1] '\\', sp[2] '/' (or '"' again
	// under UNESCAPED_SLASHES), sp[3..6] '<' '>' '&' '\'' when their HEX option is set (else
	// '"' again, so that an unused slot never matches anything new).
	sp [7]uint64

	// The rest serves the vector kernels (the assembly ones read kt and esc).

	// uu and lt are UNESCAPED_UNICODE and UNESCAPED_LINE_TERMINATORS: a kernel that copies
	// valid multi-byte sequences (uuKernels) does so only when uu is set, and stops at
	// U+2028/U+2029 unless lt is set too.
	uu, lt bool
	// tag is HEX_TAG: '<' and '>' are escaped ('<' shares its low nibble with '\').
	tag bool
	// ascii is the index in ctxs of the context of the same asciiOpts bits without
	// UNESCAPED_UNICODE and UNESCAPED_LINE_TERMINATORS (asciiCtx), which change
	// nothing for ASCII input: escapeLong switches to it for a string it found ASCII.
	// Everything but uu, lt and kt's bytes 160..191 is the same in both. (An index, not a
	// pointer: it fits in the padding after tag, and escCtx stays 768 bytes, 3*256, so that
	// &ctxs[i] is a LEA and a shift, not a multiplication.)
	ascii uint8
	// nsp is the number of escaped special bytes (2..7: '"', '\', then '/' unless
	// UNESCAPED_SLASHES, '<' and '>' with HEX_TAG, '&' with HEX_AMP, '\'' with HEX_APOS), the
	// first nsp 16-byte groups of kt from byte 32 on.
	nsp int
	// kt is the kernel table. Bytes 0..31: a VPSHUFB/TBL table indexed by a byte's low nibble
	// giving the escaped special byte with that low nibble, or 0xFF (never equal to an ASCII
	// byte); '\' wins nibble 0xC over '<' (see tag). Both 16-byte halves are the same.
	// Bytes 32..143: the nsp escaped special bytes in the order above, each repeated 16 times,
	// then 0xFF (never equal to an ASCII byte) up to 7 groups. Bytes 144..159: '<' repeated
	// under HEX_TAG, else 0xFF. Bytes 160..191 (both halves the same): the escape classes by
	// low nibble l, bit 0 always (controls), bits 1, 2, 3 when 0x20|l, 0x30|l, 0x50|l is an
	// escaped special byte, and without UNESCAPED_LINE_TERMINATORS bit 4 for l = 2 (0xE2, the
	// lead of U+2028/U+2029, sends a block to the exact test) and bit 5 for l = 8 and 9 (0xA8
	// and 0xA9, their last byte, which escapeUUAVX512 tests with the byte two back); the amd64
	// UNESCAPED_UNICODE kernels AND them with fixed classes by high nibble. Bytes 192..223
	// (both halves the same): the two-byte escape classes by low nibble l, bits 0, 1, 2 when l, 0x20|l, 0x50|l
	// takes a two-byte escape (\" \\ \/ \b \f \n \r \t); the amd64 AVX2 kernels AND them
	// with fixed classes by high nibble (0, 2, 5) to find blocks they expand in registers.
	// Byte 224: 1 when a byte >= 0x20 takes a \u00XX escape (HEX_TAG, HEX_AMP, HEX_APOS or
	// HEX_QUOT), else 0; byte 225: nsp (for clean16's SSE2 path); bytes 226..231 are 0.
	// Bytes 232..359: the avx512 dense loop's VPERMI2B table by ASCII byte b: 0 when b is
	// clean, shortEsc[b] when it takes a two-byte escape, 0x80 for a \u00XX escape. Bytes
	// 360..423 are 0 (padding).
	kt [ktWords]uint64
	// esc is the escape table of the option set: esc[b] holds the escape of the ASCII byte b
	// (2 or 6 bytes, little-endian from bit 0) and its length in bits 56..63; 0 for a byte
	// that is not escaped.
	esc *[128]uint64
}

// ctxs holds one escCtx per combination of asciiOpts, UNESCAPED_UNICODE and
// UNESCAPED_LINE_TERMINATORS, indexed by ctxIndex.
var ctxs [128]escCtx

// escTabs are the escape tables (escCtx.esc), one per combination of asciiOpts.
var escTabs [32][128]uint64

// shortEsc is the second byte of the two-byte escapes (spec §1.3): \b \t \n \f \r \" \\ \/.
var shortEsc [128]byte

// uEsc is the 6-byte escape \u00XX of each ASCII byte, little-endian in the low 48 bits, with
// lower-case hex digits except for the HEX_TAG literals \u003C and \u003E (spec §1.3 hex case).
var uEsc [128]uint64

// hex2 is the two lower-case hex digits of a byte, little-endian ("e9" is 'e' | '9'<<8), for
// computed \uXXXX escapes (spec §1.3 hex case, §1.4).
var hex2 [256]uint16

const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

func init() {
	const lower = "0123456789abcdef"
	for i := range hex2 {
		hex2[i] = uint16(lower[i>>4]) | uint16(lower[i&15])<<8
	}
	for c := 0; c < 128; c++ {
		h := hex2[c]
		if c == '<' || c == '>' {
			h = uint16('3') | uint16(c-'<'+'C')<<8 // \u003C, \u003E: upper-case literals
		}
		uEsc[c] = uint64('\\') | uint64('u')<<8 | uint64('0')<<16 | uint64('0')<<24 | uint64(h)<<32
	}
	for c, e := range map[byte]byte{'\b': 'b', '\t': 't', '\n': 'n', '\f': 'f', '\r': 'r', '"': '"', '\\': '\\', '/': '/'} {
		shortEsc[c] = e
	}
	for i := range ctxs {
		initCtx(&ctxs[i], ctxOpts(i))
		ctxs[i].ascii = uint8(asciiCtx(i))
	}
}

// permTable writes the avx512 dense loop's VPERMI2B table (escCtx.kt bytes 232..359) into t
// from the classes tab: by ASCII byte, 0 when clean, shortEsc[b] for a two-byte escape, 0x80
// for a \u00XX one.
func permTable(t []byte, tab *[256]uint8) {
	for b := range 0x80 {
		switch tab[b] {
		case clsShort:
			t[b] = shortEsc[b]
		case clsU:
			t[b] = 0x80
		default:
			t[b] = 0
		}
	}
}

// initCtx fills c for the option set opts (only its asciiOpts bits matter), following the
// table of spec §1.3.
func initCtx(c *escCtx, opts jsonopt.Options) {
	for b := 0; b < 256; b++ {
		var k uint8
		switch {
		case b >= 0x80:
			k = clsHigh
		case b == '\b' || b == '\t' || b == '\n' || b == '\f' || b == '\r':
			k = clsShort
		case b < 0x20:
			k = clsU
		case b == '"' && opts&jsonopt.HexQuot != 0:
			k = clsU
		case b == '"' || b == '\\':
			k = clsShort
		case b == '/' && opts&jsonopt.UnescapedSlashes == 0:
			k = clsShort
		case (b == '<' || b == '>') && opts&jsonopt.HexTag != 0:
			k = clsU
		case b == '&' && opts&jsonopt.HexAmp != 0:
			k = clsU
		case b == '\'' && opts&jsonopt.HexApos != 0:
			k = clsU
		}
		c.tab[b] = k
	}
	sp := [7]byte{'"', '\\', '/', '<', '>', '&', '\''}
	if opts&jsonopt.UnescapedSlashes != 0 {
		sp[2] = '"'
	}
	if opts&jsonopt.HexTag == 0 {
		sp[3], sp[4] = '"', '"'
	}
	if opts&jsonopt.HexAmp == 0 {
		sp[5] = '"'
	}
	if opts&jsonopt.HexApos == 0 {
		sp[6] = '"'
	}
	c.few = opts&(jsonopt.HexTag|jsonopt.HexAmp|jsonopt.HexApos) == 0
	for i, b := range sp {
		c.sp[i] = uint64(b) * lo8
	}

	// Vector kernels.
	c.uu = opts&jsonopt.UnescapedUnicode != 0
	c.lt = opts&jsonopt.UnescapedLineTerminators != 0
	c.tag = opts&jsonopt.HexTag != 0
	var kt [8 * ktWords]byte
	for i := range kt {
		kt[i] = 0xFF
	}
	c.nsp = 0
	for b := 0x20; b < 0x80; b++ {
		if c.tab[b] == clsClean {
			continue
		}
		if b != '<' {
			kt[b&15], kt[16+b&15] = byte(b), byte(b)
		}
	}
	for _, b := range []byte{'"', '\\', '/', '<', '>', '&', '\''} {
		if c.tab[b] != clsClean {
			for j := 0; j < 16; j++ {
				kt[32+16*c.nsp+j] = b
			}
			c.nsp++
		}
	}
	if c.tag {
		for j := 0; j < 16; j++ {
			kt[144+j] = '<'
		}
	}
	for l := 0; l < 16; l++ {
		e := byte(1)
		for bit, hi := range []int{0x20, 0x30, 0x50} {
			if c.tab[hi|l] != clsClean {
				e |= 2 << bit
			}
		}
		if l == 2 && !c.lt {
			e |= 0x10
		}
		if (l == 8 || l == 9) && !c.lt {
			e |= 0x20
		}
		kt[160+l], kt[176+l] = e, e
		s := byte(0)
		for bit, hi := range []int{0x00, 0x20, 0x50} {
			if c.tab[hi|l] == clsShort {
				s |= 1 << bit
			}
		}
		kt[192+l], kt[208+l] = s, s
	}
	kt[224] = 0
	for b := 0x20; b < 0x80; b++ {
		if c.tab[b] == clsU {
			kt[224] = 1
		}
	}
	kt[225] = byte(c.nsp)
	for i := 226; i < len(kt); i++ {
		kt[i] = 0
	}
	permTable(kt[232:360], &c.tab)
	for i := range c.kt {
		c.kt[i] = binary.LittleEndian.Uint64(kt[8*i:])
	}
	e := &escTabs[int(opts&0xF)|int(opts&jsonopt.UnescapedSlashes)>>2]
	for b := 0; b < 0x80; b++ {
		switch c.tab[b] {
		case clsShort:
			e[b] = uint64('\\') | uint64(shortEsc[b])<<8 | 2<<56
		case clsU:
			e[b] = uEsc[b] | 6<<56
		default:
			e[b] = 0
		}
	}
	c.esc = e
}
