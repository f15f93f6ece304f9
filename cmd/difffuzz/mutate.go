package main

import (
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/difffuzz/difffuzz/fast"
	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/mutation"
)

// defaultMutateTargets are the functions of package fast that decode or validate UTF-8, and
// JSON_NUMERIC_CHECK's number path.
var defaultMutateTargets = []string{
	"fast/decode.go",
	"fast/escape.go:escapeSmall,validFrom,escapeMB,validLen,escapeRaw",
	"fast/number.go",
}

// asmMutateTargets (--asm) are the assembly that validates UTF-8: the AVX2 kernels of
// UNESCAPED_UNICODE and of the option sets without it (escapeMBAVX2, \uXXXX), the 16-byte
// clean check and the ASCII scans with the three Keiser–Lemire lookup tables (amd64), and
// their NEON counterparts with the validation macro and its tables (arm64, run under qemu).
// escapeMBAVX512 is among them only on a CPU that runs it (fast's avx512 variant is
// registered): elsewhere every mutant of it would survive unexecuted.
var asmMutateTargets = []string{
	"fast/escape_amd64.s:escapeUUAVX2,escapeMBAVX2," + avx512Target() + "clean16,lastNonASCIIAVX2,asciiEndAVX2,utf8consts[0:96]",
	"fast/escape_arm64.s:escapeUUNEON,escapeMBNEON,clean16NEON,UUCHECK,utf8lookupNEON",
}

// avx512Target is "escapeMBAVX512," when this machine runs fast's avx512 variant, else "".
func avx512Target() string {
	if _, ok := fast.Lookup("avx512"); ok {
		return "escapeMBAVX512,"
	}
	return ""
}

// allMutateTargets (--all) are the packages fast and oracle whole: every Go file that is not a
// test, every function, and every assembly file.
func allMutateTargets(dir string) ([]string, error) {
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

// defaultKillers are the killers, cheapest first: the spec tables, package fast's unit tests,
// and package fuzz's differential tests of the built-ins against the oracle (-short: the
// exhaustive sample, the boundary placements, the properties, random inputs and the fuzz
// corpus and regression replay).
var defaultKillers = []mutation.Killer{
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
var equivalenceKillers = []mutation.Killer{
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
	{Name: "kernel-embed-domain", Pkg: "./cmd/difffuzz", Main: true, // Funcs: the assembly functions among the mutants (equivalenceFor)
		Args: []string{"--boundary", "--boundary-families", "embed1,embed2,embed3", "--ops", "escape,utf8_decode", "--impl", "all",
			"--examples", "0", "--findings", "{evidence}"},
		Domain: "json_encode and utf8_decode on every 1-3-byte string embedded at the 16/32/64-byte edges (the vector kernels run on 16 bytes or more only)"},
	{Name: "kernel-domain", Pkg: "./fast", Run: "^TestKernelPairs$", Funcs: tableFuncs, Args: []string{"-kernel.domain"},
		Domain: "the UNESCAPED_UNICODE kernels (alone and with UNESCAPED_LINE_TERMINATORS and HEX_TAG) on every byte pair (and lead, continuation and other bytes as triples and quadruples) inside each 16-byte lane and across the lane and block edges of 80-byte strings"},
}

// rate prints a rate with a decimal below 10 (a slow run makes fewer than one a minute).
func rate(x float64) string {
	if x < 10 {
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 0, 64)
}

// equivalenceFor is equivalenceKillers for these mutants: the functions of the assembly
// files among them but the tables go to the kernel-embed domain instead of the escape
// domain, whose 1-3-byte strings never reach a vector kernel.
func equivalenceFor(mutants []mutation.Mutant) []mutation.Killer {
	var asm []string
	for _, m := range mutants {
		if !strings.HasSuffix(m.File, ".s") || slices.Contains(asm, m.Func) {
			continue
		}
		if !slices.Contains(tableFuncs, m.Func) || m.TableByte() >= lookupBytes[m.Func] {
			asm = append(asm, m.Func) // a byte past the lookup tables (--all): the constants clean16 reads too
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
		out = slices.DeleteFunc(out, func(k mutation.Killer) bool { return k.Name == "kernel-embed-domain" })
	}
	return out
}

// tableFuncs are the UTF-8 validation tables of the vector kernels (table-bit-flip mutants):
// the kernels read them only under UNESCAPED_UNICODE, on strings of 16 bytes or more, and a
// table entry is reached by the pair of bytes whose nibbles index it.
var tableFuncs = []string{"utf8consts", "utf8lookupNEON"}

// lookupBytes are how many bytes of each table symbol the nibble lookups read; the rest of
// utf8consts are other kernels' constants, which the kernel domain does not reach.
var lookupBytes = map[string]int{"utf8consts": 96, "utf8lookupNEON": 48}

// runMutate is `difffuzz mutate`: mutation testing of the chosen functions (docs/DESIGN.md §7).
// Exit status: 1 when the score is below --threshold, 2 on a usage error or a killer that
// fails without any mutant, 0 otherwise.
func runMutate(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("mutate", stderr)
	var targets targetList
	fs.Var(&targets, "target", "a Go or Go assembly file of the module, PATH or PATH:FUNC,FUNC (repeatable; default: "+strings.Join(defaultMutateTargets, " and ")+")")
	dir := fs.String("dir", ".", "the difffuzz module directory (go test runs there)")
	workers := fs.Int("workers", 2, "mutants tested at once")
	killers := fs.String("killers", "", "the killers to run, comma-separated, in order (default: all: "+killerNames(defaultKillers)+")")
	list := fs.Bool("list", false, "list the mutants and exit, without running any test")
	asmToo := fs.Bool("asm", false, "mutate the assembly that validates UTF-8 instead of the default targets (with --target: added to them, but for a file --target gives): "+strings.Join(asmMutateTargets, " and ")+" (branches, immediates, table bits; arm64 under qemu-aarch64)")
	traceOn := fs.Bool("trace", true, "run each top-level test of each killer once with every schema mutant traced; a mutant then runs only the tests in which its expression evaluated differently, and skips a killer in none of whose tests it did (--trace=false: every killer whole on every mutant, for killers whose tests share state)")
	only := fs.String("only", "", "run only the mutants with these ids (as --list numbers them), comma-separated; ranges like 10-20")
	all := fs.Bool("all", false, "mutate the packages fast and oracle whole (every Go file but tests, every function, every assembly file) instead of the default targets")
	seedsOnly := fs.Bool("seeds", false, "only the seven seed mutants of PR #24283 in each copy of the UTF-8 validity rule among the targets, with the seed table; with --equivalence=false the survivors mutation.SeedEquivalent lists count as equivalent, and with the equivalence phase the run fails (exit 1) when what it proves differs from that list")
	matrix := fs.Bool("matrix", false, "run every killer on every mutant and print the kill matrix")
	equivalence := fs.Bool("equivalence", true, "prove the mutants that survive every killer equivalent on the exhaustive domains of their function (difffuzz --exhaustive from the mutant's build, every variant), or find the gap in the killers' tests")
	jsonOut := fs.Bool("json", false, "print the results as a mutation-testing-elements report (JSON, schema version 2) instead of the table")
	threshold := fs.Float64("threshold", 0, "exit 1 when the mutation score ((killed + timed out) / (killed + timed out + survived), in %; equivalent and not viable mutants left out) is below this")
	rest, err := parseFlags(fs, args, stderr, "difffuzz mutate [--target PATH[:FUNC,...]]... [--asm] [--all] [--seeds] [--only IDS] [--killers LIST] [--matrix] [--equivalence=false] [--trace=false] [--workers N] [--dir DIR] [--list] [--json] [--threshold P]")
	if err != nil {
		return exitUsage, err
	}
	if len(rest) > 0 {
		return exitUsage, usagef("mutate: unexpected argument %q (targets are given with --target)", rest[0])
	}
	if *workers < 1 {
		return exitUsage, usagef("--workers: must be at least 1, not %d", *workers)
	}
	if !(*threshold >= 0 && *threshold <= 100) { // NaN too: no score is below it
		return exitUsage, usagef("--threshold: a percentage 0..100, not %v", *threshold)
	}
	if *list && *jsonOut {
		return exitUsage, usagef("--list and --json: --list prints the mutants as a table only")
	}
	ks, err := chooseKillers(*killers)
	if err != nil {
		return exitUsage, err
	}
	if *dir == "" {
		*dir = "."
	}
	if st, err := os.Stat(*dir); err != nil || !st.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		return exitUsage, usagef("--dir %s: %v", *dir, err)
	}
	if *all && *asmToo {
		return exitUsage, usagef("--all and --asm: --all takes every assembly file too")
	}
	if len(targets) == 0 {
		switch {
		case *all:
			if targets, err = allMutateTargets(*dir); err != nil {
				return exitUsage, err
			}
		case *asmToo:
			targets = asmMutateTargets
		default:
			targets = defaultMutateTargets
		}
	} else if *all {
		return exitUsage, usagef("--all and --target: give one or the other")
	}
	var given map[string]string
	if targets, given, err = moduleTargets(*dir, targets); err != nil {
		return exitUsage, err
	}
	if *asmToo {
		for _, t := range asmMutateTargets { // but a file given with --target: as given there
			file, _, _ := strings.Cut(t, ":")
			if !slices.ContainsFunc(targets, func(g string) bool { return targetFile(g) == file }) {
				targets = append(targets, t)
			}
		}
	}
	type fileMutants struct {
		file    string
		src     []byte
		mutants []mutation.Mutant
	}
	var files []fileMutants
	total := 0
	for _, t := range targets {
		file, funcs, _ := strings.Cut(t, ":")
		typed := cmp.Or(given[t], t) // what the user typed, for the messages
		var names []string
		if funcs != "" {
			names = strings.Split(funcs, ",")
			if slices.Contains(names, "") {
				return exitUsage, usagef("--target %q: an empty function name (PATH:FUNC,FUNC)", typed)
			}
		}
		asm := strings.HasSuffix(file, ".s")
		if !strings.HasSuffix(file, ".go") && !asm {
			return exitUsage, usagef("--target %q: a Go or Go assembly file (PATH.go, PATH.s, or PATH:FUNC,...)", typed)
		}
		src, err := os.ReadFile(filepath.Join(*dir, file))
		if err != nil {
			return exitUsage, usagef("--target %q: %v (run in the difffuzz module, or give --dir)", typed, err)
		}
		var ms []mutation.Mutant
		switch {
		case asm && !*seedsOnly:
			if ms, err = mutation.AsmSites(file, src, names); err != nil {
				return exitUsage, usagef("--target %q: %v", typed, err)
			}
		case !*seedsOnly:
			if ms, err = mutation.Sites(file, src, names); err != nil {
				return exitUsage, usagef("--target %q: %v", typed, err)
			}
		}
		seeds, err := mutation.Seeds(file, src, names)
		if err != nil {
			return exitUsage, usagef("--target %q: %v", typed, err)
		}
		ms = append(ms, seeds...)
		for i := range ms {
			ms[i].ID = total + i + 1 // ids run on across files
		}
		files = append(files, fileMutants{file, src, ms})
		total += len(ms)
	}
	if total == 0 {
		return exitUsage, noMutants(*seedsOnly, targets)
	}
	if *only != "" {
		keep, firsts, err := parseIDs(*only)
		if err != nil {
			return exitUsage, err
		}
		if first := slices.Max(firsts); first > total {
			return exitUsage, usagef("--only: %d is past the last mutant, %d (--list numbers them)", first, total)
		}
		total = 0
		for i := range files {
			files[i].mutants = slices.DeleteFunc(files[i].mutants, func(m mutation.Mutant) bool { return !keep[m.ID] })
			total += len(files[i].mutants)
		}
	}
	if total == 0 {
		return exitUsage, noMutants(*seedsOnly, targets)
	}
	if *list {
		for _, f := range files {
			for _, m := range f.mutants {
				fmt.Fprintf(stdout, "%4d  %-14s %s\n", m.ID, m.Func, m)
			}
		}
		fmt.Fprintf(stderr, "difffuzz: mutate: %s in %s\n", plural(uint64(total), "mutant"), plural(uint64(len(files)), "file"))
		return exitOK, nil
	}
	cfg := mutation.Config{Dir: *dir, Killers: ks, Workers: *workers, Matrix: *matrix, NoTrace: !*traceOn}
	if *equivalence {
		var ms []mutation.Mutant
		for _, f := range files {
			ms = append(ms, f.mutants...)
		}
		cfg.Equivalence = equivalenceFor(ms)
	}
	start := time.Now()
	var prog fuzz.Progress // from the baseline on
	cfg.Started = func(sum mutation.Summary) {
		fmt.Fprintf(stderr, "difffuzz: mutate: %s in %s (%d in schema builds, %d built or patched one by one); killers %s (baseline %s; traced runs %s); %d workers\n",
			plural(uint64(total), "mutant"), plural(uint64(len(files)), "file"), sum.Schema, sum.Separate, killerNames(ks), baselineText(ks, sum.Baseline),
			sum.Trace.Round(time.Second), *workers)
		prog = newProgressOf(stderr, "mutants")
		prog.Begin("mutate", uint64(total))
	}
	cfg.Progress = func(done, total int, r mutation.Result) { prog.Advance(1) }
	var eqStart time.Time
	var eqMu sync.Mutex
	stopBeat := make(chan struct{})
	var beat sync.WaitGroup
	cfg.EquivalenceStarted = func(n int) {
		prog.End()
		prog = nil
		eqStart = time.Now()
		fmt.Fprintf(stderr, "difffuzz: mutate: %s survived every killer: proving equivalence on the exhaustive domains (one traced run per domain and shard for all of them, then a run of its own for each one a traced run cannot decide)\n",
			plural(uint64(n), "mutant"))
		beat.Go(func() {
			for {
				select {
				case <-stopBeat:
					return
				case <-time.After(2 * time.Minute):
					eqMu.Lock()
					fmt.Fprintf(stderr, "difffuzz: mutate: proving equivalence, elapsed %s\n", time.Since(eqStart).Round(time.Second))
					eqMu.Unlock()
				}
			}
		})
	}
	cfg.EquivalenceRun = func(killer string, shard, shards int, took time.Duration, complete bool) {
		eqMu.Lock()
		defer eqMu.Unlock()
		state := "done"
		if !complete {
			state = "did not finish within the limit"
		}
		name := killer
		if shards > 1 {
			name = fmt.Sprintf("%s shard %d/%d", killer, shard, shards)
		}
		fmt.Fprintf(stderr, "difffuzz: mutate: %s %s in %s\n", name, state, took.Round(time.Second))
	}
	endProgress := func() {
		if prog != nil {
			prog.End()
		}
	}
	var targetsRun []mutation.Target
	for _, f := range files {
		targetsRun = append(targetsRun, mutation.Target{File: f.file, Src: f.src, Mutants: f.mutants})
	}
	results, sum, err := mutation.Run(ctx, cfg, targetsRun)
	close(stopBeat)
	beat.Wait() // a heartbeat being written ends first
	endProgress()
	interrupted := false
	if err != nil && ctx.Err() != nil && results != nil {
		// interrupted: report what was decided
		decided := slices.DeleteFunc(slices.Clone(results), func(r mutation.Result) bool { return r.Outcome == "" })
		for i, r := range decided {
			if r.Outcome == mutation.Survived && r.Detail == "" && *equivalence {
				decided[i].Detail = "interrupted before its equivalence check"
			}
		}
		fmt.Fprintf(stderr, "difffuzz: mutate: interrupted: %d of %s decided; the report covers those\n", len(decided), plural(uint64(len(results)), "mutant"))
		results, interrupted = decided, true
	} else if err != nil {
		return exitUsage, fmt.Errorf("mutate: %v", err)
	}
	var stale []string // the seed mutants proven or not proven equivalent against mutation.SeedEquivalent
	if *seedsOnly && !interrupted {
		if *equivalence {
			stale = mutation.CheckSeedEquivalent(results)
		} else if n := mutation.KnownSeedEquivalent(results); n > 0 {
			fmt.Fprintf(stderr, "difffuzz: mutate: %s survived every killer as mutation.SeedEquivalent says (equivalent, proven by the equivalence phase: make test-long); any other survivor counts\n",
				plural(uint64(n), "seed mutant"))
		}
	}
	score, counts := mutation.Score(results)
	if *jsonOut {
		sources := map[string][]byte{}
		for _, f := range files {
			sources[f.file] = f.src
		}
		low := 60
		if *threshold > 0 {
			low = int(*threshold)
		}
		if err := mutation.WriteElements(stdout, results, sources, max(80, low), low); err != nil {
			return exitUsage, err
		}
	} else {
		mutation.WriteText(stdout, results)
		if *matrix {
			fmt.Fprintln(stdout)
			mutation.WriteMatrix(stdout, results, ks)
		}
		if slices.ContainsFunc(results, func(r mutation.Result) bool { return strings.HasPrefix(string(r.Operator), "seed:") }) {
			fmt.Fprintln(stdout)
			mutation.WriteSeedTable(stdout, results)
		}
	}
	gaps := 0
	for _, r := range results {
		if r.Gap {
			gaps++
		}
	}
	if gaps > 0 && !*jsonOut {
		fmt.Fprintf(stdout, "\n%s in the killers' tests: the exhaustive domain tells these mutants from the original, the killers do not. Each witness as a row for the table tests (the PHP conformance test re-checks spectest rows against real PHP):\n",
			plural(uint64(gaps), "gap"))
		for _, r := range results {
			if r.Gap {
				fmt.Fprintf(stdout, "  mutant %d, %s:%d:%d %s %s:\n    %s\n", r.ID, r.File, r.Line, r.Col, r.Func, strings.TrimSpace(r.String()[strings.Index(r.String(), " ")+1:]), gapRow(r))
			}
		}
	}
	var langs []string
	for lang, sc := range mutation.ScoreByLanguage(results) {
		langs = append(langs, fmt.Sprintf("%s %.1f%%", lang, sc))
	}
	slices.Sort(langs)
	fmt.Fprintf(stderr, "difffuzz: mutate: %s: %d killed (%d only by the exhaustive domain: gaps in the killers' tests), %d survived, %d equivalent, %d timed out, %d not viable; score %.1f%% (%s) in %s\n",
		plural(uint64(len(results)), "mutant"), counts[mutation.Killed], gaps, counts[mutation.Survived], counts[mutation.Equivalent],
		counts[mutation.TimedOut], counts[mutation.NotViable], score, strings.Join(langs, ", "), time.Since(start).Round(time.Second))
	if len(results) > 0 {
		el := make([]time.Duration, 0, len(results))
		for _, r := range results {
			el = append(el, r.Elapsed)
		}
		slices.Sort(el)
		wall := time.Since(start)
		fmt.Fprintf(stderr, "difffuzz: mutate: %s mutants a minute, median %s a mutant (its killers and equivalence runs); %d go builds for %d schema mutants and %d separate ones; the traced runs (%s) skipped %d killer runs and narrowed %d to the tests where the mutant diverged\n",
			rate(float64(len(results))/wall.Minutes()), el[len(el)/2].Round(10*time.Millisecond), sum.Builds, sum.Schema, sum.Separate, sum.Trace.Round(time.Second), sum.Skipped, sum.Narrowed)
	}
	if interrupted {
		return exitUsage, nil
	}
	for _, l := range stale {
		fmt.Fprintf(stderr, "difffuzz: mutate: %s\n", l)
	}
	if score < *threshold {
		fmt.Fprintf(stderr, "difffuzz: mutate: score %.1f%% is below --threshold %v%%\n", score, *threshold)
		return exitFindings, nil
	}
	if len(stale) > 0 {
		return exitFindings, nil
	}
	return exitOK, nil
}

// gapRow is the witness of a gap (the first finding of the equivalence killer that killed
// the mutant) as a row for a table test: spectest.Escape or spectest.UTF8Decode
// (internal/spectest/facts.go), or nextCharTests (fast/nextchar_test.go); the raw finding when
// it is none of those.
func gapRow(r mutation.Result) string {
	var f struct {
		Op       string `json:"op"`
		Input    string `json:"input"`
		Flags    uint32 `json:"flags"`
		Options  string `json:"options"`
		Want     string `json:"want"`
		WantErr  int    `json:"want_err"`
		Pos      int    `json:"pos"`
		WantStep string `json:"want_step"`
	}
	if json.Unmarshal([]byte(r.Evidence), &f) != nil {
		return "witness: " + cmp.Or(r.Evidence, r.Detail) // a test killer's: its failure
	}
	in, err1 := hex.DecodeString(f.Input)
	want, err2 := hex.DecodeString(f.Want)
	if err1 != nil || err2 != nil {
		return "witness: " + r.Evidence
	}
	note := fmt.Sprintf("difffuzz mutate: %s %s → %s", r.Func, r.Original, r.Mutated)
	switch f.Op {
	case "escape":
		w := strconv.Quote(string(want))
		if len(want) == 0 && f.WantErr != 0 { // json_encode returned false
			w = "nil"
		} else {
			w = "[]byte(" + w + ")"
		}
		return fmt.Sprintf("internal/spectest/facts.go, Escape:  {\"M%d\", []byte(%q), 0x%x /* %s */, %s, %d, %q},", r.ID, in, f.Flags, f.Options, w, f.WantErr, note)
	case "utf8_decode":
		return fmt.Sprintf("internal/spectest/facts.go, UTF8Decode:  {\"M%d\", []byte(%q), []byte(%q), %q},", r.ID, in, want, note)
	case "decode":
		cp, adv, ok := strings.Cut(f.WantStep, "/")
		if !ok {
			return "witness: " + r.Evidence
		}
		var step string
		if cp == "!" {
			step = fmt.Sprintf("jsonopt.Step{Advance: %s}", adv)
		} else {
			step = fmt.Sprintf("jsonopt.Step{CP: 0x%s, Advance: %s, OK: true}", strings.ToUpper(cp), adv)
		}
		return fmt.Sprintf("fast/nextchar_test.go, nextCharTests:  {%q, %q, %d, %s},", note, in, f.Pos, step)
	}
	return "witness: " + r.Evidence
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
			return nil, nil, usagef("--only: %q is not an id or a range of ids (1-based, FROM-TO)", part)
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
	return usagef("mutate: no %s in %s", what, strings.Join(targets, ", "))
}

// targetList collects --target.
type targetList []string

func (l *targetList) String() string { return strings.Join(*l, " ") }

func (l *targetList) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("an empty target (PATH or PATH:FUNC,FUNC)")
	}
	*l = append(*l, v)
	return nil
}

// moduleTargets checks the targets' files: each a file of a package that the module in dir
// builds (no test file, nothing under testdata or a directory starting with _ or .), each
// once. A target is kept as given, but for an absolute path inside dir, which becomes
// relative to it; given maps each target returned to what the user typed.
func moduleTargets(dir string, targets []string) (out []string, given map[string]string, err error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, usagef("--dir %s: %v", dir, err)
	}
	given = map[string]string{}
	seen := map[string]string{}
	for _, t := range targets {
		file, funcs, hasFuncs := strings.Cut(t, ":")
		switch {
		case file == "":
			return nil, nil, usagef("--target %q: no file (PATH or PATH:FUNC,FUNC)", t)
		case hasFuncs && funcs == "":
			return nil, nil, usagef("--target %q: no function after the colon (PATH for the whole file)", t)
		case filepath.IsAbs(file):
			rel, err := filepath.Rel(root, file)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return nil, nil, usagef("--target %q: not inside the module directory %s (give --dir)", t, root)
			}
			file = filepath.ToSlash(rel)
		}
		clean := targetFile(file)
		if strings.HasSuffix(clean, "_test.go") {
			return nil, nil, usagef("--target %q: a test file: mutate the code under test, which the tests then kill", t)
		}
		for _, part := range strings.Split(clean, "/") {
			if part == "testdata" || part == ".." || (len(part) > 1 && (part[0] == '_' || part[0] == '.')) {
				return nil, nil, usagef("--target %q: outside the packages the module builds (testdata, .., or a directory starting with _ or .)", t)
			}
		}
		if prev, ok := seen[clean]; ok {
			return nil, nil, usagef("--target %q: %s is already a target (%q): give its functions once, PATH:FUNC,FUNC", t, clean, prev)
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

// chooseKillers is the --killers list, in the order given.
func chooseKillers(list string) ([]mutation.Killer, error) {
	if list == "" {
		return defaultKillers, nil
	}
	var out []mutation.Killer
	for name := range strings.SplitSeq(list, ",") {
		i := slices.IndexFunc(defaultKillers, func(k mutation.Killer) bool { return k.Name == name })
		if i < 0 {
			return nil, usagef("--killers: unknown killer %q (killers: %s)", name, killerNames(defaultKillers))
		}
		out = append(out, defaultKillers[i])
	}
	return out, nil
}

func killerNames(ks []mutation.Killer) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.Name
	}
	return strings.Join(names, ",")
}

func baselineText(ks []mutation.Killer, base []time.Duration) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = fmt.Sprintf("%s %s", k.Name, base[i].Round(time.Millisecond))
	}
	return strings.Join(parts, ", ")
}
