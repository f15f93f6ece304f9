package fast

import (
	"sort"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// Variant is one implementation of the package's three functions, as compiled in for this
// CPU. Each has the contract of the package-level function of the same name (and of package
// oracle's): see Escape, NextChar and UTF8Decode.
type Variant struct {
	// Name identifies the variant: "generic", "swar", and the assembly ones ("avx2", "sse2",
	// "neon") where compiled in and supported by the CPU.
	Name string
	// Doc says in one line what the variant does.
	Doc string
	// Escape is json_encode for a string with this variant's clean-run kernel (see Escape).
	Escape func(dst, src []byte, opts jsonopt.Options) ([]byte, error)
	// NextChar is one php_next_utf8_char() step (see NextChar).
	NextChar func(s []byte, pos int) jsonopt.Step
	// UTF8Decode is utf8_decode() (see UTF8Decode).
	UTF8Decode func(dst, src []byte) []byte
}

// entry is a registered variant with its kernel identifier and rank (higher is better).
type entry struct {
	v      Variant
	kernel int
	rank   int
}

// registry lists the registered variants, best (highest rank) first.
var registry []entry

// defaultKernel is the kernel identifier Escape and UTF8Decode dispatch to: that of the best
// registered variant. It is a plain integer, set only by register during package
// initialization, so the dispatch is a compare and a direct call, never a call through a
// function value.
var defaultKernel = kernelGeneric

// defaultName is the name of the variant defaultKernel belongs to.
var defaultName = "generic"

// register adds a variant this CPU can run, with its kernel identifier and rank (higher is
// better), and makes it the default when it outranks the current default. It is called only
// from init functions: generic.go for the portable variants, per-architecture files for the
// assembly ones after checking CPU features. Registering a name twice panics.
func register(v Variant, kernel, rank int) {
	for _, e := range registry {
		if e.v.Name == v.Name {
			panic("fast: variant " + v.Name + " registered twice")
		}
	}
	registry = append(registry, entry{v, kernel, rank})
	sort.SliceStable(registry, func(i, j int) bool { return registry[i].rank > registry[j].rank })
	defaultKernel = registry[0].kernel
	defaultName = registry[0].v.Name
}

// Variants returns every variant compiled in that this CPU can run, best first; the first is
// the one Escape dispatches to (Default). The slice is a fresh copy.
func Variants() []Variant {
	out := make([]Variant, len(registry))
	for i, e := range registry {
		out[i] = e.v
	}
	return out
}

// Lookup returns the variant called name, if it is compiled in and this CPU can run it.
func Lookup(name string) (Variant, bool) {
	for _, e := range registry {
		if e.v.Name == name {
			return e.v, true
		}
	}
	return Variant{}, false
}

// CPUFeatures are the CPU features that choose among the variants on this machine, as
// "name=true|false" words ("" where no assembly variant is compiled in).
func CPUFeatures() string { return cpuFeatures }

// cpuFeatures is CPUFeatures, set by the architecture's kernel file.
var cpuFeatures string

// Default returns the name of the variant Escape and UTF8Decode dispatch to: the best one this
// CPU can run ("swar" when no assembly variant is compiled in or supported).
func Default() string { return defaultName }

// Escape appends to dst exactly the bytes PHP 8.2 json_encode($s, opts) returns for the PHP
// string $s whose bytes are src (spec §1.2), quotes included, and returns the extended slice.
// It runs the default variant (Default).
//
// Options are PHP's JSON_* bits (spec §1.1): the eleven of jsonopt.StringOptions act as in
// spec §1.3–§1.5 and §1.7; PRESERVE_ZERO_FRACTION acts only on a number written under
// NUMERIC_CHECK; PRETTY_PRINT, FORCE_OBJECT, THROW_ON_ERROR and unknown bits are ignored
// (§1.8). Under JSON_NUMERIC_CHECK a non-empty numeric string (PHP 8.2's is_numeric_string:
// a decimal integer, decimal or exponent number with an optional sign, and any of the six
// whitespace bytes before and after it) is written as the number json_encode writes for it,
// without quotes: an integer that fits an int64 in decimal ("007" is 7, "-0" is 0), any other
// as a double in PHP's format with serialize_precision = -1 (the shortest round-trip digits,
// fixed notation for 0 and 1e-4 <= |d| < 1e17, else d.ddde±x: "1e3" is 1000, "1e17" is
// 1.0e+17), where PRESERVE_ZERO_FRACTION adds ".0" to a double written without a '.' (1000.0,
// -0.0). The empty string, any other string, and a numeric one whose double is ±Inf ("1e999")
// are escaped as strings.
//
// Errors: if src is not valid UTF-8 (a decoder step of spec §2.2 fails) and neither
// INVALID_UTF8_IGNORE nor INVALID_UTF8_SUBSTITUTE is set, Escape returns jsonopt.ErrUTF8
// (JSON_ERROR_UTF8 = 5) with dst unchanged, or with the 4 bytes null appended under
// PARTIAL_OUTPUT_ON_ERROR (§1.5). IGNORE (which beats SUBSTITUTE) drops each invalid
// sequence, SUBSTITUTE replaces it by \ufffd (raw EF BF BD under UNESCAPED_UNICODE); neither
// returns an error.
//
// Escape never modifies src or dst[:len(dst)] and never writes into dst's spare capacity past
// the length it returns. It grows dst at most once for input without escapes, and otherwise
// about once per 16 KiB of input that expands, geometrically.
func Escape(dst, src []byte, opts jsonopt.Options) ([]byte, error) {
	// The body of the variants' Escape (escapeVariant) with k = defaultKernel, written out
	// rather than called, which would cost the clean 16-to-31-byte strings a call.
	// defaultKernel is read where it is used rather than held in a variable: measured, that
	// left the clean 16-byte case 4 % slower than the variant's own Escape (a value kept
	// across archClean16's assembly call).
	c := &ctxs[ctxIndex(opts)]
	n, s := len(src), len(dst)
	if uint(n-16) < 16 && (archDefault || defaultKernel >= kernelArch) {
		if cleanStart(src[0], opts) && cap(dst)-s >= n+2 &&
			archClean16(defaultKernel, dst[s:s+n+2], src, c) {
			return dst[:s+n+2], nil
		}
		return escapeMid(dst, src, opts, c, defaultKernel) // not clean: no second attempt
	}
	if n < ShortLen {
		return escapeShort(dst, src, opts, c)
	}
	return escapeLong(dst, src, opts, c, defaultKernel)
}

// UTF8Decode appends utf8_decode(src) to dst and returns the extended slice (spec §3.1): one
// byte per decoder step of spec §2.2 from position 0 to the end of src, the code point itself
// when the step succeeded with a code point <= U+00FF, else '?' (a failure, or any code point
// above U+00FF, astral included, is a single '?'). It appends at most len(src) bytes (growing
// dst at most once) and never modifies src or dst[:len(dst)]. It runs the default variant.
func UTF8Decode(dst, src []byte) []byte {
	if defaultKernel == kernelGeneric {
		return utf8DecodeGeneric(dst, src)
	}
	return utf8DecodeWords(dst, src)
}
