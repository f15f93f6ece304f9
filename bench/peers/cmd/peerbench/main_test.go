package main

import (
	"strings"
	"testing"
	"time"
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
		err := run(tc.format, "16B", tc.passes, tc.pass)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("run(%q, %d, %v) = %v; want an error starting %q", tc.format, tc.passes, tc.pass, err, tc.want)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("run(%q, %d, %v) took %v before refusing", tc.format, tc.passes, tc.pass, d)
		}
	}
}
