package phpadapter_test

// The conformance test runs the real PHP through difffuzz-target.php (one PHP process, requests
// pipelined through protocol.Client) and compares every answer byte for byte with the oracle,
// errors included:
//
//   - json_encode of all 1-byte and 2-byte strings (65,792) under each of exhaustiveOptions;
//   - json_encode of the 256 1-byte strings under all 2,048 jsonopt.Combo option sets;
//   - utf8_decode of all 1-byte and 2-byte strings;
//   - all 3-byte strings over classAlphabet (35,937) under each of alphabetOptions and through
//     utf8_decode, and all 4-byte strings over it (1,185,921) under INVALID_UTF8_SUBSTITUTE
//     and through utf8_decode: every decoder branch with every kind of following byte;
//   - every fact of internal/spectest (PHP is also checked against the fact itself);
//   - randomCount random strings (seed logged; DIFFFUZZ_SEED overrides it) of 0–100 bytes
//     mixing every byte class, through json_encode under random option sets and utf8_decode.
//
// Under -short the sample is smaller: 1-byte strings under every option set, 2-byte strings
// whose first byte is one of shortFirstBytes (22 representatives of every byte class, times
// all 256 second bytes), 1-byte strings under every 16th option combination, the 3-byte
// alphabet strings under one option set, no 4-byte strings, and 2,000 random strings.
//
// Without php on PATH (or DIFFFUZZ_PHP) the tests skip, except under CI=true or
// DIFFFUZZ_REQUIRE_PHP=1, where a missing php fails them.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	phpadapter "github.com/difffuzz/difffuzz/adapters/php"
	"github.com/difffuzz/difffuzz/internal/spectest"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
	"github.com/difffuzz/difffuzz/protocol"
)

const (
	defaultSeed      = 20260101
	randomCount      = 20000
	shortRandomCount = 2000
	batchSize        = 16384
	maxReported      = 25 // mismatches reported in full; the rest are counted
)

// exhaustiveOptions are the option sets the 1- and 2-byte strings are encoded under.
var exhaustiveOptions = []jsonopt.Options{
	0,
	jsonopt.InvalidUTF8Substitute,
	jsonopt.InvalidUTF8Ignore | jsonopt.UnescapedUnicode,
	jsonopt.InvalidUTF8Substitute | jsonopt.UnescapedUnicode | jsonopt.UnescapedLineTerminators,
	jsonopt.PartialOutputOnError | jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot,
	jsonopt.UnescapedSlashes | jsonopt.InvalidUTF8Ignore,
	jsonopt.InvalidUTF8Ignore | jsonopt.InvalidUTF8Substitute | jsonopt.PartialOutputOnError,
	jsonopt.ThrowOnError | jsonopt.PrettyPrint | jsonopt.ForceObject | jsonopt.PreserveZeroFraction | jsonopt.UnescapedUnicode,
}

// shortFirstBytes represent every byte class as the first byte of a 2-byte string in -short.
var shortFirstBytes = []byte{
	0x00, 0x0a, 0x1f, 0x22, 0x26, 0x2f, 0x41, 0x5c, 0x7f, // ASCII: control, special, clean, DEL
	0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, // trails, C0/C1, 2-byte leads
	0xe0, 0xe2, 0xed, 0xf0, 0xf4, 0xf5, 0xff, // 3-/4-byte leads, F5..FF
}

// classAlphabet has a representative of every byte class the decoder and the escaper
// distinguish, with the range edges of the second byte after E0, ED, F0 and F4.
var classAlphabet = []byte{
	0x00, 0x22, 0x2f, 0x41, 0x5c, 0x7f, // ASCII
	0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, // trails at the E0/ED/F0/F4 range edges
	0xc0, 0xc1, 0xc2, 0xc3, 0xdf, // C0/C1, 2-byte leads
	0xe0, 0xe1, 0xe2, 0xec, 0xed, 0xee, 0xef, // 3-byte leads
	0xf0, 0xf1, 0xf3, 0xf4, // 4-byte leads
	0xf5, 0xf7, 0xf8, 0xfe, 0xff, // never valid
}

// alphabetOptions are the option sets the 3-byte alphabet strings are encoded under.
var alphabetOptions = []jsonopt.Options{
	jsonopt.InvalidUTF8Substitute,
	jsonopt.InvalidUTF8Ignore | jsonopt.UnescapedUnicode,
	jsonopt.PartialOutputOnError | jsonopt.UnescapedUnicode | jsonopt.UnescapedLineTerminators,
}

// requirePHP reports whether a missing php is a failure rather than a skip.
func requirePHP() bool {
	return os.Getenv("CI") == "true" || os.Getenv("DIFFFUZZ_REQUIRE_PHP") == "1"
}

// phpCommand returns the PHP target's command line, or skips (fails under CI) without php.
func phpCommand(t testing.TB) []string {
	t.Helper()
	argv, err := phpadapter.Command()
	if errors.Is(err, phpadapter.ErrNoPHP) {
		if requirePHP() {
			t.Fatalf("PHP is required here (CI=true or DIFFFUZZ_REQUIRE_PHP=1) but missing: %v", err)
		}
		t.Skipf("skipping the PHP conformance test: %v; set CI=true or DIFFFUZZ_REQUIRE_PHP=1 to make a missing php fail", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return argv
}

// startPHP starts the PHP target and checks its hello; the client is closed at cleanup and
// must exit 0.
func startPHP(t testing.TB, env ...string) *protocol.Client {
	t.Helper()
	argv := phpCommand(t)
	c, err := protocol.StartConfig(context.Background(), argv, protocol.Config{Env: env})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("closing the PHP target: %v", err)
		}
	})
	if got := fmt.Sprint(c.Ops()); got != "[escape utf8_decode]" {
		t.Fatalf("PHP target announced %s; want [escape utf8_decode]", got)
	}
	return c
}

// checker batches requests to PHP together with the oracle's expected responses.
type checker struct {
	t        *testing.T
	c        *protocol.Client
	reqs     []protocol.Request
	want     []protocol.Response
	escapes  int // compared json_encode inputs
	decodes  int // compared utf8_decode inputs
	failures int
}

// expectEscape is the oracle's answer in protocol form, or ok=false when the oracle refuses
// the options (JSON_NUMERIC_CHECK), which is then not compared.
func expectEscape(in []byte, opts jsonopt.Options) (protocol.Response, bool) {
	out, err := oracle.Escape(nil, in, opts)
	want := protocol.Response{Op: protocol.OpEscape}
	code := jsonopt.ErrorCode(err)
	switch {
	case err == nil:
		want.Result = out
	case code >= 0:
		want.Err = code
		if len(out) == 0 {
			want.False = true
		} else {
			want.Result = out
		}
	default:
		return want, false
	}
	return want, true
}

func (k *checker) escape(in []byte, opts jsonopt.Options) {
	want, ok := expectEscape(in, opts)
	if !ok {
		return
	}
	k.reqs = append(k.reqs, protocol.Request{Op: protocol.OpEscape, Flags: opts, Input: in})
	k.want = append(k.want, want)
	if len(k.reqs) >= batchSize {
		k.flush()
	}
}

func (k *checker) utf8Decode(in []byte) {
	k.reqs = append(k.reqs, protocol.Request{Op: protocol.OpUTF8Decode, Input: in})
	k.want = append(k.want, protocol.Response{Op: protocol.OpUTF8Decode, Result: oracle.UTF8Decode(nil, in)})
	if len(k.reqs) >= batchSize {
		k.flush()
	}
}

// flush sends the pending requests to PHP and compares the answers.
func (k *checker) flush() {
	k.t.Helper()
	if len(k.reqs) == 0 {
		return
	}
	got, err := k.c.Do(k.reqs)
	if err != nil {
		k.t.Fatalf("PHP target: %v", err)
	}
	for i, r := range k.reqs {
		if r.Op == protocol.OpEscape {
			k.escapes++
		} else {
			k.decodes++
		}
		if msg := mismatch(got[i], k.want[i]); msg != "" {
			k.failures++
			if k.failures <= maxReported {
				k.t.Errorf("%s: PHP and oracle disagree:\n\tinput:  %x (%q)\n\t%s", describe(r), r.Input, r.Input, msg)
			}
		}
	}
	k.reqs, k.want = k.reqs[:0], k.want[:0]
}

func (k *checker) finish(what string, start time.Time) {
	k.t.Helper()
	k.flush()
	if k.failures > maxReported {
		k.t.Errorf("%d more disagreements not shown", k.failures-maxReported)
	}
	d := time.Since(start)
	n := k.escapes + k.decodes
	k.t.Logf("%s: compared %d inputs with PHP (%d json_encode, %d utf8_decode) in %v, %.0f requests/s; %d disagreements",
		what, n, k.escapes, k.decodes, d.Round(time.Millisecond), float64(n)/d.Seconds(), k.failures)
}

func describe(r protocol.Request) string {
	if r.Op == protocol.OpEscape {
		return fmt.Sprintf("json_encode(hex %s, %s)", hexOrEmpty(r.Input), r.Flags)
	}
	return fmt.Sprintf("utf8_decode(hex %s)", hexOrEmpty(r.Input))
}

func hexOrEmpty(b []byte) string {
	if len(b) == 0 {
		return `""`
	}
	return fmt.Sprintf("%x", b)
}

// show renders a response for a report: the returned string quoted and in hex, or false, and
// the error code.
func show(r protocol.Response) string {
	switch {
	case r.ErrorMsg != "":
		return "error " + strconv.Quote(r.ErrorMsg)
	case r.Op == protocol.OpEscape && r.False:
		return fmt.Sprintf("false, json_last_error()=%d", r.Err)
	case r.Op == protocol.OpEscape:
		return fmt.Sprintf("%q (hex %s), json_last_error()=%d", r.Result, hexOrEmpty(r.Result), r.Err)
	}
	return fmt.Sprintf("%q (hex %s)", r.Result, hexOrEmpty(r.Result))
}

// mismatch compares PHP's answer with the expected one, errors before bytes, and describes
// the difference ("" when they agree).
func mismatch(php, want protocol.Response) string {
	same := php.ErrorMsg == "" && php.False == want.False && php.Err == want.Err && bytes.Equal(php.Result, want.Result)
	if same {
		return ""
	}
	return fmt.Sprintf("PHP:    %s\n\toracle: %s", show(php), show(want))
}

func newChecker(t *testing.T) *checker {
	return &checker{t: t, c: startPHP(t)}
}

// TestConformance compares PHP with the oracle on the exhaustive 1- and 2-byte spaces.
func TestConformance(t *testing.T) {
	k := newChecker(t)
	start := time.Now()
	firsts := make([]byte, 256)
	for i := range firsts {
		firsts[i] = byte(i)
	}
	if testing.Short() {
		firsts = shortFirstBytes
	}
	for _, opts := range exhaustiveOptions {
		for a := 0; a < 256; a++ {
			k.escape([]byte{byte(a)}, opts)
		}
		for _, a := range firsts {
			for b := 0; b < 256; b++ {
				k.escape([]byte{a, byte(b)}, opts)
			}
		}
	}
	step := 1
	if testing.Short() {
		step = 16
	}
	for i := 0; i < jsonopt.NumStringCombos; i += step {
		opts := jsonopt.Combo(i)
		for a := 0; a < 256; a++ {
			k.escape([]byte{byte(a)}, opts)
		}
	}
	for a := 0; a < 256; a++ {
		k.utf8Decode([]byte{byte(a)})
	}
	for _, a := range firsts {
		for b := 0; b < 256; b++ {
			k.utf8Decode([]byte{a, byte(b)})
		}
	}
	k.finish("exhaustive", start)
}

// TestConformanceAlphabet compares PHP with the oracle on all 3- and 4-byte strings over
// classAlphabet.
func TestConformanceAlphabet(t *testing.T) {
	k := newChecker(t)
	start := time.Now()
	opts3 := alphabetOptions
	if testing.Short() {
		opts3 = opts3[:1]
	}
	for _, a := range classAlphabet {
		for _, b := range classAlphabet {
			for _, c := range classAlphabet {
				for _, o := range opts3 {
					k.escape([]byte{a, b, c}, o)
				}
				k.utf8Decode([]byte{a, b, c})
				if testing.Short() {
					continue
				}
				for _, d := range classAlphabet {
					s := []byte{a, b, c, d}
					k.escape(s, jsonopt.InvalidUTF8Substitute)
					k.utf8Decode(s)
				}
			}
		}
	}
	k.finish("alphabet", start)
}

// TestConformanceFacts checks every spectest fact against PHP, and PHP against the oracle.
func TestConformanceFacts(t *testing.T) {
	k := newChecker(t)
	start := time.Now()
	var reqs []protocol.Request
	var want []protocol.Response
	var ids []string
	for _, f := range append(spectest.Escape[:len(spectest.Escape):len(spectest.Escape)], spectest.Numeric...) {
		reqs = append(reqs, protocol.Request{Op: protocol.OpEscape, Flags: f.Flags, Input: f.In})
		want = append(want, protocol.Response{Op: protocol.OpEscape, Result: f.Want, False: f.Want == nil, Err: f.Err})
		ids = append(ids, f.ID)
		k.escape(f.In, f.Flags)
	}
	for _, f := range spectest.UTF8Decode {
		reqs = append(reqs, protocol.Request{Op: protocol.OpUTF8Decode, Input: f.In})
		want = append(want, protocol.Response{Op: protocol.OpUTF8Decode, Result: f.Want})
		ids = append(ids, f.ID)
		k.utf8Decode(f.In)
	}
	got, err := k.c.Do(reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range reqs {
		if msg := mismatch(got[i], want[i]); msg != "" {
			t.Errorf("fact %s, %s: PHP does not match the spec's fact:\n\tinput:  %x\n\t%s",
				ids[i], describe(reqs[i]), reqs[i].Input, strings.Replace(msg, "oracle:", "fact:  ", 1))
		}
	}
	k.finish(fmt.Sprintf("spectest facts (%d)", len(reqs)), start)
}

// TestConformanceRandom compares PHP with the oracle on random strings of mixed byte classes
// under random option sets.
func TestConformanceRandom(t *testing.T) {
	seed := conformanceSeed(t)
	n := randomCount
	if testing.Short() {
		n = shortRandomCount
	}
	t.Logf("random strings: %d, seed %d (replay with DIFFFUZZ_SEED=%d)", n, seed, seed)
	r := rand.New(rand.NewPCG(seed, 0x6469666666757a7a))
	k := newChecker(t)
	start := time.Now()
	for i := 0; i < n; i++ {
		s := randomString(r)
		k.escape(s, randomOptions(r))
		k.utf8Decode(s)
	}
	k.finish("random", start)
	if k.failures > 0 {
		t.Logf("seed was %d", seed)
	}
}

// conformanceSeed is defaultSeed, or DIFFFUZZ_SEED when set.
func conformanceSeed(t *testing.T) uint64 {
	t.Helper()
	if s := os.Getenv("DIFFFUZZ_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("DIFFFUZZ_SEED=%q: %v", s, err)
		}
		return v
	}
	return defaultSeed
}

// randomOptions is a random subset of jsonopt.StringOptions, and one time in four some of the
// options without effect on a string too.
func randomOptions(r *rand.Rand) jsonopt.Options {
	o := jsonopt.Combo(r.IntN(jsonopt.NumStringCombos))
	if r.IntN(4) == 0 {
		for _, x := range []jsonopt.Options{jsonopt.PrettyPrint, jsonopt.ForceObject, jsonopt.PreserveZeroFraction, jsonopt.ThrowOnError} {
			if r.IntN(2) == 0 {
				o |= x
			}
		}
	}
	return o
}

// randomString is 0–100 bytes of units drawn from every byte class; cutting the last unit to
// the length makes truncated sequences too.
func randomString(r *rand.Rand) []byte {
	n := r.IntN(101)
	b := make([]byte, 0, n+8)
	for len(b) < n {
		b = appendUnit(r, b)
	}
	return b[:n]
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

func trail(r *rand.Rand) byte { return byte(0x80 + r.IntN(0x40)) }

// appendRune appends the UTF-8 of a valid code point cp.
func appendRune(b []byte, cp int) []byte { return utf8.AppendRune(b, rune(cp)) }

// appendUnit appends one unit of a random byte class.
func appendUnit(r *rand.Rand, b []byte) []byte {
	switch r.IntN(17) {
	case 0, 1, 2: // clean ASCII run, DEL included
		for i := r.IntN(8); i >= 0; i-- {
			c := byte(0x20 + r.IntN(0x60))
			if strings.IndexByte(`"&'/<>\`, c) >= 0 {
				c = 'a'
			}
			b = append(b, c)
		}
		return b
	case 3: // the dirty ASCII specials
		return append(b, pick(r, []byte(`"&'/<>\`)...))
	case 4: // controls
		return append(b, byte(r.IntN(0x20)))
	case 5: // valid 2-byte, edges included
		return appendRune(b, pick(r, 0x80, 0xff, 0x100, 0x7ff, 0x80+r.IntN(0x780)))
	case 6: // valid 3-byte, edges included
		cp := 0x800 + r.IntN(0xf800)
		if cp >= 0xd800 && cp <= 0xdfff {
			cp = 0xe000
		}
		return appendRune(b, pick(r, 0x800, 0xfff, 0x1000, 0xd7ff, 0xe000, 0xfeff, 0xfffd, 0xffff, 0x2027, 0x202a, cp))
	case 7: // valid 4-byte, edges included
		return appendRune(b, pick(r, 0x10000, 0x1f600, 0xfffff, 0x100000, 0x10ffff, 0x10000+r.IntN(0x100000)))
	case 8: // U+2028, U+2029
		return appendRune(b, pick(r, 0x2028, 0x2029))
	case 9: // stray continuations
		for i := r.IntN(3); i >= 0; i-- {
			b = append(b, trail(r))
		}
		return b
	case 10: // C0/C1, alone or with a trail
		b = append(b, byte(0xc0+r.IntN(2)))
		if r.IntN(2) == 0 {
			b = append(b, trail(r))
		}
		return b
	case 11: // F5..FF, sometimes with trails
		b = append(b, byte(0xf5+r.IntN(11)))
		for i := r.IntN(4); i > 0; i-- {
			b = append(b, trail(r))
		}
		return b
	case 12: // a valid multi-byte sequence cut short
		full := appendRune(nil, pick(r, 0x80+r.IntN(0x780), 0x800+r.IntN(0xd000), 0x10000+r.IntN(0x100000)))
		return append(b, full[:1+r.IntN(len(full)-1)]...)
	case 13: // overlongs
		switch r.IntN(3) {
		case 0:
			return append(b, byte(0xc0+r.IntN(2)), trail(r))
		case 1:
			return append(b, 0xe0, byte(0x80+r.IntN(0x20)), trail(r))
		}
		return append(b, 0xf0, byte(0x80+r.IntN(0x10)), trail(r), trail(r))
	case 14: // surrogates, alone or as a CESU-8 pair
		b = append(b, 0xed, byte(0xa0+r.IntN(0x20)), trail(r))
		if r.IntN(3) == 0 {
			b = append(b, 0xed, byte(0xb0+r.IntN(0x10)), trail(r))
		}
		return b
	case 15: // above U+10FFFF
		return append(b, 0xf4, byte(0x90+r.IntN(0x30)), trail(r), trail(r))
	default: // a lead followed by a bad trail: ASCII, another lead, or C0/C1/F5..FF
		full := appendRune(nil, pick(r, 0x80+r.IntN(0x780), 0x800+r.IntN(0xd000), 0x10000+r.IntN(0x100000)))
		cut := 1 + r.IntN(len(full)-1)
		bad := pick(r, byte(0x20+r.IntN(0x5f)), byte(0xc2+r.IntN(0x33)), byte(0xc0+r.IntN(2)), byte(0xf5+r.IntN(11)))
		b = append(b, full[:cut]...)
		b = append(b, bad)
		return append(b, full[cut+1:]...)
	}
}

// TestScriptProtocol drives the script over raw pipes: malformed requests get "error" lines
// and serving goes on, "decode" is refused, CRLF and a last line without newline are
// accepted, utf8_decode's deprecation stays off stdout, and the exit status at end of input
// is 0.
func TestScriptProtocol(t *testing.T) {
	argv := phpCommand(t)
	in := strings.Join([]string{
		"escape 2097152 e08041",
		"escape 0 80",
		"escape 512 80",
		"decode 41e08041c3a9",
		"utf8_decode 41c3a942",
		"utf8_decode -",
		"escape 0 -",
		"escape 4194304 80",
		"escape 4194816 80",
		"escape 0 C3A9",
		"escape 0 zz",
		"escape 0 4",
		"escape 0 ",
		"escape x 41",
		"escape -1 41",
		"escape 4294967296 41",
		"escape 0",
		"escape 0 41 41",
		"utf8_decode",
		"frob 41",
		"",
		" escape 0 41",
		"escape 0 41\r",
		"utf8_decode e282ac", // last line, no newline
	}, "\n")
	want := []string{
		"difffuzz-target 1 escape utf8_decode bench",
		"225c75666666644122 0",
		"false 5",
		"6e756c6c 5",
		"error operation decode is not supported by this target (it supports: escape utf8_decode): PHP userland cannot observe php_next_utf8_char() steps exactly",
		"41e942",
		"-",
		"2222 0",
		"false 5",
		"6e756c6c 5",
		"225c753030653922 0",
		"error escape: HEX: byte 'z' at offset 0 is not a hex digit",
		"error escape: HEX: odd number of hex digits (1)",
		"error escape: HEX: empty field (the empty string is written -)",
		`error escape: FLAGS "x" is not a decimal integer in [0, 4294967295]`,
		`error escape: FLAGS "-1" is not a decimal integer in [0, 4294967295]`,
		`error escape: FLAGS "4294967296" is not a decimal integer in [0, 4294967295]`,
		"error escape takes 2 field(s) (escape FLAGS HEX), got 1",
		"error escape takes 2 field(s) (escape FLAGS HEX), got 3",
		"error utf8_decode takes 1 field(s) (utf8_decode HEX), got 0",
		`error unknown operation "frob" (want escape, decode or utf8_decode)`,
		"error empty request line",
		"error request line starts with a space",
		"224122 0",
		"3f",
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v; stderr: %s", argv, err, stderr.String())
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("line %d: got %q; want %q", i, g, w)
		}
	}
	// Every error answer must also parse as one.
	for _, l := range got[1:] {
		if strings.HasPrefix(l, "error") {
			if r, err := protocol.ParseResponse(protocol.OpEscape, l); err != nil || r.ErrorMsg == "" {
				t.Errorf("%q does not parse as an error response: %v", l, err)
			}
		}
	}
	if stderr.Len() > 0 {
		t.Errorf("unexpected stderr: %s", stderr.String())
	}
}

// TestLongInput sends a 4 MiB string (8 MiB of hex on one line) through PHP.
func TestLongInput(t *testing.T) {
	c := startPHP(t)
	in := bytes.Repeat([]byte("h\xc3\xa9llo / \xe2\x80\xa8 \xf0\x9f\x98\x80 \x80 <&>"), 4<<20/32)
	opts := jsonopt.InvalidUTF8Substitute | jsonopt.HexTag
	want, _ := expectEscape(in, opts)
	got, err := c.Do([]protocol.Request{{Op: protocol.OpEscape, Flags: opts, Input: in}, {Op: protocol.OpUTF8Decode, Input: in}})
	if err != nil {
		t.Fatal(err)
	}
	if msg := mismatch(got[0], want); msg != "" {
		t.Errorf("4 MiB escape: PHP and oracle disagree (%d vs %d bytes)", len(got[0].Result), len(want.Result))
	}
	if !bytes.Equal(got[1].Result, oracle.UTF8Decode(nil, in)) {
		t.Errorf("4 MiB utf8_decode: PHP and oracle disagree")
	}
}

// BenchmarkPHPTarget measures the PHP target's pipelined request rate with batched output
// (the default) and with one write per answer (DIFFFUZZ_PHP_FLUSH=line).
func BenchmarkPHPTarget(b *testing.B) {
	for _, mode := range []string{"batch", "line"} {
		b.Run("flush="+mode, func(b *testing.B) {
			c := startPHP(b, "DIFFFUZZ_PHP_FLUSH="+mode)
			reqs := make([]protocol.Request, batchSize)
			for i := range reqs {
				reqs[i] = protocol.Request{Op: protocol.OpEscape, Flags: jsonopt.Combo(i % jsonopt.NumStringCombos), Input: []byte{byte(i), byte(i >> 8)}}
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
		})
	}
}
