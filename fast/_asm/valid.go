package main

import (
	"strconv"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// validUTF8 emits validAVX2 (x512 false: 32-byte blocks) or validAVX512 (64-byte blocks):
// the Keiser–Lemire check of escapeUUAVX2 on its own, with no output, so that escapeLong can
// prove a long non-ASCII string valid before it writes into the caller's spare capacity.
func validUTF8(x512 bool) {
	name, w, z := "validAVX2", 32, func(i int) VecPhysical {
		return []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15}[i]
	}
	if x512 {
		name, w, z = "validAVX512", 64, func(i int) VecPhysical {
			return []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15}[i]
		}
	}
	TEXT(name, NOSPLIT, "func(s []byte) int")
	req := "AVX2"
	if x512 {
		req = "AVX-512 BW and VBMI"
	}
	Doc(name+" checks the whole "+strconv.Itoa(w)+"-byte blocks of s for UTF-8 as json_encode decodes it:",
		"it returns how many bytes it checked (a multiple of "+strconv.Itoa(w)+"), or -1 if one of",
		"them ends an invalid sequence. It requires "+req+"; s[0] must start a character.")
	Comment(
		name+": the contract above. A sequence that the blocks cut is not judged: the caller",
		"checks from the start of the character that holds the last byte checked (at most 3",
		"bytes back) to the end of s.",
		"",
		"Registers: SI = position, DX = end of s, BX = s; "+vname(z, 0)+" = the block, "+vname(z, 3)+"/"+vname(z, 4)+"/"+vname(z, 2)+" =",
		"the bytes 1/2/3 back, "+vname(z, 15)+" = the OR of the blocks' error lanes, "+vname(z, 12)+"-"+vname(z, 9)+" = the three",
		"validation tables and 0x0F, "+vname(z, 13)+"/"+vname(z, 14)+"/"+vname(z, 1)+" = 0x60/0x70/0x80, "+vname(z, 5)+"-"+vname(z, 8)+" scratch.",
		"",
		"Algorithm: escapeUUAVX2's check (three VPSHUFB lookups of the previous byte's",
		"nibbles and the current byte's high nibble, and saturating subtractions of the bytes",
		"two and three back; RFC 3629, exactly php_next_utf8_char's successes). The bytes",
		"back are unaligned loads at SI-1..SI-3, but in the first block, at the start of s,",
		"where they are the block shifted with zeros in. A block whose 3 bytes back and",
		"itself are all ASCII has nothing to check and is skipped.",
	)
	si := Load(Param("s").Base(), RSI)
	Load(Param("s").Len(), RDX)
	MOVQ(si, RBX)
	ADDQ(RSI, RDX)
	if x512 {
		VBROADCASTI64X4(k(kByte1High), Z12)
		VBROADCASTI64X4(k(kByte1Low), Z11)
		VBROADCASTI64X4(k(kByte2High), Z10)
		VBROADCASTI64X4(k(k0F), Z9)
		VBROADCASTI64X4(k(k60), Z13)
		VBROADCASTI64X4(k(k70), Z14)
		VBROADCASTI64X4(k(k80), Z1)
		VPXORQ(Z15, Z15, Z15)
	} else {
		VMOVDQU(k(kByte1High), Y12)
		VMOVDQU(k(kByte1Low), Y11)
		VMOVDQU(k(kByte2High), Y10)
		VMOVDQU(k(k0F), Y9)
		VMOVDQU(k(k60), Y13)
		VMOVDQU(k(k70), Y14)
		VMOVDQU(k(k80), Y1)
		VPXOR(Y15, Y15, Y15)
	}
	LEAQ(mem(RSI, w), RAX)
	CMPQ(RAX, RDX)
	JHI(LabelRef("done"))
	Comment("The first block: the bytes back are the block shifted, zeros in.")
	if x512 {
		VMOVDQU64(mem(RSI, 0), Z0)
		VMOVDQU64(k(kPrev), Z8)
		MOVQ(I64(-2), RAX)
		KMOVQ(RAX, K5)
		VPERMB_Z(Z0, Z8, K5, Z3)
		VPERMB_Z(Z3, Z8, K5, Z4)
		VPERMB_Z(Z4, Z8, K5, Z2)
	} else {
		VMOVDQU(mem(RSI, 0), Y0)
		VPXOR(Y8, Y8, Y8)
		VPERM2I128(U8(0x21), Y0, Y8, Y2)
		VPALIGNR(U8(15), Y2, Y0, Y3)
		VPALIGNR(U8(14), Y2, Y0, Y4)
		VPALIGNR(U8(13), Y2, Y0, Y2)
	}
	validCheck(x512, z)
	ADDQ(U8(w), RSI)

	Label("loop4")
	Comment("Four blocks a round: skipped together when they and the 3 bytes before them are",
		"ASCII, else all checked.")
	LEAQ(mem(RSI, 4*w), RAX)
	CMPQ(RAX, RDX)
	JHI(LabelRef("loop"))
	if x512 {
		VMOVDQU64(mem(RSI, -3), Z5)
		VPORQ(mem(RSI, 0), Z5, Z5)
		VPORQ(mem(RSI, w), Z5, Z5)
		VPORQ(mem(RSI, 2*w), Z5, Z5)
		VPORQ(mem(RSI, 3*w), Z5, Z5)
		VPMOVB2M(Z5, K1)
		KORTESTQ(K1, K1)
	} else {
		VMOVDQU(mem(RSI, -3), Y5)
		VPOR(mem(RSI, 0), Y5, Y5)
		VPOR(mem(RSI, w), Y5, Y5)
		VPOR(mem(RSI, 2*w), Y5, Y5)
		VPOR(mem(RSI, 3*w), Y5, Y5)
		VPMOVMSKB(Y5, EAX)
		TESTL(EAX, EAX)
	}
	JZ(LabelRef("skip4"))
	for i := 0; i < 4; i++ {
		validLoad(x512, z, i*w)
		validCheck(x512, z)
	}
	Label("skip4")
	ADDQ(U32(4*w), RSI)
	JMP(LabelRef("loop4"))

	Label("loop")
	Comment("One block a round for the last 1 to 3.")
	LEAQ(mem(RSI, w), RAX)
	CMPQ(RAX, RDX)
	JHI(LabelRef("done"))
	validLoad(x512, z, 0)
	validCheck(x512, z)
	ADDQ(U8(w), RSI)
	JMP(LabelRef("loop"))

	Label("done")
	Comment("AX = bytes checked, or -1 if a block had an error lane.")
	MOVQ(RSI, RAX)
	SUBQ(RBX, RAX)
	MOVQ(I64(-1), RCX)
	if x512 {
		VPTESTMB(Z15, Z15, K1)
		KORTESTQ(K1, K1)
	} else {
		VPTEST(Y15, Y15)
	}
	CMOVQNE(RCX, RAX)
	Store(RAX, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// vname is the name of vector register i of z's kind (for comments).
func vname(z func(int) VecPhysical, i int) string { return z(i).Asm() }

// validLoad loads the block at SI+off into 0 and the bytes 1, 2 and 3 back into 3, 4 and 2
// (z's registers).
func validLoad(x512 bool, z func(int) VecPhysical, off int) {
	if x512 {
		VMOVDQU64(mem(RSI, off), Z0)
		VMOVDQU64(mem(RSI, off-1), Z3)
		VMOVDQU64(mem(RSI, off-2), Z4)
		VMOVDQU64(mem(RSI, off-3), Z2)
		return
	}
	VMOVDQU(mem(RSI, off), Y0)
	VMOVDQU(mem(RSI, off-1), Y3)
	VMOVDQU(mem(RSI, off-2), Y4)
	VMOVDQU(mem(RSI, off-3), Y2)
}

// validCheck ORs the error lanes of the block in 0 (bytes back in 3, 4, 2) into 15. With
// AVX-512 the three table lookups are VPERMB of the table repeated four times (an index's
// bits 4 and 5 pick a copy, so no mask is needed) and the ANDs, ORs and XORs are VPTERNLOGD.
func validCheck(x512 bool, z func(int) VecPhysical) {
	Comment("must23_80: 0x80 where a third or fourth byte must be a continuation.")
	VPSUBUSB(z(13), z(4), z(5))
	VPSUBUSB(z(14), z(2), z(6))
	if x512 {
		VPTERNLOGD(U8(0xA8), Z1, Z6, Z5) // (Z5 | Z6) & Z1
		Comment("Special cases: byte1 high nibble & byte1 low nibble & byte2 high nibble.")
		VPSRLW(U8(4), Z3, Z6)
		VPERMB(Z12, Z6, Z6)
		VPERMB(Z11, Z3, Z7)
		VPSRLW(U8(4), Z0, Z8)
		VPERMB(Z10, Z8, Z8)
		VPTERNLOGD(U8(0x80), Z8, Z7, Z6)  // Z6 & Z7 & Z8
		VPTERNLOGD(U8(0xF6), Z5, Z6, Z15) // Z15 | (Z6 ^ Z5)
		return
	}
	VPOR(Y6, Y5, Y5)
	VPAND(Y1, Y5, Y5)
	Comment("Special cases: byte1 high nibble & byte1 low nibble & byte2 high nibble.")
	VPSRLW(U8(4), Y3, Y6)
	VPAND(Y9, Y6, Y6)
	VPSHUFB(Y6, Y12, Y6)
	VPAND(Y9, Y3, Y7)
	VPSHUFB(Y7, Y11, Y7)
	VPAND(Y7, Y6, Y6)
	VPSRLW(U8(4), Y0, Y7)
	VPAND(Y9, Y7, Y7)
	VPSHUFB(Y7, Y10, Y7)
	VPAND(Y7, Y6, Y6)
	VPXOR(Y5, Y6, Y6)
	VPOR(Y6, Y15, Y15)
}
