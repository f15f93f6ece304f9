//go:build unix

package protocol

import (
	"os/exec"
	"syscall"
)

// setProcessGroup makes the target the leader of a new process group, so that killProcess
// also ends what it started (a shell's children, for example).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcess sends SIGKILL to the target's process group.
func killProcess(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		return cmd.Process.Kill()
	}
	return nil
}

// killGroup sends SIGKILL to what is left of the target's process group once the target
// itself has exited (its background children); the group outlives its leader while it has
// members, and nothing else can have its id then.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
