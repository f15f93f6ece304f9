package report

import (
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/difffuzz/difffuzz/deviation"
	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/internal/phplit"
)

// Count formats n with thousands separators ("1,234,567").
func Count(n uint64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Plural is n with thousands separators and the noun, plural unless n is 1 ("1 class",
// "1,204 findings").
func Plural(n uint64, noun string) string {
	s := Count(n) + " " + noun
	switch {
	case n == 1:
		return s
	case strings.HasSuffix(noun, "s"):
		return s + "es"
	}
	return s + "s"
}

// spaceOrder is the order spaces are listed in.
var spaceOrder = []string{"exhaustive", "boundary", "random", "fuzz", "corpus", "other"}

// spacesText lists a class's findings per space: "exhaustive 1,204 · boundary 3,009".
func spacesText(m map[string]uint64) string {
	var parts []string
	for _, s := range spaceNames(m) {
		parts = append(parts, s+" "+Count(m[s]))
	}
	return strings.Join(parts, " · ")
}

// spaceNames is the spaces of a class's counts in report order (spaceOrder, then by name).
func spaceNames(m map[string]uint64) []string {
	return sortedKeys(m, spaceOrder)
}

// sortedKeys is the keys of m in the order of order, then the others by name.
func sortedKeys(m map[string]uint64, order []string) []string {
	names := make([]string, 0, len(m))
	for s := range m {
		names = append(names, s)
	}
	rank := func(s string) int {
		if i := slices.Index(order, s); i >= 0 {
			return i
		}
		return len(order)
	}
	sort.Slice(names, func(i, j int) bool {
		if rank(names[i]) != rank(names[j]) {
			return rank(names[i]) < rank(names[j])
		}
		return names[i] < names[j]
	})
	return names
}

// candidate names the candidate for a title: a built-in by name, a target by its command.
func candidate(f *fuzz.Finding) string {
	if f.External && f.Command != "" {
		return f.Impl
	}
	if f.External {
		return fmt.Sprintf("target %q", f.Impl)
	}
	return f.Impl
}

// side is the label of the candidate's side of a comparison.
func side(f *fuzz.Finding) string {
	if f.External && f.Command != "" {
		return f.Impl // a build, by its name (--exec NAME=CMD)
	}
	if f.External {
		return "target"
	}
	return f.Impl
}

// caseText is a case on one line: its input as hex and, for escape, its options by name.
func caseText(f *fuzz.Finding) string {
	s := clip(fuzz.SpacedHex(f.Input), 96)
	if f.Op == fuzz.OpEscape {
		s += "   options " + optText(f.Flags, uint32(f.Flags))
	}
	return s
}

// detailText is a finding's detail for a report line: for a target's failure without the
// command and the request (the witness and the replay line give them), the stderr lines joined.
func detailText(f *fuzz.Finding, max int) string {
	d := strings.TrimPrefix(f.Detail, "target "+f.Impl+": ")
	if i := strings.Index(d, " (request #"); i >= 0 {
		if j := strings.Index(d[i:], ")"); j >= 0 {
			d = d[:i] + d[i+j+1:]
		}
	}
	d = strings.ReplaceAll(d, "\n\t", " | ")
	return firstLine(d, max)
}

// firstLine is the first line of s, clipped to max bytes.
func firstLine(s string, max int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// optText is options by name and value, "0" for none.
func optText(o interface{ Short() string }, v uint32) string {
	if v == 0 {
		return "0"
	}
	return o.Short() + " (" + fmt.Sprint(v) + ")"
}

// classTitle is a class's first line: id, operation, kind, findings by space.
func classTitle(c *Class) string {
	t := fmt.Sprintf("%s  %s %s: %s (%s)", c.ID, c.Op, c.Kind, Plural(c.Findings, "finding"), spacesText(c.Spaces))
	if k := kindsText(c); k != "" {
		t += "; found as " + k
	}
	return t
}

// kindsText is a class's raw findings by kind ("error-differs 1,810 · output-differs 3,169"),
// "" when they are all of the witness's kind.
func kindsText(c *Class) string {
	if len(c.Kinds) < 2 && c.Kinds[c.Kind] == c.Findings {
		return ""
	}
	kinds := make([]string, 0, len(c.Kinds))
	for k := range c.Kinds {
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	var parts []string
	for _, k := range kinds {
		parts = append(parts, k+" "+Count(c.Kinds[fuzz.Kind(k)]))
	}
	return strings.Join(parts, " · ")
}

// WriteBlock writes one class as a block for a terminal: its title (id, operation, kind,
// findings by space), the rule the oracle applied at the first difference, the witness (hex,
// options by name), the oracle's and the candidate's results side by side with the first
// difference and where it lies on the chunk grid, further witnesses and the replay line.
func WriteBlock(w io.Writer, c *Class) {
	f := c.Witness
	fmt.Fprintln(w, classTitle(c))
	switch {
	case c.NotRun > 0 && fuzz.EveryAnswer(f):
		fmt.Fprintf(w, "    not run  %s more inputs of %s were not sent (a line after its answers)\n", Count(c.NotRun), f.Op)
	case c.NotRun > 0 && c.NotRunFalse:
		fmt.Fprintf(w, "    not run  %s more inputs were not sent: those that contain this witness (under at least its options), and every input PHP answers false (§1.5) at a failed step of its §2.2 row, since the target failed on several alone\n", Count(c.NotRun))
	case c.NotRun > 0:
		fmt.Fprintf(w, "    not run  %s more inputs that contain this witness (under at least its options) were not sent\n", Count(c.NotRun))
	}
	lab := max(len("oracle"), len(side(f)), len("witness"))
	row := func(label, format string, a ...any) {
		fmt.Fprintf(w, "    %-*s  %s\n", lab, label, strings.TrimRight(fmt.Sprintf(format, a...), " "))
	}
	if spec := c.Attribution.Spec(); spec != "" {
		did := "did not"
		if c.Ignored != 0 {
			did = "answers as if " + c.Ignored.Short() + " were not set"
		}
		row("rule", "the oracle applies %s; %s %s", spec, side(f), did)
	}
	for i, t := range doesText(c) {
		label := ""
		if i == 0 {
			label = "does"
		}
		row(label, "%s", t)
	}
	wit := fmt.Sprintf("%d byte", len(f.Input))
	if len(f.Input) != 1 {
		wit += "s"
	}
	wit += ": " + window(f.Input, c.Attribution.In, witnessBytes(f))
	if f.Op == fuzz.OpEscape {
		wit += "   options " + optText(f.Flags, uint32(f.Flags))
	}
	if c.Minimized {
		wit += "   minimal"
	}
	row("witness", "%s", wit)
	if c.Note != "" {
		row("", "%s", c.Note)
	}
	answerRows(row, f)
	switch f.Kind {
	case fuzz.KindOutput, fuzz.KindError:
		at := ""
		if d := c.Attribution.Out; d >= 0 && f.Kind == fuzz.KindOutput {
			at = fmt.Sprintf("output offset %d", d)
		}
		if where := c.Attribution.Where(); where != "" {
			if at != "" {
				at += ", from "
			}
			at += where
		}
		if at != "" {
			row("differ", "at %s", at)
		}
	case fuzz.KindStep:
		if where := c.Attribution.Where(); where != "" {
			row("differ", "at the step at %s", where)
		}
	default:
		if where := c.Attribution.Where(); where != "" {
			row("at", "%s", where)
		}
	}
	for i, e := range c.Examples {
		label := ""
		if i == 0 {
			label = "more"
		}
		row(label, "%s", clip(caseText(e), 160))
	}
	row("replay", "%s", replayText(f))
	phpRow(row, f)
}

// phpRow writes the `php -r` line of a PHP build's finding (fuzz.PHPLine): the witness asked
// with the build's own binary, bool(true) where it answers as PHP 8.2 does.
func phpRow(row func(label, format string, a ...any), f *fuzz.Finding) {
	if line, ok := fuzz.PHPLine(f); ok && len(line) <= maxReplay {
		row("php", "%s", line)
	}
}

// answerRows writes the oracle's and the candidate's answers of f: results side by side (quoted
// and as hex; around the first difference when long), steps, or the detail of other kinds.
func answerRows(row func(label, format string, a ...any), f *fuzz.Finding) {
	if v := f.VersusText(); v != "" {
		defer row("builds", "%s", v)
	}
	esc := f.Op == fuzz.OpEscape
	switch f.Kind {
	case fuzz.KindOutput, fuzz.KindError:
		if len(f.Want) <= windowBytes && len(f.Got) <= windowBytes {
			want, got := fuzz.ResultText(f.Want, f.WantErr, esc), f.GotText()
			w := max(28, len(want), len(got)) // both hex columns in one column
			row("oracle", "%-*s %s", w, want, hexOrNone(f.Want))
			row(side(f), "%-*s %s", w, got, hexOrNone(f.Got))
			return
		}
		// Long results: the bytes around the first difference, as text and as hex, both
		// windows from the same offset, so that the difference is in the same column.
		lo := max(fuzz.FirstDiff(f.Want, f.Got)-windowBytes/4, 0)
		row("oracle", "%s", resultWindow(f.Want, f.WantErr, esc, lo))
		row(side(f), "%s", resultWindow(f.Got, f.GotErr, esc, lo))
	case fuzz.KindStep:
		row("oracle", "%s", fuzz.StepText(f.WantStep))
		row(side(f), "%s", fuzz.StepText(f.GotStep))
		if f.Detail != "" {
			row("detail", "%s", detailText(f, 160))
		}
	default:
		if f.Detail != "" {
			row("detail", "%s", detailText(f, 160))
		}
	}
}

// windowBytes is how many bytes of a long input or result a report line shows.
const windowBytes = 32

// window is b as spaced hex; when longer than n bytes, the n bytes around offset at, marked
// with "…" and their place ("… 41 42 … (bytes 10..41 of 300)").
func window(b []byte, at, n int) string {
	if len(b) <= n {
		return fuzz.SpacedHex(b)
	}
	lo, hi := bounds(len(b), at, n)
	s := fuzz.SpacedHex(b[lo:hi])
	if lo > 0 {
		s = "… " + s
	}
	if hi < len(b) {
		s += " …"
	}
	return s + fmt.Sprintf(" (bytes %d..%d of %d)", lo, hi-1, len(b))
}

// bounds is the window [lo, hi) of n bytes of a length-long slice that shows offset at with a
// quarter of the window before it.
func bounds(length, at, n int) (lo, hi int) {
	lo = min(max(at-n/4, 0), max(length-n, 0))
	return lo, min(lo+n, length)
}

// witnessBytes is how much of f's input a block shows: all of a minimized witness (no byte of
// it can go, so none is left out), windowBytes of another.
func witnessBytes(f *fuzz.Finding) int {
	if f.Minimized {
		return len(f.Input)
	}
	return windowBytes
}

// resultWindow is one side of a long comparison: the windowBytes bytes from offset lo (a
// quarter window before the first difference, the same for both sides), quoted and as hex,
// with their place.
func resultWindow(b []byte, code int, esc bool, lo int) string {
	if len(b) == 0 {
		return fuzz.ResultText(b, code, esc)
	}
	lo = min(lo, len(b)-1)
	hi := min(lo+windowBytes, len(b))
	s := phplit.Quote(b[lo:hi])
	if lo > 0 {
		s = "…" + s
	}
	if hi < len(b) {
		s += "…"
	}
	if esc && code != 0 {
		s += fmt.Sprintf(" (json_last_error()=%d)", code)
	}
	return fmt.Sprintf("%s  %s (bytes %d..%d of %d)", s, hex.EncodeToString(b[lo:hi]), lo, hi-1, len(b))
}

// maxReplay is the longest replay line a report prints.
const maxReplay = 400

// replayText is the finding's replay line, or where to get it when it is too long to print.
func replayText(f *fuzz.Finding) string {
	r := f.Replay()
	if len(r) <= maxReplay {
		return r
	}
	return fmt.Sprintf("(a %d-byte input: --out DIR saves the witness, --json has the replay line)", len(f.Input))
}

// answer is one side of a comparison in a few characters, for a compact line.
func answer(f *fuzz.Finding, oracleSide bool) string {
	switch f.Kind {
	case fuzz.KindStep:
		if oracleSide {
			return fuzz.StepText(f.WantStep)
		}
		return fuzz.StepText(f.GotStep)
	case fuzz.KindOutput, fuzz.KindError:
		// A long answer whose first difference lies past 30 bytes: from 20 bytes before it, so
		// that it shows in the 40 kept.
		lo := fuzz.FirstDiff(f.Want, f.Got) - 20
		if lo < 10 || len(f.Want) <= 40 && len(f.Got) <= 40 || f.WantErr != 0 && len(f.Want) == 0 || f.GotFalse() {
			return f.AnswerText(oracleSide, 40)
		}
		g := *f
		g.Want, g.Got = f.Want[min(lo, len(f.Want)):], f.Got[min(lo, len(f.Got)):]
		return "…" + g.AnswerText(oracleSide, 40)
	}
	return ""
}

// WriteCompact writes a class in three lines: its title; the witness with both answers, or the
// detail; the replay line.
func WriteCompact(w io.Writer, c *Class) {
	f := c.Witness
	fmt.Fprintln(w, classTitle(c))
	line := "witness  " + caseText(f)
	switch f.Kind {
	case fuzz.KindStep, fuzz.KindOutput, fuzz.KindError:
		line += "   oracle " + answer(f, true) + "   " + side(f) + " " + answer(f, false)
	default:
		if f.Detail != "" {
			line += "   " + detailText(f, 100)
		}
	}
	switch {
	case c.NotRun > 0 && fuzz.EveryAnswer(f):
		line += fmt.Sprintf("   (%s more inputs not run)", Count(c.NotRun))
	case c.NotRun > 0 && c.NotRunFalse:
		line += fmt.Sprintf("   (%s inputs containing it or answered false by PHP not run)", Count(c.NotRun))
	case c.NotRun > 0:
		line += fmt.Sprintf("   (%s inputs containing it not run)", Count(c.NotRun))
	}
	fmt.Fprintf(w, "    %s\n", line)
	fmt.Fprintf(w, "    replay   %s\n", replayText(f))
}

// DefectClassesShown is how many classes of a defect WriteText prints (the first in full, the
// others compact); the rest are listed by id.
const DefectClassesShown = 5

// WriteText writes the report for a terminal: one block per defect (Defects) — its cause (and
// candidate, when there are several), then its largest class in full (WriteBlock) and up to DefectClassesShown-1 more in
// three lines each (WriteCompact) — then the table of classes (WriteTable).
func WriteText(w io.Writer, classes []*Class) {
	defects := Defects(classes)
	several := false // candidates: named in each defect's title when there are several
	for _, c := range classes {
		// (A build against a build is named whichever side differs.)
		several = several || c.Impl != classes[0].Impl || c.Witness.Versus != nil
	}
	for _, d := range defects {
		n := len(d.Classes)
		title := fmt.Sprintf("DEFECT %d of %d · ", d.N, len(defects))
		if several {
			title += candidate(d.Classes[0].Witness) + " · "
		}
		title += d.Title()
		title += " · " + Plural(d.Findings, "finding")
		if n > 1 {
			title += " in " + Plural(uint64(n), "class")
		}
		fmt.Fprintln(w, title)
		if d.mapped != nil {
			writeMapBlock(w, d)
			fmt.Fprintln(w)
			continue
		}
		if d.Dev != nil {
			writeDevBlock(w, d)
			fmt.Fprintln(w)
			continue
		}
		for i, c := range d.Classes {
			switch {
			case i == 0:
				WriteBlock(w, c)
			case i < DefectClassesShown:
				WriteCompact(w, c)
			}
		}
		if n > DefectClassesShown {
			var ids []string
			var rest uint64
			for _, c := range d.Classes[DefectClassesShown:] {
				ids = append(ids, c.ID)
				rest += c.Findings
			}
			fmt.Fprintf(w, "    + %s with %s: %s (--json has them all)\n", Plural(uint64(n-DefectClassesShown), "more class"), Plural(rest, "finding"), clip(strings.Join(ids, " "), 120))
		}
		if len(d.alsoOrder) > 0 {
			var ids []string
			for _, c := range d.alsoOrder {
				ids = append(ids, c.ID+" "+Count(d.also[c]))
			}
			fmt.Fprintf(w, "    also counted: %s (findings of other defects' classes that show it too)\n", clip(strings.Join(ids, " · "), 120))
		}
		fmt.Fprintln(w)
	}
	WriteTable(w, classes)
}

// TableRows is how many classes WriteTable lists; the rest are summed on one line.
const TableRows = 60

func hexOrNone(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return hex.EncodeToString(b)
}

// WriteTable writes one line per class, in class order (at most TableRows; the rest summed):
// id, defect, findings, operation, kind, candidate (when there are several), rule, options,
// witness.
func WriteTable(w io.Writer, classes []*Class) {
	if len(classes) == 0 {
		return
	}
	defect := DefectOf(Defects(classes))
	impls := map[string]bool{}
	for _, c := range classes {
		impls[c.Impl] = true
	}
	fmt.Fprintf(w, "%-5s %6s %11s  %-11s %-15s ", "class", "defect", "findings", "op", "kind")
	if len(impls) > 1 {
		fmt.Fprintf(w, "%-24s ", "candidate")
	}
	fmt.Fprintf(w, "%-30s %-22s %s\n", "rule", "options", "witness")
	for i, c := range classes {
		if i == TableRows {
			var rest uint64
			for _, c := range classes[i:] {
				rest += c.Findings
			}
			fmt.Fprintf(w, "... and %s with %s (--json has them all)\n", Plural(uint64(len(classes)-i), "more class"), Plural(rest, "finding"))
			break
		}
		fmt.Fprintf(w, "%-5s %6d %11s  %-11s %-15s ", c.ID, defect[c].N, Count(c.Findings), c.Op, c.Kind)
		if len(impls) > 1 {
			fmt.Fprintf(w, "%-24s ", clip(c.Impl, 24))
		}
		opts := "-"
		if c.Op == fuzz.OpEscape {
			opts = c.Options.Short()
		}
		rule := c.Rule
		if rule == "" {
			rule = "-"
		}
		fmt.Fprintf(w, "%-30s %-22s %s\n", clip(rule, 30), clip(opts, 22), tableWitness(c))
	}
}

// tableWitness is a class's witness in a table cell: its hex, or for a long one its length
// and the bytes it names ("16 bytes: … 61 61 3c").
func tableWitness(c *Class) string {
	in, a := c.Witness.Input, c.Attribution
	if len(in) <= 12 {
		return fuzz.SpacedHex(in)
	}
	lo, hi := 0, 4
	if a.In >= 0 {
		lo, hi = max(a.In-2, 0), min(max(a.InEnd, a.In+1)+2, len(in))
	}
	s := fmt.Sprintf("%d bytes: ", len(in))
	if lo > 0 {
		s += "… "
	}
	s += fuzz.SpacedHex(in[lo:min(hi, len(in))])
	if hi < len(in) {
		s += " …"
	}
	return clip(s, 48)
}

// quoteClip is b as a PHP expression (phplit) of at most n bytes, "…" after it when bytes of b
// were left out.
func quoteClip(b []byte, n int) string {
	s, k := phplit.Clip(b, n)
	if k < len(b) {
		if c := deviation.EscapeCut(b, k); c < k {
			s = phplit.Quote(b[:c])
		}
		s += "…"
	}
	return s
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// writeDevBlock writes a defect named by a deviation: its witness with PHP's and the
// candidate's answers, the stretch that deviates, examples from other rows and shapes (each
// with both answers), the replay line and the classes it was counted in.
func writeDevBlock(w io.Writer, d *Defect) {
	f := d.Dev.Witness
	lab := max(len("deviates"), len(side(f)))
	row := func(label, format string, a ...any) {
		fmt.Fprintf(w, "    %-*s  %s\n", lab, label, strings.TrimRight(fmt.Sprintf(format, a...), " "))
	}
	dev := d.Dev.Dev
	row("witness", "%s %s", f.Op, witnessText(f, dev.In))
	answerRows(row, f)
	if dev.What == deviation.Lost && dev.Detail == deviation.Tail && dev.In > 0 && dev.In < len(f.Input) {
		where := fuzz.Attribution{In: dev.In, InEnd: dev.InEnd}.Where()
		row("deviates", "%s: the answer is PHP's for the first %d bytes, nothing for the rest", where, dev.In)
	}
	if dev.In >= 0 && dev.InEnd >= dev.In && dev.InEnd <= len(f.Input) && f.Kind != fuzz.KindStep && dev.What != "lost" && !(dev.What == deviation.NotFalse && dev.Detail == "empty") {
		where := fuzz.Attribution{In: dev.In, InEnd: dev.InEnd}.Where()
		oracle := "the oracle writes " + quoteClip(dev.Want, 40)
		switch {
		case f.Op == fuzz.OpEscape && f.WantErr != 0 && len(dev.Want) == 0:
			oracle = "the oracle fails the string" // (a deviation of the whole answer: no stretch of PHP's)
		case f.Op == fuzz.OpEscape && f.WantErr != 0:
			// PHP's answer is false: the stretch was read against INVALID_UTF8_SUBSTITUTE's.
			oracle = "the oracle fails the string (under INVALID_UTF8_SUBSTITUTE it would write " + quoteClip(dev.Want, 40) + ")"
		}
		row("deviates", "%s: %s, %s writes %s", where, oracle, side(f), quoteClip(dev.Got, 40))
	}
	n := 0 // as many as --examples asks for
	for _, c := range d.Classes {
		n = max(n, c.examples)
	}
	for i, e := range d.Dev.Examples(n) {
		label := ""
		if i == 0 {
			label = "more"
		}
		row(label, "%s %s   oracle %s   %s %s", e.Op, caseText(e), answer(e, true), side(e), answer(e, false)) // (each part clipped)
	}
	row("replay", "%s", replayText(f))
	phpRow(row, f)
	classesRows(row, d)
}

// witnessText is a defect's witness f for its witness line: its length, its bytes (around
// input offset at when long), its options, and whether it is minimal.
func witnessText(f *fuzz.Finding, at int) string {
	wit := fmt.Sprintf("%d byte", len(f.Input))
	if len(f.Input) != 1 {
		wit += "s"
	}
	wit += ": " + window(f.Input, at, witnessBytes(f))
	if f.Op == fuzz.OpEscape {
		wit += "   options " + optText(f.Flags, uint32(f.Flags))
	}
	if f.Minimized {
		wit += "   minimal"
	}
	return wit
}

// writeMapBlock writes the block of a defect of a misreading of two option bits
// (mergeOptionMaps): the witness of its largest part with both answers and the options whose
// PHP answer the candidate gave, the witness of each other part, the replay and the classes.
func writeMapBlock(w io.Writer, d *Defect) {
	f := d.witnesses[0]
	lab := max(len("witness"), len(side(f)))
	row := func(label, format string, a ...any) {
		fmt.Fprintf(w, "    %-*s  %s\n", lab, label, strings.TrimRight(fmt.Sprintf(format, a...), " "))
	}
	row("witness", "%s %s", f.Op, witnessText(f, 0))
	answerRows(row, f)
	g := d.mapped.Apply(f.Flags)
	row("reads", "options %s, given %s: its answer is PHP's under them", optText(g, uint32(g)), optText(f.Flags, uint32(f.Flags)))
	for i, e := range d.witnesses[1:] {
		label := ""
		if i == 0 {
			label = "more"
		}
		row(label, "%s %s   oracle %s   %s %s", e.Op, caseText(e), answer(e, true), side(e), answer(e, false))
	}
	row("replay", "%s", replayText(f))
	phpRow(row, f)
	classesRows(row, d)
}

// maxClassRows bounds the rows of a defect block's classes line: a fault that cuts every long
// input makes hundreds of classes, which --json lists.
const maxClassRows = 4

// classesRows writes the classes a defect counts, with their findings, wrapped, at most
// maxClassRows rows (then how many more).
func classesRows(row func(label, format string, a ...any), d *Defect) {
	label, line, rows := "classes", "", 0
	for i, c := range d.Classes {
		id := c.ID + " " + Count(d.byClass[c])
		if line != "" && len(line)+len(id) > 100 {
			if rows++; rows == maxClassRows {
				row(label, "%s · and %d more classes (--json has them all)", line, len(d.Classes)-i)
				return
			}
			row(label, "%s ·", line)
			label, line = "", ""
		}
		if line != "" {
			line += " · "
		}
		line += id
	}
	row(label, "%s", line)
}
