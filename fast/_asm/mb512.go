package main

import (
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// escapeMBAVX512 emits the AVX-512 (BW, VBMI, VBMI2) form of escapeMBAVX2: 64-byte windows,
// every one written as byte triples (escapeMBAVX2's runs path, for any mix of sequence
// lengths): the triples laid out in position order by VPERMI2B and VPERMB, three 64-byte
// chunks a window, each packed by VPCOMPRESSB under a keep mask built by PDEP. With valid,
// the form for input proven valid UTF-8 (escapeMBAVX512Valid, escapeMBAVX512TagValid): the
// validation of step 1 is left out.
func escapeMBAVX512(tag, valid bool) {
	name := "escapeMBAVX512"
	if tag {
		name += "Tag"
	}
	if valid {
		name += "Valid"
	}
	TEXT(name, NOSPLIT, escSig)
	if valid {
		Doc(name+" is "+strings.TrimSuffix(name, "Valid")+" for src proven valid UTF-8 (by validAVX512): it does",
			"not validate its windows. On invalid input its output is not the escape, but it reads",
			"and writes no more than the other form.")
	} else {
		Doc(name+" is escapeMBAVX2"+map[bool]string{false: "", true: "Tag"}[tag]+" with AVX-512: it requires AVX-512 BW, VBMI and VBMI2,",
			"BMI2, POPCNT and len(src) >= 16.")
	}
	Comment(
		name+": the contract of escapeMBAVX2 (it stops with fewer than 64 bytes left, and",
		"its run-ahead stores reach at most 64 bytes past the output).",
		"",
		"Registers: SI/DI = src/dst position, R8/R9 = src/dst start, R10 = src end, R11 = esc,",
		"R13 = B, R14 = 4-byte leads, AX/BX/CX/DX/R12 scratch; Z16-Z31 constants for the whole",
		"call (Z31 = the VPSHUFB table of escaped special bytes, Z30 = 0x20, Z29 = '<', Z28-Z26",
		"= the validation tables, Z24 = 0x60, Z23 = 0x70, Z22 = 0x80, Z21 = hex",
		"digits, Z20 = 0x03, Z19 = the previous byte's index (kPrev), Z18/Z17/Z16 =",
		"0xF0/0xE0/0xC0); K5 = all but the first byte; K6 = the window's bytes >= 0xE0 (from",
		"twoByteWindow on); K1 = its bytes >= 0xC0 and K7 those >= 0xF0 (from the classes on:",
		"each prev's compare is a KSHIFTLQ of them); Z0-Z15 and K1-K4 scratch before that.",
		"",
		"Algorithm: as escapeMBAVX2, on 64-byte windows with 64-bit masks. The bytes before",
		"the window are zeros (prev1..prev3 by VPERMB of the window, zero-masked: no load",
		"before it). Every window with a byte >= 0x80 is written as byte triples",
		"(escapeMBAVX2's runs): each byte before B writes the first n bytes of [A B C], n = 1,",
		"2 or 3 by its character's length, set by masked moves per byte role, or in a window of",
		"ASCII and 2-byte (twoByteWindow) or 4-byte sequences (fourByteTriples) by hex-digit",
		"VPERMBs merged into the other roles' bytes. The 192 bytes of triples in position",
		"order are three 64-byte chunks, each packed by VPCOMPRESSB under its keep mask (PDEP",
		"of the positions by n) and stored whole; DI advances by the mask's popcount. A window",
		"of ASCII and valid 2-byte sequences only skips the validation and the classes",
		"(twoByteWindow: lead and continuation masks checked in general registers).",
	)
	flag := AllocLocal(8)
	kt := prologue()
	MOVB(U8(0), flag)
	VBROADCASTI64X4(mem(kt, ktShuf), Z31)
	VBROADCASTI64X4(k(k20), Z30)
	if tag {
		VBROADCASTI64X4(k(k3C), Z29)
	}
	validConsts()
	classConsts()
	prevConsts()

	Label("loop")
	LEAQ(mem(rSI, 128), RAX)
	CMPQ(RAX, rEnd)
	JHI(LabelRef("ret"))
	VMOVDQU64(mem(rSI, 0), Z0)
	VPSHUFB(Z0, Z31, Z1)
	VPCMPEQB(Z1, Z0, K1)
	VPCMPUB(U8(1), Z30, Z0, K2)
	KORQ(K1, K2, K1)
	if tag {
		VPCMPEQB(Z29, Z0, K2)
		KORQ(K1, K2, K1)
	}
	VPMOVB2M(Z0, K2)
	KORTESTQ(K1, K2)
	JNZ(LabelRef("dirty"))
	VMOVDQU64(Z0, mem(rDI, 0))
	ADDQ(U8(64), rSI)
	ADDQ(U8(64), rDI)
	JMP(LabelRef("loop"))

	Label("dirty")
	KMOVQ(K1, RAX)
	KMOVQ(K2, RCX)
	TESTQ(RCX, RCX)
	JNZ(LabelRef("mb"))
	VMOVDQU64(Z0, mem(rDI, 0))
	JMP(LabelRef("block"))

	Label("mb")
	Comment("AX = escaped ASCII bytes, CX = bytes >= 0x80, K1/K2 = the same.")
	POPCNTQ(RCX, RDX)
	sparseWindow(RDX)
	Comment("Fewer than three bytes >= 0x80: back to Go (as escapeMBAVX2).")
	CMPQ(RDX, U8(3))
	JB(LabelRef("ret"))
	twoByteWindow()
	threeByteWindow()
	Label("validate")
	NOTQ(RCX)
	ANDQ(RCX, RAX)
	if valid {
		Comment("1. No validation (valid input): DX = no error; Z3 = prev1, Z7 = x >> 4 by words.")
		VPERMB_Z(Z0, Z19, K5, Z3)
		VPSRLW(U8(4), Z0, Z7)
		XORL(EDX, EDX)
	} else {
		validate512()
	}
	Comment("Classes: BX = continuation bytes (>= 0x80, CX = ~those, and not >= 0xC0), R14 =",
		"4-byte leads (>= 0xF0).")
	VPCMPUB(U8(5), Z16, Z0, K1)
	KMOVQ(K1, RBX)
	ORQ(RCX, RBX)
	NOTQ(RBX)
	VPCMPUB(U8(5), Z18, Z0, K7)
	KMOVQ(K7, R14)
	Comment("2. B: the first lead whose sequence does not end in the window (a 4-byte lead at",
		"61, a 3- or 4-byte lead at 62, any lead at 63; from the bytes in memory, as",
		"escapeMBAVX2), else 64; the first escaped ASCII byte; the start of the first invalid",
		"sequence (as escapeMBAVX2).")
	windowEnd(64)
	cutAtFirst(RAX, RAX, "noesc")
	LEAQ(mem(R13, 1), RCX)
	BZHIQ(RCX, RDX, RDX)
	JZ(LabelRef("valid"))
	BSFQ(RDX, RCX)
	MOVL(U32(1), EAX)
	SHLQ(CL, RAX)
	DECQ(RAX)
	MOVQ(RBX, RCX)
	NOTQ(RCX)
	ANDQ(RCX, RAX)
	XORL(ECX, ECX)
	BSRQ(RAX, RDX)
	CMOVQEQ(RCX, RDX)
	MOVQ(RDX, R13)
	MOVB(U8(1), flag)
	Label("valid")
	TESTQ(R13, R13)
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
	Comment("3. Byte triples (runs in escape_amd64's escapeMBAVX2, here for every window): each",
		"byte before B writes n bytes [A B C][:n] of its character's escape, n = 1 (ASCII), 2 (a",
		"3-byte sequence's bytes) or 3 (2- and 4-byte sequences'). Nibbles first, the",
		"continuation byte of a 2-byte sequence's as default: A (Z8) = prev1 >> 2, B (Z9) = L =",
		"(prev1 & 3) << 2 | x >> 4 & 3, C (Z10) = x; Z12 = L of the next byte. Each is right in",
		"its low nibble only, the bits the hex digits' VPERMB of Z21 (the 16 digits four times)",
		"reads. AX = the positions before B.")
	MOVQ(I64(-1), RAX)
	BZHIQ(R13, RAX, RAX)
	Comment("A window of 3-byte sequences only (K3 = their leads; every byte before B one of",
		"theirs) with B >= 32: the mode-2 pairs of escapeMBAVX2's runs, permuted (kPerm2) so",
		"that unpacking leaves them in position order, two 64-byte stores (at most 64 bytes",
		"past the 2B written).")
	KANDNQ(K6, K7, K3)
	KMOVQ(K3, RDX)
	IMUL3Q(U8(7), RDX, RDX) // leads | leads << 1 | leads << 2 (3 apart: no carries)
	ANDQ(RAX, RDX)
	MOVQ(RDX, R12) // the 3-byte sequences' bytes before B, for the triples' keep masks
	CMPQ(RDX, RAX)
	JNE(LabelRef("notthree"))
	CMPL(R13L, U8(32))
	JB(LabelRef("triples"))
	Label("mode2")
	Comment("A (Z9) = prev1 & 0x0F at a 2nd byte (K2: prev1 >= 0xE0), else L; B (Z10) = x >> 2",
		"& 0x0F there, else x & 0x0F; \\ and u at the leads.")
	nibblesLC(true)
	KSHIFTLQ(U8(1), K6, K2)
	VMOVDQU8(Z3, K2, Z9)
	VPSRLW(U8(2), Z0, Z11)
	VMOVDQU8(Z11, K2, Z10)
	VPERMB(Z21, Z9, Z9)
	VPERMB(Z21, Z10, Z10)
	bcastb(kBS, Z11)
	VMOVDQU8(Z11, K3, Z9)
	bcastb(kU, Z11)
	VMOVDQU8(Z11, K3, Z10)
	VMOVDQU64(k(kPerm2), Z11)
	VPERMB(Z9, Z11, Z9)
	VPERMB(Z10, Z11, Z10)
	VPUNPCKLBW(Z10, Z9, Z12)
	VPUNPCKHBW(Z10, Z9, Z13)
	VMOVDQU64(Z12, mem(rDI, 0))
	VMOVDQU64(Z13, mem(rDI, 64))
	LEAQ(Mem{Base: rDI, Index: R13, Scale: 2}, rDI)
	JMP(LabelRef("wdone"))

	fourByteTriples(true)

	triples(true)
	chunks(false, 64, 64)
	Label("wdone")
	ADDQ(R13, rSI)
	CMPB(flag, U8(0))
	JNE(LabelRef("ret"))
	JMP(LabelRef("loop"))

	Label("block")
	Comment("An ASCII window with escapes (AX = their mask), stored at DI: blockHandler's",
		"algorithm with 64-bit masks.")
	BSFQ(RAX, RCX)
	MOVBLZX(memi(rSI, RCX, 0), EDX)
	MOVQ(Mem{Base: rEsc, Index: RDX, Scale: 8}, RBX)
	MOVQ(RBX, memi(rDI, RCX, 0))
	SHRQ(U8(56), RBX)
	LEAQ(Mem{Base: rDI, Index: RBX, Scale: 1, Disp: -1}, rDI)
	LEAQ(mem(RAX, -1), RDX)
	ANDQ(RDX, RAX)
	LEAQ(mem(RCX, 1), RDX)
	BTQ(RDX, RAX)
	JCS(LabelRef("block"))
	VMOVDQU64(memi(rSI, RCX, 1), Z1)
	VMOVDQU64(Z1, memi(rDI, RCX, 1))
	TESTQ(RAX, RAX)
	JNZ(LabelRef("block"))
	ADDQ(U8(64), rSI)
	ADDQ(U8(64), rDI)
	JMP(LabelRef("loop"))
	epilogue(true)
}

// validate512 emits step 1 of escapeMBAVX512, the validation of a window (Z0): DX = the
// positions of its errors, Z3 = prev1, Z7 = x >> 4 by words.
func validate512() {
	Comment("1. Validation (Z3/Z4/Z2 = prev1..prev3, zeros before the window: each the previous",
		"one shifted by a byte, VPERMB zero-masked by K5; masked loads at SI-1..SI-3 were",
		"slower and, at 4 KiB, twice as slow in some runs than in others).")
	VPERMB_Z(v(Z0), v(Z19), K5, v(Z3))
	VPERMB_Z(v(Z3), v(Z19), K5, v(Z4))
	VPERMB_Z(v(Z4), v(Z19), K5, v(Z2))
	Comment("Z5 = (prev2 - 0x60 | prev3 - 0x70) & 0x80 (saturating; VPTERNLOGD 0xA8: (A | B) &",
		"C): a 3rd or 4th byte must be a continuation byte. The three lookups are VPERMBs of",
		"the 16-byte tables four times over (only the index's low nibble counts: no masking;",
		"Z7 = x >> 4 by words, its high nibble in the low one), ANDed by VPTERNLOGD 0x80.")
	VPSUBUSB(v(Z24), v(Z4), v(Z5))
	VPSUBUSB(v(Z23), v(Z2), v(Z6))
	VPTERNLOGD(U8(0xA8), v(Z22), v(Z6), v(Z5))
	VPSRLW(U8(4), v(Z3), v(Z6))
	VPERMB(v(Z28), v(Z6), v(Z6))
	VPERMB(v(Z27), v(Z3), v(Z1))
	VPSRLW(U8(4), v(Z0), v(Z7))
	VPERMB(v(Z26), v(Z7), v(Z8))
	VPTERNLOGD(U8(0x80), v(Z8), v(Z1), v(Z6))
	VPCMPUB(U8(4), v(Z5), v(Z6), K1)
	KMOVQ(K1, RDX) // DX = error positions
}

// fourByteTriples emits escapeMBAVX512's triples for a validated window whose leads before B
// are all 4-byte leads (emoji, with ASCII among them): with K7 = the window's bytes >= 0xF0,
// its 2nd, 3rd and 4th bytes are K7 shifted by 1, 2 and 3, and the triples are [\ u d] at a
// lead or 3rd byte, the surrogates' other digits at a 2nd byte (8 | w >> 2 & 3, w's low two
// bits and the 3rd byte's top two, L of the next byte) or a 4th byte (0x0C | prev1 >> 2, L,
// x), and x at ASCII: each digit one VPERMB of Z21 merged into the bytes of the other roles,
// about half the operations of the general path's masked moves. Any other window goes on at
// triples. At entry (notthree, from units) Z0 = the window, Z3 = prev1, Z7 = x >> 4 by words,
// K1 = its bytes >= 0xC0, K7 = those >= 0xF0, BX = its continuation bytes, R14 = its 4-byte
// leads, AX = the bytes before B, R12 = 0 (no 3-byte sequence's byte before B). It goes on at
// chunks with CX = the bytes >= 0x80 (K1 and K6 then hold other masks: the next window sets
// them again). Without fromMem (escapeShortMBAVX512, whose window may end before its 64
// bytes) C starts from a copy of Z0 rather than a load at SI, CX is Z0's sign bits, and BX and
// R12 are not read (a 3-byte sequence's lead is one of the other leads).
func fourByteTriples(fromMem bool) {
	Label("notthree")
	Comment("Only 4-byte leads before B (fourByteTriples): K2 = the other leads.")
	KANDNQ(K1, K7, K2)
	KMOVQ(K2, RDX)
	TESTQ(RAX, RDX)
	JNZ(LabelRef("triples"))
	Comment("K2, K3, K4 = 2nd, 3rd and 4th bytes; K1 = leads and 3rd bytes (\\ u d), K6 = 2nd and",
		"4th bytes (digits). Z13 = w << 4 | x & 0x0F = (0xC0 ? prev1 << 6 : x) - 0x10 (as the",
		"general path).")
	KSHIFTLQ(U8(1), K7, K2)
	KSHIFTLQ(U8(2), K7, K3)
	KSHIFTLQ(U8(3), K7, K4)
	KORQ(K7, K3, K1)
	KORQ(K2, K4, K6)
	VPSLLW(U8(6), v(Z3), v(Z13))
	VPTERNLOGD_BCST(U8(0xE4), k(kC0), v(Z0), v(Z13))
	bcast(k(k10), Z14)
	VPSUBB(v(Z14), v(Z13), v(Z13))
	Comment("A (Z8): prev1 >> 2 | 0x0C at a 4th byte, Z13 >> 6 & 3 | 8 at a 2nd (VPTERNLOGD 0xEA:",
		"A & B | C), into \\ at K1 and x elsewhere.")
	VPSRLW(U8(2), v(Z3), v(Z11))
	VPORD_BCST(k(k0C), v(Z11), v(Z11))
	VPSRLW(U8(6), v(Z13), v(Z14))
	VPTERNLOGD_BCST(U8(0xEA), k(k08), v(Z20), v(Z14))
	VMOVDQU8(v(Z14), K2, v(Z11))
	bcast(k(kBS), Z8)
	VPBLENDMB(v(Z8), v(Z0), K1, v(Z8))
	VPERMB(v(Z21), v(Z11), K6, v(Z8))
	Comment("B (Z9): L at a 4th byte, Z13 >> 2 at a 2nd, into u; Z12 = L of the next byte.")
	VPSLLW(U8(2), v(Z3), v(Z11))
	VPTERNLOGD_BCST(U8(0xE4), k(k0C), v(Z7), v(Z11))
	VMOVDQU64(k(kNext), v(Z12))
	VPERMB(v(Z11), v(Z12), v(Z12))
	VPSRLW(U8(2), v(Z13), v(Z14))
	VMOVDQU8(v(Z14), K2, v(Z11))
	bcast(k(kU), Z9)
	VPERMB(v(Z21), v(Z11), K6, v(Z9))
	Comment("C (Z10): x at a 4th byte, Z12 at a 2nd, d at K1.")
	if fromMem {
		VMOVDQU64(mem(rSI, 0), v(Z10))
	} else {
		VMOVDQA64(v(Z0), v(Z10))
	}
	VMOVDQU8(v(Z12), K2, v(Z10))
	bcast(k(k0D), Z14)
	VMOVDQU8(v(Z14), K1, v(Z10))
	VPERMB(v(Z21), v(Z10), v(Z10))
	if fromMem {
		MOVQ(RBX, RCX)
		ORQ(R14, RCX)
	} else {
		VPMOVB2M(v(Z0), K3)
		KMOVQ(K3, RCX)
	}
	JMP(LabelRef("chunks"))
}

// twoByteWindow emits escapeMBAVX512's shortcut for a window whose bytes >= 0x80 before B are
// all valid 2-byte sequences (Cyrillic, Greek, most Latin text): the same output as the
// validation, the classes and the 3-byte test would lead to, without them. At entry Z0 = the
// window, AX = its escaped ASCII bytes, CX = its bytes >= 0x80. A window with a byte >= 0xE0 goes to validate
// at once (K6 = those bytes, for units). Leads are the bytes >= 0xC0 (bit 6 of a byte >=
// 0x80), 2-byte leads those in C2..DF, continuation bytes the others >= 0x80. B is 64, 63
// when byte 63 is a lead (its sequence ends in the next window), or the first escaped ASCII
// byte if earlier. The window is taken when, up to and including byte B, every lead is
// a 2-byte lead and the continuation bytes are exactly the bytes after them (a lead before an
// escape at B has none: not taken), and B > 0; it then sets the triples A, B, C (Z8-Z10) itself,
// each hex digit one VPERMB merged into the bytes of the other roles (the validation path's
// triples take about twice as many operations for them), and goes on at chunks with R13 = B
// and R12 = 0. Anything else goes on at validate with AX and CX unchanged.
func twoByteWindow() {
	Comment("A window of ASCII and valid 2-byte sequences only (twoByteWindow): DX = leads (K3), BX =",
		"2-byte leads, R12 = continuation bytes, R14 = where the rule fails.")
	VPCMPUB(U8(5), Z17, Z0, K6)
	KTESTQ(K6, K6)
	JNZ(LabelRef("three"))
	Comment("No byte >= 0xE0: the leads (>= 0xC0) at or above 0xC2 are the 2-byte leads.")
	VPCMPUB(U8(5), Z16, Z0, K3)
	KMOVQ(K3, RDX)
	VBROADCASTI64X4(k(kC2), Z1)
	VPCMPUB(U8(5), Z1, Z0, K4)
	KMOVQ(K4, RBX)
	ANDNQ(RCX, RDX, R12)
	MOVQ(RBX, R14)
	SHLQ(U8(1), R14)
	XORQ(R12, R14)
	MOVQ(RDX, R12)
	XORQ(RBX, R12)
	ORQ(R12, R14)
	Comment("B: 63 when byte 63 is a lead (from memory, as windowEnd: no bytes >= 0xE0 here), else 64.")
	MOVL(U32(63), R13L)
	CMPB(mem(rSI, 63), U8(0xC0))
	ADCL(U8(0), R13L)
	cutAndCheck(RDX, "two_noesc")
	TESTQ(R13, R13)
	JZ(LabelRef("validate"))
	Comment("The triples [A B C]: [\\ u 0] at a lead (K3), [hex(prev1 >> 2) hex((prev1 & 3) << 2 |",
		"x >> 4 & 3) hex(x)] at a continuation byte (K4), A = x at ASCII. Each digit is a VPERMB",
		"of Z21 (the 16 digits four times: only the index's low nibble counts, no masking),",
		"merged into the other roles' bytes.")
	XORL(R12L, R12L)
	VPERMB_Z(Z0, Z19, K5, Z3)
	KANDNQ(K2, K3, K4)
	VBROADCASTI64X4(k(kBS), Z11)
	VPBLENDMB(Z11, Z0, K3, Z8)
	VPSRLW(U8(2), Z3, Z12)
	VPERMB(Z21, Z12, K4, Z8)
	VBROADCASTI64X4(k(kU), Z9)
	VPSLLW(U8(2), Z3, Z12)
	VPSRLW(U8(4), Z0, Z13)
	Comment("Z12 = 0x0C ? prev1 << 2 : x >> 4, bit by bit (0xE4: C ? A : B).")
	VPTERNLOGD_BCST(U8(0xE4), k(k0C), Z13, Z12)
	VPERMB(Z21, Z12, K4, Z9)
	VBROADCASTI64X4(k(k30), Z10)
	VPERMB(Z21, Z0, K4, Z10)
	JMP(LabelRef("chunks"))
}

// threeByteWindow emits escapeMBAVX512's shortcut for a window of 3-byte sequences only up to
// B, B >= 32 (CJK; units' mode-2 path): the same output as the validation and the classes
// would lead to, without them (about half of their vector operations). At entry (from
// twoByteWindow) Z0 = the window, AX = its escaped ASCII bytes, CX = its bytes >= 0x80, K6 =
// its bytes >= 0xE0 (not none). A window whose bytes 0-31 are not all >= 0x80 goes on at
// validate at once (a test in general registers: emoji and mixed scripts, with spaces, pay
// no vector operation for it). The window is taken when it has no byte in C0..DF or >= 0xF0
// (leads are then the bytes >= 0xE0), the continuation bytes are exactly the two after each
// lead, no E0 lead is followed by a byte below A0 (overlong) and no ED lead by one at or above
// A0 (a surrogate; spec §2.2), up to and including byte B, and every byte before B is a
// sequence's. B is 63, or the first escaped ASCII byte if earlier: the leads of a window taken
// are the bytes 0, 3, 6, ... before B, so byte 63 is one or B is earlier (a window of 21
// sequences and ASCII at 63 ends at 63 too). It then goes on at mode2 with R13 = B, K3 = the
// leads, Z3 = prev1 and Z7 = the high nibbles; anything else goes on at validate with AX and
// CX unchanged.
func threeByteWindow() {
	Label("three")
	Comment("A window of 3-byte sequences only (threeByteWindow): its bytes 0-31 all >= 0x80 (so",
		"B >= 32: no escaped byte before 32), DX = leads, R14 = where the rule fails.")
	CMPL(ECX, I32(-1))
	JNE(LabelRef("validate"))
	VPCMPUB(U8(5), Z18, Z0, K3)
	KTESTQ(K3, K3)
	JNZ(LabelRef("validate"))
	VPCMPUB(U8(5), Z16, Z0, K4)
	KMOVQ(K6, RDX)
	KMOVQ(K4, RBX)
	CMPQ(RBX, RDX)
	JNE(LabelRef("validate"))
	LEAQ(Mem{Base: RDX, Index: RDX, Scale: 1}, R14)
	MOVQ(RDX, R12)
	SHLQ(U8(2), R12)
	ORQ(R12, R14)
	ANDNQ(RCX, RDX, R12)
	XORQ(R12, R14)
	Comment("E0 before a continuation byte without bit 5 (80..9F: overlong), ED before one with it",
		"(A0..BF: a surrogate).")
	VPCMPEQB(Z17, Z0, K1)
	VBROADCASTI64X4(k(kED), Z1)
	VPCMPEQB(Z1, Z0, K2)
	VPTESTMB(Z30, Z0, K4)
	KSHIFTLQ(U8(1), K1, K1)
	KANDNQ(K1, K4, K1)
	KSHIFTLQ(U8(1), K2, K2)
	KANDQ(K4, K2, K2)
	KORQ(K1, K2, K1)
	KMOVQ(K1, R12)
	ORQ(R12, R14)
	Comment("B: 63, or the first escaped ASCII byte if earlier. In a window taken the leads are",
		"the bytes 0, 3, 6, ... before B, so byte 63 is one (its sequence ends in the next",
		"window); a constant B leaves the next window's SI no chain through the masks.")
	MOVL(U32(63), R13L)
	cutAndCheck(RBX, "three_noesc")
	MOVQ(RCX, RBX)
	NOTQ(RBX)
	BZHIQ(R13, RBX, RBX)
	JNZ(LabelRef("validate"))
	KMOVQ(K6, K3)
	VPERMB_Z(Z0, Z19, K5, Z3)
	VPSRLW(U8(4), Z0, Z7)
	JMP(LabelRef("mode2"))
}

// cutAndCheck ends a shortcut window (twoByteWindow, threeByteWindow) at its first escaped
// ASCII byte (AX) when that is before B (R13), then goes on at validate when the window's rule
// fails (R14, where it does) at any byte up to and including B; tmp is scratch.
func cutAndCheck(tmp Register, skip string) {
	cutAtFirst(RAX, tmp, skip)
	LEAQ(mem(R13, 1), tmp)
	BZHIQ(tmp, R14, R14)
	JNZ(LabelRef("validate"))
}

// cutAtFirst sets R13 (a window's end, B) to the index of mask's lowest set bit when that is
// lower (through tmp, which may be mask itself); skip is the label past it, for a zero mask.
func cutAtFirst(mask, tmp Register, skip string) {
	TESTQ(mask, mask)
	JZ(LabelRef(skip))
	BSFQ(mask, tmp)
	CMPQ(tmp, R13)
	CMOVQLT(tmp, R13)
	Label(skip)
}

// sparseMax is the most bytes >= 0x80 a window may have for sparseWindow.
const sparseMax = 8

// sparseWindow emits escapeMBAVX512's path for a window with few bytes >= 0x80 (count, at
// most sparseMax; French prose, ASCII with an accented letter now and then), which the byte
// triples would write at the cost of a dense window: the window is stored, then each event in
// order, an escaped ASCII byte or a 2-byte sequence, is written in general registers (its
// escape from esc, or seq2 and hexU's \u0XXX) and the rest of the window stored again after
// it (the block path's way). A lead at byte 63 takes its continuation byte in the next window
// along (and is the last event: nothing of the window is left to store again). At the first
// byte >= 0x80 that does not start a valid 2-byte sequence (spec §2.2) the window ends before
// it; when that is byte 0 the code goes on with AX, CX and count as they were (from K1 and
// K2). At entry Z0 = the window, AX = its escaped ASCII bytes, CX = its bytes >= 0x80.
func sparseWindow(count Register) {
	Comment("sparseWindow: CX = the events, R12 = the next one, R14 = where the window's byte 0",
		"goes (DI plus what the events so far added), R13 = the bytes the window takes (64, or",
		"65 with a lead at 63).")
	CMPQ(count, U8(sparseMax))
	JA(LabelRef("sp_dense"))
	VMOVDQU64(Z0, mem(rDI, 0))
	ORQ(RAX, RCX)
	MOVQ(rDI, R14)
	Comment("R13 from the byte in memory (65 - (byte 63 < 0xC0)), not from the events: a short",
		"chain to the next window's SI. At sp_done a lead at 63 was a valid 2-byte one.")
	MOVL(U32(65), R13L)
	CMPB(mem(rSI, 63), U8(0xC0))
	SBBL(U8(0), R13L)
	Label("sp_event")
	BSFQ(RCX, R12)
	MOVWLZX(memi(rSI, R12, 0), EBX)
	CMPB(BL, U8(0x80))
	JB(LabelRef("sp_esc"))
	seq2(LabelRef("sp_stop"))
	hexU2()
	MOVQ(RBX, memi(R14, R12, 0))
	ADDQ(U8(4), R14)
	Comment("Both bytes of the sequence done.")
	MOVL(U32(3), EAX)
	SHLXQ(R12, RAX, RAX)
	ANDNQ(RCX, RAX, RCX)
	Comment("A lead at 63 is the window's last event, and its rest is the next window's (a load",
		"from SI+65 would read past the 128 bytes the loop may read).")
	CMPL(R12L, U8(63))
	JEQ(LabelRef("sp_done"))
	VMOVDQU64(memi(rSI, R12, 2), Z1)
	VMOVDQU64(Z1, memi(R14, R12, 2))
	TESTQ(RCX, RCX)
	JNZ(LabelRef("sp_event"))
	JMP(LabelRef("sp_done"))
	Label("sp_esc")
	Comment("An escaped ASCII byte (the block path's step).")
	MOVBLZX(BL, EDX)
	MOVQ(Mem{Base: rEsc, Index: RDX, Scale: 8}, RBX)
	MOVQ(RBX, memi(R14, R12, 0))
	SHRQ(U8(56), RBX)
	LEAQ(Mem{Base: R14, Index: RBX, Scale: 1, Disp: -1}, R14)
	BTRQ(R12, RCX)
	VMOVDQU64(memi(rSI, R12, 1), Z1)
	VMOVDQU64(Z1, memi(R14, R12, 1))
	TESTQ(RCX, RCX)
	JNZ(LabelRef("sp_event"))
	Label("sp_done")
	ADDQ(R13, rSI)
	LEAQ(memi(R14, R13, 0), rDI)
	JMP(LabelRef("loop"))
	Label("sp_stop")
	Comment("Not a valid 2-byte sequence at R12: the window ends there, unless that is byte 0.")
	TESTQ(R12, R12)
	JZ(LabelRef("sp_first"))
	ADDQ(R12, rSI)
	LEAQ(memi(R14, R12, 0), rDI)
	JMP(LabelRef("loop"))
	Label("sp_first")
	KMOVQ(K1, RAX)
	KMOVQ(K2, RCX)
	POPCNTQ(RCX, count)
	Label("sp_dense")
}

// bcastb loads a 32-byte constant (one byte repeated) into both halves of z: a load, no
// shuffle port.
func bcastb(off int, z VecPhysical) { bcast(k(off), z) }

// narrow selects the width of the vector registers that the steps shared by
// escapeMBAVX512 and escapeShortMBAVX512 emit (validConsts, classConsts, prevConsts,
// validate512, nibblesLC, triples, fourByteTriples, bcastb): false for Z registers (64-byte windows), true
// for Y registers (escapeShortMBAVX512Y's 32-byte window). On a CPU that runs a 512-bit
// operation as two 256-bit halves (AMD Zen 4) a Y register does the same work in half the
// time when the window holds no more than 32 bytes.
var narrow bool

// v returns z at the width narrow selects.
func v(z VecPhysical) Register {
	if narrow {
		return z.AsY()
	}
	return z
}

// bcast loads a 32-byte constant into z, in both halves at the Z width (VBROADCASTI64X4),
// as a plain load at the Y width.
func bcast(m Mem, z VecPhysical) {
	if narrow {
		VMOVDQU64(m, z.AsY())
		return
	}
	VBROADCASTI64X4(m, z)
}

// nibblesLC sets Z9 = L = (prev1 & 3) << 2 | x >> 4 & 3 and Z10 = x, each in its low nibble,
// the only bits the hex digits' VPERMB of Z21 reads (Z7 = x >> 4 by words): Z9 = 0x0C ?
// prev1 << 2 : Z7, bit by bit (VPTERNLOGD 0xE4: C ? A : B), Z10 a load of the window at SI
// (fromMem) or a copy of Z0 (escapeShortMBAVX512, whose window may end before 64 bytes).
func nibblesLC(fromMem bool) {
	VPSLLW(U8(2), v(Z3), v(Z9))
	VPTERNLOGD_BCST(U8(0xE4), k(k0C), v(Z7), v(Z9))
	if fromMem {
		VMOVDQU64(mem(rSI, 0), v(Z10))
	} else {
		VMOVDQA64(v(Z0), v(Z10))
	}
}

// triples emits step 3 of escapeMBAVX512 for any window (label triples, from units): the
// byte triples [A B C] of every position (Z8, Z9, Z10, hex digits and \u merged in), with
// CX = the window's bytes >= 0x80. At entry Z0 = the window, Z3 = prev1, Z7 = x >> 4 by
// words, K1 = its bytes >= 0xC0, K6 those >= 0xE0, K7 those >= 0xF0, R14 = its 4-byte leads,
// AX = the positions before B, R12 = the 3-byte sequences' bytes before B. fromMem is
// nibblesLC's. It goes on at chunks.
func triples(fromMem bool) {
	Label("triples")
	Comment("(Z3 = prev1, Z7 = x >> 4 by words.)")
	VPSRLW(U8(2), v(Z3), v(Z8))
	nibblesLC(fromMem)
	Comment("Only ASCII and 2-byte sequences before B (no 3-byte sequence's bytes, R12, and no",
		"4-byte lead): A, B, C are the defaults but at the leads (K2 = x >= 0xC0), whose C is",
		"0 (\\u0).")
	TESTQ(R12, R12)
	JNZ(LabelRef("general"))
	TESTQ(RAX, R14)
	JNZ(LabelRef("general"))
	KMOVQ(K1, K2)
	VPXORQ(v(Z13), v(Z13), v(Z13))
	VMOVDQU8(v(Z13), K2, v(Z10))
	JMP(LabelRef("hex"))
	Label("general")
	Comment("3rd byte of a 3-byte sequence (prev2 in 0xE0-0xEF; K3 = prev2 >= 0xF0, the 3rd",
		"byte of a 4-byte one): A = L, B = x & 0x0F, n = 2.")
	KSHIFTLQ(U8(2), K6, K2)
	KSHIFTLQ(U8(2), K7, K3)
	KANDNQ(K2, K3, K4)
	VMOVDQU8(v(Z9), K4, v(Z8))
	VMOVDQU8(v(Z10), K4, v(Z9))
	Comment("2nd byte of a 3-byte sequence (prev1 in 0xE0-0xEF; K2 = prev1 >= 0xF0, the 2nd",
		"byte of a 4-byte one): A = prev1 & 0x0F, B = x >> 2 & 0x0F, n = 2.")
	KSHIFTLQ(U8(1), K6, K4)
	KSHIFTLQ(U8(1), K7, K2)
	KANDNQ(K4, K2, K4)
	VMOVDQU8(v(Z3), K4, v(Z8))
	VPSRLW(U8(2), v(Z0), v(Z13))
	VMOVDQU8(v(Z13), K4, v(Z9))
	TESTQ(R14, R14)
	JZ(LabelRef("no4"))
	Comment("Only where there are 4-byte leads: Z12 = L of the next byte (Z9 there is still L:",
		"a 3rd byte of a 4-byte sequence is no 3-byte sequence's byte); 4th byte (prev3 >=",
		"0xF0, K4): A |= 0x0C.")
	VMOVDQU64(k(kNext), v(Z12))
	VPERMB(v(Z9), v(Z12), v(Z12))
	KSHIFTLQ(U8(3), K7, K4)
	bcastb(k0C, Z13)
	VPORQ(v(Z8), v(Z13), v(Z13))
	VMOVDQU8(v(Z13), K4, v(Z8))
	Comment("2nd byte of a 4-byte sequence (K2), with Z13 = w << 4 | x & 0x0F = (prev1 << 6 |",
		"x & 0x3F) - 0x10 in a byte (as escapeMBAVX2): A = 8 | Z13 >> 6, B = Z13 >> 2 & 0x0F,",
		"C = L of the next byte.")
	Comment("(Z13 = 0xC0 ? prev1 << 6 : x, VPTERNLOGD 0xE4; A = Z13 >> 6 & 3 | 8, 0xEA: A & B |",
		"C.)")
	VPSLLW(U8(6), v(Z3), v(Z13))
	VPTERNLOGD_BCST(U8(0xE4), k(kC0), v(Z0), v(Z13))
	bcastb(k10, Z14)
	VPSUBB(v(Z14), v(Z13), v(Z13))
	VPSRLW(U8(6), v(Z13), v(Z14))
	VPTERNLOGD_BCST(U8(0xEA), k(k08), v(Z20), v(Z14))
	VMOVDQU8(v(Z14), K2, v(Z8))
	VPSRLW(U8(2), v(Z13), v(Z14))
	VMOVDQU8(v(Z14), K2, v(Z9))
	VMOVDQU8(v(Z12), K2, v(Z10))
	Label("no4")
	Comment("Leads (K2 = x >= 0xC0) and 3rd bytes of 4-byte sequences (K3) write \\u, then C =",
		"0 for a 2-byte lead, d for a 4-byte lead or a 3rd byte (K4 = K7 | K3: x >= 0xF0);",
		"a 3-byte lead (x >= 0xE0, not K4) has n = 2.")
	KMOVQ(K1, K2)
	VPXORQ(v(Z13), v(Z13), v(Z13))
	VMOVDQU8(v(Z13), K2, v(Z10))
	KORQ(K7, K3, K4)
	bcastb(k0D, Z13)
	VMOVDQU8(v(Z13), K4, v(Z10))
	KORQ(K2, K3, K2)
	Label("hex")
	Comment("Hex digits; \\ and u at K2; A = x at ASCII (K3).")
	VPERMB(v(Z21), v(Z8), v(Z8))
	VPERMB(v(Z21), v(Z9), v(Z9))
	VPERMB(v(Z21), v(Z10), v(Z10))
	bcastb(kBS, Z13)
	VMOVDQU8(v(Z13), K2, v(Z8))
	bcastb(kU, Z13)
	VMOVDQU8(v(Z13), K2, v(Z9))
	VPMOVB2M(v(Z0), K3)
	KMOVQ(K3, RCX)
	KNOTQ(K3, K3)
	VMOVDQU8(v(Z0), K3, v(Z8))
}

// chunks emits step 4 of escapeMBAVX512 (label chunks): the triples in position order, packed
// and stored at DI, which advances past them. At entry Z8-Z10 = the triples, R13 = B, CX = the
// window's bytes >= 0x80, R12 = the 3-byte sequences' bytes before B. Each chunk is stored
// whole (64 bytes, a run-ahead past the output), or with masked, only its kept bytes
// (escapeShortMBAVX512, which writes nothing past its output and skips the chunks past B).
// minB and maxB are the smallest and the largest B: with minB above 21 (escapeShortMBAVX512,
// for 32 bytes or more) there is no test to skip chunk 1, with maxB 42 or less
// (escapeShortMBAVX512Y) no chunk 2.
func chunks(masked bool, minB, maxB int) {
	Comment("4. The triples [A B C] in position order, 192 bytes, as three 64-byte chunks: byte k",
		"of chunk j is A, B or C (r = p % 3 for p = 64j + k) of position p / 3, by VPERMI2B",
		"from A and B (kTri: p / 3, + 64 for B) and a VPERMB of C merged at r = 2. Each chunk",
		"is packed by VPCOMPRESSB under its keep mask and stored whole; DI += the mask's",
		"popcount. The keep mask of triple p / 3 is r < n: r = 0 before B (AX), r = 1 at bytes",
		">= 0x80 before B (CX), r = 2 at those not of a 3-byte sequence (BX), each deposited",
		"every third bit by PDEP (kTriP: P0, P1, P2 = bits 0, 1, 2 mod 3).")
	Label("chunks")
	MOVQ(I64(-1), RAX)
	BZHIQ(R13, RAX, RAX)
	ANDQ(RAX, RCX)
	ANDNQ(RCX, R12, RBX)
	p0, p1, p2 := k(kTriP), k(kTriP+8), k(kTriP+16)
	// chunk emits chunk j: keep mask = PDEP(AX, pa) | PDEP(CX, pb) | PDEP(BX, pc); the r = 2
	// positions of the chunk are pc's.
	chunk := func(j int, pa, pb, pc Mem) {
		PDEPQ(pa, RAX, RDX)
		PDEPQ(pb, RCX, R14)
		PDEPQ(pc, RBX, R12)
		ORQ(R14, RDX)
		ORQ(R12, RDX)
		KMOVQ(RDX, K2)
		KMOVQ(pc, K3)
		POPCNTQ(RDX, RDX)
		VMOVDQU64(k(kTri+64*j), Z13)
		VMOVDQU64(k(kTri+64*j), Z14)
		VPERMI2B(Z9, Z8, Z13)
		VPERMB(Z10, Z14, K3, Z13)
		VPCOMPRESSB_Z(Z13, K2, Z13)
		if masked {
			MOVQ(I64(-1), R14)
			BZHIQ(RDX, R14, R14)
			KMOVQ(R14, K2)
			VMOVDQU8(Z13, K2, mem(rDI, 0))
		} else {
			VMOVDQU64(Z13, mem(rDI, 0))
		}
		ADDQ(RDX, rDI)
	}
	Comment("Chunk 0: positions 0-21 (r = 0), 0-20 (r = 1, 2).")
	// skipPast ends a masked run's chunks when B <= b: chunk j and the next have no
	// position before B.
	skipPast := func(j, b int) {
		if masked && minB <= b {
			Commentf("Nothing for chunk %d with B <= %d.", j, b)
			CMPQ(R13, U8(b))
			JBE(LabelRef("cdone"))
		}
	}
	chunk(0, p0, p1, p2)
	skipPast(1, 21)
	Comment("Chunk 1: positions 22-42 (r = 0), 21-42 (r = 1), 21-41 (r = 2).")
	SHRQ(U8(22), RAX)
	SHRQ(U8(21), RCX)
	SHRQ(U8(21), RBX)
	chunk(1, p2, p0, p1)
	if maxB <= 42 {
		Label("cdone")
		return
	}
	skipPast(2, 42)
	Comment("Chunk 2: positions 43-63 (r = 0, 1), 42-63 (r = 2).")
	SHRQ(U8(21), RAX)
	SHRQ(U8(22), RCX)
	SHRQ(U8(21), RBX)
	chunk(2, p1, p2, p0)
	if masked {
		Label("cdone")
	}
}

// validConsts loads validate512's constants: Z28-Z26 = the three lookup tables, Z24/Z23/Z22 =
// 0x60, 0x70, 0x80.
func validConsts() {
	bcast(k(kByte1High), Z28)
	bcast(k(kByte1Low), Z27)
	bcast(k(kByte2High), Z26)
	bcast(k(k60), Z24)
	bcast(k(k70), Z23)
	bcast(k(k80), Z22)
}

// classConsts loads the constants of the classes and the triples: Z21 = the hex digits, Z20 =
// 0x03, Z16/Z17/Z18 = 0xC0, 0xE0, 0xF0.
func classConsts() {
	bcast(k(kHex), Z21)
	bcast(k(k03), Z20)
	bcast(k(kC0), Z16)
	bcast(k(kE0), Z17)
	bcast(k(kF0), Z18)
}

// prevConsts sets Z19 = the previous byte's index (kPrev) and K5 = all but the first byte:
// the zero-masked VPERMB shifts of a window (prev1..prev3).
func prevConsts() {
	VMOVDQU64(k(kPrev), v(Z19))
	MOVQ(I64(-2), RAX)
	KMOVQ(RAX, K5)
}
