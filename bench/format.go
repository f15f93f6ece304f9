package bench

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// Formats are the report formats Write takes.
var Formats = []string{"text", "markdown", "json", "csv"}

// Write writes rep in format (one of Formats).
func Write(w io.Writer, rep *Report, format string) error {
	switch format {
	case "text", "markdown":
		return writeTables(w, rep, format == "markdown")
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Version int `json:"version"`
			*Report
		}{JSONVersion, rep})
	case "csv":
		return writeCSV(w, rep)
	}
	return fmt.Errorf("format %q: want one of %s", format, strings.Join(Formats, ", "))
}

// NoisyFloor is the noise floor above which the report warns that the machine was too busy
// for small differences to mean anything.
const NoisyFloor = 0.05

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// JSONVersion is the version of the JSON report's layout.
const JSONVersion = 1

// row is a line of a table: an aggregate (level) or a cell (leaf).
type row struct {
	label string
	depth int
	level *LevelSummary
	cell  *CellResult
}

// tree lists op's rows: all, each size, each corpus, each of a corpus's option sets (a
// corpus under one option set is a single row).
func tree(rep *Report, op string) []row {
	var rows []row
	sizes := 0
	for _, l := range rep.Levels {
		if l.Op == op && l.Level == "size" {
			sizes++
		}
	}
	d := 0 // a single size is said in the "all" row, not in a row of its own
	if sizes > 1 {
		d = 1
	}
	for i := range rep.Levels {
		l := &rep.Levels[i]
		if l.Op != op {
			continue
		}
		switch l.Level {
		case "all":
			rows = append(rows, row{label: "all", level: l})
		case "size":
			if sizes == 1 {
				rows[len(rows)-1].label = "all · " + l.Size
				continue
			}
			if l.Cells == 1 { // one row says it: "16B · ascii"
				for j := range rep.Cells {
					if c := &rep.Cells[j]; c.Op == op && c.Size == l.Size {
						rows = append(rows, row{label: l.Size + " · " + cellLabel(c), depth: 1, cell: c})
					}
				}
				continue
			}
			rows = append(rows, row{label: l.Size, depth: 1, level: l})
		case "corpus":
			if d == 1 && sizeCells(rep, op, l.Size) == 1 {
				continue // said in its size's row
			}
			var cells []*CellResult
			for j := range rep.Cells {
				c := &rep.Cells[j]
				if c.Op == op && c.Size == l.Size && c.Corpus == l.Corpus {
					cells = append(cells, c)
				}
			}
			if len(cells) == 1 {
				rows = append(rows, row{label: cellLabel(cells[0]), depth: 1 + d, cell: cells[0]})
				continue
			}
			rows = append(rows, row{label: l.Corpus, depth: 1 + d, level: l})
			for _, c := range cells {
				rows = append(rows, row{label: c.Options, depth: 2 + d, cell: c})
			}
		}
	}
	return rows
}

// cellLabel names a cell in a row of its size: "cyrillic", "cyrillic · UNESCAPED_UNICODE".
func cellLabel(c *CellResult) string {
	if c.Options != "default" {
		return c.Corpus + " · " + c.Options
	}
	return c.Corpus
}

// sizeCells counts op's cells of one size.
func sizeCells(rep *Report, op, size string) int {
	n := 0
	for _, c := range rep.Cells {
		if c.Op == op && c.Size == size {
			n++
		}
	}
	return n
}

// ops lists the operations of rep's cells, in order.
func ops(rep *Report) []string { return uniq(rep.Cells, func(c CellResult) string { return c.Op }) }

// Header is the report's first lines: what was timed, how, and the noise floor.
func Header(rep *Report) []string {
	var out []string
	if rep.Command != "" {
		out = append(out, rep.Command)
	}
	if rep.Machine != "" {
		out = append(out, "on "+rep.Machine)
	}
	out = append(out, rep.Targets...)
	timed := 0 // candidates timed (or refused) on some cell: anchors of other operations are not
	for j := range rep.Candidates {
		for _, c := range rep.Cells {
			if m := c.Measures[j]; m.Median > 0 || m.Refused() {
				timed++
				break
			}
		}
	}
	out = append(out, fmt.Sprintf("%s × %d candidates, %d alternating passes of about %v each; A/A control: %s",
		plural(len(rep.Cells), "cell"), timed, rep.Passes, rep.PassTime, rep.Control))
	floor := fmt.Sprintf("noise floor: %s, the A/A control's largest deviation from %s", pct(rep.Floor), strings.TrimSuffix(rep.Control, ControlSuffix))
	if rep.FloorAt != "" {
		floor += " (" + rep.FloorAt + ")"
	}
	out = append(out, floor+"; a speedup within it, or whose passes do not differ (Mann-Whitney U, p ≥ 0.05), is marked ≈")
	if rep.Floor > NoisyFloor {
		out = append(out, fmt.Sprintf("warning: the noise floor is above %s: this machine was busy or unsteady, and differences below %s are not established; run again on a quiet machine",
			pct(NoisyFloor), pct(rep.Floor)))
	}
	// Candidates refused somewhere: how often, and the first reason.
	for j, name := range rep.Candidates {
		for _, kind := range []struct{ prefix, says string }{
			{"refused: ", "was not timed on %d of %s (a wrong answer is never timed); first: %s"},
			{"failed: ", "failed on %d of %s; first: %s"},
		} {
			n, first := 0, ""
			for _, c := range rep.Cells {
				if m := c.Measures[j]; strings.HasPrefix(m.Skipped, kind.prefix) && name != rep.Control {
					if n == 0 {
						first = c.Name + ": " + m.Skipped
					}
					n++
				}
			}
			if n > 0 {
				out = append(out, name+" "+fmt.Sprintf(kind.says, n, plural(len(rep.Cells), "cell"), first))
			}
		}
	}
	if rep.Interrupted {
		out = append(out, "interrupted: the cells timed before the interrupt are reported")
	}
	return out
}

func writeTables(w io.Writer, rep *Report, md bool) error {
	var b strings.Builder
	for _, l := range Header(rep) {
		if md {
			b.WriteString(l + "  \n")
		} else {
			b.WriteString(l + "\n")
		}
	}
	base := slices.Index(rep.Candidates, rep.Baseline)
	for _, op := range ops(rep) {
		rows := tree(rep, op)
		// The columns: the candidates timed on some cell of op (the Go encoders do not
		// decode), the baseline and the control always.
		var cols []int
		for j := range rep.Candidates {
			timed := j == base || j == 1
			for _, c := range rep.Cells {
				m := c.Measures[j]
				timed = timed || c.Op == op && (m.Median > 0 || m.Refused())
			}
			if timed {
				cols = append(cols, j)
			}
		}
		b.WriteString("\n")
		title := fmt.Sprintf("%s: speedup over %s (%[2]s's median time in its column; others: × faster, below 1 slower, ≈ not established; A/A: the control's time against %[2]s's; rows: geometric means of the cells below)", op, rep.Baseline)
		table(&b, md, title, rep, rows, cols, func(r row, j int) string {
			if r.cell != nil {
				m := r.cell.Measures[j]
				switch {
				case strings.HasPrefix(m.Skipped, "refused: "):
					return "wrong answer"
				case strings.HasPrefix(m.Skipped, "failed: "):
					return "failed"
				case m.Skipped != "":
					return "—"
				case j == base:
					return ns(m.Median) + "/" + strings.ReplaceAll(r.cell.Unit, "code point", "cp")
				case j == 1 && base != 1:
					if r.cell.Measures[0].Median <= 0 || m.Median <= 0 {
						return "—"
					}
					return signedPct(m.Median/r.cell.Measures[0].Median - 1)
				}
				return speedup(m.Speedup, m.Verdict)
			}
			m := r.level.Measures[j]
			switch {
			case m.Refused > 0:
				return fmt.Sprintf("wrong on %d", m.Refused)
			case j == base:
				return plural(r.level.Cells, "cell")
			case j == 1 && base != 1, m.Cells == 0:
				return ""
			}
			return speedup(m.Speedup, m.Verdict)
		})
		hasCopy := false
		for _, c := range rep.Cells {
			if k := slices.Index(rep.Candidates, "copy"); c.Op == op && k >= 0 && c.Measures[k].Median > 0 {
				hasCopy = true
			}
		}
		if !hasCopy {
			continue
		}
		b.WriteString("\n")
		cols = slices.DeleteFunc(cols, func(j int) bool { return j == 1 }) // the control costs what the first does
		table(&b, md, fmt.Sprintf("%s: cost in copies (median time over copy()'s of the same input)", op), rep, rows, cols, func(r row, j int) string {
			if r.cell != nil {
				return copies(r.cell.Measures[j].Copies)
			}
			return copies(r.level.Measures[j].Copies)
		})
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// table writes one table: a row per tree row, a column per candidate of cols (indexes in
// rep.Candidates), holding value(row, index).
func table(b *strings.Builder, md bool, title string, rep *Report, rows []row, cols []int, value func(r row, j int) string) {
	head := []string{""}
	for _, j := range cols {
		head = append(head, rep.Candidates[j])
	}
	if md {
		b.WriteString("**" + title + "**\n\n")
		for i := range head {
			head[i] = mdCell(head[i])
		}
		b.WriteString("| " + strings.Join(head, " | ") + " |\n|---" + strings.Repeat("|--:", len(cols)) + "|\n")
		for _, r := range rows {
			label := strings.Repeat("\u00a0\u00a0", r.depth) + mdCell(r.label)
			if r.level != nil {
				label = strings.Repeat("\u00a0\u00a0", r.depth) + "**" + mdCell(r.label) + "**"
			}
			vals := []string{label}
			for _, j := range cols {
				vals = append(vals, mdCell(value(r, j)))
			}
			b.WriteString("| " + strings.Join(vals, " | ") + " |\n")
		}
		return
	}
	b.WriteString(title + "\n")
	// The columns are right-aligned; the labels, padded to one width, read from the left.
	width := 0
	for _, r := range rows {
		width = max(width, utf8.RuneCountInString(r.label)+2*r.depth)
	}
	pad := func(s string) string { return s + strings.Repeat(" ", width-utf8.RuneCountInString(s)) }
	var t strings.Builder
	tw := tabwriter.NewWriter(&t, 0, 0, 2, ' ', tabwriter.AlignRight)
	head[0] = pad("")
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, r := range rows {
		vals := []string{pad(strings.Repeat("  ", r.depth) + r.label)}
		for _, j := range cols {
			vals = append(vals, value(r, j))
		}
		fmt.Fprintln(tw, strings.Join(vals, "\t")+"\t")
	}
	tw.Flush()
	for _, l := range strings.SplitAfter(t.String(), "\n") {
		b.WriteString(strings.TrimPrefix(l, "  ")) // the padding before the first column
	}
}

// Refused reports whether m was not timed for a wrong answer or a failure of the candidate
// (not because the candidate does not do the cell).
func (m Measure) Refused() bool {
	return strings.HasPrefix(m.Skipped, "refused: ") || strings.HasPrefix(m.Skipped, "failed: ")
}

// speedup prints a speedup, "≈" before it when it is not established (within the noise
// floor, or passes not told apart): "1.42×", "≈0.98×".
func speedup(s float64, verdict string) string {
	if s == 0 {
		return "—"
	}
	v := strconv.FormatFloat(s, 'f', 2, 64) + "×"
	if verdict == "≈" {
		return "≈" + v
	}
	return v
}

func copies(c float64) string {
	if c == 0 {
		return "—"
	}
	return strconv.FormatFloat(c, 'f', 1, 64)
}

func ns(v float64) string {
	switch {
	case v >= 1e15:
		return strconv.FormatFloat(v, 'g', 4, 64) + " ns"
	case v >= 100:
		return commas(int64(v+0.5)) + " ns"
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64) + " ns"
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + " ns"
}

func pct(f float64) string { return strconv.FormatFloat(100*f, 'f', 2, 64) + "%" }

func signedPct(f float64) string {
	s := strconv.FormatFloat(100*f, 'f', 1, 64) + "%"
	if f >= 0 {
		s = "+" + s
	}
	return s
}

func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// csvHeader are the CSV report's columns: one row per cell and candidate timed or refused on
// it, then one per level and candidate (level all, size or corpus; the cell columns empty
// where they do not apply). passes holds the passes' ns per unit separated by spaces.
var csvHeader = []string{"level", "op", "size", "bytes", "corpus", "options", "flags", "unit", "candidate", "anchor",
	"runs_per_pass", "passes", "median_ns", "lo_ns", "hi_ns", "min_ns", "max_ns", "speedup", "copies", "verdict", "skipped"}

func writeCSV(w io.Writer, rep *Report) error {
	cw := csv.NewWriter(w)
	f := func(v float64) string {
		if v == 0 {
			return ""
		}
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	for _, c := range rep.Cells {
		for _, m := range c.Measures {
			if m.Median == 0 && !m.Refused() {
				continue // not a candidate of this cell (an anchor of another operation …)
			}
			passes := make([]string, len(m.Passes))
			for i, p := range m.Passes {
				passes[i] = f(p)
			}
			rec := []string{"cell", c.Op, c.Size, strconv.Itoa(c.Bytes), c.Corpus, c.Options, strconv.Itoa(c.Flags), c.Unit,
				m.Candidate, strconv.FormatBool(slices.Contains(rep.Anchors, m.Candidate)), strconv.Itoa(m.Runs),
				strings.Join(passes, " "), f(m.Median), f(m.Lo), f(m.Hi), f(m.Min), f(m.Max), f(m.Speedup), f(m.Copies), m.Verdict, m.Skipped}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	for _, l := range rep.Levels {
		for _, m := range l.Measures {
			rec := []string{l.Level, l.Op, l.Size, "", l.Corpus, "", "", "", m.Candidate,
				strconv.FormatBool(slices.Contains(rep.Anchors, m.Candidate)), "", "", "", "", "", "", "", f(m.Speedup), f(m.Copies), m.Verdict, ""}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// mdCell is s as the text of a markdown table cell: a | in it (an option set such as
// UNESCAPED_SLASHES|UNESCAPED_UNICODE) escaped, so that it does not end the cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
