package report

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/difffuzz/difffuzz/deviation"
	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/internal/planted"
	"github.com/difffuzz/difffuzz/internal/testlevel"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/reference"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// manyFaults are combinations of eight planted faults whose triggers overlap: a substitute byte
// with failure-length faults, raw non-ASCII with invalid UTF-8 written as \ufffd, a decoder that
// accepts surrogates with utf8_decode writing code points above U+00FF raw, a fault of the
// length (long-c080), a lost output, faults that change the same bytes in one answer.
var manyFaults = [][]planted.Fault{
	{planted.Sub1A, planted.SplitBadSequence, planted.DropIgnorable, planted.TrailAnd7F, planted.LostAtEnd, planted.RawSlash, planted.ControlRaw, planted.LowerHexTag},
	{planted.RawUnicode, planted.FFFDNotFalse, planted.Surrogate, planted.WideRaw, planted.Overlong, planted.LongC080, planted.DropQuote, planted.ControlRaw},
	{planted.Lenient, planted.Overlong, planted.Surrogate, planted.Sub1A, planted.WideRaw, planted.LowerHexTag, planted.RawSlash, planted.UpperUnicode},
	{planted.SplitBadSequence, planted.Overlong, planted.FFFDNotFalse, planted.UpperUnicode, planted.DropIgnorable, planted.TrailAnd7F, planted.LongC080, planted.RawSlash},
	{planted.Sub1A, planted.LostAtEnd, planted.DropQuote, planted.RawUnicode, planted.Surrogate, planted.SplitBadSequence, planted.LowerHexTag, planted.ControlRaw},
	// The input cut short (a last character lost in long strings, a fixed buffer) with faults
	// whose answers read as cut too: a dropped ignorable at the end, merged and swallowed
	// failures, a lost output, a missing closing quote.
	{planted.LastLost16, planted.DropIgnorable, planted.Sub1A, planted.SplitBadSequence, planted.RawSlash, planted.ControlRaw, planted.WideRaw, planted.LowerHexTag},
	{planted.Stop40, planted.TrailAnd7F, planted.LostAtEnd, planted.Overlong, planted.UpperUnicode, planted.FFFDNotFalse, planted.Lenient, planted.RawSlash},
}

// faultsShowing are the faults of the combination whose single-fault candidate shows the
// deviation key on f's case (its answer, read by package deviation, has that key, first or
// as another reading).
func faultsShowing(faults []planted.Fault, f *fuzz.Finding, key string) []planted.Fault {
	var out []planted.Fault
	for _, fault := range faults {
		g := replay(planted.New(fault), f)
		// The key, or an answer whose other reading it is (a cut read first as the
		// character it drops).
		if _, ok := deviationByKey(g, key); ok || slices.ContainsFunc(deviationsOf(g), func(d deviation.Deviation) bool { return slices.Contains(d.Alts, key) }) {
			out = append(out, fault)
		}
	}
	return out
}

// replay is f with its case answered again by p.
func replay(p *planted.Impl, f *fuzz.Finding) *fuzz.Finding {
	g := *f
	switch f.Op {
	case fuzz.OpEscape:
		got, err := p.Escape(nil, f.Input, f.Flags)
		g.Got, g.GotErr, g.Kind = got, int(jsonopt.ErrorCode(err)), fuzz.KindOutput
		if err != nil {
			g.Kind = fuzz.KindError
		}
	case fuzz.OpUTF8Decode:
		g.Got = p.UTF8Decode(nil, f.Input)
	case fuzz.OpDecode:
		g.GotStep = p.NextChar(f.Input, f.Pos)
	}
	return &g
}

// sameAnswer reports whether g and h answer their case alike.
func sameAnswer(g, h *fuzz.Finding) bool {
	return bytes.Equal(g.Got, h.Got) && g.GotErr == h.GotErr && g.GotStep == h.GotStep
}

// faultsReading are the faults of the combination whose single-fault candidate answers each
// escape finding of fs as PHP does under read of its options.
func faultsReading(faults []planted.Fault, fs []*fuzz.Finding, read func(jsonopt.Options) jsonopt.Options) []planted.Fault {
	var out []planted.Fault
	for _, fault := range faults {
		p, all := planted.New(fault), true
		for _, f := range fs {
			all = all && f.Op == fuzz.OpEscape && fuzz.AnsweredUnder(replay(p, f), read(f.Flags))
		}
		if all {
			out = append(out, fault)
		}
	}
	return out
}

// judgement is how a maintainer of a many-fault candidate reads its report: the defects whose
// witness, replayed against the single-fault versions, shows the defect's deviation in exactly
// one fault (named), the faults so named and how often, the defects that name none or several,
// and the printed examples that the named fault alone does not show the deviation in (off).
type judgement struct {
	named         map[planted.Fault][]int
	unnamed       []string
	examples, off int
	lines         int
	table         []string
}

func judge(t *testing.T, faults []planted.Fault) judgement {
	classes, _, _ := inProcess(t, plantedImpl(faults...))
	return judgeClasses(faults, classes)
}

// judgeClasses is judge on the classes of a campaign already run.
func judgeClasses(faults []planted.Fault, classes []*Class) judgement {
	var buf bytes.Buffer
	WriteText(&buf, classes)
	j := judgement{named: map[planted.Fault][]int{}, lines: strings.Count(buf.String(), "\n")}
	for _, d := range Defects(classes) {
		if d.mapped != nil || d.Cause == "options" {
			// A misreading of two option bits, or bits ignored: the faults that alone answer
			// every witness of it as PHP does under the options the defect says are read (the
			// combination's answer may show another fault too: a closing quote dropped).
			ws := d.witnesses
			if d.mapped == nil {
				for _, c := range d.Classes {
					ws = append(ws, c.Witness)
				}
			}
			read := func(o jsonopt.Options) jsonopt.Options { return o &^ d.Ignored }
			if d.mapped != nil {
				read = d.mapped.Apply
			}
			by := faultsReading(faults, ws, read)
			j.table = append(j.table, fmt.Sprintf("%v → defect %d (%s findings): %s   [%d witnesses]", by, d.N, Count(d.Findings), d.Title(), len(ws)))
			if len(by) != 1 {
				j.unnamed = append(j.unnamed, d.Title())
				continue
			}
			j.named[by[0]] = append(j.named[by[0]], d.N)
			continue
		}
		if d.Dev == nil {
			j.unnamed = append(j.unnamed, d.Title())
			continue
		}
		key := d.Dev.Dev.Key()
		by := faultsShowing(faults, d.Dev.Witness, key)
		j.table = append(j.table, fmt.Sprintf("%v → defect %d (%s findings): %s   [witness %s % x %v]", by, d.N, Count(d.Findings), d.Title(), d.Dev.Witness.Op, d.Dev.Witness.Input, d.Dev.Witness.Flags))
		if len(by) != 1 {
			j.unnamed = append(j.unnamed, d.Title())
			continue
		}
		j.named[by[0]] = append(j.named[by[0]], d.N)
		for _, e := range d.Dev.Examples(3) {
			j.examples++
			// Off: an example its fault alone does not answer so (one that another fault
			// answers the same way too, 9A written 1A by a constant SUB and by & 0x7F, is its).
			if got := faultsShowing(faults, e, key); !slices.Contains(got, by[0]) {
				j.off++
				j.table = append(j.table, fmt.Sprintf("  off in defect %d (%s): %s % x %v shows %s in %v", d.N, by[0], e.Op, e.Input, e.Flags, key, got))
			}
		}
	}
	sort.Strings(j.table)
	return j
}

// TestManyFaults runs the in-process campaign against combinations of eight planted faults and
// judges each report (judge) by issue 32's bar: each fault named by exactly one defect, no
// defect that names no single fault, at most 5% of the printed examples showing another fault
// set than their defect, under 300 lines. The short tier runs the first combination, the long
// tier all five.
func TestManyFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("campaigns of eight faults")
	}
	combos := manyFaults
	if !testlevel.Long() {
		combos = combos[:1]
	}
	for _, faults := range combos {
		t.Run(plantedImpl(faults...).Name, func(t *testing.T) {
			j := judge(t, faults)
			once := 0
			for _, f := range faults {
				assert.NotEmpty(t, j.named[f], "fault %s is named by no defect", f)
				if len(j.named[f]) == 1 {
					once++
				}
			}
			t.Logf("%d of %d faults named by exactly one defect; %d defects name no single fault; %d of %d examples off; %d lines\n%s",
				once, len(faults), len(j.unnamed), j.off, j.examples, j.lines, strings.Join(j.table, "\n"))
			assert.Equal(t, len(faults), once, "every fault named by exactly one defect")
			assert.Empty(t, j.unnamed, "defects that name no single fault")
			assert.LessOrEqual(t, j.off*20, j.examples, "%d of %d examples show another fault set than their defect", j.off, j.examples)
			assert.Less(t, j.lines, 300)
		})
	}
}

// TestSkipAmongFaults: a candidate that skips the input byte at offset 16 (a vector loop one
// byte off at its first chunk's edge), whatever sits there, is one defect named so — not one per
// rule the byte falls under, nor "position-dependent" blocks at the offsets its sequences take —
// with seven other faults whose answers overlap it (an upper-case \uXXXX of the character the
// skip makes, a raw slash or control byte next to the byte skipped): each of the eight faults is
// named by exactly one defect, by judge's bar.
func TestSkipAmongFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("a campaign of eight faults")
	}
	faults := []planted.Fault{planted.Skip16, planted.RawSlash, planted.UpperUnicode, planted.Overlong, planted.ControlRaw,
		planted.Sub1A, planted.LowerHexTag, planted.Surrogate}
	eachNamedOnce(t, faults)
}

// TestResumeFaultsAmongOthers: a failure under JSON_INVALID_UTF8_IGNORE that swallows the byte
// after it (inside a character its other bytes then fail and swallow in turn) and a high
// surrogate computed from the code point are one defect each, with six other faults whose
// answers overlap them: an upper-case \uXXXX of the same pair, a failure split where the
// swallow starts, raw controls and slashes beside the bytes swallowed. Before the cascade was
// read as one, the swallow alone made three defects ("drops valid code points" among them),
// and the surrogate's hex digit 'a' beside an input 'a' or a run of pairs past the
// resynchronisation bound two more.
func TestResumeFaultsAmongOthers(t *testing.T) {
	if testing.Short() {
		t.Skip("a campaign of eight faults")
	}
	eachNamedOnce(t, []planted.Fault{planted.IgnoreNext, planted.HighSurrogate, planted.UpperUnicode, planted.SplitBadSequence,
		planted.ControlRaw, planted.RawSlash, planted.LowerHexTag, planted.Sub1A})
}

// eachNamedOnce runs the in-process campaign against faults and checks judge's bar: each fault
// named by exactly one defect, none that names no single fault, at most 5% of the examples
// off, under 300 lines.
func eachNamedOnce(t *testing.T, faults []planted.Fault) {
	t.Helper()
	j := judge(t, faults)
	t.Logf("%s", strings.Join(j.table, "\n"))
	assert.Empty(t, j.unnamed, "defects that name no single fault")
	for _, f := range faults {
		assert.Len(t, j.named[f], 1, "fault %s", f)
	}
	assert.LessOrEqual(t, j.off*20, j.examples, "%d of %d examples show another fault set than their defect", j.off, j.examples)
	assert.Less(t, j.lines, 300)
}

// TestOptionMapsOneDefect: a candidate that swaps JSON_HEX_APOS and JSON_HEX_QUOT is one
// defect named so, not one per quote and direction (it was five: "as if HEX_APOS|HEX_QUOT
// were not set", "as if HEX_QUOT were set" twice more for runs of quotes, ...); one that
// tests HEX_QUOT's bit for ' is one defect named by that one-way map (it was two: "as if
// HEX_APOS were set", "as if HEX_APOS were not set"), not as a swap; and the swap among
// seven other faults, three of them escape faults whose answers share its findings, is named
// by exactly one defect, as each of the others is.
func TestOptionMapsOneDefect(t *testing.T) {
	if testing.Short() {
		t.Skip("campaigns of planted faults")
	}
	for _, tc := range []struct {
		fault planted.Fault
		want  fuzz.OptionMap
	}{
		{planted.SwapAposQuot, fuzz.OptionMap{A: jsonopt.HexApos, B: jsonopt.HexQuot, Swap: true}},
		{planted.AposReadsQuot, fuzz.OptionMap{A: jsonopt.HexQuot, B: jsonopt.HexApos}},
	} {
		t.Run(string(tc.fault), func(t *testing.T) {
			classes, _, total := inProcess(t, plantedImpl(tc.fault))
			defects := Defects(classes)
			require.Len(t, defects, 1, "one fault, one defect")
			d := defects[0]
			require.NotNil(t, d.mapped, "named by a map: %s", d.Title())
			assert.Equal(t, tc.want, *d.mapped)
			assert.Equal(t, total, d.Findings, "every finding in it")
			assert.Len(t, d.Classes, len(classes))
			var buf bytes.Buffer
			WriteText(&buf, classes)
			assert.Contains(t, buf.String(), "DEFECT 1 of 1 · "+tc.want.String())
			t.Logf("%s", buf.String())
		})
	}
	// Faults whose answers share bytes: two swaps whose "escapes a byte PHP writes raw" is
	// one deviation (the HEX_TAG/HEX_AMP swap was split in two defects, one of them holding
	// the other swap's '); a one-way map next to an option ignored (a false swap of HEX_QUOT
	// and UNESCAPED_UNICODE took the ignored option's findings, and the answers that show
	// both faults were two more defects).
	for _, tc := range []struct {
		faults []planted.Fault
		want   []string
	}{
		{[]planted.Fault{planted.SwapTagAmp, planted.SwapAposQuot}, []string{
			fuzz.OptionMap{A: jsonopt.HexTag, B: jsonopt.HexAmp, Swap: true}.String(),
			fuzz.OptionMap{A: jsonopt.HexApos, B: jsonopt.HexQuot, Swap: true}.String()}},
		{[]planted.Fault{planted.AposReadsQuot, planted.EscapedUnicode}, []string{
			fuzz.OptionMap{A: jsonopt.HexQuot, B: jsonopt.HexApos}.String(),
			"answers as if JSON_UNESCAPED_UNICODE were not set"}},
	} {
		t.Run(plantedImpl(tc.faults...).Name, func(t *testing.T) {
			classes, _, _ := inProcess(t, plantedImpl(tc.faults...))
			got := titles(Defects(classes))
			require.Len(t, got, len(tc.want), "%s", strings.Join(got, "\n"))
			for _, w := range tc.want {
				assert.True(t, slices.ContainsFunc(got, func(g string) bool { return strings.Contains(g, w) }), "%q in %q", w, got)
			}
		})
	}
	t.Run("among-faults", func(t *testing.T) {
		eachNamedOnce(t, []planted.Fault{planted.SwapAposQuot, planted.RawSlash, planted.Overlong, planted.UpperUnicode,
			planted.ControlRaw, planted.LowerHexTag, planted.Sub1A, planted.Surrogate})
	})
}

// TestIgnoredApartOneDefect: a candidate that ignores JSON_HEX_APOS and JSON_UNESCAPED_UNICODE
// is one defect titled by both bits, with every finding in it: the classes whose witness
// needs both bits ignored at once (' after an invalid sequence under
// HEX_APOS|UNESCAPED_UNICODE|INVALID_UTF8_SUBSTITUTE) were two more defects, and the title
// began with what one class does ("writes 5c 75 66 66 66 64 where PHP writes efbfbd").
func TestIgnoredApartOneDefect(t *testing.T) {
	if testing.Short() {
		t.Skip("a campaign of two faults")
	}
	classes, _, total := inProcess(t, plantedImpl(planted.RawApos, planted.EscapedUnicode))
	defects := Defects(classes)
	require.Len(t, defects, 1, "%v", titles(defects))
	d := defects[0]
	assert.Equal(t, "options", d.Cause)
	assert.Equal(t, jsonopt.HexApos|jsonopt.UnescapedUnicode, d.Ignored)
	assert.Equal(t, "answers as if JSON_HEX_APOS|JSON_UNESCAPED_UNICODE were not set", d.Title())
	assert.Equal(t, total, d.Findings)
	together := 0
	for _, c := range classes {
		if c.Ignored == 0 {
			together++
		}
	}
	t.Logf("%d classes, %d of them with a witness that needs both bits ignored", len(classes), together)
}

// TestIgnoredNotAModel: a candidate that ignores JSON_HEX_APOS and JSON_UNESCAPED_UNICODE,
// checked on the 1-byte strings only, answers every finding there as Go's encoding/json does
// (' raw, \ufffd for U+FFFD under UNESCAPED_UNICODE), and was named after it; every class of
// it is an answer as if options were not set, which names it instead.
func TestIgnoredNotAModel(t *testing.T) {
	ctx := context.Background()
	im := plantedImpl(planted.RawApos, planted.EscapedUnicode)
	tr := New(Config{})
	defer tr.Close()
	_, err := fuzz.Exhaustive(ctx, fuzz.ExhaustiveConfig{Config: fuzz.Config{Impls: []fuzz.Impl{im}, Sink: tr, Ops: []fuzz.Op{fuzz.OpEscape}}, MaxLen: 1})
	require.NoError(t, err)
	classes := tr.Classes(ctx, func(name string) (fuzz.Impl, fuzz.CheckOne, bool) {
		return im, fuzz.OneCheck(plainCheck), name == im.Name
	})
	ds := Defects(classes)
	require.Len(t, ds, 1, "%v", titles(ds))
	assert.Equal(t, "answers as if JSON_HEX_APOS|JSON_UNESCAPED_UNICODE were not set", ds[0].Title())
}

// titles are the defects' titles.
func titles(ds []*Defect) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Title())
	}
	return out
}

// TestCutAndQuoteTwoDefects: a candidate that loses the last character of long strings and the
// closing quote of every string is two defects, each named by what one fault does, not a
// dozen "position-dependent" blocks at the offsets the last character takes (its answer,
// with its quote, is PHP's for the input cut short: the cut and the quote are read apart, in
// strings of every length and where PHP returns false alike).
func TestCutAndQuoteTwoDefects(t *testing.T) {
	if testing.Short() {
		t.Skip("a campaign of two faults")
	}
	faults := []planted.Fault{planted.LastLost16, planted.DropQuote}
	j := judge(t, faults)
	t.Logf("%s", strings.Join(j.table, "\n"))
	assert.Empty(t, j.unnamed, "defects that name no single fault")
	for _, f := range faults {
		assert.Len(t, j.named[f], 1, "fault %s", f)
	}
}

// TestSingleFaultOneDefect: the report of each fault planted alone is one defect (issue 32's
// bound), for the faults whose deviations overlap in many combinations (TestPlantedFaults
// checks the others, with their rules). utf8_decode writes '?' for a failed step and for a
// code point above U+00FF alike, so a run of '?' reads several ways; each must come out as
// the fault's own deviation, not as a second defect. merge-substitute was five defects (one
// per family of the first failure merged) and swallow-4 four (its cascades under SUBSTITUTE
// and in utf8_decode read as "fails on a valid multi-byte sequence" and "splits one failed
// step into several").
func TestSingleFaultOneDefect(t *testing.T) {
	if testing.Short() {
		t.Skip("a campaign per fault")
	}
	for _, f := range []planted.Fault{planted.SplitBadSequence, planted.LongC080, planted.Sub1A, planted.WideRaw, planted.TrailAnd7F,
		planted.DropIgnorable, planted.LostAtEnd, planted.RawUnicode, planted.FFFDNotFalse, planted.LastLost16, planted.Stop40,
		planted.IgnoreNext, planted.HighSurrogate, planted.MergeSubstitute, planted.Swallow4} {
		t.Run(string(f), func(t *testing.T) {
			classes, _, _ := inProcess(t, plantedImpl(f))
			var titles []string
			for _, d := range Defects(classes) {
				titles = append(titles, d.Title())
			}
			assert.Len(t, titles, 1, "%s", strings.Join(titles, "\n"))
		})
	}
}

// A candidate that follows another known rule (package reference) is one defect named after
// that rule, not one per §2.2 family its answers differ in: utf8_decode as a converter that
// writes one '?' per maximal subpart (mb_convert_encoding, WHATWG, ICU).
func TestReferenceModelOneDefect(t *testing.T) {
	im := fuzz.Impl{Name: "maximal-subpart", Escape: fuzz.Oracle.Escape, NextChar: fuzz.Oracle.NextChar,
		UTF8Decode: func(dst, src []byte) []byte { return append(dst, reference.MaximalSubpartLatin1(src)...) }}
	classes, _, total := inProcess(t, im)
	require.NotZero(t, total)
	defects := Defects(classes)
	require.Len(t, defects, 1, "%d classes", len(classes))
	assert.Equal(t, "deviation as-model|maximal-subpart|failed", defects[0].Cause)
	assert.Contains(t, defects[0].Title(), "maximal-subpart practice")
	assert.Equal(t, total, defects[0].Findings, "every finding answers as the model does")
}

// TestKnownBehavioursNamed: a port that calls another language's JSON encoder, or never decodes
// UTF-8, is named after what it calls (package reference) in every defect its findings make —
// and a planted fault that only sometimes answers as one (a raw slash is JSON.stringify's
// answer for "/") is not.
func TestKnownBehavioursNamed(t *testing.T) {
	if testing.Short() {
		t.Skip("a campaign per model")
	}
	escapeAs := func(name string, enc func([]byte) []byte) fuzz.Impl {
		return fuzz.Impl{Name: name, NextChar: fuzz.Oracle.NextChar, UTF8Decode: fuzz.Oracle.UTF8Decode,
			Escape: func(dst, src []byte, _ jsonopt.Options) ([]byte, error) { return append(dst, enc(src)...), nil }}
	}
	latin1 := func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
		return fuzz.Oracle.Escape(dst, reference.Latin1ToUTF8(src), o)
	}
	for _, tc := range []struct {
		im   fuzz.Impl
		text string
	}{
		{escapeAs("js", reference.JSONStringify), "ECMAScript JSON.stringify"},
		{escapeAs("go", reference.GoJSON), "Go's encoding/json"},
		{fuzz.Impl{Name: "latin1", NextChar: fuzz.Oracle.NextChar, UTF8Decode: fuzz.Oracle.UTF8Decode, Escape: latin1}, "PHP for the bytes read as ISO-8859-1"},
		{fuzz.Impl{Name: "noop", NextChar: fuzz.Oracle.NextChar, Escape: fuzz.Oracle.Escape,
			UTF8Decode: func(dst, src []byte) []byte { return append(dst, src...) }}, "a no-op"},
	} {
		t.Run(tc.im.Name, func(t *testing.T) {
			classes, _, _ := inProcess(t, tc.im)
			defects := Defects(classes)
			require.Len(t, defects, 1, "one defect named after the model")
			assert.Equal(t, "answers as "+tc.text, defects[0].Title()[:len("answers as ")+len(tc.text)])
			var buf bytes.Buffer
			WriteText(&buf, classes)
			assert.Contains(t, buf.String(), "witness", "the defect block shows a witness")
		})
	}
	classes, _, _ := inProcess(t, plantedImpl(planted.RawSlash))
	for _, d := range Defects(classes) {
		assert.NotContains(t, d.Title(), "answered as", "a raw slash alone is not JSON.stringify")
	}
}

// TestCutShortOneDefect: answers cut one byte short (substr($r, 0, -1) in a PHP adapter) are
// one defect in escape and utf8_decode alike, though a cut utf8_decode answer also reads as
// its last step dropped or merged: the cut is the other reading of each such finding. Cut in
// utf8_decode alone, it is the last character lost: every such answer reads so too.
func TestCutShortOneDefect(t *testing.T) {
	if testing.Short() {
		t.Skip("a campaign")
	}
	cut := func(b []byte) []byte { return b[:max(0, len(b)-1)] }
	for _, both := range []bool{true, false} {
		im := fuzz.Impl{Name: fmt.Sprintf("cut-%v", both), NextChar: fuzz.Oracle.NextChar, Escape: fuzz.Oracle.Escape,
			UTF8Decode: func(dst, src []byte) []byte { return append(dst, cut(fuzz.Oracle.UTF8Decode(nil, src))...) }}
		if both {
			im.Escape = func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
				out, err := fuzz.Oracle.Escape(nil, src, o)
				return append(dst, cut(out)...), err
			}
		}
		classes, _, _ := inProcess(t, im)
		var titles []string
		for _, d := range Defects(classes) {
			titles = append(titles, d.Title())
		}
		require.Len(t, titles, 1, "%s", strings.Join(titles, "\n"))
		if both {
			assert.Contains(t, titles[0], "without its last byte")
		} else {
			// utf8_decode writes a byte a step: its answer a byte short is its last character lost.
			assert.Contains(t, titles[0], "loses the last character")
		}
	}
}

// TestTailOneDefect: a candidate that stops early is one defect that says where: a last
// character lost in strings of 16 bytes or more (not "position-dependent: offset 15 of 16",
// not one defect per kind of character lost), a fixed buffer of 40 bytes; so is one that
// skips the byte at offset 16, whatever it is (it was twenty defects named by the rules the
// byte falls under).
func TestTailOneDefect(t *testing.T) {
	if testing.Short() {
		t.Skip("a campaign per fault")
	}
	for _, tc := range []struct {
		fault planted.Fault
		title string
	}{
		{planted.LastLost16, "loses the last character of the input: answers as PHP does for the input without its last step, where PHP writes it (escape, utf8_decode); in strings of 16 bytes or more"},
		{planted.Skip16, "skips the input byte at offset 16"},
		{planted.Stop40, "stops reading after 40 bytes (at the last character boundary at or before it): answers as PHP does for that start of the input and loses the rest (escape, utf8_decode)"},
	} {
		t.Run(string(tc.fault), func(t *testing.T) {
			classes, _, total := inProcess(t, plantedImpl(tc.fault))
			defects := Defects(classes)
			require.Len(t, defects, 1)
			assert.True(t, strings.HasPrefix(defects[0].Title(), tc.title), defects[0].Title())
			assert.Equal(t, total, defects[0].Findings, "every finding in it")
		})
	}
}

// TestCutConfirmedDirectly: a cut is confirmed only by a witness that reads as a cut alone (or
// by many readings): a lenient decoder's E1 61 61 at the end, which is PHP's answer for E1 too
// and reads as a cut first, does not confirm it, and so does not pull the decoder's other
// answers that end early into a defect "stops reading after N bytes".
func TestCutConfirmedDirectly(t *testing.T) {
	acc := "accepted|bits|bad-sequence"
	in := map[string]bool{"c\x00" + tailKey + orMark + acc: true, "c\x00" + acc + orMark + tailKey: true}
	out := resolvedConfirmed(in)
	assert.False(t, out["c\x00"+tailKey], "the cut is not confirmed by its pairs")
	assert.True(t, out["c\x00"+acc], "the deviation its pairs are filed under is")
	in["c\x00"+tailKey], in["c\x00"+acc] = true, true // a cut of its own; the deviation mid-string
	out = resolvedConfirmed(in)
	assert.Equal(t, tailKey, resolveCut("c", acc+orMark+tailKey, out), "with a cut of its own, a drop at the end is the cut")
	assert.Equal(t, acc, resolveCut("c", tailKey+orMark+acc, out), "and a cut that reads as a deviation shown elsewhere is that")
}

// A class counted in two defects (a raw slash next to the byte a candidate skips) is listed in
// --json under the defect block the text report lists it under (DefectOf), not the first of
// its defects: a reader matching the two finds it in the same block.
func TestJSONDefectIsShown(t *testing.T) {
	if testing.Short() {
		t.Skip("a campaign of two faults")
	}
	classes, _, _ := inProcess(t, plantedImpl(planted.Skip16, planted.RawSlash))
	shown := DefectOf(Defects(classes))
	doc := NewDocument(&fuzz.Report{}, classes)
	twice := 0
	for i, c := range classes {
		require.NotNil(t, shown[c])
		assert.Equal(t, shown[c].N, doc.Classes[i].Defect, "class %s", c.ID)
		if len(doc.Classes[i].Defects) > 1 && doc.Classes[i].Defects[0] != shown[c].N {
			twice++
		}
	}
	assert.NotZero(t, twice, "no class whose first defect is not the one that lists it: the test shows nothing")
}

// The examples of a skip show the skip: a utf8_decode that writes '?' for U+0080..U+009F fails a
// valid sequence as the skip of a continuation byte does, and its findings of that key are
// counted with the skip's, but printed under its own defect only.
func TestSkipExamplesShowTheSkip(t *testing.T) {
	if testing.Short() {
		t.Skip("a campaign of two faults")
	}
	im := plantedImpl(planted.Skip16)
	dec := im.UTF8Decode
	im.Name += "+c1-question"
	im.UTF8Decode = func(dst, src []byte) []byte {
		out := dec(dst, src)
		for i := len(dst); i < len(out); i++ {
			if out[i] >= 0x80 && out[i] <= 0x9F {
				out[i] = '?'
			}
		}
		return out
	}
	classes, _, _ := inProcess(t, im)
	seen := false
	for _, d := range Defects(classes) {
		key, _ := strings.CutPrefix(d.Cause, "deviation ")
		at, skip := deviation.SkipAt(key)
		if d.Dev == nil || !skip {
			continue
		}
		seen = true
		assert.Equal(t, 16, at)
		ex := d.Dev.Examples(3)
		assert.NotEmpty(t, ex)
		for _, f := range ex {
			_, ok := deviationByKey(f, d.Dev.Dev.Key())
			assert.True(t, ok, "example %s % x does not read as the skip", f.Op, f.Input)
		}
	}
	assert.True(t, seen, "no skip defect")
}

// TestExamplesShowTheirFault: a defect's examples show its deviation whatever else the
// candidate does wrong. An answer where PHP returns false is read against PHP's answer under
// INVALID_UTF8_SUBSTITUTE, so a dropped closing quote shows there only because the candidate
// also answers for invalid UTF-8; an overlong sequence decoded to a code point above U+00FF
// shows in utf8_decode only because the candidate also writes that code point raw. Such
// answers were examples of the dropped quote and of the overlong decoding, sending their
// reader to code that alone answers them as PHP does.
func TestExamplesShowTheirFault(t *testing.T) {
	if testing.Short() {
		t.Skip("a campaign of five faults")
	}
	faults := []planted.Fault{planted.DropQuote, planted.FFFDNotFalse, planted.Overlong, planted.WideRaw, planted.UpperUnicode}
	j := judge(t, faults)
	t.Logf("%s", strings.Join(j.table, "\n"))
	for _, f := range faults {
		assert.Len(t, j.named[f], 1, "fault %s", f)
	}
	assert.NotZero(t, j.examples)
	assert.Zero(t, j.off, "examples their fault alone does not show")
}

// TestCutClaimsNoShortFinding: a candidate that loses the last character of strings of 16
// bytes or more and drops U+00AD in utf8_decode. "C2 AD" answered "" reads both as the code
// point dropped and as the input cut short; the cut was taken, because the candidate cuts
// elsewhere, and the dropped code point was named by no defect. A cut of long strings claims
// no finding shorter than they are, and its long findings are no examples of the drop.
func TestCutClaimsNoShortFinding(t *testing.T) {
	if testing.Short() {
		t.Skip("a campaign of four faults")
	}
	faults := []planted.Fault{planted.LastLost16, planted.DropIgnorable, planted.WideRaw, planted.Sub1A}
	j := judge(t, faults)
	t.Logf("%s", strings.Join(j.table, "\n"))
	for _, f := range faults {
		assert.Len(t, j.named[f], 1, "fault %s", f)
	}
	assert.Zero(t, j.off, "examples their fault alone does not show")
}

// TestOptionsTitleSaysWhatMostClassesDo: a candidate that ignores JSON_UNESCAPED_UNICODE is
// one defect titled by what it does to valid text (it escapes it), not by the \ufffd it
// writes escaped for invalid bytes, whose class has the most findings of an exhaustive space
// but is one of four.
func TestOptionsTitleSaysWhatMostClassesDo(t *testing.T) {
	if testing.Short() {
		t.Skip("a campaign")
	}
	classes, _, _ := inProcess(t, plantedImpl(planted.EscapedUnicode))
	ds := Defects(classes)
	require.Len(t, ds, 1)
	assert.True(t, strings.HasPrefix(ds[0].Title(), "escapes a valid multi-byte sequence"), "%s", ds[0].Title())
	assert.True(t, strings.HasSuffix(ds[0].Title(), "answers as if JSON_UNESCAPED_UNICODE were not set"), "%s", ds[0].Title())
}

// TestIgnoredOptionBesideAnotherFault: a candidate that ignores UNESCAPED_UNICODE beside a
// fault that changes every answer its classes are named after (false answered, the closing
// quote dropped, lower-case HEX_TAG digits) or beside two options swapped is named by one
// defect that says the option, not by one per deviation the option shows in (a valid sequence
// escaped, U+FFFD as \ufffd, a valid sequence read as failed), each titled by what PHP does,
// nor by one that holds answers of both faults.
func TestIgnoredOptionBesideAnotherFault(t *testing.T) {
	if testing.Short() {
		t.Skip("campaigns")
	}
	for _, other := range []planted.Fault{planted.FFFDNotFalse, planted.DropQuote, planted.LowerHexTag, planted.SwapAposQuot} {
		t.Run(string(other), func(t *testing.T) {
			faults := []planted.Fault{planted.EscapedUnicode, other}
			classes, _, _ := inProcess(t, plantedImpl(faults...))
			j := judgeClasses(faults, classes)
			assert.Len(t, j.named[planted.EscapedUnicode], 1, "%s", strings.Join(j.table, "\n"))
			assert.Len(t, j.named[other], 1, "%s", strings.Join(j.table, "\n"))
			assert.Empty(t, j.unnamed)
			says := 0
			for _, d := range Defects(classes) {
				if strings.HasSuffix(d.Title(), "answers as if JSON_UNESCAPED_UNICODE were not set") {
					says++
				}
			}
			assert.Equal(t, 1, says, "%s", strings.Join(j.table, "\n"))
		})
	}
}

// TestOptionMapBesideDroppedQuote: two option bits misread (swapped, or one read from the
// other's) beside a closing quote dropped from every answer are one defect named by the map, not
// one per quote and direction: no answer is PHP's under the options the map makes, but each is
// so but for the quote, which another defect names.
func TestOptionMapBesideDroppedQuote(t *testing.T) {
	if testing.Short() {
		t.Skip("campaigns")
	}
	for _, m := range []planted.Fault{planted.SwapAposQuot, planted.AposReadsQuot, planted.SwapTagAmp} {
		t.Run(string(m), func(t *testing.T) {
			faults := []planted.Fault{m, planted.DropQuote}
			classes, _, _ := inProcess(t, plantedImpl(faults...))
			j := judgeClasses(faults, classes)
			assert.Len(t, j.named[m], 1, "%s", strings.Join(j.table, "\n"))
			assert.Len(t, j.named[planted.DropQuote], 1, "%s", strings.Join(j.table, "\n"))
			assert.Empty(t, j.unnamed)
			maps := 0
			for _, d := range Defects(classes) {
				if d.mapped != nil {
					maps++
				}
			}
			assert.Equal(t, 1, maps, "%s", strings.Join(j.table, "\n"))
		})
	}
}

// TestClassFiledByItsWitness: a class whose one finding is a long answer the deviations misread
// (escaped-unicode and merge-substitute in one string under many options), but whose minimized
// witness (E1 F1 written as one \ufffd) shows merge-substitute's deviation, is filed in that
// defect, not left a defect of its own that names neither fault.
func TestClassFiledByItsWitness(t *testing.T) {
	if testing.Short() {
		t.Skip("a campaign")
	}
	faults := []planted.Fault{planted.EscapedUnicode, planted.MergeSubstitute}
	classes, _, _ := inProcess(t, plantedImpl(faults...))
	j := judgeClasses(faults, classes)
	assert.Empty(t, j.unnamed, "%s", strings.Join(j.table, "\n"))
	for _, f := range faults {
		assert.Len(t, j.named[f], 1, "%s", strings.Join(j.table, "\n"))
	}
}

// pairFaults are the in-process faults of escape and the decoder that TestFaultPairs pairs.
var pairFaults = []planted.Fault{planted.Lenient, planted.Overlong, planted.Surrogate, planted.SwapAposQuot, planted.SwapTagAmp,
	planted.AposReadsQuot, planted.RawApos, planted.EscapedUnicode, planted.LowerHexTag, planted.RawSlash, planted.DropQuote,
	planted.UpperUnicode, planted.ControlRaw, planted.SplitBadSequence, planted.Sub1A, planted.WideRaw, planted.TrailAnd7F,
	planted.DropIgnorable, planted.LostAtEnd, planted.RawUnicode, planted.FFFDNotFalse, planted.LastLost16, planted.IgnoreNext,
	planted.HighSurrogate, planted.MergeSubstitute, planted.Swallow4}

// knownPairFailures are the pairs of pairFaults whose report misses judge's bar today (the
// work list of overlapping faults, 24 of the 319 pairs where both faults show), each with how:
// a fault named by no defect or by several, defects that name neither fault alone (an answer
// of both read as a third deviation), or more than 5 % of the examples not shown by their
// fault alone. Most involve an option ignored (escaped-unicode) or every answer changed
// (drop-quote, last-lost-16) beside a fault that needs exact answers to be seen.
var knownPairFailures = map[string]bool{
	"control-raw+swallow-4":           true, // defects that name neither
	"ignore-next+merge-substitute":    true, // ignore-next named by none; defects that name neither
	"ignore-next+swallow-4":           true, // swallow-4 named by none
	"last-lost-16+ignore-next":        true, // last-lost-16 by 2 defects; ignore-next named by none; defects that name neither
	"last-lost-16+merge-substitute":   true, // 3 of 6 examples off
	"lenient+drop-ignorable":          true, // defects that name neither
	"lenient+escaped-unicode":         true, // defects that name neither
	"lenient+high-surrogate":          true, // defects that name neither
	"lenient+ignore-next":             true, // ignore-next named by none
	"lenient+last-lost-16":            true, // lenient by 3 defects; last-lost-16 named by none; 2 of 9 examples off
	"lenient+merge-substitute":        true, // 3 of 6 examples off
	"lenient+swallow-4":               true, // 2 of 6 examples off
	"overlong+raw-unicode":            true, // defects that name neither
	"raw-apos+escaped-unicode":        true, // one defect for both bits ignored, by design (TestIgnoredApartOneDefect)
	"raw-unicode+ignore-next":         true, // ignore-next by 2 defects; defects that name neither
	"split-bad-sequence+swallow-4":    true, // 1 of 6 examples off
	"split-bad-sequence+trail-and-7f": true, // defects that name neither
	"split-bad-sequence+wide-raw":     true, // defects that name neither
	"swap-apos-quot+raw-apos":         true, // swap-apos-quot by 2 defects; raw-apos named by none
	"swap-tag-amp+lower-hex-tag":      true, // swap-tag-amp by 3 defects; lower-hex-tag named by none
	"trail-and-7f+swallow-4":          true, // swallow-4 by 2 defects
	"upper-unicode+merge-substitute":  true, // defects that name neither
	"upper-unicode+swallow-4":         true, // defects that name neither
	"wide-raw+swallow-4":              true, // swallow-4 by 2 defects
}

// TestFaultPairs runs the in-process campaign against every pair of pairFaults and judges each
// report by TestManyFaults's bar. A pair where one fault hides the other (every finding's
// input answered by the other fault alone as by the pair) is skipped: no report can name what
// no answer shows. A pair of knownPairFailures must still fail (then it is logged), so
// that the list shrinks as the report learns. Long tier only: 325 campaigns, about 8 minutes.
func TestFaultPairs(t *testing.T) {
	if !testlevel.Long() {
		t.Skip("325 campaigns: the long tier")
	}
	for i, a := range pairFaults {
		for _, b := range pairFaults[i+1:] {
			name := string(a) + "+" + string(b)
			t.Run(name, func(t *testing.T) {
				faults := []planted.Fault{a, b}
				classes, raws, _ := inProcess(t, plantedImpl(faults...))
				if hidden := hiddenFault(raws, faults); hidden != "" {
					t.Skipf("%s shows nowhere: every answer is the other fault's", hidden)
				}
				j := judgeClasses(faults, classes)
				ok := len(j.unnamed) == 0 && j.off*20 <= j.examples
				for _, f := range faults {
					ok = ok && len(j.named[f]) == 1
				}
				if knownPairFailures[name] {
					assert.False(t, ok, "passes now: take it off knownPairFailures")
					t.Logf("known: named %v, unnamed %v, %d of %d examples off\n%s", j.named, j.unnamed, j.off, j.examples, strings.Join(j.table, "\n"))
					return
				}
				assert.True(t, ok, "named %v, unnamed %v, %d of %d examples off\n%s", j.named, j.unnamed, j.off, j.examples, strings.Join(j.table, "\n"))
			})
		}
	}
}

// hiddenFault is the fault of a pair that no finding shows: the other fault alone answers each
// raw finding's input as the pair does ("" when each fault shows somewhere).
func hiddenFault(raws []rawFinding, faults []planted.Fault) planted.Fault {
	pair := planted.New(faults...)
	for k, f := range faults {
		other, all := planted.New(faults[1-k]), true
		for _, r := range raws {
			in, err := hex.DecodeString(r.Input)
			if err != nil {
				return "" // a finding this cannot read: show the judgement
			}
			all = all && sameAnswers(pair, other, fuzz.Op(r.Op), in, jsonopt.Options(r.Flags))
		}
		if all {
			return f
		}
	}
	return ""
}

// sameAnswers reports whether p and q answer op on in alike (decode: at every position).
func sameAnswers(p, q *planted.Impl, op fuzz.Op, in []byte, opts jsonopt.Options) bool {
	f := &fuzz.Finding{Op: op, Input: in, Flags: opts}
	switch op {
	case fuzz.OpEscape, fuzz.OpUTF8Decode:
		return sameAnswer(replay(p, f), replay(q, f))
	case fuzz.OpDecode:
		for f.Pos = range in {
			if !sameAnswer(replay(p, f), replay(q, f)) {
				return false
			}
		}
		return true
	}
	return false
}

// TestShortWitnessBesideDroppedQuote: beside a candidate that drops every closing quote, the
// only answers that show fffd-not-false's deviation alone are long ones (the lost quote read
// into the stretch); the defect's witness is the 1-byte `80` its class shows, answered '"\ufffd',
// not a long input whose answer shows other faults too.
func TestShortWitnessBesideDroppedQuote(t *testing.T) {
	if testing.Short() {
		t.Skip("a campaign")
	}
	classes, _, _ := inProcess(t, plantedImpl(planted.SwapAposQuot, planted.DropQuote, planted.FFFDNotFalse))
	found := false
	for _, d := range Defects(classes) {
		if d.Dev != nil && d.Dev.Dev.What == deviation.NotFalse {
			found = true
			assert.LessOrEqual(t, len(d.Dev.Witness.Input), 2, "witness % x", d.Dev.Witness.Input)
			assert.True(t, d.Dev.Witness.Minimized)
		}
	}
	assert.True(t, found, "no defect of an answer where PHP returns false")
}
