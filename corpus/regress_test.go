package corpus_test

import (
	"strings"
	"testing"

	"github.com/difffuzz/difffuzz/corpus"
)

// The committed regression store parses.
func TestRegressions(t *testing.T) {
	regs, err := corpus.Regressions()
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range regs {
		if r.Name == "" || r.Op == "" || (i > 0 && regs[i-1].Name >= r.Name) {
			t.Errorf("regression %d: %+v", i, r)
		}
	}
}

func TestParseRegression(t *testing.T) {
	r, err := corpus.ParseRegression("x", []byte(corpus.RegressionMagic+"\n# comment\nop: escape\nflags: 2097152 JSON_INVALID_UTF8_SUBSTITUTE\n"+
		"input: e0 80 41\nimpl: swar\nkind: output-differs\nwant: 22 = \"\\\"\"\n\n"))
	if err != nil || r.Op != "escape" || r.Flags != 2097152 || string(r.Input) != "\xe0\x80A" || r.Impl != "swar" ||
		r.Kind != "output-differs" || r.Fields["want"] != `22 = "\""` {
		t.Errorf("got %+v, %v", r, err)
	}
	r, err = corpus.ParseRegression("y", []byte(corpus.RegressionMagic+"\r\nop: utf8-decode\r\ninput: -\r\n"))
	if err != nil || r.Op != "utf8_decode" || len(r.Input) != 0 || r.Input == nil {
		t.Errorf("got %+v, %v", r, err)
	}
	for _, bad := range []struct{ text, want string }{
		{"op: escape\n", "first line"},
		{corpus.RegressionMagic + "\ninput: 41\n", "no op"},
		{corpus.RegressionMagic + "\nop: frob\ninput: 41\n", "unknown op"},
		{corpus.RegressionMagic + "\nop: decode\n", "no input"},
		{corpus.RegressionMagic + "\nop: decode\ninput: 4\n", "input"},
		{corpus.RegressionMagic + "\nop: escape\ninput: 41\n", "no flags"},
		{corpus.RegressionMagic + "\nop: escape\ninput: 41\nflags: JSON_HEX_TAG\n", "decimal"},
		{corpus.RegressionMagic + "\nop: decode\ninput: 41\ninput: 42\n", "twice"},
		{corpus.RegressionMagic + "\nop decode\n", "key: value"},
	} {
		if _, err := corpus.ParseRegression("bad", []byte(bad.text)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want one about %q", bad.text, err, bad.want)
		}
	}
}
