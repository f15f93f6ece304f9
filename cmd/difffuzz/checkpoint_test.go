package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/campaign"
	"github.com/difffuzz/difffuzz/internal/planted"
	"github.com/difffuzz/difffuzz/internal/testlevel"
	"github.com/difffuzz/difffuzz/report"
)

// runMain runs the test binary as difffuzz with a planted candidate (mainEnv); with interrupt
// > 0 it sends SIGINT that long after the run's first line on stderr (difffuzz catches the
// signal from then on: on a busy machine a process can take longer than interrupt to get
// there). It returns the exit code, stdout, stderr and how long the run took.
func runMain(t *testing.T, faults string, interrupt time.Duration, args ...string) (int, string, string, time.Duration) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), mainEnv+"="+faults)
	var out bytes.Buffer
	errb := &firstWrite{}
	cmd.Stdout, cmd.Stderr = &out, errb
	if interrupt > 0 {
		errb.then = func() {
			timer := time.AfterFunc(interrupt, func() { _ = cmd.Process.Signal(syscall.SIGINT) })
			t.Cleanup(func() { timer.Stop() })
		}
	}
	start := time.Now()
	require.NoError(t, cmd.Start())
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return code, out.String(), errb.String(), time.Since(start)
}

// firstWrite is a buffer that calls then once, at its first write. (The buffer is a field, not
// embedded: an embedded bytes.Buffer's ReadFrom would let io.Copy bypass Write.)
type firstWrite struct {
	buf  bytes.Buffer
	once sync.Once
	then func()
}

func (w *firstWrite) Write(p []byte) (int, error) {
	if w.then != nil {
		w.once.Do(w.then)
	}
	return w.buf.Write(p)
}

func (w *firstWrite) String() string { return w.buf.String() }

// An exhaustive sweep interrupted by SIGINT at a random point and resumed with the same
// command and --checkpoint file reports exactly the counts of an uninterrupted run: the same
// strings and cases per space, the same differences, defect classes (with their findings
// counts, witnesses and defects) and checks (mergedView). A checkpoint of another campaign is
// refused. The default tier resumes small spaces (below); the long tier (internal/testlevel)
// resumes a planted candidate's --max-len 2 sweep of every operation, both decoders' --max-len
// 3 spaces and the whole --max-len 3 sweep (about 8 minutes in all).
func TestCheckpointResume(t *testing.T) {
	if testing.Short() {
		t.Skip("three runs of each sweep (about a minute; the default tier runs it)")
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	type sweep struct {
		faults []planted.Fault
		sweep  []string // the candidates (--impl) are the planted one (if faults), then these
	}
	sweeps := []sweep{
		// The decoders' 1–2-byte spaces with findings (a planted candidate's escaper runs at the
		// oracle's speed: its 134 million 2-byte cases take the long tier), the 3-byte space of
		// one operation, which resumes lead byte by lead byte, and escape's 1–2-byte spaces
		// under all 2,048 option sets with a built-in.
		{[]planted.Fault{planted.Lenient, planted.RawSlash}, []string{"--exhaustive", "--max-len", "2", "--ops", "decode,utf8_decode", "--workers", "2", "--impl", ",generic"}},
		{[]planted.Fault{planted.Lenient, planted.RawSlash}, []string{"--exhaustive", "--max-len", "3", "--ops", "decode", "--workers", "2", "--impl", ",swar"}},
		{nil, []string{"--exhaustive", "--max-len", "2", "--ops", "escape", "--workers", "2", "--impl", "swar"}},
	}
	if testlevel.Long() {
		sweeps = []sweep{
			{[]planted.Fault{planted.Lenient, planted.RawSlash}, []string{"--exhaustive", "--max-len", "2", "--workers", "2", "--impl", ",generic"}},
			{[]planted.Fault{planted.Lenient, planted.RawSlash}, []string{"--exhaustive", "--max-len", "3", "--ops", "decode,utf8_decode", "--workers", "2", "--impl", ",swar"}},
			// The whole --max-len 3 sweep: every operation, escape under all 2,048 option sets
			// (17.3e9 cases, about 3.5 minutes on 2 cores with swar), so the signal mostly lands
			// inside escape's 3-byte space, which resumes lead byte by lead byte. No planted
			// candidate here: its escaper (the oracle's, a byte at a time) would take three times as
			// long; the sweeps above resume findings and classes.
			{nil, []string{"--exhaustive", "--max-len", "3", "--workers", "2", "--impl", "swar"}},
		}
	}
	for _, tc := range sweeps {
		var names []string
		for _, f := range tc.faults {
			names = append(names, string(f))
		}
		faults, wantCode := strings.Join(names, ","), 1
		sweep := slices.Clone(tc.sweep)
		if faults != "" {
			sweep[len(sweep)-1] = planted.New(tc.faults...).Name() + sweep[len(sweep)-1]
		} else {
			faults, wantCode = noFaults, 0
		}
		code, whole, errs, took := runMain(t, faults, 0, append(sweep, "--json")...)
		require.Equal(t, wantCode, code, errs)
		want := decodeView(t, whole)
		assert.Equal(t, wantCode == 1, len(want.Classes) > 0)

		ck := filepath.Join(t.TempDir(), "ck.json")
		args := append(append([]string{}, sweep...), "--json", "--checkpoint", ck)
		at := time.Duration(rng.Int64N(int64(took*8/10))) + 20*time.Millisecond
		t.Logf("%v: uninterrupted %v; SIGINT after %v", sweep, took.Round(time.Millisecond), at)
		code, first, errs, _ := runMain(t, faults, at, args...)
		var part mergedView
		switch {
		case first == "" && strings.Contains(errs, "difffuzz: interrupted while reading the checkpoint back: "+ck+" is saved as it was read"):
			// A small space's interrupt can land before the campaign starts: one line, exit 2,
			// the checkpoint kept; the resumed run below must still match the uninterrupted one.
			assert.Equal(t, 2, code, errs)
			t.Logf("interrupted before the campaign started")
		case json.Unmarshal([]byte(first), &part) != nil:
			t.Fatalf("the interrupted run's stdout is not a report (exit %d):\n%s\nstderr:\n%s", code, first, errs)
		case part.Interrupted:
			assert.Contains(t, errs, "difffuzz: checkpoint written to "+ck+": run the same command again to continue")
			assert.Contains(t, []int{wantCode, 2}, code)
		default:
			t.Logf("the run ended before the interrupt (during triage, or before the signal)")
		}
		code, resumed, errs, _ := runMain(t, faults, 0, args...)
		require.Equal(t, wantCode, code, errs)
		assert.Equal(t, want, decodeView(t, resumed), "resumed after SIGINT at %v", at)
		// The total time covers the earlier run too, as each space's row does.
		var times struct {
			Elapsed time.Duration `json:"elapsed_ns"`
			Spaces  []struct {
				Elapsed time.Duration `json:"elapsed_ns"`
			} `json:"spaces"`
		}
		require.NoError(t, json.Unmarshal([]byte(resumed), &times))
		for _, sp := range times.Spaces {
			assert.GreaterOrEqual(t, times.Elapsed, sp.Elapsed, "the resumed run's total time is less than one of its spaces'")
		}

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

// An --exec target's exhaustive space interrupted by SIGINT and resumed with the same command
// and --checkpoint file is resumed unit by unit (fuzz.ExhaustiveUnit, as the built-ins' are) and
// reports exactly the counts of an uninterrupted run: the same strings, cases and differences
// per space, the same defect classes and checks. The space is decode's 3-byte one, shard 1 of 4
// (16 units of 262,144 cases, a few seconds of a planted target).
func TestCheckpointResumeTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("three runs of a target's 4-million-case space (about 20 s; the default tier runs it)")
	}
	target := planted.Command(os.Args[0], planted.Lenient)
	sweep := []string{"--exhaustive", "--max-len", "3", "--ops", "decode", "--shard", "1/4", "--exec", target, "--json"}
	code, whole, errs, took := runMain(t, noFaults, 0, sweep...)
	require.Equal(t, 1, code, errs)
	want := decodeView(t, whole)
	require.Len(t, want.Spaces, 3)
	require.NotEmpty(t, want.Classes)

	ck := filepath.Join(t.TempDir(), "ck.json")
	args := append(slices.Clone(sweep), "--checkpoint", ck)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 34))
	at := took/5 + time.Duration(rng.Int64N(int64(took*3/5)))
	t.Logf("uninterrupted %v; SIGINT after %v", took.Round(time.Millisecond), at)
	code, first, errs, _ := runMain(t, noFaults, at, args...)
	var part mergedView
	if first != "" {
		require.NoError(t, json.Unmarshal([]byte(first), &part), "exit %d\n%s", code, errs)
	}
	var st campaign.State
	data, err := os.ReadFile(ck)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &st))
	units := 0
	for _, spaces := range st.Targets {
		for _, sp := range spaces {
			units += len(sp.Done)
		}
	}
	t.Logf("interrupted: %v, %d units of the target's spaces done", part.Interrupted, units)

	code, resumed, errs, _ := runMain(t, noFaults, 0, args...)
	require.Equal(t, 1, code, errs)
	assert.Equal(t, want, decodeView(t, resumed), "resumed after SIGINT at %v", at)
	if part.Interrupted && units > 0 {
		assert.Contains(t, errs, fmt.Sprintf(", %s of the targets' done", report.Plural(uint64(units), "unit")))
	}
}

// witnessView is what a resumed run of a crashing target must count as the uninterrupted run
// did: each space's cases, those not sent (they contain the crash witness) and its
// differences, and each class's findings and not-sent inputs.
type witnessView struct {
	Spaces []struct {
		Op                          string
		Len                         int
		Strings, Cases, Differences uint64
		NotRun                      uint64 `json:"not_run"`
	}
	Differences uint64
	Classes     []struct {
		ID, Op, Kind string
		Findings     uint64
		NotRun       uint64 `json:"not_run"`
	}
}

// TestCheckpointResumeWitness: a target that crashes on a byte (its witness keeps thousands of
// inputs from being sent), interrupted and resumed from its checkpoint, counts what the
// uninterrupted run counts: one crash finding, the same inputs not sent, no second crash. (The
// witness is kept in the checkpoint with the units done; without it the resumed run crashed
// again, reported 2 findings and 5,664 fewer inputs not sent.)
func TestCheckpointResumeWitness(t *testing.T) {
	if testing.Short() {
		t.Skip("three runs of a crashing target's 2-million-case space (about 10 s; the default tier runs it)")
	}
	target := planted.Command(os.Args[0], planted.Crash)
	sweep := []string{"--exhaustive", "--max-len", "3", "--ops", "utf8_decode", "--shard", "0/8", "--exec", target, "--json"}
	view := func(out string) witnessView {
		var v witnessView
		require.NoError(t, json.Unmarshal([]byte(out), &v), out)
		return v
	}
	code, whole, errs, took := runMain(t, noFaults, 0, sweep...)
	require.Equal(t, 1, code, errs)
	want := view(whole)
	require.Len(t, want.Classes, 1)
	require.Equal(t, "target-crashed", want.Classes[0].Kind)
	require.Greater(t, want.Classes[0].NotRun, uint64(10000))

	ck := filepath.Join(t.TempDir(), "ck.json")
	args := append(slices.Clone(sweep), "--checkpoint", ck)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 36))
	at := took/4 + time.Duration(rng.Int64N(int64(took/2)))
	t.Logf("uninterrupted %v; SIGINT after %v", took.Round(time.Millisecond), at)
	runMain(t, noFaults, at, args...)
	data, err := os.ReadFile(ck)
	require.NoError(t, err)
	var st campaign.State
	require.NoError(t, json.Unmarshal(data, &st))
	code, resumed, errs, _ := runMain(t, noFaults, 0, args...)
	require.Equal(t, 1, code, errs)
	assert.Equal(t, want, view(resumed), "resumed after SIGINT at %v (%d witnesses kept)", at, len(st.Witnesses))
	// The time said is the interrupted run's, not the resume's own first write.
	assert.Contains(t, errs, "resuming the run written "+st.Written.Format(time.RFC3339)+":")
}

// A damaged, edited or busy checkpoint is refused with one line and exit 2, never a panic, and
// never resumed into a report that lost findings.
func TestCheckpointDamage(t *testing.T) {
	// A decoder that does not check continuation bytes: thousands of findings in the 65,792
	// strings of decode's 1–2-byte space, which takes a fraction of a second (escape's, under
	// 2,048 option sets, took 15 s).
	name := withPlanted(t, planted.Lenient)
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	args := []string{"--exhaustive", "--max-len", "2", "--ops", "decode", "--impl", name}
	code, _, errs := runArgs(t, "", append(args, "--checkpoint", base)...)
	require.Equal(t, 1, code, errs)
	data, err := os.ReadFile(base)
	require.NoError(t, err)
	logData, err := os.ReadFile(base + ".findings")
	require.NoError(t, err)
	require.Greater(t, bytes.Count(logData, []byte("\n")), 1000)

	for _, tc := range []struct {
		name   string
		edit   func(ck, log string) // edits the copies
		want   string
		unseal bool // the checkpoint's own checksum left as it was (else made again after the edit)
	}{
		{"a null space", func(ck, log string) { replaceIn(t, ck, `"decode/2": {`, `"decode/2": null, "x": {`) }, "space \"decode/2\" is empty", false},
		{"a witness that is no finding", func(ck, log string) {
			replaceIn(t, ck, `"spaces": {`, `"witnesses": {"t": [{"finding": {"op": "nope", "input": "fe"}}]}, "spaces": {`)
		}, `target "t", witness 1: `, false},
		{"a culprit that is not hex", func(ck, log string) {
			replaceIn(t, ck, `"spaces": {`, `"witnesses": {"t": [{"finding": {"op": "utf8_decode", "kind": "target-crashed", "impl": "t", "input": "fe"}, "also": ["zz"]}]}, "spaces": {`)
		}, `target "t", witness 1: culprit "zz" is not hex`, false},
		{"a space under another key", func(ck, log string) { replaceIn(t, ck, `"decode/2": {`, `"utf8_decode/2": {`) }, `space "utf8_decode/2" holds op "decode", length 2`, false},
		{"a log elsewhere", func(ck, log string) { replaceIn(t, ck, `"log": "ck.json.findings"`, `"log": "../victim.txt"`) }, `its findings log is "../victim.txt", not ck.json.findings[.N] beside it`, false},
		{"a log cut at a line", func(ck, log string) {
			b, _ := os.ReadFile(log)
			require.NoError(t, os.WriteFile(log, b[:bytes.IndexByte(b, '\n')+1], 0o644))
		}, "bytes, the checkpoint vouches for", false},
		{"an emptied log", func(ck, log string) { require.NoError(t, os.WriteFile(log, nil, 0o644)) }, "0 bytes, the checkpoint vouches for", false},
		{"a line less, same size", func(ck, log string) {
			b, _ := os.ReadFile(log)
			i := bytes.IndexByte(b, '\n')
			b = append(b[:i], b[i+1:]...) // two lines made one: same length less a byte
			require.NoError(t, os.WriteFile(log, append(b, ' '), 0o644))
		}, "findings log ck.json.findings, line 1:", false},
		// Issue 33 #17: a part of no mode was accepted silently.
		{"a part of no mode", func(ck, log string) { replaceIn(t, ck, `"parts": {}`, `"parts": {"frob": {}}`) }, `part "frob" is of no mode difffuzz has`, false},
		// A checkpoint of version 2 holds findings in the record layout of --json version 1.
		{"a checkpoint of version 2", func(ck, log string) {
			replaceIn(t, ck, `"version": 3`, `"version": 2`)
			replaceIn(t, ck, `"parts": {}`, `"parts": {"boundary": {"findings": [{"want_step": {"CP": 0, "Advance": 1, "OK": false}}]}}`)
		}, "checkpoint version 2, this difffuzz reads version 3", false},
		{"a checkpoint that is a directory", func(ck, log string) { require.NoError(t, os.Remove(ck)); require.NoError(t, os.Mkdir(ck, 0o755)) }, "not a regular file", false},
		// Issue 33 #8: edits that keep the file well formed, each resumed before into a report
		// that merge then refused as inconsistent.
		{"a space's differences + 1", func(ck, log string) { replaceIn(t, ck, `"differences": `, `"differences": 1`) }, "edited or damaged", true},
		{"a findings line deleted, log_lines and log_bytes adjusted", func(ck, log string) {
			b, _ := os.ReadFile(log)
			i := bytes.IndexByte(b, '\n')
			require.NoError(t, os.WriteFile(log, b[i+1:], 0o644))
			var st campaign.State
			c, _ := os.ReadFile(ck)
			require.NoError(t, json.Unmarshal(c, &st))
			st.LogBytes -= int64(i + 1)
			st.LogLines--
			c, _ = json.MarshalIndent(st, "", " ")
			require.NoError(t, os.WriteFile(ck, c, 0o644))
		}, "are not those the checkpoint vouches for", false},
		{"a findings line duplicated, log_lines and log_bytes adjusted", func(ck, log string) {
			b, _ := os.ReadFile(log)
			i := bytes.IndexByte(b, '\n')
			require.NoError(t, os.WriteFile(log, append(append([]byte(nil), b[:i+1]...), b...), 0o644))
			var st campaign.State
			c, _ := os.ReadFile(ck)
			require.NoError(t, json.Unmarshal(c, &st))
			st.LogBytes += int64(i + 1)
			st.LogLines++
			c, _ = json.MarshalIndent(st, "", " ")
			require.NoError(t, os.WriteFile(ck, c, 0o644))
		}, "are not those the checkpoint vouches for", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			ck := filepath.Join(d, "ck.json")
			require.NoError(t, os.WriteFile(ck, bytes.ReplaceAll(data, []byte("base.json.findings"), []byte("ck.json.findings")), 0o644))
			reseal(t, ck)
			require.NoError(t, os.WriteFile(ck+".findings", logData, 0o644))
			tc.edit(ck, ck+".findings")
			if !tc.unseal {
				reseal(t, ck) // so that the check the case is about is reached
			}
			code, out, errs := runArgs(t, "", append(args, "--checkpoint", ck)...)
			assert.Equal(t, 2, code, errs)
			assert.Empty(t, out)
			assert.True(t, strings.HasPrefix(errs, "difffuzz: --checkpoint "+ck) && strings.Count(errs, "\n") == 1, "%s", errs)
			assert.Contains(t, errs, tc.want)
		})
	}

	// A checkpoint in use by another run is refused.
	other, err := campaign.Open(base, "x", "0/1", false, modeNames(), nil)
	if err == nil {
		defer other.Close()
	}
	require.Error(t, err, "the config differs: refused before the lock")
	busy := filepath.Join(dir, "busy.json")
	ck, err := campaign.Open(busy, "c", "0/1", false, modeNames(), nil)
	require.NoError(t, err)
	_, err = campaign.Open(busy, "c", "0/1", false, modeNames(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "another difffuzz is using it")
	require.NoError(t, ck.Close())

	// Two outputs that are one file (issue 33 #7: through a link to a file not yet written).
	require.NoError(t, os.Symlink("same3", filepath.Join(dir, "link3")))
	for _, extra := range [][]string{
		{"--junit", filepath.Join(dir, "same"), "--findings", filepath.Join(dir, "same")},
		{"--junit", filepath.Join(dir, "same3"), "--findings", filepath.Join(dir, "link3")},
		{"--checkpoint", filepath.Join(dir, "c.json"), "--junit", filepath.Join(dir, "c.json.findings")},
		{"--checkpoint", filepath.Join(dir, "c.json"), "--findings", filepath.Join(dir, "c.json")},
	} {
		code, _, errs := runArgs(t, "", append(args, extra...)...)
		assert.Equal(t, 2, code, "%v", extra)
		assert.Regexp(t, `^difffuzz: --\S+( \S+)* and --\S+( \S+)* are the same file \(.*\): one would overwrite the other\n$`, errs)
	}
	// Issue 33 #14: a name the findings log takes when a resume compacts it.
	code, _, errs = runArgs(t, "", append(args, "--checkpoint", filepath.Join(dir, "ck"), "--findings", filepath.Join(dir, "ck.findings.1"))...)
	assert.Equal(t, 2, code)
	assert.Regexp(t, `^difffuzz: --findings .*ck.findings.1 is a name the checkpoint's findings log takes`, errs)
}

// reseal makes the checksum of the checkpoint at path again, when it is one (a checkpoint
// edited on purpose, to reach the checks after the checksum's).
func reseal(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var st campaign.State
	if json.Unmarshal(b, &st) != nil {
		return
	}
	sum, _, err := st.Checksum()
	require.NoError(t, err)
	st.Sum = sum
	b, err = json.MarshalIndent(st, "", " ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
}

func replaceIn(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(b), old)
	require.NoError(t, os.WriteFile(path, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644))
}

// An interrupted run names the spaces it had not begun: its summary and checks cover only what
// was checked, so "0 checks passed, 1 failed" must not read as the whole campaign.
func TestInterruptNamesSpacesNotBegun(t *testing.T) {
	if testing.Short() {
		t.Skip("a sweep of several seconds, interrupted")
	}
	// The interrupt may land in the plan's calibration (nothing begun) or in any space but the
	// last: utf8_decode's 3-byte space, seconds long, has not begun.
	code, _, errs, _ := runMain(t, "lenient", time.Second, "--exhaustive", "--max-len", "3", "--ops", "decode,utf8_decode", "--impl", "lenient")
	require.NotEqual(t, 0, code, errs)
	require.Contains(t, errs, "difffuzz: interrupted: the summary covers what was checked before the interrupt")
	line := ""
	for _, l := range strings.Split(errs, "\n") {
		if strings.HasPrefix(l, "difffuzz: not begun, so neither passed nor failed: ") {
			line = l
		}
	}
	require.NotEmpty(t, line, errs)
	assert.True(t, strings.HasSuffix(line, "exhaustive utf8_decode len 3"), "the last space is named last: %s", line)
}

// A checkpoint names the --random count it was written for: a finished 10-input run does not
// pass for a 20-input one with the same seed (the flag printed as given; it once printed as
// empty, and the second run reported the first's 10 strings as done, exit 0).
func TestCheckpointRandomCount(t *testing.T) {
	ck := filepath.Join(t.TempDir(), "ck")
	args := []string{"--seed", "5", "--ops", "utf8_decode", "--impl", "generic", "--checkpoint", ck}
	code, _, errs, _ := runMain(t, string(planted.RawSlash), 0, append([]string{"--random", "10x"}, args...)...)
	require.Equal(t, 0, code, errs)
	code, _, errs, _ = runMain(t, string(planted.RawSlash), 0, append([]string{"--random", "20x"}, args...)...)
	assert.Equal(t, 2, code)
	assert.True(t, strings.HasPrefix(errs, "difffuzz: --checkpoint "+ck+": written by another campaign (") && strings.Contains(errs, "--random=10x"), errs)
}
