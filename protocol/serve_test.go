package protocol

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// serveLines runs Serve on input and returns its output lines (without the hello), checking
// the hello against wantHello.
func serveLines(t *testing.T, h Handler, input, wantHello string) []string {
	t.Helper()
	var out bytes.Buffer
	if err := Serve(strings.NewReader(input), &out, h); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	s := out.String()
	if !strings.HasSuffix(s, "\n") {
		t.Fatalf("Serve output does not end in a newline: %q", s)
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if lines[0] != wantHello {
		t.Fatalf("hello = %q; want %q", lines[0], wantHello)
	}
	return lines[1:]
}

func TestServe(t *testing.T) {
	tests := []struct{ req, want string }{
		// The examples of DESIGN.md §6.
		{"escape 2097152 e08041", "225c75666666644122 0"},
		{"escape 0 80", "false 5"},
		{"escape 512 80", "6e756c6c 5"},
		{"decode 41e08041c3a9", "41/1 !/2 41/1 e9/2"},
		// More of each operation.
		{"escape 0 -", "2222 0"},
		{"escape 1048576 61b062", "22616222 0"},
		{"escape 4194304 80", "false 5"},
		{"decode -", "-"},
		{"decode f09f9880e282", "1f600/4 !/2"},
		{"decode 00", "0/1"},
		{"utf8_decode 41c3a942", "41e942"},
		{"utf8_decode -", "-"},
		{"utf8_decode c0af", "3f3f"},
		// JSON_NUMERIC_CHECK: a numeric string is the number, unquoted ("1" -> 1, "007" -> 7);
		// "" and a string that is not numeric stay strings.
		{"escape 32 31", "31 0"},
		{"escape 32 303037", "37 0"},
		{"escape 32 -", "2222 0"},
		{"escape 32 616263", "2261626322 0"},
		// Refusals and malformed requests are answered, and serving goes on. An implementation
		// error without a PHP error code (Code -1) is a refusal: "error" and its message.
		{"escape 128 31", "error JSON_PRETTY_PRINT (128) is not implemented by the fake"},
		{"escape 0 " + fmt.Sprintf("%x", "plain error"), "error " + errPlain.Error()},
		{"escape 0 zz", "error escape: HEX: byte 'z' at offset 0 is not a hex digit"},
		{"escape 0", "error escape takes 2 field(s) (escape FLAGS HEX), got 1"},
		{"bogus 41", `error unknown operation "bogus" (want escape, decode or utf8_decode)`},
		{"", "error empty request line"},
		{"escape 0 41\r", "224122 0"},
		{"utf8_decode 41", "41"},
	}
	var in strings.Builder
	for _, tc := range tests {
		in.WriteString(tc.req + "\n")
	}
	got := serveLines(t, fakeHandler, in.String(), "difffuzz-target 1 escape decode utf8_decode bench")
	require.Len(t, got, len(tests), "one response line per request")
	for i, tc := range tests {
		assert.Equal(t, tc.want, got[i], "request %q", tc.req)
		// Handler.Answer gives the same response for every well-formed request.
		if req, err := ParseRequest(strings.TrimSuffix(tc.req, "\r")); err == nil {
			assert.Equal(t, tc.want, fakeHandler.Answer(req).String(), "Answer(%q)", tc.req)
		}
	}
	caps := fakeHandler
	caps.Caps = Capabilities{MaxLen: 1}
	assert.Equal(t, "error utf8_decode: input of 2 bytes is longer than this target's max-len=1",
		caps.Answer(Request{Op: OpUTF8Decode, Input: []byte("ab")}).String(), "Answer refuses as Serve does")
}

// A request line longer than MaxLine is refused with one error line, without holding it, and
// serve goes on with the next request.
func TestServeTooLongLine(t *testing.T) {
	long := "escape 0 " + strings.Repeat("61", MaxLine/2+1)
	var out bytes.Buffer
	require.NoError(t, Serve(strings.NewReader(long+"\nescape 0 62\n"), &out, fakeHandler))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, 3, "hello, the refusal, the next answer")
	assert.Equal(t, "error request a line longer than 16777216 bytes", lines[1])
	assert.Equal(t, "226222 0", lines[2], `"b", then the next answer`)
}

func TestServeLastLineWithoutNewline(t *testing.T) {
	got := serveLines(t, fakeHandler, "escape 0 41\nutf8_decode c3a9", "difffuzz-target 1 escape decode utf8_decode bench")
	assert.Equal(t, []string{"224122 0", "e9"}, got)
}

func TestServeEmptyInput(t *testing.T) {
	got := serveLines(t, fakeHandler, "", "difffuzz-target 1 escape decode utf8_decode bench")
	assert.Empty(t, got, "responses for no input")
}

func TestServeUnsupportedOp(t *testing.T) {
	h := Handler{Escape: fakeEscape, UTF8Decode: fakeUTF8Decode}
	got := serveLines(t, h, "decode 41\nescape 0 41\n", "difffuzz-target 1 escape utf8_decode bench")
	assert.Equal(t, []string{"error operation decode is not supported by this target (it supports: escape utf8_decode)", "224122 0"}, got)
	got = serveLines(t, Handler{}, "utf8_decode 41\n", "difffuzz-target 1")
	assert.Equal(t, []string{"error operation utf8_decode is not supported by this target (it supports: none)"}, got)
}

// A decoder that does not advance must get an error answer, not hang Serve.
func TestServeZeroAdvance(t *testing.T) {
	h := Handler{NextChar: func(s []byte, pos int) jsonopt.Step { return jsonopt.Step{CP: 0x41, OK: true} }}
	got := serveLines(t, h, "decode 4141\n", "difffuzz-target 1 decode bench")
	assert.Equal(t, []string{"error decoder step at byte 0 returned advance 0 (cp 41, ok true)"}, got)
}

// Lines longer than any buffer: a 768 KiB input (1.5 MB of hex) in one request.
func TestServeLongLine(t *testing.T) {
	in := bytes.Repeat([]byte("\xc3\xa9/"), 1<<18)
	req := Request{Op: OpEscape, Input: in}.String()
	got := serveLines(t, fakeHandler, req+"\nutf8_decode 41\n", "difffuzz-target 1 escape decode utf8_decode bench")
	if len(got) != 2 { // not require.Len: it would print the 1.5 MB line
		t.Fatalf("got %d lines", len(got))
	}
	resp, err := ParseResponse(OpEscape, got[0])
	require.NoError(t, err)
	want, _ := fakeEscape(nil, in, 0)
	// 1.5 MB each: compare plainly and report lengths, not a diff.
	if !bytes.Equal(resp.Result, want) || resp.Err != 0 {
		t.Errorf("long escape: got %d bytes err %d; want %d bytes", len(resp.Result), resp.Err, len(want))
	}
	assert.Equal(t, "41", got[1], "after the long line")
}

// countingWriter counts Write calls.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// Pipelined requests that are all buffered are answered in large writes, not one per line.
func TestServeBatchesWrites(t *testing.T) {
	const n = 10000
	var in strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&in, "escape 0 %02x\n", i%128)
	}
	var out countingWriter
	require.NoError(t, Serve(strings.NewReader(in.String()), &out, fakeHandler))
	require.Equal(t, n+1, strings.Count(out.String(), "\n"), "lines (hello and one per request)")
	assert.LessOrEqual(t, out.writes, 20, "%d requests took %d writes; want them batched", n, out.writes)
}

// An interactive client writes one request and waits for its answer without closing its end:
// Serve must flush when no further request is buffered.
func TestServeInteractive(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		errc <- Serve(inR, outW, fakeHandler)
		outW.Close()
	}()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func() string {
		select {
		case l := <-lines:
			return l
		case <-time.After(5 * time.Second):
			t.Fatal("Serve did not answer an interactive request within 5 s (not flushed?)")
		}
		return ""
	}
	require.Equal(t, "difffuzz-target 1 escape decode utf8_decode bench", next(), "hello")
	for _, tc := range []struct{ req, want string }{
		{"escape 0 80", "false 5"},
		{"decode 41e08041c3a9", "41/1 !/2 41/1 e9/2"},
		{"garbage", `error unknown operation "garbage" (want escape, decode or utf8_decode)`},
		{"utf8_decode c3a9", "e9"},
	} {
		// Write the request in two pieces, as a pipe may deliver it.
		io.WriteString(inW, tc.req[:len(tc.req)/2])
		io.WriteString(inW, tc.req[len(tc.req)/2:]+"\n")
		assert.Equal(t, tc.want, next(), "request %q", tc.req)
	}
	inW.Close()
	assert.NoError(t, <-errc, "Serve at end of input")
}

// With Caps, Serve announces them and refuses escapes with option bits outside Caps.Options
// and inputs longer than Caps.MaxLen, answering everything else as without them.
func TestServeCaps(t *testing.T) {
	const mask = jsonopt.PartialOutputOnError | jsonopt.InvalidUTF8Substitute | jsonopt.HexTag // 2097665
	h := fakeHandler
	h.Caps = Capabilities{Options: mask, OptionsSet: true, MaxLen: 4, Ignored: []string{"never=written"}}
	tests := []struct{ req, want string }{
		{"escape 2097152 e08041", "225c75666666644122 0"},
		{"escape 0 80", "false 5"},
		{"escape 512 80", "6e756c6c 5"},
		{"escape 2097665 3c", "223c22 0"}, // the fake escaper ignores HEX_TAG
		{"escape 2097665 41424344", "224142434422 0"},
		{"decode 41e08041", "41/1 !/2 41/1"},
		{"utf8_decode c3a9", "e9"},
		{"utf8_decode -", "-"},
		// Out of the mask: the bits outside are named, whatever the input.
		{"escape 32 31", "error escape: FLAGS 32 has option bits 32 (JSON_NUMERIC_CHECK) outside this target's options=2097665"},
		{"escape 1049088 80", "error escape: FLAGS 1049088 has option bits 1048576 (JSON_INVALID_UTF8_IGNORE) outside this target's options=2097665"},
		{"escape 2147483906 -", "error escape: FLAGS 2147483906 has option bits 2147483906 (JSON_HEX_AMP|JSON_UNESCAPED_UNICODE|2147483648) outside this target's options=2097665"},
		{"escape 6 4142434445", "error escape: FLAGS 6 has option bits 6 (JSON_HEX_AMP|JSON_HEX_APOS) outside this target's options=2097665"},
		// Too long: 5 bytes and more, for every operation.
		{"escape 0 4142434445", "error escape: input of 5 bytes is longer than this target's max-len=4"},
		{"decode 4142434445", "error decode: input of 5 bytes is longer than this target's max-len=4"},
		{"utf8_decode " + strings.Repeat("c3a9", 1000), "error utf8_decode: input of 2000 bytes is longer than this target's max-len=4"},
		// Malformed and unsupported requests get their usual errors first.
		{"escape 32 zz", "error escape: HEX: byte 'z' at offset 0 is not a hex digit"},
		{"bogus 4142434445", `error unknown operation "bogus" (want escape, decode or utf8_decode)`},
		{"escape 0 41", "224122 0"},
	}
	var in strings.Builder
	for _, tc := range tests {
		in.WriteString(tc.req + "\n")
	}
	got := serveLines(t, h, in.String(), "difffuzz-target 1 escape decode utf8_decode bench options=2097665 max-len=4")
	require.Len(t, got, len(tests))
	for i, tc := range tests {
		assert.Equal(t, tc.want, got[i], "request %q", tc.req)
	}

	// An unsupported operation is reported as such, not as too long.
	h = Handler{UTF8Decode: fakeUTF8Decode, Caps: Capabilities{MaxLen: 1}}
	got = serveLines(t, h, "decode 4142\nutf8_decode 4142\nutf8_decode 41\n", "difffuzz-target 1 utf8_decode bench max-len=1")
	assert.Equal(t, []string{
		"error operation decode is not supported by this target (it supports: utf8_decode)",
		"error utf8_decode: input of 2 bytes is longer than this target's max-len=1",
		"41",
	}, got)

	// options=0: every escape with a flag is refused, FLAGS 0 is served.
	h = Handler{Escape: fakeEscape, Caps: Capabilities{OptionsSet: true}}
	got = serveLines(t, h, "escape 0 80\nescape 1 3c\n", "difffuzz-target 1 escape bench options=0")
	assert.Equal(t, []string{"false 5", "error escape: FLAGS 1 has option bits 1 (JSON_HEX_TAG) outside this target's options=0"}, got)

	// A zero Caps changes nothing (Options without OptionsSet is not a mask).
	h = Handler{Escape: fakeEscape, Caps: Capabilities{Options: 1}}
	got = serveLines(t, h, "escape 512 80\n", "difffuzz-target 1 escape bench")
	assert.Equal(t, []string{"6e756c6c 5"}, got)
}
