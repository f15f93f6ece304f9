package fuzz

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/protocol"
)

// TestHelperTarget is not a test: re-executed with DIFFFUZZ_FAKE_TARGET set, the test binary
// becomes a small deliberately broken target speaking protocol v1 (the os/exec helper
// process pattern), and exits when its input ends.
func TestHelperTarget(t *testing.T) {
	name := os.Getenv("DIFFFUZZ_FAKE_TARGET")
	if name == "" {
		t.Skip("helper process for the external-target tests")
	}
	h := protocol.Handler{Escape: Oracle.Escape, NextChar: Oracle.NextChar, UTF8Decode: Oracle.UTF8Decode}
	in := os.Stdin
	out := os.Stdout
	switch name {
	case "lowercase-hex-tag": // writes \u003c for < under HEX_TAG
		h.Escape = func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
			start := len(dst)
			out, err := Oracle.Escape(dst, src, o)
			if err == nil {
				copy(out[start:], bytes.ReplaceAll(out[start:], []byte(`\u003C`), []byte(`\u003c`)))
			}
			return out, err
		}
	case "advance-3-after-e08041": // a failed E0 80 41 advances 3 instead of 2
		h.NextChar = func(s []byte, pos int) jsonopt.Step {
			st := Oracle.NextChar(s, pos)
			if bytes.HasPrefix(s[pos:], []byte{0xe0, 0x80, 0x41}) {
				st.Advance = 3
			}
			return st
		}
	case "crash-on-ff": // exits 3 when asked to escape the single byte FF without options
		h.Escape = func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
			if len(src) == 1 && src[0] == 0xff && o == 0 {
				fmt.Fprintln(os.Stderr, "fake target: crashing on FF")
				os.Exit(3)
			}
			return Oracle.Escape(dst, src, o)
		}
	case "crash-on-false": // exits 3 where json_encode returns false (a port that throws on invalid UTF-8)
		h.Escape = func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
			out, err := Oracle.Escape(dst, src, o)
			if err != nil {
				os.Exit(3)
			}
			return out, err
		}
	case "hang-over-100": // never answers an input longer than 100 bytes
		h.Escape = func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
			if len(src) > 100 {
				time.Sleep(time.Hour)
			}
			return Oracle.Escape(dst, src, o)
		}
	case "lane-last-16", "lane-last-32", "lane-last-64": // writes a special ASCII byte in the last lane of a W-byte block raw
		var w int
		fmt.Sscanf(name, "lane-last-%d", &w)
		h.Escape = laneLastEscape(w)
	case "slow-first-crash-4142": // its first answer takes 300 ms; it exits on utf8_decode of "AB"
		first := true
		h.UTF8Decode = func(dst, src []byte) []byte {
			if first {
				first = false
				time.Sleep(300 * time.Millisecond)
			}
			if string(src) == "AB" {
				os.Exit(3)
			}
			return Oracle.UTF8Decode(dst, src)
		}
	case "spikes": // right, but every 500th answer takes 300 ms
		n := 0
		h.Escape = func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
			if n++; n%500 == 0 {
				time.Sleep(300 * time.Millisecond)
			}
			return Oracle.Escape(dst, src, o)
		}
	case "crash-empty": // exits on the empty input, and is right on every other
		h.Escape = func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
			if len(src) == 0 {
				os.Exit(3)
			}
			return Oracle.Escape(dst, src, o)
		}
	case "hang-empty": // never answers the empty input, and is right on every other
		h.Escape = func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
			if len(src) == 0 {
				time.Sleep(time.Hour)
			}
			return Oracle.Escape(dst, src, o)
		}
	case "crash-long": // exits on inputs longer than 120 bytes
		h.Escape = func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
			if len(src) > 120 {
				os.Exit(3)
			}
			return Oracle.Escape(dst, src, o)
		}
	case "crash-lead4-end": // exits when an input to escape ends in a 4-byte lead (F0-F4)
		h.Escape = func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
			if n := len(src); n > 0 && src[n-1] >= 0xf0 && src[n-1] <= 0xf4 {
				fmt.Fprintln(os.Stderr, "fake target: IndexError at the end of a 4-byte sequence")
				os.Exit(3)
			}
			return Oracle.Escape(dst, src, o)
		}
	case "debug-on-esc": // answers a request to escape an input with ESC (1B) with a debug line
		n, debug := 0, map[int]bool{}
		h.Escape = func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
			n++ // the request's number: one Escape call a request (escape only)
			if bytes.IndexByte(src, 0x1b) >= 0 {
				debug[n] = true
			}
			return Oracle.Escape(dst, src, o)
		}
		line := 0
		w := &lineWriter{w: os.Stdout, edit: func(l []byte) []byte {
			line++ // the hello, then the answer to request line-1
			if debug[line-1] {
				return []byte("DEBUG: escape sequence\n")
			}
			return l
		}}
		if err := protocol.Serve(in, w, h); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	case "space-after": // writes a space at the end of every answer (not of its hello)
		line := 0
		w := &lineWriter{w: os.Stdout, edit: func(l []byte) []byte {
			if line++; line == 1 {
				return l
			}
			return append(bytes.TrimSuffix(l, []byte("\n")), " \n"...)
		}}
		if err := protocol.Serve(in, w, h); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	case "hang-after-50", "exit-after-40", "extra-after-10", "hello-twice", "slow-e0", "flaky-process", "debug-7e", "twice-7e", "extra-7e", "twice-a", "debug-all", "twice-all", "twice-first", "twice-first-ff", "banner-first", "debug-abcd", "debug-short", "alternate-a", "twice-90", "twice-90-slow-a0", "twice-90-a0", "thrice-90", "other-90", "answer-a-all":
		if err := protocol.Serve(in, hostile(name, &h), h); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	case "garbage-once": // prints one garbage line before its 100th answer, once in all its lives
		marker := os.Getenv("DIFFFUZZ_FAKE_STATE") + "/garbage-done"
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if err := os.WriteFile(marker, nil, 0o644); err != nil {
			os.Exit(1)
		}
		n := 0
		w := &garbageWriter{w: os.Stdout, at: 100, n: &n}
		if err := protocol.Serve(in, w, h); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	if err := protocol.Serve(in, out, h); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// garbageWriter writes a garbage line before the at-th line it passes on.
type garbageWriter struct {
	w  *os.File
	at int
	n  *int
}

func (g *garbageWriter) Write(p []byte) (int, error) {
	var out []byte
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		*g.n++
		if *g.n == g.at {
			out = append(out, "this is not a response\n"...)
		}
		out = append(out, line...)
	}
	if _, err := g.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// lineWriter writes each line it passes on as edit returns it.
type lineWriter struct {
	w    *os.File
	edit func(line []byte) []byte
}

func (l *lineWriter) Write(p []byte) (int, error) {
	var out []byte
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		if len(line) > 0 {
			out = append(out, l.edit(line)...)
		}
	}
	if _, err := l.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

func fakeTarget(t *testing.T, name string) *Target {
	t.Helper()
	t.Setenv("DIFFFUZZ_FAKE_TARGET", name)
	t.Setenv("DIFFFUZZ_FAKE_STATE", t.TempDir())
	cmd := fmt.Sprintf("%q -test.run=^TestHelperTarget$", os.Args[0])
	tg, err := StartTarget(context.Background(), cmd, TargetConfig{Timeout: time.Second, Window: 256})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tg.Close() })
	return tg
}

// campaign is a small external-target campaign: the default exhaustive part plus a few
// long strings, so every broken target has something to trip on.
func campaign() []TargetSpace {
	spaces := DefaultTargetSpaces(AllOps)
	var long []Case
	for _, n := range []int{99, 100, 101, 150} {
		long = append(long, Case{Op: OpEscape, Input: bytes.Repeat([]byte("a<"), n)[:n], Flags: jsonopt.HexTag})
	}
	long = append(long, Case{Op: OpDecode, Input: []byte("x\xe0\x80\x41y")})
	spaces = append(spaces, TargetSpace{Space: "long", Op: OpEscape, Total: 4, Seq: seqOf(long[:4])},
		TargetSpace{Space: "long", Op: OpDecode, Total: 1, Seq: seqOf(long[4:])})
	return spaces
}

func seqOf(cs []Case) func(func(Case) bool) {
	return func(yield func(Case) bool) {
		for _, c := range cs {
			if !yield(c) {
				return
			}
		}
	}
}

func countCases(pred func(Case) bool) int {
	n := 0
	for _, sp := range campaign() {
		for c := range sp.Seq {
			if pred(c) {
				n++
			}
		}
	}
	return n
}

func TestBrokenTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("starts several target processes")
	}
	total := uint64(0)
	for _, sp := range campaign() {
		total += sp.Total
	}
	for _, tc := range []struct {
		name    string
		kind    Kind
		witness func(f *Finding) bool // every finding must satisfy it
		want    int                   // number of findings
	}{
		// Every case whose oracle output holds \u003C (HEX_TAG on a string with < that
		// does not fail).
		{"lowercase-hex-tag", KindOutput, func(f *Finding) bool {
			return f.Op == OpEscape && bytes.Contains(f.Input, []byte("<")) && f.Flags&jsonopt.HexTag != 0
		}, countCases(func(c Case) bool {
			out, _ := Oracle.Escape(nil, c.Input, c.Flags)
			return c.Op == OpEscape && bytes.Contains(out, []byte(`\u003C`))
		})},
		{"advance-3-after-e08041", KindStep, func(f *Finding) bool {
			return f.Op == OpDecode && bytes.Equal(f.Input, []byte("x\xe0\x80\x41y")) && f.Pos == 1 && f.GotStep.Advance == 3
		}, 1},
		{"crash-on-ff", KindTargetCrash, func(f *Finding) bool {
			return f.Op == OpEscape && bytes.Equal(f.Input, []byte{0xff}) && f.Flags == 0 && strings.Contains(f.Detail, "crashing on FF")
		}, 1},
		// The witness is 101 clean bytes: it holds every longer input, so the 150-byte one is not sent.
		{"hang-over-100", KindTargetHang, func(f *Finding) bool { return len(f.Input) > 100 }, 1},
		{"garbage-once", KindTargetProtocol, func(f *Finding) bool {
			return strings.Contains(f.Detail, "this is not a response")
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := fakeTarget(t, tc.name)
			tg.cfg.MaxRestarts = 2000
			rep, err := RunTarget(context.Background(), tg, campaign(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range rep.Findings {
				if f.Kind != tc.kind || !tc.witness(f) {
					t.Errorf("unexpected finding:\n%v", f)
				}
				if !strings.Contains(f.Replay(), "| ") {
					t.Errorf("replay %q does not pipe into the target", f.Replay())
				}
			}
			// Every difference is counted; the report keeps the first MaxFindings (20) of each
			// space and operation (a Sink gets them all).
			if rep.Differences != uint64(tc.want) || len(rep.Findings) > tc.want || len(rep.Findings) == 0 && tc.want > 0 {
				t.Errorf("%d findings kept (%d differences), want %d differences", len(rep.Findings), rep.Differences, tc.want)
			}
			var cases, notRun uint64
			for _, s := range rep.Spaces {
				if !s.Complete {
					t.Errorf("%s %s incomplete: %d of its cases", s.Space, s.Op, s.Cases)
				}
				cases += s.Cases
				notRun += s.NotRun
			}
			// The rest of the campaign still ran: every case was answered or reported, or not
			// sent because it contains a crash or hang witness (decode is not sent to targets
			// without it; all fakes have it).
			if cases+notRun != total {
				t.Errorf("%d cases checked and %d not run, want %d in all", cases, notRun, total)
			}
			// A crash or hang restarts the target; a wrong answer does not. On a busy machine a
			// slow answer is confirmed alone in a new process (Target.Slow: not a hang), so a
			// restart is the machine's, not the target's, only when a slow answer explains it.
			switch crashy := tc.kind != KindOutput && tc.kind != KindStep; {
			case crashy && tg.Restarts() == 0:
				t.Errorf("no restart")
			case !crashy && tg.Restarts() > 0 && tg.Slow() == 0:
				t.Errorf("%d restarts, and no slow answer explains them", tg.Restarts())
			case !crashy && tg.Restarts() > 0:
				t.Logf("%d restarts for %d slow answers (a busy machine)", tg.Restarts(), tg.Slow())
			}
			if len(rep.Findings) > 0 {
				t.Logf("%d findings, %d restarts; first:\n%v", len(rep.Findings), tg.Restarts(), rep.Findings[0])
			}
		})
	}
}

// TestTargetFailuresNotLost: targets that fail only in the ways a real one does (a slow start, a
// rare slow answer, a crash on the empty input or on long input) lose no other finding and no
// input: the slow ones are not hangs, an empty witness stops only the empty input, a witness of
// clean bytes stops the inputs at least as long.
func TestTargetFailuresNotLost(t *testing.T) {
	if testing.Short() {
		t.Skip("starts target processes")
	}
	long := func(n int) Case { return Case{Op: OpEscape, Input: bytes.Repeat([]byte("x"), n)} }
	t.Run("slow-first-crash-4142", func(t *testing.T) {
		tg := fakeTarget(t, "slow-first-crash-4142")
		tg.cfg.CalibrateAfter = 100
		spaces := ExhaustiveTargetSpaces([]Op{OpUTF8Decode}, 2, nil)
		rep, err := RunTarget(context.Background(), tg, spaces, nil)
		require.NoError(t, err)
		require.Len(t, rep.Findings, 1, "one crash, on AB, and no hang")
		assert.Equal(t, KindTargetCrash, rep.Findings[0].Kind)
		assert.Equal(t, "AB", string(rep.Findings[0].Input))
		d, _, _, calibrated := tg.Timeout()
		assert.True(t, calibrated)
		assert.Less(t, d, time.Second)
	})
	t.Run("spikes", func(t *testing.T) {
		tg := fakeTarget(t, "spikes")
		tg.cfg.CalibrateAfter = 100
		rep, err := RunTarget(context.Background(), tg, ExhaustiveTargetSpaces([]Op{OpEscape}, 1, AllCombos()[:16]), nil)
		require.NoError(t, err)
		assert.Zero(t, rep.Differences, "a slow answer is not a hang: %v", rep.Findings)
		assert.NotZero(t, tg.Slow(), "the slow answers were confirmed with the whole timeout")
		now, configured := tg.Floor()
		assert.Greater(t, now, configured, "each slow answer raised the calibrated timeout's floor")
		assert.Empty(t, tg.Witnesses())
	})
	t.Run("crash-empty", func(t *testing.T) {
		tg := fakeTarget(t, "crash-empty")
		cases := []Case{{Op: OpEscape}, {Op: OpEscape, Input: []byte("a")}, {Op: OpEscape}, long(3)}
		spaces := []TargetSpace{{Space: "t", Op: OpEscape, Total: 4, Seq: seqOf(cases)}}
		rep, err := RunTarget(context.Background(), tg, spaces, nil)
		require.NoError(t, err)
		require.EqualValues(t, 1, rep.Differences, "%v", rep.Findings)
		assert.Empty(t, rep.Findings[0].Input)
		assert.EqualValues(t, 3, rep.Spaces[0].Cases, "the first empty input (the crash) and the non-empty inputs were sent")
		assert.EqualValues(t, 1, rep.Spaces[0].NotRun, "the second empty input was not")
	})
	t.Run("hang-empty", func(t *testing.T) {
		// The first request hangs, and again alone in a new process: two processes have not
		// answered anything, as with a target that does not flush. A probe ("a") in a third
		// is answered, so the hang is reported as usual, and the campaign goes on.
		tg := fakeTarget(t, "hang-empty")
		tg.cfg.Timeout, tg.timeout = 300*time.Millisecond, 300*time.Millisecond
		cases := []Case{{Op: OpEscape}, {Op: OpEscape, Input: []byte("a")}, {Op: OpEscape}, long(3)}
		spaces := []TargetSpace{{Space: "t", Op: OpEscape, Total: 4, Seq: seqOf(cases)}}
		rep, err := RunTarget(context.Background(), tg, spaces, nil)
		require.NoError(t, err)
		require.EqualValues(t, 1, rep.Differences, "%v", rep.Findings)
		assert.Equal(t, KindTargetHang, rep.Findings[0].Kind)
		assert.Empty(t, rep.Findings[0].Input)
		assert.EqualValues(t, 3, rep.Spaces[0].Cases)
		assert.EqualValues(t, 1, rep.Spaces[0].NotRun)
	})
	// A target that fails on one byte under every option set (a debug line, a crash on any
	// 4-byte lead at the end, which minimization turns into one on F1) costs a restart per
	// witness, not one per option set: 300 option sets would use up MaxRestarts (100) thrice.
	combos := AllCombos()[:300]
	t.Run("debug-on-esc", func(t *testing.T) {
		tg := fakeTarget(t, "debug-on-esc")
		rep, err := RunTarget(context.Background(), tg, ExhaustiveTargetSpaces([]Op{OpEscape}, 1, combos), nil)
		require.NoError(t, err)
		require.EqualValues(t, 1, rep.Differences, "%v", rep.Findings)
		f := rep.Findings[0]
		assert.Equal(t, KindTargetProtocol, f.Kind)
		assert.Equal(t, "\x1b", string(f.Input))
		assert.True(t, f.Minimized)
		assert.Contains(t, f.Detail, "DEBUG: escape sequence")
		assert.Len(t, tg.Witnesses(), 1)
		assert.EqualValues(t, len(combos)-1, rep.Spaces[0].NotRun, "ESC under the other option sets holds the witness")
		assert.EqualValues(t, 256*len(combos)-len(combos)+1, rep.Spaces[0].Cases)
		assert.LessOrEqual(t, tg.restarts, 1, "one restart for the campaign")
	})
	t.Run("crash-lead4-end", func(t *testing.T) {
		tg := fakeTarget(t, "crash-lead4-end")
		rep, err := RunTarget(context.Background(), tg, ExhaustiveTargetSpaces([]Op{OpEscape}, 2, combos[:8]), nil)
		require.NoError(t, err)
		require.NotEmpty(t, rep.Findings)
		require.Len(t, tg.Witnesses(), 1, "one witness, whatever lead each crash was found with")
		w := tg.Witnesses()[0]
		assert.Equal(t, KindTargetCrash, w.Finding.Kind)
		for _, f := range rep.Findings {
			assert.Equal(t, KindTargetCrash, f.Kind)
			assert.Equal(t, w.Finding.Input, f.Input, "every crash minimized to the witness")
		}
		assert.LessOrEqual(t, rep.Differences, uint64(5), "at most one crash for each of F0-F4")
		// Each crash was found with another lead (the representative, F1, is not sent once it
		// is the witness); each is kept with the witness unless it is F1.
		assert.GreaterOrEqual(t, len(w.also), int(rep.Differences)-1)
		assert.LessOrEqual(t, len(w.also), int(rep.Differences))
		assert.LessOrEqual(t, tg.restarts, 2*int(rep.Differences), "a restart or two for each crash")
		// Every case that contains one of F0-F4 was a crash or not sent; the rest were answered.
		holders := 0
		for _, sp := range ExhaustiveTargetSpaces([]Op{OpEscape}, 2, combos[:8]) {
			for c := range sp.Seq {
				for _, x := range c.Input {
					if x >= 0xf0 && x <= 0xf4 {
						holders++
						break
					}
				}
			}
		}
		assert.EqualValues(t, uint64(holders)-rep.Differences, rep.Spaces[0].NotRun+rep.Spaces[1].NotRun)
	})
	t.Run("crash-long", func(t *testing.T) {
		tg := fakeTarget(t, "crash-long")
		cases := []Case{long(300), long(100), long(200), long(121), {Op: OpEscape, Input: []byte("a")}}
		spaces := []TargetSpace{{Space: "t", Op: OpEscape, Total: uint64(len(cases)), Seq: seqOf(cases)}}
		rep, err := RunTarget(context.Background(), tg, spaces, nil)
		require.NoError(t, err)
		require.EqualValues(t, 1, rep.Differences)
		assert.Equal(t, bytes.Repeat([]byte("a"), 121), rep.Findings[0].Input, "minimized to 121 clean bytes")
		assert.True(t, rep.Findings[0].Minimized)
		assert.EqualValues(t, 2, rep.Spaces[0].NotRun, "200 and 121 bytes hold the witness")
		assert.EqualValues(t, 3, rep.Spaces[0].Cases)
		assert.Less(t, tg.Restarts(), 20, "restarts to minimize a crash on long input")
	})
}

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"php adapters/php/difffuzz-target.php", []string{"php", "adapters/php/difffuzz-target.php"}},
		{`sapi/cli/php -d 'memory_limit=-1' "a b.php"`, []string{"sapi/cli/php", "-d", "memory_limit=-1", "a b.php"}},
		{`echo $HOME`, []string{"echo", "$HOME"}},
		// Inside double quotes a backslash stays unless it escapes $ ` " \ or a newline, as
		// in sh; outside quotes it escapes any byte; inside single quotes it is a byte.
		{`php -r "echo \"a\nb\\c\$d\";"`, []string{"php", "-r", `echo "a\nb\c$d";`}},
		{`x "a\b" a\b 'a\b'`, []string{"x", `a\b`, "ab", `a\b`}},
	} {
		got, err := SplitCommand(tc.in)
		if err != nil || strings.Join(got, "\x00") != strings.Join(tc.want, "\x00") {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for bad, says := range map[string]string{
		"": "empty command", "   ": "empty command",
		`php "unterminated`:                            `unterminated " quote`,
		`env 'X=1' 'Y=2 php a.php`:                     `unterminated ' quote`,
		`env DIFFFUZZ_PHP_UTF8_DECODE=f($s) php a.php`: `unquoted '(' at byte 30`,
	} {
		_, err := SplitCommand(bad)
		if err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("SplitCommand(%q) = %v, want an error saying %q", bad, err, says)
		}
	}
	if _, err := SplitCommand(`env 'DIFFFUZZ_PHP_UTF8_DECODE=f($s)' php a.php`); err != nil {
		t.Errorf("a quoted ( is no error: %v", err)
	}
}

// TestShellCommand: a replay line's command runs in a shell the words difffuzz ran (no $
// expanded, quotes kept), and plain commands stay as written.
func TestShellCommand(t *testing.T) {
	for in, want := range map[string]string{
		"bin/planted-target raw-slash,crash-fe": "bin/planted-target raw-slash,crash-fe",
		`env "X=f($s, 'a')" php a.php`:          `env 'X=f($s, '\''a'\'')' php a.php`,
		`php -r "echo \"a\nb\";"`:               `php -r 'echo "a\nb";'`,
	} {
		got := ShellCommand(in)
		assert.Equal(t, want, got)
		a, err1 := SplitCommand(in)
		b, err2 := SplitCommand(got)
		require.NoError(t, errors.Join(err1, err2))
		assert.Equal(t, a, b, "the same words")
	}
}

// TestWithinMask: the spaces of a target that announced options= hold only option sets inside
// the mask, each input's sets projected and without duplicates, and Total counts exactly what
// Seq yields (what progress shows is what is sent) — exhaustive, boundary (stratified inputs,
// families that rotate their sets and families that take all), random, and a shard of one.
func TestWithinMask(t *testing.T) {
	spaces := append(DefaultTargetSpaces(AllOps), BoundaryTargetSpaces(AllOps, nil, 50, 0, 1)...)
	spaces = append(spaces, RandomTargetSpace(OpEscape, 7, 3000, 0, nil))
	spaces = append(spaces, ShardTargetSpaces(DefaultTargetSpaces([]Op{OpEscape}), 1, 3)...)
	for _, mask := range []jsonopt.Options{0, jsonopt.HexTag | jsonopt.UnescapedSlashes, jsonopt.InvalidUTF8Substitute} {
		for _, full := range spaces {
			sp := full.Within(mask)
			var n uint64
			var last []byte
			seen := map[jsonopt.Options]bool{}
			dup := 0
			for c := range sp.Seq {
				n++
				require.Zero(t, c.Flags&^mask, "%s %s: options %v outside mask %v", sp.Space, sp.Op, c.Flags, mask)
				if !bytes.Equal(c.Input, last) {
					last, seen = append(last[:0], c.Input...), map[jsonopt.Options]bool{}
				} else if seen[c.Flags] && sp.Space != "random" {
					dup++
				}
				seen[c.Flags] = true
			}
			assert.Equal(t, sp.Total, n, "%s %s under mask %v: Total is what Seq yields", sp.Space, sp.Op, mask)
			assert.Zero(t, dup, "%s %s under mask %v: an input asked twice under the same options", sp.Space, sp.Op, mask)
			if sp.Op == OpEscape && sp.Space == "exhaustive" && mask == 0 {
				assert.Equal(t, sp.Strings, sp.Total, "one option set (0) per string")
			}
		}
	}
}

// TestHugeAnswerFinding: a finding keeps at most keepExtra bytes of a target's answer past the
// oracle's, and says how long the answer was, whether the client cut it (Response.Cut) or not.
func TestHugeAnswerFinding(t *testing.T) {
	var c Checker
	cs := Case{Op: OpEscape, Input: []byte("a")}
	big := bytes.Repeat([]byte("A"), 20000)
	for _, r := range []protocol.Response{
		{Op: protocol.OpEscape, Result: big},
		{Op: protocol.OpEscape, Result: big[:protocol.Keep(cs.request())], Cut: 20000},
	} {
		fs := c.compareResponse(nil, "t", cs, r)
		require.Len(t, fs, 1)
		assert.Len(t, fs[0].Got, len(`"a"`)+keepExtra)
		assert.Contains(t, fs[0].Detail, "the target's answer is 20000 bytes; its first 4099 are kept")
	}
	fs := c.compareResponse(nil, "t", cs, protocol.Response{Op: protocol.OpEscape, Result: []byte(`"b"`)})
	require.Len(t, fs, 1)
	assert.Empty(t, fs[0].Detail, "a short wrong answer is kept whole, without a note")
}

// TestMaskOptions: a target's announced options= projects the option sets onto its bits, and
// without NUMERIC_CHECK drops PRESERVE_ZERO_FRACTION too (it changes nothing then: every case
// would be asked twice).
func TestMaskOptions(t *testing.T) {
	all := AllCombos()
	assert.Len(t, MaskOptions(all, ^jsonopt.Options(0)), len(all))
	noNum := MaskOptions(all, jsonopt.StringPath&^jsonopt.NumericCheck)
	assert.Len(t, noNum, len(all)/2)
	for _, o := range noNum {
		assert.Zero(t, o&(jsonopt.NumericCheck|jsonopt.PreserveZeroFraction), "%v", o)
	}
	assert.Equal(t, []jsonopt.Options{0, jsonopt.HexTag}, MaskOptions([]jsonopt.Options{0, jsonopt.HexTag, jsonopt.HexTag | jsonopt.HexAmp}, jsonopt.HexTag|jsonopt.NumericCheck))
}

// TestTimeoutCalibration: Timeout reports the p99 and the answer count the last calibration
// used (every 1,024 answers after CalibrateAfter), not the ones seen since, which the report's
// timeout line and its p99_ns and answers fields say the timeout was calibrated from.
func TestTimeoutCalibration(t *testing.T) {
	tg := &Target{cfg: TargetConfig{Timeout: 10 * time.Second, MinTimeout: 100 * time.Millisecond, CalibrateAfter: 1000},
		timeout: 10 * time.Second, floor: 100 * time.Millisecond}
	answer := func(n int, wait time.Duration) {
		for range n {
			tg.observe(wait)
		}
	}
	answer(10, 10*time.Microsecond)
	d, _, answers, calibrated := tg.Timeout()
	assert.Equal(t, []any{10 * time.Second, uint64(10), false}, []any{d, answers, calibrated}, "before CalibrateAfter answers")
	answer(1090, 10*time.Microsecond) // calibrated at 1,000 and 1,024 answers: to the floor
	answer(500, 20*time.Millisecond)  // the p99 moves, no calibration until 2,048
	d, p99, answers, calibrated := tg.Timeout()
	assert.Equal(t, []any{100 * time.Millisecond, 16384 * time.Nanosecond, uint64(1024), true}, []any{d, p99, answers, calibrated})
	answer(500, 20*time.Millisecond) // calibrated at 2,048 answers: 50× the new p99
	d, p99, answers, _ = tg.Timeout()
	assert.Equal(t, []any{50 * (1 << 25) * time.Nanosecond, (1 << 25) * time.Nanosecond, uint64(2048)}, []any{d, p99, answers})
}
