package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/report"
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

// --boundary-sample for an --exec target: not given, the stratified edge inputs and 1,000
// placements of each family; 0, every placement; the header line says which.
func TestBoundaryTargetSample(t *testing.T) {
	t.Setenv("DIFFFUZZ_CMD_SERVE", "swar")
	self := fmt.Sprintf("%q -test.run=^TestHelperServe$", os.Args[0])
	strat := fuzz.StratifiedEdgeInputs()
	align := int(fuzz.BoundarySpace().Family("align").Len())
	align1000 := int(fuzz.BoundaryTargetCounts([]fuzz.Op{fuzz.OpUTF8Decode}, []string{"align"}, 1000, 0, 1)[0].Placements)
	for _, tc := range []struct {
		args    []string
		strings int
		header  string
	}{
		{nil, strat + 9123, fmt.Sprintf("%s stratified edge inputs", report.Count(uint64(strat)))},
		{[]string{"--boundary-sample", "3"}, strat + 30, "at most 3 placements of each of 10 families (30 in all): utf8_decode " + report.Count(uint64(strat+30)) + " requests"},
		{[]string{"--boundary-families", "align"}, align1000, fmt.Sprintf("boundary for --exec targets: at most 1,000 placements of each of 1 family (%s in all)", report.Count(uint64(align1000)))},
		{[]string{"--boundary-families", "align", "--boundary-sample", "0"}, align, "boundary for --exec targets: all " + report.Count(uint64(align)) + " placements of 1 family"},
	} {
		args := append([]string{"--exec", self, "--boundary", "--ops", "utf8_decode", "--json"}, tc.args...)
		code, out, errs := runArgs(t, "", args...)
		var rep struct {
			Spaces []struct {
				Strings int `json:"strings"`
				Cases   int `json:"cases"`
			} `json:"spaces"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Spaces) != 1 {
			t.Fatalf("%v: exit %d, stderr %q\n%s", tc.args, code, errs, out)
		}
		if s := rep.Spaces[0]; s.Strings != tc.strings || s.Cases != tc.strings {
			t.Errorf("%v: %d strings, %d cases; want %d", tc.args, s.Strings, s.Cases, tc.strings)
		}
		if !strings.Contains(errs, tc.header) {
			t.Errorf("%v: stderr lacks %q:\n%s", tc.args, tc.header, errs)
		}
	}
}
