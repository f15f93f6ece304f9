package mutation

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// DefaultKillers are the killers, cheapest first: the spec tables, package fast's unit tests,
// and package fuzz's differential tests of the built-ins against the oracle (-short: the
// exhaustive sample, the boundary placements, the properties, random inputs and the fuzz
// corpus and regression replay).
var DefaultKillers = []Killer{
	{Name: "tables", Pkg: "./fast", Run: "^(TestNextChar|TestEscapeFacts|TestUTF8DecodeFacts|TestModelFacts)$", Short: true},
	{Name: "kernel", Pkg: "./fast", Run: "^TestKernelPairs$", Short: true}, // every byte pair through the vector kernels' lanes
	{Name: "unit", Pkg: "./fast", Short: true, Skip: "^(TestLong|TestKernelPairs)$"},
	{Name: "fuzz", Pkg: "./fuzz", Short: true, Args: []string{"-seed=1"}, // the properties' gopter seed: killers are deterministic
		Run: "^(TestExhaustive|TestExhaustiveShortSpotCheck|TestBoundary|TestProperties|TestRandomBuiltins|TestSeedCorpus|TestRegressions|TestEqualShort)$"},
	{Name: "long", Pkg: "./fast", Short: true, Run: "^TestLong$"},
}

// The functions of package fast each exhaustive domain reaches: a mutant is equivalent when it
// passes the domain of every operation that reaches its function.
var (
	decodeFuncs = []string{"isTrail", "isLead", "NextChar", "decodeValid", "fail", "nextCharSlow"}
	utf8Funcs   = []string{"isTrail", "isLead", "decodeValid", "fail", "nextCharSlow", "asciiEnd", "utf8Decode", "reserve"}
)

// equivalenceKillers prove survivors equivalent on the exhaustive domain of their function:
// difffuzz's own exhaustive spaces (and, for the escaper, the 1-3-byte strings embedded at
// the 16/32/64-byte edges), every variant, run from the mutant's build; a finding is a gap in
// the killers' tests, and the first one is its witness.
var equivalenceKillers = []Killer{
	{Name: "decode-domain", Pkg: "./cmd/difffuzz", Main: true, Shard: true, Funcs: decodeFuncs,
		Args:   []string{"--exhaustive", "--ops", "decode", "--impl", "all", "--examples", "0", "--findings", "{evidence}"},
		Domain: "NextChar on every 1-4-byte string"},
	{Name: "utf8-decode-domain", Pkg: "./cmd/difffuzz", Main: true, Shard: true, Funcs: utf8Funcs,
		Args:   []string{"--exhaustive", "--ops", "utf8_decode", "--impl", "all", "--examples", "0", "--findings", "{evidence}"},
		Domain: "utf8_decode on every 1-4-byte string"},
	{Name: "escape-domain", Pkg: "./cmd/difffuzz", Main: true, Shard: true, Except: append([]string{"utf8Decode"}, tableFuncs...), // only utf8_decode calls it
		Args: []string{"--exhaustive", "--full-options", "--boundary", "--boundary-families", "embed1,embed2,embed3", "--ops", "escape", "--impl", "all",
			"--examples", "0", "--findings", "{evidence}"},
		Domain: "json_encode on every 1-3-byte string under all 2,048 option sets and embedded at the 16/32/64-byte edges"},
	{Name: "kernel-embed-domain", Pkg: "./cmd/difffuzz", Main: true, // Funcs: the assembly functions among the mutants (EquivalenceFor)
		Args: []string{"--boundary", "--boundary-families", "embed1,embed2,embed3", "--ops", "escape,utf8_decode", "--impl", "all",
			"--examples", "0", "--findings", "{evidence}"},
		Domain: "json_encode and utf8_decode on every 1-3-byte string embedded at the 16/32/64-byte edges (the vector kernels run on 16 bytes or more only)"},
	{Name: "kernel-domain", Pkg: "./fast", Run: "^TestKernelPairs$", Funcs: tableFuncs, Args: []string{"-kernel.domain"},
		Domain: "the UNESCAPED_UNICODE kernels (alone and with UNESCAPED_LINE_TERMINATORS and HEX_TAG) on every byte pair (and lead, continuation and other bytes as triples and quadruples) inside each 16-byte lane and across the lane and block edges of 80-byte strings"},
}

// tableFuncs are the UTF-8 validation tables of the vector kernels (table-bit-flip mutants):
// the kernels read them only under UNESCAPED_UNICODE, on strings of 16 bytes or more, and a
// table entry is reached by the pair of bytes whose nibbles index it.
var tableFuncs = []string{"utf8consts", "utf8lookupNEON"}

// lookupBytes are how many bytes of each table symbol the nibble lookups read; the rest of
// utf8consts are other kernels' constants, which the kernel domain does not reach.
var lookupBytes = map[string]int{"utf8consts": 96, "utf8lookupNEON": 48}

// EquivalenceFor is the equivalence killers for the mutants of these targets: the functions
// of the assembly files among them but the tables go to the kernel-embed domain instead of
// the escape domain, whose 1-3-byte strings never reach a vector kernel.
func EquivalenceFor(targets []Target) []Killer {
	var asm []string
	for _, t := range targets {
		for _, m := range t.Mutants {
			if !strings.HasSuffix(m.File, ".s") || slices.Contains(asm, m.Func) {
				continue
			}
			if !slices.Contains(tableFuncs, m.Func) || m.TableByte() >= lookupBytes[m.Func] {
				asm = append(asm, m.Func) // a byte past the lookup tables (--all): the constants clean16 reads too
			}
		}
	}
	out := slices.Clone(equivalenceKillers)
	for i, k := range out {
		switch k.Name {
		case "escape-domain":
			out[i].Except = append(slices.Clone(k.Except), asm...)
		case "kernel-embed-domain":
			out[i].Funcs = asm
		}
	}
	if len(asm) == 0 {
		out = slices.DeleteFunc(out, func(k Killer) bool { return k.Name == "kernel-embed-domain" })
	}
	return out
}

// ChooseKillers is the --killers list of DefaultKillers, in the order given ("": all).
func ChooseKillers(list string) ([]Killer, error) {
	if list == "" {
		return DefaultKillers, nil
	}
	var out []Killer
	for name := range strings.SplitSeq(list, ",") {
		i := slices.IndexFunc(DefaultKillers, func(k Killer) bool { return k.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("--killers: unknown killer %q (killers: %s)", name, KillerNames(DefaultKillers))
		}
		out = append(out, DefaultKillers[i])
	}
	return out, nil
}

// KillerNames is the killers' names, comma-separated.
func KillerNames(ks []Killer) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.Name
	}
	return strings.Join(names, ",")
}

// baselineText is each killer's baseline time: "tables 1.2s, unit 3.4s".
func baselineText(ks []Killer, base []time.Duration) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = fmt.Sprintf("%s %s", k.Name, base[i].Round(time.Millisecond))
	}
	return strings.Join(parts, ", ")
}
