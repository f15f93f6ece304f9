package mutation

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"
)

// The seven hand-made mutants of php-src PR #24283 (../shared/seeds/000_53afc9d24bc4054a.txt),
// by the name they get as an Operator ("seed:accept-C0-C1").
var SeedNames = []string{
	"accept-C0-C1",        // C0 and C1 taken as 2-byte leads (overlong 2-byte forms)
	"accept-overlong-3",   // E0 80..9F xx accepted
	"accept-overlong-4",   // F0 80..8F xx xx accepted
	"skip-third-byte",     // the third byte of a 3-byte sequence not checked
	"advance-2-not-3",     // a valid 3-byte sequence advances the cursor by 2
	"accept-surrogate",    // ED A0..BF xx accepted
	"accept-above-10FFFF", // F4 90..BF xx xx (and F5..F7 forms the lead check lets through) accepted
}

// edit replaces old, which must occur exactly once in a function's body, by new.
type edit struct{ old, new string }

// The byte-mask copies of the §2.2 validity rule (utf8Decode, escapeSmall, validFrom, escapeMB,
// validLen) share their conditions' text, apart from the lead check and the cursor advance.
func maskCopy(lead, advance edit) [7]edit {
	return [7]edit{
		lead,
		{"cp >= 0x800 && ", ""},
		{"cp-0x10000 <= 0x10FFFF-0x10000", "cp <= 0x10FFFF"},
		{"b1&0xC0 == 0x80 && b2&0xC0 == 0x80 && cp >= 0x800", "b1&0xC0 == 0x80 && cp >= 0x800"},
		advance,
		{" && cp&0xF800 != 0xD800", ""},
		{"cp-0x10000 <= 0x10FFFF-0x10000", "cp >= 0x10000"},
	}
}

// seedCopies are, for each copy of the UTF-8 validity rule in package fast written in Go (file,
// then function), the seven seed mutants in SeedNames order as edits of its source.
var seedCopies = map[string]map[string][7]edit{
	"fast/decode.go": {
		"decodeValid": {
			{"case c < 0xC2:", "case c < 0xC0:"},
			{"cp >= 0x800 && ", ""},
			{"cp-0x10000 <= 0x10FFFF-0x10000", "cp <= 0x10FFFF"},
			{"isTrail(c1) && isTrail(c2) && cp >= 0x800", "isTrail(c1) && cp >= 0x800"},
			{"return cp, 3", "return cp, 2"},
			{" && cp&0xF800 != 0xD800", ""},
			{"cp-0x10000 <= 0x10FFFF-0x10000", "cp >= 0x10000"},
		},
		"nextCharSlow": {
			{"case c < 0xC2:", "case c < 0xC0:"},
			{"cp < 0x800 || ", ""},
			{"cp < 0x10000 || ", ""},
			{"avail >= 3 && isTrail(s[pos+1]) && isTrail(s[pos+2])", "avail >= 3 && isTrail(s[pos+1])"},
			{"Advance: 3, OK: true", "Advance: 2, OK: true"},
			{" || (cp >= 0xD800 && cp <= 0xDFFF)", ""},
			{" || cp > 0x10FFFF", ""},
		},
		"utf8Decode": maskCopy(edit{"c-0xC2 <= 0xDF-0xC2", "c-0xC0 <= 0xDF-0xC0"}, edit{"i += 3", "i += 2"}),
	},
	"fast/escape.go": {
		"escapeSmall": maskCopy(edit{"case b < 0xC2:", "case b < 0xC0:"}, edit{"w = 3", "w = 2"}),
		"validFrom":   maskCopy(edit{"case b < 0xC2:", "case b < 0xC0:"}, edit{"i += 3", "i += 2"}),
		"escapeMB":    maskCopy(edit{"case b < 0xC2:", "case b < 0xC0:"}, edit{"i += 3", "i += 2"}),
		"validLen":    maskCopy(edit{"case b < 0xC2:", "case b < 0xC0:"}, edit{"return 3", "return 2"}),
	},
}

// SeedCopies lists the functions of file that have the seed mutants, sorted.
func SeedCopies(file string) []string {
	var out []string
	for fn := range seedCopies[file] {
		out = append(out, fn)
	}
	slices.Sort(out)
	return out
}

// Seeds returns the seed mutants (SeedNames, Operator "seed:NAME") of the copies of the
// validity rule in file that are among funcs (all of them when funcs is empty), in source
// order. It fails when a copy's text no longer holds an edit exactly once: the table above
// must follow the code.
func Seeds(file string, src []byte, funcs []string) ([]Mutant, error) {
	copies := seedCopies[file]
	if len(copies) == 0 {
		return nil, nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []Mutant
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		edits, ok := copies[fd.Name.Name]
		if !ok || (len(funcs) > 0 && !slices.Contains(funcs, fd.Name.Name)) {
			continue
		}
		tf := fset.File(fd.Pos())
		bodyOff, bodyEnd := tf.Offset(fd.Body.Pos()), tf.Offset(fd.Body.End())
		body := string(src[bodyOff:bodyEnd])
		for k, e := range edits {
			if n := strings.Count(body, e.old); n != 1 {
				return nil, fmt.Errorf("%s: %s: seed mutant %s: %q occurs %d times, want once", file, fd.Name.Name, SeedNames[k], e.old, n)
			}
			off := bodyOff + strings.Index(body, e.old)
			end := off + len(e.old)
			p, q := tf.Position(tf.Pos(off)), tf.Position(tf.Pos(end))
			out = append(out, Mutant{File: file, Func: fd.Name.Name, Line: p.Line, Col: p.Column, EndLine: q.Line, EndCol: q.Column,
				Operator: Operator("seed:" + SeedNames[k]), Original: e.old, Mutated: e.new, off: off, end: end})
		}
	}
	slices.SortStableFunc(out, func(a, b Mutant) int { return a.off - b.off })
	return out, nil
}

// SeedEquivalent are the seed mutants (seed name, copy) that change nothing a caller can see,
// so that no killer can kill them, each with the reason. The equivalence phase proves them on
// their exhaustive domains (`mutate --seeds`, make test-long; docs/mutation.md), and
// CheckSeedEquivalent fails that run when the proven set and this list differ; a run without
// the phase (`--seeds --equivalence=false`, make test) takes their survival as this list says
// (KnownSeedEquivalent) and fails on any other survivor.
var SeedEquivalent = map[[2]string]string{
	{"accept-overlong-3", "utf8Decode"}:   "utf8Decode's inline 3-byte block writes ? whether it accepts the sequence or not",
	{"accept-overlong-4", "utf8Decode"}:   "utf8Decode's inline 4-byte block writes ? whether it accepts the sequence or not",
	{"accept-surrogate", "utf8Decode"}:    "utf8Decode's inline 3-byte block writes ? whether it accepts the sequence or not",
	{"accept-above-10FFFF", "utf8Decode"}: "utf8Decode's inline 4-byte block writes ? whether it accepts the sequence or not",
	{"advance-2-not-3", "nextCharSlow"}:   "nextCharSlow's 3-byte success exit is never reached: decodeValid takes every valid sequence first",
}

// seedKey is a seed mutant's key in SeedEquivalent, false for a mutant that is no seed mutant.
func seedKey(r Result) ([2]string, bool) {
	name, ok := strings.CutPrefix(string(r.Operator), "seed:")
	return [2]string{name, r.Func}, ok
}

// KnownSeedEquivalent marks the seed mutants of SeedEquivalent that survived every killer as
// Equivalent without an equivalence run (Domain says where the proof is) and returns how many.
// Any other survivor stays Survived.
func KnownSeedEquivalent(results []Result) int {
	n := 0
	for i, r := range results {
		key, ok := seedKey(r)
		if why, known := SeedEquivalent[key]; ok && known && r.Outcome == Survived {
			results[i].Outcome = Equivalent
			results[i].Domain = "known, not proven in this run (" + why + "; proven by mutate --seeds with the equivalence phase, make test-long)"
			n++
		}
	}
	return n
}

// CheckSeedEquivalent compares the seed mutants an equivalence run proved equivalent with
// SeedEquivalent, for the copies among results: it returns one line for each that the list
// names and the run did not prove, and for each the run proved and the list does not name.
func CheckSeedEquivalent(results []Result) []string {
	var out []string
	for _, r := range results {
		key, ok := seedKey(r)
		if !ok {
			continue
		}
		_, listed := SeedEquivalent[key]
		switch {
		case listed && r.Outcome != Equivalent:
			out = append(out, fmt.Sprintf("seed mutant %s in %s is listed as equivalent (mutation.SeedEquivalent) but came out %s", key[0], key[1], r.Outcome))
		case !listed && r.Outcome == Equivalent:
			out = append(out, fmt.Sprintf("seed mutant %s in %s was proven equivalent but mutation.SeedEquivalent does not list it", key[0], key[1]))
		}
	}
	return out
}
