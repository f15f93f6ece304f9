package report

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// TestReportLongWitness: a class whose witness could not be minimized (a candidate that cannot
// be run again) keeps a long input and long results; its block shows the bytes around the
// first difference instead of all of them, and says where to get a replay line too long to
// print. A decoder step that a target left out reads "(none)" with the target's detail. With
// several candidates, each defect names its own.
func TestReportLongWitness(t *testing.T) {
	in := bytes.Repeat([]byte("a"), 300)
	in[200] = '/'
	want, err := fuzz.Oracle.Escape(nil, in, 0)
	require.NoError(t, err)
	got := append([]byte(nil), want...)
	got = append(got[:202:202], want[203:]...) // the '\' before the '/' left out
	tr := New(Config{})
	defer tr.Close()
	tr.Add(&fuzz.Finding{Op: fuzz.OpEscape, Impl: "target x", External: true, Kind: fuzz.KindOutput, Input: in, Want: want, Got: got, Space: "random"})
	tr.Add(&fuzz.Finding{Op: fuzz.OpDecode, Impl: "target x", External: true, Kind: fuzz.KindStep, Input: []byte{0xc3, 0xa9}, Space: "random",
		WantStep: jsonopt.Step{CP: 0xe9, Advance: 2, OK: true}, Detail: "the target's answer ends after 0 steps"})
	tr.Add(&fuzz.Finding{Op: fuzz.OpUTF8Decode, Impl: "target y", External: true, Kind: fuzz.KindOutput, Input: []byte{0xc3, 0xa9}, Space: "random",
		Want: []byte{0xe9}, Got: []byte{0x3f}})
	classes := tr.Classes(context.Background(), nil)
	require.Len(t, classes, 3)
	var buf bytes.Buffer
	WriteText(&buf, classes)
	out := buf.String()
	for _, line := range strings.Split(out, "\n") {
		assert.LessOrEqual(t, len(line), 240, "line too long: %q", line)
	}
	assert.Regexp(t, `\n    oracle +U\+00E9/2\n`, out)
	assert.Regexp(t, `\n    target +\(none\)\n`, out)
	assert.Regexp(t, `\n    oracle +U\+00E9/2\n`, out)
	assert.Regexp(t, `\n    target +\(none\)\n`, out)
	for _, s := range []string{
		"300 bytes: … 61 61 61 61 61 61 61 61 2f 61 61", "(bytes 192..223 of 300)",
		`…'aaaaaaa\/aaaaaaaaaaaaaaaaaaaaaaa'…  616161616161615c2f61`, "(bytes 194..225 of 303)", "(bytes 194..225 of 302)",
		"(a 300-byte input: --out DIR saves the witness, --json has the replay line)",
		`· target "target y" · fails on a valid multi-byte sequence (§2.2 OK rows, §1.4) (rows C2..DF), where PHP decodes it`, "step-differs    target x  ", "the target's answer ends after 0 steps", `writes '\\' for the §1.3 rule 1.3-slash, where PHP writes '\/'`,
	} {
		assert.Contains(t, out, s)
	}
}

// TestDefectTitleRows: a §2.2 family's defect title names the rows its classes break, not
// every row of the family.
func TestDefectTitleRows(t *testing.T) {
	title := func(family string, rules ...string) string {
		d := &Defect{Cause: "2.2/" + family}
		for _, r := range rules {
			d.Classes = append(d.Classes, &Class{Signature: Signature{Rule: r}, Witness: &fuzz.Finding{}})
		}
		return d.Title()
	}
	assert.Equal(t, "§2.2: an overlong sequence (E0 80..9F xx) is one failure of all its bytes",
		title("overlong", "2.2-E0..EF/overlong", "2.2-E0..EF/overlong"))
	assert.Equal(t, "§2.2: an overlong sequence (E0 80..9F xx, F0 80..8F xx xx) is one failure of all its bytes",
		title("overlong", "2.2-F0..F4/overlong", "2.2-E0..EF/overlong"))
	assert.Equal(t, "§2.2 row F0..F4: a lead without all of its continuation bytes (truncated, or a bad continuation byte) is one failure, ending before the next lead",
		title("bad-sequence", "2.2-F0..F4/bad-sequence"))
	assert.Equal(t, "§2.2 rows C2..DF, F0..F4: a lead without all of its continuation bytes (truncated, or a bad continuation byte) is one failure, ending before the next lead",
		title("bad-sequence", "2.2-F0..F4/bad-sequence", "2.2-C2..DF/bad-sequence"))
	// A class rule naming no row of the family: the family's whole title.
	assert.Equal(t, familyText["overlong"], title("overlong", "2.2-E0..EF/overlong", "1.3-slash"))
	assert.Equal(t, familyText["surrogate"], title("surrogate", "2.2-E0..EF/surrogate"))
}

// A defect with no rule is titled by its witness's own words, numbers kept (issue 33 #18: the
// class rule writes them as #).
func TestTitleKeepsNumbers(t *testing.T) {
	tr := New(Config{})
	defer tr.Close()
	for _, in := range []string{"", "a"} {
		tr.Add(&fuzz.Finding{Op: fuzz.OpEscape, Impl: "t", Kind: fuzz.KindTargetProtocol, Input: []byte(in),
			Detail: "its answer is a line longer than 16777216 bytes (request #3: escape 0 61)"})
	}
	defects := Defects(tr.Classes(context.Background(), nil))
	require.Len(t, defects, 1)
	assert.Equal(t, "target-protocol: its answer is a line longer than 16777216 bytes", defects[0].Title())
}

// The two windows of a long comparison start at the same offset, so that the first difference
// is in the same column (issue 35: "bytes 3..34 of 35" against "bytes 2..33 of 34"), and a
// minimized witness is printed whole, however long.
func TestWindowsAligned(t *testing.T) {
	in := []byte(strings.Repeat("a", 32) + "/")
	want := []byte(`"` + strings.Repeat("a", 32) + `\/"`)
	got := []byte(`"` + strings.Repeat("a", 32) + `/"`)
	c := &Class{Signature: Signature{Op: fuzz.OpEscape, Kind: fuzz.KindOutput}, Minimized: true, Spaces: map[string]uint64{},
		Witness: &fuzz.Finding{Op: fuzz.OpEscape, Impl: "x", Kind: fuzz.KindOutput, Input: in, Want: want, Got: got, Minimized: true}}
	c.Attribution = fuzz.Attribute(c.Witness)
	var buf bytes.Buffer
	WriteBlock(&buf, c)
	out := buf.String()
	assert.Contains(t, out, "(bytes 25..35 of 36)", "oracle's window")
	assert.Contains(t, out, "(bytes 25..34 of 35)", "candidate's window, from the same offset")
	assert.Contains(t, out, "33 bytes: "+fuzz.SpacedHex(in)+"   options 0   minimal", "the minimal witness whole")
	// The PHP expressions of both windows read alike up to the first difference, in one column.
	assert.Contains(t, out, "\n    oracle   …'aaaaaaaa\\/\"'  ", out)
	assert.Contains(t, out, "\n    x        …'aaaaaaaa/\"'  ", out)
}

// detailKey takes numbers out of a target's detail (its counts, its offsets), not the digits of
// a word (utf8_decode, u00e9).
func TestDetailKeyNumbers(t *testing.T) {
	f := &fuzz.Finding{Kind: fuzz.KindTargetProtocol, Impl: "python3 x.py", Detail: "writes a line after its answer: 'x' (then utf8_decode of 'a', after 10 answers, 3.5 s, \\u00e9)"}
	assert.Equal(t, "writes a line after its answer: 'x' (then utf8_decode of 'a', after # answers, #.# s, \\u00e9)", detailKey(f))
}

// An example's answers past 40 bytes are shown from just before their first difference, so
// that the two differ on the page.
func TestAnswerShowsTheDifference(t *testing.T) {
	want := []byte(`"` + strings.Repeat("a", 60) + `\/b"`)
	got := []byte(`"` + strings.Repeat("a", 60) + `/b"`)
	f := &fuzz.Finding{Kind: fuzz.KindOutput, Op: fuzz.OpEscape, Want: want, Got: got}
	o, g := answer(f, true), answer(f, false)
	assert.NotEqual(t, o, g)
	assert.True(t, strings.HasPrefix(o, "…") && strings.Contains(o, `\/b"`), o)
	assert.True(t, strings.HasPrefix(g, "…") && strings.Contains(g, `a/b"`), g)
	f.Want, f.Got = []byte(`"\/"`), []byte(`"/"`)
	assert.Equal(t, `'"\/"'`, answer(f, true), "short answers whole")
	f.Want, f.Got = []byte(`"`+strings.Repeat("a", 32)+`\/"`), []byte(`"`+strings.Repeat("a", 32)+`/"`)
	assert.Equal(t, `'"`+strings.Repeat("a", 32)+`\/"'`, answer(f, true), "answers of 40 bytes or less whole")
}

// TestTitleRows: a title names the rows a deviation holds a real share of its findings in, not
// a row a few misread long answers put it in.
func TestTitleRows(t *testing.T) {
	s := &DevStat{Rows: map[string]uint64{"F0..F4": 13090, "C2..DF": 11, "E0..EF": 7}}
	assert.Equal(t, []string{"C2..DF", "E0..EF", "F0..F4"}, s.RowList())
	assert.Equal(t, []string{"F0..F4"}, s.TitleRows())
	s.Rows["C2..DF"] = 500
	assert.Equal(t, []string{"C2..DF", "F0..F4"}, s.TitleRows())
}

// TestTimeoutHow checks that the timeout line names the bound that set the timeout: a 100 ms
// floor is not "50× its p99 answer latency 32.768µs".
func TestTimeoutHow(t *testing.T) {
	ms := time.Millisecond
	p := func(k int) time.Duration { return time.Duration(1) << k } // p99s are powers of two ns
	for _, tc := range []struct {
		d, p99, floor time.Duration
		raised, want  string
	}{
		{100 * ms, p(15), 100 * ms, "",
			"100ms, its floor: 50× its p99 answer latency 32.768µs over 1,000 answers is 1.6384ms"},
		{200 * ms, p(15), 200 * ms, " (raised from 100ms after 1 slow answer)",
			"200ms, its floor (raised from 100ms after 1 slow answer): 50× its p99 answer latency 32.768µs over 1,000 answers is 1.6384ms"},
		{10 * time.Second, p(29), 100 * ms, "",
			"10s, --timeout: 50× its p99 answer latency 536.870912ms over 1,000 answers is 26.8435456s"},
		{50 * p(25), p(25), 100 * ms, "",
			"1.6777216s: 50× its p99 answer latency 33.554432ms over 1,000 answers (at least 100ms, at most --timeout)"},
		// A floor raised to 50× the p99 by chance: either bound is true; the latency is named.
		{50 * p(22), p(22), 50 * p(22), " (raised from 100ms after 2 slow answers)",
			"209.7152ms: 50× its p99 answer latency 4.194304ms over 1,000 answers (at least 209.7152ms (raised from 100ms after 2 slow answers), at most --timeout)"},
	} {
		assert.Equal(t, tc.want, timeoutHow(tc.d, tc.p99, 1000, tc.floor, tc.raised))
	}
}

// TestQuoteClipEscape: an answer clipped for the deviates line never ends in a lone backslash
// (the start of an escape it cut through), whatever the room.
func TestQuoteClipEscape(t *testing.T) {
	b := []byte(`"ab\\cd\u0022"`) // an escaped backslash, then a quote as \u0022
	for n, want := range map[int]string{7: `'"ab'…`, 8: `'"ab'…`, 9: `'"ab\\\\'…`, 12: `'"ab\\\\cd'…`, 14: `'"ab\\\\cd'…`, 17: `'"ab\\\\cd\u0022'…`} {
		assert.Equal(t, want, quoteClip(b, n), "room %d", n)
	}
}
