package fast

// Ranks of the portable variants; assembly variants rank above them (100 and up).
const (
	rankGeneric = 0
	rankSWAR    = 10
)

func init() {
	register(Variant{
		Name:       "generic",
		Doc:        "portable Go: clean runs found a byte at a time with a 256-byte class table, inline UTF-8 decoder",
		Escape:     escapeVariant(kernelGeneric),
		NextChar:   NextChar,
		UTF8Decode: utf8DecodeGeneric,
	}, kernelGeneric, rankGeneric)
	register(Variant{
		Name:       "swar",
		Doc:        "portable Go: clean runs found 8 bytes a word (SIMD within a register), inline UTF-8 decoder",
		Escape:     escapeVariant(kernelSWAR),
		NextChar:   NextChar,
		UTF8Decode: utf8DecodeWords,
	}, kernelSWAR, rankSWAR)
}

// utf8DecodeGeneric is UTF8Decode finding ASCII runs a byte at a time (for every length, the
// code ShortUTF8Decode runs).
func utf8DecodeGeneric(dst, src []byte) []byte { return ShortUTF8Decode(dst, src) }

// utf8DecodeWords is UTF8Decode finding ASCII runs 8 bytes a word, the UTF8Decode of every
// variant but generic; under ShortLen bytes it is ShortUTF8Decode.
func utf8DecodeWords(dst, src []byte) []byte {
	if len(src) < ShortLen {
		return ShortUTF8Decode(dst, src)
	}
	return utf8Decode(dst, src, true)
}
