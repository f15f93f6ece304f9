package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// runs emits escapeMBAVX2's byte-triple path, taken at its "units" step (B > 0, the window
// valid before B) for the two kinds of window that make up real non-ASCII text: every
// character before B is ASCII or a 2- or 4-byte sequence (Cyrillic, Greek, Arabic, emoji:
// mode 3), or ASCII or a 3-byte sequence (CJK: mode 2). Any other window (3-byte sequences
// mixed with 2- or 4-byte ones) goes on at "slotpath", one slot per code unit.
//
// In these modes every byte of a multi-byte sequence writes the same number of output bytes,
// 3 (a 2-byte sequence's 6 bytes "\u0XYZ", a 4-byte one's 12 "\udXYZ\udXYZ") or 2 (a 3-byte
// sequence's 6 "\uWXYZ"), each a function of the byte and its neighbours:
//
//	lead of 2          \ u 0        its continuation   X Y Z   (X: previous byte; Y: both)
//	lead of 4          \ u d        2nd byte           high surrogate's last 3 digits
//	3rd byte           \ u d        4th byte           low surrogate's last 3 digits
//	lead of 3          \ u          2nd byte           W X     3rd byte   Y Z
//
// and an ASCII byte writes itself. So the window's output is the bytes' triples A, B, C
// (vectors of nibbles, hex digits by VPSHUFB), packed as one dword per byte, and written in
// groups of four bytes: a VPSHUFB table (kRun3, kRun2; 256 entries of two groups, by which of
// the eight bytes are ASCII) keeps 1 byte of an ASCII byte's dword and 3 (2) of the others',
// one 16-byte store per group, DI += the group's length (byte 15 of its half). A mode-2 window without ASCII and with B >=
// 16 skips the table: its pairs are two 32-byte stores.
//
// In: Y0 = x, Y3/Y4/Y2 = the bytes 1/2/3 before (prev1..prev3, zeros before the window), Y5 =
// bit 7 at 4-byte leads, Y6 = bit 7 at 3-byte leads, Y7 = x's high nibbles, Y8 = 0, Y9 = 0x0F,
// R13 = B, R14 = 4-byte leads (window), BX = continuation bytes (window). Out (at "wdone"): DI
// past the escape of the B bytes; the stores reach at most 32 bytes past it.
func runs() {
	Comment("Byte-triple path. CX = bytes >= 0x80 before B, AX = the mask of the positions",
		"before B, DX = 3-byte leads before B.")
	MOVL(R13L, ECX)
	MOVL(U32(1), EAX)
	SHLQ(CL, RAX)
	DECQ(RAX)
	VPMOVMSKB(Y0, ECX)
	ANDL(EAX, ECX)
	VPMOVMSKB(Y6, EDX)
	ANDL(EAX, EDX)
	JZ(LabelRef("mode3"))
	Comment("Mode 2 when the bytes >= 0x80 are exactly the 3-byte sequences' (every sequence",
		"before B ends before B).")
	IMUL3L(U8(7), EDX, EDX) // leads | leads << 1 | leads << 2 (3 apart: no carries)
	CMPL(EDX, ECX)
	JNE(LabelRef("slotpath"))

	Comment("Mode 2. Y10 = 0xFF at leads and ASCII (signed x > 0xBF), Y14 = bit 7 at a 3-byte",
		"lead's 2nd byte (prev1 >= 0xE0). A (Y11) = prev1 & 0x0F at a 2nd byte, else (3rd",
		"byte) (prev1 & 3) << 2 | x >> 4 & 3; B (Y12) = x >> 2 & 0x0F at a 2nd byte, else",
		"x & 0x0F.")
	VPCMPGTB(k(kBF), Y0, Y10)
	VPSUBUSB(k(k60), Y3, Y14)
	VPAND(k(k03), Y3, Y11)
	VPSLLW(U8(2), Y11, Y11)
	VPAND(k(k03), Y7, Y12)
	VPOR(Y12, Y11, Y11)
	VPAND(Y9, Y3, Y12)
	VPBLENDVB(Y14, Y12, Y11, Y11)
	VPSRLW(U8(2), Y0, Y12)
	VPAND(Y9, Y12, Y12)
	VPAND(Y9, Y0, Y13)
	VPBLENDVB(Y14, Y12, Y13, Y12)
	hexAB()
	VPXOR(Y13, Y13, Y13)
	Comment("No ASCII before B and B >= 16: the pairs, two 32-byte stores (at most 32 bytes",
		"past the 2B written).")
	CMPL(ECX, EAX)
	JNE(LabelRef("groups2"))
	CMPL(R13L, U8(16))
	JB(LabelRef("groups2"))
	VPUNPCKLBW(Y12, Y11, Y1)
	VPUNPCKHBW(Y12, Y11, Y2)
	VPERM2I128(U8(0x20), Y2, Y1, Y3)
	VPERM2I128(U8(0x31), Y2, Y1, Y4)
	VMOVDQU(Y3, mem(rDI, 0))
	VMOVDQU(Y4, mem(rDI, 32))
	LEAQ(Mem{Base: rDI, Index: R13, Scale: 2}, rDI)
	JMP(LabelRef("wdone"))
	Label("groups2")
	Comment("R14 = DI after the window: DI + B + the bytes >= 0x80.")
	POPCNTL(ECX, R14L)
	ADDQ(rDI, R14)
	ADDQ(R13, R14)
	LEAQ(k(kRun2), RDX)
	JMP(LabelRef("groups"))

	Label("mode3")
	Comment("Mode 3. Y10 = 0xFF at leads and ASCII; A (Y11) = prev1 >> 2 & 0x0F, B (Y12) =",
		"(prev1 & 3) << 2 | x >> 4 & 3, C (Y13) = x & 0x0F: a 2-byte sequence's continuation",
		"byte.")
	TESTL(R14L, EAX)
	VPCMPGTB(k(kBF), Y0, Y10)
	VPSRLW(U8(2), Y3, Y11)
	VPAND(Y9, Y11, Y11)
	VPAND(k(k03), Y3, Y12)
	VPSLLW(U8(2), Y12, Y12)
	VPAND(k(k03), Y7, Y13)
	VPOR(Y13, Y12, Y12)
	VPAND(Y9, Y0, Y13)
	VPXOR(Y15, Y15, Y15)
	JZ(LabelRef("no4"))
	Comment("4-byte sequences. Y14 = bit 7 at 2nd bytes (prev1 >= 0xF0), Y15 at 4th bytes",
		"(prev3 >= 0xF0). A 4th byte: A |= 0x0C (0xC | prev1 >> 2 & 3). A 2nd byte, with",
		"w = ((prev1 & 7) << 2 | x >> 4 & 3) - 1: A = 8 | w >> 2, B = (w & 3) << 2 |",
		"x >> 2 & 3, C = (x & 3) << 2 | next >> 4 & 3.")
	VPSUBUSB(k(k70), Y3, Y14)
	VPSUBUSB(k(k70), Y2, Y15)
	VPOR(k(k0C), Y11, Y1)
	VPBLENDVB(Y15, Y1, Y11, Y11)
	Comment("C at a 2nd byte is B's formula at the next byte (Y12 shifted down by one).")
	VPERM2I128(U8(0x81), Y12, Y12, Y15)
	VPALIGNR(U8(1), Y12, Y15, Y15)
	VPBLENDVB(Y14, Y15, Y13, Y13)
	Comment("A and B by L (Y12 = (prev1 & 3) << 2 | x >> 4 & 3, so w = L - 1, or 15 for the",
		"lead 0xF4, whose L is 0): A = kSurA[L] = 8 | w >> 2, B = kSurB[L] | x >> 2 & 3 with",
		"kSurB[L] = (w & 3) << 2.")
	VMOVDQU(k(kSurA), Y1)
	VPSHUFB(Y12, Y1, Y1)
	VPBLENDVB(Y14, Y1, Y11, Y11)
	VMOVDQU(k(kSurB), Y1)
	VPSHUFB(Y12, Y1, Y1)
	VPSRLW(U8(2), Y0, Y15)
	VPAND(k(k03), Y15, Y15)
	VPOR(Y15, Y1, Y1)
	VPBLENDVB(Y14, Y1, Y12, Y12)
	Comment("3rd bytes (prev2 >= 0xF0, Y14 = 0xFF) write \\ud as leads do: Y10 |= Y14; Y15 =",
		"0x0D at 4-byte leads and 3rd bytes (C's d).")
	VPSUBUSB(k(k70), Y4, Y14)
	VPCMPGTB(Y14, Y8, Y14)
	VPCMPGTB(Y5, Y8, Y15)
	VPOR(Y14, Y15, Y15)
	VPAND(k(k0D), Y15, Y15)
	VPOR(Y14, Y10, Y10)
	Label("no4")
	Comment("At Y10: C = 0 (a 2-byte lead's 0) or Y15 (d); A and B as below.")
	VPANDN(Y13, Y10, Y13)
	VPOR(Y15, Y13, Y13)
	hexAB()
	VMOVDQU(k(kHex), Y1)
	VPSHUFB(Y13, Y1, Y13)
	Comment("R14 = DI after the window: DI + B + 2 x the bytes >= 0x80.")
	POPCNTL(ECX, R14L)
	LEAQ(Mem{Base: rDI, Index: R14, Scale: 2}, R14)
	ADDQ(R13, R14)
	LEAQ(k(kRun3), RDX)

	Label("groups")
	Comment("Dwords [A B C 0] by unpacking (bytes 0-3/4-7/8-11/12-15 in the low lanes of Y5/Y6/Y7/Y10,",
		"16-19/20-23/24-27/28-31 in their high lanes), then Y1/Y2/Y3/Y4 = bytes 0-7/8-15/16-23/24-31.")
	VPUNPCKLBW(Y12, Y11, Y1)
	VPUNPCKHBW(Y12, Y11, Y2)
	VPUNPCKLBW(Y8, Y13, Y3)
	VPUNPCKHBW(Y8, Y13, Y4)
	VPUNPCKLWD(Y3, Y1, Y5)
	VPUNPCKHWD(Y3, Y1, Y6)
	VPUNPCKLWD(Y4, Y2, Y7)
	VPUNPCKHWD(Y4, Y2, Y10)
	VPERM2I128(U8(0x20), Y6, Y5, Y1)
	VPERM2I128(U8(0x20), Y10, Y7, Y2)
	VPERM2I128(U8(0x31), Y6, Y5, Y3)
	VPERM2I128(U8(0x31), Y10, Y7, Y4)
	Comment("Bytes 8j to 8j+7 while 8j < B: the 32-byte table entry of CX's byte j (a group of",
		"four per lane), its low lane stored at DI, DI += byte 15, its high lane at DI, DI +=",
		"byte 31. (A lane past B writes at most 28 bytes past the window's output.)")
	for j, src := range []VecPhysical{Y1, Y2, Y3, Y4} {
		if j == 0 {
			MOVBLZX(CL, EAX)
			SHLL(U8(5), EAX)
		} else {
			MOVL(ECX, EAX)
			SHRL(U8(8*j-5), EAX)
			ANDL(U32(0xFF<<5), EAX)
		}
		VPSHUFB(Mem{Base: RDX, Index: RAX, Scale: 1}, src, Y5)
		VMOVDQU(X5, mem(rDI, 0))
		MOVBQZX(Mem{Base: RDX, Index: RAX, Scale: 1, Disp: 15}, RBX)
		ADDQ(RBX, rDI)
		VEXTRACTI128(U8(1), Y5, mem(rDI, 0))
		MOVBQZX(Mem{Base: RDX, Index: RAX, Scale: 1, Disp: 31}, RBX)
		ADDQ(RBX, rDI)
		if j < 3 {
			CMPL(R13L, U8(8*j+8))
			JBE(LabelRef("gdone"))
		}
	}
	Label("gdone")
	MOVQ(R14, rDI)
	JMP(LabelRef("wdone"))
}

// hexAB ends A (Y11) and B (Y12) of the byte-triple path: at Y10 (leads and ASCII) '\\' and
// 'u', else their hex digits; A = x at ASCII.
func hexAB() {
	VPOR(Y10, Y11, Y11)
	VPOR(Y10, Y12, Y12)
	VMOVDQU(k(kHex), Y1)
	VPSHUFB(Y11, Y1, Y11)
	VPSHUFB(Y12, Y1, Y12)
	VPAND(k(kBS), Y10, Y14)
	VPOR(Y14, Y11, Y11)
	VPAND(k(kU), Y10, Y14)
	VPOR(Y14, Y12, Y12)
	VPBLENDVB(Y0, Y11, Y0, Y11)
}
