package corpus

import (
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// The regression store: every finding worth keeping, one text file per finding in
// corpus/regressions/, embedded in the binary. `difffuzz --random … --out DIR` writes such a
// file for each finding (DIR/<id>.txt); copying it into corpus/regressions/ and running
// `go generate ./fuzz` keeps it forever: package fuzz's TestRegressions replays every stored
// input against every implementation in plain `go test`, the native fuzz targets get it as a
// seed (fuzz/testdata/fuzz/<Target>/regress-<id>), and random campaigns splice it into
// generated inputs. A finding that was fixed stays in the store, so it can never come back.
//
// The file format (RegressionMagic on the first line, then "key: value" lines; blank lines
// and lines starting with # are ignored; unknown keys are kept in Fields):
//
//	difffuzz finding v1
//	op: escape                      # escape, decode or utf8_decode
//	flags: 2097152 JSON_INVALID_UTF8_SUBSTITUTE  # escape only: the decimal value comes first
//	input: e08041                   # lowercase hex, "-" for the empty string
//	impl: swar                      # the implementation that differed (optional)
//	kind: output-differs            # what differed (optional)
//	want: …                         # anything else is free-form (outputs, origin, replay)

//go:embed regressions
var regressFS embed.FS

// RegressionMagic is the first line of a regression file.
const RegressionMagic = "difffuzz finding v1"

// Regression is one stored finding: enough to replay it (Op, Flags, Input) and what it was.
type Regression struct {
	Name   string            // the file name without .txt
	Op     string            // "escape", "decode" or "utf8_decode"
	Impl   string            // the implementation that differed, "" if not recorded
	Kind   string            // what differed, "" if not recorded
	Flags  uint32            // json_encode options (escape)
	Input  []byte            // the input
	Fields map[string]string // every key of the file, the ones above included
}

// Regressions returns every stored regression, sorted by name. An error names the first
// malformed file.
func Regressions() ([]Regression, error) {
	ents, err := fs.ReadDir(regressFS, "regressions")
	if err != nil {
		return nil, err
	}
	var out []Regression
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".txt") {
			continue
		}
		data, err := regressFS.ReadFile(path.Join("regressions", e.Name()))
		if err != nil {
			return nil, err
		}
		r, err := ParseRegression(strings.TrimSuffix(e.Name(), ".txt"), data)
		if err != nil {
			return nil, fmt.Errorf("corpus/regressions/%s: %v", e.Name(), err)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ParseRegression reads one regression file (see the format above).
func ParseRegression(name string, data []byte) (Regression, error) {
	r := Regression{Name: name, Fields: map[string]string{}}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != RegressionMagic {
		return r, fmt.Errorf("first line is not %q", RegressionMagic)
	}
	for n, line := range lines[1:] {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			return r, fmt.Errorf("line %d: want \"key: value\", got %q", n+2, line)
		}
		k = strings.ToLower(strings.TrimSpace(k))
		if _, dup := r.Fields[k]; dup {
			return r, fmt.Errorf("line %d: key %q given twice", n+2, k)
		}
		r.Fields[k] = strings.TrimSpace(v)
	}
	r.Op = strings.ReplaceAll(r.Fields["op"], "-", "_")
	switch r.Op {
	case "escape", "decode", "utf8_decode":
	case "":
		return r, fmt.Errorf("no op: line")
	default:
		return r, fmt.Errorf("unknown op %q (known: escape, decode, utf8_decode)", r.Op)
	}
	in, ok := r.Fields["input"]
	if !ok {
		return r, fmt.Errorf("no input: line")
	}
	if in != "-" {
		b, err := hex.DecodeString(strings.Join(strings.Fields(in), ""))
		if err != nil {
			return r, fmt.Errorf("input: %v", err)
		}
		r.Input = b
	} else {
		r.Input = []byte{}
	}
	if f := strings.Fields(r.Fields["flags"]); len(f) > 0 {
		v, err := strconv.ParseUint(f[0], 10, 32)
		if err != nil {
			return r, fmt.Errorf("flags: %q is not a decimal 32-bit value", f[0])
		}
		r.Flags = uint32(v)
	} else if r.Op == "escape" {
		return r, fmt.Errorf("no flags: line for escape")
	}
	r.Impl = r.Fields["impl"]
	r.Kind = r.Fields["kind"]
	return r, nil
}
