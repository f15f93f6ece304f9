package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/internal/phplit"
	"github.com/difffuzz/difffuzz/report"
)

// saveWitnesses saves each class's witness under --out DIR.
func saveWitnesses(dir string, classes []*report.Class, stderr io.Writer) {
	for _, cl := range classes {
		ff, tf, err := fuzz.SaveFinding(dir, cl.Witness)
		if err != nil {
			fmt.Fprintf(stderr, "difffuzz: --out: %v\n", err)
			return
		}
		how := ""
		if cl.Witness.External {
			how = ", through the --exec command it records"
		}
		fmt.Fprintf(stderr, "difffuzz: %s: saved %s and %s (replay: go run ./cmd/difffuzz repro %s%s)\n", cl.ID, ff, tf, tf, how)
	}
}

// writeJUnit writes the JUnit report to f from its start (emptying a regular file first, so a
// shorter report leaves nothing of an older one) and closes it.
func writeJUnit(f *os.File, checks []report.Check, props [][2]string) error {
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if err := f.Truncate(0); err != nil {
			return err
		}
	}
	if err := report.WriteJUnit(f, checks, props); err != nil {
		return err
	}
	return f.Close()
}

// flakyNotes puts the note of a witness whose target answered otherwise when asked again
// (fuzz.Flaky) on its class, and says it on stderr; and says of a target's limit (fuzz.LimitOf)
// why it was not minimized.
func flakyNotes(w io.Writer, classes []*report.Class) {
	for _, cl := range classes {
		if _, ok := fuzz.LimitOf(cl.Witness); ok && !cl.Minimized {
			cl.Note = "not minimized: no input is to blame (see detail)"
		}
		note, ok := fuzz.Flaky(cl.Witness)
		if !ok {
			continue
		}
		cl.Note = "nondeterministic: " + note
		fmt.Fprintf(w, "difffuzz: %s: --exec %q is nondeterministic: %s %s: %s\n", cl.ID, cl.Witness.Impl, cl.Witness.Op, clipHex(cl.Witness.Input), note)
	}
}

// targetNotes says on stderr how a target was driven: the timeout, the option bits and
// lengths it could not take, the inputs not sent for a crash or hang witness, restarts.
func targetNotes(w io.Writer, t *fuzz.Target) {
	d, p99, answers, calibrated := t.Timeout()
	if calibrated {
		now, configured := t.Floor()
		floor := now.String()
		if now > configured {
			floor += fmt.Sprintf(" (raised from %v after %s)", configured, plural(uint64(t.Slow()), "slow answer"))
		}
		fmt.Fprintf(w, "difffuzz: --exec %q: per-request timeout %v: 50× its p99 answer latency %v over %s answers, at least %s, at most --timeout\n",
			t.Name, d, p99, report.Count(answers), floor)
	} else {
		fmt.Fprintf(w, "difffuzz: --exec %q: per-request timeout %v (--timeout; not calibrated: %s answers)\n", t.Name, d, report.Count(answers))
	}
	caps := t.Capabilities()
	if u := t.Unchecked(); u != 0 {
		msg := "none of the string options"
		if s := u & stringPath; s != 0 {
			msg = s.Short()
		}
		if other := u &^ stringPath; other != 0 {
			msg += fmt.Sprintf(", and bits %d that do not change a string's encoding", uint32(other))
		}
		fmt.Fprintf(w, "difffuzz: --exec %q: options not checked (it announced options=%d, so no case with them was sent): %s\n", t.Name, uint32(caps.Options), msg)
	}
	if caps.MaxLen > 0 {
		fmt.Fprintf(w, "difffuzz: --exec %q: inputs longer than its max-len=%d bytes not checked\n", t.Name, caps.MaxLen)
	}
	var notRun uint64
	for _, wt := range t.Witnesses() {
		notRun += wt.NotRun
	}
	if n := len(t.Witnesses()); n > 0 {
		fmt.Fprintf(w, "difffuzz: --exec %q: %s; %s containing one were not sent\n", t.Name, plural(uint64(n), "crash or hang witness"), plural(notRun, "input"))
	}
	for _, wt := range t.Witnesses() {
		if line, ok := wt.Line(); ok && wt.Again > 0 {
			fmt.Fprintf(w, "difffuzz: --exec %q: %s more %s requests were answered %s, as its witness %s was: each taken as the answer (a finding of that witness's class), without a restart\n",
				t.Name, group(wt.Again), wt.Finding.Op, phplit.Quote([]byte(line)), clipHex(wt.Finding.Input))
		}
	}
	if n := t.Slow(); n > 0 {
		verb := "were"
		if n == 1 {
			verb = "was"
		}
		fmt.Fprintf(w, "difffuzz: --exec %q: %s past the calibrated timeout %s not taken for a hang (answered when sent again alone, or not reproducible alone)\n",
			t.Name, plural(uint64(n), "slow answer"), verb)
	}
	slowNotes(w, t)
	restartNotes(w, t)
	if r := t.Reference(); r != nil {
		both, none := t.VersusCounts()
		if both > 0 {
			fmt.Fprintf(w, "difffuzz: %s: %s not PHP 8.2's but the same as %s's (not findings: the builds agree)\n", t.Name, plural(both, "answer"), r.Name)
		}
		if none > 0 {
			fmt.Fprintf(w, "difffuzz: %s: %s not compared: %s gave no answer to them (its crash, hang or refusal is a finding of its own)\n", t.Name, plural(none, "answer"), r.Name)
		}
	}
}

// restartNotes says how often a target's process was started again, and why.
func restartNotes(w io.Writer, t *fuzz.Target) {
	limit, _ := t.Limit()
	if limit > 0 {
		fmt.Fprintf(w, "difffuzz: --exec %q: it stops answering after %s in every process, whatever it is asked: each process was replaced after %s (one finding says so)\n",
			t.Name, plural(uint64(limit), "request"), plural(uint64(limit), "answer"))
	}
	failed, confirm, renewed := t.RestartCounts()
	if n := failed + confirm + renewed; n > 0 {
		var why []string
		if failed > 0 {
			why = append(why, fmt.Sprintf("%s after a crash, hang or malformed line of a campaign input", group(uint64(failed))))
		}
		if confirm > 0 {
			why = append(why, fmt.Sprintf("%s to minimize one or confirm what caused it", group(uint64(confirm))))
		}
		if renewed > 0 {
			why = append(why, fmt.Sprintf("%s replaced on purpose (before it would stop answering, or to re-check findings in a new process)", group(uint64(renewed))))
		}
		fmt.Fprintf(w, "difffuzz: --exec %q: the process was started again %s: %s\n", t.Name, plural(uint64(n), "time"), strings.Join(why, ", "))
	}
}

// slowNotes names a target's answers that took far longer than the others without timing out.
func slowNotes(w io.Writer, t *fuzz.Target) {
	n, over, median, slowest := t.SlowAnswers()
	if n == 0 || len(slowest) == 0 {
		return
	}
	var ex []string
	for _, a := range slowest {
		what := fmt.Sprintf("%s of %s", a.Case.Op, clipHex(a.Case.Input))
		if a.Case.Op == fuzz.OpEscape {
			what += fmt.Sprintf(" (options %d)", uint32(a.Case.Flags))
		}
		ex = append(ex, what+" took "+a.Wait.Round(time.Microsecond).String())
	}
	fmt.Fprintf(w, "difffuzz: --exec %q: %s took %v or longer (the median answer about %v; not hangs, not findings); slowest: %s\n",
		t.Name, plural(n, "answer"), over.Round(time.Microsecond), median, strings.Join(ex, "; "))
}

// clipHex is b as hex ("-" when empty), its first 32 bytes when longer.
func clipHex(b []byte) string {
	if len(b) == 0 {
		return "-"
	}
	if len(b) > 32 {
		return fmt.Sprintf("%x… (%d bytes)", b[:32], len(b))
	}
	return fmt.Sprintf("%x", b)
}

func printSummary(w io.Writer, rep *fuzz.Report, defects, classes int, elapsed time.Duration, versus string) {
	fmt.Fprintf(w, "%-11s %-12s %4s %15s %7s %17s %11s %9s %14s %14s  %s\n",
		"space", "op", "len", "strings", "options", "cases", "differences", "time", "strings/s", "cases/s", "candidates")
	var strs, cases, notSent uint64
	names := map[string]bool{}
	for _, s := range rep.Spaces {
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
			state += fmt.Sprintf(" (%s not run: contain a crash or hang witness)", group(s.NotRun))
		}
		if s.Skipped > 0 {
			state += fmt.Sprintf(" (%s not sent: outside the target's options=/max-len=)", group(s.Skipped))
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
			s.Space, s.Op, length, group(s.Strings), options, group(s.Cases),
			group(s.Differences), s.Elapsed.Round(100*time.Millisecond), group(uint64(sps)), group(uint64(s.CasesPerSec)), cands, state)
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
		verdict = fmt.Sprintf("%s in %s (%s)", plural(rep.Differences, "difference"), plural(uint64(defects), "defect"),
			plural(uint64(classes), "class"))
	}
	sent := ""
	if notSent > 0 {
		sent = fmt.Sprintf(" (%s more not sent to targets)", group(notSent))
	}
	with := "the oracle"
	if versus != "" {
		with = versus
	}
	fmt.Fprintf(w, "difffuzz: %s: %s strings, %s cases compared with %s%s for %s in %s\n",
		verdict, group(strs), group(cases), with, sent, plural(uint64(len(names)), "candidate"), elapsed.Round(100*time.Millisecond))
}

// writePHPT writes the .phpt tests of --phpt DIR and says so on stderr; false when they could
// not be written (said too).
func writePHPT(dir string, classes []*report.Class, stderr io.Writer) bool {
	paths, err := report.WritePHPT(dir, classes)
	if err != nil {
		fmt.Fprintf(stderr, "difffuzz: --phpt: %v\n", err)
		return false
	}
	if len(paths) > 0 {
		dir = filepath.Clean(dir)
		fmt.Fprintf(stderr, "difffuzz: wrote %s to %s (run them: sapi/cli/php run-tests.php %s, or adapters/php/run-phpt PHP %s)\n",
			plural(uint64(len(paths)), "PHP test"), dir, dir, filepath.Join(dir, "*.phpt"))
	}
	return true
}
