package campaign

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/difffuzz/difffuzz/fuzz"
)

// SplitExecName takes NAME= only where it is a name, not part of the command's first word.
func TestSplitExecName(t *testing.T) {
	for _, tc := range []struct{ arg, name, cmd string }{
		{"master=sapi/cli/php run.php", "master", "sapi/cli/php run.php"},
		{"br-1.x_y= ./target ", "br-1.x_y", "./target"},
		{"./target --opt=1", "", "./target --opt=1"},
		{"1a=./target", "", "1a=./target"},
		{"a b=./target", "", "a b=./target"},
		{"name=", "", "name="},
		{"=./target", "", "=./target"},
	} {
		name, cmd := SplitExecName(tc.arg)
		assert.Equal(t, [2]string{tc.name, tc.cmd}, [2]string{name, cmd}, tc.arg)
	}
}

// Judge fails a difference, and does not pass a run that compared nothing or stopped early.
func TestJudge(t *testing.T) {
	cases := &fuzz.Report{Spaces: []fuzz.SpaceReport{{Cases: 3}}}
	var w bytes.Buffer
	assert.Equal(t, Passed, Judge(cases, nil, 0, 0, &w))
	assert.Equal(t, Failed, Judge(&fuzz.Report{Differences: 1}, errors.New("stopped"), 0, 0, &w))
	assert.Equal(t, Unfinished, Judge(&fuzz.Report{Spaces: cases.Spaces, Interrupted: true}, nil, 0, 0, &w))
	assert.Empty(t, w.String())
	assert.Equal(t, Unfinished, Judge(&fuzz.Report{}, nil, 1, 2, &w))
	assert.Equal(t, "difffuzz: nothing was compared: shard 1/2 holds no work (random inputs are checked on shard 0 only; the exhaustive and boundary spaces may be too small for 2 shards: fewer shards, or a larger --max-len), or no candidate offers the operations asked for (--ops)\n", w.String())
}

// StartTargets refuses a command or a name given twice (the report could not tell their
// findings apart), before it starts the second.
func TestStartTargetsRefusesTwice(t *testing.T) {
	hello := `sh -c "echo difffuzz-target 1 escape; exec cat >/dev/null"`
	for _, tc := range []struct {
		execs []string
		want  string
	}{
		{[]string{hello, hello}, "that command was given already (to check it twice, name each: --exec NAME=CMD)"},
		{[]string{"a=" + hello, "a=" + hello}, "a target of that name was given already"},
	} {
		_, targets, closeAll, err := StartTargets(context.Background(), tc.execs, "", time.Second, nil, io.Discard)
		closeAll()
		assert.ErrorContains(t, err, tc.want)
		assert.Len(t, targets, 1, "the first was started")
	}
	_, targets, closeAll, err := StartTargets(context.Background(), []string{"a=" + hello, "b=" + hello}, "", time.Second, nil, io.Discard)
	closeAll()
	assert.NoError(t, err)
	assert.Len(t, targets, 2, "one command twice under two names")
}
