package main

import (
	"strings"
	"testing"
	"time"

	"github.com/difffuzz/difffuzz/corpus"
)

// Settings out of range are refused before any timing: --format nope used to time every
// cell first, and --passes 99999 or --pass-time 0s ran on.
func TestRunRefusesSettings(t *testing.T) {
	for _, tc := range []struct {
		format string
		passes int
		pass   time.Duration
		want   string
	}{
		{"nope", 5, time.Millisecond, `--format "nope"`},
		{"text", 99999, time.Millisecond, "--passes 99999"},
		{"text", 5, 0, "--pass-time 0s"},
		{"text", 5, -time.Second, "--pass-time -1s"},
	} {
		start := time.Now()
		err := run(tc.format, "16B", tc.passes, tc.pass, false)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("run(%q, %d, %v) = %v; want an error starting %q", tc.format, tc.passes, tc.pass, err, tc.want)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("run(%q, %d, %v) took %v before refusing", tc.format, tc.passes, tc.pass, d)
		}
	}
}

// --floors times fast under each cell's options (the default ones) against copy-output, every
// corpus, and nothing else; its fast is checked against the oracle under those options (fast
// under the peers' option set would be refused on non-ASCII text).
func TestLineupFloors(t *testing.T) {
	cells, cands, err := lineup([]int{4096}, true)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cands {
		names = append(names, c.Name)
	}
	if strings.Join(names, " ") != "fast copy-output" {
		t.Fatalf("candidates %v; want fast and copy-output", names)
	}
	if len(cells) != len(corpus.Names()) {
		t.Fatalf("%d cells; want one per corpus (%d)", len(cells), len(corpus.Names()))
	}
	for _, c := range cells {
		if c.Options != 0 {
			t.Fatalf("cell %s: options %v; want the default ones", c.Name(), c.Options)
		}
		if _, err := cands[0].Prepare(c); err != nil {
			t.Fatalf("fast on %s: %v", c.Name(), err)
		}
	}
	_, cands, err = lineup([]int{4096}, false)
	if err != nil || len(cands) < 4 || cands[0].Name != "fast" || cands[len(cands)-1].Name != "copy-output" {
		t.Fatalf("without --floors: %d candidates, %v", len(cands), err)
	}
}
