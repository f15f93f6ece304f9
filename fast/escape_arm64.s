//go:build !purego

#include "textflag.h"

// NEON block kernel of the "neon" variant (see kernel_arm64.go for the Go side).
//
// Instructions Go's arm64 assembler does not know are written as WORD with the instruction in
// a comment beside each one: CMGT (vector, signed greater than), UMAXV (unsigned maximum across
// lanes) and SHRN (shift right narrow). Their encodings are fixed to the registers used here.

// func escapeBlocksNEON(dst, src []byte, kt *[ktWords]uint64, esc *[128]uint64, nsp int) (nsrc, ndst int)
//
// Contract:
//   Escapes src from its start into dst, 16-byte block by 16-byte block, under the option set
//   of an escCtx c given as kt = &c.kt, esc = c.esc and nsp = c.nsp (tables.go): clean bytes
//   are copied, and every dirty ASCII byte (< 0x20, or one of the nsp special bytes of kt: '"',
//   '\\' and those of '/', '<', '>', '&', '\'' the options escape) is written as its escape
//   from esc (2 or 6 bytes, the length in the top byte). It stops
//     - at the first byte >= 0x80 (nsrc is its index), or
//     - at the end of a block i when src[i+16:i+32] is not all there or not all ASCII: after
//       the block that follows if that block is ASCII and clean, before it if not (nsrc is a
//       multiple of 16; see step 5).
//   It returns nsrc and ndst, the length of the escape of src[:nsrc], which is exactly what
//   the "generic" kernel writes for src[:nsrc]. The caller (asciiNEON) finishes the rest.
//   With len(src) < 32, or src[16:32] not all ASCII, it does nothing (0, 0).
//
// Memory:
//   Reads only src[0:min(len(src), nsrc+48)], kt and esc. Needs len(dst) >= 6*len(src) (the
//   kernel contract of runKernel) and writes only dst[0:ndst+16]. Bytes past ndst are written
//   only by 16-byte stores at the output position of some src[p] while src[p:] still holds at
//   least 16 ASCII bytes (the block invariant below; step 3a's group stores are of that kind),
//   and by the 8-byte store of an escape, whose last bytes the 16-byte store that follows it
//   covers. Each ASCII byte is escaped to
//   at least one byte, so the output that follows ndst overwrites them whatever the options,
//   IGNORE included: the kernel never leaves a byte past the final output.
//
// Registers:
//   R0  dst base            R1  src base            R2  len(src)
//   R3  kt                  R4  src cursor: the block at i = R4-R1
//   R5  dst cursor          R6  src+len-48: last block address with a lookahead block
//   R7  k = nsp-2, the number of extra specials (0..5)
//   R8  temp                R9  UMAXV result, then the lane mask
//   R12 src address of the first lane of the current block not yet emitted
//   R13, R15, R16, R17 temps                        R14 src address of the current dirty lane
//   R20 esc
//   V0  block B(i)          V1  lookahead block B(i+32) (0x80s when there is none)
//   V2  dirty lanes of V0 (0xFF/0x00)               V3..V9 temps
//   V20 0x20 x16            V21..V27 the special bytes of kt x16 ('"', '\\', then the extras)
//   V10..V13, V15, V17 step 3a's constants (see there); V16 its letters
//
// Algorithm:
//   Invariant at the top of the loop: i+32 <= len(src) and B(i+16) is all ASCII. It holds for
//   i = 0 after one UMAXV over B(16), and for i+16 when the lookahead block B(i+32) is ASCII.
//
//   1. Load B(i), store it to the dst cursor (one pass: the store comes before the test; it is
//      the final output when the block is clean), classify its lanes into V2: one signed CMGT
//      (0x20 > b, true for b < 0x20 and for b >= 0x80), and one CMEQ per special byte the
//      option set escapes: there are six copies of the loop, for k = 0..5 extra specials, so
//      that no compare is spent on a byte the options leave alone.
//   2. If B(i+32) exists, load it and take one UMAXV over V2 | B(i+32): below 0x80 means this
//      block is clean and the lookahead block is ASCII, so advance 16 and loop. Otherwise (or
//      when there is no lookahead block; then it counts as non-ASCII) go to the slow path.
//   3. Slow path: only now find the lanes. SHRN #4 narrows V2 to a 64-bit mask with a nibble per
//      lane; one bit per lane is kept and the lanes are visited in order with RBIT+CLZ. For
//      each dirty lane j: the clean lanes before it are already in place (from the block store
//      or from the previous reload store), so the cursor just moves over them; a byte >= 0x80
//      ends the kernel there; otherwise its escape is stored (8 bytes, of which the first 2 or
//      6 count), and the 16 source bytes after it are reloaded from src and stored right after
//      the escape, putting the rest of the block in place. Every dirty byte of the block is
//      handled before leaving the slow path; there is no byte loop.
//   3a. Before the lanes: a block with two or more dirty lanes that all take a two-byte escape
//      (\" \\ \/ \b \f \n \r \t: their classes by low nibble, kt bytes 192..207, and by high
//      nibble share a bit; a byte >= 0x80 never does) is written from registers instead: its
//      letters (a control XOR its letter by TBL, which gives 0 for bytes >= 16), and for each
//      8-byte group one TBL of [its letters; '\\' x16] by neonExp[its mask] (the masks are the
//      dirty lanes' weights 1..128 summed by ADDV), one 16-byte store, and the output cursor
//      moved by neonExpLen[mask] = 8 + popcount. The stores run at most 8 bytes past the
//      block's output, which B(i+16), all ASCII, overwrites (the Memory rule below).
//   4. After the block: continue (back into the loop for k) at i+16 if B(i+32) is ASCII.
//   5. Else B(i+16) is the last block: store it (it is ASCII, so its own output covers the
//      store), classify it, and return after it if it is clean, or before it if not. The Go
//      caller does the rest: the bytes before the next byte >= 0x80 (fewer than 16 when the
//      last block was clean, else fewer than 32) or before the end.

// CLASSIFYk sets V2 to 0xFF in each lane of V0 that is dirty under an option set with k extra
// specials: < 0x20 or >= 0x80, or equal to one of V21..V(22+k).
#define CMGT_V2_V20_V0 WORD $0x4e203682 /* CMGT V2.16B, V20.16B, V0.16B: V2 = 0x20 > V0 (signed) */

#define CLASSIFY0 \
	CMGT_V2_V20_V0                \
	VCMEQ V21.B16, V0.B16, V3.B16 \
	VCMEQ V22.B16, V0.B16, V4.B16 \
	VORR  V4.B16, V3.B16, V3.B16  \
	VORR  V3.B16, V2.B16, V2.B16

#define CLASSIFY1 \
	CMGT_V2_V20_V0                \
	VCMEQ V21.B16, V0.B16, V3.B16 \
	VCMEQ V22.B16, V0.B16, V4.B16 \
	VCMEQ V23.B16, V0.B16, V5.B16 \
	VORR  V4.B16, V3.B16, V3.B16  \
	VORR  V5.B16, V2.B16, V2.B16  \
	VORR  V3.B16, V2.B16, V2.B16

#define CLASSIFY2 \
	CMGT_V2_V20_V0                \
	VCMEQ V21.B16, V0.B16, V3.B16 \
	VCMEQ V22.B16, V0.B16, V4.B16 \
	VCMEQ V23.B16, V0.B16, V5.B16 \
	VCMEQ V24.B16, V0.B16, V6.B16 \
	VORR  V4.B16, V3.B16, V3.B16  \
	VORR  V6.B16, V5.B16, V5.B16  \
	VORR  V3.B16, V2.B16, V2.B16  \
	VORR  V5.B16, V2.B16, V2.B16

#define CLASSIFY3 \
	CMGT_V2_V20_V0                \
	VCMEQ V21.B16, V0.B16, V3.B16 \
	VCMEQ V22.B16, V0.B16, V4.B16 \
	VCMEQ V23.B16, V0.B16, V5.B16 \
	VCMEQ V24.B16, V0.B16, V6.B16 \
	VCMEQ V25.B16, V0.B16, V7.B16 \
	VORR  V4.B16, V3.B16, V3.B16  \
	VORR  V6.B16, V5.B16, V5.B16  \
	VORR  V7.B16, V2.B16, V2.B16  \
	VORR  V5.B16, V3.B16, V3.B16  \
	VORR  V3.B16, V2.B16, V2.B16

#define CLASSIFY4 \
	CMGT_V2_V20_V0                \
	VCMEQ V21.B16, V0.B16, V3.B16 \
	VCMEQ V22.B16, V0.B16, V4.B16 \
	VCMEQ V23.B16, V0.B16, V5.B16 \
	VCMEQ V24.B16, V0.B16, V6.B16 \
	VCMEQ V25.B16, V0.B16, V7.B16 \
	VCMEQ V26.B16, V0.B16, V8.B16 \
	VORR  V4.B16, V3.B16, V3.B16  \
	VORR  V6.B16, V5.B16, V5.B16  \
	VORR  V8.B16, V7.B16, V7.B16  \
	VORR  V3.B16, V2.B16, V2.B16  \
	VORR  V7.B16, V5.B16, V5.B16  \
	VORR  V5.B16, V2.B16, V2.B16

#define CLASSIFY5 \
	CMGT_V2_V20_V0                \
	VCMEQ V21.B16, V0.B16, V3.B16 \
	VCMEQ V22.B16, V0.B16, V4.B16 \
	VCMEQ V23.B16, V0.B16, V5.B16 \
	VCMEQ V24.B16, V0.B16, V6.B16 \
	VCMEQ V25.B16, V0.B16, V7.B16 \
	VCMEQ V26.B16, V0.B16, V8.B16 \
	VCMEQ V27.B16, V0.B16, V9.B16 \
	VORR  V4.B16, V3.B16, V3.B16  \
	VORR  V6.B16, V5.B16, V5.B16  \
	VORR  V8.B16, V7.B16, V7.B16  \
	VORR  V9.B16, V2.B16, V2.B16  \
	VORR  V5.B16, V3.B16, V3.B16  \
	VORR  V7.B16, V2.B16, V2.B16  \
	VORR  V3.B16, V2.B16, V2.B16

// BLOCKLOOP is steps 1 and 2 for one value of k: the loop over clean blocks; and step 5, the
// last block.
#define BLOCKLOOP(loop, tail, CLASSIFY) \
loop:                                          \
	VLD1  (R4), [V0.B16]                       \
	VST1  [V0.B16], (R5)                       \
	CLASSIFY                                   \
	CMP   R6, R4                               \
	BHI   last                                 \
	ADD   $32, R4, R8                          \
	VLD1  (R8), [V1.B16]                       \
	VORR  V1.B16, V2.B16, V3.B16               \
	WORD  $0x6e30a863 /* UMAXV B3, V3.16B */   \
	VMOV  V3.B[0], R9                          \
	TBNZ  $7, R9, slow                         \
	ADD   $16, R4                              \
	ADD   $16, R5                              \
	B     loop                                 \
tail:                                          \
	VLD1  (R4), [V0.B16]                       \
	VST1  [V0.B16], (R5)                       \
	CLASSIFY                                   \
	WORD  $0x6e30a843 /* UMAXV B3, V2.16B */   \
	VMOV  V3.B[0], R9                          \
	CBNZ  R9, ret                              \
	ADD   $16, R4                              \
	ADD   $16, R5                              \
	B     ret

TEXT ·escapeBlocksNEON(SB), NOSPLIT, $0-88
	MOVD dst_base+0(FP), R0
	MOVD src_base+24(FP), R1
	MOVD src_len+32(FP), R2
	MOVD kt+48(FP), R3
	MOVD esc+56(FP), R20
	MOVD nsp+64(FP), R7
	MOVD R1, R4
	MOVD R0, R5
	CMP  $32, R2
	BLT  ret

	// The invariant for i = 0: B(16) is all ASCII.
	ADD  $16, R1, R8
	VLD1 (R8), [V1.B16]
	WORD $0x6e30a823 // UMAXV B3, V1.16B
	VMOV V3.B[0], R9
	TBNZ $7, R9, ret

	ADD R1, R2, R6
	SUB $48, R6, R6

	// The special bytes, each 16 times: kt bytes 32..143 (the first nsp groups are used).
	ADD    $32, R3, R8
	VLD1.P 64(R8), [V21.B16, V22.B16, V23.B16, V24.B16]
	VLD1   (R8), [V25.B16, V26.B16, V27.B16]
	VMOVI  $0x20, V20.B16
	SUB    $2, R7, R7

	// Step 3a's constants (neonExpConst, kt): V10 = two-byte escape classes by high nibble,
	// V11 = control XOR its letter by low nibble, V12 = lane weights, V13 = two-byte escape
	// classes by low nibble (kt bytes 192..207), V15 = 0x0F, V17 = '\\'.
	MOVD  $·neonExpConst(SB), R8
	VLD1  (R8), [V10.B16, V11.B16, V12.B16]
	ADD   $192, R3, R8
	VLD1  (R8), [V13.B16]
	VMOVI $0x0f, V15.B16
	VMOVI $0x5c, V17.B16

dispatch:
	CBZ R7, loop0
	CMP $2, R7
	BLT loop1
	BEQ loop2
	CMP $4, R7
	BLT loop3
	BEQ loop4
	B   loop5

	BLOCKLOOP(loop0, tail0, CLASSIFY0)
	BLOCKLOOP(loop1, tail1, CLASSIFY1)
	BLOCKLOOP(loop2, tail2, CLASSIFY2)
	BLOCKLOOP(loop3, tail3, CLASSIFY3)
	BLOCKLOOP(loop4, tail4, CLASSIFY4)
	BLOCKLOOP(loop5, tail5, CLASSIFY5)

last:
	// No lookahead block B(i+32): B(i) is still handled (B(i+16) is ASCII), then we return.
	VMOVI $0x80, V1.B16

slow:
	// Step 3: V2 has at least one dirty lane, or V1 has a byte >= 0x80, or both.
	WORD $0x0f0c8443 // SHRN V3.8B, V2.8H, #4: a nibble per lane, 0xF where V2 is 0xFF
	VMOV V3.D[0], R9
	AND  $0x1111111111111111, R9, R9 // bit 4j for dirty lane j
	CBZ  R9, blockclean

	// Step 3a: two or more dirty lanes, all of them two-byte escapes (\" \\ \/ \b \f \n \r \t):
	// the block is written from registers, as two 8-byte groups each expanded by one TBL.
	SUB   $1, R9, R13
	AND   R9, R13, R13
	CBZ   R13, bytewise
	VAND  V15.B16, V0.B16, V3.B16
	VUSHR $4, V0.B16, V4.B16
	VTBL  V3.B16, [V13.B16], V3.B16
	VTBL  V4.B16, [V10.B16], V4.B16
	VAND  V4.B16, V3.B16, V3.B16
	VEOR  V5.B16, V5.B16, V5.B16
	VCMEQ V5.B16, V3.B16, V3.B16     // 0xFF where a lane takes no two-byte escape
	VAND  V2.B16, V3.B16, V3.B16     // ... and is dirty (bytes >= 0x80 among them)
	VMOV  V3.D[0], R13
	VMOV  V3.D[1], R15
	ORR   R13, R15, R13
	CBNZ  R13, bytewise

	// The letters (a control XOR V11 by its value, TBL giving 0 for bytes >= 16), the groups'
	// masks (the weights 1..128 of their dirty lanes, summed by ADDV), then per group: TBL of
	// [the group's letters in lanes 0-7, '\\' in V17] by neonExp[mask] ('\\' before each
	// escaped letter), one 16-byte store, R5 += neonExpLen[mask] (8 + popcount).
	VTBL  V0.B16, [V11.B16], V3.B16
	VEOR  V3.B16, V0.B16, V16.B16
	VAND  V12.B16, V2.B16, V3.B16
	VEXT  $8, V3.B16, V3.B16, V4.B16
	VADDV V3.B8, V3
	VADDV V4.B8, V4
	VMOV  V3.B[0], R13
	VMOV  V4.B[0], R15
	MOVD  $·neonExp(SB), R8
	MOVD  $·neonExpLen(SB), R14
	ADD   R13<<4, R8, R16
	VLD1  (R16), [V5.B16]
	VTBL  V5.B16, [V16.B16, V17.B16], V6.B16
	VST1  [V6.B16], (R5)
	MOVBU (R14)(R13), R13
	ADD   R13, R5, R5
	VEXT  $8, V16.B16, V16.B16, V16.B16
	ADD   R15<<4, R8, R16
	VLD1  (R16), [V5.B16]
	VTBL  V5.B16, [V16.B16, V17.B16], V6.B16
	VST1  [V6.B16], (R5)
	MOVBU (R14)(R15), R15
	ADD   R15, R5, R5
	ADD   $16, R4, R4
	B     next

bytewise:
	MOVD R4, R12

dirty:
	RBIT  R9, R13
	CLZ   R13, R13                   // 4j
	ADD   R13>>2, R4, R14            // &src[i+j]
	SUB   R12, R14, R15
	ADD   R15, R5, R5                // move over the clean lanes before j, already in place
	MOVBU (R14), R16
	TBNZ  $7, R16, high
	MOVD  (R20)(R16<<3), R17         // the escape, its length in the top byte
	MOVD  R17, (R5)                  // bytes past the escape are overwritten just below
	ADD   R17>>56, R5, R5
	ADD  $1, R14, R12
	VLD1 (R12), [V4.B16]             // src[i+j+1:i+j+17], inside src[:i+32]
	VST1 [V4.B16], (R5)
	SUB  $1, R9, R13
	AND  R13, R9, R9                 // next dirty lane
	CBNZ R9, dirty

	// The clean lanes after the last escape are in place.
	ADD $16, R4, R4
	SUB R12, R4, R13
	ADD R13, R5, R5
	B   next

blockclean:
	ADD $16, R4, R4
	ADD $16, R5, R5

next:
	// Step 4: go on only if the new B(i+16), the old lookahead block, is ASCII.
	WORD $0x6e30a823 // UMAXV B3, V1.16B
	VMOV V3.B[0], R9
	TBZ  $7, R9, dispatch

	// Step 5: B(i) is ASCII, and the lookahead block is not (or is not there). If B(i) is also
	// clean, it is the output: store it and return after it.
	CBZ R7, tail0
	CMP $2, R7
	BLT tail1
	BEQ tail2
	CMP $4, R7
	BLT tail3
	BEQ tail4
	B   tail5

ret:
	SUB  R1, R4, R4
	SUB  R0, R5, R5
	MOVD R4, nsrc+72(FP)
	MOVD R5, ndst+80(FP)
	RET

high:
	// A byte >= 0x80 at R14: the Go caller takes over there.
	MOVD R14, R4
	B    ret

// func clean16NEON(d *byte, src []byte, kt *[ktWords]uint64) bool
//
// Contract:
//   The 16-to-31-byte path of the "neon" variant (archClean16): with 16 <= len(src) <= 31, it
//   reports whether src has no byte >= 0x80 and no byte that the option set of kt escapes
//   (< 0x20, or one of the special bytes of kt); if so it writes '"', src, '"' to
//   d[0:len(src)+2], else it writes nothing.
//
// Memory:
//   Reads src[0:16] and src[len-16:len] (two overlapping blocks, nothing outside src) and kt
//   bytes 32..143; writes d[0:len(src)+2] only when it returns true.
//
// Registers:
//   R0 d, R1 src, R2 len(src), R3 kt, R8-R11 temps
//   V0 = src[0:16], V10 = src[len-16:len], V20 0x20 x16, V21..V27 the seven special-byte
//   groups of kt (groups the option set does not use hold 0xFF, which only bytes >= 0x80
//   match, and those are dirty anyway), V2 the dirty lanes of both blocks, V3..V6, V11 temps.
//
// Algorithm:
//   Classify both blocks as the block kernel does (one signed CMGT 0x20 > b for controls and
//   bytes >= 0x80, one CMEQ per special byte), OR everything into V2 and take one UMAXV: zero
//   means clean. Then store the quote, the first block at d+1, the last block at d+1+len-16
//   (overlapping the first), and the closing quote. No byte loop, no branch per byte.
TEXT ·clean16NEON(SB), NOSPLIT, $0-41
	MOVD d+0(FP), R0
	MOVD src_base+8(FP), R1
	MOVD src_len+16(FP), R2
	MOVD kt+32(FP), R3
	ADD  R1, R2, R8
	SUB  $16, R8, R8
	VLD1 (R1), [V0.B16]
	VLD1 (R8), [V10.B16]

	ADD    $32, R3, R9
	VLD1.P 64(R9), [V21.B16, V22.B16, V23.B16, V24.B16]
	VLD1   (R9), [V25.B16, V26.B16, V27.B16]
	VMOVI  $0x20, V20.B16

	WORD  $0x4e203682 // CMGT V2.16B, V20.16B, V0.16B: V2 = 0x20 > V0 (signed)
	WORD  $0x4e2a368b // CMGT V11.16B, V20.16B, V10.16B: V11 = 0x20 > V10 (signed)
	VORR  V11.B16, V2.B16, V2.B16
	VCMEQ V21.B16, V0.B16, V3.B16
	VCMEQ V21.B16, V10.B16, V4.B16
	VCMEQ V22.B16, V0.B16, V5.B16
	VCMEQ V22.B16, V10.B16, V6.B16
	VORR  V3.B16, V4.B16, V3.B16
	VORR  V5.B16, V6.B16, V5.B16
	VORR  V3.B16, V2.B16, V2.B16
	VORR  V5.B16, V2.B16, V2.B16
	VCMEQ V23.B16, V0.B16, V3.B16
	VCMEQ V23.B16, V10.B16, V4.B16
	VCMEQ V24.B16, V0.B16, V5.B16
	VCMEQ V24.B16, V10.B16, V6.B16
	VORR  V3.B16, V4.B16, V3.B16
	VORR  V5.B16, V6.B16, V5.B16
	VORR  V3.B16, V2.B16, V2.B16
	VORR  V5.B16, V2.B16, V2.B16
	VCMEQ V25.B16, V0.B16, V3.B16
	VCMEQ V25.B16, V10.B16, V4.B16
	VCMEQ V26.B16, V0.B16, V5.B16
	VCMEQ V26.B16, V10.B16, V6.B16
	VORR  V3.B16, V4.B16, V3.B16
	VORR  V5.B16, V6.B16, V5.B16
	VORR  V3.B16, V2.B16, V2.B16
	VORR  V5.B16, V2.B16, V2.B16
	VCMEQ V27.B16, V0.B16, V3.B16
	VCMEQ V27.B16, V10.B16, V4.B16
	VORR  V3.B16, V4.B16, V3.B16
	VORR  V3.B16, V2.B16, V2.B16
	WORD  $0x6e30a843 // UMAXV B3, V2.16B
	VMOV  V3.B[0], R9
	CBNZ  R9, dirty16

	MOVD $0x22, R9
	MOVB R9, (R0)
	ADD  $1, R0, R10
	VST1 [V0.B16], (R10)
	ADD  R0, R2, R10  // d+len
	SUB  $15, R10, R11 // d+1+len-16
	VST1 [V10.B16], (R11)
	MOVB R9, 1(R10)   // d[len+1]
	MOVD $1, R9
	MOVB R9, ret+40(FP)
	RET

dirty16:
	MOVB ZR, ret+40(FP)
	RET

// The Keiser–Lemire lookup tables (simdjson's lookup4), 16 bytes each: error bits by the high
// nibble of the byte one back (byte1High), by its low nibble (byte1Low), and by the high
// nibble of the current byte (byte2High). The same tables as the AVX2 kernel's (fast/_asm).
DATA utf8lookupNEON<>+0(SB)/8, $0x0202020202020202
DATA utf8lookupNEON<>+8(SB)/8, $0x4915012180808080
DATA utf8lookupNEON<>+16(SB)/8, $0xcbcbcb8b8383a3e7
DATA utf8lookupNEON<>+24(SB)/8, $0xcbcbdbcbcbcbcbcb
DATA utf8lookupNEON<>+32(SB)/8, $0x0101010101010101
DATA utf8lookupNEON<>+40(SB)/8, $0x01010101babaaee6
GLOBL utf8lookupNEON<>(SB), RODATA|NOPTR, $48

// UUCHECK classifies the block V0, whose bytes one, two and three back are V1, V2, V3: V4 =
// its escape lanes (ASCII and < 0x20, or one of the seven special-byte groups; an unused
// group holds 0xFF, which the ASCII mask keeps out), V6 = its UTF-8
// errors (nonzero lanes), V8 = lanes with E2 two bytes back (zero under
// UNESCAPED_LINE_TERMINATORS, by the mask V29), and R9 = the maximum of V4 | V6 | V8 (zero:
// nothing to do in this block).
#define UUCHECK \
	WORD  $0x6e203684 /* CMHI V4.16B, V20.16B, V0.16B: V4 = 0x20 > V0 (unsigned) */ \
	VCMEQ V21.B16, V0.B16, V5.B16 \
	VCMEQ V22.B16, V0.B16, V6.B16 \
	VCMEQ V23.B16, V0.B16, V7.B16 \
	VCMEQ V24.B16, V0.B16, V8.B16 \
	VORR  V5.B16, V4.B16, V4.B16  \
	VORR  V6.B16, V7.B16, V6.B16  \
	VORR  V8.B16, V4.B16, V4.B16  \
	VORR  V6.B16, V4.B16, V4.B16  \
	VCMEQ V25.B16, V0.B16, V5.B16 \
	VCMEQ V26.B16, V0.B16, V6.B16 \
	VCMEQ V27.B16, V0.B16, V7.B16 \
	VORR  V5.B16, V4.B16, V4.B16  \
	VORR  V6.B16, V7.B16, V6.B16  \
	VORR  V6.B16, V4.B16, V4.B16  \
	WORD  $0x6e203645 /* CMHI V5.16B, V18.16B, V0.16B: V5 = 0x80 > V0, the ASCII lanes */ \
	VAND  V5.B16, V4.B16, V4.B16  \
	WORD  $0x6e303c45 /* CMHS V5.16B, V2.16B, V16.16B: two back >= 0xE0 */ \
	WORD  $0x6e313c66 /* CMHS V6.16B, V3.16B, V17.16B: three back >= 0xF0 */ \
	VORR  V6.B16, V5.B16, V5.B16  \
	VAND  V18.B16, V5.B16, V5.B16 \
	VUSHR $4, V1.B16, V6.B16      \
	VTBL  V6.B16, [V12.B16], V6.B16 \
	VAND  V15.B16, V1.B16, V7.B16 \
	VTBL  V7.B16, [V13.B16], V7.B16 \
	VAND  V7.B16, V6.B16, V6.B16  \
	VUSHR $4, V0.B16, V7.B16      \
	VTBL  V7.B16, [V14.B16], V7.B16 \
	VAND  V7.B16, V6.B16, V6.B16  \
	VEOR  V5.B16, V6.B16, V6.B16  \
	VCMEQ V19.B16, V2.B16, V8.B16 \
	VAND  V29.B16, V8.B16, V8.B16 \
	VORR  V4.B16, V6.B16, V7.B16  \
	VORR  V8.B16, V7.B16, V7.B16  \
	WORD  $0x6e30a8e9 /* UMAXV B9, V7.16B */ \
	VMOV  V9.B[0], R9

// func escapeUUNEON(dst, src []byte, kt *[ktWords]uint64, esc *[128]uint64, lt bool) (nsrc, ndst int)
//
// Contract:
//   The "neon" kernel under UNESCAPED_UNICODE (runKernel's contract for a kernel in
//   uuKernels): as escapeBlocksNEON, except that valid multi-byte UTF-8 sequences are copied
//   unchanged (the output PHP gives them under UNESCAPED_UNICODE), and that U+2028/U+2029
//   (E2 80 A8/A9) stop it unless lt (UNESCAPED_LINE_TERMINATORS). src[0] must start a
//   character. It stops at a character boundary at or before the first invalid sequence or
//   line terminator (up to 3 bytes earlier, before a valid character), or when fewer than 32
//   bytes are left; the bytes it stops at are left to the caller. With len(src) < 32 it does
//   nothing (0, 0).
//
// Memory:
//   Reads src[0:min(len(src), nsrc+35)] (a block, the 16 bytes after an escape, and the three
//   bytes before a block, never before src[0]), kt bytes 32..143, esc and the lookup tables.
//   Needs len(dst) >= 6*len(src); writes dst[0:ndst+19] at most: a block is stored before it
//   is checked, so a block that sends the kernel back leaves up to 16+3 bytes past ndst, while
//   at least 32+3 bytes of src are left. The caller's escape of those bytes overwrites them
//   unless it shrinks (IGNORE, or SUBSTITUTE with UNESCAPED_UNICODE; escapeLong then gives the
//   escape a buffer of its own), as runKernel allows.
//
// Registers:
//   R0 dst base, R1 src base, R2 len(src), R3 kt, R4 src cursor, R5 dst cursor,
//   R6 src+len-32 (the last block address with 32 bytes left), R7 lt, R8 temp,
//   R9 UMAXV result, then the lane mask, R12-R17 the escape loop (as escapeBlocksNEON),
//   R20 esc.
//   V0 the block, V1/V2/V3 the bytes one/two/three back, V4 escape lanes, V6 UTF-8 errors,
//   V5, V7-V11 temps; V12/V13/V14 the lookup tables, V15 0x0F, V16 0xE0, V17 0xF0,
//   V18 0x80, V19 0xE2, V20 0x20, V21..V27 the seven special-byte groups of kt (unused ones
//   hold 0xFF; escape lanes are masked to ASCII), V28 zero, V29 0xFF (0 when lt), V30 0xA9,
//   V31 0x01.
//
// Algorithm:
//   One pass over 16-byte blocks while 32 bytes are left. Each block is stored unchanged,
//   then checked (UUCHECK): escapes by CMHI/CMEQ, validity by the Keiser–Lemire lookups of
//   the byte one back (two nibbles) and of the current byte's high nibble, XOR-ed with
//   "must be a third or fourth byte" from CMHS of the bytes two and three back (0xE0, 0xF0),
//   so a sequence that straddles two blocks is checked in the second. The bytes one to three
//   back are unaligned loads at R4-1..R4-3, except for the first block, where VEXT shifts in
//   zeros (src[0] starts a character). The accepted set is RFC 3629, exactly PHP's
//   php_next_utf8_char successes. One UMAXV over escapes|errors|E2-two-back tests the block.
//   Slow path: any error, or (without lt) an exact E2 80 A8/A9, returns to Go at the start of
//   the block, moved back to the lead byte of a character that straddles into it (found from
//   the three validated bytes before it); otherwise every escape of the block is written as
//   in escapeBlocksNEON (lanes found by SHRN, each escape stored, then the 16 bytes after it
//   reloaded and stored) before the loop goes on.
TEXT ·escapeUUNEON(SB), NOSPLIT, $0-88
	MOVD  dst_base+0(FP), R0
	MOVD  src_base+24(FP), R1
	MOVD  src_len+32(FP), R2
	MOVD  kt+48(FP), R3
	MOVD  esc+56(FP), R20
	MOVBU lt+64(FP), R7
	MOVD  R1, R4
	MOVD  R0, R5
	ADD   R1, R2, R6
	SUB   $32, R6, R6
	CMP   R6, R4
	BHI   uuret

	MOVD   $utf8lookupNEON<>(SB), R8
	VLD1   (R8), [V12.B16, V13.B16, V14.B16]
	VMOVI  $0x0F, V15.B16
	VMOVI  $0xE0, V16.B16
	VMOVI  $0xF0, V17.B16
	VMOVI  $0x80, V18.B16
	VMOVI  $0xE2, V19.B16
	VMOVI  $0x20, V20.B16
	ADD    $32, R3, R8
	VLD1.P 64(R8), [V21.B16, V22.B16, V23.B16, V24.B16]
	VLD1   (R8), [V25.B16, V26.B16, V27.B16]
	VEOR   V28.B16, V28.B16, V28.B16
	VMOVI  $0xFF, V29.B16
	CBZ    R7, uunolt
	VEOR   V29.B16, V29.B16, V29.B16

uunolt:
	VMOVI $0xA9, V30.B16
	VMOVI $0x01, V31.B16

	// The first block: nothing before it.
	VLD1 (R4), [V0.B16]
	VST1 [V0.B16], (R5)
	VEXT $15, V0.B16, V28.B16, V1.B16
	VEXT $14, V0.B16, V28.B16, V2.B16
	VEXT $13, V0.B16, V28.B16, V3.B16
	UUCHECK
	CBNZ R9, uuslow
	ADD  $16, R4
	ADD  $16, R5

uuloop:
	CMP  R6, R4
	BHI  uuback
	VLD1 (R4), [V0.B16]
	VST1 [V0.B16], (R5)
	SUB  $1, R4, R8
	VLD1 (R8), [V1.B16]
	SUB  $2, R4, R8
	VLD1 (R8), [V2.B16]
	SUB  $3, R4, R8
	VLD1 (R8), [V3.B16]
	UUCHECK
	CBNZ R9, uuslow
	ADD  $16, R4
	ADD  $16, R5
	B    uuloop

uuslow:
	WORD $0x6e30a8c9 // UMAXV B9, V6.16B: any UTF-8 error?
	VMOV V9.B[0], R9
	CBNZ R9, uuback
	CBNZ R7, uuesc

	// E2 two bytes back: is it E2 80 A8/A9?
	VCMEQ V19.B16, V2.B16, V8.B16
	VCMEQ V18.B16, V1.B16, V9.B16
	VAND  V9.B16, V8.B16, V8.B16
	VORR  V31.B16, V0.B16, V10.B16
	VCMEQ V30.B16, V10.B16, V10.B16
	VAND  V10.B16, V8.B16, V8.B16
	WORD  $0x6e30a909 // UMAXV B9, V8.16B
	VMOV  V9.B[0], R9
	CBNZ  R9, uuback

uuesc:
	WORD $0x0f0c8489 // SHRN V9.8B, V4.8H, #4: a nibble per lane, 0xF where V4 is 0xFF
	VMOV V9.D[0], R9
	AND  $0x1111111111111111, R9, R9 // bit 4j for escape lane j
	CBZ  R9, uuclean
	MOVD R4, R12

uudirty:
	RBIT  R9, R13
	CLZ   R13, R13          // 4j
	ADD   R13>>2, R4, R14   // &src[i+j]
	SUB   R12, R14, R15
	ADD   R15, R5, R5       // move over the lanes before j, already in place
	MOVBU (R14), R16        // ASCII: an escape lane of a valid block
	MOVD  (R20)(R16<<3), R17
	MOVD  R17, (R5)
	ADD   R17>>56, R5, R5
	ADD   $1, R14, R12
	VLD1  (R12), [V5.B16]   // src[i+j+1:i+j+17], inside src[:i+32]
	VST1  [V5.B16], (R5)
	SUB   $1, R9, R13
	AND   R13, R9, R9
	CBNZ  R9, uudirty

	ADD $16, R4, R4
	SUB R12, R4, R13
	ADD R13, R5, R5
	B   uuloop

uuclean:
	ADD $16, R4
	ADD $16, R5
	B   uuloop

uuback:
	// Return at the lead byte of a character that straddles into the block at R4.
	CMP   R1, R4
	BEQ   uuret
	MOVBU -1(R4), R8
	CMP   $0xC0, R8
	BHS   uuback1
	MOVBU -2(R4), R8
	CMP   $0xE0, R8
	BHS   uuback2
	MOVBU -3(R4), R8
	CMP   $0xF0, R8
	BLO   uuret
	SUB   $1, R4
	SUB   $1, R5

uuback2:
	SUB $1, R4
	SUB $1, R5

uuback1:
	SUB $1, R4
	SUB $1, R5

uuret:
	SUB  R1, R4, R4
	SUB  R0, R5, R5
	MOVD R4, nsrc+72(FP)
	MOVD R5, ndst+80(FP)
	RET

// The hex digits by nibble, for TBL.
DATA hexNEON<>+0(SB)/8, $0x3736353433323130
DATA hexNEON<>+8(SB)/8, $0x6665646362613938
GLOBL hexNEON<>(SB), RODATA|NOPTR, $16

// MASK(shrn, R) moves the 0xFF/0x00 lanes of the vector register shrn narrows to R as one bit per lane (bit 4j for lane j): SHRN
// narrows to a nibble per lane in V9, and the AND keeps one bit of each.
#define MASK(shrn, R) \
	WORD shrn                           \
	VMOV V9.D[0], R                     \
	AND  $0x1111111111111111, R, R

// func escapeMBNEON(dst, src []byte, kt *[ktWords]uint64, esc *[128]uint64) (nsrc, ndst int)
//
// Contract:
//   The "neon" kernel for option sets without UNESCAPED_UNICODE (runKernel's contract for a
//   kernel in mbKernels): as escapeBlocksNEON for ASCII, and every valid multi-byte sequence
//   is written as \uXXXX with lower-case hex digits (a code point above U+FFFF as its UTF-16
//   surrogate pair; U+2028/U+2029 like any other). src[0] must start a character. It stops
//   at the last character start before the first invalid sequence (the sequence itself, or
//   an ASCII byte before a stray continuation byte), or when fewer than 32 bytes are left.
//
// Memory:
//   Reads src[0:min(len(src), nsrc+32)], kt bytes 32..143, esc and its tables. Needs
//   len(dst) >= 6*len(src); writes dst[0:ndst+16] at most (block stores and 8-byte slot
//   stores run ahead of the output while at least 16 bytes of src are left), as runKernel
//   allows.
//
// Registers:
//   R0 dst base, R1 src base, R2 len(src), R3 kt, R4 src cursor (a character boundary),
//   R5 dst cursor, R6 src+len-32, R7 the slots (stack), R23 the lengths (stack), R20 esc,
//   R10 errors, R11 escapes, R12 continuation bytes, R13/R14/R15 2-/3-/4-byte leads (one bit
//   per lane, bit 4j), R19 B (bits: 4 x lanes), R21 1 when the window ends at an invalid
//   sequence, R22 the units, R8/R9/R16/R17 temps.
//   V12-V14 the Keiser–Lemire tables, V15 0x0F, V16 0xE0, V17 0xF0, V18 0x80, V20 0x20,
//   V21-V27 the special-byte groups of kt, V28 zero; the rest per window.
//
// Algorithm: escapeMBAVX2's (fast/_asm/mb.go) on 16-byte windows: a clean window is stored;
//   an ASCII window with escapes goes to the escape loop of escapeUUNEON; a window with a
//   byte >= 0x80 is validated (the bytes before it taken as zeros: it starts at a boundary)
//   and cut at B, the first lead whose sequence does not end in it, the first escaped ASCII
//   byte or the start of the first invalid sequence (B = 0: escape that byte, or return).
//   For each lane the code unit a character starting there needs is computed as four nibble
//   vectors from the byte and the next two (P, Q = the byte and the next for a 2-byte lead,
//   the next two for a 3-byte lead; the high surrogate at a 4-byte lead, the low one two
//   lanes further), hex digits by TBL, and 8-byte slots (\uXXXX, or the ASCII byte) by three
//   rounds of ZIP1/ZIP2, stored to the stack with their lengths (1 or 6); then for each unit
//   (character starts and low-surrogate lanes before B) one 8-byte store and R5 += length.
TEXT ·escapeMBNEON(SB), NOSPLIT, $176-80
	MOVD  dst_base+0(FP), R0
	MOVD  src_base+24(FP), R1
	MOVD  src_len+32(FP), R2
	MOVD  kt+48(FP), R3
	MOVD  esc+56(FP), R20
	MOVD  R1, R4
	MOVD  R0, R5
	ADD   R1, R2, R6
	SUB   $32, R6, R6
	ADD   $16, RSP, R7
	ADD   $128, R7, R23
	CMP   R6, R4
	BHI   mbret

	MOVD   $utf8lookupNEON<>(SB), R8
	VLD1   (R8), [V12.B16, V13.B16, V14.B16]
	VMOVI  $0x0F, V15.B16
	VMOVI  $0xE0, V16.B16
	VMOVI  $0xF0, V17.B16
	VMOVI  $0x80, V18.B16
	VMOVI  $0x20, V20.B16
	ADD    $32, R3, R8
	VLD1.P 64(R8), [V21.B16, V22.B16, V23.B16, V24.B16]
	VLD1   (R8), [V25.B16, V26.B16, V27.B16]
	VEOR   V28.B16, V28.B16, V28.B16

mbloop:
	CMP  R6, R4
	BHI  mbret
	VLD1 (R4), [V0.B16]
	// V4 = escaped ASCII lanes (as UUCHECK); clean means no escape and no byte >= 0x80.
	WORD  $0x6e203684 // CMHI V4.16B, V20.16B, V0.16B: V4 = 0x20 > V0 (unsigned)
	VCMEQ V21.B16, V0.B16, V5.B16
	VCMEQ V22.B16, V0.B16, V6.B16
	VCMEQ V23.B16, V0.B16, V7.B16
	VCMEQ V24.B16, V0.B16, V8.B16
	VORR  V5.B16, V4.B16, V4.B16
	VORR  V6.B16, V7.B16, V6.B16
	VORR  V8.B16, V4.B16, V4.B16
	VORR  V6.B16, V4.B16, V4.B16
	VCMEQ V25.B16, V0.B16, V5.B16
	VCMEQ V26.B16, V0.B16, V6.B16
	VCMEQ V27.B16, V0.B16, V7.B16
	VORR  V5.B16, V4.B16, V4.B16
	VORR  V6.B16, V7.B16, V6.B16
	VORR  V6.B16, V4.B16, V4.B16
	WORD  $0x6e203645 // CMHI V5.16B, V18.16B, V0.16B: V5 = 0x80 > V0, the ASCII lanes
	VAND  V5.B16, V4.B16, V4.B16
	VORR  V4.B16, V0.B16, V7.B16
	WORD  $0x6e30a8e9 // UMAXV B9, V7.16B
	VMOV  V9.B[0], R9
	CMP   $0x80, R9
	BHS   mbdirtywin
	VST1  [V0.B16], (R5)
	ADD   $16, R4
	ADD   $16, R5
	B     mbloop

mbdirtywin:
	WORD $0x6e30a809 // UMAXV B9, V0.16B: any byte >= 0x80?
	VMOV V9.B[0], R9
	CMP  $0x80, R9
	BHS  mbwin
	VST1 [V0.B16], (R5)
	B    mbesc

mbwin:
	// 1. Validation, the bytes before the window zeros (V1/V2/V3 one/two/three back).
	VEXT  $15, V0.B16, V28.B16, V1.B16
	VEXT  $14, V0.B16, V28.B16, V2.B16
	VEXT  $13, V0.B16, V28.B16, V3.B16
	WORD  $0x6e303c45 // CMHS V5.16B, V2.16B, V16.16B: two back >= 0xE0
	WORD  $0x6e313c66 // CMHS V6.16B, V3.16B, V17.16B: three back >= 0xF0
	VORR  V6.B16, V5.B16, V5.B16
	VAND  V18.B16, V5.B16, V5.B16
	VUSHR $4, V1.B16, V6.B16
	VTBL  V6.B16, [V12.B16], V6.B16
	VAND  V15.B16, V1.B16, V7.B16
	VTBL  V7.B16, [V13.B16], V7.B16
	VAND  V7.B16, V6.B16, V6.B16
	VUSHR $4, V0.B16, V10.B16 // high nibbles
	VTBL  V10.B16, [V14.B16], V7.B16
	VAND  V7.B16, V6.B16, V6.B16
	VEOR  V5.B16, V6.B16, V6.B16
	VCMTST V6.B16, V6.B16, V6.B16
	// Masks: R10 errors, R11 escapes, R12 continuation bytes, R13/R14/R15 2-/3-/4-byte
	// leads; V30/V31 keep the 3-/4-byte leads as lanes.
	MASK($0x0f0c84c9, R10) // SHRN V9.8B, V6.8H, #4
	MASK($0x0f0c8489, R11) // SHRN V9.8B, V4.8H, #4
	VMOVI $0xC0, V7.B16
	VAND  V7.B16, V0.B16, V7.B16
	VCMEQ V18.B16, V7.B16, V7.B16
	MASK($0x0f0c84e9, R12) // SHRN V9.8B, V7.8H, #4
	VMOVI $0x0E, V8.B16
	VAND  V8.B16, V10.B16, V11.B16
	VMOVI $0x0C, V7.B16
	VCMEQ V7.B16, V11.B16, V11.B16
	MASK($0x0f0c8569, R13) // SHRN V9.8B, V11.8H, #4
	VCMEQ V8.B16, V10.B16, V30.B16
	MASK($0x0f0c87c9, R14) // SHRN V9.8B, V30.8H, #4
	VCMEQ V15.B16, V10.B16, V31.B16
	MASK($0x0f0c87e9, R15) // SHRN V9.8B, V31.8H, #4

	// 2. B (R19, in bits: 4 per lane): the first lead whose sequence does not end in the
	// window (2-byte at lane 15, 3-byte at 14-15, 4-byte at 13-15), else 64 ...
	AND  $(1<<60), R13, R16
	MOVD $(1<<56|1<<60), R8
	AND  R8, R14, R17
	ORR  R17, R16, R16
	MOVD $(1<<52|1<<56|1<<60), R8
	AND  R8, R15, R17
	ORR  R17, R16, R16
	MOVD $64, R19
	CBZ  R16, mbnoinc
	RBIT R16, R17
	CLZ  R17, R19

mbnoinc:
	// ... or the first escaped ASCII byte ...
	CBZ  R11, mbnoesc
	RBIT R11, R17
	CLZ  R17, R17
	CMP  R19, R17
	CSEL LT, R17, R19, R19

mbnoesc:
	// ... or the start of the first invalid sequence, of the errors at lanes <= B: the last
	// character start before the first error, or 0 when there is none.
	MOVD ZR, R21
	CMP  $64, R19
	BEQ  mballerr
	MOVD $2, R17
	LSL  R19, R17, R17
	SUB  $1, R17, R17
	AND  R17, R10, R10

mballerr:
	CBZ  R10, mbvalid
	RBIT R10, R17
	CLZ  R17, R17
	MOVD $1, R16
	LSL  R17, R16, R16
	SUB  $1, R16, R16
	MVN  R12, R8
	AND  $0x1111111111111111, R8, R8
	AND  R16, R8, R8
	MOVD ZR, R19
	CBZ  R8, mbseterr
	CLZ  R8, R16
	MOVD $63, R19
	SUB  R16, R19, R19

mbseterr:
	MOVD $1, R21

mbvalid:
	CBNZ R19, mbunits
	CBNZ R21, mbret
	// B = 0: an escaped ASCII byte here.
	MOVBU (R4), R16
	MOVD  (R20)(R16<<3), R17
	MOVD  R17, (R5)
	ADD   R17>>56, R5, R5
	ADD   $1, R4
	B     mbloop

mbunits:
	// R22 = the units: character starts and low-surrogate lanes (4-byte leads + 2), before B.
	MVN  R12, R22
	LSL  $8, R15, R16
	ORR  R16, R22, R22
	AND  $0x1111111111111111, R22, R22
	CMP  $64, R19
	BEQ  mballunits
	MOVD $1, R16
	LSL  R19, R16, R16
	SUB  $1, R16, R16
	AND  R16, R22, R22

mballunits:
	// 3. Slots. V7 = low-surrogate lanes (a 4-byte lead two back), V1 = n1, V2 = n2,
	// V3 = P, V8 = Q, V19 = 0x03.
	VUSHR $4, V2.B16, V7.B16
	VCMEQ V15.B16, V7.B16, V7.B16
	ADD   $1, R4, R8
	VLD1  (R8), [V1.B16]
	ADD   $2, R4, R8
	VLD1  (R8), [V2.B16]
	VORR  V30.B16, V30.B16, V3.B16
	VBSL  V0.B16, V1.B16, V3.B16
	VORR  V30.B16, V30.B16, V8.B16
	VBSL  V1.B16, V2.B16, V8.B16
	VMOVI $0x03, V19.B16
	// N3 (V11) = Q & 0x0F; V8 = (Q >> 4) & 3; N2 (V4) = (P & 3) << 2 | V8.
	VAND  V15.B16, V8.B16, V11.B16
	VUSHR $4, V8.B16, V8.B16
	VAND  V19.B16, V8.B16, V8.B16
	VAND  V19.B16, V3.B16, V4.B16
	VSHL  $2, V4.B16, V4.B16
	VORR  V8.B16, V4.B16, V4.B16
	// N1 (V5) = (P >> 2) & 0x0F; 0x0C | (P >> 2) & 3 at a low surrogate.
	VUSHR $2, V3.B16, V5.B16
	VAND  V15.B16, V5.B16, V5.B16
	VAND  V19.B16, V5.B16, V6.B16
	VMOVI $0x0C, V9.B16
	VORR  V9.B16, V6.B16, V6.B16
	VBIT  V7.B16, V6.B16, V5.B16
	// N0 (V6) = x & 0x0F at a 3-byte lead, 0x0D at a surrogate, else 0.
	VAND  V15.B16, V0.B16, V6.B16
	VAND  V30.B16, V6.B16, V6.B16
	VORR  V31.B16, V7.B16, V9.B16
	VMOVI $0x0D, V10.B16
	VBIT  V9.B16, V10.B16, V6.B16
	// High surrogates, if any: w (V9) = ((x & 7) << 2 | V8) - 1, N1 = 8 | w >> 2,
	// N2 = (w & 3) << 2 | (n1 >> 2) & 3, N3 = (n1 & 3) << 2 | (n2 >> 4) & 3.
	CBZ   R15, mbhex
	VMOVI $0x07, V9.B16
	VAND  V9.B16, V0.B16, V9.B16
	VSHL  $2, V9.B16, V9.B16
	VORR  V8.B16, V9.B16, V9.B16
	VMOVI $0x01, V10.B16
	VSUB  V10.B16, V9.B16, V9.B16
	VUSHR $2, V9.B16, V10.B16
	VAND  V19.B16, V10.B16, V10.B16
	VMOVI $0x08, V8.B16
	VORR  V8.B16, V10.B16, V10.B16
	VBIT  V31.B16, V10.B16, V5.B16
	VAND  V19.B16, V9.B16, V10.B16
	VSHL  $2, V10.B16, V10.B16
	VUSHR $2, V1.B16, V8.B16
	VAND  V19.B16, V8.B16, V8.B16
	VORR  V8.B16, V10.B16, V10.B16
	VBIT  V31.B16, V10.B16, V4.B16
	VAND  V19.B16, V1.B16, V10.B16
	VSHL  $2, V10.B16, V10.B16
	VUSHR $4, V2.B16, V8.B16
	VAND  V19.B16, V8.B16, V8.B16
	VORR  V8.B16, V10.B16, V10.B16
	VBIT  V31.B16, V10.B16, V11.B16

mbhex:
	// Hex digits H0-H3 (V6, V5, V4, V11); S0 (V0) = x for ASCII else '\\', S1 (V9) = 0 for
	// ASCII else 'u'; lengths (V3) 1 for ASCII else 6.
	MOVD   $hexNEON<>(SB), R8
	VLD1   (R8), [V10.B16]
	VTBL   V6.B16, [V10.B16], V6.B16
	VTBL   V5.B16, [V10.B16], V5.B16
	VTBL   V4.B16, [V10.B16], V4.B16
	VTBL   V11.B16, [V10.B16], V11.B16
	VCMTST V18.B16, V0.B16, V8.B16
	VMOVI  $0x5C, V9.B16
	VBIT   V8.B16, V9.B16, V0.B16
	VMOVI  $0x75, V9.B16
	VAND   V8.B16, V9.B16, V9.B16
	VMOVI  $0x05, V3.B16
	VAND   V8.B16, V3.B16, V3.B16
	VMOVI  $0x01, V7.B16
	VADD   V7.B16, V3.B16, V3.B16
	VST1   [V3.B16], (R23)
	// Slots [S0 S1 H0 H1 H2 H3 0 0] by zipping bytes, halfwords, words: lane order kept.
	VZIP1 V9.B16, V0.B16, V1.B16
	VZIP2 V9.B16, V0.B16, V2.B16
	VZIP1 V5.B16, V6.B16, V3.B16
	VZIP2 V5.B16, V6.B16, V7.B16
	VZIP1 V11.B16, V4.B16, V8.B16
	VZIP2 V11.B16, V4.B16, V10.B16
	VZIP1 V3.H8, V1.H8, V0.H8
	VZIP2 V3.H8, V1.H8, V4.H8
	VZIP1 V7.H8, V2.H8, V5.H8
	VZIP2 V7.H8, V2.H8, V6.H8
	VZIP1 V28.H8, V8.H8, V1.H8
	VZIP2 V28.H8, V8.H8, V2.H8
	VZIP1 V28.H8, V10.H8, V3.H8
	VZIP2 V28.H8, V10.H8, V7.H8
	VZIP1 V1.S4, V0.S4, V8.S4
	VZIP2 V1.S4, V0.S4, V9.S4
	VZIP1 V2.S4, V4.S4, V10.S4
	VZIP2 V2.S4, V4.S4, V11.S4
	VST1  [V8.B16, V9.B16, V10.B16, V11.B16], (R7)
	ADD   $64, R7, R8
	VZIP1 V3.S4, V5.S4, V8.S4
	VZIP2 V3.S4, V5.S4, V9.S4
	VZIP1 V7.S4, V6.S4, V10.S4
	VZIP2 V7.S4, V6.S4, V11.S4
	VST1  [V8.B16, V9.B16, V10.B16, V11.B16], (R8)

	// 4. The units, lowest first: the slot's 8 bytes at R5, R5 += its length.
mbplace:
	RBIT  R22, R16
	CLZ   R16, R16
	LSR   $2, R16, R17
	MOVD  (R7)(R17<<3), R8
	MOVD  R8, (R5)
	MOVBU (R23)(R17), R8
	ADD   R8, R5, R5
	SUB   $1, R22, R16
	AND   R16, R22, R22
	CBNZ  R22, mbplace
	ADD   R19>>2, R4, R4
	CBNZ  R21, mbret
	B     mbloop

mbesc:
	// An ASCII window with escapes (V4), stored at R5: escapeUUNEON's escape loop.
	MASK($0x0f0c8489, R9) // SHRN V9.8B, V4.8H, #4
	MOVD R4, R12

mbdirty:
	RBIT  R9, R13
	CLZ   R13, R13
	ADD   R13>>2, R4, R14
	SUB   R12, R14, R15
	ADD   R15, R5, R5
	MOVBU (R14), R16
	MOVD  (R20)(R16<<3), R17
	MOVD  R17, (R5)
	ADD   R17>>56, R5, R5
	ADD   $1, R14, R12
	VLD1  (R12), [V5.B16]
	VST1  [V5.B16], (R5)
	SUB   $1, R9, R13
	AND   R13, R9, R9
	CBNZ  R9, mbdirty
	ADD   $16, R4, R4
	SUB   R12, R4, R13
	ADD   R13, R5, R5
	B     mbloop

mbret:
	SUB  R1, R4, R4
	SUB  R0, R5, R5
	MOVD R4, nsrc+64(FP)
	MOVD R5, ndst+72(FP)
	RET
