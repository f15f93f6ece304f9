package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/internal/planted"
	"github.com/difffuzz/difffuzz/report"
)

// TestMain lets the test binary serve as a planted target (planted.ServeFromEnv), or run as
// difffuzz itself with a planted built-in candidate (mainEnv).
func TestMain(m *testing.M) {
	planted.ServeFromEnv()
	if faults := os.Getenv(mainEnv); faults != "" {
		os.Exit(plantedMain(faults))
	}
	os.Exit(m.Run())
}

// tenFaults are ten planted faults that do not hide one another.
var tenFaults = []planted.Fault{planted.Lenient, planted.Overlong, planted.Surrogate, planted.LowerHexTag, planted.RawSlash,
	planted.UpperUnicode, planted.ControlRaw, planted.DropQuote, planted.Crash, planted.Hang}

// TestTriageReport runs the default --exec campaign against a target with ten planted faults
// and reads the report as its user does: one defect block per fault, under 300 lines, every
// raw finding in the --findings file with its class, the classes in --json, one saved witness
// per class with --out.
func TestTriageReport(t *testing.T) {
	if testing.Short() {
		t.Skip("a default --exec campaign of a million requests")
	}
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "findings.jsonl")
	cmd := planted.Command(os.Args[0], tenFaults...)
	code, out, errs := runArgs(t, "", "--exec", cmd, "--findings", jsonl, "--out", filepath.Join(dir, "out"), "--seed", "3")
	require.Equal(t, 1, code, "stderr:\n%s", errs)
	lines := strings.Count(out, "\n")
	assert.Less(t, lines, 300, "report of ten faults:\n%s", out)
	// One defect block per fault, titled by what the target does.
	defects := regexp.MustCompile(`(?m)^DEFECT \d+ of (\d+) · (.*) · [0-9,]+ findings?`).FindAllStringSubmatch(out, -1)
	require.NotEmpty(t, defects, out)
	assert.Equal(t, "10", defects[0][1], "one defect block per fault:\n%s", out)
	var titles []string
	for _, d := range defects {
		titles = append(titles, d[2])
	}
	for _, want := range []string{
		"decodes a lead without all of its continuation bytes", // lenient
		"decodes an overlong sequence", "decodes an encoded surrogate",
		"writes lower-case hex digits in HEX_* escapes", "copies the input bytes raw for the §1.3 rule 1.3-slash",
		"writes upper-case hex digits in the \\uXXXX it computes", "copies the input bytes raw for the §1.3 rule 1.3-control",
		"writes the answer without its last byte", // drop-quote: the closing quote
		"target-crashed", "target-hung",
	} {
		assert.True(t, slices.ContainsFunc(titles, func(s string) bool { return strings.HasPrefix(s, want) }), "no defect %q in %q", want, titles)
	}
	assert.Regexp(t, `not run  [0-9,]+ more inputs that contain this witness`, out)
	assert.Contains(t, errs, "per-request timeout")
	assert.Contains(t, errs, "crash or hang witnesses")

	// Every raw finding, with the class it is in.
	f, err := os.Open(jsonl)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	classes := map[string]int{}
	n := 0
	for sc.Scan() {
		var r struct {
			Class string `json:"class"`
			Kind  string `json:"kind"`
			Input string `json:"input"`
			Space string `json:"space"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		require.Regexp(t, `^D\d+$`, r.Class)
		require.NotEmpty(t, r.Space)
		classes[r.Class]++
		n++
	}
	require.NoError(t, sc.Err())
	m := regexp.MustCompile(`difffuzz: ([0-9,]+) differences in (\d+) defects \((\d+) classes\)`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	assert.Equal(t, m[1], report.Count(uint64(n)), "the findings file holds every difference")
	assert.Equal(t, defects[0][1], m[2], "the verdict counts the defect blocks")
	assert.Equal(t, m[3], report.Count(uint64(len(classes))), "and every class")
	assert.Contains(t, errs, "wrote "+m[1]+" findings to "+jsonl)

	// One saved witness per class.
	saved, err := filepath.Glob(filepath.Join(dir, "out", "*.txt"))
	require.NoError(t, err)
	assert.Len(t, saved, len(classes))
}

// TestTriageJSON checks the classes in --json for a target with two faults.
func TestTriageJSON(t *testing.T) {
	cmd := planted.Command(os.Args[0], planted.RawSlash, planted.Crash)
	code, out, errs := runArgs(t, "", "--exec", cmd, "--exhaustive", "--max-len", "1", "--json")
	require.Equal(t, 1, code, errs)
	var rep struct {
		Differences uint64 `json:"differences"`
		Classes     []struct {
			ID       string            `json:"id"`
			Op       string            `json:"op"`
			Kind     string            `json:"kind"`
			Rule     string            `json:"rule"`
			RuleSpec string            `json:"rule_spec"`
			Findings uint64            `json:"findings"`
			Spaces   map[string]uint64 `json:"spaces"`
			Witness  map[string]any    `json:"witness"`
			NotRun   uint64            `json:"not_run"`
			Defect   int               `json:"defect"`
			Title    string            `json:"defect_title"`
		} `json:"classes"`
		Targets []map[string]any `json:"targets"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	byRule := map[string]int{}
	var sum uint64
	for _, c := range rep.Classes {
		byRule[c.Op+" "+c.Kind+" "+c.Rule]++
		sum += c.Findings
		assert.NotEmpty(t, c.Witness["replay"])
	}
	assert.Equal(t, rep.Differences, sum)
	assert.Equal(t, 1, byRule["escape output-differs 1.3-slash"], "%v", byRule)
	assert.Equal(t, 1, byRule["escape target-crashed "], "%v", byRule)
	for _, c := range rep.Classes {
		if c.Rule == "1.3-slash" {
			assert.Equal(t, "2f", c.Witness["input"])
			assert.Contains(t, c.RuleSpec, "§1.3 row 0x2F")
			assert.Equal(t, "copies the input bytes raw for the §1.3 rule 1.3-slash, where PHP writes its escape · answers as if JSON_UNESCAPED_SLASHES were set", c.Title)
		}
		assert.Contains(t, []int{1, 2}, c.Defect, "two faults, two defects")
	}
	require.Len(t, rep.Targets, 1)
	assert.Equal(t, true, rep.Targets[0]["calibrated"])
}

// TestUnflushedTarget: a target that flushes its hello but not its answers (planted.Unflushed,
// the usual mistake of a Python or C stdio target on a pipe) answers nothing. The campaign gives
// up after two processes with one line that says to flush, exit 2, instead of taking every
// request for a hang of the whole timeout for hours, and reports no hang (whose witness would
// not reproduce): after its campaign line, that one line is all it prints (no table of the
// spaces nothing was checked in).
func TestUnflushedTarget(t *testing.T) {
	start := time.Now()
	code, out, errs := runArgs(t, "", "--exec", planted.Command(os.Args[0], planted.Unflushed), "--timeout", "400ms", "--seed", "1")
	assert.Equal(t, 2, code, "%s\n%s", out, errs)
	assert.Regexp(t, `\Adifffuzz: .* campaign: [^\n]*\ndifffuzz: target .*: answered its hello but not one request within 400ms, in 2 processes \(the last one asked only escape of 'a'\): it must write each answer line and flush its standard output[^\n]*\n\z`, errs)
	assert.Empty(t, out)
	assert.Less(t, time.Since(start), 3*time.Second) // two waits of 400ms
}

// TestStdoutClosedTarget: a target that closes its standard output after its hello and runs
// on (issue 33 #6: 37 of 100 inputs in 15 minutes, 292 restarts) gives up after two
// processes with one line, exit 2, in seconds.
func TestStdoutClosedTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("three grace periods of a target that will not exit")
	}
	start := time.Now()
	code, out, errs := runArgs(t, "", "--exec", "sh -c 'echo difffuzz-target 1 escape; exec 1>&-; sleep 1000'", "--random", "100x", "--seed", "1")
	assert.Equal(t, 2, code, "%s\n%s", out, errs)
	assert.Regexp(t, `(?m)^difffuzz: target .*: answered its hello but not one request: each of 2 processes exited or closed its standard output before its first answer`, errs)
	assert.Less(t, time.Since(start), 30*time.Second)
}
