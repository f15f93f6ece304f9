package bench

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/protocol"
)

// fake is a candidate whose timings are injected: each run takes perRun × (1 ± noise), the
// noise drawn from its own generator, and no clock is read.
func fake(name string, perRun time.Duration, noise float64, seed uint64) Candidate {
	rng := rand.New(rand.NewPCG(seed, 1))
	return Candidate{Name: name, Prepare: func(Cell) (Timer, error) {
		return func(n int) (time.Duration, error) {
			f := 1 + noise*(2*rng.Float64()-1)
			return time.Duration(float64(n) * float64(perRun) * f), nil
		}, nil
	}}
}

// fakeCells are n escape cells (their inputs are not used by fake candidates).
func fakeCells(n int) []Cell {
	var cells []Cell
	for i := range n {
		cells = append(cells, Cell{Op: protocol.OpEscape, Corpus: fmt.Sprintf("c%02d", i), Size: 4096, Inputs: [][]byte{[]byte("x")}, Unit: "call", PerRun: 1})
	}
	return cells
}

// With injected timings: a candidate 20% slower than the first is reported slower, outside the
// noise floor, in every cell and in the aggregate; a candidate timed exactly like the first
// (the same distribution, its own draws) is reported "≈" in the aggregate and in nearly every
// cell. Twenty generator seeds, each a whole report.
func TestVerdictsInjected(t *testing.T) {
	sameOff := 0
	for seed := range uint64(20) {
		rep, err := Run(context.Background(), Config{
			Cells: fakeCells(12),
			Candidates: []Candidate{
				fake("master", time.Microsecond, 0.01, 100+seed),
				fake("identical", time.Microsecond, 0.01, 200+seed),
				fake("slower-20%", 1200*time.Nanosecond, 0.01, 300+seed),
			},
			PassTime: 100 * time.Millisecond,
		})
		require.NoError(t, err)
		require.Equal(t, []string{"master", "master (A/A)", "identical", "slower-20%"}, rep.Candidates)
		assert.Greater(t, rep.Floor, 0.0)
		assert.Less(t, rep.Floor, 0.03, "the floor of ±1% noise")
		for _, c := range rep.Cells {
			assert.InDelta(t, 100_000, c.Measures[0].Runs, 3000, "runs calibrated to a 100ms pass of 1µs runs")
			assert.Len(t, c.Measures[0].Passes, DefaultPasses)
			assert.Equal(t, "≈", c.Measures[1].Verdict, "the control is within the floor it makes")
			slow := c.Measures[3]
			assert.Equal(t, "slower", slow.Verdict, "%s: speedup %.4f, floor %.4f", c.Name, slow.Speedup, rep.Floor)
			assert.InDelta(t, 1/1.2, slow.Speedup, 0.02)
			if c.Measures[2].Verdict != "≈" {
				sameOff++
			}
		}
		all := rep.Levels[0]
		require.Equal(t, "all", all.Level)
		assert.Equal(t, "≈", all.Measures[2].Verdict, "seed %d: identical's aggregate %.4f, floor %.4f", seed, all.Measures[2].Speedup, rep.Floor)
		assert.Equal(t, "slower", all.Measures[3].Verdict)
		assert.InDelta(t, 1/1.2, all.Measures[3].Speedup, 0.01)

		var text bytes.Buffer
		require.NoError(t, Write(&text, rep, "text"))
		if seed == 0 {
			t.Logf("\n%s", text.String())
		}
		assert.Regexp(t, `(?m)^all · 4KiB +12 cells +≈1\.0[0-9]× +0\.8[0-9]×$`, text.String())
	}
	t.Logf("identical: outside the floor and told apart in %d of 240 cells", sameOff)
	// Outside the floor of the largest of 12 deviations alike, one cell in 13 would be; the
	// comparison of the passes takes most of those back.
	assert.LessOrEqual(t, sameOff, 6, "identical outside the floor in %d of 240 cells", sameOff)
}

// Without the A/A control's noise (a perfectly steady machine), the floor is 0 and a 1%
// slowdown is already reported.
func TestFloorZero(t *testing.T) {
	rep, err := Run(context.Background(), Config{Cells: fakeCells(2), Candidates: []Candidate{
		fake("a", time.Microsecond, 0, 1), fake("b", 1010*time.Nanosecond, 0, 2)}})
	require.NoError(t, err)
	assert.Equal(t, 0.0, rep.Floor)
	assert.Equal(t, "slower", rep.Cells[0].Measures[2].Verdict)
}

// A wrong answer is never timed: the in-process candidate is refused on the cell with the
// answers side by side; a candidate that does not do the operation is skipped; both print "—".
func TestRefusesWrongAnswer(t *testing.T) {
	broken := Impl{Name: "broken", Escape: func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
		return append(dst, `"x"`...), nil
	}}
	cells, err := Cells(Selection{Ops: []protocol.Op{protocol.OpEscape, protocol.OpUTF8Decode}, Corpora: []string{"cyrillic"}, Sizes: []int{64},
		Options: []jsonopt.Options{0}})
	require.NoError(t, err)
	require.Len(t, cells, 2)
	rep, err := Run(context.Background(), Config{Cells: cells, Candidates: []Candidate{Local(Impls()[0]), Local(broken)}, PassTime: time.Millisecond})
	require.NoError(t, err)
	m := rep.Cells[0].Measures[2]
	assert.Contains(t, m.Skipped, `refused: wrong answer on a 64-byte input: output byte 2 of 3 differs: got "\"x\"", the oracle's "\"\\u0441\\u0442`)
	assert.Empty(t, m.Passes)
	assert.Contains(t, rep.Cells[1].Measures[2].Skipped, "utf8_decode: not done by this candidate")
	var text bytes.Buffer
	require.NoError(t, Write(&text, rep, "text"))
	assert.Regexp(t, `(?m)^ +cyrillic +[0-9,]+ ns/call +[-+][0-9.]+% +wrong answer$`, text.String())
	assert.Regexp(t, `(?m)^broken was not timed on 1 of 2 cells \(a wrong answer is never timed\); first: escape/64B/cyrillic/default: refused: wrong answer`, text.String())
	assert.NotContains(t, text.String(), "—", "broken is no column of utf8_decode's, which it does not do")
}

// Every format carries every cell and candidate: JSON decodes with its documented fields, CSV
// has a row per cell and candidate and per level and candidate, markdown is a table per
// operation, and the plot is an SVG or a PNG.
func TestFormats(t *testing.T) {
	cells, err := Cells(Selection{Corpora: []string{"cyrillic", "ascii", "short", "batch"}, Sizes: []int{256}})
	require.NoError(t, err)
	var names []string
	for _, c := range cells {
		names = append(names, c.Name())
	}
	assert.Equal(t, []string{"escape/256B/cyrillic/default", "escape/256B/cyrillic/UNESCAPED_UNICODE", "escape/256B/ascii/default",
		"escape/8-11B/short/default", "escape/10000x8-11B/batch/default", "decode/256B/cyrillic/default", "decode/256B/ascii/default",
		"decode/8-11B/short/default", "decode/10000x8-11B/batch/default"}, names)
	cands := []Candidate{Local(Impls()[0])}
	for _, im := range Impls()[1:] {
		cands = append(cands, Local(im))
	}
	cands = append(cands, Anchors()...)
	rep, err := Run(context.Background(), Config{Cells: cells, Candidates: cands, PassTime: time.Millisecond})
	require.NoError(t, err)

	var js bytes.Buffer
	require.NoError(t, Write(&js, rep, "json"))
	var doc struct {
		Version    int      `json:"version"`
		Candidates []string `json:"candidates"`
		Floor      *float64 `json:"noise_floor"`
		Cells      []struct {
			Name     string `json:"name"`
			Unit     string `json:"unit"`
			Measures []struct {
				Candidate string    `json:"candidate"`
				Passes    []float64 `json:"passes_ns"`
				Median    float64   `json:"median_ns"`
				Speedup   float64   `json:"speedup"`
				Skipped   string    `json:"skipped"`
			} `json:"measures"`
		} `json:"cells"`
		Levels []LevelSummary `json:"levels"`
	}
	require.NoError(t, json.Unmarshal(js.Bytes(), &doc))
	assert.Equal(t, JSONVersion, doc.Version)
	require.NotNil(t, doc.Floor)
	require.Len(t, doc.Cells, len(cells))
	assert.Equal(t, "code point", doc.Cells[5].Unit)
	for _, c := range doc.Cells {
		require.Len(t, c.Measures, len(rep.Candidates))
		for _, m := range c.Measures {
			if m.Skipped == "" {
				assert.Len(t, m.Passes, DefaultPasses, "%s %s", c.Name, m.Candidate)
				assert.Greater(t, m.Median, 0.0)
				assert.Greater(t, m.Speedup, 0.0)
			}
		}
	}
	// all, 4 sizes, 4+2+1+1 … corpora per operation.
	assert.Equal(t, "all", doc.Levels[0].Level)

	var cs bytes.Buffer
	require.NoError(t, Write(&cs, rep, "csv"))
	recs, err := csv.NewReader(&cs).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, csvHeader, recs[0])
	timed := 0
	for _, c := range rep.Cells {
		for _, m := range c.Measures {
			if m.Median > 0 {
				timed++
			}
		}
	}
	assert.Len(t, recs, 1+timed+len(rep.Levels)*len(rep.Candidates))

	var md bytes.Buffer
	require.NoError(t, Write(&md, rep, "markdown"))
	assert.Equal(t, 2, strings.Count(md.String(), "|  | oracle | oracle (A/A) |"), "a table per operation (decode has no copy table):\n%s", md.String())
	assert.Contains(t, md.String(), "| copy | append-quoted | encoding-json | json-encoder |\n", "escape's columns")
	assert.Contains(t, md.String(), "| utf8.DecodeRune | utf8.Valid |\n", "decode's columns")
	assert.NotContains(t, md.String(), "json-encoder | utf8.DecodeRune", "no column where nothing was timed")
	assert.Contains(t, md.String(), "**escape: cost in copies")

	dir := t.TempDir()
	for _, name := range []string{"p.svg", "p.png"} {
		require.NoError(t, Plot(rep, filepath.Join(dir, name)))
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		if strings.HasSuffix(name, ".svg") {
			assert.Contains(t, string(b[:200]), "<svg")
		} else {
			assert.Equal(t, "\x89PNG", string(b[:4]))
		}
	}
	assert.ErrorContains(t, Plot(rep, filepath.Join(dir, "p.pdf")), "as .svg or .png")
	assert.Error(t, Write(&md, rep, "yaml"))
}

// Bad settings are refused with an error, before anything is timed.
func TestConfigErrors(t *testing.T) {
	cells := fakeCells(1)
	a := fake("a", time.Microsecond, 0, 1)
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Cells: cells}, "no candidates"},
		{Config{Candidates: []Candidate{a}}, "no cells"},
		{Config{Cells: cells, Candidates: []Candidate{a}, Passes: 3}, "at least 5"},
		{Config{Cells: cells, Candidates: []Candidate{a, a}}, `two candidates are named "a"`},
		{Config{Cells: cells, Candidates: []Candidate{a}, Baseline: "b"}, `baseline "b" is not a candidate`},
	} {
		_, err := Run(context.Background(), tc.cfg)
		assert.ErrorContains(t, err, tc.want)
	}
	_, err := Cells(Selection{Corpora: []string{"nope"}})
	assert.ErrorContains(t, err, `no corpus "nope"`)
	_, err = ParseSizes("4KiB,x")
	assert.ErrorContains(t, err, `size "x"`)
	sizes, err := ParseSizes("16, 4KiB,1MiB,7B")
	require.NoError(t, err)
	assert.Equal(t, []int{16, 4096, 1 << 20, 7}, sizes)
}

// A cancelled run reports the cells it finished.
func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	slowStop := Candidate{Name: "a", Prepare: func(Cell) (Timer, error) {
		return func(n int) (time.Duration, error) {
			calls++
			if calls == 60 {
				cancel()
			}
			return time.Duration(n) * time.Microsecond, nil
		}, nil
	}}
	rep, err := Run(ctx, Config{Cells: fakeCells(10), Candidates: []Candidate{slowStop}})
	require.NoError(t, err)
	assert.True(t, rep.Interrupted)
	assert.NotEmpty(t, rep.Cells)
	assert.Less(t, len(rep.Cells), 10)
	for _, c := range rep.Cells {
		assert.Len(t, c.Measures[0].Passes, DefaultPasses)
	}
}

// The first candidate and its A/A control are one implementation: a wrong answer on the
// control's turn (a second process that answers wrong) refuses both on the cell; a time that
// does not grow with the runs (a loop that does not run the operation) and a timer error are
// failures, never timed, never a speedup.
func TestNotTimed(t *testing.T) {
	wrongCtl := Candidate{Prepare: func(Cell) (Timer, error) {
		return nil, fmt.Errorf("%w to bench escape on a 1-byte input", ErrWrongAnswer)
	}}
	still := Candidate{Name: "still", Prepare: func(Cell) (Timer, error) {
		return func(int) (time.Duration, error) { return 50 * time.Nanosecond, nil }, nil
	}}
	broken := Candidate{Name: "broken", Prepare: func(Cell) (Timer, error) {
		return func(int) (time.Duration, error) { return 0, fmt.Errorf("target exited before answering") }, nil
	}}
	rep, err := Run(context.Background(), Config{Cells: fakeCells(2), Candidates: []Candidate{fake("a", time.Microsecond, 0.01, 1), still, broken},
		Control: &wrongCtl, PassTime: 10 * time.Millisecond})
	require.NoError(t, err)
	for _, c := range rep.Cells {
		assert.Equal(t, "refused: on its A/A control's turn: wrong answer to bench escape on a 1-byte input", c.Measures[0].Skipped)
		assert.Equal(t, "refused: wrong answer to bench escape on a 1-byte input", c.Measures[1].Skipped)
		assert.Contains(t, c.Measures[2].Skipped, "failed: 1000000000 runs took 50ns, less than a tenth of --pass-time 10ms: the time does not grow with the runs")
		assert.Equal(t, "failed: target exited before answering", c.Measures[3].Skipped)
		for _, m := range c.Measures {
			assert.Zero(t, m.Speedup, m.Candidate)
			assert.Empty(t, m.Passes, m.Candidate)
		}
	}
	var text bytes.Buffer
	require.NoError(t, Write(&text, rep, "text"))
	assert.Regexp(t, `(?m)^  c00 +wrong answer +wrong answer +failed +failed$`, text.String())
	assert.Contains(t, text.String(), "\na was not timed on 2 of 2 cells (a wrong answer is never timed); first: escape/4KiB/c00/default: refused: on its A/A control's turn")
	assert.Contains(t, text.String(), "\nbroken failed on 2 of 2 cells; first: escape/4KiB/c00/default: failed: target exited before answering\n")
}

// An option set of several bits is written A|B in a row's label; in markdown each row must still
// have the header's number of cells (a bare | would end the label's cell).
func TestMarkdownOptionSets(t *testing.T) {
	cells, err := Cells(Selection{Ops: []protocol.Op{protocol.OpEscape}, Corpora: []string{"html"}, Sizes: []int{64},
		Options: []jsonopt.Options{jsonopt.HexTag | jsonopt.HexAmp, 0}})
	require.NoError(t, err)
	rep, err := Run(context.Background(), Config{Cells: cells, Candidates: []Candidate{Local(Impls()[0]), Local(Impls()[1])}, PassTime: time.Millisecond})
	require.NoError(t, err)
	var md bytes.Buffer
	require.NoError(t, Write(&md, rep, "markdown"))
	require.Contains(t, md.String(), `HEX_TAG\|HEX_AMP`)
	cellsIn := func(row string) int { return strings.Count(strings.ReplaceAll(row, `\|`, ""), "|") }
	rows := 0
	for _, table := range strings.Split(md.String(), "\n\n") {
		lines := strings.Split(strings.TrimSpace(table), "\n")
		if !strings.HasPrefix(lines[0], "|") {
			continue
		}
		for _, l := range lines[1:] {
			assert.Equal(t, cellsIn(lines[0]), cellsIn(l), "row %q in\n%s", l, table)
			rows++
		}
	}
	assert.Greater(t, rows, 4)
}
