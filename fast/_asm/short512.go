package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// escapeShortMBAVX512 emits the one-window form of escapeMBAVX512 for a whole short string
// of 32 to 63 bytes (archShortMB: a short string, a piece of the last bytes of a long one):
// the window is a masked load of src, zeros after it; every check of escapeMBAVX512 runs on
// it (escaped ASCII, validation), then its triples (fourByteTriples for 4-byte sequences and
// ASCII, else triples) and chunks, stored with masked stores, so that it writes nothing past
// its output and nothing at all when it leaves src to the caller. With narrowWin,
// escapeShortMBAVX512Y: the same steps on a 32-byte window in Y registers (v, bcast) for a
// string of 1 to 31 bytes, up to the chunks, which stay at the Z width (the Y registers'
// upper halves are zero). On Zen 4 an operation on a Z register costs two on Y registers
// (two 256-bit halves): on 16-byte strings the narrow form took 19-45 % less time (the
// kernel alone in a loop of calls, the non-ASCII corpora).
func escapeShortMBAVX512(narrowWin bool) {
	name, minLen, maxLen, win := "escapeShortMBAVX512", 32, 63, "64"
	if narrowWin {
		name, minLen, maxLen, win = "escapeShortMBAVX512Y", 1, 31, "32"
	}
	narrow = narrowWin
	defer func() { narrow = false }()
	TEXT(name, NOSPLIT, "func(dst *byte, room int, src []byte, kt *uint64) int")
	Doc(name+" writes the escape of src (without quotes) at dst and returns its",
		"length when every byte of src is an ASCII byte that kt's option set leaves as it is or",
		"a byte of a valid UTF-8 sequence (json_encode without UNESCAPED_UNICODE writes each as",
		"\\uXXXX or a surrogate pair) and it takes at most room bytes; otherwise it writes",
		"nothing and returns -1. It requires AVX-512 BW, VL, VBMI and VBMI2, BMI2, POPCNT and",
		fmt.Sprintf("%d <= len(src) <= %d.", minLen, maxLen))
	regs := []string{"Registers: as escapeMBAVX512 (Z16-Z28 the same constants, Z0 = the window, K5 = all",
		"but the first byte, R13 = B = len(src)); SI = src, DI = the output position, R9 =",
		"dst, R10 = the load mask (the bytes of src), R11 = room."}
	if narrowWin {
		regs = append(regs, "Y registers (the same numbers) up to the chunks, whose Z registers' upper halves",
			"are then zero.")
	}
	Comment(name+": the contract above; it reads src[0:len(src)] only (a masked",
		"load) and writes dst[0:result] only (masked stores).", "")
	Comment(regs...)
	Comment("",
		"Algorithm: escapeMBAVX512's steps on one "+win+"-byte window whose bytes after src are",
		"zeros (at least one: a sequence cut by the end of src fails the validation at it): an",
		"escaped ASCII byte of src (the VPSHUFB table of kt, controls, '<' by kt's HEX_TAG",
		"slot) or an invalid sequence returns -1 before any store, and so does an escape longer",
		"than room (len(src), plus one per byte >= 0x80, plus one per such byte not of a 3-byte",
		"sequence: the triples' keep masks). Otherwise B = len(src): the triples of every",
		"position (triples) and the chunks (chunks), each stored under the mask of its kept",
		"bytes.",
	)
	Load(Param("dst"), rDI)
	Load(Param("room"), R11)
	Load(Param("src").Base(), rSI)
	Load(Param("src").Len(), R13)
	kt := Load(Param("kt"), RAX)
	MOVQ(rDI, rDst)
	MOVQ(I64(-1), R10)
	BZHIQ(R13, R10, R10)
	KMOVQ(R10, K4)
	VMOVDQU8_Z(mem(rSI, 0), K4, v(Z0))
	Comment("Escaped ASCII bytes of src (K1): kt's table of special bytes by low nibble, the",
		"controls, and '<' with HEX_TAG (kt's slot of it is 0xFF without). The zeros after src",
		"are controls: the load mask (K4) leaves them out.")
	bcast(mem(kt, ktShuf), Z31)
	VBROADCASTI32X4(mem(kt, ktLT), v(Z29))
	bcast(k(k20), Z30)
	VPSHUFB(v(Z0), v(Z31), v(Z1))
	VPCMPEQB(v(Z1), v(Z0), K1)
	VPCMPUB(U8(1), v(Z30), v(Z0), K2)
	KORQ(K1, K2, K1)
	VPCMPEQB(v(Z29), v(Z0), K2)
	KORQ(K1, K2, K1)
	KTESTQ(K4, K1)
	JNZ(LabelRef("none"))
	Comment("Validation (escapeMBAVX512's step 1): DX = the positions of errors, at most at",
		"len(src) (a sequence cut by the end).")
	validConsts()
	prevConsts()
	validate512()
	TESTQ(RDX, RDX)
	JNZ(LabelRef("none"))
	Comment("Classes (as escapeMBAVX512's): K1 = bytes >= 0xC0, K6 = >= 0xE0, K7 = >= 0xF0, R14",
		"= 4-byte leads; AX = the positions before B (src's), R12 = the 3-byte sequences'",
		"bytes.")
	classConsts()
	VPCMPUB(U8(5), v(Z16), v(Z0), K1)
	VPCMPUB(U8(5), v(Z17), v(Z0), K6)
	VPCMPUB(U8(5), v(Z18), v(Z0), K7)
	KMOVQ(K7, R14)
	MOVQ(R10, RAX)
	KANDNQ(K6, K7, K3)
	KMOVQ(K3, RDX)
	IMUL3Q(U8(7), RDX, RDX) // leads | leads << 1 | leads << 2 (3 apart: no carries)
	ANDQ(RAX, RDX)
	MOVQ(RDX, R12)
	Comment("The escape's length: B + the bytes >= 0x80 + those not of a 3-byte sequence.")
	VPMOVB2M(v(Z0), K2)
	KMOVQ(K2, RBX)
	POPCNTQ(RBX, RCX)
	ANDNQ(RBX, R12, RBX)
	POPCNTQ(RBX, RBX)
	ADDQ(RCX, RBX)
	ADDQ(R13, RBX)
	CMPQ(RBX, R11)
	JA(LabelRef("none"))
	Comment("Without a 4-byte lead, no fourByteTriples.")
	TESTQ(R14, R14)
	JZ(LabelRef("triples"))
	fourByteTriples(false)
	triples(false)
	narrow = false // the chunks at the Z width
	chunks(true, minLen, maxLen)
	SUBQ(rDst, rDI)
	Store(rDI, ReturnIndex(0))
	VZEROUPPER()
	RET()
	Label("none")
	MOVQ(I64(-1), RAX)
	Store(RAX, ReturnIndex(0))
	VZEROUPPER()
	RET()
}
