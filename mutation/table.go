package mutation

import (
	"cmp"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/report"
)

// Output is how a run's results are written: the table (with the kill matrix of Killers when
// Matrix) or, with JSON, the mutation-testing-elements report, whose low mark is Threshold
// when given.
type Output struct {
	JSON, Matrix bool
	Threshold    float64
	Killers      []Killer
}

// Write prints the results (the table, the matrix, the seed table and the gaps, or the
// mutation-testing-elements JSON) to stdout and the summary lines to stderr; it returns the
// score.
func (o Output) Write(stdout, stderr io.Writer, results []Result, files []Target, sum Summary, start time.Time) (float64, error) {
	score, counts := Score(results)
	if o.JSON {
		sources := map[string][]byte{}
		for _, f := range files {
			sources[f.File] = f.Src
		}
		low := 60
		if o.Threshold > 0 {
			low = int(o.Threshold)
		}
		if err := WriteElements(stdout, results, sources, max(80, low), low); err != nil {
			return 0, err
		}
	} else {
		WriteText(stdout, results)
		if o.Matrix {
			fmt.Fprintln(stdout)
			WriteMatrix(stdout, results, o.Killers)
		}
		if slices.ContainsFunc(results, func(r Result) bool { return strings.HasPrefix(string(r.Operator), "seed:") }) {
			fmt.Fprintln(stdout)
			WriteSeedTable(stdout, results)
		}
	}
	gaps := writeGaps(results, !o.JSON, stdout)
	var langs []string
	for lang, sc := range ScoreByLanguage(results) {
		langs = append(langs, fmt.Sprintf("%s %.1f%%", lang, sc))
	}
	slices.Sort(langs)
	fmt.Fprintf(stderr, "difffuzz: mutate: %s: %d killed (%d only by the exhaustive domain: gaps in the killers' tests), %d survived, %d equivalent, %d timed out, %d not viable; score %.1f%% (%s) in %s\n",
		plural(len(results), "mutant"), counts[Killed], gaps, counts[Survived], counts[Equivalent],
		counts[TimedOut], counts[NotViable], score, strings.Join(langs, ", "), time.Since(start).Round(time.Second))
	if len(results) > 0 {
		el := make([]time.Duration, 0, len(results))
		for _, r := range results {
			el = append(el, r.Elapsed)
		}
		slices.Sort(el)
		wall := time.Since(start)
		fmt.Fprintf(stderr, "difffuzz: mutate: %s mutants a minute, median %s a mutant (its killers and equivalence runs); %d go builds for %d schema mutants and %d separate ones; the traced runs (%s) skipped %d killer runs and narrowed %d to the tests where the mutant diverged\n",
			rate(float64(len(results))/wall.Minutes()), el[len(el)/2].Round(10*time.Millisecond), sum.Builds, sum.Schema, sum.Separate, sum.Trace.Round(time.Second), sum.Skipped, sum.Narrowed)
	}
	return score, nil
}

// Decided is the results of an interrupted run that were decided (a survivor not yet checked
// for equivalence says so), said on stderr.
func Decided(results []Result, equivalence bool, stderr io.Writer) []Result {
	decided := slices.DeleteFunc(slices.Clone(results), func(r Result) bool { return r.Outcome == "" })
	for i, r := range decided {
		if r.Outcome == Survived && r.Detail == "" && equivalence {
			decided[i].Detail = "interrupted before its equivalence check"
		}
	}
	fmt.Fprintf(stderr, "difffuzz: mutate: interrupted: %d of %s decided; the report covers those\n", len(decided), plural(len(results), "mutant"))
	return decided
}

// rate prints a rate with a decimal below 10 (a slow run makes fewer than one a minute).
func rate(x float64) string {
	if x < 10 {
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 0, 64)
}

// plural is n with thousands separators and the noun, as every difffuzz line counts.
func plural(n int, noun string) string { return report.Plural(uint64(n), noun) }

// writeGaps counts the gaps (mutants only the exhaustive domain killed) and, with show, lists
// each witness as a row for the table tests.
func writeGaps(results []Result, show bool, stdout io.Writer) int {
	gaps := 0
	for _, r := range results {
		if r.Gap {
			gaps++
		}
	}
	if gaps == 0 || !show {
		return gaps
	}
	fmt.Fprintf(stdout, "\n%s in the killers' tests: the exhaustive domain tells these mutants from the original, the killers do not. Each witness as a row for the table tests (the PHP conformance test re-checks spectest rows against real PHP):\n",
		plural(gaps, "gap"))
	for _, r := range results {
		if r.Gap {
			fmt.Fprintf(stdout, "  mutant %d, %s:%d:%d %s %s:\n    %s\n", r.ID, r.File, r.Line, r.Col, r.Func, strings.TrimSpace(r.String()[strings.Index(r.String(), " ")+1:]), gapRow(r))
		}
	}
	return gaps
}

// gapRow is the witness of a gap (the first finding of the equivalence killer that killed
// the mutant) as a row for a table test: spectest.Escape or spectest.UTF8Decode
// (internal/spectest/facts.go), or nextCharTests (fast/nextchar_test.go); the raw finding when
// it is none of those.
func gapRow(r Result) string {
	var f struct {
		Op       string `json:"op"`
		Input    string `json:"input"`
		Flags    uint32 `json:"flags"`
		Options  string `json:"options"`
		Want     string `json:"want"`
		WantErr  int    `json:"want_err"`
		Pos      int    `json:"pos"`
		WantStep string `json:"want_step"`
	}
	if json.Unmarshal([]byte(r.Evidence), &f) != nil {
		return "witness: " + cmp.Or(r.Evidence, r.Detail) // a test killer's: its failure
	}
	in, err1 := hex.DecodeString(f.Input)
	want, err2 := hex.DecodeString(f.Want)
	if err1 != nil || err2 != nil {
		return "witness: " + r.Evidence
	}
	note := fmt.Sprintf("difffuzz mutate: %s %s → %s", r.Func, r.Original, r.Mutated)
	switch f.Op {
	case "escape":
		w := strconv.Quote(string(want))
		if len(want) == 0 && f.WantErr != 0 { // json_encode returned false
			w = "nil"
		} else {
			w = "[]byte(" + w + ")"
		}
		return fmt.Sprintf("internal/spectest/facts.go, Escape:  {\"M%d\", []byte(%q), 0x%x /* %s */, %s, %d, %q},", r.ID, in, f.Flags, f.Options, w, f.WantErr, note)
	case "utf8_decode":
		return fmt.Sprintf("internal/spectest/facts.go, UTF8Decode:  {\"M%d\", []byte(%q), []byte(%q), %q},", r.ID, in, want, note)
	case "decode":
		cp, adv, ok := strings.Cut(f.WantStep, "/")
		if !ok {
			return "witness: " + r.Evidence
		}
		var step string
		if cp == "!" {
			step = fmt.Sprintf("jsonopt.Step{Advance: %s}", adv)
		} else {
			step = fmt.Sprintf("jsonopt.Step{CP: 0x%s, Advance: %s, OK: true}", strings.ToUpper(cp), adv)
		}
		return fmt.Sprintf("fast/nextchar_test.go, nextCharTests:  {%q, %q, %d, %s},", note, in, f.Pos, step)
	}
	return "witness: " + r.Evidence
}
