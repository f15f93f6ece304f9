package mutation

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// OpBitFlip flips one bit of one byte of a lookup table (a DATA symbol of a Go assembly file).
const OpBitFlip Operator = "table-bit-flip"

// Conditional branches of Go's amd64 and arm64 assemblers: the boundary partner (the same
// comparison with or without equality) and the negation.
var (
	asmBoundary = map[string]string{
		// amd64: signed, unsigned (with the assembler's aliases)
		"JLT": "JLE", "JLE": "JLT", "JGT": "JGE", "JGE": "JGT",
		"JCS": "JLS", "JLS": "JCS", "JCC": "JHI", "JHI": "JCC",
		"JB": "JBE", "JBE": "JB", "JAE": "JA", "JA": "JAE",
		// arm64
		"BLT": "BLE", "BLE": "BLT", "BGT": "BGE", "BGE": "BGT",
		"BLO": "BLS", "BLS": "BLO", "BHI": "BHS", "BHS": "BHI",
		"BCC": "BLS", "BCS": "BHI",
	}
	asmNegation = map[string]string{
		"JEQ": "JNE", "JNE": "JEQ", "JZ": "JNZ", "JNZ": "JZ",
		"JLT": "JGE", "JGE": "JLT", "JLE": "JGT", "JGT": "JLE",
		"JCS": "JCC", "JCC": "JCS", "JLS": "JHI", "JHI": "JLS",
		"JB": "JAE", "JAE": "JB", "JBE": "JA", "JA": "JBE",
		"JMI": "JPL", "JPL": "JMI", "JOS": "JOC", "JOC": "JOS", "JPS": "JPC", "JPC": "JPS",
		"BEQ": "BNE", "BNE": "BEQ", "BLT": "BGE", "BGE": "BLT", "BLE": "BGT", "BGT": "BLE",
		"BLO": "BHS", "BHS": "BLO", "BLS": "BHI", "BHI": "BLS", "BCC": "BCS", "BCS": "BCC",
		"BMI": "BPL", "BPL": "BMI", "BVS": "BVC", "BVC": "BVS",
		"CBZ": "CBNZ", "CBNZ": "CBZ", "CBZW": "CBNZW", "CBNZW": "CBZW", "TBZ": "TBNZ", "TBNZ": "TBZ",
	}
	// asmImmOps are the mnemonics (by prefix) whose immediate is a comparison (a VPCMP's
	// predicate among them), a mask (a VPTERNLOG's truth table too), a shift or a cursor
	// advance.
	asmImmOps = []string{"CMP", "TEST", "AND", "BT", "SHL", "SHR", "SAR", "ADD", "SUB",
		"VPSRL", "VPSLL", "VPTERNLOG", "VPCMP", "PSRL", "PSLL", "VPAND", "PAND", "LSL", "LSR", "ASR", "TST", "VUSHR", "VSHL", "VSRI", "VSLI", "USHR"}
	asmImm  = regexp.MustCompile(`\$(-?(?:0[xX][0-9a-fA-F]+|[0-9]+))\b`)
	asmData = regexp.MustCompile(`^DATA\s+([\w·<>]+)\+(\d+)\(SB\)/(\d),\s*\$(0[xX][0-9a-fA-F]+|\d+)`)
	asmGlob = regexp.MustCompile(`^GLOBL\s+([\w·<>]+)\(SB\),.*\$(\d+)`)
	// asmDataString is a DATA line of a string ($"\\u00"): its bytes count in the table's
	// (so that a patch finds the table in the binary), but it gets no mutants.
	asmDataString = regexp.MustCompile(`^DATA\s+([\w·<>]+)\+(\d+)\(SB\)/(\d),\s*\$("(?:[^"\\]|\\.)*")`)
)

// patch is how a table mutant is applied to a built binary: the symbol's bytes as DATA gives
// them (found once in the binary) and the bit to flip.
type patch struct {
	symbol string
	data   []byte // the whole symbol
	off    int    // the byte in it
	bit    uint8
}

// TableByte is the byte of its DATA symbol a table-bit-flip mutant flips, -1 for any other
// mutant.
func (m Mutant) TableByte() int {
	if m.patch == nil {
		return -1
	}
	return m.patch.off
}

// AsmSites returns the mutants of the Go assembly source src of file in source order: each
// conditional branch swapped for its boundary partner and for its negation (JLT ↔ JLE,
// JEQ ↔ JNE, BLT ↔ BLE, CBZ ↔ CBNZ, TBZ ↔ TBNZ, …), each immediate of a compare (a VPCMP's
// predicate too), test, mask (a VPTERNLOG's truth table too), shift or add/sub (a cursor
// advance) plus and minus 1, and each bit of each byte of the
// DATA symbols whose name starts with "utf8" (the UTF-8 validation tables) flipped. funcs
// selects TEXT symbols, #define macros and DATA symbols by name (empty: all), a DATA symbol
// optionally with a byte range: "utf8consts[0:96]". It fails when a named one is missing or
// a range does not parse.
func AsmSites(file string, src []byte, funcs []string) ([]Mutant, error) {
	funcs, ranges, err := asmRanges(file, funcs)
	if err != nil {
		return nil, err
	}
	sc := &asmScan{file: file, src: src, funcs: funcs, found: map[string]bool{}, ranges: ranges, tables: asmTables(src)}
	off := 0 // the offset of the next line
	for l := range strings.Lines(string(src)) {
		sc.line++
		sc.start = off
		off += len(l)
		sc.scanLine(l)
	}
	for _, name := range funcs {
		if !sc.found[name] {
			return nil, fmt.Errorf("%s: no TEXT, #define or utf8 DATA symbol %s", file, name)
		}
	}
	if err := checkRanges(file, ranges, sc.tables); err != nil {
		return nil, err
	}
	for i := range sc.out {
		sc.out[i].ID = i + 1
	}
	return sc.out, nil
}

// asmRanges takes the byte ranges off funcs' NAME[FROM:TO] entries: the names, and each
// name's range.
func asmRanges(file string, funcs []string) ([]string, map[string][2]int, error) {
	ranges := map[string][2]int{}
	for i, f := range funcs {
		name, r, ok := strings.Cut(f, "[")
		if !ok {
			continue
		}
		lo, hi, ok := strings.Cut(strings.TrimSuffix(r, "]"), ":")
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if !ok || !strings.HasSuffix(r, "]") || err1 != nil || err2 != nil || a < 0 || b <= a {
			return nil, nil, fmt.Errorf("%s: %q: a byte range is [FROM:TO], FROM < TO", file, f)
		}
		funcs = slices.Clone(funcs)
		funcs[i], ranges[name] = name, [2]int{a, b}
	}
	return funcs, ranges, nil
}

// asmTables are the bytes of the utf8 lookup tables src's DATA lines write, by symbol, for the
// table mutants' patches.
func asmTables(src []byte) map[string][]byte {
	tables := map[string][]byte{}
	for l := range strings.Lines(string(src)) {
		if m := asmGlob.FindStringSubmatch(l); m != nil && strings.HasPrefix(m[1], "utf8") {
			n, _ := strconv.Atoi(m[2])
			tables[m[1]] = append(tables[m[1]], make([]byte, max(0, n-len(tables[m[1]])))...)
		}
	}
	for l := range strings.Lines(string(src)) {
		var b [8]byte
		m := asmData.FindStringSubmatch(l)
		if m != nil {
			v, _ := strconv.ParseUint(m[4], 0, 64)
			binary.LittleEndian.PutUint64(b[:], v)
		} else if m = asmDataString.FindStringSubmatch(l); m != nil {
			s, _ := strconv.Unquote(m[4])
			copy(b[:], s)
		}
		if m == nil || tables[m[1]] == nil {
			continue
		}
		off, _ := strconv.Atoi(m[2])
		width, _ := strconv.Atoi(m[3])
		if off+width <= len(tables[m[1]]) {
			copy(tables[m[1]][off:], b[:width])
		}
	}
	return tables
}

// checkRanges refuses a byte range of a symbol that is not a utf8 table, or past its end (the
// first in name order: the same error every run).
func checkRanges(file string, ranges map[string][2]int, tables map[string][]byte) error {
	for _, name := range slices.Sorted(maps.Keys(ranges)) {
		r := ranges[name]
		t, ok := tables[name+"<>"]
		if !ok {
			t, ok = tables[name]
		}
		switch {
		case !ok:
			return fmt.Errorf("%s: %s[%d:%d]: a byte range selects bytes of a utf8 lookup table, and %s is not one", file, name, r[0], r[1], name)
		case r[1] > len(t):
			return fmt.Errorf("%s: %s[%d:%d]: past the table's %d bytes", file, name, r[0], r[1], len(t))
		}
	}
	return nil
}

// asmScan walks an assembly file line by line, making the mutants of the functions and tables
// asked for.
type asmScan struct {
	file   string
	src    []byte
	funcs  []string
	found  map[string]bool
	ranges map[string][2]int
	tables map[string][]byte
	out    []Mutant
	fn     string // the function (TEXT or #define) the line is in
	line   int    // the line's number
	start  int    // the line's offset
}

func (sc *asmScan) add(at, end int, op Operator, mutated string, p *patch) {
	col := at - sc.start + 1
	sc.out = append(sc.out, Mutant{File: sc.file, Func: sc.fn, Line: sc.line, Col: col, EndLine: sc.line, EndCol: col + (end - at), Operator: op,
		Original: string(sc.src[at:end]), Mutated: mutated, off: at, end: end, patch: p})
}

func (sc *asmScan) want(name string) bool {
	if len(sc.funcs) == 0 || slices.Contains(sc.funcs, name) {
		sc.found[name] = true
		return true
	}
	return false
}

// scanLine makes the mutants of one line: a TEXT or #define starts a function, a DATA line of a
// table gets bit flips, an instruction of a function asked for gets its operators.
func (sc *asmScan) scanLine(l string) {
	text := l
	if i := strings.Index(text, "//"); i >= 0 {
		text = text[:i]
	}
	trimmed := strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(trimmed, "TEXT "):
		name := strings.TrimPrefix(strings.Fields(trimmed)[1], "·")
		sc.fn, _, _ = strings.Cut(name, "(")
	case strings.HasPrefix(trimmed, "#define "):
		sc.fn, _, _ = strings.Cut(strings.Fields(trimmed)[1], "(")
	case strings.HasPrefix(trimmed, "DATA "):
		sc.dataLine(text)
	case sc.fn != "" && trimmed != "" && sc.want(sc.fn):
		sc.instruction(text)
	}
}

// dataLine flips each bit of a DATA line of a utf8 table asked for (within its byte range).
func (sc *asmScan) dataLine(text string) {
	m := asmData.FindStringSubmatchIndex(text)
	if m == nil {
		return
	}
	sym := text[m[2]:m[3]]
	if sc.tables[sym] == nil {
		return
	}
	saved := sc.fn
	defer func() { sc.fn = saved }()
	sc.fn = strings.TrimSuffix(strings.TrimPrefix(sym, "·"), "<>")
	if !sc.want(sc.fn) {
		return
	}
	symOff, _ := strconv.Atoi(text[m[4]:m[5]])
	width, _ := strconv.Atoi(text[m[6]:m[7]])
	lit := text[m[8]:m[9]]
	v, _ := strconv.ParseUint(lit, 0, 64)
	for byteIdx := range width {
		if r, ok := sc.ranges[sc.fn]; ok && (symOff+byteIdx < r[0] || symOff+byteIdx >= r[1]) {
			continue
		}
		for bit := range 8 {
			nv := v ^ 1<<(8*byteIdx+bit)
			sc.add(sc.start+m[8], sc.start+m[9], OpBitFlip, fmt.Sprintf("0x%0*x", len(lit)-2, nv),
				&patch{symbol: sym, data: sc.tables[sym], off: symOff + byteIdx, bit: uint8(bit)})
		}
	}
}

// instruction makes an instruction's mutants: its condition's boundary and negation, and each
// immediate one up and one down.
func (sc *asmScan) instruction(text string) {
	body, lead := text, 0
	if i := strings.Index(body, ":"); i >= 0 && !strings.ContainsAny(body[:i], " \t,$(") {
		lead = i + 1 // a label
	}
	fields := strings.Fields(body[lead:])
	if len(fields) == 0 {
		return
	}
	mn := fields[0]
	at := sc.start + lead + strings.Index(body[lead:], mn)
	if t, ok := asmBoundary[mn]; ok {
		sc.add(at, at+len(mn), OpBoundary, t, nil)
	}
	if t, ok := asmNegation[mn]; ok {
		sc.add(at, at+len(mn), OpNegate, t, nil)
	}
	if !slices.ContainsFunc(asmImmOps, func(p string) bool { return strings.HasPrefix(mn, p) }) {
		return
	}
	rest := at + len(mn)
	for _, m := range asmImm.FindAllStringSubmatchIndex(string(sc.src[rest:sc.start+len(text)]), -1) {
		lit := string(sc.src[rest+m[2] : rest+m[3]])
		v, err := strconv.ParseInt(lit, 0, 64)
		if err != nil {
			continue
		}
		sc.add(rest+m[2], rest+m[3], OpConstInc, asmLiteral(lit, v+1), nil)
		if v > 0 {
			sc.add(rest+m[2], rest+m[3], OpConstDec, asmLiteral(lit, v-1), nil)
		}
	}
}

// asmLiteral writes n as lit is written: decimal, or hex of lit's width in lit's case.
func asmLiteral(lit string, n int64) string {
	if strings.HasPrefix(lit, "0x") || strings.HasPrefix(lit, "0X") {
		if strings.ContainsAny(lit[2:], "ABCDEF") {
			return fmt.Sprintf("%s%0*X", lit[:2], len(lit)-2, n)
		}
		return fmt.Sprintf("%s%0*x", lit[:2], len(lit)-2, n)
	}
	return strconv.FormatInt(n, 10)
}

// apply returns a copy of the binary bin with p applied: the symbol's bytes must occur in it
// exactly once.
func (p *patch) apply(bin []byte) ([]byte, error) {
	i := bytes.Index(bin, p.data)
	if i < 0 {
		return nil, fmt.Errorf("table %s: its %d bytes are not in the binary", p.symbol, len(p.data))
	}
	if bytes.Contains(bin[i+1:], p.data) {
		return nil, fmt.Errorf("table %s: its %d bytes occur more than once in the binary", p.symbol, len(p.data))
	}
	out := slices.Clone(bin)
	out[i+p.off] ^= 1 << p.bit
	return out, nil
}
