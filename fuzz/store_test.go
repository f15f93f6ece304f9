package fuzz

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/difffuzz/difffuzz/corpus"
	"github.com/difffuzz/difffuzz/jsonopt"
)

func plantedImpl(t *testing.T, name string) Impl {
	t.Helper()
	for _, im := range plantedImpls() {
		if im.Name == name {
			return im
		}
	}
	t.Fatalf("no planted implementation %q", name)
	return Impl{}
}

// A `go test fuzz v1` file round-trips, and reads what the go command writes.
func TestFuzzFileFormat(t *testing.T) {
	for _, in := range [][]byte{nil, []byte("a\"\\\x00\x80\xff"), []byte("\xe2\x80\xa8é😀")} {
		for _, op := range AllOps {
			data := MarshalFuzzFile(op, in, 2097152)
			got, flags, hasFlags, err := UnmarshalFuzzFile(data)
			if err != nil || !bytes.Equal(got, in) || hasFlags != (op == OpEscape) || (hasFlags && flags != 2097152) {
				t.Errorf("%s % x: round trip gave % x, %d, %v, %v\n%s", op, in, got, flags, hasFlags, err, data)
			}
		}
	}
	// As cmd/go writes them (internal/fuzz/encoding.go), including other integer spellings.
	for _, tc := range []struct {
		data  string
		in    string
		flags jsonopt.Options
	}{
		{"go test fuzz v1\n[]byte(\"\\xe0\\x80A\")\nuint32(2097152)\n", "\xe0\x80A", 2097152},
		{"go test fuzz v1\r\n[]byte(\"\")\r\nuint32(0)\r\n", "", 0},
		{"go test fuzz v1\nstring(\"ab\")\nuint32(0x100)\n", "ab", 256},
		{"go test fuzz v1\n[]byte(`raw`)\n", "raw", 0},
	} {
		in, flags, _, err := UnmarshalFuzzFile([]byte(tc.data))
		if err != nil || string(in) != tc.in || flags != tc.flags {
			t.Errorf("%q: got %q, %d, %v", tc.data, in, flags, err)
		}
	}
	for _, bad := range []string{"", "go test fuzz v2\n[]byte(\"\")\n", "go test fuzz v1\n", "go test fuzz v1\nint(3)\n",
		"go test fuzz v1\n[]byte(\"a\")\nuint32(-1)\n", "go test fuzz v1\n[]byte(\"a\")\nuint32(1)\nuint32(2)\n", "go test fuzz v1\n[]byte(\"a)\n"} {
		if _, _, _, err := UnmarshalFuzzFile([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// SaveFinding writes both files; ReadSaved reads them back (and directories of them); the
// record parses as a regression; Replay finds the difference again while it is there.
func TestSaveAndReplay(t *testing.T) {
	im := plantedImpl(t, "split-16")
	in := append(bytes.Repeat([]byte("a"), 15), 0xC3, 0xA9)
	var c Checker
	fs := c.Escape(nil, []Impl{im}, in, jsonopt.InvalidUTF8Substitute)
	fs = c.Decode(fs, []Impl{im}, in)
	fs = c.UTF8Decode(fs, []Impl{im}, in)
	if len(fs) != 3 {
		t.Fatalf("%d findings, want 3", len(fs))
	}
	dir := t.TempDir()
	for _, f := range fs {
		f.Origin = "test"
		ff, tf, err := SaveFinding(dir, f)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(filepath.Dir(ff)) != FuzzTarget(f.Op) || filepath.Base(ff) != f.ID() || tf != filepath.Join(dir, f.ID()+".txt") {
			t.Errorf("paths %s, %s", ff, tf)
		}
		text, _ := os.ReadFile(tf)
		r, err := corpus.ParseRegression(f.ID(), text)
		if err != nil || r.Op != string(f.Op) || !bytes.Equal(r.Input, in) || r.Flags != uint32(f.Flags) || r.Impl != im.Name || r.Kind != string(f.Kind) {
			t.Errorf("record does not parse back: %+v, %v\n%s", r, err, text)
		}
		for _, want := range []string{"want: ", "got: ", "origin: test", "replay: go run ./cmd/difffuzz", "# FINDING"} {
			if !strings.Contains(string(text), want) {
				t.Errorf("record lacks %q:\n%s", want, text)
			}
		}
		for _, p := range []string{ff, tf} {
			s, err := ReadSaved(p)
			if err != nil || len(s) != 1 || len(s[0].Ops) != 1 || s[0].Ops[0] != f.Op || !bytes.Equal(s[0].Input, in) {
				t.Fatalf("ReadSaved(%s) = %+v, %v", p, s, err)
			}
			if got := s[0].Replay([]Impl{im}, nil); len(got) != 1 || got[0].Kind != f.Kind {
				t.Errorf("replay of %s: %v", p, got)
			}
			if got := s[0].Replay(fuzzCands(), nil); len(got) != 0 {
				t.Errorf("replay of %s against the built-ins: %v", p, got)
			}
		}
	}
	os.WriteFile(filepath.Join(dir, "README"), []byte("not a finding"), 0o644)
	// Each finding once, by its record (the fuzz file beside it is left out); a fuzz file
	// without its record is read.
	all, err := ReadSaved(dir)
	if err != nil || len(all) != 3 {
		t.Errorf("ReadSaved(dir) = %d cases, %v; want 3 (one per finding)", len(all), err)
	}
	for _, s := range all {
		if !strings.HasSuffix(s.Path, ".txt") {
			t.Errorf("ReadSaved(dir) read %s, not the record beside it", s.Path)
		}
	}
	os.Remove(filepath.Join(dir, fs[0].ID()+".txt"))
	if all, err := ReadSaved(dir); err != nil || len(all) != 3 || !slices.ContainsFunc(all, func(s Saved) bool { return filepath.Base(s.Path) == fs[0].ID() }) {
		t.Errorf("ReadSaved(dir) without one record = %+v, %v; want its fuzz file instead", all, err)
	}
	if _, err := ReadSaved(filepath.Join(dir, "README")); err == nil {
		t.Errorf("a README named directly is not an error")
	}
	if _, err := ReadSaved(filepath.Join(dir, "missing")); err == nil {
		t.Errorf("a missing file is not an error")
	}
	// A []byte-only fuzz file outside a target directory replays through both decoders.
	loose := filepath.Join(dir, "loose")
	os.WriteFile(loose, MarshalFuzzFile(OpDecode, in, 0), 0o644)
	if s, err := ReadSaved(loose); err != nil || len(s[0].Ops) != 2 {
		t.Errorf("loose file: %+v, %v", s, err)
	}
	// One in the wrong target directory is an error.
	wrong := filepath.Join(dir, TargetNextChar, "wrong")
	os.WriteFile(wrong, MarshalFuzzFile(OpEscape, in, 0), 0o644)
	if _, err := ReadSaved(wrong); err == nil {
		t.Errorf("an escape file under FuzzNextChar is not an error")
	}
}

// Finding IDs are stable file names.
func TestFindingID(t *testing.T) {
	f := &Finding{Op: OpEscape, Impl: "php /tmp/x y.php", Input: []byte("a"), Flags: 1}
	id := f.ID()
	if id != f.ID() || !strings.HasPrefix(id, "escape-php__tmp_x_y.php-") || len(id) != len("escape-php__tmp_x_y.php-")+12 {
		t.Errorf("ID() = %q", id)
	}
	g := *f
	g.Flags = 2
	if g.ID() == id {
		t.Errorf("different flags, same ID")
	}
}

// A finding of an external target is replayed with its target: the replay line, and repro
// through the command its record names (command:, read back as Saved.Command), the short
// name of a named build (--exec NAME=CMD) kept as its impl.
func TestSaveExternal(t *testing.T) {
	dir := t.TempDir()
	f := &Finding{Kind: KindOutput, Op: OpEscape, Impl: "php target.php", External: true, Input: []byte("\xff"), Flags: 0}
	_, tf, err := SaveFinding(dir, f)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(tf)
	if !strings.Contains(string(text), "repro: difffuzz repro "+tf) || !strings.Contains(string(text), "replay: printf ") ||
		!strings.Contains(string(text), "| php target.php") || !strings.Contains(string(text), "\ncommand: php target.php\n") {
		t.Errorf("record of an external target's finding:\n%s", text)
	}
	f.Impl, f.Command = "branch", "sapi/cli/php target.php"
	_, tf, err = SaveFinding(dir, f)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadSaved(tf)
	if err != nil || len(s) != 1 || s[0].Impl != "branch" || s[0].Command != "sapi/cli/php target.php" {
		t.Errorf("ReadSaved of a named build's record = %+v, %v", s, err)
	}
}
