package fast

import "github.com/difffuzz/difffuzz/jsonopt"

// Byte classes of the escape class tables (spec §1.2 step 4, §1.3), per option set.
const (
	clsClean = 0 // copied unchanged
	clsShort = 1 // two bytes: '\\' and shortEsc[c]
	clsU     = 2 // six bytes: uEsc[c] (\u00XX)
	clsHigh  = 3 // >= 0x80: the start of a UTF-8 sequence, handled outside the ASCII kernels
)

// asciiOpts are the option bits that change how an ASCII byte is escaped (spec §1.3).
const asciiOpts = jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot | jsonopt.UnescapedSlashes

// ctxIndex maps the asciiOpts bits of opts to 0..31: HexTag, HexAmp, HexApos, HexQuot are bits
// 0..3 of both, UnescapedSlashes (64) becomes bit 4.
func ctxIndex(opts jsonopt.Options) int {
	return int(opts&0xF) | int(opts&jsonopt.UnescapedSlashes)>>2
}

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
}

// ctxs holds one escCtx per combination of asciiOpts, indexed by ctxIndex.
var ctxs [32]escCtx

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
		opts := jsonopt.Options(i&0xF) | jsonopt.Options(i>>4&1)*jsonopt.UnescapedSlashes
		initCtx(&ctxs[i], opts)
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
}
