package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/internal/phplit"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// SaveWitnesses saves each class's witness under dir (--out) and says so on stderr, with the
// command that replays it; the first failure is said and ends it.
func SaveWitnesses(dir string, classes []*Class, stderr io.Writer) {
	saved := map[string]bool{}
	save := func(label string, w *fuzz.Finding) bool {
		k := fmt.Sprintf("%s\x00%s\x00%d\x00%x", w.Impl, w.Op, w.Flags, w.Input)
		if saved[k] {
			return true
		}
		saved[k] = true
		ff, tf, err := fuzz.SaveFinding(dir, w)
		if err != nil {
			fmt.Fprintf(stderr, "difffuzz: --out: %v\n", err)
			return false
		}
		how := ""
		if w.External {
			how = ", through the --exec command it records"
		}
		fmt.Fprintf(stderr, "difffuzz: %s: saved %s and %s (replay: difffuzz repro %s%s)\n", label, ff, tf, tf, how)
		return true
	}
	for _, cl := range classes {
		if !save(cl.ID, cl.Witness) {
			return
		}
	}
	// A defect's witness where none of the classes has it (its findings filed under classes
	// another fault's witness stands for): saved too, so that no defect is left out.
	for i, d := range Defects(classes) {
		if d.Dev != nil && d.Dev.Witness != nil && !save(fmt.Sprintf("DEFECT %d", i+1), d.Dev.Witness) {
			return
		}
	}
}

// FlakyNotes puts the note of a witness whose target answered otherwise when asked again
// (fuzz.Flaky) on its class, and says it on w; and says of a target's limit (fuzz.LimitOf) or
// line after every answer (fuzz.EveryAnswer) why it was not minimized.
func FlakyNotes(w io.Writer, classes []*Class) {
	for _, cl := range classes {
		if _, ok := fuzz.LimitOf(cl.Witness); (ok || fuzz.EveryAnswer(cl.Witness)) && !cl.Minimized {
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

// TargetNotes says on w how a target was driven: the timeout, the option bits and lengths it
// could not take, the inputs not sent for a crash or hang witness, slow answers, restarts, and
// the answers a --reference-exec target shared or did not give.
func TargetNotes(w io.Writer, t *fuzz.Target) {
	timeoutNote(w, t)
	caps := t.Capabilities()
	if u := t.Unchecked(); u != 0 {
		msg := "none of the string options"
		if s := u & jsonopt.StringPath; s != 0 {
			msg = s.Short()
		}
		if other := u &^ jsonopt.StringPath; other != 0 {
			msg += fmt.Sprintf(", and bits %d that do not change a string's encoding", uint32(other))
		}
		fmt.Fprintf(w, "difffuzz: %s: options not checked (it announced options=%d, so no case with them was sent): %s\n", t.Label(), uint32(caps.Options), msg)
	}
	if caps.MaxLen > 0 {
		fmt.Fprintf(w, "difffuzz: %s: inputs longer than its max-len=%d bytes not checked\n", t.Label(), caps.MaxLen)
	}
	witnessNotes(w, t)
	if n := t.Slow(); n > 0 {
		verb := "were"
		if n == 1 {
			verb = "was"
		}
		fmt.Fprintf(w, "difffuzz: %s: %s past the calibrated timeout %s not taken for a hang (answered when sent again alone, or not reproducible alone)\n",
			t.Label(), Plural(uint64(n), "slow answer"), verb)
	}
	slowNotes(w, t)
	restartNotes(w, t)
	if r := t.Reference(); r != nil {
		both, none := t.VersusCounts()
		if both > 0 {
			fmt.Fprintf(w, "difffuzz: %s: %s not PHP 8.2's but the same as %s's (not findings: the builds agree)\n", t.Name, Plural(both, "answer"), r.Name)
		}
		if none > 0 {
			fmt.Fprintf(w, "difffuzz: %s: %s not compared: %s gave no answer to them (its crash, hang or refusal is a finding of its own)\n", t.Name, Plural(none, "answer"), r.Name)
		}
	}
}

// timeoutNote says a target's per-request timeout and how it was found.
func timeoutNote(w io.Writer, t *fuzz.Target) {
	d, p99, answers, calibrated := t.Timeout()
	if !calibrated {
		fmt.Fprintf(w, "difffuzz: %s: per-request timeout %v (--timeout; not calibrated: %s answers)\n", t.Label(), d, Count(answers))
		return
	}
	now, configured := t.Floor()
	raised := ""
	if now > configured {
		raised = fmt.Sprintf(" (raised from %v after %s)", configured, Plural(uint64(t.Slow()), "slow answer"))
	}
	fmt.Fprintf(w, "difffuzz: %s: per-request timeout %s\n", t.Label(), timeoutHow(d, p99, answers, now, raised))
}

// timeoutHow says a calibrated timeout d and which bound made it: 50× the p99 answer latency
// the last calibration used (over answers answers), else the floor (raised: how it came above
// its start), else --timeout.
func timeoutHow(d, p99 time.Duration, answers uint64, floor time.Duration, raised string) string {
	latency := fmt.Sprintf("50× its p99 answer latency %v over %s answers", p99, Count(answers))
	switch d {
	case 50 * p99:
		return fmt.Sprintf("%v: %s (at least %v%s, at most --timeout)", d, latency, floor, raised)
	case floor:
		return fmt.Sprintf("%v, its floor%s: %s is %v", d, raised, latency, 50*p99)
	}
	return fmt.Sprintf("%v, --timeout: %s is %v", d, latency, 50*p99)
}

// witnessNotes says how many inputs a target's crash and hang witnesses kept from it, and
// the requests answered as a witness was.
func witnessNotes(w io.Writer, t *fuzz.Target) {
	var notRun uint64
	for _, wt := range t.Witnesses() {
		notRun += wt.NotRun
	}
	if n := len(t.Witnesses()); n > 0 {
		fmt.Fprintf(w, "difffuzz: %s: %s; %s containing one were not sent\n", t.Label(), Plural(uint64(n), "crash or hang witness"), Plural(notRun, "input"))
	}
	for _, wt := range t.Witnesses() {
		if line, ok := wt.Line(); ok && wt.Again > 0 {
			fmt.Fprintf(w, "difffuzz: %s: %s more %s requests were answered %s, as its witness %s was: each taken as the answer (a finding of that witness's class), without a restart\n",
				t.Label(), Count(wt.Again), wt.Finding.Op, phplit.Quote([]byte(line)), clipHex(wt.Finding.Input))
		}
	}
}

// restartNotes says how often a target's process was started again, and why.
func restartNotes(w io.Writer, t *fuzz.Target) {
	limit, _ := t.Limit()
	if limit > 0 {
		fmt.Fprintf(w, "difffuzz: %s: it stops answering after %s in every process, whatever it is asked: each process was replaced after %s (one finding says so)\n",
			t.Label(), Plural(uint64(limit), "request"), Plural(uint64(limit), "answer"))
	}
	failed, confirm, renewed := t.RestartCounts()
	if n := failed + confirm + renewed; n > 0 {
		var why []string
		if failed > 0 {
			why = append(why, fmt.Sprintf("%s after a crash, hang or malformed line of a campaign input", Count(uint64(failed))))
		}
		if confirm > 0 {
			why = append(why, fmt.Sprintf("%s to ask a finding's input alone (to confirm or minimize it)", Count(uint64(confirm))))
		}
		if renewed > 0 {
			why = append(why, fmt.Sprintf("%s replaced on purpose (before it would stop answering, or to re-check findings in a new process)", Count(uint64(renewed))))
		}
		fmt.Fprintf(w, "difffuzz: %s: the process was started again %s: %s\n", t.Label(), Plural(uint64(n), "time"), strings.Join(why, ", "))
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
	fmt.Fprintf(w, "difffuzz: %s: %s took %v or longer (the median answer about %v; not hangs, not findings); slowest: %s\n",
		t.Label(), Plural(n, "answer"), over.Round(time.Microsecond), median, strings.Join(ex, "; "))
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
