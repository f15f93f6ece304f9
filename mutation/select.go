package mutation

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/difffuzz/difffuzz/fast"
)

// DefaultTargets are the functions of package fast that decode or validate UTF-8, and
// JSON_NUMERIC_CHECK's number path.
var DefaultTargets = []string{
	"fast/decode.go",
	"fast/escape.go:escapeSmall,validFrom,escapeMB,validLen,escapeRaw",
	"fast/number.go",
}

// AsmTargets (--asm) are the assembly that validates UTF-8 or writes escapes in blocks: the
// AVX2 kernels of UNESCAPED_UNICODE and of the option sets without it (escapeMBAVX2, \uXXXX),
// the ASCII kernels escapeAVX2 and escapeAVX2Tag (escape-dense blocks expanded by shuffle
// tables, sparse 2- and 3-byte sequences validated and written as \uXXXX) and their AVX-512
// forms (the 64-byte escape-dense loop; escapeShortMBAVX512 and escapeShortMBAVX512Y,
// escapeMBAVX512's one window for short strings, in Z and Y registers), the 16-byte clean
// check, the ASCII scans and the
// validity check of long strings (validAVX512) with the three Keiser–Lemire lookup tables
// (amd64), and their NEON counterparts with the validation
// macro and its tables, and the NEON ASCII kernel's block loop (arm64, run under qemu). The
// NoCtl forms of the ASCII kernels are left out: they are the same emitters without the
// control-byte step. The AVX-512 kernels are among them only on a CPU that runs them (fast's
// avx512 variant is registered): elsewhere every mutant of them would survive unexecuted.
var AsmTargets = []string{
	"fast/escape_amd64.s:escapeAVX2,escapeAVX2Tag," + avx512Target() + "escapeUUAVX2,escapeMBAVX2,clean16,lastNonASCIIAVX2,asciiEndAVX2,utf8consts[0:96]",
	"fast/escape_arm64.s:escapeBlocksNEON,BLOCKLOOP,escapeUUNEON,escapeMBNEON,clean16NEON,UUCHECK,utf8lookupNEON",
}

// avx512Target is the AVX-512 kernels' names, each followed by a comma, when this machine runs
// fast's avx512 variant, else "".
func avx512Target() string {
	if _, ok := fast.Lookup("avx512"); ok {
		return "escapeAVX512,escapeAVX512Tag,escapeUUAVX512,escapeMBAVX512,escapeShortMBAVX512,escapeShortMBAVX512Y,validAVX512,"
	}
	return ""
}

// Selection is which mutants a run takes: the targets (PATH or PATH:FUNC,FUNC; none: by
// All, Asm or DefaultTargets), in the module directory Dir.
type Selection struct {
	Dir     string
	Targets []string
	All     bool   // the packages fast and oracle whole
	Asm     bool   // AsmTargets too (but for a file Targets gives)
	Seeds   bool   // only the seed mutants
	Only    string // the ids to keep, "3,10-12" ("": all)
}

// Select checks the selection and makes its mutants: those of each target file, numbered
// across files, only those Only keeps; and their number. Its errors are one line each, about
// what the user gave.
func Select(sel Selection) ([]Target, int, error) {
	if st, err := os.Stat(sel.Dir); err != nil || !st.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		return nil, 0, fmt.Errorf("--dir %s: %v", sel.Dir, err)
	}
	targets, given, err := resolveTargets(sel)
	if err != nil {
		return nil, 0, err
	}
	var files []Target
	total := 0
	for _, t := range targets {
		f, err := fileMutants(sel, t, cmp.Or(given[t], t), total)
		if err != nil {
			return nil, 0, err
		}
		files = append(files, f)
		total += len(f.Mutants)
	}
	if total == 0 {
		return nil, 0, noMutants(sel.Seeds, targets)
	}
	if sel.Only != "" {
		keep, firsts, err := parseIDs(sel.Only)
		if err != nil {
			return nil, 0, err
		}
		if first := slices.Max(firsts); first > total {
			return nil, 0, fmt.Errorf("--only: %d is past the last mutant, %d (--list numbers them)", first, total)
		}
		total = 0
		for i := range files {
			files[i].Mutants = slices.DeleteFunc(files[i].Mutants, func(m Mutant) bool { return !keep[m.ID] })
			total += len(files[i].Mutants)
		}
	}
	if total == 0 {
		return nil, 0, noMutants(sel.Seeds, targets)
	}
	return files, total, nil
}

// resolveTargets is the target files: Targets, or by All, Asm or the defaults; Asm adds the
// assembly files (as Targets gives them when it names one). given maps each to what the
// user typed.
func resolveTargets(sel Selection) (targets []string, given map[string]string, err error) {
	if sel.All && sel.Asm {
		return nil, nil, errors.New("--all and --asm: --all takes every assembly file too")
	}
	targets = sel.Targets
	if len(targets) == 0 {
		switch {
		case sel.All:
			if targets, err = allTargets(sel.Dir); err != nil {
				return nil, nil, err
			}
		case sel.Asm:
			targets = AsmTargets
		default:
			targets = DefaultTargets
		}
	} else if sel.All {
		return nil, nil, errors.New("--all and --target: give one or the other")
	}
	if targets, given, err = moduleTargets(sel.Dir, targets); err != nil {
		return nil, nil, err
	}
	if sel.Asm {
		for _, t := range AsmTargets { // but a file given with --target: as given there
			file, _, _ := strings.Cut(t, ":")
			if !slices.ContainsFunc(targets, func(g string) bool { return targetFile(g) == file }) {
				targets = append(targets, t)
			}
		}
	}
	return targets, given, nil
}

// allTargets (--all) are the packages fast and oracle whole: every Go file that is not a
// test, every function, and every assembly file.
func allTargets(dir string) ([]string, error) {
	var out []string
	for _, pkg := range []string{"fast", "oracle"} {
		for _, pat := range []string{"*.go", "*.s"} {
			files, err := filepath.Glob(filepath.Join(dir, pkg, pat))
			if err != nil {
				return nil, err
			}
			for _, f := range files {
				if !strings.HasSuffix(f, "_test.go") {
					rel, _ := filepath.Rel(dir, f)
					out = append(out, rel)
				}
			}
		}
	}
	return out, nil
}

// fileMutants reads target t (PATH or PATH:FUNC,...; typed as the user typed it, for the
// messages) and makes its mutants, numbered from after.
func fileMutants(sel Selection, t, typed string, after int) (Target, error) {
	file, funcs, _ := strings.Cut(t, ":")
	var names []string
	if funcs != "" {
		names = strings.Split(funcs, ",")
		if slices.Contains(names, "") {
			return Target{}, fmt.Errorf("--target %q: an empty function name (PATH:FUNC,FUNC)", typed)
		}
	}
	asm := strings.HasSuffix(file, ".s")
	if !strings.HasSuffix(file, ".go") && !asm {
		return Target{}, fmt.Errorf("--target %q: a Go or Go assembly file (PATH.go, PATH.s, or PATH:FUNC,...)", typed)
	}
	src, err := os.ReadFile(filepath.Join(sel.Dir, file))
	if err != nil {
		return Target{}, fmt.Errorf("--target %q: %v (run in the difffuzz module, or give --dir)", typed, err)
	}
	var ms []Mutant
	switch {
	case asm && !sel.Seeds:
		ms, err = AsmSites(file, src, names)
	case !sel.Seeds:
		ms, err = Sites(file, src, names)
	}
	if err != nil {
		return Target{}, fmt.Errorf("--target %q: %v", typed, err)
	}
	seeds, err := Seeds(file, src, names)
	if err != nil {
		return Target{}, fmt.Errorf("--target %q: %v", typed, err)
	}
	ms = append(ms, seeds...)
	for i := range ms {
		ms[i].ID = after + i + 1 // ids run on across files
	}
	return Target{File: file, Src: src, Mutants: ms}, nil
}

// parseIDs reads --only: ids and ranges ("3,10-12"), and the first id of each (a range may
// run past the last mutant, its start may not).
func parseIDs(list string) (ids map[int]bool, firsts []int, err error) {
	out := map[int]bool{}
	for part := range strings.SplitSeq(list, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 1 || b < a || b-a > 1e6 {
			return nil, nil, fmt.Errorf("--only: %q is not an id or a range of ids (1-based, FROM-TO)", part)
		}
		for id := a; id <= b; id++ {
			out[id] = true
		}
		firsts = append(firsts, a)
	}
	return out, firsts, nil
}

// noMutants is the error of a run without any mutant.
func noMutants(seeds bool, targets []string) error {
	what := "mutants"
	if seeds {
		what = "seed mutants (the seven are made in the copies of the UTF-8 validity rule of package fast, see --list --seeds)"
	}
	return fmt.Errorf("mutate: no %s in %s", what, strings.Join(targets, ", "))
}

// moduleTargets checks the targets' files: each a file of a package that the module in dir
// builds (no test file, nothing under testdata or a directory starting with _ or .), each
// once. A target is kept as given, but for an absolute path inside dir, which becomes
// relative to it; given maps each target returned to what the user typed.
func moduleTargets(dir string, targets []string) (out []string, given map[string]string, err error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("--dir %s: %v", dir, err)
	}
	given = map[string]string{}
	seen := map[string]string{}
	for _, t := range targets {
		file, funcs, hasFuncs := strings.Cut(t, ":")
		switch {
		case file == "":
			return nil, nil, fmt.Errorf("--target %q: no file (PATH or PATH:FUNC,FUNC)", t)
		case hasFuncs && funcs == "":
			return nil, nil, fmt.Errorf("--target %q: no function after the colon (PATH for the whole file)", t)
		case filepath.IsAbs(file):
			rel, err := filepath.Rel(root, file)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return nil, nil, fmt.Errorf("--target %q: not inside the module directory %s (give --dir)", t, root)
			}
			file = filepath.ToSlash(rel)
		}
		clean := targetFile(file)
		if strings.HasSuffix(clean, "_test.go") {
			return nil, nil, fmt.Errorf("--target %q: a test file: mutate the code under test, which the tests then kill", t)
		}
		for _, part := range strings.Split(clean, "/") {
			if part == "testdata" || part == ".." || (len(part) > 1 && (part[0] == '_' || part[0] == '.')) {
				return nil, nil, fmt.Errorf("--target %q: outside the packages the module builds (testdata, .., or a directory starting with _ or .)", t)
			}
		}
		if prev, ok := seen[clean]; ok {
			return nil, nil, fmt.Errorf("--target %q: %s is already a target (%q): give its functions once, PATH:FUNC,FUNC", t, clean, prev)
		}
		seen[clean] = t
		if hasFuncs {
			file += ":" + funcs
		}
		out = append(out, file)
		given[file] = t
	}
	return out, given, nil
}

// targetFile is the file of a target, PATH or PATH:FUNC,..., as a clean slash path.
func targetFile(t string) string {
	file, _, _ := strings.Cut(t, ":")
	return filepath.ToSlash(filepath.Clean(file))
}
