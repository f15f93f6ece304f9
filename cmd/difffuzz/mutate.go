package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/internal/progress"
	"github.com/difffuzz/difffuzz/mutation"
	"github.com/difffuzz/difffuzz/report"
)

// runMutate is `difffuzz mutate`: mutation testing of the chosen functions (docs/DESIGN.md §7).
// Exit status: 1 when the score is below --threshold, 2 on a usage error or a killer that
// fails without any mutant, 0 otherwise.
func runMutate(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	a := newMutateArgs(stderr)
	if err := a.parse(args); err != nil {
		return exitUsage, err
	}
	files, total, err := mutation.Select(a.sel)
	if err != nil {
		return exitUsage, err
	}
	if a.list {
		for _, f := range files {
			for _, m := range f.Mutants {
				fmt.Fprintf(stdout, "%4d  %-14s %s\n", m.ID, m.Func, m)
			}
		}
		fmt.Fprintf(stderr, "difffuzz: mutate: %s in %s\n", report.Plural(uint64(total), "mutant"), report.Plural(uint64(len(files)), "file"))
		return exitOK, nil
	}
	cfg := a.cfg
	if a.equivalence {
		cfg.Equivalence = mutation.EquivalenceFor(files)
	}
	start := time.Now()
	p := mutation.NewProgress(stderr, progress.New(stderr, "mutants"))
	p.Install(&cfg, total, len(files))
	results, sum, err := mutation.Run(ctx, cfg, files)
	p.End()
	interrupted := false
	if err != nil && ctx.Err() != nil && results != nil {
		results, interrupted = mutation.Decided(results, a.equivalence, stderr), true
	} else if err != nil {
		return exitUsage, fmt.Errorf("mutate: %v", err)
	}
	var stale []string // the seed mutants proven or not proven equivalent against mutation.SeedEquivalent
	if a.sel.Seeds && !interrupted {
		if a.equivalence {
			stale = mutation.CheckSeedEquivalent(results)
		} else if n := mutation.KnownSeedEquivalent(results); n > 0 {
			fmt.Fprintf(stderr, "difffuzz: mutate: %s survived every killer as mutation.SeedEquivalent says (equivalent, proven by the equivalence phase: make test-long); any other survivor counts\n",
				report.Plural(uint64(n), "seed mutant"))
		}
	}
	score, err := a.out.Write(stdout, stderr, results, files, sum, start)
	if err != nil || interrupted {
		return exitUsage, err
	}
	for _, l := range stale {
		fmt.Fprintf(stderr, "difffuzz: mutate: %s\n", l)
	}
	if score < a.out.Threshold {
		fmt.Fprintf(stderr, "difffuzz: mutate: score %.1f%% is below --threshold %v%%\n", score, a.out.Threshold)
		return exitFindings, nil
	}
	if len(stale) > 0 {
		return exitFindings, nil
	}
	return exitOK, nil
}

// mutateArgs are mutate's flags, and the selection, run and output they make.
type mutateArgs struct {
	fs                       *flag.FlagSet
	sel                      mutation.Selection
	cfg                      mutation.Config
	out                      mutation.Output
	targets                  targetList
	killerList               string
	list, trace, equivalence bool
}

// newMutateArgs defines mutate's flags.
func newMutateArgs(stderr io.Writer) *mutateArgs {
	fs := newFlagSet("mutate", stderr)
	a := &mutateArgs{fs: fs}
	fs.Var(&a.targets, "target", "a Go or Go assembly file of the module, PATH or PATH:FUNC,FUNC (repeatable; default: "+strings.Join(mutation.DefaultTargets, " and ")+")")
	fs.StringVar(&a.sel.Dir, "dir", ".", "the difffuzz module directory (go test runs there)")
	decimalVar(fs, &a.cfg.Workers, "workers", 2, "`N` mutants tested at once")
	fs.StringVar(&a.killerList, "killers", "", "the killers to run, comma-separated, in order (default: all: "+mutation.KillerNames(mutation.DefaultKillers)+")")
	fs.BoolVar(&a.list, "list", false, "list the mutants and exit, without running any test")
	fs.BoolVar(&a.sel.Asm, "asm", false, "mutate the assembly that validates UTF-8 or writes escapes in blocks instead of the default targets (with --target: added to them, but for a file --target gives): "+strings.Join(mutation.AsmTargets, " and ")+" (branches, immediates, table bits; arm64 under qemu-aarch64)")
	fs.BoolVar(&a.trace, "trace", true, "run each top-level test of each killer once with every schema mutant traced; a mutant then runs only the tests in which its expression evaluated differently, and skips a killer in none of whose tests it did (--trace=false: every killer whole on every mutant, for killers whose tests share state)")
	fs.StringVar(&a.sel.Only, "only", "", "run only the mutants with these ids (as --list numbers them), comma-separated; ranges like 10-20")
	fs.BoolVar(&a.sel.All, "all", false, "mutate the packages fast and oracle whole (every Go file but tests, every function, every assembly file) instead of the default targets")
	fs.BoolVar(&a.sel.Seeds, "seeds", false, "only the seven seed mutants of PR #24283 in each copy of the UTF-8 validity rule among the targets, with the seed table; with --equivalence=false the survivors mutation.SeedEquivalent lists count as equivalent, and with the equivalence phase the run fails (exit 1) when what it proves differs from that list")
	fs.BoolVar(&a.out.Matrix, "matrix", false, "run every killer on every mutant and print the kill matrix")
	fs.BoolVar(&a.equivalence, "equivalence", true, "prove the mutants that survive every killer equivalent on the exhaustive domains of their function (difffuzz --exhaustive from the mutant's build, every variant), or find the gap in the killers' tests")
	fs.BoolVar(&a.out.JSON, "json", false, "print the results as a mutation-testing-elements report (JSON, schema version 2) instead of the table")
	fs.Float64Var(&a.out.Threshold, "threshold", 0, "exit 1 when the mutation score ((killed + timed out) / (killed + timed out + survived), in %; equivalent and not viable mutants left out) is below this")
	return a
}

// parse parses and checks mutate's flags, and resolves the killers.
func (a *mutateArgs) parse(args []string) error {
	rest, err := parseFlags(a.fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("mutate: unexpected argument %q (targets are given with --target)", rest[0])
	}
	if a.cfg.Workers < 1 {
		return usagef("--workers: must be at least 1, not %d", a.cfg.Workers)
	}
	if !(a.out.Threshold >= 0 && a.out.Threshold <= 100) { // NaN too: no score is below it
		return usagef("--threshold: a percentage 0..100, not %v", a.out.Threshold)
	}
	if a.list && a.out.JSON {
		return usagef("--list and --json: --list prints the mutants as a table only")
	}
	if a.cfg.Killers, err = mutation.ChooseKillers(a.killerList); err != nil {
		return err
	}
	if a.sel.Dir == "" {
		a.sel.Dir = "."
	}
	a.sel.Targets, a.out.Killers = a.targets, a.cfg.Killers
	a.cfg.Dir, a.cfg.Matrix, a.cfg.NoTrace = a.sel.Dir, a.out.Matrix, !a.trace
	return nil
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
