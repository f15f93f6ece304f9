package fuzz

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/difffuzz/difffuzz/corpus"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// Saved findings. A finding is saved as two files (SaveFinding):
//
//   - DIR/<Target>/<id>: the input in `go test fuzz v1` form for the native fuzz target of its
//     operation (FuzzEscape: []byte and uint32 flags; FuzzNextChar, FuzzUTF8Decode: []byte).
//     Copied into fuzz/testdata/fuzz/<Target>/ it is replayed by plain `go test ./fuzz`
//     against every implementation.
//   - DIR/<id>.txt: the regression record of corpus/regress.go: hex, options by PHP name,
//     both outputs, the finding as printed, where it came from and how to replay it. Copied
//     into corpus/regressions/ it joins the regression store (see there).
//
// `difffuzz repro FILE...` reads either form (ReadSaved) and replays it (Replay).

// Native fuzz target names, one per operation. Their signatures are frozen: seed files and
// saved findings depend on them.
const (
	TargetEscape     = "FuzzEscape"     // func(t *testing.T, data []byte, flags uint32)
	TargetNextChar   = "FuzzNextChar"   // func(t *testing.T, data []byte)
	TargetUTF8Decode = "FuzzUTF8Decode" // func(t *testing.T, data []byte)
)

// FuzzTarget names the native fuzz target that checks op.
func FuzzTarget(op Op) string {
	switch op {
	case OpEscape:
		return TargetEscape
	case OpDecode:
		return TargetNextChar
	default:
		return TargetUTF8Decode
	}
}

// ID names a finding's files: operation, implementation and a hash of the case, so saving the
// same finding twice writes the same files ("escape-swar-3f2a9c1b7d0e").
func (f *Finding) ID() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00", f.Op, uint32(f.Flags))
	h.Write(f.Input)
	return fmt.Sprintf("%s-%s-%x", f.Op, safeName(f.Impl), h.Sum(nil)[:6])
}

// safeName keeps letters, digits, '.', '_' and '-' of s (an --exec command becomes a
// readable file name part).
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 32 {
			break
		}
	}
	if b.Len() == 0 {
		return "impl"
	}
	return b.String()
}

// MarshalFuzzFile encodes a case as a `go test fuzz v1` file for FuzzTarget(op), exactly as
// the go command writes one.
func MarshalFuzzFile(op Op, input []byte, flags jsonopt.Options) []byte {
	var b bytes.Buffer
	b.WriteString("go test fuzz v1\n")
	fmt.Fprintf(&b, "[]byte(%q)\n", input)
	if op == OpEscape {
		fmt.Fprintf(&b, "uint32(%d)\n", uint32(flags))
	}
	return b.Bytes()
}

// UnmarshalFuzzFile decodes a `go test fuzz v1` file of one of the native targets: a []byte
// (or string) value and, for FuzzEscape, a uint32 (any integer type is accepted).
func UnmarshalFuzzFile(data []byte) (input []byte, flags jsonopt.Options, hasFlags bool, err error) {
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if strings.TrimSpace(lines[0]) != "go test fuzz v1" {
		return nil, 0, false, fmt.Errorf("not a `go test fuzz v1` file")
	}
	var vals []string
	for _, l := range lines[1:] {
		if l = strings.TrimSpace(l); l != "" {
			vals = append(vals, l)
		}
	}
	if len(vals) == 0 || len(vals) > 2 {
		return nil, 0, false, fmt.Errorf("%d values, want the input and, for FuzzEscape, the flags", len(vals))
	}
	typ, arg, ok := strings.Cut(vals[0], "(")
	if !ok || !strings.HasSuffix(arg, ")") || (typ != "[]byte" && typ != "string") {
		return nil, 0, false, fmt.Errorf("first value %q is not []byte(...) or string(...)", vals[0])
	}
	s, err := strconv.Unquote(strings.TrimSuffix(arg, ")"))
	if err != nil {
		return nil, 0, false, fmt.Errorf("first value %q: %v", vals[0], err)
	}
	input = []byte(s)
	if len(vals) == 2 {
		typ, arg, ok := strings.Cut(vals[1], "(")
		if !ok || !strings.HasSuffix(arg, ")") || !strings.Contains(typ, "int") {
			return nil, 0, false, fmt.Errorf("second value %q is not uint32(...)", vals[1])
		}
		v, err := strconv.ParseUint(strings.TrimSuffix(arg, ")"), 0, 32)
		if err != nil {
			return nil, 0, false, fmt.Errorf("second value %q: %v", vals[1], err)
		}
		flags, hasFlags = jsonopt.Options(v), true
	}
	return input, flags, hasFlags, nil
}

func hexOrDash(b []byte) string {
	if len(b) == 0 {
		return "-"
	}
	return hex.EncodeToString(b)
}

// Text is the finding's regression record (the format of corpus.ParseRegression): the case,
// both outputs in hex and as strings, where it came from, how to replay it, and the finding
// as printed, as comments.
func (f *Finding) Text() []byte { return f.text("") }

func (f *Finding) text(path string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n", corpus.RegressionMagic)
	fmt.Fprintf(&b, "op: %s\n", f.Op)
	if f.Op == OpEscape {
		fmt.Fprintf(&b, "flags: %d %s\n", uint32(f.Flags), f.Flags)
	}
	fmt.Fprintf(&b, "input: %s\n", hexOrDash(f.Input))
	fmt.Fprintf(&b, "impl: %s\n", f.Impl)
	if f.External {
		fmt.Fprintf(&b, "command: %s\n", f.TargetCommand()) // (repro replays through it)
	}
	fmt.Fprintf(&b, "kind: %s\n", f.Kind)
	switch f.Kind {
	case KindStep:
		fmt.Fprintf(&b, "pos: %d\n", f.Pos)
		fmt.Fprintf(&b, "want: %s\n", f.WantStep)
		fmt.Fprintf(&b, "got: %s\n", f.GotStep)
	case KindOutput, KindError:
		esc := f.Op == OpEscape
		fmt.Fprintf(&b, "want: %s = %s\n", hexOrDash(f.Want), ResultText(f.Want, f.WantErr, esc))
		fmt.Fprintf(&b, "got: %s = %s\n", hexOrDash(f.Got), f.GotText())
		if esc {
			fmt.Fprintf(&b, "want_err: %d\ngot_err: %d\n", f.WantErr, f.GotErr)
		}
	}
	if f.Detail != "" {
		fmt.Fprintf(&b, "detail: %s\n", strings.ReplaceAll(f.Detail, "\n", " "))
	}
	if f.Origin != "" {
		fmt.Fprintf(&b, "origin: %s\n", f.Origin)
	}
	fmt.Fprintf(&b, "replay: %s\n", f.Replay())
	if path != "" {
		// (an external target's finding through the command above)
		fmt.Fprintf(&b, "repro: difffuzz repro %s\n", path)
	}
	b.WriteString("#\n")
	for _, l := range strings.Split(strings.TrimRight(f.String(), "\n"), "\n") {
		fmt.Fprintf(&b, "# %s\n", l)
	}
	return b.Bytes()
}

// SaveFinding writes the finding's two files under dir (created if needed): the `go test fuzz
// v1` file dir/<Target>/<id> and the record dir/<id>.txt. It returns their paths.
func SaveFinding(dir string, f *Finding) (fuzzFile, textFile string, err error) {
	id := f.ID()
	fuzzFile = filepath.Join(dir, FuzzTarget(f.Op), id)
	textFile = filepath.Join(dir, id+".txt")
	if err := os.MkdirAll(filepath.Dir(fuzzFile), 0o755); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(fuzzFile, MarshalFuzzFile(f.Op, f.Input, f.Flags), 0o644); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(textFile, f.text(textFile), 0o644); err != nil {
		return "", "", err
	}
	return fuzzFile, textFile, nil
}

// Saved is a case read back from a saved file.
type Saved struct {
	Path  string
	Ops   []Op // the operations to replay: one, or decode and utf8_decode for a []byte-only fuzz file of unknown target
	Input []byte
	Flags jsonopt.Options
	Impl  string // the implementation recorded in a .txt record, "" otherwise
	Kind  Kind   // what the record says differed, "" if unknown
	// Command is the command of the --exec target a .txt record names ("command:"), "" for
	// a built-in or a record without it.
	Command string
}

// ReadSaved reads saved cases from path: a regression record (first line
// corpus.RegressionMagic), a `go test fuzz v1` file (its target is its directory's name,
// FuzzEscape, FuzzNextChar or FuzzUTF8Decode; a []byte-only file elsewhere is replayed
// through both decoders), or a directory, read recursively (files of neither form, such as
// READMEs, are skipped there but are an error when named directly). In a directory, a fuzz
// file DIR/<Target>/<id> beside its record DIR/<id>.txt (SaveFinding's pair) is left out: the
// record stands for both.
func ReadSaved(path string) ([]Saved, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		s, err := readSavedFile(path)
		if err != nil {
			return nil, err
		}
		return []Saved{s}, nil
	}
	var out []Saved
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		s, err := readSavedFile(p)
		if errors.Is(err, errNotSaved) {
			return nil
		}
		if err != nil {
			return err
		}
		out = append(out, s)
		return nil
	})
	// SaveFinding writes each finding twice, as DIR/<Target>/<id> and DIR/<id>.txt: the
	// record is the one replayed (it names the implementation), so that each finding counts
	// once.
	records := map[string]bool{}
	for _, s := range out {
		if strings.HasSuffix(s.Path, ".txt") {
			records[strings.TrimSuffix(s.Path, ".txt")] = true
		}
	}
	kept := out[:0]
	for _, s := range out {
		if !records[filepath.Join(filepath.Dir(filepath.Dir(s.Path)), filepath.Base(s.Path))] {
			kept = append(kept, s)
		}
	}
	out = kept
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, err
}

var errNotSaved = errors.New("neither a difffuzz finding record nor a `go test fuzz v1` file")

// maxSavedFile bounds a saved finding file (16 MiB): a record holds one input and two outputs.
const maxSavedFile = 16 << 20

func readSavedFile(path string) (Saved, error) {
	// Only regular files of a sane size: a FIFO would block forever, /dev/zero never end.
	st, err := os.Stat(path)
	if err != nil {
		return Saved{}, err
	}
	if !st.Mode().IsRegular() {
		return Saved{}, fmt.Errorf("%s: not a regular file", path)
	}
	if st.Size() > maxSavedFile {
		return Saved{}, fmt.Errorf("%s: %d bytes, larger than a saved finding can be (%d)", path, st.Size(), maxSavedFile)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Saved{}, err
	}
	first, _, _ := strings.Cut(string(data), "\n")
	switch strings.TrimSpace(first) {
	case corpus.RegressionMagic:
		r, err := corpus.ParseRegression(filepath.Base(path), data)
		if err != nil {
			return Saved{}, fmt.Errorf("%s: %v", path, err)
		}
		return Saved{Path: path, Ops: []Op{Op(r.Op)}, Input: r.Input, Flags: jsonopt.Options(r.Flags), Impl: r.Impl, Kind: Kind(r.Kind),
			Command: r.Fields["command"]}, nil
	case "go test fuzz v1":
		in, flags, hasFlags, err := UnmarshalFuzzFile(data)
		if err != nil {
			return Saved{}, fmt.Errorf("%s: %v", path, err)
		}
		s := Saved{Path: path, Input: in, Flags: flags}
		target := filepath.Base(filepath.Dir(path))
		switch {
		case hasFlags && (target == TargetEscape || !strings.HasPrefix(target, "Fuzz")):
			s.Ops = []Op{OpEscape}
		case !hasFlags && target == TargetNextChar:
			s.Ops = []Op{OpDecode}
		case !hasFlags && target == TargetUTF8Decode:
			s.Ops = []Op{OpUTF8Decode}
		case !hasFlags && !strings.HasPrefix(target, "Fuzz"):
			s.Ops = []Op{OpDecode, OpUTF8Decode}
		default:
			return Saved{}, fmt.Errorf("%s: %d values do not fit target %s", path, map[bool]int{true: 2, false: 1}[hasFlags], target)
		}
		return s, nil
	}
	return Saved{}, fmt.Errorf("%s: %w", path, errNotSaved)
}

// Replay runs a saved case against cands (each operation it names) with check (nil:
// DefaultCheck) and returns the findings: none means it passes now.
func (s Saved) Replay(cands []Impl, check CheckFunc) []*Finding {
	if check == nil {
		check = DefaultCheck
	}
	var c Checker
	var out []*Finding
	for _, op := range s.Ops {
		var cs []Impl
		for _, im := range cands {
			if im.Has(op) {
				cs = append(cs, im)
			}
		}
		opts := jsonopt.Options(0)
		if op == OpEscape {
			opts = s.Flags
		}
		out = check(&c, out, op, cs, s.Input, opts)
	}
	for _, f := range out {
		f.Origin = "replay of " + s.Path
	}
	return out
}
