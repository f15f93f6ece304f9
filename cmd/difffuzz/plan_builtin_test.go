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

	"github.com/difffuzz/difffuzz/campaign"
	"github.com/difffuzz/difffuzz/internal/progress"
	"github.com/difffuzz/difffuzz/report"
)

// TestBuiltinPlan: the plan of the default campaign over the built-in candidates lists every
// space of its three parts with a positive estimate, and a total that is their sum.
func TestBuiltinPlan(t *testing.T) {
	c, run, err := newCampaignArgs([]string{"--max-len", "1"}, io.Discard).parse(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	plan := campaign.PrintBuiltinPlan(context.Background(), parts(c, run), &w)
	parts := map[string]int{}
	var sum uint64
	var est time.Duration
	for _, p := range plan {
		parts[p.Space]++
		sum += p.Cases
		est += p.Est
		if p.Cases == 0 || p.Est <= 0 {
			t.Errorf("%s %s %s: %d cases, estimate %v", p.Space, p.Op, p.Shape, p.Cases, p.Est)
		}
	}
	// escape, decode, utf8_decode of length 1; boundary of each; random inputs.
	if parts["exhaustive"] != 3 || parts["boundary"] != 3 || parts["random"] != 1 {
		t.Errorf("spaces %v", parts)
	}
	rows := regexp.MustCompile(`(?m)^difffuzz:   (exhaustive|boundary|random) `).FindAllString(w.String(), -1)
	total := regexp.MustCompile(`(?m)^difffuzz:   the whole run +` + regexp.QuoteMeta(report.Count(sum)) + ` cases  about ` + regexp.QuoteMeta(campaign.Roughly(est)) + ` \(calibrated in `)
	if len(rows) != len(plan) || !total.MatchString(w.String()) {
		t.Errorf("plan of %d spaces, %s cases:\n%s", len(plan), report.Count(sum), w.String())
	}
}

// TestBuiltinPlanTiny: a run smaller than its calibration would be has no plan.
func TestBuiltinPlanTiny(t *testing.T) {
	c, run, err := newCampaignArgs([]string{"--exhaustive", "--max-len", "2", "--ops", "decode"}, io.Discard).parse(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if plan := campaign.PrintBuiltinPlan(context.Background(), parts(c, run), &w); plan != nil || w.Len() > 0 {
		t.Errorf("%d spaces planned:\n%s", len(plan), w.String())
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
	ps := parts(c, run)
	plan := campaign.BuiltinPlan(ps)
	rec := &recordProgress{}
	spans := campaign.Spans(plan)
	c.progress = progress.Builtins(rec, spans)
	if _, err := runParts(context.Background(), c, ps); err != nil {
		t.Fatal(err)
	}
	var sum uint64
	var spaces []string
	for _, p := range plan {
		sum += p.Cases
		spaces = append(spaces, p.Space+" "+p.Op)
	}
	if strings.Join(spaces, ", ") != "exhaustive escape, exhaustive utf8_decode, boundary escape, boundary utf8_decode, random all" {
		t.Errorf("planned %s", strings.Join(spaces, ", "))
	}
	var whole uint64
	for _, sp := range spans {
		whole += sp.Cases
	}
	if whole != sum || rec.done != sum {
		t.Errorf("whole run of %d cases, the spaces %d, advanced %d", whole, sum, rec.done)
	}
	for i, p := range plan {
		if i >= len(rec.totals) || rec.totals[i] != p.Cases {
			t.Errorf("space %d (%s %s): planned %d cases, begun %v", i, p.Space, p.Op, p.Cases, rec.totals)
		}
	}
}
