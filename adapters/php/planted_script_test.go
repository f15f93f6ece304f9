package phpadapter

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/protocol"
)

// plantedScript is testdata/planted-target.php, the adapter with planted faults.
const plantedScript = "testdata/planted-target.php"

// plantedPHP returns the command line that runs the planted target with the given fault list
// (no argument when it is empty), skipping or failing without php as scriptPHP does.
func plantedPHP(t *testing.T, faults string) []string {
	t.Helper()
	php := scriptPHP(t)[0]
	script, err := filepath.Abs(plantedScript)
	require.NoError(t, err)
	if faults == "" {
		return []string{php, script}
	}
	return []string{php, script, faults}
}

// runArgv runs argv on input and returns its stdout lines, its stderr and its exit status.
func runArgv(t *testing.T, argv []string, input string) (lines []string, stderr string, status int) {
	t.Helper()
	return runArgvEnv(t, argv, nil, input)
}

// runArgvEnv is runArgv with the extra environment entries env.
func runArgvEnv(t *testing.T, argv, env []string, input string) (lines []string, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(input)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%v: %v", argv, err)
	}
	if s := out.String(); s != "" {
		lines = strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	}
	return lines, errb.String(), cmd.ProcessState.ExitCode()
}

// ans is the answer to an escape whose result is the JSON text js with error code err.
func ans(js string, err int) string {
	return hex.EncodeToString([]byte(js)) + " " + strconv.Itoa(err)
}

// outside0 is the refusal of an escape with flags f by a target announcing options=0.
func outside0(f jsonopt.Options) string {
	return fmt.Sprintf("error escape: FLAGS %d has option bits %d (%s) outside this target's options=0", f, f, f)
}

// plantedRequests are sent to the adapter and to the planted target under each fault.
var plantedRequests = []string{
	"escape 0 41",
	"escape 0 -",
	"escape 1 3c3e",           // JSON_HEX_TAG
	"escape 0 3c3e",           //
	"escape 1 5c7530303343",   // the text \u003C: "\\u003C"
	"escape 15 3c3e262722",    // every JSON_HEX_*
	"escape 0 2f",             //
	"escape 64 2f",            // JSON_UNESCAPED_SLASHES
	"escape 0 5c2f",           // the text \/: "\\\/"
	"escape 64 5c2f",          // "\\/"
	"escape 0 c3a9",           // é
	"escape 256 c3a9",         // JSON_UNESCAPED_UNICODE
	"escape 0 f09f9880",       // a surrogate pair
	"escape 0 1f",             // a control byte
	"escape 0 e280a8",         // U+2028: no hex letters
	"escape 0 5c7530306539",   // the text \u00e9: "\\u00e9"
	"escape 0 80",             // false 5
	"escape 512 80",           // null 5
	"escape 2097152 80",       // "\ufffd"
	"escape 4194304 80",       // JSON_THROW_ON_ERROR: false 5
	"escape 32 31",            // JSON_NUMERIC_CHECK: 1
	"escape 32 zz",            // malformed
	"utf8_decode c3a9",        //
	"utf8_decode 2f",          //
	"decode 41",               // not supported
	"escape 1 5c75303033453c", // the text \u003E<: "\\u003E\u003C"
}

// Each fault changes exactly the answers its header comment says, and no other.
func TestPlantedScriptFaults(t *testing.T) {
	const hello = "difffuzz-target 1 escape utf8_decode"
	input := strings.Join(plantedRequests, "\n") + "\n"
	adapter, stderr, status := runScript(t, nil, input)
	require.Equal(t, 0, status, "adapter: exit status")
	require.Empty(t, stderr, "adapter: stderr")
	require.Len(t, adapter, 1+len(plantedRequests), "adapter answers")
	require.Equal(t, hello+" bench", adapter[0], "the adapter's hello (the planted target does not announce bench)")
	want := map[string]string{} // the adapter's answers
	for i, req := range plantedRequests {
		want[req] = adapter[1+i]
	}

	tests := []struct {
		faults  string
		hello   string
		changed map[string]string // request -> answer, for the answers that differ from the adapter's
	}{
		{"", hello, nil},
		{" , ,", hello, nil},
		{"lower-hex-tag", hello, map[string]string{
			"escape 1 3c3e":           ans(`"\u003c\u003e"`, 0),
			"escape 1 5c75303033453c": ans(`"\\u003E\u003c"`, 0),
			"escape 15 3c3e262722":    ans(`"\u003c\u003e\u0026\u0027\u0022"`, 0),
		}},
		{"raw-slash", hello, map[string]string{
			"escape 0 2f":   ans(`"/"`, 0),
			"escape 0 5c2f": ans(`"\\/"`, 0),
		}},
		{"ignore-options", hello, map[string]string{
			"escape 1 3c3e":           ans(`"<>"`, 0),
			"escape 1 5c75303033453c": ans(`"\\u003E<"`, 0),
			"escape 15 3c3e262722":    ans(`"<>&'\""`, 0),
			"escape 64 2f":            ans(`"\/"`, 0),
			"escape 64 5c2f":          ans(`"\\\/"`, 0),
			"escape 256 c3a9":         ans(`"\u00e9"`, 0),
			"escape 512 80":           "false 5",
			"escape 2097152 80":       "false 5",
			"escape 32 31":            ans(`"1"`, 0),
		}},
		{"upper-unicode", hello, map[string]string{
			"escape 0 c3a9":     ans(`"\u00E9"`, 0),
			"escape 0 f09f9880": ans(`"\uD83D\uDE00"`, 0),
			"escape 0 1f":       ans(`"\u001F"`, 0),
			"escape 2097152 80": ans(`"\uFFFD"`, 0),
		}},
		{"drop-quote", hello, map[string]string{
			"escape 0 41":             ans(`"A`, 0),
			"escape 0 -":              ans(`"`, 0),
			"escape 1 3c3e":           ans(`"\u003C\u003E`, 0),
			"escape 0 3c3e":           ans(`"<>`, 0),
			"escape 1 5c7530303343":   ans(`"\\u003C`, 0),
			"escape 15 3c3e262722":    ans(`"\u003C\u003E\u0026\u0027\u0022`, 0),
			"escape 0 2f":             ans(`"\/`, 0),
			"escape 64 2f":            ans(`"/`, 0),
			"escape 0 5c2f":           ans(`"\\\/`, 0),
			"escape 64 5c2f":          ans(`"\\/`, 0),
			"escape 0 c3a9":           ans(`"\u00e9`, 0),
			"escape 256 c3a9":         ans(`"é`, 0),
			"escape 0 f09f9880":       ans(`"\ud83d\ude00`, 0),
			"escape 0 1f":             ans(`"\u001f`, 0),
			"escape 0 e280a8":         ans(`"\u2028`, 0),
			"escape 0 5c7530306539":   ans(`"\\u00e9`, 0),
			"escape 2097152 80":       ans(`"\ufffd`, 0),
			"escape 1 5c75303033453c": ans(`"\\u003E\u003C`, 0),
		}},
		{"hang-efbfbd", hello, nil}, // no input here holds EF BF BD
		{"crash-fe", hello, nil},    // nor FE
		{"options-0", hello + " options=0", map[string]string{
			"escape 1 3c3e":           outside0(jsonopt.HexTag),
			"escape 1 5c7530303343":   outside0(jsonopt.HexTag),
			"escape 15 3c3e262722":    outside0(jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot),
			"escape 64 2f":            outside0(jsonopt.UnescapedSlashes),
			"escape 64 5c2f":          outside0(jsonopt.UnescapedSlashes),
			"escape 256 c3a9":         outside0(jsonopt.UnescapedUnicode),
			"escape 512 80":           outside0(jsonopt.PartialOutputOnError),
			"escape 2097152 80":       outside0(jsonopt.InvalidUTF8Substitute),
			"escape 4194304 80":       outside0(jsonopt.ThrowOnError),
			"escape 32 31":            outside0(jsonopt.NumericCheck),
			"escape 1 5c75303033453c": outside0(jsonopt.HexTag),
		}},
		{"lower-hex-tag,upper-unicode,raw-slash", hello, map[string]string{
			"escape 1 3c3e":           ans(`"\u003c\u003e"`, 0),
			"escape 1 5c75303033453c": ans(`"\\u003E\u003c"`, 0),
			"escape 15 3c3e262722":    ans(`"\u003c\u003e\u0026\u0027\u0022"`, 0),
			"escape 0 2f":             ans(`"/"`, 0),
			"escape 0 5c2f":           ans(`"\\/"`, 0),
			"escape 0 c3a9":           ans(`"\u00E9"`, 0),
			"escape 0 f09f9880":       ans(`"\uD83D\uDE00"`, 0),
			"escape 0 1f":             ans(`"\u001F"`, 0),
			"escape 2097152 80":       ans(`"\uFFFD"`, 0),
		}},
		{"ignore-options,upper-unicode", hello, map[string]string{
			"escape 1 3c3e":           ans(`"<>"`, 0),
			"escape 1 5c75303033453c": ans(`"\\u003E<"`, 0),
			"escape 15 3c3e262722":    ans(`"<>&'\""`, 0),
			"escape 64 2f":            ans(`"\/"`, 0),
			"escape 64 5c2f":          ans(`"\\\/"`, 0),
			"escape 256 c3a9":         ans(`"\u00E9"`, 0),
			"escape 512 80":           "false 5",
			"escape 2097152 80":       "false 5",
			"escape 32 31":            ans(`"1"`, 0),
			"escape 0 c3a9":           ans(`"\u00E9"`, 0),
			"escape 0 f09f9880":       ans(`"\uD83D\uDE00"`, 0),
			"escape 0 1f":             ans(`"\u001F"`, 0),
		}},
	}
	for _, tc := range tests {
		t.Run(strings.ReplaceAll(tc.faults, ",", "+"), func(t *testing.T) {
			for req, a := range tc.changed {
				require.Contains(t, want, req, "changed request")
				require.NotEqual(t, want[req], a, "request %q: the fault should change the adapter's answer", req)
			}
			lines, stderr, status := runArgv(t, plantedPHP(t, tc.faults), input)
			assert.Equal(t, 0, status, "exit status")
			assert.Empty(t, stderr, "stderr")
			require.NotEmpty(t, lines, "no hello")
			assert.Equal(t, tc.hello, lines[0], "hello")
			require.Len(t, lines[1:], len(plantedRequests), "answers:\n%s", strings.Join(lines, "\n"))
			for i, req := range plantedRequests {
				w, ok := tc.changed[req]
				if !ok {
					w = want[req]
				}
				assert.Equal(t, w, lines[1+i], "request %q (adapter: %q)", req, want[req])
			}
		})
	}
}

// A protocol.Client reads the planted target's hello as the adapter's, options=0 included.
func TestPlantedScriptClient(t *testing.T) {
	c, err := protocol.Start(context.Background(), plantedPHP(t, "options-0,drop-quote"))
	require.NoError(t, err)
	defer func() { assert.NoError(t, c.Close()) }()
	assert.Equal(t, protocol.Capabilities{OptionsSet: true}, c.Capabilities())
	assert.False(t, c.CanBench(), "the planted target does not announce bench")
	got, err := c.Do([]protocol.Request{{Op: protocol.OpEscape, Input: []byte("A")}})
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, ans(`"A`, 0), got[0].String())
}

// crash-fe exits 3 with its message on a request whose input holds FE, and only then.
func TestPlantedScriptCrash(t *testing.T) {
	tests := []struct {
		input  string
		status int
		stderr string
	}{
		{"escape 0 fe\n", 3, "planted target: crashing on FE\n"},
		{"escape 0 41\nutf8_decode 41FE42\nescape 0 41\n", 3, "planted target: crashing on FE\n"},
		{"escape 0 41\nescape x fe\nescape 0 fd\nutf8_decode fe41 42\n", 0, ""}, // FE in malformed requests only
	}
	for _, tc := range tests {
		lines, stderr, status := runArgv(t, plantedPHP(t, "crash-fe"), tc.input)
		assert.Equal(t, tc.status, status, "%q: exit status", tc.input)
		assert.Equal(t, tc.stderr, stderr, "%q: stderr", tc.input)
		require.NotEmpty(t, lines, "%q: no hello", tc.input)
		assert.Equal(t, "difffuzz-target 1 escape utf8_decode", lines[0], "%q: hello", tc.input)
		if tc.status == 0 {
			assert.Len(t, lines[1:], strings.Count(tc.input, "\n"), "%q: answers", tc.input)
		}
	}
}

// hang-efbfbd answers the requests before one whose input holds EF BF BD (sent together, so
// that they are buffered when it hangs), and never that one.
func TestPlantedScriptHang(t *testing.T) {
	argv := plantedPHP(t, "hang-efbfbd")
	cmd := exec.Command(argv[0], argv[1:]...)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()

	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	next := func(d time.Duration) (string, bool) {
		select {
		case l, ok := <-lines:
			return l, ok
		case <-time.After(d):
			return "", false
		}
	}

	_, err = io.WriteString(stdin, "escape 0 41\nutf8_decode c3a9\nescape 0 41efbfbd42\nescape 0 42\n")
	require.NoError(t, err)
	for _, want := range []string{"difffuzz-target 1 escape utf8_decode", ans(`"A"`, 0), "e9"} {
		l, ok := next(10 * time.Second)
		require.True(t, ok, "no line %q", want)
		assert.Equal(t, want, l)
	}
	l, ok := next(time.Second)
	assert.False(t, ok, "answered %q to escape 0 41efbfbd42 or after it", l)
}

// An unknown fault, or a second argument, stops the script before its hello with one line on
// stderr and exit status 2.
func TestPlantedScriptUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"bogus"}, `planted-target.php: unknown planted fault "bogus" (known: lower-hex-tag, raw-slash, ignore-options, upper-unicode, drop-quote, hang-efbfbd, crash-fe, options-0)`},
		{[]string{"drop-quote,lenient"}, `unknown planted fault "lenient"`}, // Go-only: a decoder fault
		{[]string{"drop-quote", "raw-slash"}, "planted-target.php: usage: php planted-target.php [FAULT[,FAULT...]]"},
	}
	for _, tc := range tests {
		argv := append(plantedPHP(t, "")[:2], tc.args...)
		lines, stderr, status := runArgv(t, argv, "escape 0 41\n")
		assert.Equal(t, 2, status, "%q: exit status", tc.args)
		assert.Empty(t, lines, "%q: stdout", tc.args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "%q: stderr %q is not one line", tc.args, stderr)
		assert.Contains(t, stderr, tc.want, "%q: stderr", tc.args)
	}
}
