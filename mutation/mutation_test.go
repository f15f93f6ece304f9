package mutation

import (
	"bytes"
	"context"
	"encoding/json"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	base, err := Baseline(ctx, cfg)
	require.NoError(t, err)
	res, err := Run(ctx, cfg, file, src, ms, base)
	require.NoError(t, err)
	require.Len(t, res, 4)
	assert.Equal(t, Killed, res[0].Outcome, "%+v", res[0])
	assert.Equal(t, "nextchar", res[0].KilledBy)
	assert.False(t, res[0].Gap)
	assert.Equal(t, "TestNextChar", res[0].Test)
	assert.Equal(t, NotViable, res[1].Outcome, "%+v", res[1])
	assert.Contains(t, res[1].Detail, "undefinedName")
	assert.Equal(t, Equivalent, res[2].Outcome, "%+v", res[2])
	assert.Equal(t, "the utf8_decode facts", res[2].Domain)
	assert.Equal(t, Killed, res[3].Outcome, "%+v", res[3])
	assert.Equal(t, "utf8facts", res[3].KilledBy)
	assert.True(t, res[3].Gap)
	assert.NotEmpty(t, res[3].Detail, "the failing test's output")
	t.Logf("the gap: %s", res[3].Detail)
	for _, r := range res {
		assert.Positive(t, r.Elapsed, "mutant %d: its killers' time", r.ID)
	}
	score, counts := Score(res)
	assert.Equal(t, map[Outcome]int{Killed: 2, NotViable: 1, Equivalent: 1}, counts)
	assert.Equal(t, 100.0, score)

	after, err := os.ReadFile(filepath.Join(dir, file))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(src, after), "the working tree was written")

	// A killer that runs no test, or whose package does not exist, stops the run.
	_, err = Baseline(ctx, Config{Dir: dir, Killers: []Killer{{Name: "none", Pkg: "./fast", Run: "^TestNoSuchTest$"}}})
	assert.ErrorContains(t, err, "killer none runs no test")
	_, err = Baseline(ctx, Config{Dir: dir, Killers: []Killer{{Name: "nopkg", Pkg: "./nosuchpkg"}}})
	assert.ErrorContains(t, err, "killer nopkg")
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
