//go:build unix

package protocol

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A target's background children (a shell's `sleep 777 &`) do not outlive the session, whether
// the target exits at the end of its input or is killed (issue 33 #10).
func TestClientEndsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	c, err := startFake(t, "bgchild", Config{Timeout: 5 * time.Second, Grace: 2 * time.Second, Env: []string{"FAKE_CHILD_PID=" + pidFile}})
	require.NoError(t, err)
	_, err = c.Do([]Request{{Op: OpEscape, Input: []byte("a")}})
	require.NoError(t, err)
	require.NoError(t, c.Close())
	b, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(string(b))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		return syscall.Kill(pid, 0) != nil // gone (or a zombie reaped by init)
	}, 5*time.Second, 20*time.Millisecond, "child %d of the target still runs", pid)
}

// A target that exits while a process it started holds its stdout is reported as exited, with
// its status, once its answers are read (within Grace), not as hung after the timeout: the pipe
// never closes.
func TestClientExitWithHeldStdout(t *testing.T) {
	script := `echo "difffuzz-target 1 escape"; sleep 30 & read line; exit 3`
	c, err := StartConfig(context.Background(), []string{"sh", "-c", script}, Config{Timeout: 20 * time.Second, Grace: 300 * time.Millisecond})
	require.NoError(t, err)
	start := time.Now()
	_, err = c.Do([]Request{{Op: OpEscape, Input: []byte("a")}})
	var te *TargetError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, Exited, te.Kind, te.Error())
	assert.Contains(t, te.Status, "exit status 3")
	assert.Less(t, time.Since(start), 10*time.Second, "reported after the timeout")
}
