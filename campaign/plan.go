package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/report"
)

// What a campaign against --exec targets will cost, said before it starts: each space's size
// and an estimate of the whole run's time from a short calibration against each target.

// calibrationBatches batches of calibrationBatch cases of each space are timed through each
// target; a space's time per case is the median batch's (one stall, a collection or a busy
// machine, does not make the estimate).
const (
	calibrationBatches = 5
	calibrationBatch   = 400
)

// longRun is the estimate past which a run says how to shard it.
const longRun = time.Hour

// planned is one space of the run as a target will be asked it.
type planned struct {
	sp      fuzz.TargetSpace
	perCase time.Duration // from calibration (0: not calibrated)
}

// targetPlan is the spaces of the parts as target t is asked them: those of the operations
// it (and the reference) serves, inside its options=.
func targetPlan(parts []Part, t *fuzz.Target) []planned {
	var out []planned
	for _, p := range parts {
		for _, sp := range partPlan(p) {
			if !t.Has(sp.Op) || sp.Total == 0 || t.Reference() != nil && !t.Reference().Has(sp.Op) {
				continue
			}
			if sp.Op == fuzz.OpEscape {
				sp = sp.Within(t.Capabilities().Options)
			}
			out = append(out, planned{sp: sp})
		}
	}
	return out
}

// partPlan is the streams part p asks each --exec target, as its plan states them.
func partPlan(p Part) []fuzz.TargetSpace {
	if p.Space == nil {
		return nil
	}
	_, t := p.Space.Plan()
	return t
}

// calibrate times the first cases of each space through t (and its reference, which is asked
// the same; see calibrationBatches): each space's time per case.
func calibrate(ctx context.Context, t *fuzz.Target, plan []planned) (asked int, err error) {
	for i := range plan {
		var cases []fuzz.Case
		for cs := range plan[i].sp.Seq {
			if cs.Op == plan[i].sp.Op {
				cases = append(cases, fuzz.Case{Op: cs.Op, Input: append([]byte(nil), cs.Input...), Flags: cs.Flags})
			}
			if len(cases) == calibrationBatches*calibrationBatch {
				break
			}
		}
		for _, x := range []*fuzz.Target{t, t.Reference()} {
			if x == nil {
				continue
			}
			var per []time.Duration
			for b := 0; b < len(cases); b += calibrationBatch {
				el, n, err := x.Time(ctx, cases[b:min(b+calibrationBatch, len(cases))])
				if err != nil {
					return asked, err
				}
				if n > 0 {
					per = append(per, el/time.Duration(n))
					asked += n
				}
			}
			if len(per) > 0 {
				slices.Sort(per)
				plan[i].perCase += per[len(per)/2]
			}
		}
	}
	return asked, nil
}

// PrintPlan says, before a campaign against --exec targets, each space's size per target and
// the whole run's estimated time (from calibrate), and how to shard a run estimated past an
// hour. It returns the cases the targets will be asked (for the whole run's progress), or the
// error of a target that answered calibration nothing at all (fuzz.ErrTargetSilent).
func PrintPlan(ctx context.Context, parts []Part, targets []*fuzz.Target, w io.Writer) (uint64, error) {
	var total uint64
	var est time.Duration
	for _, t := range targets {
		plan := targetPlan(parts, t)
		if len(plan) == 0 {
			continue
		}
		start := time.Now()
		asked, err := calibrate(ctx, t, plan)
		if errors.Is(err, fuzz.ErrTargetSilent) {
			return 0, err // it answers nothing: the one line that says so
		}
		calib := fmt.Sprintf("calibrated on %s in %v", report.Plural(uint64(asked), "request"), time.Since(start).Round(time.Millisecond))
		if err != nil {
			calib = "not calibrated: the target failed on a calibration request (the campaign says how)"
		}
		also := ""
		if r := t.Reference(); r != nil {
			also = fmt.Sprintf(" (and the same to %s)", r.Name)
		}
		fmt.Fprintf(w, "difffuzz: plan for %s%s:\n", t.Name, also)
		var n uint64
		var d time.Duration
		for _, p := range plan {
			pd := time.Duration(p.sp.Total) * p.perCase
			planRow(w, p.sp.Space, string(p.sp.Op), planLen(p.sp), p.sp.Total, "requests", estText(pd, err))
			n += p.sp.Total
			d += pd
		}
		planTotal(w, n, "requests", estText(d, err), calib)
		total += n
		est += d
	}
	shardAdvice(w, est)
	return total, nil
}

// planRow is one line of a plan: a space of one operation, its shape ("len 2 × 8"), its size
// in unit ("requests", "cases") and its estimated time.
func planRow(w io.Writer, space, op, shape string, n uint64, unit, est string) {
	fmt.Fprintf(w, "difffuzz:   %-10s %-11s %s %15s %s  %s\n", space, op, padRight(shape, 12), report.Count(n), unit, est)
}

// planTotal is the last line of a plan: the whole run's size and estimated time, and how the
// estimate was made.
func planTotal(w io.Writer, n uint64, unit, est, calib string) {
	fmt.Fprintf(w, "difffuzz:   %-35s %15s %s  %s (%s)\n", "the whole run", report.Count(n), unit, est, calib)
}

// shardAdvice says, of a run estimated past longRun, how to split it between machines.
func shardAdvice(w io.Writer, est time.Duration) {
	if est <= longRun {
		return
	}
	shards := int((est + longRun/2 - 1) / (longRun / 2))
	fmt.Fprintf(w, "difffuzz: this run is estimated at %s, over an hour: split it between machines with --shard K/%d (K = 0..%d; about %s each, random inputs on shard 0) and merge their --json reports with difffuzz merge, or check less (--max-len, --ops)\n",
		Roughly(est), shards, shards-1, Roughly(est/time.Duration(shards)))
}

// padRight is s padded with spaces to n characters (runes: "×" is one).
func padRight(s string, n int) string {
	if k := utf8.RuneCountInString(s); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s
}

// planLen is a space's input length and option sets for the plan ("len 2 × 8").
func planLen(sp fuzz.TargetSpace) string {
	s := "mixed"
	if sp.Len > 0 {
		s = fmt.Sprintf("len %d", sp.Len)
	}
	if sp.Op == fuzz.OpEscape && sp.OptionSets > 1 {
		s += fmt.Sprintf(" × %d", sp.OptionSets)
	}
	return s
}

// estText is an estimated duration for the plan: "about 2.9s", "about 11h55m"; "?" when not
// calibrated.
func estText(d time.Duration, err error) string {
	if err != nil {
		return "?"
	}
	return "about " + Roughly(d)
}

// Roughly is d rounded for a person: 40ms, 2.9s, 5m8s, 11h55m.
func Roughly(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	case d < time.Hour:
		return d.Round(time.Second).String()
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// NotReached names the spaces of the run's plan that it did not begin (it was interrupted or
// stopped before them), "exhaustive decode len 2" or "boundary escape": a summary of what was
// checked says nothing of them, so the run says so. With targets, the plan is what they are
// asked: the operations none of them serves are not in it.
func NotReached(parts []Part, targets []*fuzz.Target, rep *fuzz.Report) []string {
	began := map[string]bool{}
	for _, s := range rep.Spaces {
		for _, k := range []string{s.Space, s.Space + " " + string(s.Op), fmt.Sprintf("%s %s len %d", s.Space, s.Op, s.Len)} {
			began[k] = true
		}
	}
	var out []string
	add := func(space, op string, n int) {
		name, key := space+" "+op, space+" "+op
		switch {
		case op == "all":
			name, key = space, space
		case n > 0:
			name = fmt.Sprintf("%s %s len %d", space, op, n)
			key = name
		}
		if !began[key] && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	if len(targets) > 0 {
		for _, p := range parts {
			for _, sp := range partPlan(p) {
				if slices.ContainsFunc(targets, func(t *fuzz.Target) bool { return t.Has(sp.Op) }) {
					add(sp.Space, string(sp.Op), sp.Len)
				}
			}
		}
		return out
	}
	for _, sp := range BuiltinPlan(parts) {
		n := 0
		if rest, ok := strings.CutPrefix(sp.Shape, "len "); ok {
			n, _ = strconv.Atoi(strings.Fields(rest)[0])
		}
		add(sp.Space, sp.Op, n)
	}
	return out
}
