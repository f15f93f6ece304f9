package main

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestBuiltinPlan: the plan of the default campaign over the built-in candidates lists every
// space of its three parts with a positive estimate, and a total that is their sum.
func TestBuiltinPlan(t *testing.T) {
	c, run, err := newCampaignArgs([]string{"--max-len", "1"}, io.Discard).parse(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	plan := printBuiltinPlan(context.Background(), c, run, &w)
	parts := map[string]int{}
	var sum uint64
	var est time.Duration
	for _, p := range plan {
		parts[p.space]++
		sum += p.cases
		est += p.est
		if p.cases == 0 || p.est <= 0 {
			t.Errorf("%s %s %s: %d cases, estimate %v", p.space, p.op, p.shape, p.cases, p.est)
		}
	}
	// escape, decode, utf8_decode of length 1; boundary of each; random inputs.
	if parts["exhaustive"] != 3 || parts["boundary"] != 3 || parts["random"] != 1 {
		t.Errorf("spaces %v", parts)
	}
	rows := regexp.MustCompile(`(?m)^difffuzz:   (exhaustive|boundary|random) `).FindAllString(w.String(), -1)
	total := regexp.MustCompile(`(?m)^difffuzz:   the whole run +` + regexp.QuoteMeta(group(sum)) + ` cases  about ` + regexp.QuoteMeta(roughly(est)) + ` \(calibrated in `)
	if len(rows) != len(plan) || !total.MatchString(w.String()) {
		t.Errorf("plan of %d spaces, %s cases:\n%s", len(plan), group(sum), w.String())
	}
}

// TestBuiltinPlanTiny: a run smaller than its calibration would be has no plan.
func TestBuiltinPlanTiny(t *testing.T) {
	c, run, err := newCampaignArgs([]string{"--exhaustive", "--max-len", "2", "--ops", "decode"}, io.Discard).parse(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if plan := printBuiltinPlan(context.Background(), c, run, &w); plan != nil || w.Len() > 0 {
		t.Errorf("%d spaces planned:\n%s", len(plan), w.String())
	}
}

// TestBuiltinPlanLongRun: a run estimated past an hour says so and how to shard it.
func TestBuiltinPlanLongRun(t *testing.T) {
	slow := func(context.Context) float64 { return float64(time.Millisecond) } // a case a millisecond
	plan := []builtinSpace{
		{space: "exhaustive", op: "escape", shape: "len 3 × 1,088", cases: 10_000_000, perCase: slow},
		{space: "random", op: "all", shape: "mixed", cases: 50_000, perCase: slow},
	}
	calibrateBuiltins(context.Background(), plan)
	var w bytes.Buffer
	writeBuiltinPlan(&w, plan, "calibrated in 1ms")
	if !regexp.MustCompile(`(?m)^difffuzz:   the whole run +10,050,000 cases  about 2h48m \(calibrated in 1ms\)\ndifffuzz: this run is estimated at 2h48m, over an hour: split it between machines with --shard K/6 \(K = 0\.\.5; about 27m55s each`).MatchString(w.String()) {
		t.Errorf("plan:\n%s", w.String())
	}
}

// recordProgress records the spaces a campaign began and the cases it advanced.
type recordProgress struct {
	mu     sync.Mutex
	totals []uint64
	done   uint64
}

func (r *recordProgress) Begin(_ string, total uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.totals = append(r.totals, total)
}

func (r *recordProgress) Advance(n uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done += n
}

func (r *recordProgress) End() {}

// TestBuiltinWholeRun: the whole run's progress counts the cases of every planned space, the
// exhaustive, boundary and random parts, which the campaign begins in the plan's order and
// advances to the end.
func TestBuiltinWholeRun(t *testing.T) {
	c, run, err := newCampaignArgs([]string{"--exhaustive", "--boundary", "--random", "300x", "--seed", "1",
		"--max-len", "1", "--boundary-sample", "200", "--ops", "escape,utf8_decode"}, io.Discard).parse(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	plan := builtinPlan(c, run)
	rec := &recordProgress{}
	c.progress = newBuiltinRun(rec, wholeRunSpans(plan))
	whole := c.progress.(*wholeRun)
	if _, err := runModes(context.Background(), c, run); err != nil {
		t.Fatal(err)
	}
	var sum uint64
	var spaces []string
	for _, p := range plan {
		sum += p.cases
		spaces = append(spaces, p.space+" "+p.op)
	}
	if strings.Join(spaces, ", ") != "exhaustive escape, exhaustive utf8_decode, boundary escape, boundary utf8_decode, random all" {
		t.Errorf("planned %s", strings.Join(spaces, ", "))
	}
	if whole.total != sum || rec.done != sum || whole.done.Load() != sum {
		t.Errorf("whole run of %d cases, the spaces %d, advanced %d", whole.total, sum, rec.done)
	}
	for i, p := range plan {
		if i >= len(rec.totals) || rec.totals[i] != p.cases {
			t.Errorf("space %d (%s %s): planned %d cases, begun %v", i, p.space, p.op, p.cases, rec.totals)
		}
	}
}

// TestWholeRunWeighted: the whole run's ETA weighs the cases done by their spaces' estimates.
func TestWholeRunWeighted(t *testing.T) {
	w := newBuiltinRun(&recordProgress{}, []span{{cases: 900, est: time.Second}, {cases: 100, est: 3 * time.Second}}).(*wholeRun)
	if got := w.share(900); got != 0.25 {
		t.Errorf("share after the first space %v, want 0.25", got)
	}
	if got := w.share(950); got != 0.625 {
		t.Errorf("share half-way through the second %v, want 0.625", got)
	}
}
