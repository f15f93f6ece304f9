package protocol

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// The test binary doubles as a target: with fakeTargetEnv set, TestMain runs the named fake
// target instead of the tests.
const fakeTargetEnv = "DIFFFUZZ_PROTOCOL_FAKE_TARGET"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeTargetEnv); mode != "" {
		os.Exit(fakeTarget(mode))
	}
	os.Exit(m.Run())
}

// fakeTarget runs one kind of target on stdin/stdout and returns its exit status.
func fakeTarget(mode string) int {
	hello := Hello(fakeHandler.Ops()) + "\n"
	in := bufio.NewReader(os.Stdin)
	if reply, ok := strings.CutPrefix(mode, "benchreply:"); ok { // answers every bench with reply
		return benchFake(in, func(string) string { return reply })
	}
	switch mode {
	case "bgchild": // leaves a child in its process group (sleep 777 &), then serves
		child := exec.Command("sleep", "777")
		if err := child.Start(); err != nil {
			return 9
		}
		os.WriteFile(os.Getenv("FAKE_CHILD_PID"), []byte(strconv.Itoa(child.Process.Pid)), 0o644)
		if err := Serve(in, os.Stdout, fakeHandler); err != nil {
			return 1
		}
		return 0
	case "nobench": // Serve's answers (bench included), but a hello without bench
		os.Stdout.WriteString(hello)
		for {
			line, err := readLine(in, nil)
			if err != nil {
				return 0
			}
			out, _ := answer(nil, nil, string(line), fakeHandler)
			os.Stdout.Write(append(out, '\n'))
		}
	case "benchhang": // never answers a bench
		return benchFake(in, func(string) string {
			fmt.Fprintln(os.Stderr, "fake target: benchmarking forever")
			time.Sleep(time.Minute)
			return ""
		})
	case "benchcrash": // exits 3 on a bench
		return benchFake(in, func(string) string {
			fmt.Fprintln(os.Stderr, "fake target: crashing in bench")
			os.Exit(3)
			return ""
		})
	case "benchslow": // answers a bench after 600 ms, claiming 600 ms
		return benchFake(in, func(line string) string {
			time.Sleep(600 * time.Millisecond)
			out, _ := answer(nil, nil, line, fakeHandler)
			_, rest, _ := strings.Cut(string(out), " ")
			return "600000000 " + rest
		})
	case "good":
		if err := Serve(os.Stdin, os.Stdout, fakeHandler); err != nil {
			fmt.Fprintln(os.Stderr, "fake target:", err)
			return 2
		}
		return 0
	case "crash": // answers two requests, then dies on the third
		os.Stdout.WriteString(hello)
		for i := 0; ; i++ {
			line, err := readLine(in, nil)
			if err != nil {
				return 0
			}
			if i == 2 {
				fmt.Fprintln(os.Stderr, "fake target: warming up")
				fmt.Fprintf(os.Stderr, "fake target: simulated crash on request %q\n", line)
				return 3
			}
			os.Stdout.WriteString("- 0\n")
		}
	case "signal": // killed by a signal on its first request
		os.Stdout.WriteString(hello)
		readLine(in, nil)
		fmt.Fprintln(os.Stderr, "fake target: about to be killed")
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Kill()
		}
		time.Sleep(time.Minute)
		return 0
	case "hang": // answers one request, then reads but never answers, not even at end of input
		os.Stdout.WriteString(hello)
		readLine(in, nil)
		os.Stdout.WriteString("- 0\n")
		fmt.Fprintln(os.Stderr, "fake target: going to sleep")
		io.Copy(io.Discard, in)
		time.Sleep(time.Minute)
		return 0
	case "endless", "endlesshello": // a line that never ends (cat /dev/zero), after the hello or as it
		if mode == "endless" {
			os.Stdout.WriteString(hello)
			readLine(in, nil)
		}
		zeros := make([]byte, 1<<20)
		for {
			if _, err := os.Stdout.Write(zeros); err != nil {
				return 0
			}
		}
	case "double": // answers every request with two lines
		os.Stdout.WriteString(hello)
		for {
			if _, err := readLine(in, nil); err != nil {
				return 0
			}
			os.Stdout.WriteString("- 0\n- 0\n")
		}
	case "huge": // answers escape with 4 MiB of 'A' and decode with 1 Mi steps, whatever it is asked
		os.Stdout.WriteString(hello)
		big := strings.Repeat("41", 4<<20) + " 0\n"
		steps := strings.TrimSuffix(strings.Repeat("41/1 ", 1<<20), " ") + "\n"
		for {
			line, err := readLine(in, nil)
			if err != nil {
				return 0
			}
			if bytes.HasPrefix(line, []byte("decode")) {
				os.Stdout.WriteString(steps)
			} else {
				os.Stdout.WriteString(big)
			}
		}
	case "garbage":
		os.Stdout.WriteString(hello)
		for {
			if _, err := readLine(in, nil); err != nil {
				return 0
			}
			os.Stdout.WriteString("hello world, this is not a response\n")
		}
	case "version":
		os.Stdout.WriteString("difffuzz-target 2 escape decode utf8_decode\n")
		io.Copy(io.Discard, in)
		return 0
	case "nohello":
		os.Stdout.WriteString("Welcome to my JSON encoder!\n")
		io.Copy(io.Discard, in)
		return 0
	case "silent": // never says hello
		time.Sleep(time.Minute)
		return 0
	case "exitearly": // exits at once with an error, before its hello
		fmt.Fprintln(os.Stderr, "fake target: cannot open configuration file")
		return 7
	case "caps": // announces capabilities and keys no client knows, and enforces fakeCaps
		h := fakeHandler
		h.Caps = fakeCaps
		os.Stdout.WriteString(HelloWith(h.Ops(), h.Caps) + " bench-ns=1 future-key=a=b\n")
		for {
			line, err := readLine(in, nil)
			if err != nil {
				return 0
			}
			out, _ := answer(nil, nil, string(line), h)
			os.Stdout.Write(append(out, '\n'))
		}
	case "servecaps": // Serve with fakeCaps
		h := fakeHandler
		h.Caps = fakeCaps
		if err := Serve(os.Stdin, os.Stdout, h); err != nil {
			fmt.Fprintln(os.Stderr, "fake target:", err)
			return 2
		}
		return 0
	case "badcaps": // a hello with a bad value of a known key
		os.Stdout.WriteString("difffuzz-target 1 escape decode utf8_decode max-len=0\n")
		io.Copy(io.Discard, in)
		return 0
	case "exit1": // serves, but exits 1 at end of input
		Serve(os.Stdin, os.Stdout, fakeHandler)
		fmt.Fprintln(os.Stderr, "fake target: unhappy at the end")
		return 1
	}
	fmt.Fprintln(os.Stderr, "unknown fake target mode", mode)
	return 2
}

// benchFake is a fake target that announces bench: it answers plain requests as Serve does
// and bench requests with onBench(line).
func benchFake(in *bufio.Reader, onBench func(line string) string) int {
	os.Stdout.WriteString(Hello(append(fakeHandler.Ops(), OpBench)) + "\n")
	for {
		line, err := readLine(in, nil)
		if err != nil {
			return 0
		}
		if isBenchLine(string(line)) {
			os.Stdout.WriteString(onBench(string(line)) + "\n")
			continue
		}
		out, _ := answer(nil, nil, string(line), fakeHandler)
		os.Stdout.Write(append(out, '\n'))
	}
}

// fakeCaps are the capabilities of the fake targets "caps" and "servecaps": HEX_TAG,
// PARTIAL_OUTPUT_ON_ERROR and INVALID_UTF8_SUBSTITUTE, inputs up to 8 bytes.
var fakeCaps = Capabilities{Options: jsonopt.HexTag | jsonopt.PartialOutputOnError | jsonopt.InvalidUTF8Substitute, OptionsSet: true, MaxLen: 8}

// startFake starts the test binary as the fake target mode.
func startFake(t *testing.T, mode string, cfg Config) (*Client, error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Env = append(cfg.Env, fakeTargetEnv+"="+mode)
	return StartConfig(context.Background(), []string{exe, "-test.run=^$"}, cfg)
}

func mustRequest(t *testing.T, line string) Request {
	t.Helper()
	r, err := ParseRequest(line)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestClientGood(t *testing.T) {
	c, err := startFake(t, "good", Config{})
	if err != nil {
		t.Fatal(err)
	}
	assert.Equal(t, []Op{OpEscape, OpDecode, OpUTF8Decode}, c.Ops(), "Ops()")
	tests := []struct{ req, want string }{
		{"escape 2097152 e08041", "225c75666666644122 0"},
		{"escape 0 80", "false 5"},
		{"escape 512 80", "6e756c6c 5"},
		{"decode 41e08041c3a9", "41/1 !/2 41/1 e9/2"},
		{"utf8_decode 41c3a9", "41e9"},
		{"escape 32 31", "31 0"}, // json_encode("1", JSON_NUMERIC_CHECK) is the number 1
		{"escape 128 31", "error JSON_PRETTY_PRINT (128) is not implemented by the fake"},
	}
	var reqs []Request
	for _, tc := range tests {
		reqs = append(reqs, mustRequest(t, tc.req))
	}
	resps, err := c.Do(reqs)
	require.NoError(t, err)
	for i, tc := range tests {
		assert.Equal(t, tc.want, resps[i].String(), "request %q", tc.req)
	}
	assert.Equal(t, Response{Op: OpEscape, Result: []byte("1")}, resps[5], "a number result")
	assert.Equal(t, Response{Op: OpEscape, ErrorMsg: "JSON_PRETTY_PRINT (128) is not implemented by the fake"}, resps[6], "a refusal")

	// A large pipelined batch, then an empty one, then a single request.
	const n = 20000
	reqs = reqs[:0]
	for i := 0; i < n; i++ {
		reqs = append(reqs, Request{Op: OpEscape, Flags: jsonopt.Combo(i % jsonopt.NumStringCombos), Input: []byte{byte(i), byte(i >> 8)}})
	}
	resps, err = c.Do(reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range reqs {
		want, err := fakeEscape(nil, r.Input, r.Flags)
		if len(want) == 0 && err != nil {
			want = nil
		}
		if got := resps[i]; string(got.Result) != string(want) || got.False != (want == nil) || got.Err != jsonopt.ErrorCode(err) {
			t.Fatalf("request %d %s: got %s; want %q %v", i, r, got, want, err)
		}
	}
	resps, err = c.Do(nil)
	assert.NoError(t, err, "Do(nil)")
	assert.Empty(t, resps, "Do(nil)")
	if resps, err := c.Do([]Request{{Op: OpUTF8Decode}}); assert.NoError(t, err, "Do(utf8_decode -)") {
		assert.Equal(t, "-", resps[0].String(), "Do(utf8_decode -)")
	}
	assert.NoError(t, c.Close(), "Close")
	_, err = c.Do(reqs[:1])
	assert.Error(t, err, "Do after Close succeeded")
}

// A target's announced capabilities reach the client, which still sends every request: the
// target refuses those outside them.
func TestClientCapabilities(t *testing.T) {
	c, err := startFake(t, "good", Config{})
	require.NoError(t, err)
	assert.Equal(t, Capabilities{Options: ^jsonopt.Options(0)}, c.Capabilities(), "a hello without fields")
	require.NoError(t, c.Close())

	for _, tc := range []struct {
		mode    string
		ignored []string
	}{
		{"caps", []string{"bench-ns=1", "future-key=a=b"}},
		{"servecaps", nil},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			c, err := startFake(t, tc.mode, Config{})
			require.NoError(t, err)
			defer c.Close()
			assert.Equal(t, []Op{OpEscape, OpDecode, OpUTF8Decode}, c.Ops())
			want := fakeCaps
			want.Ignored = tc.ignored
			caps := c.Capabilities()
			assert.Equal(t, want, caps)
			if len(caps.Ignored) > 0 {
				caps.Ignored[0] = "changed"
				assert.Equal(t, tc.ignored, c.Capabilities().Ignored, "Capabilities must return a copy")
			}

			tests := []struct{ req, want string }{
				{"escape 2097152 e08041", "225c75666666644122 0"},
				{"escape 512 80", "6e756c6c 5"},
				{"escape 0 3132333435363738", "22313233343536373822 0"}, // 8 bytes: the longest accepted
				{"escape 32 31", "error escape: FLAGS 32 has option bits 32 (JSON_NUMERIC_CHECK) outside this target's options=2097665"},
				{"escape 1048576 80", "error escape: FLAGS 1048576 has option bits 1048576 (JSON_INVALID_UTF8_IGNORE) outside this target's options=2097665"},
				{"escape 0 313233343536373839", "error escape: input of 9 bytes is longer than this target's max-len=8"},
				{"decode 41e08041c3a9", "41/1 !/2 41/1 e9/2"},
				{"decode 313233343536373839", "error decode: input of 9 bytes is longer than this target's max-len=8"},
				{"utf8_decode 41c3a9", "41e9"},
			}
			var reqs []Request
			for _, tc := range tests {
				reqs = append(reqs, mustRequest(t, tc.req))
			}
			resps, err := c.Do(reqs)
			require.NoError(t, err)
			require.Len(t, resps, len(tests))
			for i, tc := range tests {
				assert.Equal(t, tc.want, resps[i].String(), "request %q", tc.req)
			}
		})
	}
}

// A window of 1 is lock-step; every request still gets its answer.
func TestClientSmallWindow(t *testing.T) {
	c, err := startFake(t, "good", Config{Window: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var reqs []Request
	for i := 0; i < 500; i++ {
		reqs = append(reqs, Request{Op: OpUTF8Decode, Input: []byte{0xc3, byte(0x80 + i%64)}})
	}
	resps, err := c.Do(reqs)
	require.NoError(t, err)
	for i := range reqs {
		require.Equal(t, string([]byte{byte(0xc0 + i%64)}), string(resps[i].Result), "request %d: %s", i, resps[i])
	}
}

func TestClientUnsupportedOp(t *testing.T) {
	c, err := startFake(t, "good", Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Do([]Request{{Op: OpEscape}, {Op: "frob"}})
	if assert.Error(t, err, "Do(frob)") {
		assert.Contains(t, err.Error(), `request #1: target`, "Do(frob) error")
		assert.Contains(t, err.Error(), `does not support "frob" (it announced: escape decode utf8_decode bench)`, "Do(frob) error")
	}
	// The client is still usable.
	if resps, err := c.Do([]Request{{Op: OpEscape, Input: []byte("A")}}); assert.NoError(t, err, "after the refusal") {
		assert.Equal(t, "224122 0", resps[0].String(), "after the refusal")
	}
}

// TestClientFailures checks that each way a target can break the protocol gives a
// *TargetError of the right kind that names the request, the exit status and the stderr.
func TestClientFailures(t *testing.T) {
	reqs := []Request{
		{Op: OpEscape, Input: []byte("a")},
		{Op: OpEscape, Input: []byte("b")},
		{Op: OpEscape, Flags: 512, Input: []byte("\x80")},
		{Op: OpEscape, Input: []byte("d")},
	}
	tests := []struct {
		mode      string
		inStart   bool // the failure is expected from Start
		kind      FailureKind
		index     int // request index in the error
		answered  int // responses returned before the failure
		wantParts []string
	}{
		{"crash", false, Exited, 2, 2, []string{"exited before answering", "request #2: escape 512 80", "exit status 3", "fake target: warming up", `simulated crash on request "escape 512 80"`}},
		{"signal", false, Exited, 0, 0, []string{"exited before answering", "request #0: escape 0 61", "signal: killed", "about to be killed"}},
		{"hang", false, TimedOut, 1, 1, []string{"no response within 300ms", "request #1: escape 0 62", "going to sleep"}},
		{"garbage", false, Malformed, 0, 0, []string{`malformed response "hello world, this is not a response"`, "escape response has 7 field(s), want 2", "request #0: escape 0 61", "stderr empty"}},
		{"version", true, WrongVersion, -1, 0, []string{"bad hello line", "target speaks protocol version 2; this client speaks version 1"}},
		{"nohello", true, Malformed, -1, 0, []string{`bad hello line "Welcome to my JSON encoder!"`, "does not start with"}},
		{"silent", true, TimedOut, -1, 0, []string{"no hello line within 300ms"}},
		{"badcaps", true, Malformed, -1, 0, []string{`bad hello line "difffuzz-target 1 escape decode utf8_decode max-len=0"`, `hello: max-len="0": N is not a decimal integer in [1, 2147483647]`}},
		{"exitearly", true, Exited, -1, 0, []string{"exited before its hello line", "exit status 7", "cannot open configuration file"}},
		// A line without end is a malformed answer at MaxLine bytes, not memory until the timeout.
		{"endless", false, Malformed, 0, 0, []string{"its answer is a line longer than 16777216 bytes", "request #0: escape 0 61"}},
		{"endlesshello", true, Malformed, -1, 0, []string{"its hello line is a line longer than 16777216 bytes"}},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			// Only a timeout under test is short: the other failures are not waits, and a
			// loaded machine may take longer than 300ms to start a target.
			cfg := Config{Timeout: 5 * time.Second, Grace: 2 * time.Second}
			if tc.kind == TimedOut {
				cfg.Timeout = 300 * time.Millisecond
			}
			c, err := startFake(t, tc.mode, cfg)
			for try := 1; !tc.inStart && err != nil && try < 5; try++ {
				c, err = startFake(t, tc.mode, cfg) // (a hello later than 300ms is not what "hang" tests)
				start = time.Now()
			}
			var resps []Response
			if err == nil {
				if tc.inStart {
					c.Close()
					t.Fatalf("Start succeeded; want a %s error", tc.kind)
				}
				resps, err = c.Do(reqs)
				if err == nil {
					t.Fatalf("Do succeeded; want a %s error", tc.kind)
				}
				// Later calls report the same failure; Close is quiet.
				if _, err2 := c.Do(reqs); err2 != err {
					t.Errorf("second Do: %v; want the first error again", err2)
				}
				if err := c.Close(); err != nil {
					t.Errorf("Close after failure: %v", err)
				}
			} else if !tc.inStart {
				t.Fatalf("Start: %v", err)
			}
			var te *TargetError
			require.ErrorAs(t, err, &te, "error %v is a %T; want *TargetError", err, err)
			assert.Equal(t, tc.kind, te.Kind, "kind")
			assert.Equal(t, tc.index, te.Index, "request index")
			assert.Equal(t, strings.HasPrefix(tc.mode, "endless"), te.TooLong, "TooLong: the line was longer than MaxLine")
			assert.Len(t, resps, tc.answered, "responses before the failure")
			for _, p := range tc.wantParts {
				assert.Contains(t, err.Error(), p, "error")
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
			t.Logf("%s: %v", tc.mode, err)
		})
	}
}

func TestClientCloseReportsExitStatus(t *testing.T) {
	c, err := startFake(t, "exit1", Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do([]Request{{Op: OpDecode, Input: []byte("A")}}); err != nil {
		t.Fatal(err)
	}
	err = c.Close()
	var te *TargetError
	if assert.ErrorAs(t, err, &te, "Close = %v; want a *TargetError", err) {
		assert.Equal(t, Exited, te.Kind, "Close = %v: kind", err)
		assert.Contains(t, err.Error(), "exit status 1", "Close error")
		assert.Contains(t, err.Error(), "unhappy at the end", "Close error: the stderr")
	}
}

// A target that does not exit at the end of its input is killed after the grace period.
func TestClientCloseKillsHangingTarget(t *testing.T) {
	c, err := startFake(t, "hang", Config{Grace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = c.Close()
	var te *TargetError
	if assert.ErrorAs(t, err, &te, "Close = %v; want a *TargetError", err) {
		assert.Equal(t, TimedOut, te.Kind, "Close = %v: kind", err)
		assert.Contains(t, err.Error(), "did not exit within 200ms", "Close error")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %v", d)
	}
}

func TestClientContextCancel(t *testing.T) {
	exe, _ := os.Executable()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := StartConfig(ctx, []string{exe}, Config{Env: []string{fakeTargetEnv + "=hang"}, Grace: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do([]Request{{Op: OpEscape}}); err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	_, err = c.Do([]Request{{Op: OpEscape}})
	if assert.Error(t, err, "Do after cancel; want a cancellation error") {
		assert.Contains(t, err.Error(), "cancel", "Do after cancel")
	}
	c.Close()
}

func TestStartMissingCommand(t *testing.T) {
	_, err := Start(context.Background(), []string{"/nonexistent/difffuzz-target"})
	if assert.Error(t, err, "Start(/nonexistent/difffuzz-target)") {
		assert.Contains(t, err.Error(), "starting target /nonexistent/difffuzz-target", "Start error")
	}
	_, err = Start(context.Background(), nil)
	assert.Error(t, err, "Start(nil) succeeded")
}

// BenchmarkClientRoundTrip measures pipelined requests per second through the fake target.
func BenchmarkClientRoundTrip(b *testing.B) {
	exe, _ := os.Executable()
	c, err := StartConfig(context.Background(), []string{exe}, Config{Env: []string{fakeTargetEnv + "=good"}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	reqs := make([]Request, 4096)
	for i := range reqs {
		reqs[i] = Request{Op: OpEscape, Input: []byte("h\xc3\xa9llo")}
	}
	b.ResetTimer()
	start := time.Now()
	n := 0
	for n < b.N {
		batch := reqs[:min(len(reqs), b.N-n)]
		if _, err := c.Do(batch); err != nil {
			b.Fatal(err)
		}
		n += len(batch)
	}
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "req/s")
}

// TestClientCutsHugeAnswers: an answer longer than any right one (4 MiB for a 1-byte escape,
// a million steps) keeps only its start (Keep), and says how long it was (Cut), so that a
// batch of such answers costs bounded memory.
func TestClientCutsHugeAnswers(t *testing.T) {
	c, err := startFake(t, "huge", Config{Timeout: 10 * time.Second})
	require.NoError(t, err)
	defer c.Close()
	reqs := []Request{{Op: OpEscape, Input: []byte("a")}, {Op: OpDecode, Input: []byte("ab")}, {Op: OpEscape, Input: make([]byte, 1000)}}
	resps, err := c.Do(reqs)
	require.NoError(t, err)
	require.Len(t, resps, 3)
	assert.Equal(t, 4<<20, resps[0].Cut)
	assert.Len(t, resps[0].Result, Keep(reqs[0]))
	assert.Equal(t, 6+4096, Keep(reqs[0]))
	assert.Equal(t, byte('A'), resps[0].Result[len(resps[0].Result)-1])
	assert.LessOrEqual(t, cap(resps[0].Result), 2*Keep(reqs[0]), "a copy, not the 4 MiB array")
	assert.Equal(t, 1<<20, resps[1].Cut)
	assert.Len(t, resps[1].Steps, Keep(reqs[1]))
	assert.Len(t, resps[2].Result, 6000+4096)
}

// TestClientMoreLinesThanRequests: a target that writes two lines for every request is a
// failure of Do, not a deadlock (the writer blocked on the target's full stdin, the target on
// its stdout, Do waiting for a request to be sent) that no signal ends.
func TestClientMoreLinesThanRequests(t *testing.T) {
	c, err := startFake(t, "double", Config{Timeout: 5 * time.Second, Window: 16})
	require.NoError(t, err)
	defer c.Close()
	reqs := make([]Request, 100000)
	for i := range reqs {
		reqs[i] = Request{Op: OpEscape}
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Do(reqs)
		done <- err
	}()
	select {
	case err := <-done:
		var te *TargetError
		require.ErrorAs(t, err, &te)
		assert.Equal(t, Malformed, te.Kind)
		assert.Equal(t, "more lines than requests", te.Reason)
		assert.Contains(t, err.Error(), "before request #")
	case <-time.After(20 * time.Second):
		t.Fatal("Do did not return")
	}
}

// TestClientUnasked: Unasked takes the line a target writes after an answer (here each
// answer's second line), so that the next Do is in step; with no such line it waits its time
// and takes nothing, and the client stays usable.
func TestClientUnasked(t *testing.T) {
	c, err := startFake(t, "double", Config{Timeout: 5 * time.Second, Window: 16})
	require.NoError(t, err)
	defer c.Close()
	for range 3 {
		rs, err := c.Do([]Request{{Op: OpEscape}})
		require.NoError(t, err)
		require.Len(t, rs, 1)
		line, ok := c.Unasked(5 * time.Second)
		assert.True(t, ok)
		assert.Equal(t, "- 0", line)
	}
	start := time.Now()
	line, ok := c.Unasked(50 * time.Millisecond)
	assert.False(t, ok, "no line: %q", line)
	assert.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond)
	rs, err := c.Do([]Request{{Op: OpEscape}})
	require.NoError(t, err, "usable after a wait for nothing")
	assert.Len(t, rs, 1)
	c.Kill()
	_, ok = c.Unasked(time.Second)
	assert.False(t, ok, "a killed client")
}
