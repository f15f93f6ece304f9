package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/jsonopt"
)

func TestOpBenchIsNotCheckable(t *testing.T) {
	assert.False(t, OpBench.Valid(), "OpBench.Valid()")
	assert.NotContains(t, Ops, OpBench, "Ops")
	_, err := ParseRequest("bench escape 0 41 1")
	if assert.Error(t, err, "ParseRequest of a bench line") {
		assert.Contains(t, err.Error(), "bench is not a plain request")
	}
}

func TestParseBenchRequest(t *testing.T) {
	valid := []struct {
		line string
		want BenchRequest
		back string // String() of the parsed request; "" means line itself
	}{
		{"bench escape 0 41 1000", BenchRequest{Request{OpEscape, 0, []byte("A")}, 1000}, ""},
		{"bench escape 2097152 e08041 1", BenchRequest{Request{OpEscape, jsonopt.InvalidUTF8Substitute, []byte("\xe0\x80A")}, 1}, ""},
		{"bench escape 4294967295 - 1000000000", BenchRequest{Request{OpEscape, 4294967295, []byte{}}, MaxBenchN}, ""},
		{"bench escape 007 C3A9 0010", BenchRequest{Request{OpEscape, 7, []byte("\xc3\xa9")}, 10}, "bench escape 7 c3a9 10"},
		{"bench decode 0 41e08041 5", BenchRequest{Request{OpDecode, 0, []byte("A\xe0\x80A")}, 5}, ""},
		{"bench decode 00 - 1", BenchRequest{Request{OpDecode, 0, []byte{}}, 1}, "bench decode 0 - 1"},
		{"bench utf8_decode 0 41c3a9 10", BenchRequest{Request{OpUTF8Decode, 0, []byte("A\xc3\xa9")}, 10}, ""},
		{"bench utf8_decode 0 41 41\r", BenchRequest{Request{OpUTF8Decode, 0, []byte("A")}, 41}, "bench utf8_decode 0 41 41"},
	}
	for _, tc := range valid {
		got, err := ParseBenchRequest(tc.line)
		if !assert.NoError(t, err, "ParseBenchRequest(%q)", tc.line) {
			continue
		}
		assert.Equal(t, tc.want, got, "ParseBenchRequest(%q)", tc.line)
		back := tc.back
		if back == "" {
			back = tc.line
		}
		assert.Equal(t, back, got.String(), "ParseBenchRequest(%q).String()", tc.line)
		again, err := ParseBenchRequest(got.String())
		assert.NoError(t, err, "round trip of %q", tc.line)
		assert.Equal(t, got, again, "round trip of %q", tc.line)
	}

	malformed := []struct{ line, wantErr string }{
		{"", "empty request line"},
		{"escape 0 41", `request "escape 0 41" is not a bench request`},
		{"benchx escape 0 41 1", "is not a bench request"},
		{"bench", "bench takes 4 field(s) (bench OP FLAGS HEX N), got 0"},
		{"bench escape 0 41", "bench takes 4 field(s) (bench OP FLAGS HEX N), got 3"},
		{"bench decode 41 5", "got 3"},
		{"bench escape 0 41 1 2", "got 5"},
		{"bench escape 0 41 1 ", "got 5"},
		{"bench  escape 0 41", `bench: unknown operation "" (want escape, decode or utf8_decode)`},
		{"bench frob 0 41 1", `bench: unknown operation "frob" (want escape, decode or utf8_decode)`},
		{"bench ESCAPE 0 41 1", `bench: unknown operation "ESCAPE"`},
		{"bench bench 0 41 1", `bench: OP "bench" cannot be timed (want escape, decode or utf8_decode)`},
		{"bench escape x 41 1", `bench: FLAGS "x" is not a decimal integer in [0, 4294967295]`},
		{"bench escape -1 41 1", `bench: FLAGS "-1" is not`},
		{"bench escape +1 41 1", `bench: FLAGS "+1" is not`},
		{"bench escape 4294967296 41 1", `bench: FLAGS "4294967296" is not`},
		{"bench escape  41 1", `bench: FLAGS "" is not`},
		{"bench decode 1 41 1", "bench: FLAGS 1 must be 0 for decode"},
		{"bench utf8_decode 512 41 1", "bench: FLAGS 512 must be 0 for utf8_decode"},
		{"bench escape 0 4 1", "bench: HEX: odd number of hex digits (1)"},
		{"bench escape 0 zz 1", "bench: HEX: byte 'z' at offset 0 is not a hex digit"},
		{"bench escape 0  1", "bench: HEX: empty field (the empty string is written -)"},
		{"bench escape 0 41 0", `bench: N "0" is not a decimal integer in [1, 1000000000]`},
		{"bench escape 0 41 -1", `bench: N "-1" is not`},
		{"bench escape 0 41 +1", `bench: N "+1" is not`},
		{"bench escape 0 41 abc", `bench: N "abc" is not`},
		{"bench escape 0 41 1e3", `bench: N "1e3" is not`},
		{"bench escape 0 41 0x10", `bench: N "0x10" is not`},
		{"bench escape 0 41 1000000001", `bench: N "1000000001" is not`},
		{"bench escape 0 41 99999999999999999999", `bench: N "99999999999999999999" is not`},
		{"bench escape 0 41 ", `bench: N "" is not`},
	}
	for _, tc := range malformed {
		got, err := ParseBenchRequest(tc.line)
		if assert.Error(t, err, "ParseBenchRequest(%q); want %q", tc.line, tc.wantErr) {
			assert.Contains(t, err.Error(), tc.wantErr, "ParseBenchRequest(%q)", tc.line)
		}
		assert.Zero(t, got, "ParseBenchRequest(%q) on an error", tc.line)
	}
}

func TestBenchRequestFormat(t *testing.T) {
	assert.Equal(t, "bench escape 512 80 3", BenchRequest{Request{OpEscape, jsonopt.PartialOutputOnError, []byte{0x80}}, 3}.String())
	assert.Equal(t, "bench utf8_decode 0 - 1", BenchRequest{Request{Op: OpUTF8Decode}, 1}.String())
	// Invalid fields are written as given.
	assert.Equal(t, "bench decode 5 41 0", BenchRequest{Request{OpDecode, 5, []byte("A")}, 0}.String())
	assert.Equal(t, "bench escape 0 41 -1", BenchRequest{Request{OpEscape, 0, []byte("A")}, -1}.String())
}

func TestParseBenchResponse(t *testing.T) {
	valid := []struct {
		op   Op
		line string
		want BenchResponse
		back string // "" means line itself
	}{
		{OpEscape, "12345 224122 0", BenchResponse{12345, Response{Op: OpEscape, Result: []byte(`"A"`)}}, ""},
		{OpEscape, "0 false 5", BenchResponse{0, Response{Op: OpEscape, False: true, Err: 5}}, ""},
		{OpEscape, "7 6e756c6c 5", BenchResponse{7, Response{Op: OpEscape, Result: []byte("null"), Err: 5}}, ""},
		{OpDecode, "300 41/1 !/2 41/1", BenchResponse{300, Response{Op: OpDecode, Steps: []jsonopt.Step{{CP: 0x41, Advance: 1, OK: true}, {Advance: 2}, {CP: 0x41, Advance: 1, OK: true}}}}, ""},
		{OpDecode, "1 -", BenchResponse{1, Response{Op: OpDecode}}, ""},
		{OpUTF8Decode, "800 41e9", BenchResponse{800, Response{Op: OpUTF8Decode, Result: []byte("A\xe9")}}, ""},
		{OpUTF8Decode, "9223372036854775807 -", BenchResponse{1<<63 - 1, Response{Op: OpUTF8Decode, Result: []byte{}}}, ""},
		{OpUTF8Decode, "0010 41E9\r", BenchResponse{10, Response{Op: OpUTF8Decode, Result: []byte("A\xe9")}}, "10 41e9"},
		// A refusal is an answer, not a parse error.
		{OpEscape, "error bench: N \"0\" is not a decimal integer in [1, 1000000000]", BenchResponse{Resp: Response{Op: OpEscape, ErrorMsg: `bench: N "0" is not a decimal integer in [1, 1000000000]`}}, ""},
		{OpDecode, "error", BenchResponse{Resp: Response{Op: OpDecode, ErrorMsg: "(no message)"}}, "error (no message)"},
	}
	for _, tc := range valid {
		got, err := ParseBenchResponse(tc.op, tc.line)
		if !assert.NoError(t, err, "ParseBenchResponse(%s, %q)", tc.op, tc.line) {
			continue
		}
		assert.Equal(t, tc.want, got, "ParseBenchResponse(%s, %q)", tc.op, tc.line)
		back := tc.back
		if back == "" {
			back = tc.line
		}
		assert.Equal(t, back, got.String(), "ParseBenchResponse(%s, %q).String()", tc.op, tc.line)
	}

	malformed := []struct {
		op            Op
		line, wantErr string
	}{
		{OpEscape, "", "empty response line"},
		{OpEscape, "12345", `bench response "12345" has 1 field, want NANOSECONDS and the escape result`},
		{OpEscape, "-5 224122 0", `bench response: NANOSECONDS "-5" is not a decimal integer in [0, 9223372036854775807]`},
		{OpEscape, "abc 224122 0", `NANOSECONDS "abc" is not`},
		{OpEscape, "+5 224122 0", `NANOSECONDS "+5" is not`},
		{OpEscape, "1.5 224122 0", `NANOSECONDS "1.5" is not`},
		{OpEscape, "9223372036854775808 224122 0", `NANOSECONDS "9223372036854775808" is not`},
		{OpEscape, " 224122 0", `NANOSECONDS "" is not`},
		{OpEscape, "224122 0", "bench response: escape response has 1 field(s), want 2"},
		{OpEscape, "5 224122 0 1", "escape response has 3 field(s)"},
		{OpEscape, "5  224122 0", "escape response has 3 field(s)"},
		{OpEscape, "5 error JSON_PRETTY_PRINT", `the result after NANOSECONDS is "error JSON_PRETTY_PRINT"`},
		{OpEscape, "5 error", `the result after NANOSECONDS is "error"`},
		{OpEscape, "5 ", "bench response: empty response line"},
		{OpDecode, "5 41/0", "bench response: decode response: step 1"},
		{OpDecode, "5 41", "decode response: step 1"},
		{OpUTF8Decode, "5 zz", "bench response: utf8_decode response"},
		{OpUTF8Decode, "5 41 42", "utf8_decode response has 2 fields"},
		{OpBench, "5 -", `bench response: unknown operation "bench"`},
		{"frob", "5 -", `unknown operation "frob"`},
	}
	for _, tc := range malformed {
		_, err := ParseBenchResponse(tc.op, tc.line)
		if assert.Error(t, err, "ParseBenchResponse(%s, %q); want %q", tc.op, tc.line, tc.wantErr) {
			assert.Contains(t, err.Error(), tc.wantErr, "ParseBenchResponse(%s, %q)", tc.op, tc.line)
		}
	}
}

func TestBenchResponseFormat(t *testing.T) {
	assert.Equal(t, "12345 224122 0", BenchResponse{12345 * time.Nanosecond, Response{Op: OpEscape, Result: []byte(`"A"`)}}.String())
	assert.Equal(t, "error no thanks", BenchResponse{5, Response{Op: OpEscape, ErrorMsg: "no\nthanks"}}.String(), "an error answer has no NANOSECONDS")
	assert.Equal(t, "-1 -", BenchResponse{-1, Response{Op: OpDecode}}.String(), "written as given")
}

func TestHelloBench(t *testing.T) {
	all := ^jsonopt.Options(0)
	valid := []struct {
		line string
		ops  []Op
		caps Capabilities
	}{
		{"difffuzz-target 1 escape decode utf8_decode bench", []Op{OpEscape, OpDecode, OpUTF8Decode, OpBench}, Capabilities{Options: all}},
		{"difffuzz-target 1 bench", []Op{OpBench}, Capabilities{Options: all}},
		{"difffuzz-target 1 bench utf8_decode", []Op{OpBench, OpUTF8Decode}, Capabilities{Options: all}},
		{"difffuzz-target 1 escape utf8_decode bench options=2097665 max-len=4", []Op{OpEscape, OpUTF8Decode, OpBench}, Capabilities{Options: 2097665, OptionsSet: true, MaxLen: 4}},
	}
	for _, tc := range valid {
		v, ops, caps, err := ParseHelloCaps(tc.line)
		require.NoError(t, err, "ParseHelloCaps(%q)", tc.line)
		assert.Equal(t, 1, v)
		assert.Equal(t, tc.ops, ops, "ParseHelloCaps(%q) ops", tc.line)
		assert.Equal(t, tc.caps, caps, "ParseHelloCaps(%q) caps", tc.line)
		_, ops2, err := ParseHello(tc.line)
		require.NoError(t, err, "ParseHello(%q)", tc.line)
		assert.Equal(t, tc.ops, ops2, "ParseHello(%q) ops", tc.line)
		assert.Equal(t, tc.line, HelloWith(ops, caps), "HelloWith round trip")
	}
	for _, tc := range []struct{ line, wantErr string }{
		{"difffuzz-target 1 escape bench bench", "operation bench announced twice"},
		{"difffuzz-target 1 escape options=1 bench", `operation "bench" after the key=value field "options=1"`},
		{"difffuzz-target 1 BENCH", `unknown operation "BENCH" (version 1 has escape, decode, utf8_decode, bench)`},
		{"difffuzz-target 1 bench-ns", `unknown operation "bench-ns"`},
	} {
		_, ops, _, err := ParseHelloCaps(tc.line)
		if assert.Error(t, err, "ParseHelloCaps(%q)", tc.line) {
			assert.Contains(t, err.Error(), tc.wantErr, "ParseHelloCaps(%q)", tc.line)
		}
		assert.Nil(t, ops)
	}
}

// serveOne sends one line through Serve with h and returns the answer, checking the hello.
func serveOne(t *testing.T, h Handler, line string) string {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, Serve(strings.NewReader(line+"\n"), &out, h))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, 2, "hello and one answer to %q", line)
	return lines[1]
}

// Serve answers a bench request with a time and exactly the plain request's answer.
func TestServeBench(t *testing.T) {
	long := strings.Repeat("c3a9e08041222f5c", 64) // 512 bytes of every escaper branch
	plain := []string{
		"escape 0 41",
		"escape 2097152 e08041",
		"escape 0 80",
		"escape 512 80",
		"escape 1048576 61b062",
		"escape 0 -",
		"escape 32 31",
		"escape 32 -",
		"escape 0 " + long,
		"escape 2097152 " + long,
		"decode 41e08041c3a9",
		"decode f09f9880e282",
		"decode -",
		"decode " + long,
		"utf8_decode 41c3a942",
		"utf8_decode -",
		"utf8_decode " + long,
	}
	var in strings.Builder
	for _, line := range plain {
		req, err := ParseRequest(line)
		require.NoError(t, err)
		fmt.Fprintf(&in, "%s\n%s\n", line, BenchRequest{Req: req, N: 2000})
	}
	got := serveLines(t, fakeHandler, in.String(), "difffuzz-target 1 escape decode utf8_decode bench")
	require.Len(t, got, 2*len(plain))
	for i, line := range plain {
		req, _ := ParseRequest(line)
		want, bench := got[2*i], got[2*i+1]
		br, err := ParseBenchResponse(req.Op, bench)
		if !assert.NoError(t, err, "bench of %q answered %q", abbreviate(line), abbreviate(bench)) {
			continue
		}
		assert.Equal(t, want, br.Resp.String(), "bench result of %q", abbreviate(line))
		assert.Greater(t, br.Elapsed, time.Duration(0), "bench of %q: NANOSECONDS", abbreviate(line))
		assert.True(t, strings.HasSuffix(bench, " "+want), "bench answer %q ends with the plain answer %q", abbreviate(bench), abbreviate(want))
	}
	// The examples of DESIGN.md §6, times aside.
	for _, tc := range []struct{ req, want string }{
		{"bench escape 0 41 1000", "224122 0"},
		{"bench utf8_decode 0 41c3a9 10", "41e9"},
		{"bench decode 0 41e08041 5", "41/1 !/2 41/1"},
	} {
		ns, rest, _ := strings.Cut(serveOne(t, fakeHandler, tc.req), " ")
		assert.Regexp(t, `^[0-9]+$`, ns, "%q: NANOSECONDS", tc.req)
		assert.Equal(t, tc.want, rest, "%q: result", tc.req)
	}
}

// Serve calls the function exactly N times, with a dst of length 0 whose buffer it reuses
// once grown, times the whole loop, and one decode run is every step of the input.
func TestServeBenchLoop(t *testing.T) {
	var (
		escapes, decodes, steps int
		dsts                    = map[*byte]bool{}
	)
	h := Handler{
		Escape: func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
			escapes++
			if len(dst) != 0 {
				t.Errorf("call %d: dst has %d bytes; want dst[:0]", escapes, len(dst))
			}
			dst, err := fakeEscape(dst, src, o)
			dsts[&dst[:1][0]] = true
			return dst, err
		},
		NextChar: func(s []byte, pos int) jsonopt.Step {
			steps++
			return fakeNextChar(s, pos)
		},
		UTF8Decode: func(dst, src []byte) []byte {
			decodes++
			return fakeUTF8Decode(dst, src)
		},
	}
	want := serveOne(t, fakeHandler, "escape 1048576 41e0804122")
	assert.Equal(t, `"AA\""`, string(mustHex(t, strings.Fields(want)[0])), "plain answer")
	escapes = 0
	_, rest, _ := strings.Cut(serveOne(t, h, "bench escape 1048576 41e0804122 777"), " ")
	assert.Equal(t, want, rest, "bench result")
	assert.Equal(t, 777, escapes, "escape calls")
	assert.LessOrEqual(t, len(dsts), 2, "distinct dst buffers over 777 calls; want one reused (after the first growth)")
	_ = serveOne(t, h, "bench decode 0 41e08041c3a9 100")
	assert.Equal(t, 400, steps, "decoder steps: 4 per run, 100 runs")
	_ = serveOne(t, h, "bench utf8_decode 0 c3a9 55")
	assert.Equal(t, 55, decodes, "utf8_decode calls")

	// The time is the loop's: 20 runs of a function that sleeps 2 ms take at least 40 ms.
	slow := Handler{UTF8Decode: func(dst, src []byte) []byte {
		time.Sleep(2 * time.Millisecond)
		return append(dst, src...)
	}}
	br, err := ParseBenchResponse(OpUTF8Decode, serveOne(t, slow, "bench utf8_decode 0 41 20"))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, br.Elapsed, 40*time.Millisecond, "elapsed of 20 runs of 2 ms")
	assert.Less(t, br.Elapsed, 5*time.Second, "elapsed of 20 runs of 2 ms")
	assert.Equal(t, "41", br.Resp.String())
}

// Malformed and refused bench requests are answered "error ...", and Serve goes on.
func TestServeBenchErrors(t *testing.T) {
	tests := []struct{ req, want string }{
		{"bench escape 0 41 0", `error bench: N "0" is not a decimal integer in [1, 1000000000]`},
		{"bench escape 0 41 -1", `error bench: N "-1" is not a decimal integer in [1, 1000000000]`},
		{"bench escape 0 41 abc", `error bench: N "abc" is not a decimal integer in [1, 1000000000]`},
		{"bench escape 0 41 1000000001", `error bench: N "1000000001" is not a decimal integer in [1, 1000000000]`},
		{"bench decode 1 41 10", "error bench: FLAGS 1 must be 0 for decode"},
		{"bench utf8_decode 2 41 10", "error bench: FLAGS 2 must be 0 for utf8_decode"},
		{"bench frob 0 41 10", `error bench: unknown operation "frob" (want escape, decode or utf8_decode)`},
		{"bench bench 0 41 10", `error bench: OP "bench" cannot be timed (want escape, decode or utf8_decode)`},
		{"bench escape 0 zz 10", "error bench: HEX: byte 'z' at offset 0 is not a hex digit"},
		{"bench escape 0 41", "error bench takes 4 field(s) (bench OP FLAGS HEX N), got 3"},
		{"bench", "error bench takes 4 field(s) (bench OP FLAGS HEX N), got 0"},
		// A refusal of the plain request refuses the bench.
		{"bench escape 128 31 10", "error JSON_PRETTY_PRINT (128) is not implemented by the fake"},
		{"bench escape 0 " + fmt.Sprintf("%x", "plain error") + " 10", "error " + errPlain.Error()},
		{"escape 0 41", "224122 0"},
	}
	var in strings.Builder
	for _, tc := range tests {
		in.WriteString(tc.req + "\n")
	}
	got := serveLines(t, fakeHandler, in.String(), "difffuzz-target 1 escape decode utf8_decode bench")
	require.Len(t, got, len(tests))
	for i, tc := range tests {
		assert.Equal(t, tc.want, got[i], "request %q", tc.req)
	}

	// Unsupported operations and capabilities: the plain request's messages.
	h := Handler{Escape: fakeEscape, UTF8Decode: fakeUTF8Decode, Caps: Capabilities{Options: jsonopt.HexTag, OptionsSet: true, MaxLen: 4}}
	got = serveLines(t, h, "bench decode 0 41 10\nbench escape 2 41 10\nbench utf8_decode 0 4142434445 10\nbench escape 1 3c 10\n",
		"difffuzz-target 1 escape utf8_decode bench options=1 max-len=4")
	assert.Equal(t, []string{
		"error operation decode is not supported by this target (it supports: escape utf8_decode)",
		"error escape: FLAGS 2 has option bits 2 (JSON_HEX_AMP) outside this target's options=1",
		"error utf8_decode: input of 5 bytes is longer than this target's max-len=4",
	}, got[:3])
	br, err := ParseBenchResponse(OpEscape, got[3])
	if assert.NoError(t, err, "bench escape 1 3c 10: %q", got[3]) {
		assert.Equal(t, "223c22 0", br.Resp.String())
	}

	// A decoder that does not advance ends the loop with an error instead of hanging Serve.
	zero := Handler{NextChar: func(s []byte, pos int) jsonopt.Step { return jsonopt.Step{CP: 0x41, OK: true} }}
	got = serveLines(t, zero, "bench decode 0 4141 1000000000\n", "difffuzz-target 1 decode bench")
	assert.Equal(t, []string{"error decoder step at byte 0 returned advance 0 (cp 41, ok true)"}, got)

	// Without any operation there is no bench either.
	got = serveLines(t, Handler{}, "bench escape 0 41 1\n", "difffuzz-target 1")
	assert.Equal(t, []string{"error operation bench is not supported by this target (it supports: none)"}, got)
}

// Client.Bench against Serve: the time, and the result the plain request gets, between Do
// calls on the same client; requests it cannot send are refused without harm.
func TestClientBench(t *testing.T) {
	c, err := startFake(t, "good", Config{})
	require.NoError(t, err)
	defer func() { assert.NoError(t, c.Close()) }()
	assert.True(t, c.CanBench(), "CanBench")
	assert.True(t, c.Supports(OpBench), "Supports(OpBench)")
	assert.Equal(t, []Op{OpEscape, OpDecode, OpUTF8Decode}, c.Ops(), "Ops() leaves bench out")

	reqs := []Request{
		mustRequest(t, "escape 0 41"),
		mustRequest(t, "escape 2097152 e08041"),
		mustRequest(t, "escape 512 80"),
		mustRequest(t, "escape 0 80"),
		mustRequest(t, "decode 41e08041c3a9"),
		mustRequest(t, "decode -"),
		mustRequest(t, "utf8_decode 41c3a9"),
		mustRequest(t, "utf8_decode -"),
		mustRequest(t, "escape 32 31"), // a number answer: "31 0"
	}
	for round := 0; round < 2; round++ {
		plain, err := c.Do(reqs)
		require.NoError(t, err)
		for i, req := range reqs {
			elapsed, resp, err := c.Bench(req, 5000, 0)
			if !assert.NoError(t, err, "Bench(%s)", req) {
				continue
			}
			assert.Equal(t, plain[i].String(), resp.String(), "Bench(%s) result", req)
			assert.Equal(t, req.Op, resp.Op, "Bench(%s) resp.Op", req)
			assert.Greater(t, elapsed, time.Duration(0), "Bench(%s) elapsed", req)
		}
	}
	// A longer loop takes longer (by far: 1 run against 200,000).
	one, _, err := c.Bench(reqs[1], 1, time.Minute)
	require.NoError(t, err)
	many, _, err := c.Bench(reqs[1], 200000, time.Minute)
	require.NoError(t, err)
	assert.Greater(t, many, one, "200,000 runs against 1")

	// Refused by the target: a *BenchError with its message; the client goes on.
	_, resp, err := c.Bench(Request{Op: OpEscape, Flags: jsonopt.PrettyPrint, Input: []byte("1")}, 10, 0)
	var be *BenchError
	if assert.ErrorAs(t, err, &be) {
		assert.Equal(t, "JSON_PRETTY_PRINT (128) is not implemented by the fake", be.Msg)
		assert.Equal(t, "bench escape 128 31 10", be.Request)
		assert.Contains(t, err.Error(), "error JSON_PRETTY_PRINT (128) is not implemented by the fake")
	}
	assert.Equal(t, "JSON_PRETTY_PRINT (128) is not implemented by the fake", resp.ErrorMsg)

	// Not sent: bad N, bad Op, flags on decode; Do refuses bench.
	for _, tc := range []struct {
		req     Request
		n       int
		wantErr string
	}{
		{reqs[0], 0, "N 0 is not in [1, 1000000000]"},
		{reqs[0], -1, "N -1 is not in [1, 1000000000]"},
		{reqs[0], MaxBenchN + 1, "N 1000000001 is not in"},
		{Request{Op: OpBench}, 1, `cannot time operation "bench"`},
		{Request{Op: "frob"}, 1, `cannot time operation "frob"`},
		{Request{Op: OpDecode, Flags: 1, Input: []byte("A")}, 1, "FLAGS 1 must be 0 for decode"},
	} {
		_, _, err := c.Bench(tc.req, tc.n, 0)
		if assert.Error(t, err, "Bench(%s, %d)", tc.req, tc.n) {
			assert.Contains(t, err.Error(), tc.wantErr)
			var te *TargetError
			assert.False(t, errors.As(err, &te), "Bench(%s, %d): %v is a TargetError", tc.req, tc.n, err)
		}
	}
	_, err = c.Do([]Request{{Op: OpBench}})
	if assert.Error(t, err, "Do(bench)") {
		assert.Contains(t, err.Error(), "bench is not a plain request")
	}

	// Still in step: a Do and a Bench after all that.
	got, err := c.Do(reqs[:1])
	require.NoError(t, err)
	assert.Equal(t, "224122 0", got[0].String())
	_, resp, err = c.Bench(reqs[6], 3, 0)
	require.NoError(t, err)
	assert.Equal(t, "41e9", resp.String())
}

// A target that does not announce bench is not sent one.
func TestClientBenchNotAnnounced(t *testing.T) {
	c, err := startFake(t, "nobench", Config{})
	require.NoError(t, err)
	defer func() { assert.NoError(t, c.Close()) }()
	assert.False(t, c.CanBench())
	assert.Equal(t, []Op{OpEscape, OpDecode, OpUTF8Decode}, c.Ops())
	_, _, err = c.Bench(Request{Op: OpEscape, Input: []byte("A")}, 10, 0)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrNoBench)
	var te *TargetError
	assert.False(t, errors.As(err, &te), "%v is a TargetError", err)
	assert.Contains(t, err.Error(), "announced: escape decode utf8_decode")
	// Nothing was sent (the fake would have answered it): the next answer is the next request's.
	got, err := c.Do([]Request{{Op: OpUTF8Decode, Input: []byte("\xc3\xa9")}})
	require.NoError(t, err)
	assert.Equal(t, "e9", got[0].String())
}

// A bench answered "error ..." by a target is a *BenchError and the target keeps serving.
func TestClientBenchRefused(t *testing.T) {
	c, err := startFake(t, "benchreply:error not today", Config{})
	require.NoError(t, err)
	defer func() { assert.NoError(t, c.Close()) }()
	for i := 0; i < 2; i++ {
		_, resp, err := c.Bench(Request{Op: OpDecode, Input: []byte("A")}, 10, 0)
		var be *BenchError
		require.ErrorAs(t, err, &be)
		assert.Equal(t, "not today", be.Msg)
		assert.Equal(t, "bench decode 0 41 10", be.Request)
		assert.Equal(t, "not today", resp.ErrorMsg)
		got, err := c.Do([]Request{{Op: OpDecode, Input: []byte("A")}})
		require.NoError(t, err, "Do after a refused bench")
		assert.Equal(t, "41/1", got[0].String())
	}
}

// Malformed bench answers, crashes and hangs are *TargetErrors, as in Do.
func TestClientBenchFailures(t *testing.T) {
	tests := []struct {
		mode      string
		wait      time.Duration
		kind      FailureKind
		wantParts []string
	}{
		{"benchreply:-5 224122 0", 0, Malformed, []string{`malformed bench response "-5 224122 0"`, `NANOSECONDS "-5" is not a decimal integer`, "(bench escape 0 41 1000)"}},
		{"benchreply:abc 224122 0", 0, Malformed, []string{`malformed bench response "abc 224122 0"`, `NANOSECONDS "abc"`}},
		{"benchreply:12.5 224122 0", 0, Malformed, []string{`NANOSECONDS "12.5"`}},
		{"benchreply:12345", 0, Malformed, []string{`malformed bench response "12345"`, "has 1 field"}},
		{"benchreply:12345 22412 0", 0, Malformed, []string{`malformed bench response "12345 22412 0"`, "odd number of hex digits"}},
		{"benchreply:12345 224122", 0, Malformed, []string{"escape response has 1 field(s), want 2"}},
		{"benchreply:12345 error oops", 0, Malformed, []string{`the result after NANOSECONDS is "error oops"`}},
		{"benchhang", 300 * time.Millisecond, TimedOut, []string{"no bench response within 300ms", "(bench escape 0 41 1000)", "fake target: benchmarking forever"}},
		{"benchcrash", 0, Exited, []string{"exited before answering", "(bench escape 0 41 1000)", "exit status 3", "fake target: crashing in bench"}},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			// Config.Timeout is long: a hang must be caught by the bench's own wait.
			c, err := startFake(t, tc.mode, Config{Timeout: 20 * time.Second, Grace: 2 * time.Second})
			require.NoError(t, err)
			// A plain request first: the bench failure is not a failure of the session before it.
			got, err := c.Do([]Request{{Op: OpEscape, Input: []byte("A")}})
			require.NoError(t, err)
			assert.Equal(t, "224122 0", got[0].String())
			start := time.Now()
			_, _, err = c.Bench(Request{Op: OpEscape, Input: []byte("A")}, 1000, tc.wait)
			var te *TargetError
			require.ErrorAs(t, err, &te, "Bench = %v", err)
			assert.Equal(t, tc.kind, te.Kind, "kind")
			assert.Equal(t, -1, te.Index, "index")
			assert.Equal(t, "bench escape 0 41 1000", te.Request)
			for _, p := range tc.wantParts {
				assert.Contains(t, err.Error(), p)
			}
			if tc.kind == Malformed {
				assert.Equal(t, strings.TrimPrefix(tc.mode, "benchreply:"), te.Line, "Line")
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Bench took %v", d)
			}
			// The client is broken, as after a failed Do.
			_, err2 := c.Do([]Request{{Op: OpEscape}})
			assert.Equal(t, err, err2, "Do after the failure")
			_, _, err2 = c.Bench(Request{Op: OpEscape}, 1, 0)
			assert.Equal(t, err, err2, "Bench after the failure")
			assert.NoError(t, c.Close())
			t.Logf("%s: %v", tc.mode, err)
		})
	}
}

// wait replaces the client's per-answer timeout, up and down; wait <= 0 means that timeout.
func TestClientBenchWait(t *testing.T) {
	t.Parallel()
	// benchslow answers a bench after 600 ms; the usual timeout is 150 ms.
	c, err := startFake(t, "benchslow", Config{Timeout: 150 * time.Millisecond})
	require.NoError(t, err)
	elapsed, resp, err := c.Bench(Request{Op: OpEscape, Input: []byte("A")}, 3, 10*time.Second)
	require.NoError(t, err, "a wait longer than the answer")
	assert.Equal(t, 600*time.Millisecond, elapsed, "the target's NANOSECONDS")
	assert.Equal(t, "224122 0", resp.String())
	_, err = c.Do([]Request{{Op: OpUTF8Decode, Input: []byte("A")}})
	require.NoError(t, err, "Do after a slow bench")
	assert.NoError(t, c.Close())

	c, err = startFake(t, "benchslow", Config{Timeout: 150 * time.Millisecond})
	require.NoError(t, err)
	start := time.Now()
	_, _, err = c.Bench(Request{Op: OpEscape, Input: []byte("A")}, 3, 0)
	var te *TargetError
	require.ErrorAs(t, err, &te, "wait 0: the usual 150 ms timeout")
	assert.Equal(t, TimedOut, te.Kind)
	assert.Contains(t, err.Error(), "no bench response within 150ms")
	assert.Less(t, time.Since(start), 550*time.Millisecond, "timed out before the answer came")
	assert.NoError(t, c.Close())
}

func mustHex(t *testing.T, h string) []byte {
	t.Helper()
	b, err := parseHex(h)
	require.NoError(t, err)
	return b
}
