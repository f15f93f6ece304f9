package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// validAVX512 emits the Keiser–Lemire check of escapeUUAVX2 on its own, on 64-byte blocks with
// no output, so that escapeLong can prove a long non-ASCII string valid before it writes into
// the caller's spare capacity. (An AVX2 form, 32-byte blocks, was measured too: on this
// machine it cost more than the scratch buffer's copy it saves, even on CJK text.)
func validAVX512() {
	TEXT("validAVX512", NOSPLIT, "func(s []byte) int")
	Doc("validAVX512 checks the whole 64-byte blocks of s for UTF-8 as json_encode decodes it:",
		"it returns how many bytes it checked (a multiple of 64), or -1 if one of them ends",
		"an invalid sequence. It requires AVX-512 BW and VBMI; s[0] must start a character.")
	Comment(
		"validAVX512: the contract above. A sequence that the blocks cut is not judged: the",
		"caller checks from the start of the character that holds the last byte checked (at",
		"most 3 bytes back) to the end of s.",
		"",
		"Registers: SI = position, DX = end of s, BX = s; Z0 = the block, Z3/Z4/Z2 = the bytes",
		"1/2/3 back, Z15 = the OR of the blocks' error lanes, Z12-Z10 = the three validation",
		"tables, Z13/Z14/Z1 = 0x60/0x70/0x80, Z5-Z8 scratch.",
		"",
		"Algorithm: escapeUUAVX2's check (three lookups of the previous byte's nibbles and the",
		"current byte's high nibble, and saturating subtractions of the bytes two and three",
		"back; RFC 3629, exactly php_next_utf8_char's successes). The lookups are VPERMB of",
		"the 16-byte tables repeated four times (an index's bits 4 and 5 pick a copy, so no",
		"mask is needed), the ANDs, ORs and XORs VPTERNLOGD. The bytes back are unaligned",
		"loads at SI-1..SI-3, but in the first block, at the start of s, where they are the",
		"block shifted with zeros in. Four blocks a round; a round whose bytes and the 3",
		"before them are all ASCII has nothing to check and is skipped.",
	)
	si := Load(Param("s").Base(), RSI)
	Load(Param("s").Len(), RDX)
	MOVQ(si, RBX)
	ADDQ(RSI, RDX)
	VBROADCASTI64X4(k(kByte1High), Z12)
	VBROADCASTI64X4(k(kByte1Low), Z11)
	VBROADCASTI64X4(k(kByte2High), Z10)
	VBROADCASTI64X4(k(k60), Z13)
	VBROADCASTI64X4(k(k70), Z14)
	VBROADCASTI64X4(k(k80), Z1)
	VPXORQ(Z15, Z15, Z15)
	LEAQ(mem(RSI, 64), RAX)
	CMPQ(RAX, RDX)
	JHI(LabelRef("done"))
	Comment("The first block: the bytes back are the block shifted, zeros in.")
	VMOVDQU64(mem(RSI, 0), Z0)
	VMOVDQU64(k(kPrev), Z8)
	MOVQ(I64(-2), RAX)
	KMOVQ(RAX, K5)
	VPERMB_Z(Z0, Z8, K5, Z3)
	VPERMB_Z(Z3, Z8, K5, Z4)
	VPERMB_Z(Z4, Z8, K5, Z2)
	validCheck()
	ADDQ(U8(64), RSI)

	Label("loop4")
	Comment("Four blocks a round: skipped together when they and the 3 bytes before them are",
		"ASCII, else all checked.")
	LEAQ(mem(RSI, 256), RAX)
	CMPQ(RAX, RDX)
	JHI(LabelRef("loop"))
	VMOVDQU64(mem(RSI, -3), Z5)
	VPORQ(mem(RSI, 0), Z5, Z5)
	VPORQ(mem(RSI, 64), Z5, Z5)
	VPORQ(mem(RSI, 128), Z5, Z5)
	VPORQ(mem(RSI, 192), Z5, Z5)
	VPMOVB2M(Z5, K1)
	KORTESTQ(K1, K1)
	JZ(LabelRef("skip4"))
	for i := 0; i < 4; i++ {
		validLoad(64 * i)
		validCheck()
	}
	Label("skip4")
	ADDQ(U32(256), RSI)
	JMP(LabelRef("loop4"))

	Label("loop")
	Comment("One block a round for the last 1 to 3.")
	LEAQ(mem(RSI, 64), RAX)
	CMPQ(RAX, RDX)
	JHI(LabelRef("done"))
	validLoad(0)
	validCheck()
	ADDQ(U8(64), RSI)
	JMP(LabelRef("loop"))

	Label("done")
	Comment("AX = bytes checked, or -1 if a block had an error lane.")
	MOVQ(RSI, RAX)
	SUBQ(RBX, RAX)
	MOVQ(I64(-1), RCX)
	VPTESTMB(Z15, Z15, K1)
	KORTESTQ(K1, K1)
	CMOVQNE(RCX, RAX)
	Store(RAX, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// validLoad loads the block at SI+off into Z0 and the bytes 1, 2 and 3 back into Z3, Z4, Z2.
func validLoad(off int) {
	VMOVDQU64(mem(RSI, off), Z0)
	VMOVDQU64(mem(RSI, off-1), Z3)
	VMOVDQU64(mem(RSI, off-2), Z4)
	VMOVDQU64(mem(RSI, off-3), Z2)
}

// validCheck ORs the error lanes of the block in Z0 (bytes back in Z3, Z4, Z2) into Z15.
func validCheck() {
	Comment("must23_80: 0x80 where a third or fourth byte must be a continuation.")
	VPSUBUSB(Z13, Z4, Z5)
	VPSUBUSB(Z14, Z2, Z6)
	VPTERNLOGD(U8(0xA8), Z1, Z6, Z5) // (Z5 | Z6) & Z1
	Comment("Special cases: byte1 high nibble & byte1 low nibble & byte2 high nibble.")
	VPSRLW(U8(4), Z3, Z6)
	VPERMB(Z12, Z6, Z6)
	VPERMB(Z11, Z3, Z7)
	VPSRLW(U8(4), Z0, Z8)
	VPERMB(Z10, Z8, Z8)
	VPTERNLOGD(U8(0x80), Z8, Z7, Z6)  // Z6 & Z7 & Z8
	VPTERNLOGD(U8(0xF6), Z5, Z6, Z15) // Z15 | (Z6 ^ Z5)
}
