package fuzz

import (
	"sync/atomic"
	"unsafe"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// Planted defects: test-only candidates built on the oracle, each wrong in exactly one way
// that SIMD code typically gets wrong (issue 4). They exist only in tests, so they never
// appear in Builtins or Candidates. Each is correct on every input that does not trigger its
// defect, and each operation not named in its comment is the oracle's own.
//
//   - "overread-tail": Escape, NextChar and UTF8Decode load the input in 16-byte blocks, the
//     last of which runs 1..16 bytes past the end of src (16 - len%16 bytes). The loaded bytes
//     never change the result, so the defect is visible only as a fault on a guard page
//     placed flush after the input (boundary's guarded buffers): finding kind read-past-end
//     at input offset len(src), chunk len/16, lane len%16. Trigger: any non-empty input
//     (minimal trigger length 1; NextChar at any position of the last 16-byte block). Through
//     the plain Checker (heap input, no guard page) it is not detected: reading past a heap
//     object is silent; the guard-page pass of GuardedCheck (random_guard.go) detects it. The over-reading loads are byte loads in a //go:norace
//     //go:nocheckptr function, so -race and checkptr neither report nor throw on them.
//   - "write-past-output": Escape and UTF8Decode return the right result but then store one
//     byte ('"') at dst[len(result)], in the spare capacity. Trigger: any input (minimal
//     trigger length 0: even "" escapes to `""`) with cap(dst) > len(result); finding kind
//     dst-overflow at output offset len(result)-len(dst).
//   - "modifies-input": Escape, NextChar and UTF8Decode return the right result, then
//     overwrite the first dirty byte of src (< 0x20, one of " & ' / < > \, or >= 0x80; for
//     NextChar: s[pos] when it is >= 0x80) with 'X'. Trigger: any input with a dirty byte
//     (minimal trigger length 1, e.g. 22); finding kind input-modified at that byte's offset.
//   - "split-16": decodes each multi-byte sequence within its 16-byte chunk, as a chunked
//     decoder that forgets to carry a partial sequence into the next chunk: a sequence whose
//     lead is at offset i and whose bytes reach past the next multiple of 16 is decoded as if
//     the input ended there (a truncation failure). Escape, NextChar and UTF8Decode all do
//     this. Trigger: any decoder step of the oracle that crosses a 16-byte edge (lead at
//     lane 13..15, advance reaching past the edge), e.g. 15 clean bytes then C3 A9 (minimal
//     trigger length 17);
//     finding kind output-differs, error-differs or step-differs at the lead's offset (chunk
//     i/16, lane 13..15).
//   - "skip-partial-chunk": Escape and UTF8Decode process the steps that start in full
//     16-byte chunks (a step starting in the last full chunk still completes) and drop every
//     step starting at or after len&^15, like a vector loop without its scalar tail; NextChar
//     is the oracle's. Trigger: an input whose length is not a multiple of 16 and whose tail
//     has a step with output (minimal trigger length 1, e.g. 41); finding kind
//     output-differs (or error-differs when the tail held the only invalid sequence) in chunk
//     len/16.
func plantedImpls() []Impl {
	return []Impl{
		{Name: "overread-tail", Escape: overreadEscape, NextChar: overreadNextChar, UTF8Decode: overreadUTF8Decode},
		{Name: "write-past-output", Escape: writePastEscape, NextChar: Oracle.NextChar, UTF8Decode: writePastUTF8Decode},
		{Name: "modifies-input", Escape: modifyEscape, NextChar: modifyNextChar, UTF8Decode: modifyUTF8Decode},
		{Name: "split-16", Escape: split16Escape, NextChar: split16NextChar, UTF8Decode: split16UTF8Decode},
		{Name: "skip-partial-chunk", Escape: skipTailEscape, NextChar: Oracle.NextChar, UTF8Decode: skipTailUTF8Decode},
	}
}

// overreadSink keeps the over-read bytes observable, so the loads are not optimized away.
var overreadSink atomic.Uint32

// load16 reads the 16 bytes at p one at a time, in address order (so the first fault is at
// the first byte past the input), outside the race detector and checkptr.
//
//go:norace
//go:nocheckptr
//go:noinline
func load16(p unsafe.Pointer) byte {
	var acc byte
	for k := uintptr(0); k < 16; k++ {
		acc |= *(*byte)(unsafe.Add(p, k))
	}
	return acc
}

// overreadBlocks loads src in 16-byte blocks from offset 0 up to and including the block at
// len&^15 (when len is a multiple of 16, a whole block past the end).
func overreadBlocks(src []byte) {
	if len(src) == 0 {
		return
	}
	base := unsafe.Pointer(unsafe.SliceData(src))
	var acc byte
	for off := 0; off <= len(src); off += 16 {
		acc |= load16(unsafe.Add(base, off))
	}
	overreadSink.Store(uint32(acc))
}

func overreadEscape(dst, src []byte, opts jsonopt.Options) ([]byte, error) {
	overreadBlocks(src)
	return Oracle.Escape(dst, src, opts)
}

func overreadNextChar(s []byte, pos int) jsonopt.Step {
	if pos >= 0 && pos < len(s) {
		// The 16-byte block holding pos.
		overreadSink.Store(uint32(load16(unsafe.Add(unsafe.Pointer(unsafe.SliceData(s)), pos&^15))))
	}
	return Oracle.NextChar(s, pos)
}

func overreadUTF8Decode(dst, src []byte) []byte {
	overreadBlocks(src)
	return Oracle.UTF8Decode(dst, src)
}

// writePast stores '"' one byte past out, in its spare capacity, if it has any.
func writePast(out []byte) {
	if cap(out) > len(out) {
		out[:len(out)+1][len(out)] = '"'
	}
}

func writePastEscape(dst, src []byte, opts jsonopt.Options) ([]byte, error) {
	out, err := Oracle.Escape(dst, src, opts)
	writePast(out)
	return out, err
}

func writePastUTF8Decode(dst, src []byte) []byte {
	out := Oracle.UTF8Decode(dst, src)
	writePast(out)
	return out
}

// dirtyByte reports whether json_encode treats b as dirty (spec §1.2 step 4).
func dirtyByte(b byte) bool {
	switch b {
	case '"', '&', '\'', '/', '<', '>', '\\':
		return true
	}
	return b < 0x20 || b >= 0x80
}

// modifyFirstDirty overwrites the first dirty byte of src with 'X'.
func modifyFirstDirty(src []byte) {
	for i, b := range src {
		if dirtyByte(b) {
			src[i] = 'X'
			return
		}
	}
}

func modifyEscape(dst, src []byte, opts jsonopt.Options) ([]byte, error) {
	out, err := Oracle.Escape(dst, src, opts)
	modifyFirstDirty(src)
	return out, err
}

func modifyNextChar(s []byte, pos int) jsonopt.Step {
	st := Oracle.NextChar(s, pos)
	if pos >= 0 && pos < len(s) && s[pos] >= 0x80 {
		s[pos] = 'X'
	}
	return st
}

func modifyUTF8Decode(dst, src []byte) []byte {
	out := Oracle.UTF8Decode(dst, src)
	modifyFirstDirty(src)
	return out
}

// split16NextChar decodes the sequence at pos as if s ended at the next multiple of 16.
func split16NextChar(s []byte, pos int) jsonopt.Step {
	if pos >= 0 && pos < len(s) {
		if e := pos&^15 + 16; e < len(s) {
			s = s[:e]
		}
	}
	return Oracle.NextChar(s, pos)
}

// stepEscape is json_encode of src (non-empty) built step by step with the decoder next:
// ASCII bytes one at a time, bytes >= 0x80 as next's steps, each step's bytes escaped on
// their own by the oracle (a step's result depends only on its own bytes, spec §2.2).
func stepEscape(dst, src []byte, opts jsonopt.Options, next func([]byte, int) jsonopt.Step) ([]byte, error) {
	if opts&jsonopt.NumericCheck != 0 || len(src) == 0 {
		return Oracle.Escape(dst, src, opts)
	}
	lenient := opts&(jsonopt.InvalidUTF8Ignore|jsonopt.InvalidUTF8Substitute) != 0
	// Built aside and appended on success: the failure result leaves dst's spare capacity
	// alone, as the contract asks (the defect is the split, nothing else).
	out := []byte{'"'}
	var piece []byte
	for pos := 0; pos < len(src); {
		adv := 1
		if src[pos] >= 0x80 {
			st := next(src, pos)
			if !st.OK && !lenient {
				if opts&jsonopt.PartialOutputOnError != 0 {
					return append(dst, "null"...), jsonopt.ErrUTF8
				}
				return dst, jsonopt.ErrUTF8
			}
			adv = st.Advance
		}
		piece, _ = Oracle.Escape(piece[:0], src[pos:pos+adv], opts)
		out = append(out, piece[1:len(piece)-1]...)
		pos += adv
	}
	return append(dst, append(out, '"')...), nil
}

// stepsDiffer reports whether some step of next over src differs from the oracle's.
func stepsDiffer(src []byte, next func([]byte, int) jsonopt.Step) bool {
	for pos := 0; pos < len(src); {
		st := Oracle.NextChar(src, pos)
		if next(src, pos) != st {
			return true
		}
		pos += st.Advance
	}
	return false
}

func split16Escape(dst, src []byte, opts jsonopt.Options) ([]byte, error) {
	if !stepsDiffer(src, split16NextChar) {
		return Oracle.Escape(dst, src, opts)
	}
	return stepEscape(dst, src, opts, split16NextChar)
}

func split16UTF8Decode(dst, src []byte) []byte {
	for pos := 0; pos < len(src); {
		st := split16NextChar(src, pos)
		if st.OK && st.CP <= 0xFF {
			dst = append(dst, byte(st.CP))
		} else {
			dst = append(dst, '?')
		}
		pos += st.Advance
	}
	return dst
}

// fullChunkSteps returns the end of the last oracle step that starts before len&^15.
func fullChunkSteps(src []byte) int {
	full := len(src) &^ 15
	pos := 0
	for pos < full {
		pos += Oracle.NextChar(src, pos).Advance
	}
	return pos
}

func skipTailEscape(dst, src []byte, opts jsonopt.Options) ([]byte, error) {
	if len(src)%16 == 0 {
		return Oracle.Escape(dst, src, opts)
	}
	return Oracle.Escape(dst, src[:fullChunkSteps(src)], opts)
}

func skipTailUTF8Decode(dst, src []byte) []byte {
	return Oracle.UTF8Decode(dst, src[:fullChunkSteps(src)])
}
