package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/difffuzz/difffuzz/internal/planted"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReferenceExec diffs two builds (--reference-exec): every difference between them is a
// finding of the side that does not answer as PHP 8.2 does, named by its --exec name, and the
// block says what each build writes and which one PHP agrees with.
func TestReferenceExec(t *testing.T) {
	good := planted.Command(os.Args[0])
	bad := planted.Command(os.Args[0], planted.RawSlash)
	for _, tc := range []struct {
		name, master, branch string
		want                 []string
	}{
		{"branch differs", good, bad, []string{
			"DEFECT 1 of 1 · branch · copies the input bytes raw",
			`    branch    '"/"'`,
			`    builds    branch writes '"/"' where master writes '"\/"' (PHP 8.2 agrees with master)`,
			"compared with master for 1 candidate",
		}},
		{"master differs", bad, good, []string{
			"DEFECT 1 of 1 · master · copies the input bytes raw",
			`    builds    branch writes '"\/"' where master writes '"/"' (PHP 8.2 agrees with branch)`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runArgs(t, "", "--exhaustive", "--max-len", "1", "--ops", "escape",
				"--reference-exec", "master="+tc.master, "--exec", "branch="+tc.branch)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("the report lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(out, "    target ") {
				t.Errorf("a named build is shown as \"target\":\n%s", out)
			}
			if !strings.Contains(errs, "against the reference master=") {
				t.Errorf("stderr does not name the reference:\n%s", errs)
			}
		})
	}
}

// TestReferenceExecSameFault: two builds with the same fault do not differ: no finding, and
// stderr counts the answers that are not PHP's but the reference's.
func TestReferenceExecSameFault(t *testing.T) {
	bad := planted.Command(os.Args[0], planted.RawSlash)
	code, out, errs := runArgs(t, "", "--exhaustive", "--max-len", "1", "--ops", "escape",
		"--reference-exec", "master="+bad, "--exec", "branch="+bad)
	if code != 0 || strings.Contains(out, "DEFECT") {
		t.Fatalf("exit %d, want 0 and no defect\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "difffuzz: branch: 1,024 answers not PHP 8.2's but the same as master's (not findings: the builds agree)") {
		t.Errorf("stderr does not count the answers both builds get wrong alike:\n%s", errs)
	}
}

// TestReferenceExecUsage: --reference-exec without --exec, or with --impl, is a usage error.
func TestReferenceExecUsage(t *testing.T) {
	good := planted.Command(os.Args[0])
	for _, args := range [][]string{
		{"--reference-exec", good},
		{"--reference-exec", good, "--exec", good, "--impl", "generic"},
		{"--reference-exec", "a=" + good, "--exec", "a=" + good},
		{"--exec", good, "--phpt", "/proc/self/no/such/dir"}, // before the campaign, not after it
	} {
		code, _, errs := runArgs(t, "", args...)
		if code != 2 || !strings.HasPrefix(errs, "difffuzz: ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line", args, code, errs)
		}
	}
}

// TestReferenceExecPHP is the php-src contributor's diff: Debian's PHP as master, the same PHP
// with a json_encode that leaves / unescaped (the adapter's DIFFFUZZ_PHP_JSON_ENCODE) as branch.
func TestReferenceExecPHP(t *testing.T) {
	if _, err := exec.LookPath("php"); err != nil {
		t.Skip("php not on PATH")
	}
	branch := `branch=env 'DIFFFUZZ_PHP_JSON_ENCODE=($r = json_encode($s, $flags)) === false ? false : str_replace("\\/", "/", $r)' php ../../adapters/php/difffuzz-target.php`
	code, out, errs := runArgs(t, "", "--exhaustive", "--max-len", "1", "--ops", "escape",
		"--reference-exec", "master=php ../../adapters/php/difffuzz-target.php", "--exec", branch)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errs)
	}
	want := `builds    branch writes '"/"' where master writes '"\/"' (PHP 8.2 agrees with master)`
	if !strings.Contains(out, want) || strings.Count(out, "DEFECT ") != 1 {
		t.Errorf("want one defect with %q:\n%s", want, out)
	}
}

// TestPHPLevelOutput is the contributor's reproduction: branch is a PHP build whose json_encode
// leaves / unescaped (adapters/php/testdata/planted-build/php), master Debian's PHP. The defect block's
// php -r line shows the difference with branch's own binary (bool(false)) and none with
// master's; the .phpt written by --phpt pass with Debian's PHP and fail with the planted build
// (adapters/php/run-phpt, run-tests.php's comparison).
func TestPHPLevelOutput(t *testing.T) {
	if _, err := exec.LookPath("php"); err != nil {
		t.Skip("php not on PATH")
	}
	dir := t.TempDir()
	const adapter = "../../adapters/php/difffuzz-target.php"
	const plantedPHP = "../../adapters/php/testdata/planted-build/php"
	code, out, errs := runArgs(t, "", "--exhaustive", "--max-len", "1", "--ops", "escape", "--phpt", dir,
		"--reference-exec", "master=php "+adapter, "--exec", "branch="+plantedPHP+" "+adapter)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errs)
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(l), "php "); ok {
			line = strings.TrimSpace(s)
		}
	}
	if !strings.HasPrefix(line, plantedPHP+" -r ") {
		t.Fatalf("no php -r line with branch's binary in the report:\n%s", out)
	}
	for bin, want := range map[string]string{plantedPHP: "bool(false)", "php": "bool(true)"} {
		run := bin + strings.TrimPrefix(line, plantedPHP)
		got, err := exec.Command("sh", "-c", run).CombinedOutput()
		if err != nil || !strings.HasSuffix(strings.TrimSpace(string(got)), want) {
			t.Errorf("%s: %v\n%s\nwant it to end with %s", run, err, got, want)
		}
	}
	tests, _ := filepath.Glob(filepath.Join(dir, "*.phpt"))
	if len(tests) != 1 || !strings.Contains(errs, "wrote 1 PHP test to "+dir) {
		t.Fatalf("--phpt wrote %q, want one test\n%s", tests, errs)
	}
	for bin, wantCode := range map[string]int{"php": 0, plantedPHP: 1} {
		cmd := exec.Command("../../adapters/php/run-phpt", append([]string{bin}, tests...)...)
		got, err := cmd.CombinedOutput()
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != wantCode {
			t.Errorf("run-phpt %s: %v (want exit %d)\n%s", bin, err, wantCode, got)
		}
	}
}

// TestOneExec checks one input through a target: its answer printed as a built-in's, and an
// answer that is not PHP 8.2's said on stderr with exit 1.
func TestOneExec(t *testing.T) {
	good := planted.Command(os.Args[0])
	bad := "branch=" + planted.Command(os.Args[0], planted.RawSlash)
	for _, tc := range []struct {
		args       []string
		code       int
		out, errIn string
	}{
		{[]string{"escape", "--exec", good, "--string", "a/b"}, 0, `"a\/b"`, ""},
		{[]string{"escape", "--exec", bad, "--string", "a/b"}, 1, `"a/b"`, `difffuzz: branch differs from PHP 8.2: it returns '"a/b"', PHP 8.2 returns '"a\/b"'`},
		{[]string{"escape", "--exec", good, "--hex", "80"}, 1, "", "difffuzz: json_encode returned false: json_last_error() = 5"},
		{[]string{"escape", "--exec", good, "--flags", "INVALID_UTF8_SUBSTITUTE", "--hex", "80"}, 0, `"\ufffd"`, ""},
		{[]string{"decode", "--exec", good, "--hex", "41e08041"}, 0, "41/1 !/2 41/1\n", ""},
		{[]string{"utf8-decode", "--exec", good, "--hex", "c3a9"}, 0, "\xe9", ""},
		{[]string{"escape", "--exec", good, "--impl", "fast", "--string", "a"}, 2, "", "difffuzz: give --impl or --exec, not both"},
		{[]string{"escape", "--timeout", "1s", "--string", "a"}, 2, "", "difffuzz: --timeout is for --exec"},
	} {
		code, out, errs := runArgs(t, "", tc.args...)
		if code != tc.code || out != tc.out || !strings.Contains(errs, tc.errIn) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q, stderr with %q", tc.args, code, out, errs, tc.code, tc.out, tc.errIn)
		}
	}
}

// TestReadmeDiffRecipe runs README's "Diff two builds" command and checks that the README shows
// the rows of its first defect as the command prints them (the counts and the "more" examples
// aside, which depend on the machine's timing of slow answers): the front door stays true.
func TestReadmeDiffRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("a default campaign against two PHP processes (10 s)")
	}
	if _, err := exec.LookPath("php"); err != nil {
		t.Skip("php not on PATH")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const cmd = `bin/difffuzz --reference-exec 'master=php adapters/php/difffuzz-target.php' \
             --exec 'branch=adapters/php/testdata/planted-build/php adapters/php/difffuzz-target.php' --seed 1 --phpt phpt/`
	if !strings.Contains(string(readme), cmd) {
		t.Fatalf("README no longer shows the command\n%s", cmd)
	}
	t.Chdir("../..")
	code, out, errs := runArgs(t, "", "--reference-exec", "master=php adapters/php/difffuzz-target.php",
		"--exec", "branch=adapters/php/testdata/planted-build/php adapters/php/difffuzz-target.php", "--seed", "1", "--phpt", t.TempDir())
	if code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	first, _, _ := strings.Cut(out, "\n\n") // the first defect's block
	for _, l := range strings.Split(first, "\n") {
		row := strings.TrimSpace(l)
		for _, label := range []string{"witness ", "oracle ", "branch ", "builds ", "deviates ", "replay ", "php "} {
			if strings.HasPrefix(row, label) && !strings.Contains(string(readme), l) {
				t.Errorf("README lacks the line the command prints:\n%s", l)
			}
		}
	}
}

// A named target's record in --json holds its command as given, and its name apart.
func TestNamedTargetRecord(t *testing.T) {
	bad := planted.Command(os.Args[0], planted.RawSlash)
	code, out, errs := runArgs(t, "", "--exhaustive", "--max-len", "1", "--ops", "escape", "--exec", "branch="+bad, "--json")
	require.Equal(t, 1, code, errs)
	var doc struct {
		Targets []struct{ Command, Name string }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	require.Len(t, doc.Targets, 1)
	assert.Equal(t, bad, doc.Targets[0].Command)
	assert.Equal(t, "branch", doc.Targets[0].Name)
}

// TestReadmeGoRecipe builds README's Go escaper target (adapters/go/example), runs the command
// README shows against it and checks that README shows every DEFECT line it prints.
func TestReadmeGoRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("a go build and an exhaustive campaign of 263,168 requests (about 5 s)")
	}
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	const cmd = "bin/difffuzz --exec bin/go-target --exhaustive --max-len 2"
	require.Contains(t, string(readme), "$ go build -o bin/go-target ./adapters/go/example\n$ "+cmd, "README no longer shows the recipe")
	target := filepath.Join(t.TempDir(), "go-target")
	build := exec.Command("go", "build", "-o", target, "../../adapters/go/example")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	code, stdout, errs := runArgs(t, "", "--exec", target, "--exhaustive", "--max-len", "2")
	require.Equal(t, 1, code, errs)
	n := 0
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "DEFECT ") {
			n++
			assert.Contains(t, string(readme), l, "README lacks the line the command prints")
		}
	}
	assert.Equal(t, 4, n, stdout)
}
