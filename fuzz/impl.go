// Package fuzz is difffuzz's differential harness: it runs candidate implementations of PHP's
// json_encode string escaper and php_next_utf8_char decoder side by side with the oracle over
// input spaces (DESIGN.md §3), compares them (errors first, then bytes; decoder steps by code
// point, advance and status) and reports every difference as a Finding (DESIGN.md §4).
package fuzz

import (
	"fmt"
	"strings"

	"github.com/difffuzz/difffuzz/fast"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
)

// Op names one function under test; the values are target protocol v1's operation names.
type Op string

// The three operations under test (DESIGN.md §2).
const (
	OpEscape     Op = "escape"      // json_encode of one string (spec §1)
	OpDecode     Op = "decode"      // php_next_utf8_char steps (spec §2)
	OpUTF8Decode Op = "utf8_decode" // utf8_decode (spec §3.1)
)

// AllOps lists every operation, in report order.
var AllOps = []Op{OpEscape, OpDecode, OpUTF8Decode}

// ParseOps reads a comma-separated list of operations ("escape,decode"; "utf8-decode" is
// accepted for utf8_decode; empty entries are skipped, as Candidates does); "" or "all" is
// every operation.
func ParseOps(s string) ([]Op, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		return AllOps, nil
	}
	seen := map[Op]bool{}
	for _, f := range strings.Split(s, ",") {
		op := Op(strings.ReplaceAll(strings.TrimSpace(f), "-", "_"))
		switch op {
		case "":
		case OpEscape, OpDecode, OpUTF8Decode:
			seen[op] = true
		default:
			return nil, fmt.Errorf("unknown operation %q (known: escape, decode, utf8_decode)", f)
		}
	}
	var ops []Op
	for _, op := range AllOps {
		if seen[op] {
			ops = append(ops, op)
		}
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("no operation named in %q", s)
	}
	return ops, nil
}

// Impl is one implementation of the three functions, under a name that findings report.
// A nil function means the implementation does not offer that operation.
type Impl struct {
	Name       string
	Escape     func(dst, src []byte, opts jsonopt.Options) ([]byte, error)
	NextChar   func(s []byte, pos int) jsonopt.Step
	UTF8Decode func(dst, src []byte) []byte

	// ShortLen and Short say that for every input shorter than ShortLen bytes the functions
	// run Short's code (fast's variants all begin by handing such input to fast.ShortEscape
	// and fast.ShortUTF8Decode: fast.ShortLen). The exhaustive spaces, whose inputs are all
	// that short, then run Short once per case for every implementation sharing it, and each
	// implementation's own entry point on a rotating sample (see runSpace). Zero: no such
	// sharing.
	ShortLen int
	Short    *Impl
}

// Has reports whether the implementation offers op.
func (im Impl) Has(op Op) bool {
	switch op {
	case OpEscape:
		return im.Escape != nil
	case OpDecode:
		return im.NextChar != nil
	case OpUTF8Decode:
		return im.UTF8Decode != nil
	}
	return false
}

// Oracle is the executable specification every candidate is compared with.
var Oracle = Impl{Name: "oracle", Escape: oracle.Escape, NextChar: oracle.NextChar, UTF8Decode: oracle.UTF8Decode}

// FastDefault is fast's dispatched entry point (the variant fast.Default() names).
var FastDefault = Impl{Name: "fast", Escape: fast.Escape, NextChar: fast.NextChar, UTF8Decode: fast.UTF8Decode,
	ShortLen: fast.ShortLen, Short: &fastShort}

// fastShort is the code every fast variant runs for inputs shorter than fast.ShortLen.
var fastShort = Impl{Name: "fast-short", Escape: fast.ShortEscape, NextChar: fast.NextChar, UTF8Decode: fast.ShortUTF8Decode}

func fromVariant(v fast.Variant) Impl {
	return Impl{Name: v.Name, Escape: v.Escape, NextChar: v.NextChar, UTF8Decode: v.UTF8Decode,
		ShortLen: fast.ShortLen, Short: &fastShort}
}

// Builtins lists every built-in implementation by name: oracle, fast (the dispatched
// default) and every fast variant this CPU can run.
func Builtins() []Impl {
	out := []Impl{Oracle, FastDefault}
	for _, v := range fast.Variants() {
		out = append(out, fromVariant(v))
	}
	return out
}

// LookupImpl finds a built-in implementation by name (see Builtins).
func LookupImpl(name string) (Impl, error) {
	for _, im := range Builtins() {
		if im.Name == name {
			return im, nil
		}
	}
	return Impl{}, fmt.Errorf("unknown implementation %q (known: %s)", name, strings.Join(ImplNames(), ", "))
}

// ImplNames lists the names LookupImpl accepts.
func ImplNames() []string {
	var n []string
	for _, im := range Builtins() {
		n = append(n, im.Name)
	}
	return n
}

// Candidates resolves a comma-separated list of implementation names into the candidates a
// campaign compares with the oracle. "" or "all" means every fast variant (the dispatched
// default is one of them). Duplicates are dropped; order follows the list.
func Candidates(list string) ([]Impl, error) {
	list = strings.TrimSpace(list)
	if list == "" || list == "all" {
		var out []Impl
		for _, v := range fast.Variants() {
			out = append(out, fromVariant(v))
		}
		return out, nil
	}
	var out []Impl
	seen := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			continue
		}
		im, err := LookupImpl(n)
		if err != nil {
			return nil, err
		}
		seen[n] = true
		out = append(out, im)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no implementation named in %q", list)
	}
	return out, nil
}
