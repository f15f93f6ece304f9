package mutation

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// failureLines are the first lines a failing test printed (where a differential test says
// which input differs): those between the first "--- FAIL" line and the "=== RUN" line before
// it, at most 6, trimmed.
func failureLines(lines []string) string {
	end := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "--- FAIL") })
	if end < 0 {
		end = len(lines)
	}
	start := 0
	for i := end - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "=== ") {
			start = i + 1
			break
		}
	}
	var out []string
	for _, l := range lines[start:end] {
		if l = strings.TrimSpace(l); l != "" && len(out) < 6 {
			out = append(out, l)
		}
	}
	return strings.Join(out, " | ")
}

// outcome is what a build or a test run said.
type outcome struct {
	failed bool       // the build failed, or a test failed (or the binary crashed)
	test   string     // the first failing test
	passed int        // top-level tests that passed
	tests  []testTime // the top-level tests that passed or skipped, in order
	runs   int        // the top-level tests that started ("=== RUN" lines)
	whole  bool       // every line was read (none longer than the scanner's 1 MiB)
	lines  []string   // the output's lines (a build's, or the last ones of a run)
}

// tail is the last lines of out, indented, for an error message.
func tail(lines []string) string {
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	if len(lines) == 0 {
		return ""
	}
	return ":\n\t" + strings.Join(lines, "\n\t")
}

// firstCompileError is the first line of a failed build that is not a "# package" header.
func firstCompileError(lines []string) string {
	for _, l := range lines {
		if l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return strings.Join(lines, " ")
}

// goBuild builds k's binary at out under b with `go test -c -json` (`go build -json` for a
// Main killer): failed when the build failed (a build-fail event), with the compiler's
// lines. The error is for go not running, or failing without a build failure to show for it.
func goBuild(ctx context.Context, dir string, k Killer, b Build, overlay, out string) (outcome, error) {
	return goRun(ctx, dir, b, k.buildArgs(b, overlay, out))
}

// goRun runs the go command with args (a -json build) in dir for b's GOARCH.
func goRun(ctx context.Context, dir string, b Build, args []string) (outcome, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOARCH="+b.GOARCH)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var o outcome
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e struct{ Action, Output string }
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch e.Action {
		case "build-output":
			for l := range strings.Lines(e.Output) {
				o.lines = append(o.lines, strings.TrimRight(l, "\n"))
			}
		case "build-fail":
			o.failed = true
		}
	}
	if err != nil && !o.failed && ctx.Err() == nil {
		return o, fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return o, nil
}

// runWithin is runTests bounded by limit: timedOut when the limit (not ctx) ended it.
func runWithin(ctx context.Context, limit time.Duration, dir string, k Killer, b Build, bin string, mutant int, evidence string) (t outcome, timedOut bool, err error) {
	kctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	t, err = runTests(kctx, dir, k, b, bin, mutant, evidence)
	return t, kctx.Err() == context.DeadlineExceeded && ctx.Err() == nil, err
}

// runTests runs k's binary bin (under qemu-aarch64 for an arm64 build on another host), a
// test binary in k's package directory, a Main killer in dir, with mutant active (0: none):
// failed when it exits non-zero (a failing test, findings, a panic, a crash), with the first
// failing test's name.
func runTests(ctx context.Context, dir string, k Killer, b Build, bin string, mutant int, evidence string) (outcome, error) {
	return runTestsEnv(ctx, dir, k, b, bin, mutant, evidence, nil)
}

// runTestsEnv is runTests with more environment variables.
func runTestsEnv(ctx context.Context, dir string, k Killer, b Build, bin string, mutant int, evidence string, env []string) (outcome, error) {
	name, args := bin, k.runArgs(evidence)
	if b.GOARCH != runtime.GOARCH {
		name, args = "qemu-"+qemuArch(b.GOARCH), append([]string{bin}, args...)
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = filepath.Join(dir, k.Pkg)
	if k.Main {
		cmd.Dir = dir
	}
	cmd.Env = append(append(os.Environ(), fmt.Sprintf("%s=%d", SchemaEnv, mutant)), env...)
	cmd.WaitDelay = 5 * time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return outcome{}, err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return outcome{}, err
	}
	var t outcome
	var window []string // the last lines, until the first failure
	frozen := false
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "=== RUN   ") && !strings.Contains(l, "/"):
			t.runs++
		case strings.HasPrefix(l, "--- PASS: "), strings.HasPrefix(l, "--- SKIP: "):
			if strings.HasPrefix(l, "--- PASS: ") {
				t.passed++
			}
			// "--- PASS: TestX (0.66s)"
			name, took, _ := strings.Cut(l[len("--- PASS: "):], " ")
			d, _ := time.ParseDuration(strings.Trim(took, "()"))
			t.tests = append(t.tests, testTime{name: name, took: d})
		case strings.HasPrefix(l, "--- FAIL: ") && t.test == "":
			t.test, _, _ = strings.Cut(strings.TrimPrefix(l, "--- FAIL: "), " ")
		}
		if frozen {
			continue
		}
		if window = append(window, l); len(window) > 128 {
			window = window[len(window)-64:]
		}
		if strings.HasPrefix(strings.TrimSpace(l), "--- FAIL: ") {
			frozen = true // keep the first failure's output
		}
	}
	t.lines = window
	if sc.Err() != nil {
		io.Copy(io.Discard, stdout) // the rest, unread, so that the process can end
	} else {
		t.whole = true
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		if k.Main {
			t.passed = 1
		}
	case errors.As(err, &exit) || ctx.Err() != nil:
		t.failed = true
	default:
		return t, err
	}
	return t, nil
}

// qemuArch is qemu-user's name for a GOARCH.
func qemuArch(goarch string) string {
	if goarch == "arm64" {
		return "aarch64"
	}
	return goarch
}
