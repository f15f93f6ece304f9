package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/internal/planted"
)

// lastLine is the last line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// A campaign against a target with a raw slash: the run ends with the checks' tally (stdout
// after the summary; stderr under --json), --json lists the checks, and --junit writes one
// testcase per space × operation × candidate with the failure on escape.
func TestCampaignReports(t *testing.T) {
	dir := t.TempDir()
	cmd := planted.Command(os.Args[0], planted.RawSlash)
	junitFile := filepath.Join(dir, "report.xml")
	code, out, errs := runArgs(t, "", "--exhaustive", "--max-len", "1", "--exec", cmd, "--junit", junitFile)
	require.Equal(t, 1, code, errs)
	assert.Equal(t, "difffuzz: 2 passed, 1 failed", lastLine(out))
	assert.Contains(t, errs, "difffuzz: wrote 3 checks to "+junitFile+" (JUnit XML)")
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Props []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Cases []struct {
				Classname string    `xml:"classname,attr"`
				Failure   *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	data, err := os.ReadFile(junitFile)
	require.NoError(t, err)
	require.NoError(t, xml.Unmarshal(data, &doc))
	assert.Equal(t, 3, doc.Tests)
	assert.Equal(t, 1, doc.Failures)
	require.Len(t, doc.Suites, 1)
	require.Len(t, doc.Suites[0].Props, 2)
	assert.Equal(t, "difffuzz --exhaustive --max-len 1 --exec '"+cmd+"' --junit "+junitFile, doc.Suites[0].Props[0].Value)
	for _, c := range doc.Suites[0].Cases {
		assert.Equal(t, c.Classname == "difffuzz.exhaustive.escape", c.Failure != nil, c.Classname)
	}

	code, out, errs = runArgs(t, "", "--exhaustive", "--max-len", "1", "--exec", cmd, "--json", "--shard", "1/2")
	require.Equal(t, 1, code, errs)
	assert.Equal(t, "difffuzz: 2 passed, 1 failed", lastLine(errs))
	var rep struct {
		Checks []struct {
			Space, Op, Impl string
			Cases           uint64
			Failed          bool
			Classes         []string
		}
		Passed, Failed    int
		InterruptedChecks int `json:"interrupted_checks"`
		Shard             struct{ Index, Count int }
		OptionsNotChecked []string `json:"options_not_checked"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	assert.Equal(t, [3]int{2, 1, 0}, [3]int{rep.Passed, rep.Failed, rep.InterruptedChecks})
	assert.Equal(t, struct{ Index, Count int }{1, 2}, rep.Shard)
	assert.Equal(t, []string{"JSON_NUMERIC_CHECK"}, rep.OptionsNotChecked)
	require.Len(t, rep.Checks, 3)
	for _, c := range rep.Checks {
		assert.Equal(t, c.Op == "escape", c.Failed, "%+v", c)
		assert.Equal(t, c.Op == "escape", len(c.Classes) > 0, "%+v", c)
		assert.NotZero(t, c.Cases)
	}

	// A target with no options: the ones it did not announce are listed too.
	code, out, errs = runArgs(t, "", "--exhaustive", "--max-len", "1", "--ops", "escape", "--json",
		"--exec", planted.Command(os.Args[0], planted.Options0))
	require.Equal(t, 0, code, errs)
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	assert.Len(t, rep.OptionsNotChecked, 11, "%q", rep.OptionsNotChecked)
	assert.Equal(t, "difffuzz: 1 passed, 0 failed", lastLine(errs))
}

// A --junit path that cannot be written is refused before the campaign.
func TestJUnitBadPath(t *testing.T) {
	code, _, errs := runArgs(t, "", "--exhaustive", "--max-len", "1", "--junit", filepath.Join(t.TempDir(), "no", "such", "r.xml"))
	assert.Equal(t, 2, code)
	assert.Regexp(t, `^difffuzz: --junit: open .*: no such file or directory\n$`, errs)
}

// --shard auto/N takes the index from the engine's environment; everything else is refused
// with one line naming what it wanted.
func TestShardAuto(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(name string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == name {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		arg  string
		env  func(string) string
		k, n int
		err  string
	}{
		{"2/4", env(), 2, 4, ""},
		{"auto/4", env("JOB_COMPLETION_INDEX", "3"), 3, 4, ""},
		{"auto/4", env("DIFFFUZZ_SHARD_INDEX", "0", "CI_NODE_INDEX", "4"), 0, 4, ""},
		{"auto/4", env("CI_NODE_INDEX", "4"), 3, 4, ""}, // GitLab counts from 1
		{"auto/4", env("BUILDKITE_PARALLEL_JOB", "1"), 1, 4, ""},
		{"auto/4", env("JOB_COMPLETION_INDEX", "4"), 0, 0, `--shard "auto/4" (from JOB_COMPLETION_INDEX=4, a Kubernetes Indexed Job): shard "4" is not a number from 0 to 3`},
		{"auto/4", env("CI_NODE_INDEX", "0"), 0, 0, `shard "-1" is not a number from 0 to 3`},
		{"auto/4", env("JOB_COMPLETION_INDEX", "x"), 0, 0, `shard "x" is not a number`},
		{"auto/4", env(), 0, 0, `--shard "auto/4": no shard index in the environment: none of JOB_COMPLETION_INDEX, DIFFFUZZ_SHARD_INDEX, CI_NODE_INDEX, BUILDKITE_PARALLEL_JOB is set`},
		{"auto", env("JOB_COMPLETION_INDEX", "1"), 0, 0, "want K/N"},
		{"auto/0", env("JOB_COMPLETION_INDEX", "0"), 0, 0, "want K/N"},
		{"1/04", env(), 0, 0, "want K/N"},
		{"01/4", env(), 0, 0, `shard "01" is not a number`},
		{"-1/4", env(), 0, 0, `shard "-1" is not a number`},
	} {
		k, n, err := parseShard(tc.arg, tc.env)
		if tc.err == "" {
			assert.NoError(t, err, tc.arg)
			assert.Equal(t, [2]int{tc.k, tc.n}, [2]int{k, n}, tc.arg)
			continue
		}
		if assert.Error(t, err, tc.arg) {
			assert.Contains(t, err.Error(), tc.err, tc.arg)
		}
	}
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	code, out, errs := runArgs(t, "", "--exhaustive", "--max-len", "3", "--ops", "decode", "--impl", "generic", "--shard", "auto/2", "--json")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `"index": 1`)
}

// A shard with no work at this size compares nothing: no check passes.
func TestShardEmptyNoCheck(t *testing.T) {
	code, out, errs := runArgs(t, "", "--exhaustive", "--max-len", "1", "--ops", "decode", "--impl", "generic", "--shard", "1/2")
	assert.Equal(t, 2, code, errs)
	assert.Equal(t, "difffuzz: 0 passed, 0 failed", lastLine(out))
	assert.Contains(t, errs, "nothing was compared: shard 1/2 holds no work")
}
