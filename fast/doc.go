// Package fast is the optimized counterpart of package oracle: PHP 8.2's JSON string escaper
// php_json_escape_string() (json_encode on a string, spec §1), its UTF-8 decoder
// php_next_utf8_char() (spec §2.2) and utf8_decode() (spec §3.1), written for speed and checked
// against the oracle by package fuzz. The spec is ../shared/spec/php-json-utf8.md.
//
// # Contract
//
// Escape, NextChar and UTF8Decode, and the functions of every Variant, have exactly the
// contract of the oracle's functions of the same name (DESIGN.md §2): same output bytes, same
// errors (the jsonopt sentinels, comparable with ==), same decoder steps including the failure
// advance. None of them modifies src, dst[:len(dst)] or s, and none writes into dst's spare
// capacity beyond the length it returns — not on error either.
//
// # Structure
//
// The package never imports oracle; the two share only the vocabulary in jsonopt.
//
//   - The escaper (escape.go) walks the input in blocks of at most 16 KiB, reserving in dst
//     the worst-case output of a block (6 bytes per input byte) so that no write inside a block
//     checks capacity; for clean input, one growth up front covers the whole string. Inputs of
//     at most 16 bytes never reach a kernel: clean ones are tested as two overlapping 8-byte
//     words (SWAR) and appended with their quotes, the others take a single loop
//     (escapeSmall).
//   - Without IGNORE/SUBSTITUTE an invalid string must leave dst's spare capacity untouched.
//     When the output would go there, input that is all ASCII is escaped in place, a short
//     non-ASCII remainder is validated first (validFrom), a long one too where the kernel has
//     a vector check (validAVX512), without UNESCAPED_UNICODE, when the text is mostly
//     multi-byte (validMin bytes or more: the escape two to three times as long) or starts
//     with 4-byte sequences (256 bytes or more: the kernel's form for valid input skips their
//     validation; checkPays), and otherwise the escape goes to a stack or pooled scratch
//     buffer and is copied to dst on success.
//   - Runs of ASCII go to a clean-run/ASCII-escape kernel of the shape
//     func(dst, src []byte, c *escCtx) (nsrc, ndst int): it copies clean bytes in bulk and
//     escapes dirty ASCII bytes until it reaches a byte >= 0x80. The "generic" kernel finds
//     clean runs with a 256-byte class table, the "swar" kernel 8 bytes a word with the
//     haszero/hasless tricks. Assembly kernels (avx2, sse2, neon) plug in the same way; they
//     store each block before testing it, so they may write ahead of their output (see
//     runKernel for when that is safe), and the avx2 kernel also validates and copies
//     multi-byte sequences under UNESCAPED_UNICODE (uuKernels).
//   - Bytes >= 0x80 are decoded inline when they start a valid sequence (the shape of php-src
//     PR #24283); everything else goes to this package's own slow path, nextCharSlow, a
//     transcription of the spec §2.2 decision tree. Escapes are written 6 bytes (\uXXXX) or
//     12 bytes (surrogate pair) at a time.
//   - Under UNESCAPED_UNICODE, runs of valid multi-byte characters are validated and then
//     copied in bulk; U+2028/U+2029 stop a run unless UNESCAPED_LINE_TERMINATORS is set.
//
// # Variants and dispatch
//
// Every variant compiled in and runnable on this CPU is listed by Variants, best first, and
// can be called directly through its Variant value, so one test binary runs them all. Escape
// and UTF8Decode dispatch to the best one through the package-level integer defaultKernel (not
// a function value), set once at init by register. Per-architecture files add variants by
// calling register from their init functions and handle their kernel identifiers in
// archKernel; arch_none.go is the portable stand-in. NextChar has a single implementation
// shared by all variants.
package fast
