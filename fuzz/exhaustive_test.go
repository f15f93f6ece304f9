package fuzz

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/fast"
	"github.com/difffuzz/difffuzz/internal/testlevel"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// TestExhaustive runs, in the long tier (internal/testlevel), the whole default exhaustive
// campaign (every string of length 1–4 through both decoders, 1–3 through the escaper under
// fuzz.ExhaustiveCombos) against every fast variant; make test runs that sweep as the product
// does (make exhaustive). Otherwise it runs the documented sample: lengths 1–2 for every
// operation (every option set for escape), which takes a second or two.
func TestExhaustive(t *testing.T) {
	cfg := ExhaustiveConfig{}
	if !testlevel.Long() {
		cfg.MaxLen = 2
	}
	rep, err := Exhaustive(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var cases uint64
	for _, s := range rep.Spaces {
		if !s.Complete {
			t.Errorf("%s len %d incomplete", s.Op, s.Len)
		}
		if s.Strings != pow256(s.Len) {
			t.Errorf("%s len %d: %d strings checked, want %d", s.Op, s.Len, s.Strings, pow256(s.Len))
		}
		cases += s.Cases
		t.Logf("%s len %d: %d strings × %d option sets × %d candidates: %d differences in %v",
			s.Op, s.Len, s.Strings, s.OptionSets, len(s.Impls), s.Differences, s.Elapsed)
	}
	wantSpaces := 3 * 2
	if testlevel.Long() {
		wantSpaces = DefaultEscapeMaxLen + 2*DefaultDecodeMaxLen
	}
	if len(rep.Spaces) != wantSpaces {
		t.Errorf("%d spaces run, want %d", len(rep.Spaces), wantSpaces)
	}
	for _, f := range rep.Findings {
		t.Error(f)
	}
	if rep.Differences != 0 {
		t.Errorf("%d differences", rep.Differences)
	}
}

// The harness must catch planted defects: each broken candidate below differs from the
// oracle on a known input, and the exhaustive sweep must report it with the right kind.
func TestExhaustiveCatchesPlantedDefects(t *testing.T) {
	good := Oracle
	slashBug := good
	slashBug.Name = "slash-ignores-option"
	slashBug.Escape = func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
		return Oracle.Escape(dst, src, o&^jsonopt.UnescapedSlashes)
	}
	advBug := good
	advBug.Name = "advance-off-by-one"
	advBug.NextChar = func(s []byte, pos int) jsonopt.Step {
		st := Oracle.NextChar(s, pos)
		if !st.OK && st.Advance == 2 && s[pos] >= 0xe0 {
			st.Advance = 3 // E0 80 41 must advance 2
		}
		return st
	}
	qBug := good
	qBug.Name = "decode-question-for-ff"
	qBug.UTF8Decode = func(dst, src []byte) []byte {
		out := Oracle.UTF8Decode(dst, src)
		return bytes.ReplaceAll(out, []byte{0xff}, []byte{'?'})
	}
	panicky := good
	panicky.Name = "panics-on-ff"
	panicky.Escape = func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
		if bytes.IndexByte(src, 0xff) >= 0 {
			var a []byte
			_ = a[len(src)] // index out of range
		}
		return Oracle.Escape(dst, src, o)
	}
	mutator := good
	mutator.Name = "writes-input"
	mutator.UTF8Decode = func(dst, src []byte) []byte {
		out := Oracle.UTF8Decode(dst, src)
		if len(src) > 0 && src[0] == 'x' {
			src[0] = 'y'
		}
		return out
	}
	rep, err := Exhaustive(context.Background(), ExhaustiveConfig{
		Config: Config{Impls: []Impl{slashBug, advBug, qBug, panicky, mutator}, MaxFindings: 4000000},
		MaxLen: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	type witness struct {
		impl  string
		kind  Kind
		input string
		flags jsonopt.Options
	}
	found := map[witness]bool{}
	for _, f := range rep.Findings {
		found[witness{f.Impl, f.Kind, string(f.Input), f.Flags}] = true
	}
	for _, w := range []witness{
		{"slash-ignores-option", KindOutput, "/", jsonopt.UnescapedSlashes | jsonopt.PreserveZeroFraction}, // Combo(1<<5)
		{"advance-off-by-one", KindStep, "\xe0\x80", 0},
		{"decode-question-for-ff", KindOutput, "\xc3\xbf", 0},
		{"panics-on-ff", KindPanic, "\xff", 0},
		{"writes-input", KindInputModified, "x", 0},
	} {
		if !found[w] {
			t.Errorf("planted defect not reported: %+v", w)
		}
	}
	// Every finding belongs to a planted defect and is of its kind.
	kinds := map[string]Kind{"slash-ignores-option": KindOutput, "advance-off-by-one": KindStep,
		"decode-question-for-ff": KindOutput, "panics-on-ff": KindPanic, "writes-input": KindInputModified}
	for _, f := range rep.Findings {
		if kinds[f.Impl] != f.Kind {
			t.Errorf("unexpected finding: %v", f)
		}
		if f.Impl == "slash-ignores-option" && (f.Flags&jsonopt.UnescapedSlashes == 0 || !bytes.Contains(f.Input, []byte("/"))) {
			t.Errorf("slash finding without / or UNESCAPED_SLASHES: %v", f)
		}
	}
	if rep.Differences != uint64(len(rep.Findings)) {
		t.Errorf("Differences = %d, findings kept = %d", rep.Differences, len(rep.Findings))
	}
}

// The shards of a space partition it: together they check every string exactly once.
func TestExhaustiveShards(t *testing.T) {
	cands := []Impl{Oracle}
	var strs uint64
	for k := 0; k < 3; k++ {
		rep, err := Exhaustive(context.Background(), ExhaustiveConfig{
			Config: Config{Ops: []Op{OpDecode}, Impls: cands},
			MaxLen: 3,
			Shard:  k,
			Shards: 3,
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range rep.Spaces {
			if !s.Complete {
				t.Errorf("shard %d: %s len %d incomplete", k, s.Op, s.Len)
			}
			strs += s.Strings
		}
	}
	if want := pow256(1) + pow256(2) + pow256(3); strs != want {
		t.Errorf("shards checked %d strings together, want %d", strs, want)
	}
	if _, err := Exhaustive(context.Background(), ExhaustiveConfig{Shard: 3, Shards: 3}); err == nil {
		t.Error("shard 3/3 accepted")
	}
}

// TestExhaustiveShortSpotCheck: an implementation that claims to run fast's short-string code
// (ShortLen, Short) but does not is still caught by the exhaustive spaces, through the spot
// check of its own entry point, with the finding naming it. The hot path runs the shared code
// only, so without the spot check these defects would pass.
func TestExhaustiveShortSpotCheck(t *testing.T) {
	base, err := LookupImpl("generic")
	if err != nil {
		t.Fatal(err)
	}
	if base.Short == nil || base.ShortLen != fast.ShortLen {
		t.Fatalf("generic: ShortLen %d, Short %v: want fast.ShortLen and fast's short code", base.ShortLen, base.Short)
	}
	liar := base
	liar.Name = "lowercase-hex-tag"
	liar.Escape = func(dst, src []byte, opts jsonopt.Options) ([]byte, error) {
		out, err := base.Escape(dst, src, opts)
		return bytes.ReplaceAll(out, []byte(`\u003C`), []byte(`\u003c`)), err
	}
	liar.UTF8Decode = func(dst, src []byte) []byte {
		out := base.UTF8Decode(dst, src)
		return bytes.ReplaceAll(out, []byte("?"), []byte("!"))
	}
	rep, err := Exhaustive(context.Background(), ExhaustiveConfig{
		Config: Config{Ops: []Op{OpEscape, OpUTF8Decode}, Impls: []Impl{base, liar}, MaxFindings: 1000000},
		MaxLen: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	byOp := map[Op]int{}
	for _, f := range rep.Findings {
		if f.Impl != liar.Name || f.Kind != KindOutput {
			t.Errorf("unexpected finding: %v", f)
			continue
		}
		byOp[f.Op]++
	}
	if byOp[OpEscape] == 0 || byOp[OpUTF8Decode] == 0 {
		t.Errorf("findings per operation %v: want some for escape and for utf8_decode", byOp)
	}
	for _, s := range rep.Spaces {
		if s.Distinct != 1 {
			t.Errorf("%s len %d: %d distinct functions in the hot path, want 1 (the shared short code)", s.Op, s.Len, s.Distinct)
		}
	}
	t.Logf("spot check found %v", byOp)
}

// TestExhaustiveCanaryAndLen1: the exhaustive spaces catch a write past the returned length
// (through the spot check's canary, though the hot path does not look), and a candidate claiming fast's short code that differs on every 1-byte string
// under one option bit (1-byte strings are spot-checked under every option set).
func TestExhaustiveCanaryAndLen1(t *testing.T) {
	base, err := LookupImpl("swar")
	if err != nil {
		t.Fatal(err)
	}
	scribble := func(out []byte) {
		if full := out[:cap(out)]; len(full) > len(out) {
			full[len(out)] ^= 0x5A
		}
	}
	over := Impl{Name: "writes-past-output", NextChar: base.NextChar,
		Escape: func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
			out, err := base.Escape(dst, src, o)
			scribble(out)
			return out, err
		},
		UTF8Decode: func(dst, src []byte) []byte {
			out := base.UTF8Decode(dst, src)
			scribble(out)
			return out
		}}
	subst := base
	subst.Name = "wrong-1-byte-substitute"
	subst.Escape = func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
		out, err := base.Escape(dst, src, o)
		if len(src) == 1 && o&jsonopt.InvalidUTF8Substitute != 0 && len(out) > 0 {
			out = append(out, ' ')
		}
		return out, err
	}
	rep, err := Exhaustive(context.Background(), ExhaustiveConfig{
		Config: Config{Ops: []Op{OpEscape, OpUTF8Decode}, Impls: []Impl{base, over, subst}, MaxFindings: 50},
		MaxLen: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, f := range rep.Findings {
		got[f.Impl+" "+string(f.Op)+" "+string(f.Kind)]++
	}
	for _, want := range []string{
		"writes-past-output escape dst-overflow",
		"writes-past-output utf8_decode dst-overflow",
		"wrong-1-byte-substitute escape output-differs",
	} {
		if got[want] == 0 {
			t.Errorf("no %q finding; got %v", want, got)
		}
	}
	if got["swar escape output-differs"]+got["swar utf8_decode output-differs"] > 0 {
		t.Errorf("findings for the honest candidate: %v", got)
	}
	t.Logf("findings: %v", got)
}

// ExhaustiveCombos: all 2,048 sets up to FullOptionsLen bytes and with full; past it the 1,024
// without NUMERIC_CHECK and 64 with it, PRESERVE_ZERO_FRACTION both ways among them.
func TestExhaustiveCombos(t *testing.T) {
	assert.Len(t, ExhaustiveCombos(1, false), jsonopt.NumStringCombos)
	assert.Len(t, ExhaustiveCombos(2, false), jsonopt.NumStringCombos)
	assert.Len(t, ExhaustiveCombos(3, true), jsonopt.NumStringCombos)
	long := ExhaustiveCombos(3, false)
	require.Len(t, long, 1088)
	var without, with, pzf int
	prev := -1
	for _, o := range long {
		i := jsonopt.ComboIndex(o)
		require.Equal(t, jsonopt.Combo(i), o)
		require.Greater(t, i, prev, "index order")
		prev = i
		if o&jsonopt.NumericCheck == 0 {
			without++
			continue
		}
		with++
		if o&jsonopt.PreserveZeroFraction != 0 {
			pzf++
		}
		assert.Zero(t, o&(jsonopt.HexTag|jsonopt.HexAmp|jsonopt.HexApos|jsonopt.UnescapedLineTerminators), "%v", o)
	}
	assert.Equal(t, [3]int{1024, 64, 32}, [3]int{without, with, pzf})
}

// The exhaustive escape space under the 1,088 sets of 3-byte strings still reuses the oracle's
// answers by class (the sets are a subset of jsonopt.Combo in index order) and catches a
// candidate that is wrong only under one of them: NUMERIC_CHECK|UNESCAPED_SLASHES on a string
// that is no number. A fault under NUMERIC_CHECK|HEX_TAG, a set only --full-options checks at
// 3 bytes, is caught with FullOptions and not without.
func TestExhaustiveLongCombos(t *testing.T) {
	planted := func(name string, bits jsonopt.Options) Impl {
		im := Oracle
		im.Name = name
		im.Escape = func(dst, src []byte, o jsonopt.Options) ([]byte, error) {
			out, err := Oracle.Escape(dst, src, o)
			if len(src) == 3 && o&bits == bits && err == nil && out[len(dst)] == '"' && bytes.IndexByte(src, '/') >= 0 {
				out = append(out, 'X')
			}
			return out, err
		}
		return im
	}
	slash := planted("nc-slash", jsonopt.NumericCheck|jsonopt.UnescapedSlashes)
	tag := planted("nc-tag", jsonopt.NumericCheck|jsonopt.HexTag)
	run := func(full bool) map[string]uint64 {
		// One shard of 2,048 (a few units of consecutive strings, every 256th ending in /).
		rep, err := Exhaustive(context.Background(), ExhaustiveConfig{
			Config:      Config{Ops: []Op{OpEscape}, Impls: []Impl{slash, tag}, MaxFindings: 1},
			MaxLen:      3,
			Shard:       5,
			Shards:      2048,
			FullOptions: full,
		})
		require.NoError(t, err)
		out := map[string]uint64{}
		for _, s := range rep.Spaces {
			if s.Len == 3 {
				assert.Equal(t, len(ExhaustiveCombos(3, full)), s.OptionSets)
			}
		}
		for _, f := range rep.Findings {
			out[f.Impl]++
		}
		return out
	}
	assert.Equal(t, map[string]uint64{"nc-slash": 1}, run(false))
	assert.Equal(t, map[string]uint64{"nc-slash": 1, "nc-tag": 1}, run(true))
}

// comboBox finds the two boxes of the exhaustive option lists, and none in a list that is not
// two boxes.
func TestComboBox(t *testing.T) {
	posOf := func(opts []jsonopt.Options) *[jsonopt.NumStringCombos]int16 {
		pos := new([jsonopt.NumStringCombos]int16)
		for p, o := range opts {
			pos[jsonopt.ComboIndex(o)] = int16(p + 1)
		}
		return pos
	}
	nc := 1 << numericIndexBit
	all := (jsonopt.NumStringCombos - 1) &^ nc
	assert.Equal(t, [2]int{all, all}, comboBox(posOf(ExhaustiveCombos(2, false)), jsonopt.NumStringCombos))
	long := ExhaustiveCombos(3, false)
	assert.Equal(t, [2]int{all, jsonopt.ComboIndex(longNumericBits)}, comboBox(posOf(long), len(long)))
	some := append(append([]jsonopt.Options(nil), long[:5]...), long[7:]...)
	assert.Equal(t, [2]int{}, comboBox(posOf(some), len(some)), "a hole in the box")
}

// ExhaustiveTotal is the sum of the cases Exhaustive checks, sharded or not (the total of the
// sweep's progress).
func TestExhaustiveTotal(t *testing.T) {
	for _, shards := range [][2]int{{0, 0}, {1, 3}} {
		cfg := ExhaustiveConfig{Config: Config{Impls: []Impl{Oracle}}, MaxLen: 2, Shard: shards[0], Shards: shards[1]}
		rep, err := Exhaustive(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var cases uint64
		for _, sp := range rep.Spaces {
			cases += sp.Cases
		}
		if got := ExhaustiveTotal(cfg); got != cases || got == 0 {
			t.Errorf("shard %v: ExhaustiveTotal = %d, the spaces checked %d cases", shards, got, cases)
		}
	}
}
