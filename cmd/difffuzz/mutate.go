package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/mutation"
)

// defaultMutateTargets are the functions of package fast that decode or validate UTF-8.
var defaultMutateTargets = []string{
	"fast/decode.go",
	"fast/escape.go:escapeSmall,validFrom,escapeMB,validLen,escapeRaw",
}

// defaultKillers are the killers, cheapest first: the spec tables, package fast's unit tests,
// and package fuzz's differential tests of the built-ins against the oracle (-short: the
// exhaustive sample, the boundary placements, the properties, random inputs and the fuzz
// corpus and regression replay).
var defaultKillers = []mutation.Killer{
	{Name: "tables", Pkg: "./fast", Run: "^(TestNextChar|TestEscapeFacts|TestUTF8DecodeFacts|TestModelFacts)$", Short: true},
	{Name: "unit", Pkg: "./fast", Short: true},
	{Name: "fuzz", Pkg: "./fuzz", Short: true,
		Run: "^(TestExhaustive|TestExhaustiveShortSpotCheck|TestBoundary|TestProperties|TestRandomBuiltins|TestSeedCorpus|TestRegressions|TestEqualShort)$"},
}

// equivalenceKiller proves a survivor equivalent: the whole exhaustive sweep of every variant.
var equivalenceKiller = mutation.Killer{Name: "exhaustive", Pkg: "./fuzz", Run: "^TestExhaustive$",
	Domain: "every 1-4-byte input of NextChar and utf8_decode, every 1-3-byte input of json_encode under every option set (fuzz.TestExhaustive, every variant)"}

// runMutate is `difffuzz mutate`: mutation testing of the chosen functions (docs/DESIGN.md §7).
// Exit status: 1 when the score is below --threshold, 2 on a usage error or a killer that
// fails without any mutant, 0 otherwise.
func runMutate(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("mutate", stderr)
	var targets stringList
	fs.Var(&targets, "target", "a Go file of the module, PATH or PATH:FUNC,FUNC (repeatable; default: "+strings.Join(defaultMutateTargets, " and ")+")")
	dir := fs.String("dir", ".", "the difffuzz module directory (go test runs there)")
	workers := fs.Int("workers", 2, "mutants tested at once")
	killers := fs.String("killers", "", "the killers to run, comma-separated, in order (default: all: "+killerNames(defaultKillers)+")")
	list := fs.Bool("list", false, "list the mutants and exit, without running any test")
	seedsOnly := fs.Bool("seeds", false, "only the seven seed mutants of PR #24283 in each copy of the UTF-8 validity rule among the targets, with the seed table")
	matrix := fs.Bool("matrix", false, "run every killer on every mutant and print the kill matrix")
	equivalence := fs.Bool("equivalence", true, "run a mutant that survives every killer against the exhaustive domain (go test ./fuzz -run '^TestExhaustive$', minutes each): equivalent, or a gap in the killers' tests")
	jsonOut := fs.Bool("json", false, "print the results as a mutation-testing-elements report (JSON, schema version 2) instead of the table")
	threshold := fs.Float64("threshold", 0, "exit 1 when the mutation score (killed / (killed+survived+timed out), in %) is below this")
	rest, err := parseFlags(fs, args, stderr, "difffuzz mutate [--target PATH[:FUNC,...]]... [--seeds] [--killers LIST] [--matrix] [--equivalence=false] [--workers N] [--dir DIR] [--list] [--json] [--threshold P]")
	if err != nil {
		return exitUsage, err
	}
	if len(rest) > 0 {
		return exitUsage, usagef("mutate: unexpected argument %q (targets are given with --target)", rest[0])
	}
	if *workers < 1 {
		return exitUsage, usagef("--workers: must be at least 1, not %d", *workers)
	}
	if *threshold < 0 || *threshold > 100 {
		return exitUsage, usagef("--threshold: a percentage 0..100, not %v", *threshold)
	}
	ks, err := chooseKillers(*killers)
	if err != nil {
		return exitUsage, err
	}
	if len(targets) == 0 {
		targets = defaultMutateTargets
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
		var names []string
		if funcs != "" {
			names = strings.Split(funcs, ",")
		}
		if !strings.HasSuffix(file, ".go") {
			return exitUsage, usagef("--target %q: a Go file (PATH.go or PATH.go:FUNC,...)", t)
		}
		src, err := os.ReadFile(filepath.Join(*dir, file))
		if err != nil {
			return exitUsage, usagef("--target %q: %v (run in the difffuzz module, or give --dir)", t, err)
		}
		var ms []mutation.Mutant
		if !*seedsOnly {
			if ms, err = mutation.Sites(file, src, names); err != nil {
				return exitUsage, usagef("--target %q: %v", t, err)
			}
		}
		seeds, err := mutation.Seeds(file, src, names)
		if err != nil {
			return exitUsage, usagef("--target %q: %v", t, err)
		}
		ms = append(ms, seeds...)
		for i := range ms {
			ms[i].ID = total + i + 1 // ids run on across files
		}
		files = append(files, fileMutants{file, src, ms})
		total += len(ms)
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
	if total == 0 {
		return exitUsage, usagef("mutate: no mutants in %s", strings.Join(targets, ", "))
	}
	cfg := mutation.Config{Dir: *dir, Killers: ks, Workers: *workers, Matrix: *matrix}
	if *equivalence {
		cfg.Equivalence = []mutation.Killer{equivalenceKiller}
	}
	start := time.Now()
	base, err := mutation.Baseline(ctx, cfg)
	if err != nil {
		return exitUsage, fmt.Errorf("mutate: %v", err)
	}
	fmt.Fprintf(stderr, "difffuzz: mutate: %s in %s; killers %s (baseline %s); %d workers\n",
		plural(uint64(total), "mutant"), plural(uint64(len(files)), "file"), killerNames(ks), baselineText(ks, base), *workers)
	prog := newProgressOf(stderr, "mutants")
	prog.Begin("mutate", uint64(total))
	cfg.Progress = func(done, total int, r mutation.Result) { prog.Advance(1) }
	var results []mutation.Result
	for _, f := range files {
		rs, err := mutation.Run(ctx, cfg, f.file, f.src, f.mutants, base)
		results = append(results, rs...)
		if err != nil {
			prog.End()
			return exitUsage, fmt.Errorf("mutate: %v", err)
		}
	}
	prog.End()
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
	fmt.Fprintf(stderr, "difffuzz: mutate: %s: %d killed (%d only by the exhaustive domain: gaps in the killers' tests), %d survived, %d equivalent, %d timed out, %d not viable; score %.1f%% in %s\n",
		plural(uint64(len(results)), "mutant"), counts[mutation.Killed], gaps, counts[mutation.Survived], counts[mutation.Equivalent],
		counts[mutation.TimedOut], counts[mutation.NotViable], score, time.Since(start).Round(time.Second))
	if score < *threshold {
		fmt.Fprintf(stderr, "difffuzz: mutate: score %.1f%% is below --threshold %v%%\n", score, *threshold)
		return exitFindings, nil
	}
	return exitOK, nil
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
