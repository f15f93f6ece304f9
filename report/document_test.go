package report

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/boundary"
	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// Every struct of the --json document has a table in docs/report.md, "The --json document",
// naming its JSON fields in the order the type prints them, and no table names another.
func TestDocumentDocumented(t *testing.T) {
	data, err := os.ReadFile("../docs/report.md")
	require.NoError(t, err)
	doc := string(data)
	start := strings.Index(doc, "## The `--json` document")
	require.GreaterOrEqual(t, start, 0, "docs/report.md has no section \"The `--json` document\"")
	doc = doc[start:]
	if end := strings.Index(doc[1:], "\n## "); end >= 0 {
		doc = doc[:end+1]
	}
	documented := map[string][]string{}
	heading := regexp.MustCompile("^### `(\\w+)`")
	row := regexp.MustCompile("^\\| `(\\w+)` \\|")
	name := ""
	for _, line := range strings.Split(doc, "\n") {
		if m := heading.FindStringSubmatch(line); m != nil {
			name = m[1]
			documented[name] = []string{}
		} else if m := row.FindStringSubmatch(line); m != nil && name != "" {
			documented[name] = append(documented[name], m[1])
		}
	}
	types := map[string][]string{}
	documentStructs(reflect.TypeFor[Document](), types)
	assert.Equal(t, types, documented, "docs/report.md's tables (want) and the document's types (got) differ")
}

// documentStructs adds the JSON field names of struct type ty, and of every struct it
// holds, to fields by type name.
func documentStructs(ty reflect.Type, fields map[string][]string) {
	for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map {
		ty = ty.Elem()
	}
	if ty.Kind() != reflect.Struct || ty == reflect.TypeFor[time.Time]() || fields[ty.Name()] != nil {
		return
	}
	fields[ty.Name()] = []string{}
	for i := range ty.NumField() {
		f := ty.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" || !f.IsExported() {
			continue
		}
		fields[ty.Name()] = append(fields[ty.Name()], tag)
		documentStructs(f.Type, fields)
	}
}

// A finding read back from its record (RecordOf, FactsOf), through JSON, is the finding:
// every field, for each kind of finding a report holds.
func TestFindingRecordRoundTrip(t *testing.T) {
	loc := func(off int, output bool, l boundary.Layout, align int, family, placement string) *fuzz.Location {
		return &fuzz.Location{Loc: boundary.Locate(off), Output: output, Layout: l, Align: align, Family: family, Placement: placement}
	}
	findings := []*fuzz.Finding{
		{Kind: fuzz.KindOutput, Op: fuzz.OpEscape, Impl: "avx2", Input: []byte("a/"), Flags: jsonopt.Options(3),
			Want: []byte(`"a\/"`), Got: []byte(`"a/"`), Space: "exhaustive", Minimized: true},
		{Kind: fuzz.KindError, Op: fuzz.OpEscape, Impl: "bin/t", External: true, Command: "bin/t x", Input: []byte{0xc3, 0x61},
			Got: []byte(`"\u00e1"`), WantErr: 5, Origin: "random --seed 1, input #42", Space: "random",
			Versus: &fuzz.Versus{Name: "master", Reference: true, Agrees: true, Answer: "false 5"}},
		{Kind: fuzz.KindStep, Op: fuzz.OpDecode, Impl: "swar", Input: []byte{0x61, 0xe1, 0x80}, Pos: 1,
			WantStep: jsonopt.Step{Advance: 1}, GotStep: jsonopt.Step{CP: 0x1000, Advance: 2, OK: true}},
		{Kind: fuzz.KindStep, Op: fuzz.OpDecode, Impl: "swar", Input: []byte{0x80}, GotStep: jsonopt.Step{CP: 0x80, Advance: 1, OK: true},
			WantStep: jsonopt.Step{Advance: 1}, Loc: loc(0, false, boundary.EndFlush, 17, "straddle", "straddle #3")},
		{Kind: fuzz.KindOutput, Op: fuzz.OpUTF8Decode, Impl: "avx2", Input: []byte("aaaaaaaaaaaaaaa\x80"), Want: []byte("aaaaaaaaaaaaaaa?"),
			Got: []byte("aaaaaaaaaaaaaaa"), Minimized: true, Anchored: true, Space: "boundary", Loc: loc(15, false, boundary.Aligned, 0, "", "")},
		{Kind: fuzz.KindReadPastEnd, Op: fuzz.OpDecode, Impl: "sse2", Input: []byte{0xf0}, Pos: 3, Detail: "read past the end",
			Loc: loc(1, false, boundary.StartFlush, 0, "", "")},
		{Kind: fuzz.KindDstOverflow, Op: fuzz.OpEscape, Impl: "avx2", Input: []byte("x"), Got: []byte(`"x"`), Loc: loc(-3, true, 0, 0, "", "")},
		{Kind: fuzz.KindPanic, Op: fuzz.OpUTF8Decode, Impl: "generic", Input: []byte{}, Detail: "index out of range"},
		// a target that answered "" with the error code: the empty string, not false
		{Kind: fuzz.KindError, Op: fuzz.OpEscape, Impl: "bin/t", External: true, Input: []byte{0xc3}, Flags: 0,
			Want: []byte{}, Got: []byte{}, WantErr: 5, GotErr: 5, GotEmpty: true},
	}
	for _, f := range findings {
		for _, record := range []func(*fuzz.Finding) FindingRecord{RecordOf, FactsOf} {
			b, err := json.Marshal(record(f))
			require.NoError(t, err)
			var r FindingRecord
			require.NoError(t, json.Unmarshal(b, &r))
			g, err := r.Finding()
			require.NoError(t, err, "%s", b)
			for _, b := range []*[]byte{&f.Want, &f.Got} {
				if *b == nil {
					*b = []byte{} // a record does not tell an empty answer from none
				}
			}
			assert.Equal(t, f, g, "%s", b)
		}
	}
}

// A record whose derived fields do not fit its facts is refused, naming the field.
func TestFindingRecordRefused(t *testing.T) {
	f := &fuzz.Finding{Kind: fuzz.KindOutput, Op: fuzz.OpEscape, Impl: "avx2", Input: []byte("a"),
		Loc: &fuzz.Location{Loc: boundary.Locate(20), Layout: boundary.Aligned}}
	for _, tc := range []struct {
		edit func(r *FindingRecord)
		want string
	}{
		{func(r *FindingRecord) { r.Lane = ptr(3) }, "finding: off 20: chunk 1, lane 3"},
		{func(r *FindingRecord) { r.OffIn = "dst" }, `finding: off_in "dst"`},
		{func(r *FindingRecord) { r.Layout = "sideways" }, `finding: layout "sideways"`},
		{func(r *FindingRecord) { r.GotStep = "e9" }, `finding: got_step "e9"`},
		{func(r *FindingRecord) { r.Op = "frob" }, `finding: op "frob"`},
		{func(r *FindingRecord) { r.Want = ptr("zz") }, `finding: want "zz"`},
		{func(r *FindingRecord) { r.Pos = ptr(-1) }, "finding: pos -1"},
		{func(r *FindingRecord) { r.Kind, r.Op, r.Pos = fuzz.KindStep, fuzz.OpDecode, ptr(2) }, "finding: pos 2"},
	} {
		r := RecordOf(f)
		tc.edit(&r)
		_, err := r.Finding()
		require.Error(t, err, tc.want)
		assert.Contains(t, err.Error(), tc.want)
	}
}
