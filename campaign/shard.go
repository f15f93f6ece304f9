package campaign

import (
	"fmt"
	"strconv"
	"strings"
)

// shardEnv are the environment variables --shard auto/N reads the shard index from, in order:
// the engine's name, the variable, and whether the index counts from 1.
var shardEnv = []struct {
	engine, name string
	oneBased     bool
}{
	{"a Kubernetes Indexed Job", "JOB_COMPLETION_INDEX", false},
	{"a CI matrix (set it to the matrix index)", "DIFFFUZZ_SHARD_INDEX", false},
	{"GitLab CI's parallel jobs", "CI_NODE_INDEX", true},
	{"Buildkite's parallel jobs", "BUILDKITE_PARALLEL_JOB", false},
}

// ParseShard reads --shard: K/N with 0 <= K < N, or auto/N, which takes K from the first of
// shardEnv that getenv finds set.
func ParseShard(arg string, getenv func(string) string) (k, n int, err error) {
	kText, nText, ok := strings.Cut(arg, "/")
	bad := fmt.Errorf("--shard %q: want K/N with 0 <= K < N, like 0/4, or auto/N to take K from the environment (%s)", arg, shardEnvNames())
	if !ok {
		return 0, 0, bad
	}
	if n, err = strconv.Atoi(nText); err != nil || n < 1 || nText != strconv.Itoa(n) {
		return 0, 0, bad
	}
	if kText == "auto" {
		return shardFromEnv(arg, n, getenv)
	}
	if k, err = strconv.Atoi(kText); err != nil || k < 0 || k >= n || kText != strconv.Itoa(k) {
		return 0, 0, fmt.Errorf("--shard %q: shard %q is not a number from 0 to %d", arg, kText, n-1)
	}
	return k, n, nil
}

// shardFromEnv is --shard auto/N (arg): the shard index from the first of shardEnv that getenv
// finds set.
func shardFromEnv(arg string, n int, getenv func(string) string) (k, _ int, err error) {
	for _, e := range shardEnv {
		v := getenv(e.name)
		if v == "" {
			continue
		}
		first := 0
		if e.oneBased {
			first = 1
		}
		k, err = strconv.Atoi(v)
		if err != nil || v != strconv.Itoa(k) || k < first || k >= n+first {
			return 0, 0, fmt.Errorf("--shard %q (from %s=%s, %s): shard %q is not a number from %d to %d", arg, e.name, v, e.engine, v, first, n-1+first)
		}
		return k - first, n, nil
	}
	return 0, 0, fmt.Errorf("--shard %q: no shard index in the environment: none of %s is set", arg, shardEnvNames())
}

// shardEnvNames lists the variables of shardEnv.
func shardEnvNames() string {
	var names []string
	for _, e := range shardEnv {
		names = append(names, e.name)
	}
	return strings.Join(names, ", ")
}
