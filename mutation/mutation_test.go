package mutation

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sample = `package p

func f(s []byte, i int) int {
	switch c := s[i]; {
	case c < 0xC2:
		return 1
	case c >= 0xE0 && !ok(c):
		return i + 2
	}
	return g(3)
}

func ok(c byte) bool { return c&0xC0 == 0x80 }

func g(n int) int { return n }
`

func TestSites(t *testing.T) {
	ms, err := Sites("p.go", []byte(sample), []string{"f"})
	require.NoError(t, err)
	var got []string
	for _, m := range ms {
		assert.Equal(t, "f", m.Func)
		got = append(got, strings.TrimPrefix(m.String(), "p.go:"))
		// Apply changes exactly the site: the rest of the source is byte-identical.
		out := m.Apply([]byte(sample))
		assert.Equal(t, sample[:m.off], string(out[:m.off]))
		assert.Equal(t, sample[m.end:], string(out[len(out)-(len(sample)-m.end):]))
	}
	// The case condition of a tagless switch, each operand of &&, the !, the cursor advance in
	// an addition, a returned constant and a call argument.
	for _, want := range []string{
		"5:9 relational-boundary: < → <=",
		"5:9 relational-negation: < → >=",
		"5:11 constant+1: 0xC2 → 0xC3",
		"5:11 constant-1: 0xC2 → 0xC1",
		"7:9 relational-boundary: >= → >",
		"7:17 logical: && → ||",
		"7:7 drop-left-operand: c >= 0xE0 && !ok(c) → !ok(c)",
		"7:7 drop-right-operand: c >= 0xE0 && !ok(c) → c >= 0xE0",
		"7:20 remove-not: !ok(c) → ok(c)",
		"6:10 constant+1: 1 → 2",
		"6:10 constant-1: 1 → 0",
		"8:14 constant-1: 2 → 1",
		"10:11 constant+1: 3 → 4",
	} {
		assert.Contains(t, got, want)
	}
	for i, m := range ms {
		assert.Equal(t, i+1, m.ID)
	}
	all, err := Sites("p.go", []byte(sample), nil)
	require.NoError(t, err)
	assert.Greater(t, len(all), len(ms), "ok and g have sites too")

	_, err = Sites("p.go", []byte(sample), []string{"h"})
	assert.EqualError(t, err, "p.go: no function h")
	_, err = Sites("p.go", []byte("package p\nfunc {"), nil)
	assert.Error(t, err)
}

// TestRunFast runs four mutants of fast/decode.go through the overlay with one killer and one
// equivalence killer: one that the killer kills, one that does not compile (not viable, not
// killed), one that survives both (equivalent on the second's domain) and one that only the
// equivalence killer kills (a gap in the killer's tests). The file on disk is not written.
func TestRunFast(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests package fast once per mutant (about a minute)")
	}
	dir, err := filepath.Abs("..")
	require.NoError(t, err)
	file := "fast/decode.go"
	src, err := os.ReadFile(filepath.Join(dir, file))
	require.NoError(t, err)
	sites, err := Sites(file, src, []string{"decodeValid"})
	require.NoError(t, err)
	seeds, err := Seeds(file, src, []string{"utf8Decode"})
	require.NoError(t, err)
	pick := func(ms []Mutant, op Operator, orig, mutated string) Mutant {
		for _, m := range ms {
			if m.Operator == op && (orig == "" || m.Original == orig && m.Mutated == mutated) {
				return m
			}
		}
		t.Fatalf("no mutant %s: %s → %s", op, orig, mutated)
		return Mutant{}
	}
	killed := pick(sites, OpConstDec, "0xC2", "0xC1") // decodeValid accepts C1 leads: an overlong 2-byte form
	broken := killed
	broken.Mutated = "undefinedName"
	// utf8_decode writes '?' for a surrogate whether it rejects it or not: equivalent.
	equivalent := pick(seeds, "seed:accept-surrogate", "", "")
	// utf8Decode taking C0 80 for a 2-byte sequence writes 0x00 where utf8_decode writes '?':
	// the NextChar table cannot see it, the utf8_decode facts can.
	gap := pick(seeds, "seed:accept-C0-C1", "", "")
	ms := []Mutant{killed, broken, equivalent, gap}
	for i := range ms {
		ms[i].ID = i + 1
	}

	cfg := Config{Dir: dir, Workers: 2,
		Killers:     []Killer{{Name: "nextchar", Pkg: "./fast", Run: "^TestNextChar$", Short: true}},
		Equivalence: []Killer{{Name: "utf8facts", Pkg: "./fast", Run: "^TestUTF8DecodeFacts$", Short: true, Domain: "the utf8_decode facts"}},
	}
	ctx := context.Background()
	res, sum, err := Run(ctx, cfg, []Target{{File: file, Src: src, Mutants: ms}})
	require.NoError(t, err)
	require.Len(t, res, 4)
	assert.Equal(t, Killed, res[0].Outcome, "%+v", res[0])
	assert.Equal(t, "nextchar", res[0].KilledBy)
	assert.False(t, res[0].Gap)
	assert.Equal(t, "TestNextChar", res[0].Test)
	// The broken mutant spoils the schema build: the compiler's error points into its
	// closure, so it leaves the schema and gets a build of its own, which fails.
	assert.Equal(t, NotViable, res[1].Outcome, "%+v", res[1])
	assert.Contains(t, res[1].Detail, "undefinedName")
	assert.Equal(t, "build", res[1].How)
	assert.Equal(t, Equivalent, res[2].Outcome, "%+v", res[2])
	assert.Equal(t, "the utf8_decode facts", res[2].Domain)
	assert.Equal(t, Killed, res[3].Outcome, "%+v", res[3])
	assert.Equal(t, "utf8facts", res[3].KilledBy)
	assert.True(t, res[3].Gap)
	assert.NotEmpty(t, res[3].Detail, "the failing test's output")
	t.Logf("the gap: %s", res[3].Detail)
	for i, r := range res {
		assert.Positive(t, r.Elapsed, "mutant %d: its killers' time", r.ID)
		if i != 1 {
			assert.Equal(t, "schema", r.How, "mutant %d", r.ID)
		}
	}
	// The two utf8Decode mutants are never evaluated under TestNextChar: its traced run spares
	// them their runs.
	assert.Equal(t, Summary{Baseline: sum.Baseline, Schema: 3, Separate: 1, Builds: sum.Builds, Trace: sum.Trace, Skipped: 2}, sum)
	assert.Positive(t, sum.Trace)
	assert.Len(t, sum.Baseline, 1)

	// The schema build decides exactly as one build per mutant does.
	cfg.NoSchema = true
	slow, sum, err := Run(ctx, cfg, []Target{{File: file, Src: src, Mutants: ms}})
	require.NoError(t, err)
	assert.Equal(t, 4, sum.Separate)
	for i := range res {
		assert.Equal(t, res[i].Outcome, slow[i].Outcome, "mutant %d: schema and own build disagree", res[i].ID)
		assert.Equal(t, "build", slow[i].How)
	}

	score, counts := Score(res)
	assert.Equal(t, map[Outcome]int{Killed: 2, NotViable: 1, Equivalent: 1}, counts)
	assert.Equal(t, 100.0, score)

	after, err := os.ReadFile(filepath.Join(dir, file))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(src, after), "the working tree was written")

	// Interrupted after the first mutant: the results so far come back with the error.
	cctx, cancel := context.WithCancel(ctx)
	cfg.Equivalence, cfg.Progress = nil, func(done, total int, r Result) { cancel() }
	cfg.Workers = 1
	part, _, err := Run(cctx, cfg, []Target{{File: file, Src: src, Mutants: ms}})
	assert.ErrorIs(t, err, context.Canceled)
	require.Len(t, part, 4)
	assert.NotEmpty(t, part[0].Outcome, "the first mutant was decided")
	assert.Empty(t, part[3].Outcome, "the last was not")
	cfg.Progress, cfg.Workers = nil, 2

	// A killer that runs no test, or whose package does not exist, stops the run.
	_, err = Baseline(ctx, Config{Dir: dir, Killers: []Killer{{Name: "none", Pkg: "./fast", Run: "^TestNoSuchTest$"}}})
	assert.ErrorContains(t, err, "killer none runs no test")
	_, err = Baseline(ctx, Config{Dir: dir, Killers: []Killer{{Name: "nopkg", Pkg: "./nosuchpkg"}}})
	assert.ErrorContains(t, err, "killer nopkg")
	_, _, err = Run(ctx, Config{Dir: dir, Killers: []Killer{{Name: "badflag", Pkg: "./cmd/difffuzz", Main: true, Args: []string{"--no-such-flag"}}}},
		[]Target{{File: file, Src: src, Mutants: ms[:1]}})
	assert.ErrorContains(t, err, "killer badflag fails without any mutant")

	// A command as the equivalence killer: difffuzz's own exhaustive space of utf8_decode
	// (lengths 1-2) finds the gap, and its first finding is kept as the evidence.
	cfg.Equivalence = []Killer{{Name: "utf8-domain", Pkg: "./cmd/difffuzz", Main: true, Domain: "utf8_decode, 1-2 bytes",
		Args: []string{"--exhaustive", "--ops", "utf8_decode", "--max-len", "2", "--impl", "fast", "--findings", "{evidence}"}}}
	cfg.NoSchema = false
	res, _, err = Run(ctx, cfg, []Target{{File: file, Src: src, Mutants: ms[2:]}})
	require.NoError(t, err)
	assert.Equal(t, Equivalent, res[0].Outcome, "%+v", res[0])
	assert.Equal(t, "utf8_decode, 1-2 bytes", res[0].Domain)
	assert.Equal(t, Killed, res[1].Outcome, "%+v", res[1])
	assert.True(t, res[1].Gap)
	assert.Contains(t, res[1].Evidence, `"op":"utf8_decode"`)
	t.Logf("evidence: %s", res[1].Evidence)

	// A domain whose traced run does not finish within the limit leaves its survivors
	// undecided, without a run of each of its own.
	cfg.EquivalenceTimeout = time.Millisecond
	res, _, err = Run(ctx, cfg, []Target{{File: file, Src: src, Mutants: ms[2:3]}})
	require.NoError(t, err)
	assert.Equal(t, Survived, res[0].Outcome, "%+v", res[0])
	assert.Contains(t, res[0].Detail, "equivalence on utf8_decode, 1-2 bytes not decided: its traced run did not finish within 1ms")
	cfg.EquivalenceTimeout = 0

	// The traced runs go test by test: the utf8Decode mutant evaluates differently only
	// under TestUTF8DecodeFacts, so the killer runs that test alone.
	cfg.Killers = []Killer{{Name: "both", Pkg: "./fast", Run: "^(TestNextChar|TestUTF8DecodeFacts)$", Short: true}}
	cfg.Equivalence = nil
	res, sum, err = Run(ctx, cfg, []Target{{File: file, Src: src, Mutants: ms[3:]}})
	require.NoError(t, err)
	assert.Equal(t, Killed, res[0].Outcome, "%+v", res[0])
	assert.Equal(t, "TestUTF8DecodeFacts", res[0].Test)
	assert.Equal(t, 1, sum.Narrowed)
	assert.Zero(t, sum.Skipped)
}

// TestWriteElements checks the JSON against the required fields of the mutation-testing-elements
// schema (version 2): schemaVersion, thresholds high and low, files with language, source and
// mutants, each with a unique id, mutatorName, a location whose span in source is the mutated
// text, and a status of the schema's enum.
func TestWriteElements(t *testing.T) {
	ms, err := Sites("p.go", []byte(sample), nil)
	require.NoError(t, err)
	outcomes := []Outcome{Killed, Survived, TimedOut, NotViable}
	var results []Result
	for i, m := range ms {
		results = append(results, Result{Mutant: m, Outcome: outcomes[i%len(outcomes)], KilledBy: "tables", Test: "TestX", Detail: "undefined: x"})
	}
	var buf bytes.Buffer
	require.NoError(t, WriteElements(&buf, results, map[string][]byte{"p.go": []byte(sample)}, 80, 60))
	// The schema's keys, exactly (encoding/json would match "Start" to a field tagged "start").
	var raw map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &raw))
	for _, k := range []string{"schemaVersion", "thresholds", "files"} {
		assert.Contains(t, raw, k)
	}
	for _, fv := range raw["files"].(map[string]any) {
		for _, k := range []string{"language", "source", "mutants"} {
			assert.Contains(t, fv, k)
		}
		for _, mv := range fv.(map[string]any)["mutants"].([]any) {
			m := mv.(map[string]any)
			for _, k := range []string{"id", "mutatorName", "location", "status"} {
				assert.Contains(t, m, k)
			}
			loc := m["location"].(map[string]any)
			for _, k := range []string{"start", "end"} {
				require.Contains(t, loc, k)
				assert.Contains(t, loc[k], "line")
				assert.Contains(t, loc[k], "column")
			}
		}
	}
	var rep struct {
		SchemaVersion *string         `json:"schemaVersion"`
		Thresholds    *map[string]int `json:"thresholds"`
		Files         map[string]struct {
			Language *string `json:"language"`
			Source   *string `json:"source"`
			Mutants  []struct {
				ID, MutatorName, Status, StatusReason string
				Location                              *struct{ Start, End *struct{ Line, Column int } }
			} `json:"mutants"`
		} `json:"files"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &rep))
	require.NotNil(t, rep.SchemaVersion)
	assert.Regexp(t, `^([1-2]\d*|0)(\.(([1-9]\d*)|0)){0,2}$`, *rep.SchemaVersion)
	require.NotNil(t, rep.Thresholds)
	assert.Equal(t, map[string]int{"high": 80, "low": 60}, *rep.Thresholds)
	require.Len(t, rep.Files, 1)
	f := rep.Files["p.go"]
	require.NotNil(t, f.Language)
	require.NotNil(t, f.Source)
	assert.Equal(t, sample, *f.Source)
	require.Len(t, f.Mutants, len(ms))
	lines := strings.Split(sample, "\n")
	ids := map[string]bool{}
	for i, m := range f.Mutants {
		assert.False(t, ids[m.ID], "id %s twice", m.ID)
		ids[m.ID] = true
		assert.NotEmpty(t, m.MutatorName)
		assert.Contains(t, []string{"Killed", "Survived", "NoCoverage", "CompileError", "RuntimeError", "Timeout", "Ignored", "Pending"}, m.Status)
		require.NotNil(t, m.Location)
		require.NotNil(t, m.Location.Start)
		require.NotNil(t, m.Location.End)
		s, e := m.Location.Start, m.Location.End
		require.Equal(t, s.Line, e.Line, "sites are on one line here")
		assert.Equal(t, ms[i].Original, lines[s.Line-1][s.Column-1:e.Column-1], "mutant %s: the location spans the original text", m.ID)
	}
	assert.Equal(t, "Timeout", f.Mutants[2].Status)
	assert.Equal(t, "CompileError", f.Mutants[3].Status)
	assert.Equal(t, "undefined: x", f.Mutants[3].StatusReason)
	assert.Equal(t, "tables: TestX", f.Mutants[0].StatusReason)

	// The kill matrix: coveredBy and killedBy name killers declared under testFiles.
	results[0].Matrix = map[string]string{"tables": "passed", "unit": "killed", "fuzz": "killed"}
	buf.Reset()
	require.NoError(t, WriteElements(&buf, results, map[string][]byte{"p.go": []byte(sample)}, 80, 60))
	var mx struct {
		Files map[string]struct {
			Mutants []struct{ CoveredBy, KilledBy []string }
		}
		TestFiles map[string]struct{ Tests []struct{ ID string } }
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &mx))
	assert.Equal(t, []string{"fuzz", "tables", "unit"}, mx.Files["p.go"].Mutants[0].CoveredBy)
	assert.Equal(t, []string{"fuzz", "unit"}, mx.Files["p.go"].Mutants[0].KilledBy)
	var declared []string
	for _, tf := range mx.TestFiles {
		for _, tc := range tf.Tests {
			declared = append(declared, tc.ID)
		}
	}
	assert.ElementsMatch(t, []string{"fuzz", "tables", "unit"}, declared)

	assert.Error(t, WriteElements(&buf, results, nil, 80, 60), "a file without its source")
}

// TestSeeds: each copy of the validity rule in fast gets the seven seed mutants, each a
// one-place edit that still parses; a copy whose text drifted from the table is an error.
func TestSeeds(t *testing.T) {
	for file := range seedCopies {
		src, err := os.ReadFile(filepath.Join("..", file))
		require.NoError(t, err)
		ms, err := Seeds(file, src, nil)
		require.NoError(t, err, file)
		copies := SeedCopies(file)
		require.Len(t, ms, len(SeedNames)*len(copies), file)
		got := map[string]int{}
		for _, m := range ms {
			got[m.Func+" "+string(m.Operator)]++
			mutated := m.Apply(src)
			_, err := parser.ParseFile(token.NewFileSet(), file, mutated, 0)
			assert.NoError(t, err, "%s", m)
			assert.Equal(t, m.Original, string(src[m.off:m.end]))
		}
		for _, fn := range copies {
			for _, name := range SeedNames {
				assert.Equal(t, 1, got[fn+" seed:"+name], "%s %s %s", file, fn, name)
			}
		}
		one, err := Seeds(file, src, copies[:1])
		require.NoError(t, err)
		assert.Len(t, one, len(SeedNames))
	}
	src, err := os.ReadFile("../fast/decode.go")
	require.NoError(t, err)
	drifted := bytes.Replace(src, []byte("\tcase c < 0xE0:"), []byte("\t\t// return cp, 3\n\tcase c < 0xE0:"), 1)
	_, err = Seeds("fast/decode.go", drifted, []string{"decodeValid"})
	assert.ErrorContains(t, err, `decodeValid: seed mutant advance-2-not-3: "return cp, 3" occurs 2 times, want once`)
	none, err := Seeds("fast/other.go", src, nil)
	assert.NoError(t, err)
	assert.Empty(t, none)
}

const asmSample = `#include "textflag.h"

DATA utf8tbl<>+0(SB)/1, $0x02
DATA utf8tbl<>+1(SB)/1, $0x80
DATA utf8tbl<>+2(SB)/2, $"\\u"
GLOBL utf8tbl<>(SB), RODATA|NOPTR, $4

DATA other<>+0(SB)/1, $0x07
GLOBL other<>(SB), RODATA|NOPTR, $1

// func f(s []byte) int
TEXT ·f(SB), NOSPLIT, $0-32
	MOVQ s_len+8(FP), CX
	CMPQ CX, $0x10 // a comparison
	JLT  short
loop:	SUBQ $16, CX
	JNZ  loop
short:
	MOVQ $3, AX // not a condition: no mutant
	VPCMPUB $0x05, Z1, Z0, K1 // a predicate: x >= y
	VPTERNLOGD $0xe4, Z2, Z1, Z0 // a truth table: Z2 ? Z0 : Z1
	VPERMB Z1, Z2, K1, Z3 // no immediate
	RET
`

func TestAsmSites(t *testing.T) {
	ms, err := AsmSites("a_amd64.s", []byte(asmSample), nil)
	require.NoError(t, err)
	var got []string
	flips := 0
	for _, m := range ms {
		if m.Operator == OpBitFlip {
			flips++
			require.NotNil(t, m.patch)
			assert.Equal(t, "utf8tbl", m.Func)
			continue
		}
		assert.Equal(t, "f", m.Func)
		got = append(got, strings.TrimPrefix(m.String(), "a_amd64.s:"))
		out := m.Apply([]byte(asmSample))
		assert.Equal(t, asmSample[:m.off], string(out[:m.off]))
	}
	assert.Equal(t, 16, flips, "every bit of the two numeric bytes of utf8tbl, none of its string's or other's")
	assert.Equal(t, []string{
		"14:12 constant+1: 0x10 → 0x11",
		"14:12 constant-1: 0x10 → 0x0f",
		"15:2 relational-boundary: JLT → JLE",
		"15:2 relational-negation: JLT → JGE",
		"16:13 constant+1: 16 → 17",
		"16:13 constant-1: 16 → 15",
		"17:2 relational-negation: JNZ → JZ",
		"20:11 constant+1: 0x05 → 0x06",
		"20:11 constant-1: 0x05 → 0x04",
		"21:14 constant+1: 0xe4 → 0xe5",
		"21:14 constant-1: 0xe4 → 0xe3",
	}, got)
	// The table bytes as a binary holds them (the string's too), and the patch of one bit.
	bin := append([]byte("header\x02\x80\\utrailer"), 0)
	m := ms[slices.IndexFunc(ms, func(m Mutant) bool { return m.Operator == OpBitFlip && m.Mutated == "0x00" })] // bit 1 of byte 0
	out, err := m.patch.apply(bin)
	require.NoError(t, err)
	assert.Equal(t, append([]byte("header\x00\x80\\utrailer"), 0), out)
	_, err = m.patch.apply([]byte("header\x02\x80\x00\x00trailer"))
	assert.ErrorContains(t, err, "not in the binary", "a table whose string was read as zeros")
	_, err = m.patch.apply([]byte("\x02\x80\\u twice \x02\x80\\u"))
	assert.ErrorContains(t, err, "more than once")

	ms, err = AsmSites("a_amd64.s", []byte(asmSample), []string{"utf8tbl[1:2]"})
	require.NoError(t, err)
	assert.Len(t, ms, 8, "the bits of byte 1 only")
	_, err = AsmSites("a_amd64.s", []byte(asmSample), []string{"g"})
	assert.EqualError(t, err, "a_amd64.s: no TEXT, #define or utf8 DATA symbol g")
	_, err = AsmSites("a_amd64.s", []byte(asmSample), []string{"utf8tbl[2:1]"})
	assert.ErrorContains(t, err, "a byte range is [FROM:TO]")
	_, err = AsmSites("a_amd64.s", []byte(asmSample), []string{"utf8tbl[0:5]"})
	assert.EqualError(t, err, "a_amd64.s: utf8tbl[0:5]: past the table's 4 bytes")
	_, err = AsmSites("a_amd64.s", []byte(asmSample), []string{"f[0:1]"})
	assert.EqualError(t, err, "a_amd64.s: f[0:1]: a byte range selects bytes of a utf8 lookup table, and f is not one")

	// an immediate keeps the case of its hex digits
	ms, err = AsmSites("a_amd64.s", []byte("TEXT ·g(SB), $0\n\tCMPB AL, $0xE0\n\tCMPB BL, $0xe0\n"), nil)
	require.NoError(t, err)
	got = nil
	for _, m := range ms {
		got = append(got, m.Original+" → "+m.Mutated)
	}
	assert.Equal(t, []string{"0xE0 → 0xE1", "0xE0 → 0xDF", "0xe0 → 0xe1", "0xe0 → 0xdf"}, got)
}

// Shown puts source text on one line and names an empty text.
func TestShown(t *testing.T) {
	assert.Equal(t, "a && b", Shown("a &&\n\t\tb"))
	assert.Equal(t, "(nothing)", Shown(""))
	assert.Equal(t, "x < 0x80", Shown(" x < 0x80 "))
}

func TestBuildFor(t *testing.T) {
	for _, tc := range []struct {
		file, src string
		want      Build
	}{
		{"fast/decode.go", "package fast\n", Build{"amd64", ""}},
		{"fast/escape_amd64.s", "//go:build !purego\n\n#include \"textflag.h\"\n", Build{"amd64", ""}},
		{"fast/escape_arm64.s", "//go:build !purego\n", Build{"arm64", ""}},
		{"fast/arch_none.go", "//go:build purego || !(amd64 || arm64)\n\npackage fast\n", Build{"amd64", "purego"}},
		{"fast/kernel_arm64.go", "//go:build !purego\n\npackage fast\n", Build{"arm64", ""}},
	} {
		got, err := BuildFor(tc.file, []byte(tc.src))
		require.NoError(t, err, tc.file)
		assert.Equal(t, tc.want, got, tc.file)
	}
	_, err := BuildFor("x_windows.go", []byte("//go:build windows\n\npackage x\n"))
	assert.ErrorContains(t, err, "compiled in none of")
}

// TestSchema checks the schema source of the sample: it parses, every mutant is in it once as
// a case of its own, the traced ones have their mutated expression compared, and an error
// position maps back to the mutant whose closure holds it.
// cannotPanic and pureExpr judge the whole expression: what one operand rules out, a later
// sibling does not rule back in.
func TestCannotPanicAndPure(t *testing.T) {
	for text, want := range map[string]bool{
		"c < 0xC2": true, "c&0xC0 == 0x80 && n >= -1": true, "len(s) > i+1": true, "byte(c) >> 2 == 0": true,
		"s[i] == byte(c)": false, "tbl[c] == -1": false, "s[i-1] < -x": false, "f(x) == -1": false, "a / b > 0": false,
		"x << n == 0": false, "p.n > 0": false, "*p == 0": false, "s[1:] == nil": false,
	} {
		assert.Equal(t, want, cannotPanic(text), "cannotPanic(%q)", text)
	}
	for text, want := range map[string]bool{
		"isTrail(c) && c < 0x80": true, "len(s) == -1": true,
		"next() == -1": false, "-x == next()": false, "isTrail(c) && bump()": false, "<-ch == 0": false, "&x != nil": false,
	} {
		e, err := parser.ParseExpr(text)
		require.NoError(t, err)
		assert.Equal(t, want, pureExpr(e, nil, map[string]bool{"isTrail": true}), "pureExpr(%q)", text)
	}
}

// schemaModule is a new directory holding module p, which uses this repository for the hook
// package a schema's variable file imports.
func schemaModule(t *testing.T) string {
	dir := t.TempDir()
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), fmt.Appendf(nil,
		"module p\n\ngo 1.26\n\nrequire github.com/difffuzz/difffuzz v0.0.0\n\nreplace github.com/difffuzz/difffuzz => %s\n", root), 0o644))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	return dir
}

// TestSchemaTracesWholeExpression traces a mutant whose expression is an && (the || of
// a || b turned into &&) on a call where only its left operand is false: the mutated
// expression is false, the original true, and the divergence must be seen. Compared with the
// original without parentheses ("a && b != v"), b alone was compared and it was missed.
func TestSchemaTracesWholeExpression(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	dir := schemaModule(t)
	const src = "package p\n\nfunc h(a, b bool) bool { return a || b }\n"
	file := filepath.Join(dir, "p.go")
	require.NoError(t, os.WriteFile(file, []byte(src), 0o644))
	ms, err := Sites(file, []byte(src), nil)
	require.NoError(t, err)
	i := slices.IndexFunc(ms, func(m Mutant) bool { return m.Operator == OpLogical })
	require.GreaterOrEqual(t, i, 0)
	ti, err := CheckFileBuild(file, "amd64", "")
	require.NoError(t, err)
	s := NewSchema(file, []byte(src), ti, ms)
	require.True(t, s.Traced[ms[i].ID])
	require.NoError(t, os.WriteFile(file, s.Src, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "v.go"), VarFile("p", len(ms)), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "p_test.go"), []byte("package p\n\nimport \"testing\"\n\nfunc TestH(t *testing.T) { h(false, true) }\n"), 0o644))
	diverged := filepath.Join(dir, "diverged")
	cmd := exec.Command("go", "test", "-mod=mod", "-count=1", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", TraceEnv, ms[i].ID), DivergedEnv+"="+diverged)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	b, err := os.ReadFile(diverged)
	require.NoError(t, err, "no divergence recorded; schema:\n%s", s.Src)
	assert.Equal(t, fmt.Sprintf("%d\n", ms[i].ID), string(b))
}

func TestSchema(t *testing.T) {
	dir := schemaModule(t)
	file := filepath.Join(dir, "p.go")
	require.NoError(t, os.WriteFile(file, []byte(sample), 0o644))
	ms, err := Sites(file, []byte(sample), nil)
	require.NoError(t, err)
	ti, err := CheckFileBuild(file, "amd64", "")
	require.NoError(t, err)
	s := NewSchema(file, []byte(sample), ti, ms)
	assert.Len(t, s.IDs, len(ms), "every mutant of the sample has a typed expression")
	_, err = parser.ParseFile(token.NewFileSet(), "schema.go", s.Src, 0)
	require.NoError(t, err, "%s", s.Src)
	for _, m := range ms {
		assert.Equal(t, 1, strings.Count(string(s.Src), fmt.Sprintf("case %d: return ", m.ID)), "mutant %d", m.ID)
		if s.Traced[m.ID] {
			assert.Contains(t, string(s.Src), fmt.Sprintf("if difffuzzTraced[%d] && !difffuzzSeen[%[1]d].Load()", m.ID))
		}
		sp := s.spans[m.ID][0]
		line := 1 + strings.Count(string(s.Src[:sp[0]]), "\n")
		col := sp[0] - strings.LastIndex(string(s.Src[:sp[0]]), "\n")
		assert.Contains(t, s.Blame(line, col), m.ID)
	}
	// A mutated comparison of a variable with a constant cannot panic: traced without a
	// deferred recover. One that calls a function might: traced with one.
	rel := ms[slices.IndexFunc(ms, func(m Mutant) bool { return strings.Contains(string(m.Apply([]byte(sample))), "case c <= 0xC2:") })]
	assert.Contains(t, string(s.Src), fmt.Sprintf("if difffuzzTraced[%d] && !difffuzzSeen[%[1]d].Load() && (c <= 0xC2) != difffuzzV { difffuzzDiverged(%[1]d) };", rel.ID))
	notOk := ms[slices.IndexFunc(ms, func(m Mutant) bool { return m.Operator == OpRemoveNot })]
	assert.Contains(t, string(s.Src), fmt.Sprintf("if difffuzzTraced[%d] && !difffuzzSeen[%[1]d].Load() { func() { defer func() { if recover() != nil { difffuzzDiverged(%[1]d) } }(); if (ok(c)) != difffuzzV", notOk.ID))
	// ok is one expression that calls nothing: the conditions calling it can be traced.
	assert.True(t, s.Traced[ms[slices.IndexFunc(ms, func(m Mutant) bool { return m.Operator == OpRemoveNot })].ID])
	// A constant in a comparison is wrapped (and traced) through the comparison, which
	// differs only where the change matters; the constant alone would differ on every
	// evaluation. A constant outside any comparison is wrapped alone.
	find := func(orig, mutated string) Mutant {
		i := slices.IndexFunc(ms, func(m Mutant) bool { return m.Original == orig && m.Mutated == mutated })
		require.GreaterOrEqual(t, i, 0, "%s → %s", orig, mutated)
		return ms[i]
	}
	inCmp := find("0xC2", "0xC1")
	assert.Contains(t, string(s.Src), fmt.Sprintf("case %d: return c < 0xC1;", inCmp.ID))
	assert.True(t, s.Traced[inCmp.ID])
	alone := find("1", "2")
	assert.Contains(t, string(s.Src), fmt.Sprintf("case %d: return 2;", alone.ID))
	// The schema and the file that declares its variable compile together.
	require.NoError(t, os.WriteFile(file, s.Src, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "v.go"), VarFile("p", len(ms)), 0o644))
	cmd := exec.Command("go", "vet", "-mod=mod", ".")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	assert.NoError(t, err, "%s", out)

	// Rechecking, a re-run that does not return within 10 s is recorded as a hang of its
	// mutant, with the record of its call, and the process exits with status 3.
	if !testing.Short() {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "hang_test.go"), []byte(`package p

import (
	"testing"

	"github.com/difffuzz/difffuzz/mutation/hook"
)

func TestHang(t *testing.T) {
	hook.Active.Begin()
	rec := func() map[string]any { return map[string]any{"input": "c0af"} }
	hook.Active.Hang(&rec)
	hook.Active.Rerun(2)
	select {}
}
`), 0o644))
		records := filepath.Join(dir, "records")
		cmd = exec.Command("go", "test", "-mod=mod", "-count=1", "-run", "^TestHang$", ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), TraceEnv+"=1,2", RecheckEnv+"="+records)
		out, err = cmd.CombinedOutput()
		assert.Error(t, err, "%s", out)
		assert.Contains(t, string(out), "exit status 3")
		b, err := os.ReadFile(records)
		require.NoError(t, err, "%s", out)
		assert.JSONEq(t, `{"id":2,"kind":"hang","input":"c0af"}`, strings.TrimSpace(string(b)))
		require.NoError(t, os.Remove(filepath.Join(dir, "hang_test.go")))
	}

	// A condition that calls a function with effects is not evaluated twice: not traced.
	const effects = "package p\n\nvar n int\n\nfunc bump() bool { n++; return n > 1 }\n\nfunc h(b []byte) bool { return len(b) > 2 && bump() }\n"
	require.NoError(t, os.WriteFile(file, []byte(effects), 0o644))
	require.NoError(t, os.Remove(filepath.Join(dir, "v.go")))
	ms, err = Sites(file, []byte(effects), []string{"h"})
	require.NoError(t, err)
	ti, err = CheckFileBuild(file, "amd64", "")
	require.NoError(t, err)
	s = NewSchema(file, []byte(effects), ti, ms)
	for _, m := range ms {
		whole := m.Operator == OpLogical || m.Operator == OpDropLeft || m.Operator == OpDropRight // the && expression calls bump
		assert.Equal(t, !whole, s.Traced[m.ID], "mutant %s", m)
	}
}

// The known-equivalent seed mutants: every entry names a seed and a copy that exist; a run
// without the equivalence phase takes exactly the listed survivors as equivalent; a run with
// it is checked against the list both ways.
func TestSeedEquivalent(t *testing.T) {
	copies := map[string]bool{}
	for _, fns := range seedCopies {
		for fn := range fns {
			copies[fn] = true
		}
	}
	for key := range SeedEquivalent {
		assert.Contains(t, SeedNames, key[0])
		assert.True(t, copies[key[1]], "%v: no such copy", key)
	}
	res := func(name, fn string, o Outcome) Result {
		return Result{Mutant: Mutant{Func: fn, Operator: Operator("seed:" + name)}, Outcome: o}
	}
	results := []Result{
		res("accept-overlong-3", "utf8Decode", Survived), // listed: taken as equivalent
		res("accept-C0-C1", "utf8Decode", Survived),      // not listed: stays a survivor
		res("advance-2-not-3", "nextCharSlow", Killed),   // listed but killed: stays killed
		{Mutant: Mutant{Func: "utf8Decode", Operator: "relational"}, Outcome: Survived},
	}
	assert.Equal(t, 1, KnownSeedEquivalent(results))
	assert.Equal(t, []Outcome{Equivalent, Survived, Killed, Survived}, []Outcome{results[0].Outcome, results[1].Outcome, results[2].Outcome, results[3].Outcome})
	assert.Contains(t, results[0].Domain, "make test-long")

	proven := []Result{
		res("accept-overlong-3", "utf8Decode", Equivalent),
		res("accept-overlong-4", "utf8Decode", Survived),   // listed, not proven
		res("accept-C0-C1", "escapeSmall", Equivalent),     // proven, not listed
		res("advance-2-not-3", "nextCharSlow", Equivalent), // as listed
		res("accept-surrogate", "decodeValid", Killed),     // not listed, killed
	}
	problems := CheckSeedEquivalent(proven)
	require.Len(t, problems, 2, "%q", problems)
	assert.Contains(t, problems[0], "accept-overlong-4 in utf8Decode is listed as equivalent")
	assert.Contains(t, problems[1], "accept-C0-C1 in escapeSmall was proven equivalent but mutation.SeedEquivalent does not list it")
}
