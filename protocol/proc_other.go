//go:build !unix

package protocol

import "os/exec"

// setProcessGroup does nothing outside Unix.
func setProcessGroup(cmd *exec.Cmd) {}

// killProcess kills the target process.
func killProcess(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

// killGroup does nothing outside Unix (no process groups).
func killGroup(cmd *exec.Cmd) {}
