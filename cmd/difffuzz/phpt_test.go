package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPHPTEdges: difffuzz phpt writes the boundary tests of json_encode and utf8_decode for each
// block width, escape under the option sets that change an input's answer; with PHP on PATH
// (CI) they pass with Debian's PHP, and the json_encode ones fail with a PHP whose json_encode
// leaves / unescaped (adapters/php/run-phpt, run-tests.php's comparison).
func TestPHPTEdges(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runArgs(t, "", "phpt", "--dir", dir)
	if code != 0 || !strings.Contains(errs, "difffuzz: phpt: wrote ") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	tests, _ := filepath.Glob(filepath.Join(dir, "*.phpt"))
	if len(tests) != 6 {
		t.Fatalf("wrote %q, want 6 tests", tests)
	}
	js, _ := os.ReadFile(filepath.Join(dir, "json_encode_edges_16.phpt"))
	for _, want := range []string{"--TEST--\njson_encode(): ", "', 64],\n", "', 2097152],\n", "--EXPECT--\n"} {
		if !strings.Contains(string(js), want) {
			t.Errorf("json_encode_edges_16.phpt lacks %q", want)
		}
	}
	if _, err := exec.LookPath("php"); err != nil {
		t.Skip("php not on PATH: the tests are not run")
	}
	for bin, fails := range map[string][]string{"php": nil, "../../adapters/php/testdata/planted-build/php": {"json_encode_edges_16", "json_encode_edges_32", "json_encode_edges_64"}} {
		cmd := exec.Command("../../adapters/php/run-phpt", append([]string{bin}, tests...)...)
		got, _ := cmd.CombinedOutput()
		var failed []string
		for _, l := range strings.Split(string(got), "\n") {
			if f, ok := strings.CutPrefix(l, "FAIL "); ok {
				failed = append(failed, strings.TrimSuffix(filepath.Base(f), ".phpt"))
			}
		}
		if strings.Join(failed, " ") != strings.Join(fails, " ") || cmd.ProcessState.ExitCode() != map[bool]int{true: 1, false: 0}[len(fails) > 0] {
			t.Errorf("run-phpt %s: failed %q, want %q (exit %d)", bin, failed, fails, cmd.ProcessState.ExitCode())
		}
	}
}
