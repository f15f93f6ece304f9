package fast_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/fast"
	"github.com/difffuzz/difffuzz/internal/spectest"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// impl is one implementation under test: every variant, plus the dispatched package-level
// functions under the name "default".
type impl struct {
	name       string
	escape     func(dst, src []byte, opts jsonopt.Options) ([]byte, error)
	nextChar   func(s []byte, pos int) jsonopt.Step
	utf8Decode func(dst, src []byte) []byte
}

func impls(t testing.TB) []impl {
	vs := fast.Variants()
	if len(vs) < 2 {
		t.Fatalf("Variants() = %d variants; want at least generic and swar", len(vs))
	}
	out := []impl{{"default", fast.Escape, fast.NextChar, fast.UTF8Decode}}
	for _, v := range vs {
		out = append(out, impl{v.Name, v.Escape, v.NextChar, v.UTF8Decode})
	}
	return out
}

// show renders bytes for failure messages: nil (false) is shown as false.
func show(b []byte) string {
	if b == nil {
		return "false"
	}
	return fmt.Sprintf("%q", b)
}

func TestEscapeFacts(t *testing.T) {
	for _, im := range impls(t) {
		for _, f := range append(spectest.Escape[:len(spectest.Escape):len(spectest.Escape)], spectest.Numeric...) {
			for _, prefix := range []string{"", "xyz"} {
				dst := append(make([]byte, 0, 4), prefix...)
				got, err := im.escape(dst, f.In, f.Flags)
				if !assert.Equal(t, f.Err, jsonopt.ErrorCode(err), "%s %s: Escape(%q, %s) error %v: code", im.name, f.ID, f.In, f.Flags, err) {
					continue
				}
				if !assert.Equal(t, prefix, string(got[:min(len(got), len(prefix))]), "%s %s: Escape(%q, %s) = %q lost the dst prefix", im.name, f.ID, f.In, f.Flags, got) {
					continue
				}
				// f.Want nil is false: nothing appended.
				assert.Equal(t, string(f.Want), string(got[len(prefix):]), "%s %s: Escape(%q, %s); want %s (%s)", im.name, f.ID, f.In, f.Flags, show(f.Want), f.Note)
			}
		}
	}
}

func TestUTF8DecodeFacts(t *testing.T) {
	for _, im := range impls(t) {
		for _, f := range spectest.UTF8Decode {
			got := im.utf8Decode([]byte("p"), f.In)
			assert.Equal(t, "p"+string(f.Want), string(got), "%s %s: UTF8Decode(%q) after dst \"p\" (%s)", im.name, f.ID, f.In, f.Note)
		}
	}
}

// TestModelFacts checks the tests' own model against the same facts, NUMERIC_CHECK's
// included, so that the placement, buffer and random tests compare with something known to be
// right.
func TestModelFacts(t *testing.T) {
	for _, f := range append(spectest.Escape[:len(spectest.Escape):len(spectest.Escape)], spectest.Numeric...) {
		got, code := modelEscape(f.In, f.Flags)
		assert.Equal(t, string(f.Want), string(got), "model %s: modelEscape(%q, %s) = %s; want %s", f.ID, f.In, f.Flags, show(got), show(f.Want))
		assert.Equal(t, f.Err, code, "model %s: modelEscape(%q, %s) error code", f.ID, f.In, f.Flags)
	}
	for _, f := range spectest.UTF8Decode {
		assert.Equal(t, string(f.Want), string(modelUTF8Decode(f.In)), "model %s: modelUTF8Decode(%q)", f.ID, f.In)
	}
}

func TestRegistry(t *testing.T) {
	vs := fast.Variants()
	require.NotEmpty(t, vs, "Variants()")
	require.Equal(t, vs[0].Name, fast.Default(), "Default() must be the first of Variants()")
	seen := map[string]bool{}
	for _, v := range vs {
		assert.NotEmpty(t, v.Name, "variant %+v: Name", v)
		assert.NotEmpty(t, v.Doc, "variant %q: Doc", v.Name)
		assert.NotNil(t, v.Escape, "variant %q: Escape", v.Name)
		assert.NotNil(t, v.NextChar, "variant %q: NextChar", v.Name)
		assert.NotNil(t, v.UTF8Decode, "variant %q: UTF8Decode", v.Name)
		assert.False(t, seen[v.Name], "variant %q listed twice", v.Name)
		seen[v.Name] = true
		w, ok := fast.Lookup(v.Name)
		if assert.True(t, ok, "Lookup(%q) found nothing", v.Name) {
			assert.Equal(t, v.Name, w.Name, "Lookup(%q)", v.Name)
		}
	}
	for _, name := range []string{"generic", "swar"} {
		assert.True(t, seen[name], "portable variant %q missing from Variants()", name)
	}
	_, ok := fast.Lookup("no-such-variant")
	assert.False(t, ok, "Lookup(no-such-variant) found a variant")
	vs[0].Name = "changed"
	assert.NotEqual(t, "changed", fast.Variants()[0].Name, "Variants() returned the registry itself, not a copy")
}

// fastNext is the NextChar every variant shares (checked by TestNextChar for each variant).
var fastNext = fast.NextChar
