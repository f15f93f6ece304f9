package fuzz

import (
	"fmt"
	"testing"

	"github.com/difffuzz/difffuzz/internal/spectest"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// The native fuzz targets. Their signatures are frozen: the seed corpus in
// testdata/fuzz/<Target>/ and every saved finding (SaveFinding) depend on them.
//
//	FuzzEscape(t, data []byte, flags uint32)   json_encode(data, flags): every candidate vs the oracle
//	FuzzNextChar(t, data []byte)               php_next_utf8_char at every position of data
//	FuzzUTF8Decode(t, data []byte)             utf8_decode(data)
//
// Each compares every registered implementation (the dispatched default and every fast
// variant this CPU runs) with the oracle through DefaultCheck. Seeds: the committed files
// under testdata/fuzz/<Target>/ (the named corpora at 16 B and 4 KiB and every stored
// regression, written by `go generate ./fuzz`; see TestSeedCorpus), any finding copied there,
// and the spec facts added below. Plain `go test` runs every seed; `make fuzz` fuzzes each
// target for a count budget:
//
//	go test ./fuzz -run '^$' -fuzz '^FuzzEscape$' -fuzztime 200000x

// fuzzCands are the candidates of the native targets: every built-in but the oracle.
func fuzzCands() []Impl {
	var out []Impl
	for _, im := range Builtins() {
		if im.Name != Oracle.Name {
			out = append(out, im)
		}
	}
	return out
}

func reportFindings(t *testing.T, fs []*Finding) {
	t.Helper()
	for _, f := range fs {
		t.Errorf("%s", f)
	}
}

func FuzzEscape(f *testing.F) {
	for _, x := range spectest.Escape {
		f.Add(x.In, uint32(x.Flags))
		f.Add(x.In, uint32(jsonopt.InvalidUTF8Substitute|jsonopt.UnescapedUnicode))
	}
	for _, x := range spectest.Numeric { // JSON_NUMERIC_CHECK: numbers and near-misses
		f.Add(x.In, uint32(x.Flags))
		f.Add(x.In, uint32(x.Flags|jsonopt.PreserveZeroFraction|jsonopt.InvalidUTF8Substitute))
	}
	cands := fuzzCands()
	f.Fuzz(func(t *testing.T, data []byte, flags uint32) {
		var c Checker
		reportFindings(t, DefaultCheck(&c, nil, OpEscape, cands, data, jsonopt.Options(flags)))
	})
}

func FuzzNextChar(f *testing.F) {
	for _, x := range spectest.UTF8Decode {
		f.Add(x.In)
	}
	for _, x := range spectest.Escape {
		f.Add(x.In)
	}
	cands := fuzzCands()
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Checker
		fs := DefaultCheck(&c, nil, OpDecode, cands, data, 0)
		if len(fs) == 0 {
			fs = stepsAtEveryPosition(cands, data)
		}
		reportFindings(t, fs)
	})
}

// stepsAtEveryPosition compares one decoder step at every position of data, not only where
// the oracle's walk from 0 stops: the contract is per position (a decoder may be called
// anywhere, e.g. by a caller that skips ASCII itself).
func stepsAtEveryPosition(cands []Impl, data []byte) []*Finding {
	in := make([]byte, len(data))
	for _, im := range cands {
		copy(in, data)
		for pos := 0; pos < len(data); pos++ {
			want := Oracle.NextChar(data, pos)
			got, p := safeNextChar(im.NextChar, in, pos)
			switch {
			case p != nil:
				return []*Finding{{Kind: KindPanic, Op: OpDecode, Impl: im.Name, Input: clone(data), Pos: pos, WantStep: want,
					Detail: "called at a position off the oracle's walk: " + fmt.Sprint(p)}}
			case got != want:
				return []*Finding{{Kind: KindStep, Op: OpDecode, Impl: im.Name, Input: clone(data), Pos: pos, WantStep: want, GotStep: got,
					Detail: "called at a position off the oracle's walk"}}
			}
		}
	}
	return nil
}

func FuzzUTF8Decode(f *testing.F) {
	for _, x := range spectest.UTF8Decode {
		f.Add(x.In)
	}
	cands := fuzzCands()
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Checker
		reportFindings(t, DefaultCheck(&c, nil, OpUTF8Decode, cands, data, 0))
	})
}
