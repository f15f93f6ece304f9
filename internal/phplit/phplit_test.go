package phplit_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	phpadapter "github.com/difffuzz/difffuzz/adapters/php"
	"github.com/difffuzz/difffuzz/internal/phplit"
)

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `''`},
		{"a", `'a'`},
		{`"a\/b"`, `'"a\/b"'`},
		{`"\\"`, `'"\\\\"'`},
		{`\`, `'\\'`},
		{`\\`, `'\\\\'`},
		{`a\'`, `'a\\\''`},
		{`it's`, `'it\'s'`},
		{`\u00e9`, `'\u00e9'`},
		{"\xc3(", `"\xc3" . '('`},
		{"\xe2\x80\xa8", `"\xe2\x80\xa8"`},
		{"a\tb\r\n\x00\x7f", `'a' . "\t" . 'b' . "\r\n\x00\x7f"`},
		{`$x {$y}`, `'$x {$y}'`},
	} {
		if got := phplit.Quote([]byte(tc.in)); got != tc.want {
			t.Errorf("Quote(%q) = %s; want %s", tc.in, got, tc.want)
		}
	}
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
		n    int
	}{
		{"abcdef", -1, `'abcdef'`, 6},
		{"abcdef", 8, `'abcdef'`, 6},
		{"abcdef", 7, `'abcde'`, 5},
		{"abcdef", 2, `''`, 0},
		{"ab\\\xff", 6, `'ab\\'`, 3}, // the backslash ends the literal: doubled
		{"ab\xc3\xa9cd", 12, `'ab'`, 2},
		{"ab\xc3\xa9cd", 13, `'ab' . "\xc3"`, 3},
		{"ab\xc3\xa9cd", 22, `'ab' . "\xc3\xa9"`, 4},
		{"ab\xc3\xa9cd", 23, `'ab' . "\xc3\xa9" . 'c'`, 5},
		{strings.Repeat("a", 1<<16), 5, `'aaa'`, 3},
	} {
		got, n := phplit.Clip([]byte(tc.in), tc.max)
		if got != tc.want || n != tc.n {
			t.Errorf("Clip(%.20q, %d) = %s, %d; want %s, %d", tc.in, tc.max, got, n, tc.want, tc.n)
		}
	}
}

// Clip of a long run is not quadratic in it: a run of 4 MiB bytes that each take 4 bytes
// of its literal, clipped to 1 MiB, took hours; it takes milliseconds.
func TestClipLongRun(t *testing.T) {
	b := bytes.Repeat([]byte{0xff}, 4<<20)
	done := make(chan int, 1)
	go func() {
		_, n := phplit.Clip(b, 1<<20)
		done <- n
	}()
	select {
	case n := <-done:
		if want := (1<<20 - 2) / 4; n != want {
			t.Errorf("Clip of %d 0xff bytes to 1 MiB holds %d bytes; want %d", len(b), n, want)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Clip of a 4 MiB run to 1 MiB is still running after 20s")
	}
}

// Clip at every width is Quote of the longest start of its input whose expression fits.
func TestClipLongest(t *testing.T) {
	for _, b := range samples() {
		for max := -1; max <= 48; max++ {
			s, n := phplit.Clip(b, max)
			if s != phplit.Quote(b[:n]) || max >= 0 && n > 0 && len(s) > max {
				t.Fatalf("Clip(% x, %d) = %s, %d: not the Quote of its start that fits", b, max, s, n)
			}
			if n < len(b) && (max < 0 || len(phplit.Quote(b[:n+1])) <= max) {
				t.Fatalf("Clip(% x, %d) = %s, %d: %s fits too", b, max, s, n, phplit.Quote(b[:n+1]))
			}
		}
	}
}

// samples are the byte strings TestQuotePHP evaluates: every single byte, every string of
// up to 3 bytes over the bytes that matter to PHP's literals, quotes and backslashes at both
// ends of longer strings, and random strings biased towards those bytes.
func samples() [][]byte {
	var out [][]byte
	for c := range 256 {
		out = append(out, []byte{byte(c)})
	}
	alpha := []byte("\\'\"a$\x00\n\x80\xff ")
	for _, x := range alpha {
		for _, y := range alpha {
			out = append(out, []byte{x, y})
			for _, z := range alpha {
				out = append(out, []byte{x, y, z})
			}
		}
	}
	for _, end := range []string{`\`, `\\`, `'`, `\'`, `'\`, `"`, "\xff", "\\\xff"} {
		out = append(out, []byte(end+"abc"+end), []byte("abc"+end), []byte(end+"abc"))
	}
	r := rand.New(rand.NewPCG(35, 1))
	for range 2000 {
		b := make([]byte, r.IntN(48))
		for i := range b {
			if r.IntN(2) == 0 {
				b[i] = alpha[r.IntN(len(alpha))]
			} else {
				b[i] = byte(r.IntN(256))
			}
		}
		out = append(out, b)
	}
	return out
}

// TestQuotePHP evaluates every rendering of samples (whole, and clipped to every width up to 48)
// with the real PHP, php -r 'echo bin2hex(EXPR);', and checks that it gives the bytes. Without
// php it skips, except under CI=true or DIFFFUZZ_REQUIRE_PHP=1, as the PHP adapter's tests do.
func TestQuotePHP(t *testing.T) {
	argv, err := phpadapter.Command()
	if errors.Is(err, phpadapter.ErrNoPHP) {
		if os.Getenv("CI") == "true" || os.Getenv("DIFFFUZZ_REQUIRE_PHP") == "1" {
			t.Fatalf("PHP is required here (CI=true or DIFFFUZZ_REQUIRE_PHP=1) but missing: %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	var exprs []string
	var want [][]byte
	for _, b := range samples() {
		exprs, want = append(exprs, phplit.Quote(b)), append(want, b)
		for max := 0; max <= 48; max += 6 {
			s, n := phplit.Clip(b, max)
			if n > 0 && len(s) > max || n == 0 && s != "''" || !bytes.HasPrefix(b, b[:n]) {
				t.Fatalf("Clip(% x, %d) = %s (%d bytes, %d bytes of the input)", b, max, s, len(s), n)
			}
			exprs, want = append(exprs, s), append(want, b[:n])
		}
	}
	const batch = 1000 // php -r code stays well under the 128 KiB limit of one argument
	checked := 0
	for lo := 0; lo < len(exprs); lo += batch {
		hi := min(lo+batch, len(exprs))
		var code strings.Builder
		for _, e := range exprs[lo:hi] {
			fmt.Fprintf(&code, "echo bin2hex(%s), \"\\n\";\n", e)
		}
		out, err := exec.Command(argv[0], "-r", code.String()).Output()
		if err != nil {
			t.Fatalf("php -r: %v\n%s", err, out)
		}
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if len(lines) != hi-lo {
			t.Fatalf("php printed %d lines for %d expressions", len(lines), hi-lo)
		}
		for i, l := range lines {
			if l != hex.EncodeToString(want[lo+i]) {
				t.Errorf("PHP evaluates %s to %s; want %x", exprs[lo+i], l, want[lo+i])
			}
			checked++
		}
	}
	t.Logf("%d expressions evaluated by %s", checked, argv[0])
}
