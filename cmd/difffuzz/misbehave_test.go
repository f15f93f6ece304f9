package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/difffuzz/difffuzz/internal/planted"
)

// TestPHPWithoutScript: --exec php (the adapter's path forgotten) is refused at once with one
// line that says what to pass, not a 10 s wait for a hello php never writes.
func TestPHPWithoutScript(t *testing.T) {
	for _, cmd := range []string{"php", "php -n -d memory_limit=-1", "env FOO=1 /usr/bin/php8.2"} {
		code, out, errs := runArgs(t, "", "--exec", cmd, "--exhaustive", "--max-len", "1")
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 ||
			!strings.Contains(errs, "would read the protocol as its script: pass the adapter's path (--exec '") {
			t.Errorf("--exec %q: exit %d, stdout %q, stderr %q", cmd, code, out, errs)
		}
	}
}

// TestEmptyAnswers: a target that answers an empty line in place of the answer to a whole class
// of inputs (those whose JSON holds an "e") is one finding class, with its checks failed, after
// a few restarts: an empty line its minimized witness was answered with alone is taken as the
// answer in step, not a restart each up to the cap (issue 35: 101 findings, 504 restarts,
// "too many restarts (100)").
func TestEmptyAnswers(t *testing.T) {
	cmd := "sh -c '" + planted.Command(os.Args[0]) + ` | sed -u "/^22[0-9a-f]*e[0-9a-f]* /s/.*//"'`
	code, out, errs := runArgs(t, "", "--exec", cmd, "--exhaustive", "--max-len", "1", "--ops", "escape")
	if code != 1 || !strings.Contains(out, "in 1 defect (1 class)") || !strings.Contains(out, "difffuzz: 0 checks passed, 1 failed") {
		t.Fatalf("exit %d, want 1 with one class and the check failed\n%s\n%s", code, out, errs)
	}
	if strings.Contains(errs, "too many restarts") || strings.Contains(errs, "stopped early") {
		t.Errorf("the run stopped:\n%s", errs)
	}
	m := regexp.MustCompile(`started again ([0-9,]+) times?`).FindStringSubmatch(errs)
	if m == nil {
		t.Fatalf("no restart count on stderr:\n%s", errs)
	}
	if n, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", "")); n > 10 {
		t.Errorf("started again %d times, want a few:\n%s", n, errs)
	}
	if !regexp.MustCompile(`[0-9,]+ more escape requests were answered '', as its witness [0-9a-f]+ was`).MatchString(errs) {
		t.Errorf("stderr does not say the empty answers were taken in step:\n%s", errs)
	}
}

// TestReproRecordedCommand: repro of an --exec finding's record, without --exec, replays it
// through the command the record names (and says so), here a named build that still fails.
func TestReproRecordedCommand(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runArgs(t, "", "--exhaustive", "--max-len", "1", "--ops", "escape", "--out", dir,
		"--exec", "branch="+planted.Command(os.Args[0], planted.RawSlash))
	if code != 1 {
		t.Fatalf("campaign: exit %d\n%s\n%s", code, out, errs)
	}
	records, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(records) != 1 {
		t.Fatalf("--out saved %q, want one record", records)
	}
	code, out, errs = runArgs(t, "", "repro", records[0])
	if code != 1 || !strings.HasPrefix(out, "FAIL  "+records[0]+" (through its recorded --exec command)") ||
		!strings.Contains(errs, "difffuzz: repro: no --exec given: replaying branch's records through the command they record: env DIFFFUZZ_PLANTED=raw-slash ") {
		t.Errorf("repro: exit %d, want 1\n%s\n%s", code, out, errs)
	}
}
