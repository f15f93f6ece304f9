package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/internal/planted"
)

// runMain runs the test binary as difffuzz with a planted candidate (mainEnv); with interrupt
// > 0 it sends SIGINT after that long. It returns the exit code, stdout, stderr and how long the
// run took.
func runMain(t *testing.T, faults string, interrupt time.Duration, args ...string) (int, string, string, time.Duration) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), mainEnv+"="+faults)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	require.NoError(t, cmd.Start())
	if interrupt > 0 {
		timer := time.AfterFunc(interrupt, func() { _ = cmd.Process.Signal(syscall.SIGINT) })
		defer timer.Stop()
	}
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return code, out.String(), errb.String(), time.Since(start)
}

// A full exhaustive sweep interrupted by SIGINT at a random point and resumed with the same
// command and --checkpoint file reports exactly the counts of an uninterrupted run: the same
// strings and cases per space, the same differences, defect classes (with their findings
// counts, witnesses and defects) and checks (mergedView). A checkpoint of another campaign is refused.
func TestCheckpointResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two exhaustive sweeps with a planted candidate three times each")
	}
	faults := string(planted.Lenient) + "," + string(planted.RawSlash)
	name := planted.New(planted.Lenient, planted.RawSlash).Name()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	for _, sweep := range [][]string{
		{"--exhaustive", "--max-len", "2", "--impl", name + ",generic", "--workers", "2"},
		{"--exhaustive", "--max-len", "3", "--ops", "decode,utf8_decode", "--impl", name + ",swar", "--workers", "2"},
	} {
		code, whole, errs, took := runMain(t, faults, 0, append(sweep, "--json")...)
		require.Equal(t, 1, code, errs)
		want := decodeView(t, whole)
		require.NotEmpty(t, want.Classes)

		ck := filepath.Join(t.TempDir(), "ck.json")
		args := append(append([]string{}, sweep...), "--json", "--checkpoint", ck)
		at := time.Duration(rng.Int64N(int64(took*8/10))) + 20*time.Millisecond
		t.Logf("%v: uninterrupted %v; SIGINT after %v", sweep, took.Round(time.Millisecond), at)
		code, first, errs, _ := runMain(t, faults, at, args...)
		var part mergedView
		require.NoError(t, json.Unmarshal([]byte(first), &part), errs)
		if part.Interrupted {
			assert.Contains(t, errs, "difffuzz: checkpoint written to "+ck+": run the same command again to continue")
			assert.Contains(t, []int{1, 2}, code)
		} else {
			t.Logf("the run ended before the interrupt (during triage, or before the signal)")
		}
		code, resumed, errs, _ := runMain(t, faults, 0, args...)
		require.Equal(t, 1, code, errs)
		assert.Equal(t, want, decodeView(t, resumed), "resumed after SIGINT at %v", at)

		// The same file with another campaign is refused.
		other := append([]string{}, sweep...)
		for i := range other {
			if other[i] == "--max-len" {
				other[i+1] = "1"
			}
		}
		code, _, errs, _ = runMain(t, faults, 0, append(other, "--checkpoint", ck)...)
		assert.Equal(t, 2, code)
		assert.True(t, strings.HasPrefix(errs, "difffuzz: --checkpoint "+ck+": written by another campaign (") && strings.Count(errs, "\n") == 1, errs)
	}
}
