package mutation

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// Score is the mutation score of results in percent: detected / (detected + survived), where
// detected is killed or timed out (a mutant that makes a killer hang is caught: go test's own
// timeout fails it), as Stryker counts; not viable and equivalent mutants count in neither
// part. It is 100 when nothing counts. counts are the results by outcome.
func Score(results []Result) (score float64, counts map[Outcome]int) {
	counts = map[Outcome]int{}
	for _, r := range results {
		counts[r.Outcome]++
	}
	detected := counts[Killed] + counts[TimedOut]
	if detected+counts[Survived] == 0 {
		return 100, counts
	}
	return 100 * float64(detected) / float64(detected+counts[Survived]), counts
}

// Language is the language of a mutant's file: "asm" for Go assembly (.s), else "go".
func (m Mutant) Language() string {
	if strings.HasSuffix(m.File, ".s") {
		return "asm"
	}
	return "go"
}

// ScoreByLanguage is Score of the results of each Language ("go", "asm") apart, for the
// languages results hold.
func ScoreByLanguage(results []Result) map[string]float64 {
	by := map[string][]Result{}
	for _, r := range results {
		by[r.Language()] = append(by[r.Language()], r)
	}
	out := map[string]float64{}
	for lang, rs := range by {
		out[lang], _ = Score(rs)
	}
	return out
}

// WriteText writes the results as a table, a row a mutant: id, file:line:col, function,
// operator, original → mutated, outcome, and the killer (and its first failing test) or, for
// a mutant that did not compile, the compiler's message.
func WriteText(w io.Writer, results []Result) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tsite\tfunc\toperator\tmutant\toutcome\tby")
	for _, r := range results {
		by := r.KilledBy
		if r.Test != "" {
			by += " (" + r.Test + ")"
		}
		switch {
		case r.Outcome == NotViable:
			by = r.Detail
		case r.Outcome == Equivalent:
			by = "on " + r.Domain
			if r.Traced {
				by += " (traced)"
			}
		case r.Gap:
			by += ": a gap in the killers' tests: " + firstOf(r.Detail, clip(r.Evidence, 160))
		case r.Outcome == Survived && r.Detail != "":
			by = r.Detail
		}
		fmt.Fprintf(tw, "%d\t%s:%d:%d\t%s\t%s\t%s → %s\t%s\t%s\n", r.ID, r.File, r.Line, r.Col, r.Func, r.Operator,
			clip(Shown(r.Original), 40), clip(Shown(r.Mutated), 40), r.Outcome, by)
	}
	tw.Flush()
}

// firstOf is the first non-empty string.
func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// clip shortens s to at most n bytes, marking the cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "…"
}

// elementsStatus is each Outcome's MutantStatus in the mutation-testing-elements schema.
var elementsStatus = map[Outcome]string{Killed: "Killed", Survived: "Survived", TimedOut: "Timeout", NotViable: "CompileError", Equivalent: "Ignored"}

// WriteElements writes results as a mutation-testing-elements report, schema version 2 (the
// JSON that Stryker's HTML report reads, github.com/stryker-mutator/mutation-testing-elements):
// thresholds high and low (percent), each file of the results with its language ("go"), its
// source (sources[file], the unmutated text) and its mutants: id ("file:id"), mutatorName (the
// Operator), replacement, location (1-based line and column, end exclusive), status (Killed,
// Survived, Timeout, CompileError, and Ignored for an equivalent mutant), statusReason (the
// killer and test, or the compiler's message), duration (ms), and the kill matrix as the
// schema has it: coveredBy (the killers that ran on it) and killedBy (those that killed it),
// whose ids are the killers declared under testFiles. It fails when a file's source is missing.
func WriteElements(w io.Writer, results []Result, sources map[string][]byte, high, low int) error {
	type pos struct {
		Line   int `json:"line"`
		Column int `json:"column"`
	}
	type location struct {
		Start pos `json:"start"`
		End   pos `json:"end"`
	}
	type mutant struct {
		ID           string   `json:"id"`
		MutatorName  string   `json:"mutatorName"`
		Replacement  string   `json:"replacement"`
		Description  string   `json:"description"`
		Location     location `json:"location"`
		Status       string   `json:"status"`
		StatusReason string   `json:"statusReason,omitempty"`
		Duration     float64  `json:"duration"`
		CoveredBy    []string `json:"coveredBy,omitempty"`
		KilledBy     []string `json:"killedBy,omitempty"`
	}
	type file struct {
		Language string   `json:"language"`
		Source   string   `json:"source"`
		Mutants  []mutant `json:"mutants"`
	}
	files := map[string]*file{}
	var killers []string
	for _, r := range results {
		f := files[r.File]
		if f == nil {
			src, ok := sources[r.File]
			if !ok {
				return fmt.Errorf("mutation: no source for %s", r.File)
			}
			f = &file{Language: r.Language(), Source: string(src), Mutants: []mutant{}}
			files[r.File] = f
		}
		m := mutant{ID: fmt.Sprintf("%s:%d", r.File, r.ID), MutatorName: string(r.Operator), Replacement: r.Mutated,
			Description: fmt.Sprintf("%s in %s: %s → %s", r.Operator, r.Func, r.Original, r.Mutated),
			Status:      elementsStatus[r.Outcome], Duration: float64(r.Elapsed.Milliseconds())}
		m.Location.Start = pos{r.Line, r.Col}
		m.Location.End = pos{r.EndLine, r.EndCol}
		switch r.Outcome {
		case Killed, TimedOut:
			m.StatusReason = r.KilledBy
			if r.Test != "" {
				m.StatusReason += ": " + r.Test
			}
		case NotViable:
			m.StatusReason = r.Detail
		case Equivalent:
			m.StatusReason = "equivalent on " + r.Domain
		}
		if r.Gap {
			m.StatusReason += "; the killers' tests miss it: " + firstOf(r.Detail, r.Evidence)
		}
		for k, v := range r.Matrix {
			m.CoveredBy = append(m.CoveredBy, k)
			if v == "killed" {
				m.KilledBy = append(m.KilledBy, k)
			}
		}
		if r.Outcome == Killed && len(m.KilledBy) == 0 {
			m.CoveredBy, m.KilledBy = []string{r.KilledBy}, []string{r.KilledBy}
		}
		slices.Sort(m.CoveredBy)
		slices.Sort(m.KilledBy)
		for _, k := range m.CoveredBy {
			if !slices.Contains(killers, k) {
				killers = append(killers, k)
			}
		}
		f.Mutants = append(f.Mutants, m)
	}
	slices.Sort(killers)
	tests := []map[string]string{}
	for _, k := range killers {
		tests = append(tests, map[string]string{"id": k, "name": k})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{
		"schemaVersion": "2",
		"thresholds":    map[string]int{"high": high, "low": low},
		"files":         files,
		"framework":     map[string]string{"name": "difffuzz mutate"},
		"testFiles":     map[string]any{"killers": map[string]any{"tests": tests}},
	})
}

// WriteMatrix writes the kill matrix of results run with Config.Matrix: a row a mutant, a
// column a killer, "killed", "passed", "timed-out" or "-" (not run: the mutant did not
// compile).
func WriteMatrix(w io.Writer, results []Result, killers []Killer) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprint(tw, "id\tsite\tfunc\tmutant")
	for _, k := range killers {
		fmt.Fprintf(tw, "\t%s", k.Name)
	}
	fmt.Fprintln(tw)
	for _, r := range results {
		fmt.Fprintf(tw, "%d\t%s:%d:%d\t%s\t%s", r.ID, r.File, r.Line, r.Col, r.Func, mutantText(r.Mutant))
		for _, k := range killers {
			v := r.Matrix[k.Name]
			if v == "" {
				v = "-"
			}
			fmt.Fprintf(tw, "\t%s", v)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// WriteSeedTable writes the seed experiment: a row per seed mutant (SeedNames), a column per
// copy of the validity rule that results hold seed mutants of, and in each cell the killers
// that killed it (with Config.Matrix, all of them; else the first), or its outcome.
func WriteSeedTable(w io.Writer, results []Result) {
	var copies []string
	cell := map[[2]string]string{}
	for _, r := range results {
		name, ok := strings.CutPrefix(string(r.Operator), "seed:")
		if !ok {
			continue
		}
		if !slices.Contains(copies, r.Func) {
			copies = append(copies, r.Func)
		}
		v := string(r.Outcome)
		if r.Outcome == Killed {
			var by []string
			for k, verdict := range r.Matrix {
				if verdict == "killed" {
					by = append(by, k)
				}
			}
			slices.Sort(by)
			if len(by) == 0 {
				by = []string{r.KilledBy}
			}
			v = strings.Join(by, "+")
		}
		cell[[2]string{name, r.Func}] = v
	}
	if len(copies) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprint(tw, "seed mutant")
	for _, c := range copies {
		fmt.Fprintf(tw, "\t%s", c)
	}
	fmt.Fprintln(tw)
	for _, name := range SeedNames {
		fmt.Fprint(tw, name)
		for _, c := range copies {
			v := cell[[2]string{name, c}]
			if v == "" {
				v = "-"
			}
			fmt.Fprintf(tw, "\t%s", v)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// mutantText is "original → mutated", each clipped, or the seed mutant's name.
func mutantText(m Mutant) string {
	if name, ok := strings.CutPrefix(string(m.Operator), "seed:"); ok {
		return name
	}
	return clip(Shown(m.Original), 40) + " → " + clip(Shown(m.Mutated), 40)
}
