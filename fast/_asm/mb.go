package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// escapeMBAVX2 emits the AVX2 kernel for option sets without UNESCAPED_UNICODE: ASCII as
// escapeAVX2 does, and valid multi-byte sequences transcoded to \uXXXX (astral code points
// to a surrogate pair) in the vector loop.
func escapeMBAVX2(tag bool) {
	name := "escapeMBAVX2"
	if tag {
		name += "Tag"
	}
	TEXT(name, NOSPLIT, escSig)
	Doc(name+" is the AVX2 kernel for option sets without UNESCAPED_UNICODE"+map[bool]string{false: ", without HEX_TAG", true: ", with HEX_TAG"}[tag]+":",
		"it also writes valid multi-byte sequences as \\uXXXX. It requires AVX2 and len(src) >= 16.")
	Comment(
		name+" escapes src into dst under option sets without UNESCAPED_UNICODE.",
		"",
		"Contract: as escapeAVX2, except that valid multi-byte UTF-8 sequences are written as",
		"\\uXXXX with lower-case hex digits (spec §1.4; a code point above U+FFFF as its UTF-16",
		"surrogate pair, U+2028/U+2029 like any other): it stops at the last character start",
		"before the first invalid sequence's error (the sequence itself, or an ASCII byte",
		"before a stray continuation byte), at a window with fewer than three bytes >= 0x80",
		"(sparse text, which Go takes faster), or with fewer than 64 bytes left. src[0] must",
		"start a character. Run-ahead stores reach at most 32 bytes past the output.",
		"",
		"Registers: SI/DI = src/dst position, R8/R9 = src/dst start, R10 = src end,",
		"R11 = esc, R12 = kt, R13 = B (the window's length), R14 = 4-byte leads, a stack",
		"byte = 1 when the window ends at an invalid sequence, AX/BX/CX/DX scratch. Between windows: Y15 = VPSHUFB table",
		"of the escaped special bytes, Y14 = 0x20, Y13 = '<' (HEX_TAG only), Y12/Y11/Y10 =",
		"the validation tables, Y9 = 0x0F; the multi-byte path uses every Y register and",
		"reloads them.",
		"",
		"Algorithm: 32-byte windows, each starting at a character boundary, while 64 bytes",
		"are left. A clean window (no escape, no byte >= 0x80) is stored and skipped; an",
		"ASCII window with escapes goes to the block handler. A window with a byte >= 0x80:",
		"  1. UTF-8 validation (Keiser–Lemire lookup, as the UNESCAPED_UNICODE kernels; the",
		"     bytes before the window count as ASCII, since it starts at a boundary).",
		"  2. B, the part of the window done now: 32, or the first lead whose sequence",
		"     does not end in the window, or the first escaped ASCII byte, or the start of",
		"     the first invalid sequence (then the kernel returns after the window). A window",
		"     with B = 0 escapes its first byte (an escaped ASCII byte) or returns (invalid).",
		"     B's first term comes from the window's last three bytes in memory, not from",
		"     the vector classes, so that the next window's start waits only for a load.",
		"  3. A window whose sequences before B are all 2- or 4-byte ones, or all 3-byte",
		"     ones (with any ASCII), goes to the byte-triple path (runs, below): every byte",
		"     writes a fixed part of its character's escape. Any other mix:",
		"  4. For every position p, the code unit a character starting there needs, as four",
		"     nibbles from the byte and the next two (P, Q = the byte and the next for a",
		"     2-byte lead, the next two for a 3-byte lead; a 4-byte lead gives the high",
		"     surrogate and the position two further, a continuation byte, the low one), hex",
		"     digits by VPSHUFB, and an 8-byte slot \\uXXXX (ASCII: the byte) by three",
		"     rounds of unpacking, stored to the stack with the slot's length (1 or 6).",
		"  5. The units (character starts and low-surrogate positions before B), lowest",
		"     first: one 8-byte store of the slot and DI += its length.",
	)
	slots := AllocLocal(256)
	lens := AllocLocal(32)
	flag := AllocLocal(8)
	kt := prologue()
	MOVQ(kt, R12)
	MOVB(U8(0), flag)
	regs := func() {
		VMOVDQU(mem(R12, ktShuf), Y15)
		VMOVDQU(k(k20), Y14)
		if tag {
			VMOVDQU(k(k3C), Y13)
		}
		VMOVDQU(k(kByte1High), Y12)
		VMOVDQU(k(kByte1Low), Y11)
		VMOVDQU(k(kByte2High), Y10)
		VMOVDQU(k(k0F), Y9)
	}
	regs()

	Label("loop")
	LEAQ(mem(rSI, 64), RAX)
	CMPQ(RAX, rEnd)
	JHI(LabelRef("ret"))
	VMOVDQU(mem(rSI, 0), Y0)
	classifyVEX(Y0, Y1, Y2, Y15, Y14, Y13, tag)
	VPMOVMSKB(Y1, EAX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("dirty"))
	VMOVDQU(Y0, mem(rDI, 0))
	ADDQ(U8(32), rSI)
	ADDQ(U8(32), rDI)
	JMP(LabelRef("loop"))

	Label("dirty")
	VPMOVMSKB(Y0, ECX)
	TESTL(ECX, ECX)
	JNZ(LabelRef("mb"))
	VMOVDQU(Y0, mem(rDI, 0))
	JMP(LabelRef("block"))

	Label("mb")
	Comment("AX = escaped ASCII bytes and bytes >= 0x80, CX = bytes >= 0x80. A window with",
		"fewer than three bytes >= 0x80 (one 2-byte character) returns to Go, whose ASCII kernel",
		"and scalar loop take sparse non-ASCII text faster than a window of slots.")
	POPCNTL(ECX, EDX)
	CMPL(EDX, U8(3))
	JB(LabelRef("ret"))
	Comment("1. Validation: prev1..prev3 (Y3, Y4, Y2) with zeros shifted in.")
	VPXOR(Y8, Y8, Y8)
	VPERM2I128(U8(0x21), Y0, Y8, Y2)
	VPALIGNR(U8(15), Y2, Y0, Y3)
	VPALIGNR(U8(14), Y2, Y0, Y4)
	VPALIGNR(U8(13), Y2, Y0, Y2)
	VPSUBUSB(k(k60), Y4, Y5)
	VPSUBUSB(k(k70), Y2, Y6)
	VPOR(Y6, Y5, Y5)
	VPAND(k(k80), Y5, Y5)
	VPSRLW(U8(4), Y3, Y6)
	VPAND(Y9, Y6, Y6)
	VPSHUFB(Y6, Y12, Y6)
	VPAND(Y9, Y3, Y7)
	VPSHUFB(Y7, Y11, Y7)
	VPAND(Y7, Y6, Y6)
	VPSRLW(U8(4), Y0, Y7)
	VPAND(Y9, Y7, Y7) // Y7 = high nibbles, kept
	VPSHUFB(Y7, Y10, Y1)
	VPAND(Y1, Y6, Y6)
	VPXOR(Y5, Y6, Y6) // Y6 = UTF-8 errors
	VPCMPEQB(Y8, Y6, Y6)
	VPMOVMSKB(Y6, EDX)
	NOTL(EDX) // DX = error positions
	Comment("AX = escaped ASCII bytes (AX &^ CX).")
	NOTL(ECX)
	ANDL(ECX, EAX)
	Comment("Classes by high nibble (kCls): BX = continuation bytes, R14 = 4-byte leads; Y6 has",
		"bit 7 set at 3-byte leads, Y5 at 4-byte leads (blend masks).")
	VMOVDQU(k(kCls), Y1)
	VPSHUFB(Y7, Y1, Y1)
	VPMOVMSKB(Y1, EBX)
	VPSLLW(U8(2), Y1, Y6)
	VPSLLW(U8(1), Y6, Y5)
	VPMOVMSKB(Y5, R14L)
	Comment("2. B = the first lead whose sequence does not end in the window (a 4-byte lead at",
		"29, a 3- or 4-byte lead at 30, any lead at 31), else 32: from the three bytes in",
		"memory, so that the next window's start does not wait for the vector classes.")
	windowEnd(32)
	Comment("... or the first escaped ASCII byte.")
	TESTL(EAX, EAX)
	JZ(LabelRef("noesc"))
	BSFL(EAX, EAX)
	CMPL(EAX, R13L)
	CMOVLLT(EAX, R13L)
	Label("noesc")
	Comment("... or the start of the first invalid sequence, of the errors at positions <= B",
		"(an error at a character start concerns the character before it).")
	MOVL(R13L, ECX)
	MOVL(U32(2), EAX)
	SHLQ(CL, RAX)
	DECQ(RAX)
	ANDQ(RAX, RDX)
	JZ(LabelRef("valid"))
	Comment("The invalid sequence starts at the last character start before the first error",
		"(an error at a continuation byte or a character start concerns the sequence before",
		"it), or at 0 when there is none (a continuation byte at the window's start). That",
		"start may be an ASCII byte (a stray continuation byte after it): the kernel then",
		"returns at that byte and Go goes on from there.")
	BSFL(EDX, ECX)
	MOVL(U32(1), EAX)
	SHLL(CL, EAX)
	DECL(EAX)
	MOVL(EBX, ECX)
	NOTL(ECX)
	ANDL(ECX, EAX)
	XORL(ECX, ECX)
	BSRL(EAX, EDX)
	CMOVLEQ(ECX, EDX)
	Label("invalid")
	MOVL(EDX, R13L)
	MOVB(U8(1), flag)
	Label("valid")
	TESTL(R13L, R13L)
	JNZ(LabelRef("units"))
	Comment("B = 0: an invalid sequence here (return), or an escaped ASCII byte (escape it).")
	CMPB(flag, U8(0))
	JNE(LabelRef("ret"))
	MOVBLZX(mem(rSI, 0), EDX)
	MOVQ(Mem{Base: rEsc, Index: RDX, Scale: 8}, RBX)
	MOVQ(RBX, mem(rDI, 0))
	SHRQ(U8(56), RBX)
	ADDQ(RBX, rDI)
	INCQ(rSI)
	JMP(LabelRef("loop"))

	Label("units")
	runs()
	Label("slotpath")
	Comment("BX = the units: character starts and low-surrogate positions (4-byte leads + 2),",
		"before B.")
	NOTL(EBX)
	SHLL(U8(2), R14L)
	ORL(R14L, EBX)
	MOVL(R13L, ECX)
	MOVL(U32(1), EAX)
	SHLQ(CL, RAX)
	DECQ(RAX)
	ANDL(EAX, EBX)

	Comment("3. Slots. Y0 = x, Y1/Y2 = the next byte / the one after (n1, n2), Y4 = low-surrogate",
		"positions (a 4-byte lead two bytes back), Y3 = P, Y8 = Q.")
	VMOVDQU(mem(rSI, 1), Y1)
	VMOVDQU(mem(rSI, 2), Y2)
	VPSRLW(U8(4), Y4, Y4)
	VPAND(Y9, Y4, Y4)
	VPCMPEQB(Y9, Y4, Y4)
	VPBLENDVB(Y6, Y1, Y0, Y3)
	VPBLENDVB(Y6, Y2, Y1, Y8)
	Comment("N3 (Y10) = Q & 0x0F; N2 (Y11) = (P & 3) << 2 | (Q >> 4) & 3.")
	VPAND(Y9, Y8, Y10)
	VPSRLW(U8(4), Y8, Y8)
	VPAND(k(k03), Y8, Y8)
	VPAND(k(k03), Y3, Y11)
	VPSLLW(U8(2), Y11, Y11)
	VPOR(Y8, Y11, Y11)
	Comment("N1 (Y12) = (P >> 2) & 0x0F; at a low surrogate 0x0C | (P >> 2) & 3.")
	VPSRLW(U8(2), Y3, Y12)
	VPAND(Y9, Y12, Y12)
	VPAND(k(k03), Y12, Y13)
	VPOR(k(k0C), Y13, Y13)
	VPBLENDVB(Y4, Y13, Y12, Y12)
	Comment("N0 (Y13) = x & 0x0F at a 3-byte lead, 0x0D at a surrogate, else 0.")
	VPAND(Y9, Y0, Y13)
	VPXOR(Y14, Y14, Y14)
	VPBLENDVB(Y6, Y13, Y14, Y13)
	VPOR(Y5, Y4, Y14)
	VPBLENDVB(Y14, k(k0D), Y13, Y13)
	Comment("High surrogates (4-byte leads, if any): w = ((x & 7) << 2 | (n1 >> 4) & 3) - 1,",
		"N1 = 8 | w >> 2, N2 = (w & 3) << 2 | (n1 >> 2) & 3, N3 = (n1 & 3) << 2 | (n2 >> 4) & 3.")
	TESTL(R14L, R14L)
	JZ(LabelRef("hex"))
	VPAND(k(k07), Y0, Y14)
	VPSLLW(U8(2), Y14, Y14)
	VPOR(Y8, Y14, Y14)
	VPSUBB(k(k01), Y14, Y14)
	VPSRLW(U8(2), Y14, Y15)
	VPAND(k(k03), Y15, Y15)
	VPOR(k(k08), Y15, Y15)
	VPBLENDVB(Y5, Y15, Y12, Y12)
	VPAND(k(k03), Y14, Y14)
	VPSLLW(U8(2), Y14, Y14)
	VPSRLW(U8(2), Y1, Y15)
	VPAND(k(k03), Y15, Y15)
	VPOR(Y15, Y14, Y14)
	VPBLENDVB(Y5, Y14, Y11, Y11)
	VPAND(k(k03), Y1, Y14)
	VPSLLW(U8(2), Y14, Y14)
	VPSRLW(U8(4), Y2, Y15)
	VPAND(k(k03), Y15, Y15)
	VPOR(Y15, Y14, Y14)
	VPBLENDVB(Y5, Y14, Y10, Y10)

	Label("hex")
	Comment("Hex digits H0-H3 (Y13, Y12, Y11, Y10); S0 (Y9) = x for ASCII else '\\', S1 (Y8) =",
		"0 for ASCII else 'u'; lengths 1 for ASCII else 6.")
	VMOVDQU(k(kHex), Y15)
	VPSHUFB(Y13, Y15, Y13)
	VPSHUFB(Y12, Y15, Y12)
	VPSHUFB(Y11, Y15, Y11)
	VPSHUFB(Y10, Y15, Y10)
	VPBLENDVB(Y0, k(kBS), Y0, Y9)
	VPXOR(Y14, Y14, Y14)
	VPBLENDVB(Y0, k(kU), Y14, Y8)
	VMOVDQU(k(k01), Y15)
	VPBLENDVB(Y0, k(k06), Y15, Y15)
	VMOVDQU(Y15, lens)
	Comment("Slots [S0 S1 H0 H1 H2 H3 0 0] by unpacking bytes, words, dwords; each result holds",
		"two slots of positions p, p+1 in its low lane and p+16, p+17 in its high lane.")
	VPUNPCKLBW(Y8, Y9, Y0)
	VPUNPCKHBW(Y8, Y9, Y1)
	VPUNPCKLBW(Y12, Y13, Y2)
	VPUNPCKHBW(Y12, Y13, Y3)
	VPUNPCKLBW(Y10, Y11, Y4)
	VPUNPCKHBW(Y10, Y11, Y5)
	quad := func(w01, w23, w45 VecPhysical, unpack func(a, b, c Op), pos int) {
		unpack(w23, w01, Y6)
		unpack(Y14, w45, Y7)
		VPUNPCKLDQ(Y7, Y6, Y8)
		VPUNPCKHDQ(Y7, Y6, Y9)
		VMOVDQU(Y8.AsX(), slots.Offset(8*pos))
		VEXTRACTI128(U8(1), Y8, slots.Offset(8*(pos+16)))
		VMOVDQU(Y9.AsX(), slots.Offset(8*(pos+2)))
		VEXTRACTI128(U8(1), Y9, slots.Offset(8*(pos+18)))
	}
	lwd := func(a, b, c Op) { VPUNPCKLWD(a, b, c) }
	hwd := func(a, b, c Op) { VPUNPCKHWD(a, b, c) }
	quad(Y0, Y2, Y4, lwd, 0)
	quad(Y0, Y2, Y4, hwd, 4)
	quad(Y1, Y3, Y5, lwd, 8)
	quad(Y1, Y3, Y5, hwd, 12)

	Comment("4. The units, lowest first: the slot's 8 bytes at DI, DI += its length.")
	Label("place")
	BSFL(EBX, ECX)
	MOVQ(slots.Idx(RCX, 8), RDX)
	MOVQ(RDX, mem(rDI, 0))
	MOVBLZX(lens.Idx(RCX, 1), EDX)
	ADDQ(RDX, rDI)
	LEAL(mem(RBX, -1), ECX)
	ANDL(ECX, EBX)
	JNZ(LabelRef("place"))
	Label("wdone")
	ADDQ(R13, rSI)
	CMPB(flag, U8(0))
	JNE(LabelRef("ret"))
	regs()
	JMP(LabelRef("loop"))

	blockHandler("block", opsY, true, "loop") // no byte >= 0x80 in the block: no such test
	epilogue(true)
}

// windowEnd sets R13 to the end of a w-byte window at SI as the bytes in memory give it: the
// first lead whose sequence does not end in the window (a lead >= 0xC0 at w-1, >= 0xE0 at
// w-2, >= 0xF0 at w-3), else w. CX is clobbered.
func windowEnd(w int) {
	MOVL(U32(uint32(w)), R13L)
	for i, lead := range []uint8{0xC0, 0xE0, 0xF0} {
		MOVL(U32(uint32(w-1-i)), ECX)
		CMPB(mem(rSI, w-1-i), U8(lead))
		CMOVLCC(ECX, R13L)
	}
}
