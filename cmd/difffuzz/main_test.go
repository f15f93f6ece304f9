package main

import (
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
	"strings"
	"syscall"
	"testing"

	"github.com/difffuzz/difffuzz/internal/planted"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runArgs(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// Every kind of bad input gets exactly one "difffuzz: " line on stderr and exit 2.
func TestBadInput(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	for _, tc := range []struct {
		name string
		args []string
		want string // substring of the message
	}{
		{"unknown option name", []string{"escape", "--flags", "JSON_HEX_TAGG", "--hex", "41"}, "unknown option"},
		{"empty option name", []string{"escape", "--flags", "JSON_HEX_TAG|", "--hex", "41"}, `--flags: "JSON_HEX_TAG|" has an empty option name`},
		{"empty option names", []string{"escape", "--flags", "|", "--hex", "41"}, "empty option name"},
		{"empty bench option name", []string{"bench", "--options", "HEX_TAG||HEX_AMP"}, "empty option name"},
		{"odd hex", []string{"escape", "--hex", "414"}, "odd number"},
		{"non-hex", []string{"escape", "--hex", "zz"}, "not hex"},
		{"non-hex, odd length", []string{"decode", "--hex", "xyz"}, `--hex "xyz" is not hex: 'x' at offset 0`},
		{"unknown impl one", []string{"escape", "--impl", "nope", "--hex", "41"}, "unknown implementation"},
		{"unknown impl campaign", []string{"--impl", "nope"}, "unknown implementation"},
		{"unknown impl serve", []string{"serve", "--impl", "nope"}, "unknown implementation"},
		{"unknown flag", []string{"--bogus"}, "flag provided but not defined"},
		{"unknown flag one", []string{"decode", "--flags", "1", "--hex", "41"}, "flag provided but not defined"},
		{"unknown command", []string{"frobnicate"}, "unknown command"},
		{"no input", []string{"escape"}, "exactly one input"},
		{"two inputs", []string{"escape", "--hex", "41", "--string", "A"}, "exactly one input"},
		{"stray argument", []string{"escape", "--hex", "41", "extra"}, "unexpected argument"},
		{"bad ops", []string{"--ops", "escape,frob"}, "unknown operation"},
		{"bad max-len", []string{"--max-len", "9"}, "--max-len"},
		{"zero max-len", []string{"--max-len", "0"}, "--max-len"},
		{"bad workers", []string{"--workers", "0"}, "--workers"},
		// Issue 33 #11, #12, #2: a worker count that stalls, an empty budget, a shell operator
		// that would drop the rest of the command.
		{"too many workers", []string{"--workers", "100000000"}, "--workers must be between 1 and 256"},
		{"empty random", []string{"--random", ""}, "--random needs a count"},
		{"exec pipe", []string{"--exec", "difffuzz serve --impl oracle | proxy wrongall"}, `unquoted shell operator "|"`},
		{"exec list", []string{"--exec", "difffuzz serve; echo"}, `unquoted shell operator ";"`},
		{"exec and", []string{"--exec", "difffuzz serve && echo"}, `unquoted shell operator "&&"`},
		{"exec redirect", []string{"--exec", "difffuzz serve > log"}, `unquoted shell operator ">"`},
		{"bad int flag", []string{"--workers", "many"}, "invalid value"},
		// Counts are decimal: 0x10, 0b11 and (as 8) 010 were taken by flag.Int's base prefixes.
		{"hex workers", []string{"--workers", "0x10"}, "not a decimal integer"},
		{"binary max-len", []string{"--max-len", "0b11"}, "not a decimal integer"},
		{"hex examples", []string{"--examples", "0x3"}, "not a decimal integer"},
		{"hex boundary sample", []string{"--boundary", "--boundary-sample", "0x10"}, "want a decimal count"},
		{"hex mutate workers", []string{"mutate", "--workers", "0x2", "--list"}, "not a decimal integer"},
		{"hex bench passes", []string{"bench", "--passes", "0x6"}, "not a decimal integer"},
		{"flags too big", []string{"escape", "--flags", "99999999999", "--hex", "41"}, "32-bit"},
		{"serve argument", []string{"serve", "x"}, "no arguments"},
		{"bad shard", []string{"--shard", "4/4"}, "--shard"},
		{"bad shard form", []string{"--shard", "1of4"}, "--shard"},
		{"bad timeout", []string{"--timeout", "0s"}, "--timeout"},
		// A timeout too short for any answer was refused only when the hello timed out.
		{"timeout below 1ms", []string{"--timeout", "1ns", "--exec", "sh -c 'sleep 0.05; echo difffuzz-target 1 escape; cat >/dev/null'"}, "--timeout must be at least 1ms, got 1ns"},
		{"repro timeout below 1ms", []string{"repro", "--timeout", "999us", "--exec", "true", "x"}, "--timeout must be at least 1ms"},
		{"bench timeout below 1ms", []string{"bench", "--timeout", "1ns"}, "want at least 1ms"},
		{"negative examples", []string{"--examples", "-1"}, "--examples"},
		{"too many examples", []string{"--examples", "101"}, "--examples"},
		{"examples overflow", []string{"--examples", "99999999999999999999"}, "-examples: value out of range"},
		{"out not a directory", []string{"--out", "/dev/null/x"}, "--out"},
		{"findings not writable", []string{"--findings", "/nonexistent-dir/f.jsonl"}, "--findings"},
		// Issue 33 #5: a FIFO with no reader blocked forever, deaf to SIGINT and SIGTERM.
		{"findings a fifo", []string{"--findings", fifo}, "is a named pipe or a socket"},
		{"junit a fifo", []string{"--junit", fifo}, "is a named pipe or a socket"},
		{"exec exits before hello", []string{"--exec", "sh -c 'echo oops >&2; echo more >&2; exit 3'"}, "its stderr ends with: oops | more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runArgs(t, "", tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", code, errs)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			if !strings.HasPrefix(errs, "difffuzz: ") || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tc.want) {
				t.Errorf("stderr %q, want one line starting \"difffuzz: \" containing %q", errs, tc.want)
			}
		})
	}
}

// brokenWriter fails every write, as a full disk or a closed pipe does.
type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// A command whose standard output cannot be written says so and exits 2 (issue 33 #13: decode,
// list, repro and mutate --list exited 0).
func TestStdoutWriteError(t *testing.T) {
	for _, args := range [][]string{{"decode", "--hex", "41"}, {"utf8-decode", "--hex", "41"}, {"escape", "--hex", "41"}, {"list"},
		{"mutate", "--dir", "../..", "--list"}} {
		var errb bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), brokenWriter{}, &errb)
		assert.Equal(t, 2, code, "%v", args)
		assert.Regexp(t, `(^|\n)difffuzz: .*no space left on device\n$`, errb.String(), "%v: the last line says so", args)
	}
}

func TestEscapeOne(t *testing.T) {
	for _, impl := range []string{"oracle", "fast", "generic", "swar"} {
		for _, tc := range []struct {
			args       []string
			stdin      string
			code       int
			out, inErr string
		}{
			{[]string{"--flags", "JSON_INVALID_UTF8_SUBSTITUTE", "--hex", "e08041"}, "", 0, `"\ufffdA"`, ""},
			{[]string{"--flags", "2097152", "--hex", "E0 80 41"}, "", 0, `"\ufffdA"`, ""},
			{[]string{"--flags", "hex_tag,unescaped_slashes", "--string", "</a>"}, "", 0, `"\u003C/a\u003E"`, ""},
			{[]string{"--hex", "80"}, "", 1, "", "json_encode returned false: Malformed UTF-8"},
			{[]string{"--flags", "PARTIAL_OUTPUT_ON_ERROR", "--hex", "80"}, "", 1, "null", "difffuzz: json_encode returned 'null': Malformed UTF-8 characters, possibly incorrectly encoded (JSON_ERROR code 5)"},
			{[]string{"-"}, "caf\xc3\xa9", 0, `"caf\u00e9"`, ""},
			{[]string{"--flags", "UNESCAPED_UNICODE", "-"}, "caf\xc3\xa9", 0, "\"caf\xc3\xa9\"", ""},
			{[]string{"--hex", ""}, "", 0, `""`, ""},
			{[]string{"--flags", "NUMERIC_CHECK", "--string", " 007 "}, "", 0, "7", ""},
			{[]string{"--flags", "NUMERIC_CHECK|PRESERVE_ZERO_FRACTION", "--string", "1e3"}, "", 0, "1000.0", ""},
			{[]string{"--flags", "NUMERIC_CHECK", "--string", "1e999"}, "", 0, `"1e999"`, ""},
		} {
			args := append([]string{"escape", "--impl", impl}, tc.args...)
			code, out, errs := runArgs(t, tc.stdin, args...)
			if code != tc.code || out != tc.out || (tc.inErr == "") != (errs == "") || !strings.Contains(errs, tc.inErr) {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q, stderr containing %q", args, code, out, errs, tc.code, tc.out, tc.inErr)
			}
		}
	}
}

func TestDecodeOne(t *testing.T) {
	for _, impl := range []string{"oracle", "fast", "generic", "swar"} {
		code, out, errs := runArgs(t, "", "decode", "--impl", impl, "--hex", "41e08041c3a9")
		if code != 0 || out != "41/1 !/2 41/1 e9/2\n" || errs != "" {
			t.Errorf("decode %s: exit %d, %q, %q", impl, code, out, errs)
		}
		code, out, _ = runArgs(t, "A\xc2>B", "utf8-decode", "--impl", impl, "-")
		if code != 0 || out != "A?>B" {
			t.Errorf("utf8-decode %s: exit %d, %q", impl, code, out)
		}
	}
}

// decode writes a long input's steps as it takes them: a 1 MiB input (a million steps, up to
// 64 Mi from stdin) allocates a few bytes a step, not the 80 of a list of strings (85 MB).
func TestDecodeOneStreams(t *testing.T) {
	in := bytes.Repeat([]byte("\xffA\xc3\xa9"), 1<<18)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code := run(context.Background(), []string{"decode", "--impl", "generic", "-"}, bytes.NewReader(in), io.Discard, io.Discard)
	runtime.ReadMemStats(&after)
	require.Equal(t, 0, code)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(16*len(in)), "bytes allocated for %d input bytes", len(in))
}

// serve must round-trip the examples of DESIGN.md §6 and keep serving after a bad line.
func TestServeExamples(t *testing.T) {
	in := "escape 2097152 e08041\nescape 0 80\nescape 512 80\ndecode 41e08041c3a9\n" +
		"bogus line\nescape 0 4\nutf8_decode 41c3a9\nescape 32 31\nutf8_decode -\nescape 0 -\n"
	want := "difffuzz-target 1 escape decode utf8_decode bench\n" +
		"225c75666666644122 0\nfalse 5\n6e756c6c 5\n41/1 !/2 41/1 e9/2\n"
	for _, impl := range []string{"oracle", "fast", "generic", "swar"} {
		code, out, errs := runArgs(t, in, "serve", "--impl", impl)
		if code != 0 {
			t.Fatalf("serve %s: exit %d, stderr %q", impl, code, errs)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if !strings.HasPrefix(out, want) || len(lines) != 11 {
			t.Fatalf("serve %s:\n%s\nwant prefix\n%s(11 lines)", impl, out, want)
		}
		for i, l := range []int{5, 6} {
			if !strings.HasPrefix(lines[l], "error ") {
				t.Errorf("serve %s: malformed request %d answered %q, want an error line", impl, i, lines[l])
			}
		}
		// "1" under JSON_NUMERIC_CHECK is the number 1 (spec §1.7).
		if lines[7] != "41e9" || lines[8] != "31 0" || lines[9] != "-" || lines[10] != "2222 0" {
			t.Errorf("serve %s: got %q", impl, lines[7:])
		}
	}
}

func TestListAndJSONCampaign(t *testing.T) {
	code, out, errs := runArgs(t, "", "list")
	if code != 0 || !strings.Contains(out, "generic") || !strings.Contains(out, "swar") || !strings.Contains(out, "cyrillic") {
		t.Errorf("list: exit %d, %q, %q", code, out, errs)
	}
	code, out, errs = runArgs(t, "", "--exhaustive", "--max-len", "1", "--json")
	if code != 0 {
		t.Fatalf("exhaustive: exit %d, stderr %q", code, errs)
	}
	var rep struct {
		Spaces []struct {
			Op      string `json:"op"`
			Strings uint64 `json:"strings"`
			Cases   uint64 `json:"cases"`
		} `json:"spaces"`
		Differences uint64 `json:"differences"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, out)
	}
	if len(rep.Spaces) != 3 || rep.Spaces[0].Op != "escape" || rep.Spaces[0].Cases != 256*2048 || rep.Spaces[1].Strings != 256 {
		t.Errorf("spaces = %+v", rep.Spaces)
	}
	code, out, _ = runArgs(t, "", "--exhaustive", "--max-len", "1", "--ops", "decode", "--impl", "oracle")
	if code != 0 || !strings.Contains(out, "no differences: 256 strings") {
		t.Errorf("summary: exit %d\n%s", code, out)
	}
}

// TestHelperServe is not a test: with DIFFFUZZ_CMD_SERVE set, the test binary is
// `difffuzz serve --impl $DIFFFUZZ_CMD_SERVE`, an external target for the --exec tests.
func TestHelperServe(t *testing.T) {
	impl := os.Getenv("DIFFFUZZ_CMD_SERVE")
	if impl == "" {
		t.Skip("helper process for the --exec tests")
	}
	os.Exit(run(context.Background(), []string{"serve", "--impl", impl}, os.Stdin, os.Stdout, os.Stderr))
}

func TestExec(t *testing.T) {
	t.Setenv("DIFFFUZZ_CMD_SERVE", "swar")
	self := fmt.Sprintf("%q -test.run=^TestHelperServe$", os.Args[0])
	code, out, errs := runArgs(t, "", "--exec", self, "--exhaustive", "--max-len", "1")
	if code != 0 || !strings.Contains(out, "no differences") || !strings.Contains(out, "exhaustive  escape") {
		t.Errorf("--exec serve: exit %d\n%s\n%s", code, out, errs)
	}
	// A target that does not speak the protocol is a usage error, not a finding.
	code, _, errs = runArgs(t, "", "--exec", "echo hello", "--max-len", "1")
	if code != 2 || !strings.HasPrefix(errs, "difffuzz: --exec") || strings.Count(errs, "\n") != 1 {
		t.Errorf("--exec echo: exit %d, stderr %q", code, errs)
	}
	code, _, errs = runArgs(t, "", "--exec", "/nonexistent/target")
	if code != 2 || !strings.HasPrefix(errs, "difffuzz: --exec") || strings.Count(errs, "\n") != 1 {
		t.Errorf("--exec missing: exit %d, stderr %q", code, errs)
	}
	code, _, errs = runArgs(t, "", "--exec", `php "unterminated`)
	if code != 2 || !strings.HasPrefix(errs, "difffuzz: --exec") || strings.Count(errs, "\n") != 1 {
		t.Errorf("--exec bad quoting: exit %d, stderr %q", code, errs)
	}
}

// TestExecHelloTwice: a target that says hello twice (every process's first answer is a
// line that is not one) is one target-protocol finding; the run stops at once, says which
// operations were not checked and counts its restarts consistently, and fails (issue 33).
func TestExecHelloTwice(t *testing.T) {
	t.Setenv("DIFFFUZZ_CMD_SERVE", "oracle")
	self := fmt.Sprintf("sh -c 'echo difffuzz-target 1 escape decode utf8_decode; exec %q -test.run=^TestHelperServe$'", os.Args[0])
	code, out, errs := runArgs(t, "", "--exec", self, "--exhaustive", "--max-len", "1")
	assert.Equal(t, 1, code, "%s\n%s", out, errs)
	assert.Contains(t, out, "DEFECT 1 of 1 · target-protocol: writes a line that is not an answer")
	assert.Contains(t, out, "0 checks passed, 1 failed")
	assert.Contains(t, errs, "not checked: the rest of exhaustive escape, exhaustive decode, exhaustive utf8_decode")
	assert.NotContains(t, errs, "too many restarts")
	assert.Contains(t, errs, "started again 1 time: 1 to ask a finding's input alone (to confirm or minimize it)\n", "a probe, and no restart per input")
}

// --shard splits an external target's spaces as it does the built-in ones: the parts of all
// shards are disjoint and together the whole space, without splitting a string's option sets.
func TestExecShard(t *testing.T) {
	t.Setenv("DIFFFUZZ_CMD_SERVE", "swar")
	self := fmt.Sprintf("%q -test.run=^TestHelperServe$", os.Args[0])
	// targetRows sums the strings and cases of the target's rows of a --json report.
	targetRows := func(args ...string) (strs, cases uint64) {
		t.Helper()
		code, out, errs := runArgs(t, "", args...)
		var rep struct {
			Spaces []struct {
				Impls   []string `json:"impls"`
				Strings uint64   `json:"strings"`
				Cases   uint64   `json:"cases"`
			} `json:"spaces"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
			t.Fatalf("%v: exit %d, stderr %q\n%s", args, code, errs, out)
		}
		for _, sp := range rep.Spaces {
			if len(sp.Impls) == 1 && sp.Impls[0] != "generic" {
				strs += sp.Strings
				cases += sp.Cases
			}
		}
		return strs, cases
	}
	for _, mode := range [][]string{
		{"--exhaustive", "--max-len", "1", "--ops", "escape,decode"},
		{"--boundary", "--boundary-sample", "2000", "--ops", "escape"},
		{"--boundary", "--boundary-sample", "300", "--ops", "utf8_decode"}, // stratified edge inputs + 300 per family
	} {
		args := append([]string{"--exec", self, "--impl", "generic", "--json"}, mode...)
		wantS, wantC := targetRows(args...)
		var strs, cases uint64
		for k := 0; k < 3; k++ {
			s, c := targetRows(append(args, "--shard", fmt.Sprintf("%d/3", k))...)
			if c == 0 || c == wantC {
				t.Errorf("%v, shard %d/3: %d cases of %d", mode, k, c, wantC)
			}
			strs += s
			cases += c
		}
		if strs != wantS || cases != wantC || wantC == 0 {
			t.Errorf("%v: the three shards cover %d strings, %d cases; want %d, %d", mode, strs, cases, wantS, wantC)
		}
	}
}

// A campaign that fails to start leaves an existing --findings file as it was: it is emptied
// only when the findings are written.
func TestFindingsFileKeptOnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "findings.jsonl")
	require.NoError(t, os.WriteFile(path, []byte("kept\n"), 0o644))
	code, _, errs := runArgs(t, "", "--findings", path, "--exec", "sh -c 'exit 3'")
	require.Equal(t, 2, code, errs)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "kept\n", string(b))
}

// A closed pipe on stdout or on stderr (| head -1) does not end the run by SIGPIPE: --junit and
// --findings are written whole, and the exit status says what happened (issue 33 #3, #4).
func TestClosedPipe(t *testing.T) {
	for _, which := range []string{"stdout", "stderr"} {
		t.Run(which, func(t *testing.T) {
			dir := t.TempDir()
			junit, findings := filepath.Join(dir, "f.xml"), filepath.Join(dir, "g.jsonl")
			cmd := exec.Command(os.Args[0], "--exhaustive", "--max-len", "1", "--impl", planted.New(planted.RawSlash).Name(), "--junit", junit, "--findings", findings)
			cmd.Env = append(os.Environ(), mainEnv+"="+string(planted.RawSlash))
			r, w, err := os.Pipe()
			require.NoError(t, err)
			require.NoError(t, r.Close()) // the reader is gone before the first write
			if which == "stdout" {
				cmd.Stdout = w
			} else {
				cmd.Stderr = w
			}
			err = cmd.Run()
			w.Close()
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				ws := ee.Sys().(syscall.WaitStatus)
				require.False(t, ws.Signaled(), "killed by %v", ws.Signal())
			}
			for _, f := range []string{junit, findings} {
				fi, err := os.Stat(f)
				require.NoError(t, err)
				assert.NotZero(t, fi.Size(), "%s written", f)
			}
		})
	}
}

// The campaign's first line names the operations each target is asked: those --ops selects.
func TestExecOpsNamed(t *testing.T) {
	t.Setenv("DIFFFUZZ_CMD_SERVE", "oracle")
	self := fmt.Sprintf("%q -test.run=^TestHelperServe$", os.Args[0])
	code, out, errs := runArgs(t, "", "--exec", self, "--exhaustive", "--max-len", "1", "--ops", "utf8_decode")
	require.Equal(t, 0, code, "%s\n%s", out, errs)
	assert.Contains(t, errs, `-test.run=^TestHelperServe$" (utf8_decode) against the oracle`)
}
