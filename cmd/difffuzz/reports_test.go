package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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
	assert.Equal(t, "difffuzz: 2 checks passed, 1 failed", lastLine(out))
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
	require.Len(t, doc.Suites[0].Props, 3)
	assert.Equal(t, "difffuzz --exhaustive --max-len 1 --exec '"+cmd+"' --junit "+junitFile, doc.Suites[0].Props[0].Value)
	for _, c := range doc.Suites[0].Cases {
		assert.Equal(t, c.Classname == "difffuzz.exhaustive.escape", c.Failure != nil, c.Classname)
	}

	code, out, errs = runArgs(t, "", "--exhaustive", "--max-len", "1", "--exec", cmd, "--json", "--shard", "1/2")
	require.Equal(t, 1, code, errs)
	assert.Equal(t, "difffuzz: 2 checks passed, 1 failed", lastLine(errs))
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
	assert.Equal(t, []string{}, rep.OptionsNotChecked, "every built-in implementation has every option")
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
	assert.Len(t, rep.OptionsNotChecked, 12, "the eleven string options and PRESERVE_ZERO_FRACTION: %q", rep.OptionsNotChecked)
	assert.Equal(t, "difffuzz: 1 check passed, 0 failed", lastLine(errs))
}

// A --junit path that cannot be written is refused before the campaign.
func TestJUnitBadPath(t *testing.T) {
	code, _, errs := runArgs(t, "", "--exhaustive", "--max-len", "1", "--junit", filepath.Join(t.TempDir(), "no", "such", "r.xml"))
	assert.Equal(t, 2, code)
	assert.Regexp(t, `^difffuzz: --junit: open .*: no such file or directory\n$`, errs)
}

// --shard auto/N takes the index from the engine's environment (campaign.ParseShard's test
// has the refusals).
func TestShardAuto(t *testing.T) {
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	code, out, errs := runArgs(t, "", "--exhaustive", "--max-len", "3", "--ops", "decode", "--impl", "generic", "--shard", "auto/2", "--json")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `"index": 1`)
}

// A shard with no work at this size compares nothing: no check passes.
func TestShardEmptyNoCheck(t *testing.T) {
	code, out, errs := runArgs(t, "", "--exhaustive", "--max-len", "1", "--ops", "decode", "--impl", "generic", "--shard", "1/2")
	assert.Equal(t, 2, code, errs)
	assert.Equal(t, "difffuzz: 0 checks passed, 0 failed", lastLine(out))
	assert.Contains(t, out, "\ndifffuzz: nothing checked: 0 strings", "not 'no differences'")
	assert.Contains(t, errs, "nothing was compared: shard 1/2 holds no work")
}

// Random inputs are not split between shards: shard 0 checks them, the others say so; the seed
// is part of the configuration that shards and checkpoints must share.
func TestShardRandomOnce(t *testing.T) {
	config := func(out string) string {
		var r struct{ Config string }
		require.NoError(t, json.Unmarshal([]byte(out), &r), out)
		return r.Config
	}
	hasRandom := func(out string) bool { return strings.Contains(out, `"space": "random"`) }
	code, s0, errs := runArgs(t, "", "--random", "200x", "--seed", "3", "--impl", "generic", "--shard", "0/2", "--json")
	require.Equal(t, 0, code, errs)
	assert.True(t, hasRandom(s0))
	code, s1, errs := runArgs(t, "", "--random", "200x", "--seed", "3", "--impl", "generic", "--shard", "1/2", "--json")
	require.Equal(t, 2, code, errs) // nothing compared in this shard
	assert.False(t, hasRandom(s1))
	assert.Contains(t, errs, "difffuzz: random: left to shard 0/2 (random inputs are not split between shards)")
	assert.Equal(t, config(s0), config(s1))
	assert.Contains(t, config(s0), "--seed=3")
	_, s4, _ := runArgs(t, "", "--random", "200x", "--seed", "4", "--impl", "generic", "--shard", "0/2", "--json")
	assert.NotEqual(t, config(s0), config(s4))
}

// A resumed run says what it goes on from; a run resumed after it was complete says that
// nothing was checked again.
func TestCheckpointNotices(t *testing.T) {
	ck := filepath.Join(t.TempDir(), "ck.json")
	args := []string{"--exhaustive", "--max-len", "1", "--impl", "generic", "--checkpoint", ck}
	code, out, errs := runArgs(t, "", args...)
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, errs, "resuming")
	code, again, errs := runArgs(t, "", args...)
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `difffuzz: --checkpoint `+regexp.QuoteMeta(ck)+`: resuming the run written \S+: 3 units of the built-in exhaustive spaces done, parts done: none; 0 findings kept`, errs)
	assert.Contains(t, errs, "difffuzz: --checkpoint "+ck+": that run was already complete: this report is its report, nothing was checked again (delete the file to check again)")
	assert.Equal(t, lastLine(out), lastLine(again))
	// The resume wrote the log's next generation and removed the old one.
	assert.NoFileExists(t, ck+".findings")
	assert.FileExists(t, ck+".findings.1")
	assert.FileExists(t, ck+".lock")
	code, _, errs = runArgs(t, "", args...)
	require.Equal(t, 0, code, errs)
	assert.NoFileExists(t, ck+".findings.1")
	assert.FileExists(t, ck+".findings.2")
}

// A merged sweep whose shard was interrupted before a space has that space incomplete: its
// check is interrupted, not passed.
func TestMergeInterruptedShard(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for k := 0; k < 2; k++ {
		code, out, errs := runArgs(t, "", "--exhaustive", "--max-len", "3", "--ops", "decode", "--impl", "generic", "--json", "--shard", fmt.Sprintf("%d/2", k))
		require.Equal(t, 0, code, errs)
		if k == 0 { // as if shard 0 had been stopped before the 3-byte space
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(out), &m))
			var kept []any
			for _, s := range m["spaces"].([]any) {
				if s.(map[string]any)["len"].(float64) < 3 {
					kept = append(kept, s)
				}
			}
			m["spaces"], m["interrupted"] = kept, true
			b, err := json.Marshal(m)
			require.NoError(t, err)
			out = string(b)
		}
		f := filepath.Join(dir, fmt.Sprintf("s%d.json", k))
		require.NoError(t, os.WriteFile(f, []byte(out), 0o644))
		files = append(files, f)
	}
	code, out, errs := runArgs(t, "", append([]string{"merge"}, files...)...)
	assert.Equal(t, 2, code, errs)
	assert.Equal(t, "difffuzz: 0 checks passed, 0 failed, 1 interrupted", lastLine(out))
	assert.Contains(t, errs, "a shard was interrupted")
	assert.Regexp(t, `(?m)^exhaustive  decode +3 .* \(interrupted\)$`, out)
}

// An output that cannot be written turns a clean run's status into 2.
func TestOutputWriteFails(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	code, out, errs := runArgs(t, "", "--exhaustive", "--max-len", "1", "--ops", "decode", "--impl", "generic", "--junit", "/dev/full")
	assert.Equal(t, 2, code, errs)
	assert.Contains(t, errs, "difffuzz: --junit: write /dev/full: no space left on device\n")
	assert.Equal(t, "difffuzz: 1 check passed, 0 failed", lastLine(out))
}
