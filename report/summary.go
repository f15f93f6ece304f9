package report

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/fuzz"
)

// WriteSummary writes the summary table of a campaign's (or a merged sweep's) spaces and its
// closing line: the verdict (no differences, or how many in how many defects and classes), the
// strings and cases compared with the oracle (or versus, the --reference-exec target's name),
// the candidates and the elapsed time.
func WriteSummary(w io.Writer, rep *fuzz.Report, defects, classes int, elapsed time.Duration, versus string) {
	fmt.Fprintf(w, "%-11s %-12s %4s %15s %7s %17s %11s %9s %14s %14s  %s\n",
		"space", "op", "len", "strings", "options", "cases", "differences", "time", "strings/s", "cases/s", "candidates")
	var strs, cases, notSent uint64
	names := map[string]bool{}
	for _, s := range rep.Spaces {
		summaryRow(w, s)
		strs += s.Strings
		cases += s.Cases
		notSent += s.NotRun + s.Skipped
		for _, n := range s.Impls {
			names[n] = true
		}
	}
	verdict := "no differences"
	switch {
	case cases == 0 && rep.Interrupted:
		verdict = "nothing checked (stopped early)"
	case cases == 0:
		verdict = "nothing checked" // stderr says why (an empty shard, no candidate for --ops)
	case rep.Differences > 0:
		verdict = fmt.Sprintf("%s in %s (%s)", Plural(rep.Differences, "difference"), Plural(uint64(defects), "defect"),
			Plural(uint64(classes), "class"))
	}
	sent := ""
	if notSent > 0 {
		sent = fmt.Sprintf(" (%s more not sent to targets)", Count(notSent))
	}
	with := "the oracle"
	if versus != "" {
		with = versus
	}
	fmt.Fprintf(w, "difffuzz: %s: %s strings, %s cases compared with %s%s for %s in %s\n",
		verdict, Count(strs), Count(cases), with, sent, Plural(uint64(len(names)), "candidate"), elapsed.Round(100*time.Millisecond))
}

// summaryRow writes the summary table's row of one space.
func summaryRow(w io.Writer, s fuzz.SpaceReport) {
	state := ""
	if !s.Complete {
		state = " (interrupted)"
	}
	sps := 0.0
	if sec := s.Elapsed.Seconds(); sec > 0 {
		sps = float64(s.Strings) / sec
	}
	cands := strings.Join(s.Impls, ",")
	if s.Distinct > 0 && s.Distinct < len(s.Impls) {
		cands += fmt.Sprintf(" (%d distinct)", s.Distinct)
	}
	if s.NotRun > 0 {
		state += fmt.Sprintf(" (%s not run: contain a crash or hang witness)", Count(s.NotRun))
	}
	if s.Skipped > 0 {
		state += fmt.Sprintf(" (%s not sent: outside the target's options=/max-len=)", Count(s.Skipped))
	}
	length := "-"
	if s.Len > 0 {
		length = fmt.Sprint(s.Len)
	}
	options := "-"
	if s.OptionSets > 0 {
		options = fmt.Sprint(s.OptionSets)
	}
	fmt.Fprintf(w, "%-11s %-12s %4s %15s %7s %17s %11s %9s %14s %14s  %s%s\n",
		s.Space, s.Op, length, Count(s.Strings), options, Count(s.Cases),
		Count(s.Differences), s.Elapsed.Round(100*time.Millisecond), Count(uint64(sps)), Count(uint64(s.CasesPerSec)), cands, state)
}

// WriteJUnitFile writes the JUnit report (WriteJUnit) to f from its start, emptying a regular
// file first so that a shorter report leaves nothing of an older one, and closes f.
func WriteJUnitFile(f *os.File, checks []Check, props [][2]string) error {
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if err := f.Truncate(0); err != nil {
			return err
		}
	}
	if err := WriteJUnit(f, checks, props); err != nil {
		return err
	}
	return f.Close()
}
