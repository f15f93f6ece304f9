package fast_test

import (
	"bytes"
	"fmt"
	"testing"

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
		for _, f := range spectest.Escape {
			for _, prefix := range []string{"", "xyz"} {
				dst := append(make([]byte, 0, 4), prefix...)
				got, err := im.escape(dst, f.In, f.Flags)
				if code := jsonopt.ErrorCode(err); code != f.Err {
					t.Errorf("%s %s: Escape(%q, %s) error %v (code %d); want code %d", im.name, f.ID, f.In, f.Flags, err, code, f.Err)
					continue
				}
				if !bytes.HasPrefix(got, []byte(prefix)) {
					t.Errorf("%s %s: Escape(%q, %s) = %q lost the dst prefix %q", im.name, f.ID, f.In, f.Flags, got, prefix)
					continue
				}
				got = got[len(prefix):]
				want := f.Want
				if want == nil {
					want = []byte{} // false: nothing appended
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s %s: Escape(%q, %s) = %q; want %s (%s)", im.name, f.ID, f.In, f.Flags, got, show(f.Want), f.Note)
				}
			}
		}
	}
}

func TestUTF8DecodeFacts(t *testing.T) {
	for _, im := range impls(t) {
		for _, f := range spectest.UTF8Decode {
			got := im.utf8Decode([]byte("p"), f.In)
			if !bytes.Equal(got, append([]byte("p"), f.Want...)) {
				t.Errorf("%s %s: UTF8Decode(%q) = %q; want %q (%s)", im.name, f.ID, f.In, got[1:], f.Want, f.Note)
			}
		}
	}
}

// TestModelFacts checks the tests' own model against the same facts, so that the placement
// and random tests compare with something known to be right.
func TestModelFacts(t *testing.T) {
	for _, f := range spectest.Escape {
		got, code := modelEscape(f.In, f.Flags)
		if code != f.Err || !bytes.Equal(got, f.Want) {
			t.Errorf("model %s: modelEscape(%q, %s) = %s, %d; want %s, %d", f.ID, f.In, f.Flags, show(got), code, show(f.Want), f.Err)
		}
	}
	for _, f := range spectest.UTF8Decode {
		if got := modelUTF8Decode(f.In); !bytes.Equal(got, f.Want) {
			t.Errorf("model %s: modelUTF8Decode(%q) = %q; want %q", f.ID, f.In, got, f.Want)
		}
	}
}

func TestRegistry(t *testing.T) {
	vs := fast.Variants()
	if len(vs) == 0 || vs[0].Name != fast.Default() {
		t.Fatalf("Default() = %q; want the first of Variants() (%d variants)", fast.Default(), len(vs))
	}
	seen := map[string]bool{}
	for _, v := range vs {
		if v.Name == "" || v.Doc == "" || v.Escape == nil || v.NextChar == nil || v.UTF8Decode == nil {
			t.Errorf("variant %+v has an empty field", v)
		}
		if seen[v.Name] {
			t.Errorf("variant %q listed twice", v.Name)
		}
		seen[v.Name] = true
		if w, ok := fast.Lookup(v.Name); !ok || w.Name != v.Name {
			t.Errorf("Lookup(%q) = %q, %v; want the variant", v.Name, w.Name, ok)
		}
	}
	for _, name := range []string{"generic", "swar"} {
		if !seen[name] {
			t.Errorf("portable variant %q missing from Variants()", name)
		}
	}
	if _, ok := fast.Lookup("no-such-variant"); ok {
		t.Errorf("Lookup(no-such-variant) found a variant")
	}
	vs[0].Name = "changed"
	if fast.Variants()[0].Name == "changed" {
		t.Errorf("Variants() returned the registry itself, not a copy")
	}
}

// fastNext is the NextChar every variant shares (checked by TestNextChar for each variant).
var fastNext = fast.NextChar
