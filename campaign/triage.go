package campaign

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/report"
)

// Classify makes the defect classes of what the run found: it retires the targets (retire),
// minimizes under hard, the context a second interrupt cancels (so that a run interrupted once,
// ctx cancelled, still minimizes), and says on stderr how it went.
func Classify(ctx, hard context.Context, triage *report.Triage, builtins []fuzz.Impl, targets []*fuzz.Target, reference *fuzz.Target, stderr io.Writer) []*report.Class {
	retire(AllTargets(reference, targets), triage, stderr)
	if ctx.Err() != nil && hard.Err() == nil && triage.Total() > 0 {
		fmt.Fprintln(stderr, "difffuzz: interrupted: minimizing what was found (interrupt again to report it as found)")
	}
	classes := triage.Classes(hard, rechecker(hard, builtins, targets, reference))
	report.FlakyNotes(stderr, classes)
	sayTriage(stderr, triage, len(classes))
	return classes
}

// retire ends the campaign's work with its targets (the reference and the --exec targets,
// AllTargets) before triage: the witnesses a target skipped go to triage with how many
// requests they spared, and each target stops, so that findings are re-checked in a new
// process (a target whose answers change between processes is then said to be
// nondeterministic, not minimized into another defect). It says on stderr why one did not end
// well.
func retire(targets []*fuzz.Target, triage *report.Triage, stderr io.Writer) {
	for _, t := range targets {
		for _, w := range t.Witnesses() {
			triage.AddNotRun(w.Finding, w.NotRun, w.OnFalse)
		}
	}
	for _, t := range targets {
		if err := t.Retire(); err != nil {
			fmt.Fprintf(stderr, "difffuzz: %s: %v\n", t.Label(), err)
		}
	}
}

// rechecker finds a candidate of the run by name for minimization: a built-in through
// fuzz.DefaultCheck, an --exec target (or the reference) through single requests.
func rechecker(ctx context.Context, builtins []fuzz.Impl, targets []*fuzz.Target, reference *fuzz.Target) report.Rechecker {
	return func(impl string) (fuzz.Impl, fuzz.CheckOne, bool) {
		for _, im := range builtins {
			if im.Name == impl {
				return im, fuzz.OneCheck(fuzz.DefaultCheck), true
			}
		}
		for _, t := range targets {
			if t.Name == impl {
				// A target that used up its restarts cannot be asked again.
				return fuzz.Impl{Name: t.Name}, t.CheckOne(ctx), t.CanRun() && (reference == nil || reference.CanRun())
			}
		}
		if r := reference; r != nil && r.Name == impl && len(targets) > 0 {
			// The reference's findings (where a build answers as PHP does and it does not)
			// are asked again through the first build, which asks the reference too.
			return fuzz.Impl{Name: r.Name}, targets[0].CheckOne(ctx), r.CanRun() && targets[0].CanRun()
		}
		return fuzz.Impl{}, nil, false
	}
}

// sayTriage says on stderr how the triage of the run went (nothing when it had no finding):
// findings, groups, the classes made of them, minimizations, and the groups an interrupt left
// unminimized.
func sayTriage(stderr io.Writer, triage *report.Triage, classes int) {
	st := triage.Stats()
	if st.Groups == 0 {
		return
	}
	count := func(n int) string { return report.Count(uint64(n)) }
	fmt.Fprintf(stderr, "difffuzz: triage: %s findings in %s groups, %s classes: %s groups minimized, %s classes tried for a slip, %s candidate runs, %v\n",
		report.Count(triage.Total()), count(st.Groups), count(classes), count(st.Minimized), count(st.Merges),
		count(st.Runs), st.Elapsed.Round(10*time.Millisecond))
	if st.Cut > 0 {
		fmt.Fprintf(stderr, "difffuzz: triage interrupted: %s of %s groups not minimized (their classes keep the smallest finding as found)\n",
			count(st.Cut), count(st.Groups))
	}
}
