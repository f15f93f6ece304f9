// Package deploy holds the manifests that run a difffuzz sweep on engines people already
// operate: a Kubernetes Indexed Job (kubernetes/) and a GitHub Actions matrix (github/). Its
// tests decode them strictly into the engines' own types and check that their parts agree.
package deploy

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// documents splits a YAML stream at its "---" lines.
func documents(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var docs [][]byte
	for _, d := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
		if strings.TrimSpace(regexp.MustCompile(`(?m)^#.*$`).ReplaceAllString(d, "")) != "" {
			docs = append(docs, []byte(d))
		}
	}
	return docs
}

// strict decodes a manifest into v, refusing unknown and duplicate fields (a misspelt field
// that Kubernetes would drop, or reject, fails here).
func strict(t *testing.T, doc []byte, v any) {
	t.Helper()
	require.NoError(t, yaml.UnmarshalStrict(doc, v), "%s", doc)
}

// shardArg is the N of "--shard auto/N" in a command, or fails.
func shardArg(t *testing.T, cmd string) int {
	t.Helper()
	m := regexp.MustCompile(`--shard auto/(\d+)\b`).FindStringSubmatch(cmd)
	require.NotNil(t, m, "no --shard auto/N in %q", cmd)
	n, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	return n
}

// The sweep Job is an Indexed Job of N pods, each running its shard (--shard auto/N, from
// JOB_COMPLETION_INDEX), writing shard-K.json and .xml to the claim the merge Job reads; a
// finding (exit 1) fails its index without a retry.
func TestKubernetesJob(t *testing.T) {
	docs := documents(t, "kubernetes/sweep-job.yaml")
	require.Len(t, docs, 2)
	var pvc corev1.PersistentVolumeClaim
	strict(t, docs[0], &pvc)
	assert.Equal(t, "PersistentVolumeClaim", pvc.Kind)
	assert.Contains(t, pvc.Spec.AccessModes, corev1.ReadWriteMany, "every pod writes its report to the one claim")

	var job batchv1.Job
	strict(t, docs[1], &job)
	assert.Equal(t, "batch/v1", job.APIVersion)
	assert.Equal(t, "Job", job.Kind)
	require.NotNil(t, job.Spec.CompletionMode)
	assert.Equal(t, batchv1.IndexedCompletion, *job.Spec.CompletionMode)
	require.NotNil(t, job.Spec.Completions)
	require.NotNil(t, job.Spec.Parallelism)
	n := int(*job.Spec.Completions)
	assert.Equal(t, n, int(*job.Spec.Parallelism), "one pod per shard, all at once")
	pod := job.Spec.Template.Spec
	assert.Equal(t, corev1.RestartPolicyNever, pod.RestartPolicy, "podFailurePolicy needs restartPolicy Never")
	require.Len(t, pod.Containers, 1)
	c := pod.Containers[0]
	cmd := strings.Join(append(append([]string{}, c.Command...), c.Args...), " ")
	assert.Equal(t, n, shardArg(t, cmd), "--shard auto/N must match completions")
	assert.Contains(t, cmd, `--json --junit "/reports/shard-${JOB_COMPLETION_INDEX}.xml"`)
	assert.Contains(t, cmd, `> "/reports/shard-${JOB_COMPLETION_INDEX}.json"`)
	require.Len(t, c.VolumeMounts, 1)
	assert.Equal(t, "/reports", c.VolumeMounts[0].MountPath)
	claim := ""
	for _, v := range pod.Volumes {
		if v.Name == c.VolumeMounts[0].Name && v.PersistentVolumeClaim != nil {
			claim = v.PersistentVolumeClaim.ClaimName
		}
	}
	assert.Equal(t, pvc.Name, claim, "the reports go to the claim of the first document")

	// A finding is a verdict: its index fails at once.
	require.NotNil(t, job.Spec.PodFailurePolicy)
	require.NotNil(t, job.Spec.BackoffLimitPerIndex, "FailIndex needs backoffLimitPerIndex")
	found := false
	for _, r := range job.Spec.PodFailurePolicy.Rules {
		if r.Action == batchv1.PodFailurePolicyActionFailIndex && r.OnExitCodes != nil &&
			r.OnExitCodes.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && assert.NotNil(t, r.OnExitCodes.ContainerName) &&
			*r.OnExitCodes.ContainerName == c.Name {
			found = found || len(r.OnExitCodes.Values) == 1 && r.OnExitCodes.Values[0] == 1
		}
	}
	assert.True(t, found, "no FailIndex rule for exit code 1 of %s", c.Name)

	// The merge Job reads the same claim, every shard report.
	merge := documents(t, "kubernetes/merge-job.yaml")
	require.Len(t, merge, 1)
	var mj batchv1.Job
	strict(t, merge[0], &mj)
	mpod := mj.Spec.Template.Spec
	require.Len(t, mpod.Containers, 1)
	mcmd := strings.Join(append(append([]string{}, mpod.Containers[0].Command...), mpod.Containers[0].Args...), " ")
	assert.Contains(t, mcmd, "difffuzz merge --junit /reports/sweep.xml /reports/shard-*.json")
	require.Len(t, mpod.Volumes, 1)
	require.NotNil(t, mpod.Volumes[0].PersistentVolumeClaim)
	assert.Equal(t, pvc.Name, mpod.Volumes[0].PersistentVolumeClaim.ClaimName)
}

// The strict decoding can fail: a misspelt field and a field of the wrong type are refused.
func TestKubernetesJobStrict(t *testing.T) {
	docs := documents(t, "kubernetes/sweep-job.yaml")
	var job batchv1.Job
	bad := bytes.Replace(docs[1], []byte("completionMode: Indexed"), []byte("completionMod: Indexed"), 1)
	assert.Error(t, yaml.UnmarshalStrict(bad, &job), "a misspelt field")
	bad = bytes.Replace(docs[1], []byte("completions: 16"), []byte("completions: sixteen"), 1)
	assert.Error(t, yaml.UnmarshalStrict(bad, &job), "a string for an integer")
}

// workflow is the part of a GitHub workflow the tests read.
type workflow struct {
	Jobs map[string]struct {
		Strategy struct {
			Matrix map[string][]any `json:"matrix"`
		} `json:"strategy"`
		Steps []struct {
			Uses string            `json:"uses"`
			Run  string            `json:"run"`
			Env  map[string]string `json:"env"`
		} `json:"steps"`
		Needs any    `json:"needs"`
		If    string `json:"if"`
	} `json:"jobs"`
}

func readWorkflow(t *testing.T, path string) workflow {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var w workflow
	require.NoError(t, yaml.Unmarshal(data, &w), path)
	return w
}

// The sweep workflow's matrix is the shards 0..N-1 of its --shard auto/N, each shard's index
// reaches difffuzz, and the merge job needs the shard jobs. (actionlint checks the rest: make
// lint-workflows.)
func TestGitHubSweep(t *testing.T) {
	w := readWorkflow(t, "github/sweep.yml")
	shard, ok := w.Jobs["shard"]
	require.True(t, ok)
	var run string
	for _, s := range shard.Steps {
		if strings.Contains(s.Run, "--shard") {
			run = s.Run
			assert.Equal(t, "${{ matrix.shard }}", s.Env["DIFFFUZZ_SHARD_INDEX"])
		}
	}
	n := shardArg(t, run)
	var want []any
	for k := 0; k < n; k++ {
		want = append(want, float64(k))
	}
	assert.Equal(t, want, shard.Strategy.Matrix["shard"], "the matrix must list shards 0..%d", n-1)
	merge, ok := w.Jobs["merge"]
	require.True(t, ok)
	assert.Equal(t, "shard", merge.Needs)
	merged := false
	for _, s := range merge.Steps {
		merged = merged || strings.Contains(s.Run, "difffuzz merge")
	}
	assert.True(t, merged)
}

// Every action is pinned by a full commit SHA, with the version it is in a comment.
func TestActionsPinned(t *testing.T) {
	pinned := regexp.MustCompile(`^\s*(?:- )?uses: [\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+(\.\d+)*$`)
	for _, path := range []string{"../.github/workflows/ci.yml", "github/sweep.yml"} {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		uses := 0
		for i, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "uses:") {
				uses++
				assert.Regexp(t, pinned, line, "%s:%d", path, i+1)
			}
		}
		assert.NotZero(t, uses, path)
	}
	assert.NotRegexp(t, pinned, "      - uses: actions/checkout@v4", "a tag is not a pin")
}

// The CI workflow runs every part of make test (TEST_PARTS) on a push and every target of make
// test-long on its schedule, so that neither list can drift from the Makefile.
func TestCIWorkflowMirrorsMake(t *testing.T) {
	data, err := os.ReadFile("../Makefile")
	require.NoError(t, err)
	w := readWorkflow(t, "../.github/workflows/ci.yml")
	for _, tc := range []struct {
		list, event string
		min         int
	}{{"TEST_PARTS =", "push", 10}, {"test-long:", "schedule", 4}} {
		m := regexp.MustCompile(`(?m)^` + tc.list + ` (.*)$`).FindSubmatch(data)
		require.NotNil(t, m, "make %s", tc.list)
		targets := strings.Fields(string(m[1]))
		ran := map[string]bool{}
		for _, j := range w.Jobs {
			if !jobRunsOn(j.If, tc.event) {
				continue
			}
			for _, s := range j.Steps {
				f := strings.Fields(s.Run)
				if len(f) < 2 || f[0] != "make" {
					continue
				}
				for _, target := range f[1:] {
					if target == "${{" && len(f) > 2 && f[2] == "matrix.target" {
						for _, v := range j.Strategy.Matrix["target"] {
							ran[fmt.Sprint(v)] = true
						}
						break
					}
					ran[target] = true
				}
			}
		}
		for _, target := range targets {
			assert.True(t, ran[target], "make %s runs %s, .github/workflows/ci.yml does not on %s", tc.list, target, tc.event)
		}
		assert.GreaterOrEqual(t, len(targets), tc.min, fmt.Sprint(targets))
	}
	assert.True(t, jobRunsOn("", "push") && jobRunsOn("github.event_name == 'push' || github.event_name == 'pull_request'", "push"))
	assert.False(t, jobRunsOn("github.event_name == 'schedule' || github.event_name == 'workflow_dispatch'", "push"))
}

// jobRunsOn reads a job's if: of the form the CI workflow uses (github.event_name == 'E'
// joined by ||; none: every event).
func jobRunsOn(cond, event string) bool {
	return cond == "" || strings.Contains(cond, "github.event_name == '"+event+"'")
}
