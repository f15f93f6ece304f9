package fuzz

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/difffuzz/difffuzz/internal/numgen"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// Properties of every implementation, checked with gopter over the random space's byte
// classes (gen.go) with shrinking. Each runs 10,000 cases (1,000 with -short) from one seed:
// -seed=N replays a run, and a failure prints the seed and the command that replays it.
//
//	go test ./fuzz -run '^TestProperties$' -v            # new seed each run, printed
//	go test ./fuzz -run '^TestProperties$/roundtrip' -seed=12345

var propSeed = flag.Int64("seed", 0, "seed of the gopter properties (0: a new one each run, printed)")

// propMaxLen is the longest generated input of the properties.
const propMaxLen = 300

func propCases() int {
	if testing.Short() {
		return 1000
	}
	return 10000
}

// numericValue is the numeric-value property for one implementation: under NUMERIC_CHECK
// (added to o) the answer is valid JSON, a number's value is the trimmed input's (strconv's
// nearest double; "0" also stands for -0), and ".0" ends one only under PRESERVE_ZERO_FRACTION.
func numericValue(im Impl, in Text, o jsonopt.Options) string {
	o |= jsonopt.NumericCheck
	out, err := im.Escape(nil, in, o)
	switch {
	case err != nil || len(out) == 0:
		return "" // invalid UTF-8 in a near-miss: the string rules apply
	case !json.Valid(out):
		return fmt.Sprintf("%s: %q is not valid JSON", im.Name, out)
	case out[0] == '"':
		return ""
	}
	got, err1 := strconv.ParseFloat(string(out), 64)
	want, err2 := strconv.ParseFloat(strings.Trim(string(in), numgen.Spaces), 64)
	if err1 != nil || err2 != nil || got != want || math.Signbit(got) != math.Signbit(want) && string(out) != "0" {
		return fmt.Sprintf("%s: %q is %q (%v), want the value %v (%v)", im.Name, in, out, err1, want, err2)
	}
	if bytes.HasSuffix(out, []byte(".0")) && o&jsonopt.PreserveZeroFraction == 0 {
		return fmt.Sprintf("%s: %q is %q: .0 without PRESERVE_ZERO_FRACTION", im.Name, in, out)
	}
	return ""
}

// genNumeric generates the numeric and near-numeric strings of internal/numgen.
func genNumeric() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(Text(numgen.Append(nil, p.Rng.Intn)), shrinkText)
	}
}

// genText generates inputs from the byte classes; valid restricts it to valid UTF-8 (the
// sieve also keeps shrinking inside valid UTF-8).
func genText(valid bool) gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		t := Text(appendInput(p.Rng, nil, valid, propMaxLen, nil))
		r := gopter.NewGenResult(t, shrinkText)
		if valid {
			r.Sieve = func(v interface{}) bool { return utf8.Valid(v.(Text)) }
		}
		return r
	}
}

// shrinkText removes chunks of halving size (n/2, n/4, …, 1 byte) at every offset, then
// replaces single bytes by 'a'.
func shrinkText(v interface{}) gopter.Shrink {
	t := v.(Text)
	chunk, off, pos := len(t)/2, 0, 0
	return func() (interface{}, bool) {
		for chunk > 0 {
			if off+chunk > len(t) {
				chunk, off = chunk/2, 0
				continue
			}
			s := append(append(Text(nil), t[:off]...), t[off+chunk:]...)
			off += chunk
			return s, true
		}
		for ; pos < len(t); pos++ {
			if t[pos] != 'a' {
				s := append(Text(nil), t...)
				s[pos] = 'a'
				pos++
				return s, true
			}
		}
		return nil, false
	}
}

// genOptions generates option sets as the random space does; withNumeric keeps NUMERIC_CHECK,
// under which a numeric string is written as a number, not a string: the properties about
// strings leave it out. Shrinking clears one set bit at a time.
func genOptions(withNumeric bool) gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		o := drawOptions(p.Rng, nil)
		if !withNumeric {
			o &^= jsonopt.NumericCheck
		}
		return gopter.NewGenResult(o, shrinkOptions)
	}
}

func shrinkOptions(v interface{}) gopter.Shrink {
	o := v.(jsonopt.Options)
	k := 31
	return func() (interface{}, bool) {
		for ; k >= 0; k-- {
			if b := jsonopt.Options(1) << k; o&b != 0 {
				k--
				return o &^ b, true
			}
		}
		return nil, false
	}
}

// allImpls is the oracle and every candidate: the metamorphic properties hold for each.
func allImpls() []Impl { return append([]Impl{Oracle}, fuzzCands()...) }

// steps walks s with next from 0 and returns the number of steps, of failed steps, and of
// steps that decoded U+FFFD.
func steps(next func([]byte, int) jsonopt.Step, s []byte) (n, failed, fffd int) {
	for pos := 0; pos < len(s); {
		st := next(s, pos)
		n++
		if !st.OK {
			failed++
		} else if st.CP == 0xFFFD {
			fffd++
		}
		if st.Advance < 1 {
			return -1, -1, -1
		}
		pos += st.Advance
	}
	return n, failed, fffd
}

// boundaryAt reports whether the oracle's walk of s stops at position p.
func boundaryAt(s []byte, p int) bool {
	pos := 0
	for pos < p {
		pos += Oracle.NextChar(s, pos).Advance
	}
	return pos == p
}

// stripReplacements removes U+FFFD from an escaped JSON string: the escape \ufffd and raw
// EF BF BD; other escapes are copied whole, so a literal backslash followed by "ufffd" in
// the input (escaped as \\ufffd) stays.
func stripReplacements(out []byte) []byte {
	var b []byte
	for i := 0; i < len(out); {
		switch {
		case out[i] == '\\' && bytes.HasPrefix(out[i:], []byte(`\ufffd`)):
			i += 6
		case out[i] == '\\' && i+1 < len(out) && out[i+1] == 'u':
			b = append(b, out[i:min(i+6, len(out))]...)
			i += 6
		case out[i] == '\\':
			b = append(b, out[i:min(i+2, len(out))]...)
			i += 2
		case bytes.HasPrefix(out[i:], []byte("\xef\xbf\xbd")):
			i += 3
		default:
			b = append(b, out[i])
			i++
		}
	}
	return b
}

// noValidFFFD replaces every valid U+FFFD (EF BF BD decoded as one step) by U+FFFC, so that
// every U+FFFD in an output is a replacement. Only a trail byte changes: the steps stay.
func noValidFFFD(s []byte) []byte {
	s = append([]byte(nil), s...)
	for pos := 0; pos < len(s); {
		st := Oracle.NextChar(s, pos)
		if st.OK && st.CP == 0xFFFD {
			s[pos+2] = 0xBC
		}
		pos += st.Advance
	}
	return s
}

func TestProperties(t *testing.T) {
	seed := *propSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("gopter seed %d (replay: go test ./fuzz -run '^TestProperties$' -seed=%d)", seed, seed)
	cands, impls := fuzzCands(), allImpls()
	var concatChecked atomic.Int64

	run := func(t *testing.T, p gopter.Prop) {
		params := gopter.DefaultTestParametersWithSeed(seed)
		params.MinSuccessfulTests = propCases()
		params.MaxShrinkCount = 2000
		ps := gopter.NewProperties(params)
		ps.Property(t.Name(), p)
		var out bytes.Buffer
		if !ps.Run(gopter.NewFormatedReporter(true, 120, &out)) {
			t.Errorf("%s\nseed %d: replay with go test ./fuzz -run '^%s$' -seed=%d", out.String(), seed, strings.ReplaceAll(t.Name(), "/", "$/^"), seed)
		} else {
			t.Log(strings.TrimSpace(out.String()))
		}
	}

	t.Run("oracle", func(t *testing.T) {
		// Every candidate equals the oracle: escape under the generated options, the decoder
		// steps and utf8_decode.
		run(t, prop.ForAll(func(in Text, o jsonopt.Options) string {
			var c Checker
			fs := c.Escape(nil, cands, in, o)
			fs = c.Decode(fs, cands, in)
			fs = c.UTF8Decode(fs, cands, in)
			if len(fs) > 0 {
				return fs[0].String()
			}
			return ""
		}, genText(false), genOptions(true)))
	})

	t.Run("numeric-value", func(t *testing.T) {
		// Under NUMERIC_CHECK every answer is valid JSON; a number's value is the input's
		// (strconv's nearest double of the trimmed input, spec §1.7), and ".0" is there only
		// under PRESERVE_ZERO_FRACTION.
		run(t, prop.ForAll(func(in Text, o jsonopt.Options) string {
			for _, im := range impls {
				if msg := numericValue(im, in, o); msg != "" {
					return msg
				}
			}
			return ""
		}, genNumeric(), genOptions(true)))
	})

	t.Run("roundtrip", func(t *testing.T) {
		// For valid UTF-8, encoding/json (an independent decoder) gives back the input.
		run(t, prop.ForAll(func(in Text, o jsonopt.Options) string {
			for _, im := range impls {
				out, err := im.Escape(nil, in, o)
				if err != nil {
					return fmt.Sprintf("%s: error %v on valid UTF-8", im.Name, err)
				}
				var s string
				if err := json.Unmarshal(out, &s); err != nil {
					return fmt.Sprintf("%s: json.Unmarshal(%q): %v", im.Name, out, err)
				}
				if s != string(in) {
					return fmt.Sprintf("%s: json.Unmarshal(%q) = %q, want the input", im.Name, out, s)
				}
			}
			return ""
		}, genText(true), genOptions(false)))
	})

	t.Run("valid-json", func(t *testing.T) {
		// Whatever the input, an output (a string, or null under PARTIAL_OUTPUT_ON_ERROR) is
		// valid JSON; a failure without PARTIAL_OUTPUT_ON_ERROR appends nothing.
		run(t, prop.ForAll(func(in Text, o jsonopt.Options) string {
			for _, im := range impls {
				out, err := im.Escape(nil, in, o)
				switch {
				case err != nil && o&jsonopt.PartialOutputOnError == 0 && len(out) != 0:
					return fmt.Sprintf("%s: error %v with output %q", im.Name, err, out)
				case (err == nil || len(out) > 0) && !json.Valid(out):
					return fmt.Sprintf("%s: %q is not valid JSON", im.Name, out)
				}
			}
			return ""
		}, genText(false), genOptions(false)))
	})

	t.Run("substitute-count", func(t *testing.T) {
		// Under SUBSTITUTE, the U+FFFD in the output are the failed decoder steps (plus the
		// U+FFFD the input itself holds).
		run(t, prop.ForAll(func(in Text, o jsonopt.Options) string {
			o = o&^jsonopt.InvalidUTF8Ignore | jsonopt.InvalidUTF8Substitute
			for _, im := range impls {
				_, failed, fffd := steps(im.NextChar, in)
				out, err := im.Escape(nil, in, o)
				var s string
				if err == nil {
					err = json.Unmarshal(out, &s)
				}
				if err != nil {
					return fmt.Sprintf("%s: %q: %v", im.Name, out, err)
				}
				if n := strings.Count(s, "\ufffd"); n != failed+fffd {
					return fmt.Sprintf("%s: %d U+FFFD in %q, want %d failed steps + %d U+FFFD in the input", im.Name, n, out, failed, fffd)
				}
			}
			return ""
		}, genText(false), genOptions(false)))
	})

	t.Run("utf8-decode-length", func(t *testing.T) {
		// utf8_decode writes one byte per decoder step.
		run(t, prop.ForAll(func(in Text) string {
			for _, im := range impls {
				n, _, _ := steps(im.NextChar, in)
				if got := len(im.UTF8Decode(nil, in)); got != n {
					return fmt.Sprintf("%s: utf8_decode gave %d bytes for %d steps", im.Name, got, n)
				}
			}
			return ""
		}, genText(false)))
	})

	t.Run("ignore-is-substitute-stripped", func(t *testing.T) {
		// IGNORE's output is SUBSTITUTE's with the replacements removed.
		run(t, prop.ForAll(func(in Text, o jsonopt.Options) string {
			in = noValidFFFD(in)
			oi := o&^jsonopt.InvalidUTF8Substitute | jsonopt.InvalidUTF8Ignore
			os := o&^jsonopt.InvalidUTF8Ignore | jsonopt.InvalidUTF8Substitute
			for _, im := range impls {
				ign, err1 := im.Escape(nil, in, oi)
				sub, err2 := im.Escape(nil, in, os)
				if err1 != nil || err2 != nil {
					return fmt.Sprintf("%s: errors %v, %v", im.Name, err1, err2)
				}
				if s := stripReplacements(sub); !bytes.Equal(s, ign) {
					return fmt.Sprintf("%s: IGNORE %q, SUBSTITUTE %q stripped %q", im.Name, ign, sub, s)
				}
			}
			return ""
		}, genText(false), genOptions(false)))
	})

	t.Run("concatenation", func(t *testing.T) {
		// Escaping a+b is escaping a and b apart, inner quotes removed, when a ends on a step
		// boundary of a+b; if either part fails, the whole fails the same way.
		run(t, prop.ForAll(func(a, b Text, o jsonopt.Options) string {
			ab := append(append([]byte(nil), a...), b...)
			if !boundaryAt(ab, len(a)) {
				return ""
			}
			concatChecked.Add(1)
			for _, im := range impls {
				rab, eab := im.Escape(nil, ab, o)
				ra, ea := im.Escape(nil, a, o)
				rb, eb := im.Escape(nil, b, o)
				if ea != nil || eb != nil {
					want := ""
					if o&jsonopt.PartialOutputOnError != 0 {
						want = "null"
					}
					if jsonopt.ErrorCode(eab) != jsonopt.ErrorUTF8 || string(rab) != want {
						return fmt.Sprintf("%s: a or b fails (%v, %v) but a+b gives %q, %v", im.Name, ea, eb, rab, eab)
					}
					continue
				}
				if len(ra) < 2 || len(rb) < 2 {
					return fmt.Sprintf("%s: a gives %q, b gives %q", im.Name, ra, rb)
				}
				want := append(append([]byte(nil), ra[:len(ra)-1]...), rb[1:]...)
				if eab != nil || !bytes.Equal(rab, want) {
					return fmt.Sprintf("%s: a+b gives %q (%v), want %q", im.Name, rab, eab, want)
				}
			}
			return ""
		}, genText(false), genText(false), genOptions(false)))
		if n := concatChecked.Load(); n < int64(propCases())/2 {
			t.Errorf("only %d of %d cases had a on a step boundary", n, propCases())
		} else {
			t.Logf("%d of %d cases had a on a step boundary", n, propCases())
		}
	})
}

// The properties must be able to fail: a broken escaper (one that drops the last
// replacement) is caught and shrunk to a short input.
func TestPropertiesCatch(t *testing.T) {
	broken := Impl{Name: "drops-last-fffd", NextChar: Oracle.NextChar, UTF8Decode: Oracle.UTF8Decode,
		Escape: func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
			out, err := Oracle.Escape(dst, src, o)
			if i := bytes.LastIndex(out, []byte(`\ufffd`)); i >= 0 && o&jsonopt.InvalidUTF8Substitute != 0 && o&jsonopt.InvalidUTF8Ignore == 0 {
				out = append(out[:i], out[i+6:]...)
			}
			return out, err
		}}
	params := gopter.DefaultTestParametersWithSeed(1)
	params.MinSuccessfulTests = 1000
	ps := gopter.NewProperties(params)
	var last Text
	ps.Property("substitute-count", prop.ForAll(func(in Text, o jsonopt.Options) bool {
		o = o&^(jsonopt.InvalidUTF8Ignore|jsonopt.UnescapedUnicode) | jsonopt.InvalidUTF8Substitute
		_, failed, fffd := steps(broken.NextChar, in)
		out, _ := broken.Escape(nil, in, o)
		var s string
		_ = json.Unmarshal(out, &s)
		ok := strings.Count(s, "\ufffd") == failed+fffd
		if !ok {
			last = in
		}
		return ok
	}, genText(false), genOptions(false)))
	var out bytes.Buffer
	if ps.Run(gopter.NewFormatedReporter(false, 120, &out)) {
		t.Fatal("the property did not catch the broken escaper")
	}
	if len(last) > 1 {
		t.Errorf("shrunk to %d bytes (% x), want a single invalid byte", len(last), []byte(last))
	}
	if !strings.Contains(out.String(), "ARG_0") {
		t.Errorf("report has no shrunk argument:\n%s", out.String())
	}
	// A number written without its minus sign is caught by numeric-value.
	unsigned := Impl{Name: "drops-minus", NextChar: Oracle.NextChar, UTF8Decode: Oracle.UTF8Decode,
		Escape: func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
			out, err := Oracle.Escape(dst, src, o)
			if len(out) > len(dst) && out[len(dst)] == '-' {
				out = append(out[:len(dst)], out[len(dst)+1:]...)
			}
			return out, err
		}}
	ps = gopter.NewProperties(params)
	ps.Property("numeric-value", prop.ForAll(func(in Text, o jsonopt.Options) bool {
		return numericValue(unsigned, in, o) == ""
	}, genNumeric(), genOptions(true)))
	if ps.Run(gopter.NewFormatedReporter(false, 120, &out)) {
		t.Fatal("numeric-value did not catch a number without its minus sign")
	}
}
