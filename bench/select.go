package bench

import (
	"fmt"
	"slices"
	"strings"

	"github.com/difffuzz/difffuzz/fast"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/protocol"
)

// SelectCells is the cells of ops (nil: the defaults) and of the cells' other flags: corpora
// and sizes (comma-separated; "": the defaults), options (option sets separated by spaces,
// each PHP names joined by | or a decimal, "default" for none). A value given twice is an
// error.
func SelectCells(ops []protocol.Op, corpora, sizes, options string) ([]Cell, error) {
	sel, err := parseSelection(ops, corpora, sizes, options)
	if err != nil {
		return nil, err
	}
	return Cells(sel)
}

// parseSelection reads the flags of SelectCells.
func parseSelection(ops []protocol.Op, corpora, sizes, options string) (Selection, error) {
	sel := Selection{Ops: ops}
	var err error
	if corpora != "" {
		sel.Corpora = strings.Split(corpora, ",")
		for i := range sel.Corpora {
			sel.Corpora[i] = strings.TrimSpace(sel.Corpora[i])
			if slices.Contains(sel.Corpora[:i], sel.Corpora[i]) {
				return sel, fmt.Errorf("--corpus: %s is given twice", sel.Corpora[i])
			}
		}
	}
	if sizes != "" {
		if sel.Sizes, err = ParseSizes(sizes); err != nil {
			return sel, fmt.Errorf("--sizes: %v", err)
		}
		for i, n := range sel.Sizes {
			if slices.Contains(sel.Sizes[:i], n) {
				return sel, fmt.Errorf("--sizes: %d bytes are given twice", n)
			}
		}
	}
	for _, f := range strings.Fields(options) {
		o := jsonopt.Options(0)
		if f != "default" {
			if o, err = jsonopt.Parse(f); err != nil {
				return sel, fmt.Errorf("--options %q: %v", f, err)
			}
		}
		if slices.Contains(sel.Options, o) {
			return sel, fmt.Errorf("--options: %q is given twice", f)
		}
		sel.Options = append(sel.Options, o)
	}
	return sel, nil
}

// implsOf resolves a list of in-process implementations (--impl): oracle, fast (the
// dispatching entry point), the variants by name, all (the oracle and every variant).
func implsOf(list string) ([]Impl, error) {
	all := Impls()
	var out []Impl
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		switch name {
		case "all":
			out = append(out, all...)
			continue
		case "fast":
			out = append(out, Impl{Name: "fast", Escape: fast.Escape, NextChar: fast.NextChar, UTF8Decode: fast.UTF8Decode})
			continue
		}
		i := slices.IndexFunc(all, func(im Impl) bool { return im.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("no implementation %q on this CPU (there are: oracle, fast, %s, all)", name, strings.Join(FastNames(), ", "))
		}
		out = append(out, all[i])
	}
	seen := map[string]bool{}
	for _, im := range out {
		if seen[im.Name] {
			return nil, fmt.Errorf("%s is given twice", im.Name)
		}
		seen[im.Name] = true
	}
	return out, nil
}

// FastNames are the names of the fast variants this CPU runs.
func FastNames() []string {
	var out []string
	for _, im := range Impls()[1:] {
		out = append(out, im.Name)
	}
	return out
}
