package fast

import (
	"encoding/binary"
	"math/bits"
	"sync"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// block is the most input the escaper handles between two capacity checks: before each
// block it reserves the block's worst-case output (6 bytes per input byte, plus slack for a
// last character running past the block and the closing quote).
const block = 16 << 10

// smallRest is the longest non-ASCII remainder that escapeLong validates with validFrom before
// writing into the caller's spare capacity; a longer one is escaped into a scratch buffer
// instead, unless validRest's other case holds (checkPays, and kernel k has a vector check
// that proves it valid).
const smallRest = 64

// validMin is the shortest non-ASCII remainder that escapeLong proves valid with the kernel's
// vector check (archValid) before writing into the caller's spare capacity, rather than
// escaping it into a scratch buffer and copying that, unless it starts with 4-byte sequences
// (see checkPays). Below it the copy and the pool cost less than the check (BenchmarkScratch).
const validMin = 16 << 10

// validRest reports whether escapeLong may write the escape of src, whose bytes before p are
// ASCII, into the caller's spare capacity: src[p:] is short and validFrom accepts it, or long,
// escaped without UNESCAPED_UNICODE, checkPays holds, and kernel k's vector check proves it
// valid. Not valid sends it to the scratch buffer, or, when known (the verdict is validFrom's,
// not "not checked"), fails it in error mode.
func validRest(k int, src []byte, p int, opts jsonopt.Options) (valid, known bool) {
	if len(src)-p <= smallRest {
		return validFrom(src, p), true
	}
	if opts&jsonopt.UnescapedUnicode != 0 || !checkPays(src[p:]) {
		return false, false
	}
	return archValid(k, src[p:])
}

// checkPays reports whether proving s (more than smallRest bytes from a byte >= 0x80) valid
// before escaping it in place costs less than escaping it into the scratch buffer and copying
// that (BenchmarkScratch, its ways scratch and check; the measurements are in
// docs/performance.md, "Memory"):
//   - validMin bytes or more, mostly multi-byte (mostlyMB): text whose escape is two to three
//     times as long as itself, where the copy costs more than the check (not text with an é
//     every few dozen bytes, hardly longer, hence "mostly");
//   - 256 bytes or more that start with a 4-byte sequence and have at least 8 bytes >= 0xF0
//     among their first 64 (emoji): the kernel validates such windows itself, which its form
//     for valid input skips. The test of s[0] keeps other text from paying for the count.
//
// Under UNESCAPED_UNICODE, where the output is the input, the check always costs more.
func checkPays(s []byte) bool {
	if len(s) >= validMin {
		return mostlyMB(s)
	}
	if len(s) < 256 || s[0] < 0xF0 {
		return false
	}
	four := 0
	for i := 0; i < 64; i += 8 {
		w := binary.LittleEndian.Uint64(s[i:])
		// Bit 7 of each byte of w & w<<1 & w<<2 & w<<3 is the AND of the byte's bits 7 to 4.
		four += bits.OnesCount64(w & (w << 1) & (w << 2) & (w << 3) & hi8)
	}
	return four >= 8
}

// mostlyMB reports whether at least half of the first 256 bytes of s (validMin bytes or more)
// are >= 0x80.
func mostlyMB(s []byte) bool {
	n := 0
	for i := 0; i < 256; i += 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(s[i:]) & hi8)
	}
	return n >= 128
}

// scratch holds buffers for escapeScratch.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// ShortLen is the length below which every variant runs the same code: for len(src) <
// ShortLen, each variant's Escape is ShortEscape and its UTF8Decode is ShortUTF8Decode (each
// variant's function begins by calling them), and NextChar is one function for all. A harness
// may therefore check short inputs once for all variants (package fuzz's exhaustive spaces
// do).
const ShortLen = 16

// ShortEscape is the code every variant's Escape runs for src shorter than ShortLen bytes
// (Escape's contract). Longer input goes to the generic variant.
func ShortEscape(dst, src []byte, opts jsonopt.Options) ([]byte, error) {
	c := &ctxs[ctxIndex(opts)]
	if len(src) >= ShortLen {
		return escapeLong(dst, src, opts, c, kernelGeneric)
	}
	return escapeShort(dst, src, opts, c)
}

// ShortUTF8Decode is the code every variant's UTF8Decode runs for src shorter than ShortLen
// bytes (UTF8Decode's contract): utf8Decode finding ASCII runs a byte at a time, which is
// the generic variant for any length.
func ShortUTF8Decode(dst, src []byte) []byte { return utf8Decode(dst, src, false) }

// escapeVariant returns Escape with the clean-run/ASCII-escape kernel k (spec §1.2): the
// Escape of every registered variant, which differ only in k (archClean16, runKernel and
// archKernel are the seams that pick the code for it). It is a closure rather than a function
// that takes k so that a variant's Escape, called through Variant.Escape, makes no call of
// its own before the work (k comes from the closure); Escape (fast.go) is its body with
// defaultKernel.
//
// 16 to 31 bytes are tried first when k is a per-architecture kernel: the clean ones, stored
// with the architecture's two overlapping 16-byte blocks (archClean16), are the strings where
// a call is most of the cost, and a first byte >= 0x80 rules them out at once (cleanStart).
// Strings under ShortLen bytes go to escapeShort, the same code for every kernel; the rest to
// escapeLong.
//
// The escape context of opts, c = &ctxs[ctxIndex(opts)], is computed once, at the entry (the
// variants' Escape, Escape and ShortEscape), and passed down with opts: every function below
// takes the c of its opts (escapeLong switches to &ctxs[c.ascii] where it clears
// UNESCAPED_UNICODE and UNESCAPED_LINE_TERMINATORS for ASCII input).
//
// It must not be inlined: the copy of the closure that inlining it into an init function
// makes is compiled without inlining ctxIndex, cleanStart and archClean16 into it (Go 1.26,
// go build -gcflags=-S), three calls more on the path of a clean 16-byte string.
//
//go:noinline
func escapeVariant(k int) func(dst, src []byte, opts jsonopt.Options) ([]byte, error) {
	return func(dst, src []byte, opts jsonopt.Options) ([]byte, error) {
		c := &ctxs[ctxIndex(opts)]
		n, s := len(src), len(dst)
		if uint(n-16) < 16 && k >= kernelArch {
			if cleanStart(src[0], opts) && cap(dst)-s >= n+2 && archClean16(k, dst[s:s+n+2], src, c) {
				return dst[:s+n+2], nil
			}
			return escapeMid(dst, src, opts, c, k) // not clean: no second attempt
		}
		if n < ShortLen {
			return escapeShort(dst, src, opts, c)
		}
		return escapeLong(dst, src, opts, c, k)
	}
}

// escapeShort is Escape for src shorter than ShortLen bytes, for every kernel: no kernel call
// and no block loop. Clean strings are tested with a table lookup per byte (under 8 bytes) or
// as two overlapping 8-byte words with the swar kernel's masks, and stored back with their
// quotes when dst has room; anything else goes to escapeSmall.
func escapeShort(dst, src []byte, opts jsonopt.Options, c *escCtx) ([]byte, error) {
	if opts&jsonopt.NumericCheck != 0 {
		// §1.2 step 2: a numeric string is the number; any other goes on as a string. The
		// first and last bytes turn most strings away before any call.
		if len(src) > 0 && mayBeNumber(src) {
			if out, ok := appendNumber(dst, src, opts); ok {
				return out, nil
			}
		}
		opts &^= jsonopt.NumericCheck
	}
	n, s := len(src), len(dst)
	if n < 8 {
		// Under 8 bytes: one load per byte from shortClass, a single table for every
		// option set.
		var acc uint8
		for _, b := range src {
			acc |= shortClass[b]
		}
		if acc&shortDirty(opts) == 0 && cap(dst)-s >= n+2 {
			dst = dst[:s+n+2]
			dst[s] = '"'
			copy(dst[s+1:], src)
			dst[s+n+1] = '"'
			return dst, nil
		}
		if acc&scHigh == 0 {
			// ASCII cannot be invalid: escape in place.
			out, d := reserve(dst, s, 6*n+17)
			d, _ = escapeSmall(out, d, src, opts, c)
			return out[:d], nil
		}
	} else if opts&(jsonopt.HexTag|jsonopt.HexAmp|jsonopt.HexApos) == 0 {
		// 8 to 15 bytes with at most three special bytes escaped (no HEX_TAG, HEX_AMP or
		// HEX_APOS), the common case, tested here without any call, with few values live
		// at once.
		w0 := binary.LittleEndian.Uint64(src)
		w1 := binary.LittleEndian.Uint64(src[n-8:])
		m := (w0 - 0x20*lo8) | w0 | (w1 - 0x20*lo8) | w1
		sp := c.sp[0]
		x, y := w0^sp, w1^sp
		m |= (x-lo8)&^x | (y-lo8)&^y
		sp = c.sp[1]
		x, y = w0^sp, w1^sp
		m |= (x-lo8)&^x | (y-lo8)&^y
		sp = c.sp[2]
		x, y = w0^sp, w1^sp
		m |= (x-lo8)&^x | (y-lo8)&^y
		if m&hi8 == 0 && cap(dst)-s >= n+2 {
			dst = dst[:s+n+2]
			dst[s] = '"'
			binary.LittleEndian.PutUint64(dst[s+1:], w0)
			binary.LittleEndian.PutUint64(dst[s+n-7:], w1)
			dst[s+n+1] = '"'
			return dst, nil
		}
	} else if out, ok := appendSmallClean(dst, src, c); ok {
		return out, nil
	}
	return escapeSmallDirty(dst, src, opts, c)
}

// escapeSmall writes the quoted escape of src (at most smallInput bytes) into out from d on
// (out has room for 6*len(src)+17 bytes after d) a byte or character at a time, with the same
// rules as escapeBody, and returns the end of the output and false if src is invalid in error
// mode (§1.5).
//
// Where the linker puts it matters: at an address 32 bytes past a multiple of 64 (Go 1.26,
// AMD Zen 4) 16-byte strings with escapes ran 12 % faster than at a multiple of 64, with
// no change of its own. It stands before escapeSmallDirty, so that only the functions
// before it move it.
func escapeSmall(out []byte, d int, src []byte, opts jsonopt.Options, c *escCtx) (int, bool) {
	uu := opts&jsonopt.UnescapedUnicode != 0
	out[d] = '"'
	d++
	for i := 0; i < len(src); {
		b := src[i]
		if b < 0x80 {
			switch cls := c.tab[b]; cls {
			case clsClean:
				out[d] = b
				d++
			default:
				d += escASCII(out[d:], b, cls)
			}
			i++
			continue
		}
		var cp uint32
		w := 0
		switch {
		case b < 0xC2:
		case b < 0xE0:
			if i+1 < len(src) && src[i+1]&0xC0 == 0x80 {
				cp, w = uint32(b&0x1F)<<6|uint32(src[i+1]&0x3F), 2
			}
		case b < 0xF0:
			if i+2 < len(src) {
				b1, b2 := src[i+1], src[i+2]
				cp = uint32(b&0x0F)<<12 | uint32(b1&0x3F)<<6 | uint32(b2&0x3F)
				if b1&0xC0 == 0x80 && b2&0xC0 == 0x80 && cp >= 0x800 && cp&0xF800 != 0xD800 {
					w = 3
				}
			}
		case b < 0xF5:
			if i+3 < len(src) {
				b1, b2, b3 := src[i+1], src[i+2], src[i+3]
				cp = uint32(b&0x07)<<18 | uint32(b1&0x3F)<<12 | uint32(b2&0x3F)<<6 | uint32(b3&0x3F)
				if b1&0xC0 == 0x80 && b2&0xC0 == 0x80 && b3&0xC0 == 0x80 && cp-0x10000 <= 0x10FFFF-0x10000 {
					w = 4
				}
			}
		}
		if w == 0 {
			st := nextCharSlow(src, i)
			i += st.Advance
			switch {
			case st.OK: // never: valid sequences are decoded above
				i -= st.Advance
				cp, w = st.CP, st.Advance
			case opts&jsonopt.InvalidUTF8Ignore != 0: // IGNORE beats SUBSTITUTE
				continue
			case opts&jsonopt.InvalidUTF8Substitute != 0 && uu:
				out[d], out[d+1], out[d+2] = 0xEF, 0xBF, 0xBD
				d += 3
				continue
			case opts&jsonopt.InvalidUTF8Substitute != 0:
				putU(out[d:], 0xFFFD)
				d += 6
				continue
			default:
				return d, false
			}
		}
		switch {
		case uu && (cp&^1 != 0x2028 || opts&jsonopt.UnescapedLineTerminators != 0):
			// The w bytes of the character, without a call to memmove.
			o := out[d : d+4]
			o[0], o[1] = src[i], src[i+1]
			if w > 2 {
				o[2] = src[i+2]
				if w > 3 {
					o[3] = src[i+3]
				}
			}
			d += w
		case cp < 0x10000:
			putU(out[d:], cp)
			d += 6
		default:
			putPair(out[d:], cp)
			d += 12
		}
		i += w
	}
	out[d] = '"'
	return d + 1, true
}

// escapeSmallDirty escapes src (at most smallInput bytes) that may need escapes, with
// escapeSmall (non-ASCII input of smallInput bytes went to a one-window kernel first, where
// there is one: escapeMid). Invalid input must leave dst's spare capacity untouched in error
// mode (§1.5), so non-ASCII input in error mode is either validated first (under 8 bytes,
// where that is cheapest and an invalid string costs no escaping) or escaped into a stack
// buffer and copied on success (8 to 16 bytes: one decode instead of two).
func escapeSmallDirty(dst, src []byte, opts jsonopt.Options, c *escCtx) ([]byte, error) {
	if !isASCII(src) {
		if opts&(jsonopt.InvalidUTF8Ignore|jsonopt.InvalidUTF8Substitute) == 0 {
			if len(src) < 8 {
				if !validFrom(src, 0) {
					return failUTF8(dst, opts)
				}
			} else {
				var tmp [6*smallInput + 2]byte
				m, ok := escapeSmall(tmp[:], 0, src, opts, c)
				if !ok {
					return failUTF8(dst, opts)
				}
				return append(dst, tmp[:m]...), nil
			}
		}
	}
	out, d := reserve(dst, len(dst), 6*len(src)+17)
	d, _ = escapeSmall(out, d, src, opts, c) // valid, or IGNORE/SUBSTITUTE: cannot fail
	return out[:d], nil
}

// appendSmallClean appends '"', src and '"' to dst and returns true when src (1 to 16 bytes)
// holds only ASCII bytes that c leaves unescaped and dst has room; otherwise it returns
// false and writes nothing. It reads src as at most two overlapping 8-byte words (two 4-byte
// halves, or three bytes, when shorter) and tests them with the swar kernel's masks.
func appendSmallClean(dst, src []byte, c *escCtx) ([]byte, bool) {
	var w0, w1 uint64
	n := len(src)
	switch {
	case n >= 8:
		w0 = binary.LittleEndian.Uint64(src)
		w1 = binary.LittleEndian.Uint64(src[n-8:])
	case n >= 4:
		w0 = uint64(binary.LittleEndian.Uint32(src)) | uint64(binary.LittleEndian.Uint32(src[n-4:]))<<32
		w1 = w0
	default: // 1..3: bytes 0, n/2 and n-1 cover them all; spaces are clean
		w0 = uint64(src[0]) | uint64(src[n/2])<<8 | uint64(src[n-1])<<16 | 0x2020202020<<24
		w1 = w0
	}
	m := mask3(w0, c.sp[0], c.sp[1], c.sp[2]) | mask3(w1, c.sp[0], c.sp[1], c.sp[2])
	if !c.few {
		m |= mask4(w0, c.sp[3], c.sp[4], c.sp[5], c.sp[6]) | mask4(w1, c.sp[3], c.sp[4], c.sp[5], c.sp[6])
	}
	s := len(dst)
	if m != 0 || cap(dst)-s < n+2 {
		return dst, false
	}
	dst = dst[:s+n+2]
	dst[s] = '"'
	switch {
	case n >= 8:
		binary.LittleEndian.PutUint64(dst[s+1:], w0)
		binary.LittleEndian.PutUint64(dst[s+n-7:], w1)
	case n >= 4:
		binary.LittleEndian.PutUint32(dst[s+1:], uint32(w0))
		binary.LittleEndian.PutUint32(dst[s+n-3:], uint32(w0>>32))
	default:
		dst[s+1], dst[s+1+n/2], dst[s+n] = src[0], src[n/2], src[n-1]
	}
	dst[s+n+1] = '"'
	return dst, true
}

// escapeLong is Escape for everything but short clean strings.
//
// When the output would go into the caller's spare capacity, which an invalid string must
// leave untouched (§1.5: nothing appended; nothing written past the returned length), only a
// non-ASCII remainder needs care (ASCII is always valid). A string of at most shortMBMax
// bytes goes to the one-window kernel first where there is one (appendShortMB: it checks the
// whole string before it writes); a short remainder is otherwise validated first
// (validFrom), and so is a long one where the kernel has a vector check; the rest is escaped
// into a scratch buffer and copied on success, which costs less than validFrom
// (BenchmarkScratch: at 4 KiB the copy and the pool cost 5-13 % of the escape, validFrom 2-4
// times the escape). An invalid one found so fails at once in error mode; one proven valid
// goes to the kernels with valid set.
func escapeLong(dst, src []byte, opts jsonopt.Options, c *escCtx, k int) ([]byte, error) {
	if opts&jsonopt.NumericCheck != 0 {
		// §1.2 step 2: a numeric string is the number; any other goes on as a string. The
		// first and last bytes turn most strings away before any call.
		if len(src) > 0 && mayBeNumber(src) {
			if out, ok := appendNumber(dst, src, opts); ok {
				return out, nil
			}
		}
		opts &^= jsonopt.NumericCheck
	}
	n := len(src)
	if n <= smallInput {
		// 16 bytes (shorter strings never get here). The callers with a kernel k >=
		// kernelArch tried archClean16 already, unless the first byte may start a number
		// and NUMERIC_CHECK kept them from it (cleanStart): a second test would fail as the
		// first did.
		if k < kernelArch || startClass[src[0]]&uint8(jsonopt.NumericCheck) != 0 {
			if out, ok := appendSmallClean(dst, src, c); ok {
				return out, nil
			}
		}
		return escapeSmallDirty(dst, src, opts, c)
	}
	start := len(dst)
	// One reservation covers clean input of any length: n bytes, plus the worst case of one
	// block beyond that (and of the 64 bytes past it that a uuKernels kernel is given when
	// there is more than one block; see the per-block check in escapeBody), plus the quotes
	// and slack.
	bl := n
	if bl > block {
		bl = block + 64
	}
	need := n + 5*bl + 17
	errMode := opts&(jsonopt.InvalidUTF8Ignore|jsonopt.InvalidUTF8Substitute) == 0
	valid := false
	// The vector kernels' block stores run ahead of their output (runKernel): that is safe
	// only while the escape of the rest of the input is at least as long as the rest, which
	// invalid input breaks under IGNORE, and under SUBSTITUTE with UNESCAPED_UNICODE.
	shrinks := k >= kernelArch && (opts&jsonopt.InvalidUTF8Ignore != 0 ||
		opts&(jsonopt.InvalidUTF8Substitute|jsonopt.UnescapedUnicode) == jsonopt.InvalidUTF8Substitute|jsonopt.UnescapedUnicode)
	if (errMode || shrinks) && cap(dst)-start >= need {
		// The output would go into the caller's spare capacity (see above).
		if p, noCtl := asciiPrefix(k, src); p < n {
			if n <= shortMBMax && n >= 32 && shortMBKernel(k) && !c.uu {
				// One window: the kernel checks it before it writes anything (shorter
				// strings got to it first: escapeMid).
				if out, ok := appendShortMB(dst, src, c, k); ok {
					return out, nil
				}
			}
			var known bool
			if valid, known = validRest(k, src, p, opts); !valid {
				if errMode && known {
					return failUTF8(dst, opts)
				}
				return escapeScratch(dst, src, opts, c, k, need)
			}
		} else {
			// ASCII: UNESCAPED_UNICODE and UNESCAPED_LINE_TERMINATORS change nothing, and
			// without them the kernels need not look for multi-byte sequences.
			opts &^= jsonopt.UnescapedUnicode | jsonopt.UnescapedLineTerminators
			c = &ctxs[c.ascii]
			if k >= kernelArch {
				// One kernel call per chunk does it all: an ASCII string never stops the
				// kernel (archEscapeASCII finishes the last bytes itself) and cannot fail,
				// so output may go wherever reserve puts it.
				out := dst[:cap(dst)]
				out[start] = '"' // §1.2 step 3
				d := start + 1
				for i := 0; i < n; {
					e := min(n, i+block)
					if len(out)-d < 6*(e-i)+16 {
						out, d = reserve(out, d, 6*(e-i)+16)
					}
					d += archEscapeASCII(k, out[d:], src[i:e], c, noCtl)
					i = e
				}
				out[d] = '"' // §1.2 step 8
				return out[:d+1], nil
			}
		}
	}
	out, d := reserve(dst, start, need)
	out, d, ok := escapeBody(out, d, src, opts, c, k, valid)
	if !ok {
		return failUTF8(dst, opts)
	}
	return out[:d], nil
}

// escapeMid is escapeLong for the 16- to 31-byte strings that the clean path (archClean16)
// did not take, with a kernel k >= kernelArch. One with a byte >= 0x80 goes first to k's
// one-window kernel (appendShortMB, which checks all of it before it writes), when k has one
// and the option set has no UNESCAPED_UNICODE. A 16-byte string that is left goes to
// escapeSmallDirty, as escapeLong would send it (NUMERIC_CHECK changes nothing for one with a
// byte >= 0x80, a numeric string being ASCII: spec §1.7); anything else to escapeLong, which
// does not try the kernel again.
func escapeMid(dst, src []byte, opts jsonopt.Options, c *escCtx, k int) ([]byte, error) {
	high := hasHigh(src)
	if high && shortMBKernel(k) && !c.uu {
		if out, ok := appendShortMB(dst, src, c, k); ok {
			return out, nil
		}
	}
	if len(src) == smallInput && (high || opts&jsonopt.NumericCheck == 0) {
		return escapeSmallDirty(dst, src, opts, c)
	}
	return escapeLong(dst, src, opts, c, k)
}

// hasHigh reports whether s (16 to 31 bytes) has a byte >= 0x80: four overlapping words.
func hasHigh(s []byte) bool {
	n := len(s)
	w := binary.LittleEndian.Uint64(s) | binary.LittleEndian.Uint64(s[8:]) |
		binary.LittleEndian.Uint64(s[n-16:]) | binary.LittleEndian.Uint64(s[n-8:])
	return w&hi8 != 0
}

// smallInput is the longest input escaped without a kernel: by the inline path when clean,
// else by escapeSmall, a single loop without kernel calls or blocks, whose fixed cost is
// lower. Every variant does so: at most one 16-byte vector, too short for a kernel to pay off.
const smallInput = 16

// appendShortMB appends the quoted escape of src (at most shortMBMax bytes) to dst with
// archShortMB (one window of the avx512 kernel, which checks the whole of src, and that its
// escape fits in dst's spare capacity, before it writes), and reports whether it did;
// otherwise it writes nothing.
func appendShortMB(dst, src []byte, c *escCtx, k int) ([]byte, bool) {
	s := len(dst)
	if cap(dst)-s < len(src)+2 {
		return dst, false
	}
	out := dst[:cap(dst)]
	d := archShortMB(k, out[s+1:len(out)-1], src, c)
	if d < 0 {
		return dst, false
	}
	out[s] = '"'     // §1.2 step 3
	out[s+1+d] = '"' // §1.2 step 8
	return out[:s+d+2], true
}

// isASCII reports whether s (at most 16 bytes) has no byte >= 0x80.
func isASCII(s []byte) bool {
	var w uint64
	switch n := len(s); {
	case n >= 8:
		w = binary.LittleEndian.Uint64(s) | binary.LittleEndian.Uint64(s[n-8:])
	case n >= 4:
		w = uint64(binary.LittleEndian.Uint32(s) | binary.LittleEndian.Uint32(s[n-4:]))
	default:
		for _, b := range s {
			w |= uint64(b)
		}
	}
	return w&hi8 == 0
}

// escapeScratch is escapeLong writing into a pooled scratch buffer with at least need bytes of
// room, then appending the result to dst: dst's spare capacity is written only on success.
func escapeScratch(dst, src []byte, opts jsonopt.Options, c *escCtx, k, need int) ([]byte, error) {
	bp := scratch.Get().(*[]byte)
	buf, _ := reserve((*bp)[:0], 0, need)
	buf, d, ok := escapeBody(buf, 0, src, opts, c, k, false)
	var err error
	if ok {
		dst = append(dst, buf[:d]...)
	} else {
		dst, err = failUTF8(dst, opts)
	}
	if cap(buf) <= 4<<20 { // do not keep huge buffers alive
		*bp = buf[:0]
		scratch.Put(bp)
	}
	return dst, err
}

// escapeBody writes the quoted escape of src into out from d on (out is a full-capacity slice
// with at least n+5*b+17 bytes of room after d, b = n up to block bytes, else block+64: what
// escapeLong reserves) and returns the possibly grown slice, the end of the output, and false
// if src is invalid under error mode (§1.5). valid tells that src is known valid UTF-8
// (archKernel's).
func escapeBody(out []byte, d int, src []byte, opts jsonopt.Options, c *escCtx, k int, valid bool) ([]byte, int, bool) {
	uu := opts&jsonopt.UnescapedUnicode != 0
	// A kernel in uuKernels (under UNESCAPED_UNICODE) or in mbKernels (without it) also
	// takes multi-byte sequences.
	mbk := !uu && mbKernels>>uint(k)&1 != 0
	uuk := uu && uuKernels>>uint(k)&1 != 0 || mbk
	n := len(src)
	out[d] = '"' // §1.2 step 3
	d++
	for i := 0; i < n; {
		e := i + block
		if e > n {
			e = n
		}
		// A kernel in uuKernels or mbKernels stops up to 64 bytes before the end of what it is given
		// (its blocks need lookahead): it gets up to 64 bytes past e, so that it runs
		// through e and the bytes around a block edge need not go to escapeRaw.
		ek := e
		if uuk {
			ek = min(n, e+64)
		}
		if len(out)-d < 6*(ek-i)+16 {
			out, d = reserve(out, d, 6*(ek-i)+16)
		}
		for i < e {
			if src[i] < 0x80 || uuk {
				// §1.2 steps 4–6: clean runs and dirty ASCII bytes (and, for a kernel in
				// uuKernels or mbKernels, valid multi-byte sequences).
				var ns, nd int
				if k >= kernelArch {
					ns, nd = archKernel(k, out[d:], src[i:ek], c, valid) // one call less
				} else {
					ns, nd = runKernel(k, out[d:], src[i:ek], c)
				}
				i += ns
				d += nd
				if ns > 0 && (!mbk || i >= e || src[i] < 0x80) {
					continue
				}
				// No progress: src[i] >= 0x80 starts a character the kernel leaves to us.
				// So does a stop at such a byte after progress under mbKernels: the text
				// there is sparse (the kernel would not start), or invalid.
			}
			// §1.2 step 7: bytes >= 0x80.
			var ok bool
			if uu {
				i, d, ok = escapeRaw(out, d, src, i, e, c, opts)
			} else {
				i, d, ok = escapeMB(out, d, src, i, e, c, opts)
			}
			if !ok {
				return out, d, false
			}
		}
	}
	out[d] = '"' // §1.2 step 8
	return out, d + 1, true
}

// failUTF8 is the result of an invalid string without IGNORE or SUBSTITUTE (§1.5): dst
// unchanged, or with "null" appended under PARTIAL_OUTPUT_ON_ERROR, and ErrUTF8.
func failUTF8(dst []byte, opts jsonopt.Options) ([]byte, error) {
	if opts&jsonopt.PartialOutputOnError != 0 {
		return append(dst, "null"...), jsonopt.ErrUTF8
	}
	return dst, jsonopt.ErrUTF8
}

// validFrom reports whether every decoder step json_encode takes over s[i:] succeeds (§1.2
// step 7; ASCII bytes are always fine). It accepts exactly the sequences decodeValid accepts,
// with the conditions written out inline.
func validFrom(s []byte, i int) bool {
	for i < len(s) {
		b := s[i]
		switch {
		case b < 0x80:
			i++
			continue
		case b < 0xC2:
			return false
		case b < 0xE0:
			if i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
				i += 2
				continue
			}
		case b < 0xF0:
			if i+2 < len(s) {
				b1, b2 := s[i+1], s[i+2]
				cp := uint32(b&0x0F)<<12 | uint32(b1&0x3F)<<6 | uint32(b2&0x3F)
				if b1&0xC0 == 0x80 && b2&0xC0 == 0x80 && cp >= 0x800 && cp&0xF800 != 0xD800 {
					i += 3
					continue
				}
			}
		case b < 0xF5:
			if i+3 < len(s) {
				b1, b2, b3 := s[i+1], s[i+2], s[i+3]
				cp := uint32(b&0x07)<<18 | uint32(b1&0x3F)<<12 | uint32(b2&0x3F)<<6 | uint32(b3&0x3F)
				if b1&0xC0 == 0x80 && b2&0xC0 == 0x80 && b3&0xC0 == 0x80 && cp-0x10000 <= 0x10FFFF-0x10000 {
					i += 4
					continue
				}
			}
		}
		return false
	}
	return true
}

// putU writes the 6 bytes \uXXXX of the UTF-16 code unit u (<= 0xFFFF) with lower-case hex
// digits (§1.3 hex case, §1.4) at dst[0:6].
func putU(dst []byte, u uint32) {
	_ = dst[5]
	binary.LittleEndian.PutUint32(dst, uint32('\\')|uint32('u')<<8|uint32(hex2[u>>8&0xFF])<<16)
	binary.LittleEndian.PutUint16(dst[4:], hex2[u&0xFF])
}

// putPair writes the 12 bytes of the UTF-16 surrogate pair of the astral code point cp
// (0x10000..0x10FFFF) as two lower-case \uXXXX (§1.4) at dst[0:12].
func putPair(dst []byte, cp uint32) {
	v := cp - 0x10000
	h := 0xD800 | v>>10
	l := 0xDC00 | v&0x3FF
	_ = dst[11]
	binary.LittleEndian.PutUint64(dst, uint64('\\')|uint64('u')<<8|
		uint64(hex2[h>>8&0xFF])<<16|uint64(hex2[h&0xFF])<<32|uint64('\\')<<48|uint64('u')<<56)
	binary.LittleEndian.PutUint32(dst[8:], uint32(hex2[l>>8&0xFF])|uint32(hex2[l&0xFF])<<16)
}

// escapeMB escapes characters from src[i] (>= 0x80) while they start before e, without
// UNESCAPED_UNICODE: every valid sequence becomes \uXXXX or a surrogate pair (§1.4), every
// invalid one is dropped (IGNORE), replaced by \ufffd (SUBSTITUTE) or ends the escape with
// ok = false (§1.2 step 7, §1.5). A clean ASCII byte followed by a byte >= 0x80 is copied on
// the way (spaces between words); any other ASCII byte ends the loop and goes back to the
// kernel. It returns the new input and output positions.
//
// Valid sequences are decoded inline (PR #24283's shape: the conditions of decodeValid,
// written out so that the compiler keeps them in the loop); the rest goes to nextCharSlow.
func escapeMB(out []byte, d int, src []byte, i, e int, c *escCtx, opts jsonopt.Options) (int, int, bool) {
	for i < e {
		b := src[i]
		switch {
		case b < 0x80:
			if c.tab[b] == clsClean && i+1 < e && src[i+1] >= 0x80 {
				out[d] = b
				d++
				i++
				continue
			}
			return i, d, true
		case b < 0xC2:
			// 80..C1: always invalid, slow path below.
		case b < 0xE0:
			if i+1 < len(src) {
				if b1 := src[i+1]; b1&0xC0 == 0x80 {
					putU(out[d:], uint32(b&0x1F)<<6|uint32(b1&0x3F))
					d += 6
					i += 2
					continue
				}
			}
		case b < 0xF0:
			if i+2 < len(src) {
				b1, b2 := src[i+1], src[i+2]
				cp := uint32(b&0x0F)<<12 | uint32(b1&0x3F)<<6 | uint32(b2&0x3F)
				if b1&0xC0 == 0x80 && b2&0xC0 == 0x80 && cp >= 0x800 && cp&0xF800 != 0xD800 {
					putU(out[d:], cp)
					d += 6
					i += 3
					continue
				}
			}
		case b < 0xF5:
			if i+3 < len(src) {
				b1, b2, b3 := src[i+1], src[i+2], src[i+3]
				cp := uint32(b&0x07)<<18 | uint32(b1&0x3F)<<12 | uint32(b2&0x3F)<<6 | uint32(b3&0x3F)
				if b1&0xC0 == 0x80 && b2&0xC0 == 0x80 && b3&0xC0 == 0x80 && cp-0x10000 <= 0x10FFFF-0x10000 {
					putPair(out[d:], cp)
					d += 12
					i += 4
					continue
				}
			}
		}
		st := nextCharSlow(src, i)
		i += st.Advance
		switch {
		case st.OK && st.CP < 0x10000: // never: valid sequences are decoded above
			putU(out[d:], st.CP)
			d += 6
		case st.OK:
			putPair(out[d:], st.CP)
			d += 12
		case opts&jsonopt.InvalidUTF8Ignore != 0: // IGNORE beats SUBSTITUTE
		case opts&jsonopt.InvalidUTF8Substitute != 0:
			putU(out[d:], 0xFFFD)
			d += 6
		default:
			return i, d, false
		}
	}
	return i, d, true
}

// validLen returns the length of the valid sequence starting with the byte b = s[i] >= 0x80
// that is not U+2028/U+2029 when lt is false, or 0: the conditions of decodeValid, inlined
// into escapeRaw's run loop.
func validLen(s []byte, i int, b byte, lt bool) int {
	switch {
	case b < 0xC2:
		return 0
	case b < 0xE0:
		if i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
			return 2
		}
	case b < 0xF0:
		if i+2 < len(s) {
			b1, b2 := s[i+1], s[i+2]
			cp := uint32(b&0x0F)<<12 | uint32(b1&0x3F)<<6 | uint32(b2&0x3F)
			if b1&0xC0 == 0x80 && b2&0xC0 == 0x80 && cp >= 0x800 && cp&0xF800 != 0xD800 &&
				(lt || cp&^1 != 0x2028) {
				return 3
			}
		}
	case b < 0xF5:
		if i+3 < len(s) {
			b1, b2, b3 := s[i+1], s[i+2], s[i+3]
			cp := uint32(b&0x07)<<18 | uint32(b1&0x3F)<<12 | uint32(b2&0x3F)<<6 | uint32(b3&0x3F)
			if b1&0xC0 == 0x80 && b2&0xC0 == 0x80 && b3&0xC0 == 0x80 && cp-0x10000 <= 0x10FFFF-0x10000 {
				return 4
			}
		}
	}
	return 0
}

// escapeRaw is escapeMB under UNESCAPED_UNICODE (§1.4): runs of valid sequences (and clean
// ASCII bytes each followed by a byte >= 0x80) are validated, then copied with one copy;
// U+2028/U+2029 end a run and are escaped unless UNESCAPED_LINE_TERMINATORS is set; an invalid
// sequence ends a run and is dropped, replaced by raw EF BF BD, or fails (§1.5).
func escapeRaw(out []byte, d int, src []byte, i, e int, c *escCtx, opts jsonopt.Options) (int, int, bool) {
	lt := opts&jsonopt.UnescapedLineTerminators != 0
	for i < e {
		run := i
		for i < e {
			b := src[i]
			if b < 0x80 {
				if c.tab[b] == clsClean && i+1 < e && src[i+1] >= 0x80 {
					i++
					continue
				}
				break
			}
			if b-0xC2 <= 0xDF-0xC2 && i+1 < len(src) && src[i+1]&0xC0 == 0x80 {
				i += 2 // a valid 2-byte sequence, the common case, checked inline
				continue
			}
			w := validLen(src, i, b, lt)
			if w == 0 {
				break
			}
			i += w
		}
		d += copy(out[d:], src[run:i])
		if i >= e || src[i] < 0x80 {
			break
		}
		// src[i] starts U+2028/U+2029 (without UNESCAPED_LINE_TERMINATORS) or an invalid
		// sequence.
		st := NextChar(src, i)
		i += st.Advance
		switch {
		case st.OK && st.CP&^1 == 0x2028 && !lt:
			putU(out[d:], st.CP)
			d += 6
		case st.OK: // never: other valid sequences are part of the run
			d += copy(out[d:], src[i-st.Advance:i])
		case opts&jsonopt.InvalidUTF8Ignore != 0: // IGNORE beats SUBSTITUTE
		case opts&jsonopt.InvalidUTF8Substitute != 0:
			out[d], out[d+1], out[d+2] = 0xEF, 0xBF, 0xBD
			d += 3
		default:
			return i, d, false
		}
	}
	return i, d, true
}
