package campaign

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// ParseShard takes K/N, and auto/N with the index from the engine's environment; everything
// else is refused with one line naming what it wanted.
func TestParseShard(t *testing.T) {
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
		{"auto/4", env("CI_NODE_INDEX", "0"), 0, 0, `--shard "auto/4" (from CI_NODE_INDEX=0, GitLab CI's parallel jobs): shard "0" is not a number from 1 to 4`},
		{"auto/4", env("CI_NODE_INDEX", "+1"), 0, 0, `shard "+1" is not a number from 1 to 4`},
		{"auto/4", env("CI_NODE_INDEX", "01"), 0, 0, `shard "01" is not a number from 1 to 4`},
		{"auto/4", env("CI_NODE_INDEX", "-9223372036854775808"), 0, 0, `shard "-9223372036854775808" is not a number from 1 to 4`},
		{"auto/4", env("JOB_COMPLETION_INDEX", "x"), 0, 0, `shard "x" is not a number`},
		{"auto/4", env(), 0, 0, `--shard "auto/4": no shard index in the environment: none of JOB_COMPLETION_INDEX, DIFFFUZZ_SHARD_INDEX, CI_NODE_INDEX, BUILDKITE_PARALLEL_JOB is set`},
		{"auto", env("JOB_COMPLETION_INDEX", "1"), 0, 0, "want K/N"},
		{"auto/0", env("JOB_COMPLETION_INDEX", "0"), 0, 0, "want K/N"},
		{"1/04", env(), 0, 0, "want K/N"},
		{"01/4", env(), 0, 0, `shard "01" is not a number`},
		{"-1/4", env(), 0, 0, `shard "-1" is not a number`},
	} {
		k, n, err := ParseShard(tc.arg, tc.env)
		if tc.err == "" {
			assert.NoError(t, err, tc.arg)
			assert.Equal(t, [2]int{tc.k, tc.n}, [2]int{k, n}, tc.arg)
			continue
		}
		if assert.Error(t, err, tc.arg) {
			assert.Contains(t, err.Error(), tc.err, tc.arg)
		}
	}
}
