package campaign

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/fuzz"
)

// builtinSpace is a space the built-ins run by a function, which targets are not asked.
type builtinSpace func(ctx context.Context, impls []fuzz.Impl, units fuzz.UnitTracker) (*fuzz.Report, error)

func (f builtinSpace) Builtin(ctx context.Context, impls []fuzz.Impl, units fuzz.UnitTracker) (*fuzz.Report, error) {
	return f(ctx, impls, units)
}
func (f builtinSpace) Cases() []fuzz.TargetSpace               { return nil }
func (f builtinSpace) Plan() ([]PlanSpace, []fuzz.TargetSpace) { return nil, nil }

type sinkFunc func(f *fuzz.Finding)

func (s sinkFunc) Add(f *fuzz.Finding) { s(f) }

// Run runs each part against the built-ins; with a checkpoint, a part that resumes whole and
// ended is taken from the checkpoint (not run again, its findings given back to the triage),
// one that failed is run again, and the built-ins' exhaustive share gets the checkpoint as
// its unit tracker.
func TestRunResumesParts(t *testing.T) {
	ck := filepath.Join(t.TempDir(), "ck.json")
	var triaged []*fuzz.Finding
	triage := sinkFunc(func(f *fuzz.Finding) { triaged = append(triaged, f) })
	calls := map[string]int{}
	fail := errors.New("boom")
	randomFails := true
	build := func(c *Checkpoint) Campaign {
		space := func(name string, sink fuzz.Sink) Space {
			return builtinSpace(func(_ context.Context, impls []fuzz.Impl, units fuzz.UnitTracker) (*fuzz.Report, error) {
				calls[name]++
				assert.Equal(t, name == "exhaustive" && c != nil, units != nil, name)
				if name == "random" && randomFails {
					return nil, fail
				}
				f := &fuzz.Finding{Kind: fuzz.KindOutput, Op: fuzz.OpEscape, Impl: impls[0].Name, Input: []byte("/"), Space: name}
				if sink != nil {
					sink.Add(f)
				}
				return &fuzz.Report{Spaces: []fuzz.SpaceReport{{Space: name, Op: fuzz.OpEscape, Cases: 1, Differences: 1, Complete: true}},
					Findings: []*fuzz.Finding{f}, Differences: 1}, nil
			})
		}
		var sink fuzz.Sink = triage
		if c != nil {
			sink = c
		}
		return Campaign{Checkpoint: c, Candidates: []Candidate{Builtins{{Name: "swar"}}}, Parts: []Part{
			{Name: "exhaustive", Space: space("exhaustive", nil)},
			{Name: "boundary", Whole: true, Space: space("boundary", sink)},
			{Name: "random", Whole: true, Space: space("random", sink)},
		}}
	}
	modes := []string{"exhaustive", "boundary", "random"}

	c, err := Open(ck, "cfg", "0/1", false, modes, triage)
	require.NoError(t, err)
	rep, err := Run(context.Background(), build(c))
	require.ErrorIs(t, err, fail)
	assert.True(t, rep.Interrupted)
	assert.Equal(t, uint64(2), rep.Differences) // exhaustive and boundary, before random failed
	require.NoError(t, c.Close())
	assert.Len(t, triaged, 1) // boundary's, through the checkpoint

	triaged, randomFails = nil, false
	c, err = Open(ck, "cfg", "0/1", false, modes, triage)
	require.NoError(t, err)
	assert.True(t, c.Resumed())
	assert.Len(t, triaged, 1, "boundary's finding is given back to the triage")
	rep, err = Run(context.Background(), build(c))
	require.NoError(t, err)
	require.NoError(t, c.Close())
	assert.False(t, rep.Interrupted)
	assert.Equal(t, uint64(3), rep.Differences)
	assert.Equal(t, map[string]int{"exhaustive": 2, "boundary": 1, "random": 2}, calls, "boundary ended in the first run: not run again")
	var spaces []string
	for _, sp := range rep.Spaces {
		spaces = append(spaces, sp.Space)
	}
	assert.Equal(t, []string{"exhaustive", "boundary", "random"}, spaces)

	// Without a checkpoint every part runs, and the built-ins get no unit tracker.
	rep, err = Run(context.Background(), build(nil))
	require.NoError(t, err)
	assert.Equal(t, uint64(3), rep.Differences)
}
