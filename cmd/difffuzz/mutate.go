package main

import (
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
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
	"github.com/difffuzz/difffuzz/internal/progress"
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
	a := newMutateArgs(stderr)
	if err := a.parse(args); err != nil {
		return exitUsage, err
	}
	files, total, err := a.mutants()
	if err != nil {
		return exitUsage, err
	}
	if *a.list {
		for _, f := range files {
			for _, m := range f.Mutants {
				fmt.Fprintf(stdout, "%4d  %-14s %s\n", m.ID, m.Func, m)
			}
		}
		fmt.Fprintf(stderr, "difffuzz: mutate: %s in %s\n", plural(uint64(total), "mutant"), plural(uint64(len(files)), "file"))
		return exitOK, nil
	}
	cfg := mutation.Config{Dir: *a.dir, Killers: a.killers, Workers: *a.workers, Matrix: *a.matrix, NoTrace: !*a.traceOn}
	if *a.equivalence {
		var ms []mutation.Mutant
		for _, f := range files {
			ms = append(ms, f.Mutants...)
		}
		cfg.Equivalence = equivalenceFor(ms)
	}
	start := time.Now()
	h := &mutateHooks{stderr: stderr, stop: make(chan struct{})}
	h.install(&cfg, total, len(files), a.killers, *a.workers)
	results, sum, err := mutation.Run(ctx, cfg, files)
	h.end()
	interrupted := false
	if err != nil && ctx.Err() != nil && results != nil {
		results, interrupted = decidedOnly(results, *a.equivalence, stderr), true
	} else if err != nil {
		return exitUsage, fmt.Errorf("mutate: %v", err)
	}
	var stale []string // the seed mutants proven or not proven equivalent against mutation.SeedEquivalent
	if *a.seedsOnly && !interrupted {
		if *a.equivalence {
			stale = mutation.CheckSeedEquivalent(results)
		} else if n := mutation.KnownSeedEquivalent(results); n > 0 {
			fmt.Fprintf(stderr, "difffuzz: mutate: %s survived every killer as mutation.SeedEquivalent says (equivalent, proven by the equivalence phase: make test-long); any other survivor counts\n",
				plural(uint64(n), "seed mutant"))
		}
	}
	score, err := a.write(results, files, sum, start, stdout, stderr)
	if err != nil {
		return exitUsage, err
	}
	if interrupted {
		return exitUsage, nil
	}
	for _, l := range stale {
		fmt.Fprintf(stderr, "difffuzz: mutate: %s\n", l)
	}
	if score < *a.threshold {
		fmt.Fprintf(stderr, "difffuzz: mutate: score %.1f%% is below --threshold %v%%\n", score, *a.threshold)
		return exitFindings, nil
	}
	if len(stale) > 0 {
		return exitFindings, nil
	}
	return exitOK, nil
}

// mutateArgs are mutate's flags, and the killers and targets they resolve to.
type mutateArgs struct {
	fs                                                         *flag.FlagSet
	targets                                                    targetList
	given                                                      map[string]string // what the user typed for each target
	dir, killerList, only                                      *string
	workers                                                    *int
	list, asmToo, traceOn, all, seedsOnly, matrix, equivalence *bool
	jsonOut                                                    *bool
	threshold                                                  *float64
	killers                                                    []mutation.Killer
}

// newMutateArgs defines mutate's flags.
func newMutateArgs(stderr io.Writer) *mutateArgs {
	fs := newFlagSet("mutate", stderr)
	a := &mutateArgs{fs: fs}
	fs.Var(&a.targets, "target", "a Go or Go assembly file of the module, PATH or PATH:FUNC,FUNC (repeatable; default: "+strings.Join(defaultMutateTargets, " and ")+")")
	a.dir = fs.String("dir", ".", "the difffuzz module directory (go test runs there)")
	a.workers = fs.Int("workers", 2, "mutants tested at once")
	a.killerList = fs.String("killers", "", "the killers to run, comma-separated, in order (default: all: "+killerNames(defaultKillers)+")")
	a.list = fs.Bool("list", false, "list the mutants and exit, without running any test")
	a.asmToo = fs.Bool("asm", false, "mutate the assembly that validates UTF-8 instead of the default targets (with --target: added to them, but for a file --target gives): "+strings.Join(asmMutateTargets, " and ")+" (branches, immediates, table bits; arm64 under qemu-aarch64)")
	a.traceOn = fs.Bool("trace", true, "run each top-level test of each killer once with every schema mutant traced; a mutant then runs only the tests in which its expression evaluated differently, and skips a killer in none of whose tests it did (--trace=false: every killer whole on every mutant, for killers whose tests share state)")
	a.only = fs.String("only", "", "run only the mutants with these ids (as --list numbers them), comma-separated; ranges like 10-20")
	a.all = fs.Bool("all", false, "mutate the packages fast and oracle whole (every Go file but tests, every function, every assembly file) instead of the default targets")
	a.seedsOnly = fs.Bool("seeds", false, "only the seven seed mutants of PR #24283 in each copy of the UTF-8 validity rule among the targets, with the seed table; with --equivalence=false the survivors mutation.SeedEquivalent lists count as equivalent, and with the equivalence phase the run fails (exit 1) when what it proves differs from that list")
	a.matrix = fs.Bool("matrix", false, "run every killer on every mutant and print the kill matrix")
	a.equivalence = fs.Bool("equivalence", true, "prove the mutants that survive every killer equivalent on the exhaustive domains of their function (difffuzz --exhaustive from the mutant's build, every variant), or find the gap in the killers' tests")
	a.jsonOut = fs.Bool("json", false, "print the results as a mutation-testing-elements report (JSON, schema version 2) instead of the table")
	a.threshold = fs.Float64("threshold", 0, "exit 1 when the mutation score ((killed + timed out) / (killed + timed out + survived), in %; equivalent and not viable mutants left out) is below this")
	return a
}

// parse parses and checks mutate's flags, and resolves the killers and the target files.
func (a *mutateArgs) parse(args []string) error {
	rest, err := parseFlags(a.fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("mutate: unexpected argument %q (targets are given with --target)", rest[0])
	}
	if *a.workers < 1 {
		return usagef("--workers: must be at least 1, not %d", *a.workers)
	}
	if !(*a.threshold >= 0 && *a.threshold <= 100) { // NaN too: no score is below it
		return usagef("--threshold: a percentage 0..100, not %v", *a.threshold)
	}
	if *a.list && *a.jsonOut {
		return usagef("--list and --json: --list prints the mutants as a table only")
	}
	if a.killers, err = chooseKillers(*a.killerList); err != nil {
		return err
	}
	if *a.dir == "" {
		*a.dir = "."
	}
	if st, err := os.Stat(*a.dir); err != nil || !st.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		return usagef("--dir %s: %v", *a.dir, err)
	}
	return a.resolveTargets()
}

// resolveTargets is the target files: --target, or by --all, --asm or the defaults; --asm adds
// the assembly files (as --target gives them when it names one).
func (a *mutateArgs) resolveTargets() error {
	if *a.all && *a.asmToo {
		return usagef("--all and --asm: --all takes every assembly file too")
	}
	var err error
	if len(a.targets) == 0 {
		switch {
		case *a.all:
			if a.targets, err = allMutateTargets(*a.dir); err != nil {
				return err
			}
		case *a.asmToo:
			a.targets = asmMutateTargets
		default:
			a.targets = defaultMutateTargets
		}
	} else if *a.all {
		return usagef("--all and --target: give one or the other")
	}
	if a.targets, a.given, err = moduleTargets(*a.dir, a.targets); err != nil {
		return err
	}
	if *a.asmToo {
		for _, t := range asmMutateTargets { // but a file given with --target: as given there
			file, _, _ := strings.Cut(t, ":")
			if !slices.ContainsFunc(a.targets, func(g string) bool { return targetFile(g) == file }) {
				a.targets = append(a.targets, t)
			}
		}
	}
	return nil
}

// mutants are the mutants of each target file (numbered across files, only those --only
// keeps) and their number.
func (a *mutateArgs) mutants() ([]mutation.Target, int, error) {
	var files []mutation.Target
	total := 0
	for _, t := range a.targets {
		f, err := a.fileMutants(t, total)
		if err != nil {
			return nil, 0, err
		}
		files = append(files, f)
		total += len(f.Mutants)
	}
	if total == 0 {
		return nil, 0, noMutants(*a.seedsOnly, a.targets)
	}
	if *a.only != "" {
		keep, firsts, err := parseIDs(*a.only)
		if err != nil {
			return nil, 0, err
		}
		if first := slices.Max(firsts); first > total {
			return nil, 0, usagef("--only: %d is past the last mutant, %d (--list numbers them)", first, total)
		}
		total = 0
		for i := range files {
			files[i].Mutants = slices.DeleteFunc(files[i].Mutants, func(m mutation.Mutant) bool { return !keep[m.ID] })
			total += len(files[i].Mutants)
		}
	}
	if total == 0 {
		return nil, 0, noMutants(*a.seedsOnly, a.targets)
	}
	return files, total, nil
}

// fileMutants reads target t (PATH or PATH:FUNC,...) and makes its mutants, numbered from
// after.
func (a *mutateArgs) fileMutants(t string, after int) (mutation.Target, error) {
	file, funcs, _ := strings.Cut(t, ":")
	typed := cmp.Or(a.given[t], t) // what the user typed, for the messages
	var names []string
	if funcs != "" {
		names = strings.Split(funcs, ",")
		if slices.Contains(names, "") {
			return mutation.Target{}, usagef("--target %q: an empty function name (PATH:FUNC,FUNC)", typed)
		}
	}
	asm := strings.HasSuffix(file, ".s")
	if !strings.HasSuffix(file, ".go") && !asm {
		return mutation.Target{}, usagef("--target %q: a Go or Go assembly file (PATH.go, PATH.s, or PATH:FUNC,...)", typed)
	}
	src, err := os.ReadFile(filepath.Join(*a.dir, file))
	if err != nil {
		return mutation.Target{}, usagef("--target %q: %v (run in the difffuzz module, or give --dir)", typed, err)
	}
	var ms []mutation.Mutant
	switch {
	case asm && !*a.seedsOnly:
		ms, err = mutation.AsmSites(file, src, names)
	case !*a.seedsOnly:
		ms, err = mutation.Sites(file, src, names)
	}
	if err != nil {
		return mutation.Target{}, usagef("--target %q: %v", typed, err)
	}
	seeds, err := mutation.Seeds(file, src, names)
	if err != nil {
		return mutation.Target{}, usagef("--target %q: %v", typed, err)
	}
	ms = append(ms, seeds...)
	for i := range ms {
		ms[i].ID = after + i + 1 // ids run on across files
	}
	return mutation.Target{File: file, Src: src, Mutants: ms}, nil
}

// mutateHooks are the run's progress lines: the start, a bar over the mutants, then the
// equivalence phase's runs and a heartbeat every two minutes.
type mutateHooks struct {
	stderr  io.Writer
	prog    fuzz.Progress // from the baseline on, until the equivalence phase
	eqStart time.Time
	mu      sync.Mutex // the heartbeat and the runs' lines
	stop    chan struct{}
	beat    sync.WaitGroup
}

// install sets cfg's Started, Progress, EquivalenceStarted and EquivalenceRun.
func (h *mutateHooks) install(cfg *mutation.Config, total, files int, ks []mutation.Killer, workers int) {
	cfg.Started = func(sum mutation.Summary) {
		fmt.Fprintf(h.stderr, "difffuzz: mutate: %s in %s (%d in schema builds, %d built or patched one by one); killers %s (baseline %s; traced runs %s); %d workers\n",
			plural(uint64(total), "mutant"), plural(uint64(files), "file"), sum.Schema, sum.Separate, killerNames(ks), baselineText(ks, sum.Baseline),
			sum.Trace.Round(time.Second), workers)
		h.prog = progress.New(h.stderr, "mutants")
		h.prog.Begin("mutate", uint64(total))
	}
	cfg.Progress = func(done, total int, r mutation.Result) { h.prog.Advance(1) }
	cfg.EquivalenceStarted = func(n int) {
		h.prog.End()
		h.prog = nil
		h.eqStart = time.Now()
		fmt.Fprintf(h.stderr, "difffuzz: mutate: %s survived every killer: proving equivalence on the exhaustive domains (one traced run per domain and shard for all of them, then a run of its own for each one a traced run cannot decide)\n",
			plural(uint64(n), "mutant"))
		h.beat.Go(h.heartbeat)
	}
	cfg.EquivalenceRun = func(killer string, shard, shards int, took time.Duration, complete bool) {
		h.mu.Lock()
		defer h.mu.Unlock()
		state := "done"
		if !complete {
			state = "did not finish within the limit"
		}
		name := killer
		if shards > 1 {
			name = fmt.Sprintf("%s shard %d/%d", killer, shard, shards)
		}
		fmt.Fprintf(h.stderr, "difffuzz: mutate: %s %s in %s\n", name, state, took.Round(time.Second))
	}
}

// heartbeat says every two minutes that the equivalence phase still runs, until end.
func (h *mutateHooks) heartbeat() {
	for {
		select {
		case <-h.stop:
			return
		case <-time.After(2 * time.Minute):
			h.mu.Lock()
			fmt.Fprintf(h.stderr, "difffuzz: mutate: proving equivalence, elapsed %s\n", time.Since(h.eqStart).Round(time.Second))
			h.mu.Unlock()
		}
	}
}

// end stops the heartbeat (one being written ends first) and the bar.
func (h *mutateHooks) end() {
	close(h.stop)
	h.beat.Wait()
	if h.prog != nil {
		h.prog.End()
	}
}

// decidedOnly is the results of an interrupted run that were decided (a survivor not yet
// checked for equivalence says so), said on stderr.
func decidedOnly(results []mutation.Result, equivalence bool, stderr io.Writer) []mutation.Result {
	decided := slices.DeleteFunc(slices.Clone(results), func(r mutation.Result) bool { return r.Outcome == "" })
	for i, r := range decided {
		if r.Outcome == mutation.Survived && r.Detail == "" && equivalence {
			decided[i].Detail = "interrupted before its equivalence check"
		}
	}
	fmt.Fprintf(stderr, "difffuzz: mutate: interrupted: %d of %s decided; the report covers those\n", len(decided), plural(uint64(len(results)), "mutant"))
	return decided
}

// write prints the results (the table, the matrix, the seed table and the gaps, or the
// mutation-testing-elements JSON) and the summary lines; it returns the score.
func (a *mutateArgs) write(results []mutation.Result, files []mutation.Target, sum mutation.Summary, start time.Time, stdout, stderr io.Writer) (float64, error) {
	score, counts := mutation.Score(results)
	if *a.jsonOut {
		sources := map[string][]byte{}
		for _, f := range files {
			sources[f.File] = f.Src
		}
		low := 60
		if *a.threshold > 0 {
			low = int(*a.threshold)
		}
		if err := mutation.WriteElements(stdout, results, sources, max(80, low), low); err != nil {
			return 0, err
		}
	} else {
		mutation.WriteText(stdout, results)
		if *a.matrix {
			fmt.Fprintln(stdout)
			mutation.WriteMatrix(stdout, results, a.killers)
		}
		if slices.ContainsFunc(results, func(r mutation.Result) bool { return strings.HasPrefix(string(r.Operator), "seed:") }) {
			fmt.Fprintln(stdout)
			mutation.WriteSeedTable(stdout, results)
		}
	}
	gaps := writeGaps(results, !*a.jsonOut, stdout)
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
	return score, nil
}

// writeGaps counts the gaps (mutants only the exhaustive domain killed) and, with show, lists
// each witness as a row for the table tests.
func writeGaps(results []mutation.Result, show bool, stdout io.Writer) int {
	gaps := 0
	for _, r := range results {
		if r.Gap {
			gaps++
		}
	}
	if gaps == 0 || !show {
		return gaps
	}
	fmt.Fprintf(stdout, "\n%s in the killers' tests: the exhaustive domain tells these mutants from the original, the killers do not. Each witness as a row for the table tests (the PHP conformance test re-checks spectest rows against real PHP):\n",
		plural(uint64(gaps), "gap"))
	for _, r := range results {
		if r.Gap {
			fmt.Fprintf(stdout, "  mutant %d, %s:%d:%d %s %s:\n    %s\n", r.ID, r.File, r.Line, r.Col, r.Func, strings.TrimSpace(r.String()[strings.Index(r.String(), " ")+1:]), gapRow(r))
		}
	}
	return gaps
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
