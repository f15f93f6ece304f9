package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/internal/planted"
	"github.com/difffuzz/difffuzz/internal/testlevel"
)

// withPlanted makes --impl NAME resolve to a built-in candidate with the planted faults, for the
// length of the test.
func withPlanted(t *testing.T, faults ...planted.Fault) string {
	name, undo := plantCandidate(faults...)
	t.Cleanup(undo)
	return name
}

// mainEnv, set to a list of planted faults, makes the test binary run as difffuzz (its
// arguments are difffuzz's) with a built-in candidate that has those faults.
const mainEnv = "DIFFFUZZ_TEST_MAIN"

// noFaults as mainEnv's value runs difffuzz with no planted candidate.
const noFaults = "none"

// plantedMain is main with a planted candidate (mainEnv).
func plantedMain(faults string) int {
	if faults != noFaults {
		fs, err := planted.Parse(faults)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		plantCandidate(fs...)
	}
	ctx, stop := processSignals()
	defer stop()
	return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// plantCandidate makes --impl NAME resolve to a built-in candidate with the planted faults, and
// returns NAME and the function that undoes it.
func plantCandidate(faults ...planted.Fault) (string, func()) {
	p := planted.New(faults...)
	im := fuzz.Impl{Name: p.Name(), Escape: p.Escape, NextChar: p.NextChar, UTF8Decode: p.UTF8Decode}
	old := campaignCandidates
	campaignCandidates = func(list string) ([]fuzz.Impl, error) {
		var out []fuzz.Impl
		for _, name := range strings.Split(list, ",") {
			if name == im.Name {
				out = append(out, im)
				continue
			}
			c, err := old(name)
			if err != nil {
				return nil, err
			}
			out = append(out, c...)
		}
		return out, nil
	}
	return im.Name, func() { campaignCandidates = old }
}

// mergedView is what must be the same in a sweep's merged shards and in the unsharded run, and
// in a resumed run and an uninterrupted one.
type mergedView struct {
	Spaces []struct {
		Space, Op                   string
		Len                         int
		Strings, Cases, Differences uint64
		Complete                    bool
	}
	Differences uint64
	Classes     []struct {
		ID, Op, Impl, Kind, Rule, Shape string
		Flags                           uint32
		Findings                        uint64
		Spaces                          map[string]uint64
		Kinds                           map[string]uint64
		Minimized                       bool
		Witness                         struct{ Input string }
		Defect                          int
		DefectTitle                     string `json:"defect_title"`
	}
	Checks []struct {
		Space, Op, Impl string
		Cases, Findings uint64
		Failed          bool
		Classes         []string
	}
	Passed, Failed int
	Shard          struct{ Index, Count int }
	Interrupted    bool
}

func decodeView(t *testing.T, data string) mergedView {
	t.Helper()
	var v mergedView
	require.NoError(t, json.Unmarshal([]byte(data), &v), data)
	return v
}

// Shards 0/4..3/4 of an exhaustive sweep of a candidate with three planted faults, merged, are
// the unsharded run: the same spaces and counts, the same defect classes with the same
// witnesses, ids and defects (further witnesses may differ: the smallest of every shard's), the same checks and closing line. merge refuses a missing or
// duplicated shard, a shard of another sweep and a file that is not a report.
//
// The default tier merges decode's 1–3-byte spaces of a candidate with three decoder faults (3.7
// million findings, 3 defects in 4 classes); the long tier (internal/testlevel) the 1–2-byte
// spaces of every operation with three faults and 6 million findings each (about two minutes).
func TestMergeShards(t *testing.T) {
	if testing.Short() {
		t.Skip("six exhaustive runs (the default tier runs them)")
	}
	faults, wantHeadlines := []planted.Fault{planted.Lenient, planted.Overlong, planted.Surrogate}, 3+1+4 // defects, table header, classes
	args, other := []string{"--exhaustive", "--max-len", "3", "--ops", "decode"}, []string{"--exhaustive", "--max-len", "2", "--ops", "decode"}
	if testlevel.Long() {
		faults, wantHeadlines = []planted.Fault{planted.RawSlash, planted.Lenient, planted.LowerHexTag}, 3+1+5
		args, other = []string{"--exhaustive", "--max-len", "2"}, []string{"--exhaustive", "--max-len", "1"}
	}
	name := withPlanted(t, faults...)
	dir := t.TempDir()
	args = append(args, "--impl", name+",generic", "--workers", "2")
	code, whole, errs := runArgs(t, "", append(args, "--json")...)
	require.Equal(t, 1, code, errs)
	want := decodeView(t, whole)
	require.GreaterOrEqual(t, len(want.Classes), 3, whole)

	var files []string
	for k := 0; k < 4; k++ {
		code, out, errs := runArgs(t, "", append(args, "--json", "--shard", fmt.Sprintf("%d/4", k))...)
		require.Contains(t, []int{0, 1}, code, errs)
		f := filepath.Join(dir, fmt.Sprintf("shard-%d.json", k))
		require.NoError(t, os.WriteFile(f, []byte(out), 0o644))
		files = append(files, f)
	}
	// Given in any order.
	code, merged, errs := runArgs(t, "", append([]string{"merge", "--json"}, files[3], files[1], files[0], files[2])...)
	require.Equal(t, 1, code, errs)
	got := decodeView(t, merged)
	assert.Equal(t, want.Spaces, got.Spaces)
	assert.Equal(t, want.Differences, got.Differences)
	assert.Equal(t, want.Classes, got.Classes)
	assert.Equal(t, want.Checks, got.Checks)
	assert.Equal(t, [2]int{want.Passed, want.Failed}, [2]int{got.Passed, got.Failed})
	assert.Equal(t, struct{ Index, Count int }{0, 1}, got.Shard)
	assert.Contains(t, merged, `"merged_from": 4`)

	// The terminal report: the same defects and closing line as the unsharded run's.
	_, wholeText, _ := runArgs(t, "", args...)
	code, text, errs := runArgs(t, "", append([]string{"merge"}, files...)...)
	require.Equal(t, 1, code, errs)
	assert.Equal(t, lastLine(wholeText), lastLine(text))
	// The defect titles and the class table; the further witnesses ("more") are the smallest
	// of every shard's, which can be others than a single run keeps.
	headlines := func(s string) []string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "DEFECT ") || strings.HasPrefix(l, "D") || strings.HasPrefix(l, "class ") {
				out = append(out, l)
			}
		}
		return out
	}
	assert.Equal(t, headlines(wholeText), headlines(text))
	assert.Len(t, headlines(text), wantHeadlines, text)

	otherFile := filepath.Join(dir, "other.json")
	_, out, _ := runArgs(t, "", append(other, "--impl", name+",generic", "--json", "--shard", "1/4")...)
	require.NoError(t, os.WriteFile(otherFile, []byte(out), 0o644))
	notReport := filepath.Join(dir, "not.json")
	require.NoError(t, os.WriteFile(notReport, []byte(`{"spaces": []}`), 0o644))
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{files[:3], "difffuzz: merge: shard 3/4 missing (3 of 4 shards given)"},
		{[]string{files[0], files[2]}, "difffuzz: merge: shards 1/4, 3/4 missing (2 of 4 shards given)"},
		{append(append([]string{}, files...), files[2]), "difffuzz: merge: shard 2/4 is given twice: " + files[2] + " and " + files[2]},
		{[]string{files[0], otherFile, files[2], files[3]}, "difffuzz: merge: " + otherFile + " is not of the sweep of " + files[0] + ": its configuration is"},
		{[]string{notReport}, "difffuzz: merge: " + notReport + ": not a difffuzz --json report (no version, config or shard)"},
		{[]string{filepath.Join(dir, "none.json")}, "difffuzz: merge: open " + filepath.Join(dir, "none.json") + ": no such file or directory"},
		{nil, "difffuzz: merge: no report given"},
	} {
		code, out, errs := runArgs(t, "", append([]string{"merge"}, tc.files...)...)
		assert.Equal(t, 2, code, "%v", tc.files)
		assert.Empty(t, out)
		assert.True(t, strings.HasPrefix(errs, tc.want) && strings.Count(errs, "\n") == 1, "merge %v:\n%s", tc.files, errs)
	}
}

// merge refuses a report whose counts do not add up, a device or FIFO, a --junit that is one
// of its inputs, and names at most ten missing shards.
func TestMergeRefuses(t *testing.T) {
	name := withPlanted(t, planted.RawSlash)
	dir := t.TempDir()
	code, out, errs := runArgs(t, "", "--exhaustive", "--max-len", "1", "--ops", "escape", "--impl", name, "--json")
	require.Equal(t, 1, code, errs)
	good := filepath.Join(dir, "good.json")
	require.NoError(t, os.WriteFile(good, []byte(out), 0o644))
	edited := filepath.Join(dir, "edited.json")
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	m["differences"] = 0
	b, _ := json.Marshal(m)
	require.NoError(t, os.WriteFile(edited, b, 0o644))
	many := filepath.Join(dir, "many.json")
	m["differences"], m["shard"] = m["spaces"].([]any)[0].(map[string]any)["differences"], map[string]int{"index": 0, "count": 100000000}
	b, _ = json.Marshal(m)
	require.NoError(t, os.WriteFile(many, b, 0o644))
	v1 := filepath.Join(dir, "v1.json") // version 1 carried its findings and classes again under records
	require.NoError(t, os.WriteFile(v1, []byte(`{"version": 1, "config": "x", "shard": {"index": 0, "count": 1}, "records": {"findings": []}}`), 0o644))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{edited}, "difffuzz: merge: " + edited + ": its spaces hold 1,024 differences and its classes 1,024 findings, but it reports 0 differences (edited, or not written whole?)"},
		{[]string{"--junit", good, good}, "difffuzz: merge: --junit " + good + " is one of the reports merged: it would be overwritten"},
		{[]string{v1}, "difffuzz: merge: " + v1 + ": report version 1, this difffuzz reads version 2"},
		{[]string{"/dev/null"}, "difffuzz: merge: /dev/null: not a regular file"},
		{[]string{fifo}, "difffuzz: merge: " + fifo + ": not a regular file"},
		{[]string{many}, "difffuzz: merge: shards 1/100000000, 2/100000000, 3/100000000, 4/100000000, 5/100000000, 6/100000000, 7/100000000, 8/100000000, 9/100000000, 10/100000000 and 99999989 more missing (1 of 100000000 shards given)"},
	} {
		code, out, errs := runArgs(t, "", append([]string{"merge"}, tc.args...)...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Empty(t, out)
		assert.Equal(t, tc.want+"\n", errs, "%v", tc.args)
	}
	code, _, errs = runArgs(t, "", "merge", good)
	assert.Equal(t, 1, code, errs)
}

// Edited shard reports that are each well formed but do not merge (issue 33 #16): counts that
// wrap past 2^64 across shards, a class of an unknown op, a space listed twice in one shard
// (its strings counted twice). Each was merged and printed before. A space not complete in its
// shard merges, but the merge does not pass (it exited 0).
func TestMergeRefusesEdited(t *testing.T) {
	if testing.Short() {
		t.Skip("two exhaustive 3-byte shards")
	}
	lenient := withPlanted(t, planted.Lenient)
	var shards []string
	for k := range 2 {
		code, out, errs := runArgs(t, "", "--exhaustive", "--max-len", "3", "--ops", "decode", "--impl", lenient, "--json", "--shard", fmt.Sprintf("%d/2", k))
		require.Equal(t, 1, code, errs)
		shards = append(shards, out)
	}
	edit := func(out string, change func(m map[string]any)) string {
		d := json.NewDecoder(strings.NewReader(out))
		d.UseNumber()
		var m map[string]any
		require.NoError(t, d.Decode(&m))
		change(m)
		b, err := json.Marshal(m)
		require.NoError(t, err)
		f := filepath.Join(t.TempDir(), "shard.json")
		require.NoError(t, os.WriteFile(f, b, 0o644))
		return f
	}
	wrapped := edit(shards[0], func(m map[string]any) {
		sp := m["spaces"].([]any)
		sp[len(sp)-1].(map[string]any)["cases"] = json.Number("18446744073709551615") // the 3-byte space both shards hold
	})
	frob := edit(shards[0], func(m map[string]any) {
		m["classes"].([]any)[0].(map[string]any)["op"] = "frob"
	})
	// A space listed twice in one shard (its strings counted twice); a space of one shard not
	// complete, without the report saying it was interrupted.
	twice := edit(shards[0], func(m map[string]any) {
		m["spaces"] = append(m["spaces"].([]any), m["spaces"].([]any)[0])
	})
	incomplete := edit(shards[0], func(m map[string]any) {
		m["spaces"].([]any)[0].(map[string]any)["complete"] = false
	})
	other := edit(shards[1], func(map[string]any) {})
	for _, tc := range []struct{ file, want string }{
		{wrapped, "add up past 2^64"},
		{frob, `class "frob"`},
		{twice, "is listed twice"},
	} {
		code, out, errs := runArgs(t, "", "merge", tc.file, other)
		assert.Equal(t, 2, code, "%s: %s", tc.want, out)
		assert.Regexp(t, `^difffuzz: merge: .*`+regexp.QuoteMeta(tc.want)+`.*\n$`, errs)
	}
	// The incomplete space merges (the summary says it), but the merge does not pass: exit 2
	// without differences (it was 0), 1 with them.
	code, _, errs := runArgs(t, "", "merge", incomplete, other)
	assert.Equal(t, 1, code, "differences still win: %s", errs)
	assert.Contains(t, errs, "difffuzz: merge: a space is not complete in its shard")
	var clean []string
	for k := range 2 {
		code, out, errs := runArgs(t, "", "--exhaustive", "--max-len", "3", "--ops", "decode", "--impl", "generic", "--json", "--shard", fmt.Sprintf("%d/2", k))
		require.Equal(t, 0, code, errs)
		clean = append(clean, out)
	}
	cut := edit(clean[0], func(m map[string]any) { m["spaces"].([]any)[0].(map[string]any)["complete"] = false })
	code, _, errs = runArgs(t, "", "merge", cut, edit(clean[1], func(map[string]any) {}))
	assert.Equal(t, 2, code, errs)
	assert.Contains(t, errs, "difffuzz: merge: a space is not complete in its shard")
}
