package phpadapter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/protocol"
)

func TestScriptPath(t *testing.T) {
	p, err := ScriptPath()
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if want := filepath.Join(wd, ScriptName); p != want {
		t.Errorf("ScriptPath() = %q; want the source file %q", p, want)
	}
}

func TestTempScript(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	for i := 0; i < 2; i++ { // the second call finds the first's file
		p, err := tempScript()
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(b, Script) {
			t.Fatalf("tempScript() = %q with %d bytes, %v; want the %d bytes of Script", p, len(b), err, len(Script))
		}
		if filepath.Dir(p) != os.TempDir() {
			t.Errorf("tempScript() = %q; want it in %q", p, os.TempDir())
		}
	}
	if m, _ := filepath.Glob(filepath.Join(os.TempDir(), "*")); len(m) != 1 {
		t.Errorf("temporary directory holds %q; want one file", m)
	}
}

// scriptPHP returns the command line that runs the script, skipping the test without php
// (failing instead under CI=true or DIFFFUZZ_REQUIRE_PHP=1, as the conformance test does).
func scriptPHP(t *testing.T) []string {
	t.Helper()
	argv, err := Command()
	if errors.Is(err, ErrNoPHP) {
		if os.Getenv("CI") == "true" || os.Getenv("DIFFFUZZ_REQUIRE_PHP") == "1" {
			t.Fatalf("PHP is required here (CI=true or DIFFFUZZ_REQUIRE_PHP=1) but missing: %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
	require.NoError(t, err)
	return argv
}

// runScript runs the script with the extra environment entries env on input and returns its
// stdout lines, its stderr and its exit status.
func runScript(t *testing.T, env []string, input string) (lines []string, stderr string, status int) {
	t.Helper()
	return runArgvEnv(t, scriptPHP(t), env, input)
}

// capsRequests are sent to the script under each capsTests environment.
var capsRequests = []string{
	"escape 2097152 e08041",
	"escape 512 80",
	"escape 32 31",
	"escape 1049088 80",
	"escape 2147483906 -",
	"escape 0 41424344",
	"escape 0 4142434445",
	"utf8_decode c3a9c3a9",
	"utf8_decode 4142434445",
	"decode 4142434445",
	"escape 32 zz",
	"escape 1 4",
}

// DIFFFUZZ_PHP_OPTIONS and DIFFFUZZ_PHP_MAX_LEN are announced in the hello and enforced;
// without them (or empty) the script answers as it always did.
func TestScriptCapabilities(t *testing.T) {
	const (
		decodeErr = "error operation decode is not supported by this target (it supports: escape utf8_decode): PHP userland cannot observe php_next_utf8_char() steps exactly"
		hexErr    = "error escape: HEX: byte 'z' at offset 0 is not a hex digit"
		oddErr    = "error escape: HEX: odd number of hex digits (1)"
	)
	plain := []string{
		"225c75666666644122 0", "6e756c6c 5", "31 0", "2222 0", "2222 0", "224142434422 0",
		"22414243444522 0", "e9e9", "4142434445", decodeErr, hexErr, oddErr,
	}
	tests := []struct {
		name  string
		env   []string
		hello string
		want  []string // answers to capsRequests
	}{
		{"none", nil, "difffuzz-target 1 escape utf8_decode bench", plain},
		{"empty", []string{"DIFFFUZZ_PHP_OPTIONS=", "DIFFFUZZ_PHP_MAX_LEN="}, "difffuzz-target 1 escape utf8_decode bench", plain},
		{"options", []string{"DIFFFUZZ_PHP_OPTIONS=2097665"}, "difffuzz-target 1 escape utf8_decode bench options=2097665", []string{
			"225c75666666644122 0", "6e756c6c 5",
			"error escape: FLAGS 32 has option bits 32 (JSON_NUMERIC_CHECK) outside this target's options=2097665",
			"error escape: FLAGS 1049088 has option bits 1048576 (JSON_INVALID_UTF8_IGNORE) outside this target's options=2097665",
			"error escape: FLAGS 2147483906 has option bits 2147483906 (JSON_HEX_AMP|JSON_UNESCAPED_UNICODE|2147483648) outside this target's options=2097665",
			"224142434422 0", "22414243444522 0", "e9e9", "4142434445", decodeErr, hexErr, oddErr,
		}},
		{"options=0", []string{"DIFFFUZZ_PHP_OPTIONS=000"}, "difffuzz-target 1 escape utf8_decode bench options=0", []string{
			"error escape: FLAGS 2097152 has option bits 2097152 (JSON_INVALID_UTF8_SUBSTITUTE) outside this target's options=0",
			"error escape: FLAGS 512 has option bits 512 (JSON_PARTIAL_OUTPUT_ON_ERROR) outside this target's options=0",
			"error escape: FLAGS 32 has option bits 32 (JSON_NUMERIC_CHECK) outside this target's options=0",
			"error escape: FLAGS 1049088 has option bits 1049088 (JSON_PARTIAL_OUTPUT_ON_ERROR|JSON_INVALID_UTF8_IGNORE) outside this target's options=0",
			"error escape: FLAGS 2147483906 has option bits 2147483906 (JSON_HEX_AMP|JSON_UNESCAPED_UNICODE|2147483648) outside this target's options=0",
			"224142434422 0", "22414243444522 0", "e9e9", "4142434445", decodeErr, hexErr, oddErr,
		}},
		{"max-len", []string{"DIFFFUZZ_PHP_MAX_LEN=4"}, "difffuzz-target 1 escape utf8_decode bench max-len=4", []string{
			"225c75666666644122 0", "6e756c6c 5", "31 0", "2222 0", "2222 0", "224142434422 0",
			"error escape: input of 5 bytes is longer than this target's max-len=4",
			"e9e9",
			"error utf8_decode: input of 5 bytes is longer than this target's max-len=4",
			decodeErr, hexErr, oddErr,
		}},
		{"both", []string{"DIFFFUZZ_PHP_MAX_LEN=04", "DIFFFUZZ_PHP_OPTIONS=4294967295"}, "difffuzz-target 1 escape utf8_decode bench options=4294967295 max-len=4", []string{
			"225c75666666644122 0", "6e756c6c 5", "31 0", "2222 0", "2222 0", "224142434422 0",
			"error escape: input of 5 bytes is longer than this target's max-len=4",
			"e9e9",
			"error utf8_decode: input of 5 bytes is longer than this target's max-len=4",
			decodeErr, hexErr, oddErr,
		}},
	}
	input := strings.Join(capsRequests, "\n") + "\n"
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines, stderr, status := runScript(t, tc.env, input)
			assert.Equal(t, 0, status, "exit status")
			assert.Empty(t, stderr, "stderr")
			require.NotEmpty(t, lines, "no hello")
			assert.Equal(t, tc.hello, lines[0], "hello")
			require.Len(t, lines[1:], len(capsRequests), "answers:\n%s", strings.Join(lines, "\n"))
			for i, req := range capsRequests {
				assert.Equal(t, tc.want[i], lines[1+i], "request %q", req)
			}
			// The hello parses to what the environment says.
			_, _, caps, err := protocol.ParseHelloCaps(lines[0])
			require.NoError(t, err)
			assert.Equal(t, tc.hello, protocol.HelloWith([]protocol.Op{protocol.OpEscape, protocol.OpUTF8Decode, protocol.OpBench}, caps), "hello round trip")
		})
	}
}

// The script's refusals are word for word those of protocol.Serve with the same capabilities,
// and a protocol.Client reports what the script announced.
func TestScriptCapabilitiesMatchServe(t *testing.T) {
	argv := scriptPHP(t)
	caps := protocol.Capabilities{Options: 2097665, OptionsSet: true, MaxLen: 4}
	c, err := protocol.StartConfig(context.Background(), argv, protocol.Config{Env: []string{"DIFFFUZZ_PHP_OPTIONS=2097665", "DIFFFUZZ_PHP_MAX_LEN=4"}})
	require.NoError(t, err)
	defer func() { assert.NoError(t, c.Close()) }()
	assert.Equal(t, caps, c.Capabilities())

	var reqs []protocol.Request
	for _, line := range capsRequests {
		if r, err := protocol.ParseRequest(line); err == nil && r.Op != protocol.OpDecode {
			reqs = append(reqs, r)
		}
	}
	got, err := c.Do(reqs)
	require.NoError(t, err)

	var in strings.Builder
	for _, r := range reqs {
		in.WriteString(r.String() + "\n")
	}
	var out bytes.Buffer
	h := protocol.Handler{
		Escape:     func(dst, src []byte, _ jsonopt.Options) ([]byte, error) { return dst, nil },
		UTF8Decode: func(dst, src []byte) []byte { return dst },
		Caps:       caps,
	}
	require.NoError(t, protocol.Serve(strings.NewReader(in.String()), &out, h))
	served := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, served, len(reqs)+1)
	refused := 0
	for i, r := range reqs {
		if got[i].ErrorMsg == "" && !strings.HasPrefix(served[1+i], "error ") {
			continue
		}
		refused++
		assert.Equal(t, served[1+i], got[i].String(), "request %s", r)
	}
	assert.Equal(t, 5, refused, "refused requests")
}

// An invalid DIFFFUZZ_PHP_OPTIONS or DIFFFUZZ_PHP_MAX_LEN stops the script before its hello
// with one line on stderr and exit status 2.
func TestScriptBadEnvironment(t *testing.T) {
	tests := []struct {
		env, want string
	}{
		{"DIFFFUZZ_PHP_OPTIONS=abc", `difffuzz-target.php: DIFFFUZZ_PHP_OPTIONS="abc" is not a decimal integer in [0, 4294967295]`},
		{"DIFFFUZZ_PHP_OPTIONS=-1", `DIFFFUZZ_PHP_OPTIONS="-1" is not`},
		{"DIFFFUZZ_PHP_OPTIONS=+1", `DIFFFUZZ_PHP_OPTIONS="+1" is not`},
		{"DIFFFUZZ_PHP_OPTIONS=0x20", `DIFFFUZZ_PHP_OPTIONS="0x20" is not`},
		{"DIFFFUZZ_PHP_OPTIONS= 1", `DIFFFUZZ_PHP_OPTIONS=" 1" is not`},
		{"DIFFFUZZ_PHP_OPTIONS=4294967296", `DIFFFUZZ_PHP_OPTIONS="4294967296" is not`},
		{"DIFFFUZZ_PHP_OPTIONS=99999999999999999999", `DIFFFUZZ_PHP_OPTIONS="99999999999999999999" is not`},
		{"DIFFFUZZ_PHP_MAX_LEN=0", `difffuzz-target.php: DIFFFUZZ_PHP_MAX_LEN="0" is not a decimal integer in [1, 2147483647]`},
		{"DIFFFUZZ_PHP_MAX_LEN=2147483648", `DIFFFUZZ_PHP_MAX_LEN="2147483648" is not`},
		{"DIFFFUZZ_PHP_MAX_LEN=1k", `DIFFFUZZ_PHP_MAX_LEN="1k" is not`},
		{"DIFFFUZZ_PHP_MAX_LEN=1\n2", `DIFFFUZZ_PHP_MAX_LEN="1\n2" is not`},
		{"DIFFFUZZ_PHP_UTF8_DECODE=utf8_decode($s", `difffuzz-target.php: DIFFFUZZ_PHP_UTF8_DECODE="utf8_decode($s": syntax error`},
		{"DIFFFUZZ_PHP_UTF8_DECODE=strlen($s)", `DIFFFUZZ_PHP_UTF8_DECODE="strlen($s)": its value on the empty string is int, not a string`},
		{"DIFFFUZZ_PHP_UTF8_DECODE=no_such_function($s)", `DIFFFUZZ_PHP_UTF8_DECODE="no_such_function($s)": Call to undefined function no_such_function()`},
		{"DIFFFUZZ_PHP_JSON_ENCODE=null", `DIFFFUZZ_PHP_JSON_ENCODE="null": its value on the empty string is null, not a string`},
	}
	for _, tc := range tests {
		lines, stderr, status := runScript(t, []string{tc.env}, "escape 0 41\n")
		assert.Equal(t, 2, status, "%q: exit status", tc.env)
		assert.Empty(t, lines, "%q: stdout", tc.env)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "%q: stderr %q is not one line", tc.env, stderr)
		assert.Contains(t, stderr, tc.want, "%q: stderr", tc.env)
	}
}

// benchPairs are plain requests whose bench the script must answer with the same result.
var benchPairs = []string{
	"escape 0 41",
	"escape 2097152 e08041",
	"escape 0 80",
	"escape 512 80",
	"escape 4194304 80", // THROW_ON_ERROR: the exception is caught in the loop too
	"escape 4194816 80",
	"escape 32 31",
	"escape 0 -",
	"escape 1 3c2f" + strings.Repeat("c3a9e282ac", 200),
	"utf8_decode 41c3a9",
	"utf8_decode -",
	"utf8_decode " + strings.Repeat("41c3a9e08041", 200),
}

// The script answers "bench OP FLAGS HEX N" with a positive time and, byte for byte, the
// answer to the plain request; its hello announces bench.
func TestScriptBench(t *testing.T) {
	var in strings.Builder
	for _, line := range benchPairs {
		f := strings.Fields(line)
		if f[0] == "escape" {
			fmt.Fprintf(&in, "%s\nbench escape %s %s 2000\n", line, f[1], f[2])
		} else {
			fmt.Fprintf(&in, "%s\nbench %s 0 %s 2000\n", line, f[0], f[1])
		}
	}
	lines, stderr, status := runScript(t, nil, in.String())
	assert.Equal(t, 0, status, "exit status")
	assert.Empty(t, stderr, "stderr")
	require.NotEmpty(t, lines, "no hello")
	assert.Equal(t, "difffuzz-target 1 escape utf8_decode bench", lines[0], "hello")
	require.Len(t, lines[1:], 2*len(benchPairs), "answers")
	for i, line := range benchPairs {
		plain, bench := lines[1+2*i], lines[2+2*i]
		op := protocol.Op(strings.Fields(line)[0])
		br, err := protocol.ParseBenchResponse(op, bench)
		if !assert.NoError(t, err, "bench of %.40q answered %.80q", line, bench) {
			continue
		}
		assert.Equal(t, plain, br.Resp.String(), "bench result of %.40q", line)
		assert.False(t, strings.HasPrefix(plain, "error "), "plain answer to %.40q: %q", line, plain)
		assert.Greater(t, br.Elapsed, time.Duration(0), "bench of %.40q: NANOSECONDS", line)
	}
}

// The script refuses malformed bench requests with protocol.Serve's messages, and bench
// requests outside its capabilities as it refuses the plain ones.
func TestScriptBenchErrors(t *testing.T) {
	reqs := []string{
		"bench",
		"bench escape 0 41",
		"bench escape 0 41 1 1",
		"bench frob 0 41 1",
		"bench ESCAPE 0 41 1",
		"bench bench 0 41 1",
		"bench escape x 41 1",
		"bench escape -1 41 1",
		"bench escape 4294967296 41 1",
		"bench utf8_decode 1 41 1",
		"bench decode 7 41 1",
		"bench escape 0 zz 1",
		"bench escape 0 4 1",
		"bench escape 0  1",
		"bench escape 0 41 0",
		"bench escape 0 41 -1",
		"bench escape 0 41 abc",
		"bench escape 0 41 +5",
		"bench escape 0 41 1000000001",
		"bench escape 0 41 99999999999999999999",
		// Capabilities (the environment below), as for the plain request.
		"bench escape 32 31 1",
		"bench escape 1049088 80 1",
		"bench escape 0 4142434445 1",
		"bench utf8_decode 0 4142434445 1",
	}
	env := []string{"DIFFFUZZ_PHP_OPTIONS=2097665", "DIFFFUZZ_PHP_MAX_LEN=4"}
	input := strings.Join(reqs, "\n") + "\n"
	lines, stderr, status := runScript(t, env, input)
	assert.Equal(t, 0, status, "exit status")
	assert.Empty(t, stderr, "stderr")
	require.Len(t, lines, 1+len(reqs), "hello and answers:\n%s", strings.Join(lines, "\n"))
	assert.Equal(t, "difffuzz-target 1 escape utf8_decode bench options=2097665 max-len=4", lines[0])

	var out bytes.Buffer
	h := protocol.Handler{
		Escape:     func(dst, src []byte, _ jsonopt.Options) ([]byte, error) { return dst, nil },
		UTF8Decode: func(dst, src []byte) []byte { return dst },
		Caps:       protocol.Capabilities{Options: 2097665, OptionsSet: true, MaxLen: 4},
	}
	require.NoError(t, protocol.Serve(strings.NewReader(input), &out, h))
	served := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, served, 1+len(reqs))
	assert.Equal(t, served[0], lines[0], "hello")
	for i, req := range reqs {
		assert.True(t, strings.HasPrefix(lines[1+i], "error "), "request %q answered %q; want an error", req, lines[1+i])
		assert.Equal(t, served[1+i], lines[1+i], "request %q", req)
	}

	// decode is refused as the plain decode is (with the reason PHP cannot answer it).
	lines, _, _ = runScript(t, nil, "bench decode 0 41 1\ndecode 41\nbench escape 0 41 3\n")
	require.Len(t, lines, 4)
	assert.Equal(t, lines[2], lines[1], "bench decode and decode")
	assert.Contains(t, lines[1], "error operation decode is not supported by this target (it supports: escape utf8_decode)")
	assert.Regexp(t, `^[0-9]+ 224122 0$`, lines[3], "serving goes on")
}

// protocol.Client.Bench against the script: the result is the plain answer, the time grows
// with N, and a refusal leaves the client usable.
func TestScriptBenchClient(t *testing.T) {
	c, err := protocol.Start(context.Background(), scriptPHP(t))
	require.NoError(t, err)
	defer func() { assert.NoError(t, c.Close()) }()
	assert.True(t, c.CanBench(), "CanBench")
	assert.Equal(t, []protocol.Op{protocol.OpEscape, protocol.OpUTF8Decode}, c.Ops(), "Ops (bench is not checked)")

	reqs := []protocol.Request{
		{Op: protocol.OpEscape, Flags: jsonopt.InvalidUTF8Substitute, Input: []byte("A\xe0\x80A\xc3\xa9")},
		{Op: protocol.OpEscape, Input: []byte("\x80")},
		{Op: protocol.OpUTF8Decode, Input: []byte("A\xc3\xa9\xe2\x82\xac")},
	}
	plain, err := c.Do(reqs)
	require.NoError(t, err)
	for i, req := range reqs {
		elapsed, resp, err := c.Bench(req, 1000, 0)
		require.NoError(t, err, "Bench(%s)", req)
		assert.Equal(t, plain[i].String(), resp.String(), "Bench(%s) result", req)
		assert.Greater(t, elapsed, time.Duration(0), "Bench(%s) elapsed", req)
	}
	one, _, err := c.Bench(reqs[0], 1, 0)
	require.NoError(t, err)
	many, _, err := c.Bench(reqs[0], 300000, time.Minute)
	require.NoError(t, err)
	assert.Greater(t, many, one, "300,000 runs against 1")

	_, _, err = c.Bench(protocol.Request{Op: protocol.OpDecode, Input: []byte("A")}, 10, 0)
	assert.ErrorContains(t, err, "does not support decode", "decode is not announced: not sent")
	again, err := c.Do(reqs[:1])
	require.NoError(t, err)
	assert.Equal(t, plain[0].String(), again[0].String(), "Do after the refused bench")

	// Refused by the script (options=0): a *protocol.BenchError with its message.
	c0, err := protocol.StartConfig(context.Background(), scriptPHP(t), protocol.Config{Env: []string{"DIFFFUZZ_PHP_OPTIONS=0"}})
	require.NoError(t, err)
	defer func() { assert.NoError(t, c0.Close()) }()
	_, resp, err := c0.Bench(protocol.Request{Op: protocol.OpEscape, Flags: jsonopt.HexTag, Input: []byte("<")}, 10, 0)
	var be *protocol.BenchError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, "escape: FLAGS 1 has option bits 1 (JSON_HEX_TAG) outside this target's options=0", be.Msg)
	assert.Equal(t, be.Msg, resp.ErrorMsg)
	_, resp, err = c0.Bench(protocol.Request{Op: protocol.OpEscape, Input: []byte("<")}, 10, 0)
	require.NoError(t, err, "after the refusal")
	assert.Equal(t, "223c22 0", resp.String())
}

// DIFFFUZZ_PHP_UTF8_DECODE and DIFFFUZZ_PHP_JSON_ENCODE answer with a PHP expression in place
// of utf8_decode($s) and json_encode($s, $flags), plain requests and bench alike; unset, the
// functions answer.
func TestScriptExpressions(t *testing.T) {
	const in = "utf8_decode c3a980\nescape 0 c3a9\nbench utf8_decode 0 c3a980 3\n"
	lines, stderr, status := runScript(t, nil, in)
	require.Equal(t, 0, status, stderr)
	require.Len(t, lines, 4, stderr)
	assert.Equal(t, []string{"e93f", "225c753030653922 0"}, lines[1:3])
	assert.Regexp(t, `^[0-9]+ e93f$`, lines[3])

	lines, stderr, status = runScript(t, []string{
		`DIFFFUZZ_PHP_UTF8_DECODE=str_replace("?", "\x1a", utf8_decode($s))`,
		`DIFFFUZZ_PHP_JSON_ENCODE=strtoupper(json_encode($s, $flags))`,
	}, in)
	require.Equal(t, 0, status, stderr)
	require.Len(t, lines, 4, stderr)
	assert.Equal(t, "difffuzz-target 1 escape utf8_decode bench", lines[0])
	assert.Equal(t, []string{"e91a", "225c553030453922 0"}, lines[1:3], `the \x1a and the upper-case \U00E9`)
	assert.Regexp(t, `^[0-9]+ e91a$`, lines[3], "bench times the expression and answers as it does")
}
