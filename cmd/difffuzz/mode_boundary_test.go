package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBoundaryMode runs a sample of the boundary space through the command line and checks
// the report: one "boundary" space per operation, no differences.
func TestBoundaryMode(t *testing.T) {
	code, out, errs := runArgs(t, "", "--boundary", "--boundary-sample", "20", "--json")
	if code != 0 {
		t.Fatalf("--boundary: exit %d, stderr %q", code, errs)
	}
	var rep struct {
		Spaces []struct {
			Space   string `json:"space"`
			Op      string `json:"op"`
			Strings uint64 `json:"strings"`
		} `json:"spaces"`
		Differences uint64 `json:"differences"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, out)
	}
	if len(rep.Spaces) != 3 || rep.Differences != 0 {
		t.Fatalf("report: %+v", rep)
	}
	for i, op := range []string{"escape", "decode", "utf8_decode"} {
		if s := rep.Spaces[i]; s.Space != "boundary" || s.Op != op || s.Strings == 0 || s.Strings > 10*20 {
			t.Errorf("space %d = %+v", i, s)
		}
	}
	code, out, _ = runArgs(t, "", "--boundary", "--boundary-families", "straddle,embed3", "--boundary-sample", "5", "--ops", "decode")
	if code != 0 || !strings.Contains(out, "boundary") || !strings.Contains(out, "no differences: 10 strings") {
		t.Errorf("--boundary-families: exit %d\n%s", code, out)
	}
	code, _, errs = runArgs(t, "", "--boundary", "--boundary-families", "nope")
	if code != 2 || !strings.Contains(errs, "unknown boundary family") {
		t.Errorf("bad family: exit %d, stderr %q", code, errs)
	}
}
