package campaign

import (
	"bytes"
	"context"
	"regexp"
	"testing"
	"time"
)

// TestBuiltinPlanLongRun: a run estimated past an hour says so and how to shard it.
func TestBuiltinPlanLongRun(t *testing.T) {
	slow := func(context.Context) float64 { return float64(time.Millisecond) } // a case a millisecond
	plan := []PlanSpace{
		{Space: "exhaustive", Op: "escape", Shape: "len 3 × 1,088", Cases: 10_000_000, perCase: slow},
		{Space: "random", Op: "all", Shape: "mixed", Cases: 50_000, perCase: slow},
	}
	calibrateBuiltins(context.Background(), plan)
	var w bytes.Buffer
	writeBuiltinPlan(&w, plan, "calibrated in 1ms")
	if !regexp.MustCompile(`(?m)^difffuzz:   the whole run +10,050,000 cases  about 2h48m \(calibrated in 1ms\)\ndifffuzz: this run is estimated at 2h48m, over an hour: split it between machines with --shard K/6 \(K = 0\.\.5; about 27m55s each`).MatchString(w.String()) {
		t.Errorf("plan:\n%s", w.String())
	}
}
