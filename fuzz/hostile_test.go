package fuzz

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/protocol"
)

// hostile sets up the fake target name of TestHelperTarget (issue 33, further hostile cases)
// and returns the writer its answers go through. Lines are counted from the hello (line 1).
func hostile(name string, h *protocol.Handler) io.Writer {
	w := &eachLine{w: os.Stdout}
	switch name {
	case "hang-after-50": // answers 50 requests in every process, then hangs
		w.before = func(k int) {
			if k == 52 {
				time.Sleep(time.Hour)
			}
		}
	case "exit-after-40": // answers 40 requests in every process, then exits
		w.before = func(k int) {
			if k == 42 {
				os.Exit(0)
			}
		}
	case "extra-after-10": // writes an unsolicited line after its 10th answer in every process
		w.after = func(k int, _ []byte) string {
			if k == 11 {
				return "unsolicited\n"
			}
			return ""
		}
	case "hello-twice": // says hello twice
		w.after = func(k int, _ []byte) string {
			if k == 1 {
				return "difffuzz-target 1 escape decode utf8_decode\n"
			}
			return ""
		}
	case "debug-7e", "twice-7e", "extra-7e":
		// after an answer with a byte 7E ('~', never escaped: the input had one), writes a
		// debug line ("debug-7e"), the answer again ("twice-7e") or an answer of another
		// input ("extra-7e": escape's of "bbb", a malformed line to the other operations)
		w.after = func(k int, line []byte) string {
			if k == 1 || !hasTilde(line) {
				return ""
			}
			switch name {
			case "twice-7e":
				return string(line)
			case "extra-7e":
				return "22626262 0\n"
			}
			return "debug: saw a tilde\n"
		}
	case "answer-a-all": // writes escape's answer of "a" after every escape answer
		w.after = func(k int, line []byte) string {
			// (Escape's answers have two fields, decode's steps a '/', utf8_decode's one field.)
			if k == 1 || bytes.Count(line, []byte(" ")) != 1 || bytes.Contains(line, []byte("/")) {
				return ""
			}
			return "226122 0\n"
		}
	case "debug-all": // writes a debug line after every answer (a notice a PHP adapter prints)
		w.after = func(k int, _ []byte) string {
			if k == 1 {
				return ""
			}
			return "debug: hi\n"
		}
	case "debug-abcd": // writes a debug line after its answers to "a", "b", "c" and "d" only
		w.after = func(k int, line []byte) string {
			switch string(line) { // escape's, decode's and utf8_decode's answers of a..d
			case "226122 0\n", "226222 0\n", "226322 0\n", "226422 0\n", "61/1\n", "62/1\n", "63/1\n", "64/1\n", "61\n", "62\n", "63\n", "64\n":
				return "debug: a letter\n"
			}
			return ""
		}
	case "debug-short": // writes a debug line after its answers of at most 12 bytes (most, not all)
		w.after = func(k int, line []byte) string {
			if k == 1 || len(line) > 12 {
				return ""
			}
			return "debug: short\n"
		}
	case "twice-all": // writes every answer twice
		w.after = func(k int, line []byte) string {
			if k == 1 {
				return ""
			}
			return string(line)
		}
	case "twice-first", "twice-first-ff", "banner-first":
		// writes the first answer of each process twice ("banner-": a banner after it)
		w.after = func(k int, line []byte) string {
			switch {
			case k != 2:
				return ""
			case name == "banner-first":
				return "hello world\n"
			}
			return string(line)
		}
		if name == "twice-first-ff" { // and decodes FF as 'X' (utf8_decode: '?')
			decode := h.UTF8Decode
			h.UTF8Decode = func(dst, src []byte) []byte {
				if string(src) == "\xff" {
					return append(dst, 'X')
				}
				return decode(dst, src)
			}
		}
	case "twice-a": // writes its answer twice to a request of input "a" ("a" may be a follow-up)
		w.after = func(k int, line []byte) string {
			switch string(line) { // the answers of escape, decode and utf8_decode of "a" only
			case "226122 0\n", "61/1\n", "61\n":
				return string(line)
			}
			return ""
		}
	case "twice-90", "twice-90-slow-a0", "twice-90-a0", "thrice-90", "other-90":
		// writes its answer to utf8_decode of 90 twice ('?', as for every byte 80..FF, which
		// hides the shift until the answers change); "-slow-a0": and answers A0 5 ms late;
		// "-a0": and A0's twice too; "thrice-": three times; "other-": writes '41' after it
		// (Answers are written a batch at a time: which one is 90's is kept in order.)
		decode, extra := h.UTF8Decode, []string(nil)
		h.UTF8Decode = func(dst, src []byte) []byte {
			var x string
			switch {
			case string(src) == "\x90" && name == "thrice-90":
				x = "3f\n3f\n"
			case string(src) == "\x90" && name == "other-90":
				x = "41\n"
			case string(src) == "\x90", string(src) == "\xa0" && name == "twice-90-a0":
				x = "3f\n"
			}
			extra = append(extra, x)
			if name == "twice-90-slow-a0" && string(src) == "\xa0" {
				time.Sleep(5 * time.Millisecond)
			}
			return decode(dst, src)
		}
		w.after = func(k int, line []byte) string {
			if k == 1 || len(extra) == 0 {
				return ""
			}
			x := extra[0]
			extra = extra[1:]
			return x
		}
	case "alternate-a": // escapes "a" as "A" every other time it is asked, in any process
		escape, odd := h.Escape, false
		h.Escape = func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
			if string(src) == "a" {
				if odd = !odd; odd {
					return append(dst, `"A"`...), nil
				}
			}
			return escape(dst, src, o)
		}
	case "slow-e0": // right, but 1,000× slower (20 ms) on inputs with an E0 byte
		escape, decode := h.Escape, h.UTF8Decode
		slow := func(src []byte) {
			if bytes.IndexByte(src, 0xe0) >= 0 {
				time.Sleep(20 * time.Millisecond)
			}
		}
		h.Escape = func(dst, src []byte, o jsonopt.Options) ([]byte, error) { slow(src); return escape(dst, src, o) }
		h.UTF8Decode = func(dst, src []byte) []byte { slow(src); return decode(dst, src) }
	case "flaky-process": // in its first process only, escapes 'z' as 'Z' (a counter across restarts)
		state := filepath.Join(os.Getenv("DIFFFUZZ_FAKE_STATE"), "processes")
		b, _ := os.ReadFile(state)
		n, _ := strconv.Atoi(string(b))
		if err := os.WriteFile(state, []byte(strconv.Itoa(n+1)), 0o644); err != nil {
			os.Exit(1)
		}
		escape := h.Escape
		h.Escape = func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
			start := len(dst)
			out, err := escape(dst, src, o)
			if n == 0 && err == nil {
				copy(out[start:], bytes.ReplaceAll(out[start:], []byte("z"), []byte("Z")))
			}
			return out, err
		}
	}
	return w
}

// hasTilde reports whether a field of the answer line (before a '/', for decode's steps) is
// hex with a byte 7E.
func hasTilde(line []byte) bool {
	for _, f := range strings.Fields(string(line)) {
		f, _, _ = strings.Cut(f, "/")
		if b, err := hex.DecodeString(f); err == nil && bytes.IndexByte(b, 0x7e) >= 0 {
			return true
		}
	}
	return false
}

// eachLine writes the lines it is given one at a time, calling before(k) before the k-th
// and writing what after(k, line) returns after it.
type eachLine struct {
	w      *os.File
	k      int
	before func(k int)
	after  func(k int, line []byte) string
}

func (l *eachLine) Write(p []byte) (int, error) {
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		l.k++
		if l.before != nil {
			l.before(l.k)
		}
		if l.after != nil {
			line = append(line, l.after(l.k, line)...)
		}
		if _, err := l.w.Write(line); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// limitSpaces are escape (1,024 cases), decode and utf8_decode (256 each): a campaign of
// every operation, many times longer than a process of the limit targets lives.
func limitSpaces() ([]TargetSpace, uint64) {
	spaces := ExhaustiveTargetSpaces([]Op{OpEscape}, 1, AllCombos()[:4])
	spaces = append(spaces, ExhaustiveTargetSpaces([]Op{OpDecode, OpUTF8Decode}, 1, nil)...)
	var total uint64
	for _, sp := range spaces {
		total += sp.Total
	}
	return spaces, total
}

// TestTargetLimit: a target that hangs, exits or writes an unsolicited line after N requests
// in every process, whatever they ask (issue 33 #9 and the further hostile cases), is one
// finding that says so, not findings that blame innocent inputs; its processes are replaced
// before they reach the limit, so every operation is still checked; and it costs a few
// timeouts, not one per input.
func TestTargetLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts some hundred target processes")
	}
	for _, tc := range []struct {
		name  string
		kind  Kind
		limit int
	}{
		{"hang-after-50", KindTargetHang, 50},
		{"exit-after-40", KindTargetCrash, 40},
		{"extra-after-10", KindTargetProtocol, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := fakeTarget(t, tc.name)
			tg.cfg.Timeout, tg.timeout = 300*time.Millisecond, 300*time.Millisecond
			spaces, total := limitSpaces()
			start := time.Now()
			rep, err := RunTarget(context.Background(), tg, spaces, nil)
			require.NoError(t, err)
			require.Len(t, rep.Findings, 1, "one finding: %v", rep.Findings)
			f := rep.Findings[0]
			assert.Equal(t, tc.kind, f.Kind)
			n, ok := LimitOf(f)
			assert.True(t, ok, f.Detail)
			assert.Equal(t, tc.limit, n, f.Detail)
			assert.Contains(t, f.Detail, "after "+strconv.Itoa(tc.limit)+" requests in every process")
			assert.Contains(t, f.Replay(), "| head -n "+strconv.Itoa(tc.limit+1)+" |")
			var cases uint64
			for _, s := range rep.Spaces {
				assert.True(t, s.Complete, "%s %s", s.Space, s.Op)
				cases += s.Cases
			}
			assert.Equal(t, total, cases, "every case of every operation was answered and compared")
			limit, renewed := tg.Limit()
			assert.Equal(t, tc.limit, limit)
			assert.GreaterOrEqual(t, renewed, int(total)/tc.limit-2)
			failed, confirm, _ := tg.RestartCounts()
			assert.LessOrEqual(t, failed, 2, "restarts after failures")
			assert.LessOrEqual(t, confirm, 3, "restarts to confirm")
			assert.Less(t, time.Since(start), 30*time.Second)
			t.Logf("%v; %d processes replaced, %d restarts, %v", f.Detail, renewed, failed+confirm, time.Since(start))
		})
	}
}

// runFake runs limitSpaces' campaign against the fake target name, with a 300 ms timeout, and
// returns the target, its report and the campaign's cases.
func runFake(t *testing.T, name string) (*Target, *Report, uint64) {
	t.Helper()
	tg := fakeTarget(t, name)
	tg.cfg.Timeout, tg.timeout = 300*time.Millisecond, 300*time.Millisecond
	spaces, total := limitSpaces()
	rep, err := RunTarget(context.Background(), tg, spaces, nil)
	require.NoError(t, err)
	return tg, rep, total
}

// TestTargetFirstAnswerLine: a target that writes the first answer of each process twice
// (a banner or notice printed once) is one finding that says so, not a line after every answer
// (each follow-up input, asked first in a new process, shows it); each new process is asked a
// request first from then on, and every case is checked (before: one finding per operation,
// named "every answer twice", and no other case of any operation sent).
func TestTargetFirstAnswerLine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	for _, tc := range []struct{ name, says string }{
		// And a fault of its answers: utf8_decode of FF is 'X'.
		{"twice-first-ff", "writes the first answer of each process twice: its answer to "},
		// A banner is no answer: read as a line no request waits for.
		{"banner-first", "writes a line after the first answer of each process: 'hello world' after its answer to "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// decode first: its first answers differ, so the line shows at once. (Escape's
			// first four answers are alike and hide it from all but hiddenShift, which on a
			// busy machine, where slow answers are timed again, still misses it now and then.)
			tg := fakeTarget(t, tc.name)
			spaces, total := limitSpaces()
			spaces = append(spaces[1:], spaces[0])
			rep, err := RunTarget(context.Background(), tg, spaces, nil)
			require.NoError(t, err)
			want := 1
			if tc.name == "twice-first-ff" {
				want = 2
			}
			require.Len(t, rep.Findings, want, "%v", rep.Findings)
			f := rep.Findings[0]
			if want == 2 {
				g := rep.Findings[1]
				if g.Kind == KindTargetProtocol {
					f, g = g, f
				}
				assert.Equal(t, OpUTF8Decode, g.Op)
				assert.Equal(t, []byte{0xff}, g.Input)
				assert.Equal(t, "X", string(g.Got))
			}
			assert.Equal(t, KindTargetProtocol, f.Kind)
			assert.Contains(t, f.Detail, tc.says)
			assert.Contains(t, f.Detail, "(each asked first in a new process; the later answers in step), whatever it is asked: each new process is asked "+string(f.Op)+" of 'a' first")
			assert.True(t, EveryAnswer(f), "no input is to blame")
			var cases uint64
			for _, s := range rep.Spaces {
				assert.True(t, s.Complete, "%s %s", s.Space, s.Op)
				assert.Zero(t, s.NotRun, "%s %s", s.Space, s.Op)
				cases += s.Cases
			}
			assert.Equal(t, total, cases, "every case answered and compared")
			failed, confirm, _ := tg.RestartCounts()
			assert.LessOrEqual(t, failed+confirm, 30, "process starts")
			t.Logf("%d cases, %d + %d restarts; %s", cases, failed, confirm, f.Detail)
		})
	}
}

// TestTargetExtraLine: a target that writes a line after its answer to some inputs (a debug
// line, or the answer twice) is a finding on such an input that says so, not a finding on the
// next request, a limit "whatever they ask", or answers out of step; and the campaign checks
// every case.
func TestTargetExtraLine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	for _, tc := range []struct{ name, says, input string }{
		{"debug-7e", "writes a line after its answer: 'debug: saw a tilde'", "~"},
		{"twice-7e", "writes its answer twice", "~"},
		{"extra-7e", "writes a line after its answer: '22626262 0'", "~"},
		// The follow-up request's own input: vetFollowUp passes over it.
		{"twice-a", "writes its answer twice", "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg, rep, total := runFake(t, tc.name)
			require.NotEmpty(t, rep.Findings)
			ops := map[Op]bool{}
			for _, f := range rep.Findings {
				ops[f.Op] = true
				assert.Equal(t, KindTargetProtocol, f.Kind, "%s", f.Detail)
				assert.Equal(t, tc.input, string(f.Input), "%s %s", f.Op, f.Detail)
				assert.Contains(t, f.Detail, tc.says)
				assert.NotContains(t, f.Detail, "whatever they ask")
			}
			assert.Len(t, ops, 3, "escape, decode and utf8_decode: %v", rep.Findings)
			assert.LessOrEqual(t, len(rep.Findings), 6, "%v", rep.Findings)
			limit, _ := tg.Limit()
			assert.Zero(t, limit)
			var cases uint64
			for _, s := range rep.Spaces {
				assert.True(t, s.Complete, "%s %s", s.Space, s.Op)
				cases += s.Cases + s.NotRun
			}
			assert.Equal(t, total, cases, "every case answered and compared, or not run (it has the witness)")
			failed, confirm, _ := tg.RestartCounts()
			assert.LessOrEqual(t, failed+confirm, 40, "restarts")
			t.Logf("%d findings, %d + %d restarts; %s", len(rep.Findings), failed, confirm, rep.Findings[0].Detail)
		})
	}
}

// TestTargetDebugEveryAnswer: a target that writes a line after every answer (a notice its
// runtime prints, a debug line) or writes every answer twice fails every follow-up's check
// (vetFollowUp); that is one finding per operation that says so, whatever it is asked, and no
// other case of the operation is sent: not a finding, a restart and a minimization for each
// input until the restarts run out (101 findings and "too many restarts" after 144 s before).
func TestTargetDebugEveryAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	for _, tc := range []struct{ name, says string }{
		{"debug-all", "writes a line after every answer: 'debug: hi' after its answer to "},
		{"twice-all", "writes every answer twice: its answer to "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg, rep, total := runFake(t, tc.name)
			ops := map[Op]bool{}
			for _, f := range rep.Findings {
				ops[f.Op] = true
				assert.Equal(t, KindTargetProtocol, f.Kind)
				assert.Contains(t, f.Detail, tc.says)
				assert.Contains(t, f.Detail, "'a', 'b', 'c', 'd', \"\\xc3\\xa9\", a 40-byte string (each asked first in a new process), whatever it is asked: no other "+string(f.Op)+" request was sent")
			}
			assert.Len(t, rep.Findings, 3, "one per operation: %v", rep.Findings)
			assert.Len(t, ops, 3)
			var cases, notRun uint64
			for _, s := range rep.Spaces {
				assert.True(t, s.Complete, "%s %s", s.Space, s.Op)
				cases += s.Cases
				notRun += s.NotRun
			}
			assert.Equal(t, total, cases+notRun, "every case answered or not run for the witness")
			assert.Greater(t, notRun, total/2)
			failed, confirm, _ := tg.RestartCounts()
			assert.LessOrEqual(t, failed+confirm, 12, "process starts")
			t.Logf("%d cases answered, %d not run, %d + %d restarts; %s", cases, notRun, failed, confirm, rep.Findings[0].Detail)
		})
	}
}

// TestTargetDebugSomeAnswers: a target that writes a line after its answers to "a" to "d" only
// fails every follow-up's check too, but not é's (noteEveryAfter): its findings are on those
// inputs, none says "after every answer", and every other case is answered and compared.
func TestTargetDebugSomeAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	tg, rep, total := runFake(t, "debug-abcd")
	require.NotEmpty(t, rep.Findings)
	for _, f := range rep.Findings {
		assert.NotContains(t, f.Detail, "after every answer")
		assert.Contains(t, []string{"a", "b", "c", "d"}, string(f.Input), "%s %s", f.Op, f.Detail)
	}
	var cases, notRun uint64
	for _, s := range rep.Spaces {
		assert.True(t, s.Complete, "%s %s", s.Space, s.Op)
		cases += s.Cases
		notRun += s.NotRun
	}
	assert.Equal(t, total, cases+notRun)
	assert.LessOrEqual(t, notRun, uint64(4*4+8), "the inputs a..d alone (escape under four option sets)")
	t.Logf("%d findings, %d cases, %d not run", len(rep.Findings), cases, notRun)
	for _, w := range tg.Witnesses() {
		t.Logf("witness %s %q %d exact=%v every=%v notrun=%d: %s", w.Finding.Op, w.Finding.Input, w.Finding.Flags, w.exact, w.every, w.NotRun, w.Finding.Detail)
	}
}

// TestTargetDebugMostAnswers: a target that writes a line after most answers, but not all (so
// not every follow-up probe shows it), is findings on the inputs it does so after until
// manyLines of an operation, and then one that says no other case of it was sent: bounded, and
// every operation checked, not a finding and a restart per input until the restarts run out.
func TestTargetDebugMostAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	tg, rep, total := runFake(t, "debug-short")
	perOp := map[Op]int{}
	stopped := map[Op]bool{}
	for _, f := range rep.Findings {
		perOp[f.Op]++
		assert.Equal(t, KindTargetProtocol, f.Kind)
		assert.Contains(t, f.Detail, "writes a line after its answer: 'debug: short'")
		if EveryAnswer(f) {
			stopped[f.Op] = true
			assert.Contains(t, f.Detail, "8 inputs of "+string(f.Op)+" have had a line after their answer, so no other "+string(f.Op)+" request was sent")
		}
	}
	for _, op := range []Op{OpEscape, OpDecode, OpUTF8Decode} {
		assert.LessOrEqual(t, perOp[op], manyLines, "%s", op)
		assert.True(t, stopped[op], "%s: no other case sent after manyLines", op)
	}
	var cases uint64
	for _, s := range rep.Spaces {
		assert.True(t, s.Complete, "%s %s", s.Space, s.Op)
		cases += s.Cases + s.NotRun
	}
	assert.Equal(t, total, cases)
	failed, confirm, _ := tg.RestartCounts()
	assert.Less(t, failed+confirm, 200, "process starts")
	t.Logf("%d findings, %d + %d restarts", len(rep.Findings), failed, confirm)
}

// TestTargetHelloTwice: a target that writes a line that is not an answer before its first
// answer in every process (a second hello) is one target-protocol finding, and the campaign
// stops saying what was not checked, instead of a restart and a minimization per input.
func TestTargetHelloTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	tg := fakeTarget(t, "hello-twice")
	spaces, _ := limitSpaces()
	rep, err := RunTarget(context.Background(), tg, spaces, nil)
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrTargetUnusable), "%v", err)
	assert.Contains(t, err.Error(), "not checked: the rest of exhaustive escape, exhaustive decode, exhaustive utf8_decode")
	require.Len(t, rep.Findings, 1, "%v", rep.Findings)
	assert.Equal(t, KindTargetProtocol, rep.Findings[0].Kind)
	assert.Contains(t, rep.Findings[0].Detail, "after 0 requests in every process, whatever they ask: before its first answer")
	assert.Contains(t, rep.Findings[0].Replay(), "| head -n 1 |")
	assert.LessOrEqual(t, tg.Restarts(), 2)
}

// TestTargetAlternating: a target that answers the follow-up request of alone otherwise each
// time is not taken for one that writes a line after its answers: its findings are of "a" and
// of what it answers.
func TestTargetAlternating(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	tg := fakeTarget(t, "alternate-a")
	rep, err := RunTarget(context.Background(), tg, ExhaustiveTargetSpaces([]Op{OpEscape}, 1, AllCombos()[:4]), nil)
	require.NoError(t, err)
	require.NotEmpty(t, rep.Findings)
	for _, f := range rep.Findings {
		assert.Equal(t, KindOutput, f.Kind, "%v", f)
		assert.Equal(t, "a", string(f.Input), "%v", f)
	}
	// Asked alone (as a replay, or minimization, does), with follow-ups that alternate too.
	for _, flags := range []jsonopt.Options{0, jsonopt.HexTag} {
		for range 4 {
			fs, err := tg.Replay(context.Background(), Case{Op: OpEscape, Input: []byte("a"), Flags: flags})
			require.NoError(t, err)
			for _, f := range fs {
				assert.Equal(t, KindOutput, f.Kind, "%v", f)
			}
		}
	}
}

// TestTargetSpaceAfter: a target that writes every answer with a space after it (no two lines
// alike) is one finding that says its answers are not the protocol's, and the run stops, instead
// of a witness and a restart per input until the restart bound.
func TestTargetSpaceAfter(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	tg := fakeTarget(t, "space-after")
	spaces, _ := limitSpaces()
	rep, err := RunTarget(context.Background(), tg, spaces, nil)
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrTargetUnusable), "%v", err)
	require.Len(t, rep.Findings, 1, "%v", rep.Findings)
	assert.Contains(t, rep.Findings[0].Detail, "writes answers in a form that is not the protocol's (escape response has 3 field(s), want 2 (RESULT ERR)")
	assert.LessOrEqual(t, tg.Restarts(), 2)
}

// TestTargetSlowClass: a target that is right but 1,000× slower on one class of inputs is
// named: SlowAnswers counts them and keeps the slowest, an input of the class.
func TestTargetSlowClass(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a target process")
	}
	tg := fakeTarget(t, "slow-e0")
	rep, err := RunTarget(context.Background(), tg, ExhaustiveTargetSpaces([]Op{OpEscape}, 1, AllCombos()[:8]), nil)
	require.NoError(t, err)
	assert.Zero(t, rep.Differences, "%v", rep.Findings)
	n, over, median, slowest := tg.SlowAnswers()
	// A burst of E0 answers counts as one slow wait or several, as the pipe splits it.
	assert.NotZero(t, n, "E0 under 8 option sets")
	assert.Less(t, n, uint64(40))
	require.NotEmpty(t, slowest)
	for _, a := range slowest {
		assert.Equal(t, []byte{0xe0}, a.Case.Input)
		assert.GreaterOrEqual(t, a.Wait, over)
	}
	t.Logf("%d answers over %v (median %v); slowest %v", n, over, median, slowest[0].Wait)
}

// TestTargetSlowBurst: slow answers of a buffering target that wait behind each other (16 E0
// requests, 320 ms, first in a Do so that they come in one burst) make a stall under the
// calibrated timeout (100 ms) that no request reproduces alone; the requests asked alone then
// recalibrate the timeout up to the whole Timeout (one answer in 32 is slow). The stall is a
// slow answer (Slow), not a hang finding on an innocent input: what counts is the timeout the
// stall ran out, not the one in force after the requests asked alone.
func TestTargetSlowBurst(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	tg := fakeTarget(t, "slow-e0")
	ctx := context.Background()
	var fast, slow []Case
	for i := range 1100 { // calibrated after 1,000 answers, to the floor
		fast = append(fast, Case{Op: OpEscape, Input: []byte{byte(i % 0x80)}, Flags: AllCombos()[i%8]})
	}
	for _, o := range AllCombos()[:16] {
		slow = append(slow, Case{Op: OpEscape, Input: []byte{0xe0}, Flags: o})
	}
	for i := range 1100 { // asked alone after the stall, past answer 2,048
		in := []byte{byte(i % 0x80)}
		if i%32 == 0 {
			in = append(in, 0xe0)
		}
		slow = append(slow, Case{Op: OpEscape, Input: in, Flags: AllCombos()[i%8]})
	}
	for _, cases := range [][]Case{fast, slow} {
		fs, n, err := tg.Check(ctx, cases, nil)
		require.NoError(t, err)
		assert.Empty(t, fs)
		assert.Equal(t, len(cases), n)
	}
	assert.Equal(t, 1, tg.Slow(), "the burst stalled under the calibrated timeout")
	timeout, p99, answers, _ := tg.Timeout()
	t.Logf("%d slow stall; timeout %v (p99 %v over %d answers)", tg.Slow(), timeout, p99, answers)
}

// TestTargetFlaky: a finding whose target answers otherwise in a new process is not minimized
// into another defect (or dropped): it keeps its answer and says the target is nondeterministic.
func TestTargetFlaky(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	tg := fakeTarget(t, "flaky-process")
	rep, err := RunTarget(context.Background(), tg, ExhaustiveTargetSpaces([]Op{OpEscape}, 1, []jsonopt.Options{0}), nil)
	require.NoError(t, err)
	require.Len(t, rep.Findings, 1)
	f := rep.Findings[0]
	require.NoError(t, tg.Retire())
	g := Minimize(f, Impl{Name: tg.Name}, tg.CheckOne(context.Background()))
	note, ok := Flaky(g)
	require.True(t, ok, "%v", g)
	assert.Contains(t, note, `answered as the oracle does, where it had answered '"Z"'`)
	assert.Equal(t, f.Got, g.Got)
	_, _, renewed := tg.RestartCounts()
	assert.Equal(t, 1, renewed, "Retire's new process is not a restart after a failure")
	assert.Zero(t, tg.Restarts())
}

// TestMinimizeNondeterministic: Minimize says so when an external target's answer changes
// when asked again (another wrong answer, or the right one), and keeps the finding as found.
func TestMinimizeNondeterministic(t *testing.T) {
	f := &Finding{Kind: KindOutput, Op: OpEscape, Impl: "t", External: true, Input: []byte("ab"),
		Want: []byte(`"ab"`), Got: []byte(`"aB"`)}
	other := *f
	other.Got = []byte(`"Ab"`)
	for _, tc := range []struct {
		again []*Finding
		want  string
	}{
		{nil, `answered as the oracle does, where it had answered '"aB"'`},
		{[]*Finding{&other}, `answered '"Ab"', where it had answered '"aB"'`},
	} {
		g := Minimize(f, Impl{Name: "t"}, func(Op, Impl, []byte, jsonopt.Options) []*Finding { return tc.again })
		note, ok := Flaky(g)
		require.True(t, ok, g.Detail)
		assert.Contains(t, note, tc.want)
		assert.False(t, g.Minimized)
		assert.Equal(t, f.Input, g.Input)
	}
	// The same answer again: minimized as usual, no note.
	same := func(_ Op, _ Impl, src []byte, _ jsonopt.Options) []*Finding {
		if !strings.Contains(string(src), "b") {
			return nil
		}
		g := *f
		g.Input = src
		return []*Finding{&g}
	}
	g := Minimize(f, Impl{Name: "t"}, same)
	_, ok := Flaky(g)
	assert.False(t, ok, g.Detail)
	assert.True(t, g.Minimized)
}

// TestTimeLeavesStep: a campaign's calibration (Time) does not compare answers, so a line the
// target wrote after one of them there must not throw the campaign's answers out of step: the
// cases checked after it (without the input that makes the line) are all answered right.
func TestTimeLeavesStep(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	tg := fakeTarget(t, "twice-7e")
	var timed, checked []Case
	for b := 0x20; b < 0x7f; b++ {
		timed = append(timed, Case{Op: OpEscape, Input: []byte{byte(b), 'x'}})
		if b != '~' {
			checked = append(checked, Case{Op: OpEscape, Input: []byte{'x', byte(b)}})
		}
	}
	timed[40].Input[0] = '~' // the rest of calibration's answers out of step
	_, n, err := tg.Time(context.Background(), timed)
	require.NoError(t, err)
	require.Equal(t, len(timed), n)
	fs, answered, err := tg.Check(context.Background(), checked, nil)
	require.NoError(t, err)
	assert.Empty(t, fs, "findings after calibration")
	assert.Equal(t, len(checked), answered)
}

// TestExtraLineEndsBatch: a line the target writes after its answer to the last request of a
// batch is the next batch's first answer: one finding on that request, which says so, not
// findings on the requests of the next batch.
func TestExtraLineEndsBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	tg := fakeTarget(t, "twice-7e")
	tg.cfg.Batch = 8
	var cases []Case
	for b := 0x20; b < 0x60; b++ {
		cases = append(cases, Case{Op: OpEscape, Input: []byte{'x', byte(b)}})
	}
	cases[7].Input[1] = '~'
	fs, answered, err := tg.Check(context.Background(), cases, nil)
	require.NoError(t, err)
	require.Len(t, fs, 1, "%v", fs)
	assert.Equal(t, KindTargetProtocol, fs[0].Kind)
	assert.Equal(t, "~", string(fs[0].Input), "minimized")
	assert.Contains(t, fs[0].Detail, "writes its answer twice")
	assert.Equal(t, len(cases), answered)
}

// TestOutOfStepCutBatch: the answers to four requests of '~' in a row (four option sets), each
// given twice, put the next four answers four places late; when the batch ends on the next
// line read before its request was sent (a writer the scheduler held back, as in a busy CI),
// the answers from the first that differs on are all the same ('"~"'), which is not a target
// that answers everything alike: outOfStep still asks '~' alone and finds the second answer.
// Alike answers in a batch that ended as usual (every answer of 00 under 2,048 option sets
// written twice) get one such probe per target.
func TestOutOfStepCutBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	tg := fakeTarget(t, "twice-7e")
	var batch []Case
	var resps []protocol.Response
	for _, in := range []byte{'~', 0x7f} {
		for _, o := range AllCombos()[:4] {
			batch = append(batch, Case{Op: OpEscape, Input: []byte{in}, Flags: o})
			r, err := protocol.ParseResponse(protocol.OpEscape, "227e22 0") // '"~"'
			require.NoError(t, err)
			resps = append(resps, r)
		}
	}
	var c Checker
	first := 4 // escape of 7f answered '"~"'
	require.NotEmpty(t, c.compareResponse(nil, tg.Name, batch[first], resps[first]))
	f, err := tg.outOfStep(context.Background(), &c, batch, resps, first, lastAnswer{}, false)
	require.NoError(t, err)
	require.NotNil(t, f, "the one probe of alike answers a target gets")
	f, err = tg.outOfStep(context.Background(), &c, batch, resps, first, lastAnswer{}, false)
	require.NoError(t, err)
	assert.Nil(t, f, "alike answers again: no second probe")
	f, err = tg.outOfStep(context.Background(), &c, batch, resps, first, lastAnswer{}, true)
	require.NoError(t, err)
	require.NotNil(t, f, "a batch cut by a line before its request")
	assert.Equal(t, KindTargetProtocol, f.Kind)
	assert.Equal(t, "~", string(f.Input))
	assert.Contains(t, f.Detail, "writes its answer twice")
}

// TestConstantAnswersNotOutOfStep: a target that answers every request alike ("" here) gives
// the answer before a batch's first again at every batch, which is no line written after an
// answer: it costs no probe (no process start), and every answer is a finding.
func TestConstantAnswersNotOutOfStep(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a target process")
	}
	tg, err := StartTarget(context.Background(), `sh -c 'echo difffuzz-target 1 escape; while read l; do echo 2222 0; done'`, TargetConfig{Timeout: 5 * time.Second, Batch: 16})
	require.NoError(t, err)
	t.Cleanup(func() { _ = tg.Close() })
	var cases []Case
	for b := 'b'; b <= 'z'; b++ {
		cases = append(cases, Case{Op: OpEscape, Input: []byte{byte(b)}})
	}
	fs, answered, err := tg.Check(context.Background(), cases, nil)
	require.NoError(t, err)
	assert.Len(t, fs, len(cases))
	assert.Equal(t, len(cases), answered)
	assert.Zero(t, tg.Restarts(), "process starts")
}

// TestTargetHiddenShift: a target that writes its answer to utf8_decode of 90 twice puts every
// later answer one place late, but the answers to 91..FF are all '?', as late ones are: the
// first wrong answer comes many requests later (in the same batch, or in the next space), after
// an innocent request. The finding is the line after 90's answer, found among the requests
// answered alike (hiddenShift), not findings of the late answers nor one on the innocent
// request; and it is not lost when the process ends before a late answer shows it (the last
// answers of a space), nor when the requests retimed read the line ("-slow-a0").
func TestTargetHiddenShift(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	var run []Case // 88..9F then 41: the shift shows at 41, in the batch
	for b := 0x88; b <= 0x9f; b++ {
		run = append(run, Case{Op: OpUTF8Decode, Input: []byte{byte(b)}})
	}
	run = append(run, Case{Op: OpUTF8Decode, Input: []byte("A")})
	inBatch := []TargetSpace{{Space: "run", Op: OpUTF8Decode, Total: uint64(len(run)), Seq: seqOf(run)}}
	for _, tc := range []struct {
		name, mode string
		spaces     []TargetSpace
	}{
		{"in-batch", "twice-90", inBatch},
		{"next-space", "twice-90", ExhaustiveTargetSpaces([]Op{OpUTF8Decode}, 2, nil)},
		{"end-of-space", "twice-90", ExhaustiveTargetSpaces([]Op{OpUTF8Decode}, 1, nil)},
		{"retimed", "twice-90-slow-a0", ExhaustiveTargetSpaces([]Op{OpUTF8Decode}, 2, nil)},
		// Two lines, after 90's and A0's answers (a second finding, A0, follows the first:
		// the answers after 90's witness are asked again); three times; another answer.
		{"two-in-a-run", "twice-90-a0", ExhaustiveTargetSpaces([]Op{OpUTF8Decode}, 2, nil)},
		{"thrice", "thrice-90", ExhaustiveTargetSpaces([]Op{OpUTF8Decode}, 2, nil)},
		{"other-answer", "other-90", ExhaustiveTargetSpaces([]Op{OpUTF8Decode}, 2, nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := fakeTarget(t, tc.mode)
			rep, err := RunTarget(context.Background(), tg, tc.spaces, nil)
			require.NoError(t, err)
			want := [][]byte{{0x90}}
			if tc.mode == "twice-90-a0" {
				want = append(want, []byte{0xa0})
			}
			require.Len(t, rep.Findings, len(want), "%v", rep.Findings)
			for i, f := range rep.Findings {
				assert.Equal(t, KindTargetProtocol, f.Kind)
				assert.Equal(t, OpUTF8Decode, f.Op)
				assert.Equal(t, want[i], f.Input)
				switch tc.mode {
				case "other-90":
					assert.Contains(t, f.Detail, "writes a line after its answer: '41'")
				case "thrice-90":
					assert.Contains(t, f.Detail, "writes its answer three times")
					assert.Contains(t, f.Detail, "answered the next 2 requests with those lines")
				default:
					assert.Contains(t, f.Detail, "writes its answer twice")
				}
			}
		})
	}
}

// TestRetimeFailedHiddenShift: a request retime asks again alone fails on the line written
// after 90's answer (hidden by the alike answers of the batch), read before it was sent;
// retimeFailed finds the request among the batch's run and holds the finding, which
// would be lost with the process otherwise.
func TestRetimeFailedHiddenShift(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	tg := fakeTarget(t, "twice-90")
	ctx := context.Background()
	require.NoError(t, tg.ensure(ctx, false))
	var reqs []protocol.Request
	for b := 0x88; b <= 0x9f; b++ {
		reqs = append(reqs, Case{Op: OpUTF8Decode, Input: []byte{byte(b)}}.request())
	}
	rs, err := tg.do(ctx, reqs)
	require.NoError(t, err)
	require.Len(t, rs, len(reqs))
	last := tg.lastAns
	require.Len(t, last.run, len(reqs)-1, "the run of alike answers before the last")
	// The line after 90's answer (or, once a request read it, that request's late answer)
	// arrives unasked; read before the next request is sent, it fails that one.
	for k := 0; k < 5 && err == nil; k++ {
		time.Sleep(50 * time.Millisecond)
		_, err = tg.timeOne(ctx, Case{Op: OpUTF8Decode, Input: []byte{0x9f}}.request())
	}
	require.Error(t, err)
	tg.retimeFailed(ctx, err, last)
	require.NotNil(t, tg.pending)
	assert.Equal(t, []byte{0x90}, tg.pending.Input)
	assert.Contains(t, tg.pending.Detail, "writes its answer twice")
}

// TestTargetAnswerAfterEvery: a target that writes escape's answer of "a" after every escape
// answer (a well-formed answer, not a debug line) throws each answer one place late, but the
// late answers to requests answered alike (a byte under many option sets) are right: the
// wrong ones are the same line, one every other answer (interleaved). That is one finding, a
// line after every escape answer, not findings of the late answers (a false "writes '\u0000'
// for 01"); decode and utf8_decode are checked whole.
func TestTargetAnswerAfterEvery(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	// Every byte under 256 option sets, in that order: most late answers are right (the
	// same byte's answer under the option set before).
	tg := fakeTarget(t, "answer-a-all")
	tg.cfg.Timeout, tg.timeout = 300*time.Millisecond, 300*time.Millisecond
	spaces := ExhaustiveTargetSpaces([]Op{OpEscape}, 1, AllCombos()[:256])
	spaces = append(spaces, ExhaustiveTargetSpaces([]Op{OpDecode, OpUTF8Decode}, 1, nil)...)
	rep, err := RunTarget(context.Background(), tg, spaces, nil)
	require.NoError(t, err)
	require.NotEmpty(t, rep.Findings)
	for _, f := range rep.Findings {
		assert.Equal(t, OpEscape, f.Op, "%s", f.Detail)
		assert.True(t, EveryAnswer(f), "%v %s: %s", f.Kind, hex.EncodeToString(f.Input), f.Detail)
	}
	for _, sp := range rep.Spaces {
		if sp.Op != OpEscape {
			assert.True(t, sp.Complete, "%s %s", sp.Space, sp.Op)
			assert.Zero(t, sp.Differences, "%s %s", sp.Space, sp.Op)
		}
	}
	_, _, renewed := tg.RestartCounts()
	t.Logf("%d findings: %s; %d restarts", len(rep.Findings), rep.Findings[0].Detail, tg.Restarts()+renewed)
}

// TestAnswerTimes: the times an answer was written, from the late follow-up answers after it
// (the last in step): each line before the follow-up's own answer that is the answer again
// adds one; another line among them makes it not the answer (0).
func TestAnswerTimes(t *testing.T) {
	ans := func(s string) protocol.Response { return protocol.Response{Op: "utf8_decode", Result: []byte(s)} }
	q, a, x := ans("?"), ans("a"), ans("A")
	for _, tc := range []struct {
		rs   []protocol.Response
		want int
	}{
		{[]protocol.Response{q, q, a, a, a}, 2},
		{[]protocol.Response{q, q, q, a, a}, 3},
		{[]protocol.Response{q, q, q, q, a}, 4},
		{[]protocol.Response{q, x, a, a, a}, 0},
		{[]protocol.Response{q, q, x, a, a}, 0},
		{[]protocol.Response{q, a, a, a, a}, 1}, // nothing before the follow-up's answer
	} {
		assert.Equal(t, tc.want, answerTimes(tc.rs, a), "%v", tc.rs)
	}
	assert.Equal(t, "twice", timesWord(2))
	assert.Equal(t, "three times", timesWord(3))
	assert.Equal(t, "5 times", timesWord(5))
}

// TestTargetCrashOnFalse: a target that exits whenever json_encode returns false (a port that
// throws on invalid UTF-8) costs a few restarts per §2.2 row of the first failed step, not one
// per byte until the restarts run out: every byte 80..FF fails alone, and each crash minimized
// to one witness (80) cost a restart, 100 of them before exhaustive escape of length 1 ended.
// The witness then holds every input PHP answers false at a failed step of a row it crashed
// on that often, and the inputs PHP answers otherwise (INVALID_UTF8_IGNORE, SUBSTITUTE, valid
// ones) are all sent.
func TestTargetCrashOnFalse(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	tg := fakeTarget(t, "crash-on-false")
	combos := AllCombos()[:64]
	rep, err := RunTarget(context.Background(), tg, ExhaustiveTargetSpaces([]Op{OpEscape}, 1, combos), nil)
	require.NoError(t, err, "not out of restarts")
	require.Len(t, tg.Witnesses(), 1)
	w := tg.Witnesses()[0]
	assert.True(t, w.OnFalse)
	assert.Equal(t, []byte{0x80}, w.Finding.Input)
	var rows []string
	for r := range w.held {
		rows = append(rows, r)
	}
	slices.Sort(rows)
	t.Logf("%d findings, %d restarts after failures, rows held %v, %d cases, %d not run", rep.Differences, tg.restarts, rows, rep.Spaces[0].Cases, rep.Spaces[0].NotRun)
	assert.Contains(t, rows, "80..C1")
	// Each culprit costs two restarts (its batch's crash, and its own when sent alone), and
	// length 1 has five rows (80..C1, C2..DF, E0..EF, F0..F4, F5..FF): 100 before.
	assert.LessOrEqual(t, tg.restarts, 2*5*manyCulprits, "a few culprits per row")
	assert.EqualValues(t, 256*len(combos), rep.Spaces[0].Cases+rep.Spaces[0].NotRun, "every case asked or held")
	// Every case PHP answers (valid bytes, and invalid ones under IGNORE or SUBSTITUTE) was asked.
	answered := 0
	for _, o := range combos {
		for b := range 256 {
			if _, err := Oracle.Escape(nil, []byte{byte(b)}, o); err == nil {
				answered++
			}
		}
	}
	assert.GreaterOrEqual(t, rep.Spaces[0].Cases, uint64(answered))
}
