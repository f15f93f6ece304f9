package mutation

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/build/constraint"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Killer is one named test selection run against each mutant: the test binary of Pkg (built
// with `go test -c -vet=off [-tags Tags]`, once per build of the mutants and shared by the
// killers of the same package), run in the package's directory with -test.run Run
// [-test.short]; or, with Main, a command.
type Killer struct {
	Name  string // "unit", "exhaustive", ...
	Pkg   string // one package, as a directory relative to Config.Dir: "./fast"
	Run   string // the -run regular expression ("" runs every test)
	Skip  string // the -skip regular expression ("" skips none)
	Short bool   // pass -short
	Tags  string // build tags ("purego"), "" for none
	// Main makes the killer a command: Pkg is a main package, built with `go build`, run in
	// Config.Dir with Args; it kills a mutant when it exits non-zero (difffuzz: 1, findings).
	// For a test binary, Args follow its -test flags (a package's own flags: "-seed=1").
	// An argument "{evidence}" is replaced by a file the command may write; its first line is
	// kept as Result.Evidence.
	Main bool
	Args []string
	// Shard, for a Main equivalence killer whose command takes `--shard K/N` (K from 0) and
	// whose every shard has work, splits its recheck run into Config.Workers shards run at
	// once.
	Shard bool
	// Funcs, for an equivalence killer, are the functions whose mutants its domain covers
	// (nil: every mutant's but those in Except).
	Funcs  []string
	Except []string
	// Domain, for an equivalence killer (Config.Equivalence), is the input domain it checks
	// exhaustively, in words: what a mutant that passes it is proven equivalent on.
	Domain string
}

// Build is the build configuration a mutant's file compiles under: GOARCH and build tags. A
// build for another GOARCH than the host's (arm64 on amd64) runs its binaries under
// qemu-user (qemu-aarch64).
type Build struct {
	GOARCH string // "amd64", "arm64"
	Tags   string // "", "purego"
}

func (b Build) String() string {
	if b.Tags == "" {
		return b.GOARCH
	}
	return b.GOARCH + " -tags " + b.Tags
}

// builds are the configurations tried for a file, in order.
var builds = []Build{{"amd64", ""}, {"amd64", "purego"}, {"arm64", ""}}

// BuildFor is the first configuration of amd64, amd64 with -tags purego and arm64 (all
// linux) that compiles file, by its _GOARCH suffix and its //go:build line. It fails when
// none does.
func BuildFor(file string, src []byte) (Build, error) {
	base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(file), ".go"), ".s")
	var expr constraint.Expr
	for l := range strings.Lines(string(src)) {
		l = strings.TrimSpace(l)
		if constraint.IsGoBuild(l) {
			var err error
			if expr, err = constraint.Parse(l); err != nil {
				return Build{}, fmt.Errorf("%s: %v", file, err)
			}
			break
		}
		if l != "" && !strings.HasPrefix(l, "//") {
			break
		}
	}
	for _, b := range builds {
		if i := strings.LastIndex(base, "_"); i >= 0 && slices.Contains([]string{"amd64", "arm64", "386", "arm", "riscv64", "ppc64le", "s390x", "wasm", "loong64"}, base[i+1:]) && base[i+1:] != b.GOARCH {
			continue
		}
		if expr != nil && !expr.Eval(func(tag string) bool {
			return tag == b.GOARCH || tag == "linux" || tag == "unix" || tag == "gc" || (b.Tags != "" && tag == b.Tags) || strings.HasPrefix(tag, "go1.")
		}) {
			continue
		}
		return b, nil
	}
	return Build{}, fmt.Errorf("%s: compiled in none of %v", file, builds)
}

// tags is the -tags value of k under b.
func (k Killer) tags(b Build) string {
	return strings.Trim(k.Tags+","+b.Tags, ",")
}

// buildArgs is the go command line that builds k's binary at out under b, through the overlay
// file when there is one.
func (k Killer) buildArgs(b Build, overlay, out string) []string {
	a := []string{"test", "-c", "-json", "-vet=off", "-o", out}
	if k.Main {
		a = []string{"build", "-json", "-o", out}
	}
	if overlay != "" {
		a = append(a, "-overlay", overlay)
	}
	if t := k.tags(b); t != "" {
		a = append(a, "-tags", t)
	}
	return append(a, k.Pkg)
}

// runArgs are the binary's arguments for k.
func (k Killer) runArgs(evidence string) []string {
	if k.Main {
		a := slices.Clone(k.Args)
		for i := range a {
			a[i] = strings.ReplaceAll(a[i], "{evidence}", evidence)
		}
		return a
	}
	a := []string{"-test.count=1", "-test.v=true", "-test.failfast"}
	if k.Short {
		a = append(a, "-test.short")
	}
	if k.Run != "" {
		a = append(a, "-test.run", k.Run)
	}
	if k.Skip != "" {
		a = append(a, "-test.skip", k.Skip)
	}
	return append(a, k.Args...)
}

// binKey is what decides whether two killers share a binary.
func (k Killer) binKey() string { return fmt.Sprint(k.Pkg, "\x00", k.Tags, "\x00", k.Main) }

// covers says whether the equivalence killer k applies to mutants of function fn.
func (k Killer) covers(fn string) bool {
	return (len(k.Funcs) == 0 || slices.Contains(k.Funcs, fn)) && !slices.Contains(k.Except, fn)
}

// equivalenceLimit is EquivalenceTimeout, 1 hour when it is not set.
func (cfg Config) equivalenceLimit() time.Duration {
	if cfg.EquivalenceTimeout <= 0 {
		return time.Hour
	}
	return cfg.EquivalenceTimeout
}

// Outcome is how a mutant ended.
type Outcome string

// The outcomes of DESIGN.md §7.
const (
	Killed    Outcome = "killed"     // a killer's test failed
	Survived  Outcome = "survived"   // every killer passed
	TimedOut  Outcome = "timed-out"  // a killer ran past its timeout (counted apart from killed)
	NotViable Outcome = "not-viable" // the mutant does not compile (a build-fail event), never counted as killed
	// Equivalent: it survived every killer and every equivalence killer, so it behaves like
	// the original on their exhaustive domains (Result.Domain).
	Equivalent Outcome = "equivalent"
)

// Result is what the killers made of one mutant.
type Result struct {
	Mutant
	Outcome  Outcome
	KilledBy string // the killer that killed it (or timed out), "" otherwise
	// Matrix is, with Config.Matrix, each killer's verdict on the mutant by killer name:
	// "killed", "passed" or "timed-out" (not run: absent).
	Matrix map[string]string `json:",omitempty"`
	Test   string            // the first failing test, when one was named
	Detail string            // for not viable: the compiler's first message; for a gap: the failing test's first lines
	Domain string            // for equivalent: the domains it was proven equivalent on
	// Gap: it survived the killers but an equivalence killer killed it, so the killers'
	// tests miss an input that tells it from the original (Detail shows the test's output,
	// Evidence what the killer wrote to its {evidence} file).
	Gap      bool   `json:",omitempty"`
	Evidence string `json:",omitempty"`
	// Traced: proven equivalent by tracing (its mutated expression evaluated like the
	// original's everywhere on the domain), not by a run of its own.
	Traced   bool `json:",omitempty"`
	skipped  int  // killer runs skipped: not infected
	narrowed int  // killer runs restricted to the tests it infected
	// Build is the configuration the mutant was built and run under; How is how it was
	// applied: "schema" (one shared mutant schema build), "patch" (a table mutant written
	// into a copy of the unmutated binary) or "build" (a build of its own).
	Build   Build
	How     string
	Elapsed time.Duration // the time its killers took
}

// Target is one file's mutants: Src is the file's content as Sites, Seeds or AsmSites read it.
type Target struct {
	File    string // relative to Config.Dir, or absolute
	Src     []byte
	Mutants []Mutant
}

// Summary says how a Run went about it.
type Summary struct {
	Baseline []time.Duration // each killer's run time without any mutant (the first build's)
	Schema   int             // mutants run from shared schema builds
	Separate int             // mutants built one by one (assembly; or not expressible in a schema)
	Builds   int             // go builds made (schema and baseline builds included)
	// Trace is the time of the killers' traced runs (every schema mutant traced at once, one
	// top-level test at a time); Skipped counts the killer runs they made unnecessary (a
	// traced mutant whose expression never evaluated differently under a killer passes it
	// without a run) and Narrowed the killer runs they restricted to the tests in which the
	// mutant's expression evaluated differently.
	Trace    time.Duration
	Skipped  int
	Narrowed int
}

// Config is a mutation run.
type Config struct {
	Dir     string   // the module directory go test runs in
	Killers []Killer // cheapest first
	Workers int      // mutants run at once (default 1)
	// Timeout of one killer on a mutant is TimeoutFactor × the killer's baseline time, at
	// least MinTimeout (defaults 5 and 2 s): a mutant that loops forever is timed out.
	TimeoutFactor float64
	MinTimeout    time.Duration
	// Equivalence are the killers run on a mutant that survived Killers (the exhaustive
	// domain of its function; slower): passing every one that covers it makes it Equivalent,
	// failing one makes it Killed with Gap set. A survivor no equivalence killer covers stays
	// Survived.
	Equivalence []Killer
	// EquivalenceTimeout bounds each equivalence killer's run on a mutant (default 1 hour,
	// equivalenceLimit); past it the mutant is TimedOut.
	EquivalenceTimeout time.Duration
	// Matrix runs every killer on every mutant (the kill matrix) instead of stopping at the
	// first that kills it.
	Matrix bool
	// NoSchema builds every mutant on its own (the slow way) instead of compiling the Go
	// mutants of a build configuration into one schema build.
	NoSchema bool
	// NoTrace runs every killer on every schema mutant instead of first running each killer
	// once with every traceable mutant traced and skipping it for the mutants it does not
	// infect. (Tracing assumes the killers are deterministic: a killer that draws other
	// random inputs on each run may infect a mutant in its own run and not in the traced one.)
	NoTrace bool
	// Started, if set, is called once the baseline has run, before the first mutant.
	Started func(Summary)
	// Progress, if set, is called after each mutant's killers (from one goroutine at a
	// time): r is decided, or a survivor that the equivalence phase decides later.
	Progress func(done, total int, r Result)
	// EquivalenceStarted, if set, is called when the killers are done and n schema mutants
	// that survived them go to the equivalence killers together.
	EquivalenceStarted func(n int)
	// EquivalenceRun, if set, is called after each traced run of an equivalence killer
	// (shard of shards, from 0) with its time and whether it finished within the limit.
	EquivalenceRun func(killer string, shard, shards int, took time.Duration, complete bool)
}

// binaries builds, once each, the binaries of a set of killers under one build and overlay.
type binaries struct {
	dir     string // where they are written
	build   Build
	overlay string
	mu      sync.Mutex
	paths   map[string]string
	fails   map[string]string // binKey → first compiler message
	builds  *atomic.Int64     // counts the go builds made
	// from and patch: the binaries are from's, copied with patch applied (no build)
	from  *binaries
	patch *patch
}

// get returns k's binary, building it on first use; notViable is the compiler's first
// message when the build failed.
func (bs *binaries) get(ctx context.Context, dir string, k Killer) (bin, notViable string, err error) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	key := k.binKey()
	if p, ok := bs.paths[key]; ok {
		return p, bs.fails[key], nil
	}
	bin = filepath.Join(bs.dir, fmt.Sprintf("%d.bin", len(bs.paths)))
	if bs.from != nil {
		orig, fail, err := bs.from.get(ctx, dir, k)
		if err != nil || fail != "" {
			return "", fail, err
		}
		b, err := os.ReadFile(orig)
		if err != nil {
			return "", "", err
		}
		if b, err = bs.patch.apply(b); err != nil {
			return "", "", fmt.Errorf("killer %s: %v", k.Name, err)
		}
		if err := os.WriteFile(bin, b, 0o755); err != nil {
			return "", "", err
		}
		bs.paths[key] = bin
		return bin, "", nil
	}
	b, err := goBuild(ctx, dir, k, bs.build, bs.overlay, bin)
	if err != nil {
		return "", "", fmt.Errorf("killer %s: %v", k.Name, err)
	}
	bs.builds.Add(1)
	bs.paths[key] = bin
	if b.failed {
		bs.fails[key] = firstCompileError(b.lines)
		if bs.fails[key] == "" {
			bs.fails[key] = "build failed"
		}
	}
	return bin, bs.fails[key], nil
}

// job is one mutant to run: from the group's schema build, or built on its own.
type job struct {
	g      *group
	target int // index into the group's targets
	m      Mutant
	index  int // into the results
	schema bool
}

// group is the targets of one build configuration.
type group struct {
	build    Build
	targets  []Target
	abs      []string
	shared   *binaries     // the schema build (or the unmutated one), for the killers and the equivalence killers
	builds   *atomic.Int64 // the go builds of every binaries of the run
	baseline []time.Duration
	// tests are, per killer, the top-level tests its baseline run ran (with their times);
	// nil for a Main killer.
	tests  [][]testTime
	traced map[int]bool // the schema's mutants it can trace
	// infected is, per killer (by index), the traced mutants whose expression evaluated
	// differently during the killer's traced runs, each with the top-level tests in which it
	// did (one traced run per test; nil for a killer traced as a whole); nil when unknown
	// (not traced, or timed out). A traced mutant outside it passes that killer without
	// running it, and one inside runs only those tests.
	infected []map[int][]string
}

// testTime is one top-level test of a killer and how long it took in the baseline run, and
// its traced run on its own (the process, its start and the setup the test paid alone
// included).
type testTime struct {
	name   string
	took   time.Duration
	traced time.Duration
}

// Run applies the mutants of each target and runs the killers in order until one fails, then
// the equivalence killers on survivors (docs/DESIGN.md §7). Go mutants of one build
// configuration are compiled into one mutant schema (NewSchema) and chosen per process by the
// environment; the others (assembly, and Go mutants a schema cannot hold) get a build of their
// own through an overlay. The files on disk are never written. Before any mutant, each
// killer runs on the unmutated build (the schema with no mutant active); a killer that does
// not build, fails or runs no test there stops the run with an error naming it. Results are
// in the targets' and mutants' order; on an error or a cancelled ctx the results so far come
// back with it (unfinished mutants have an empty Outcome).
func Run(ctx context.Context, cfg Config, targets []Target) ([]Result, Summary, error) {
	var sum Summary
	var builds atomic.Int64 // the builds of the killers' binaries, added to sum.Builds
	tmp, err := os.MkdirTemp("", "difffuzz-mutate-")
	if err != nil {
		return nil, sum, err
	}
	defer os.RemoveAll(tmp)
	var groups []*group
	byBuild := map[Build]*group{}
	var results []Result
	var jobs []job
	for _, t := range targets {
		abs := t.File
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cfg.Dir, t.File)
		}
		if abs, err = filepath.Abs(abs); err != nil {
			return nil, sum, err
		}
		b, err := BuildFor(t.File, t.Src)
		if err != nil {
			return nil, sum, err
		}
		g := byBuild[b]
		if g == nil {
			g = &group{build: b, builds: &builds}
			byBuild[b] = g
			groups = append(groups, g)
		}
		g.targets = append(g.targets, t)
		g.abs = append(g.abs, abs)
	}
	for gi, g := range groups {
		gdir := filepath.Join(tmp, fmt.Sprint("g", gi))
		g.traced = map[int]bool{}
		inSchema, overlay, err := prepareSchemas(ctx, cfg, g, gdir, &sum)
		if err != nil {
			return nil, sum, err
		}
		g.shared = &binaries{dir: gdir, build: g.build, overlay: overlay, paths: map[string]string{}, fails: map[string]string{}, builds: &builds}
		if g.baseline, g.tests, err = baseline(ctx, cfg, g.shared); err != nil {
			return nil, sum, err
		}
		if gi == 0 {
			sum.Baseline = g.baseline
		}
		if !cfg.NoTrace && len(g.traced) > 0 {
			ids := make([]int, 0, len(g.traced))
			for id := range g.traced {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			start := time.Now()
			if g.infected, err = traceAll(ctx, cfg, gdir, g, ids); err != nil {
				return nil, sum, err
			}
			sum.Trace += time.Since(start)
		}
		for ti, t := range g.targets {
			for _, m := range t.Mutants {
				jobs = append(jobs, job{g: g, target: ti, m: m, schema: inSchema[m.ID]})
				if inSchema[m.ID] {
					sum.Schema++
				} else {
					sum.Separate++
				}
			}
		}
	}
	// results in the targets' order
	order := map[string]int{}
	for i, t := range targets {
		order[t.File] = i
	}
	slices.SortStableFunc(jobs, func(a, b job) int {
		return order[a.g.targets[a.target].File] - order[b.g.targets[b.target].File]
	})
	results = make([]Result, len(jobs))
	for i := range jobs {
		jobs[i].index = i
		results[i].Mutant = jobs[i].m
	}
	if cfg.Started != nil {
		cfg.Started(sum)
	}
	// schema mutants first (the cheap ones, results soonest), separate builds after
	run := slices.Concat(
		slices.DeleteFunc(slices.Clone(jobs), func(j job) bool { return !j.schema }),
		slices.DeleteFunc(slices.Clone(jobs), func(j job) bool { return j.schema }))
	queue := make(chan job)
	var mu sync.Mutex
	var firstErr error
	done := 0
	var wg sync.WaitGroup
	for range max(cfg.Workers, 1) {
		wg.Go(func() {
			for j := range queue {
				r, err := runJob(ctx, cfg, tmp, j)
				mu.Lock()
				if err == nil {
					results[j.index] = r
					sum.Skipped += r.skipped
					sum.Narrowed += r.narrowed
					done++
					if cfg.Progress != nil {
						cfg.Progress(done, len(jobs), r)
					}
				} else if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		})
	}
feed:
	for _, j := range run {
		mu.Lock()
		stop := firstErr != nil
		mu.Unlock()
		if stop {
			break
		}
		select {
		case queue <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	if firstErr != nil || len(cfg.Equivalence) == 0 {
		sum.Builds += int(builds.Load())
		return results, sum, firstErr
	}
	n := 0
	for i, j := range jobs {
		if j.schema && results[i].Outcome == Survived {
			n++
		}
	}
	if n > 0 && cfg.EquivalenceStarted != nil {
		cfg.EquivalenceStarted(n)
	}
	err = equivalencePhase(ctx, cfg, tmp, groups, jobs, results)
	sum.Builds += int(builds.Load())
	return results, sum, err
}

// prepareSchemas writes the schemas of g's Go targets under dir with their overlay file, and
// returns which mutants they hold and the overlay ("" when none). A schema the compiler
// refuses loses the mutants its errors point into, until it compiles.
func prepareSchemas(ctx context.Context, cfg Config, g *group, dir string, sum *Summary) (map[int]bool, string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", err
	}
	in := map[int]bool{}
	if cfg.NoSchema {
		return in, "", nil
	}
	type prepared struct {
		t      Target
		abs    string
		ti     *TypeInfo
		schema *Schema
		drop   map[int]bool
	}
	var ps []*prepared
	pkgs := map[string]string{} // package directory → package name
	for i, t := range g.targets {
		if !strings.HasSuffix(t.File, ".go") || len(t.Mutants) == 0 {
			continue
		}
		ti, err := CheckFileBuild(g.abs[i], g.build.GOARCH, g.build.Tags)
		if err != nil {
			return nil, "", err
		}
		p := &prepared{t: t, abs: g.abs[i], ti: ti, drop: map[int]bool{}}
		p.schema = NewSchema(t.File, t.Src, ti, t.Mutants)
		ps = append(ps, p)
		pkgs[filepath.Dir(p.abs)] = ti.Pkg.Name()
	}
	if len(ps) == 0 {
		return in, "", nil
	}
	maxID := 0
	for _, t := range g.targets {
		for _, m := range t.Mutants {
			maxID = max(maxID, m.ID)
		}
	}
	overlay := filepath.Join(dir, "schema-overlay.json")
	for attempt := 0; ; attempt++ {
		replace := map[string]string{}
		for i, p := range ps {
			path := filepath.Join(dir, schemaName(i, p.abs))
			if err := os.WriteFile(path, p.schema.Src, 0o644); err != nil {
				return nil, "", err
			}
			replace[p.abs] = path
		}
		for pdir, name := range pkgs {
			path := filepath.Join(dir, fmt.Sprintf("var_%s.go", name))
			if err := os.WriteFile(path, VarFile(name, maxID), 0o644); err != nil {
				return nil, "", err
			}
			replace[filepath.Join(pdir, "zz_difffuzz_mutant.go")] = path
		}
		ov, _ := json.Marshal(map[string]map[string]string{"Replace": replace})
		if err := os.WriteFile(overlay, ov, 0o644); err != nil {
			return nil, "", err
		}
		var pkgArgs []string
		for pdir := range pkgs {
			pkgArgs = append(pkgArgs, pdir)
		}
		slices.Sort(pkgArgs)
		args := append([]string{"build", "-json", "-gcflags=-e", "-o", os.DevNull, "-overlay", overlay}, tagArgs(g.build.Tags)...)
		b, err := goRun(ctx, cfg.Dir, g.build, append(args, pkgArgs...))
		if err != nil {
			return nil, "", err
		}
		sum.Builds++
		if !b.failed {
			break
		}
		blamed := false
		for _, l := range b.lines {
			file, line, col, ok := errorPos(l)
			if !ok {
				continue
			}
			for i, p := range ps {
				// the compiler names the overlay's file, or the original
				if filepath.Base(file) != filepath.Base(p.abs) && filepath.Base(file) != schemaName(i, p.abs) {
					continue
				}
				for _, id := range p.schema.Blame(line, col) {
					p.drop[id], blamed = true, true
				}
			}
		}
		if !blamed || attempt == 8 {
			// the schema fails for reasons no mutant explains: every mutant on its own
			return in, "", nil
		}
		for _, p := range ps {
			p.schema = p.schema.Without(p.t.Src, p.ti, p.t.Mutants, p.drop)
		}
	}
	for _, p := range ps {
		for _, id := range p.schema.IDs {
			in[id] = true
			if p.schema.Traced[id] {
				g.traced[id] = true
			}
		}
	}
	return in, overlay, nil
}

// schemaName is the file name of the i-th schema, of the file at abs.
func schemaName(i int, abs string) string { return fmt.Sprintf("schema%d_%s", i, filepath.Base(abs)) }

func tagArgs(tags string) []string {
	if tags == "" {
		return nil
	}
	return []string{"-tags", tags}
}

// errorPos parses a compiler message "path:line:col: text".
func errorPos(l string) (file string, line, col int, ok bool) {
	parts := strings.SplitN(strings.TrimSpace(l), ":", 4)
	if len(parts) < 4 {
		return "", 0, 0, false
	}
	line, err1 := strconv.Atoi(parts[1])
	col, err2 := strconv.Atoi(parts[2])
	return parts[0], line, col, err1 == nil && err2 == nil
}

// baseline builds each killer's binary through bs and runs it with no mutant active,
// returning the run times (builds not included).
func baseline(ctx context.Context, cfg Config, bs *binaries) ([]time.Duration, [][]testTime, error) {
	out := make([]time.Duration, len(cfg.Killers))
	tests := make([][]testTime, len(cfg.Killers))
	for i, k := range cfg.Killers {
		bin, fail, err := bs.get(ctx, cfg.Dir, k)
		if err != nil {
			return nil, nil, err
		}
		if fail != "" {
			return nil, nil, fmt.Errorf("killer %s: its package does not build without any mutant (%s): %s", k.Name, bs.build, fail)
		}
		start := time.Now()
		r, err := runTests(ctx, cfg.Dir, k, bs.build, bin, 0, "")
		out[i] = time.Since(start)
		if err != nil {
			return nil, nil, fmt.Errorf("killer %s: %v", k.Name, err)
		}
		if r.failed {
			return nil, nil, fmt.Errorf("killer %s fails without any mutant (%s)%s", k.Name, bs.build, tail(r.lines))
		}
		if r.passed == 0 {
			return nil, nil, fmt.Errorf("killer %s runs no test (-test.run %q in %s)", k.Name, k.Run, k.Pkg)
		}
		// traced test by test only when every test that started is accounted for (a test
		// whose output does not end in a newline hides its "--- PASS" line) and the
		// killer's selection is of top-level tests (Killer.only replaces it)
		if !k.Main && r.whole && len(r.tests) == r.runs && !strings.Contains(k.Run, "/") {
			tests[i] = r.tests
		}
	}
	return out, tests, nil
}

// Baseline builds each killer's binary from the unmutated tree (for the host's GOARCH) and
// runs it, returning the run times (builds not included). A killer that does not build, fails
// or runs no test there is an error naming the killer and showing the output's last lines.
func Baseline(ctx context.Context, cfg Config) ([]time.Duration, error) {
	tmp, err := os.MkdirTemp("", "difffuzz-mutate-base-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	d, _, err := baseline(ctx, cfg, &binaries{dir: tmp, build: Build{GOARCH: runtime.GOARCH}, paths: map[string]string{}, fails: map[string]string{}, builds: new(atomic.Int64)})
	return d, err
}

// runJob runs the killers, then if it survived them the equivalence killers, on one mutant.
func runJob(ctx context.Context, cfg Config, tmp string, j job) (r Result, err error) {
	r = Result{Mutant: j.m, Outcome: Survived, Build: j.g.build, How: "schema"}
	start := time.Now()
	defer func() { r.Elapsed = time.Since(start) }()
	bs, id := j.g.shared, j.m.ID
	dir := filepath.Join(tmp, fmt.Sprint("m", j.m.ID))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err
	}
	defer os.RemoveAll(dir) // its binaries: tens of MB each
	switch {
	case j.schema:
	case j.m.patch != nil:
		r.How = "patch"
		bs, id = &binaries{dir: dir, build: j.g.build, paths: map[string]string{}, fails: map[string]string{}, builds: j.g.builds, from: j.g.shared, patch: j.m.patch}, 0
	default:
		r.How = "build"
		abs := j.g.abs[j.target]
		mutated := filepath.Join(dir, filepath.Base(abs))
		if err := os.WriteFile(mutated, j.m.Apply(j.g.targets[j.target].Src), 0o644); err != nil {
			return r, err
		}
		replace := map[string]string{abs: mutated}
		if bs.overlay != "" {
			// the schemas of the other files stay in, all inactive
			var prev struct{ Replace map[string]string }
			if b, err := os.ReadFile(bs.overlay); err == nil && json.Unmarshal(b, &prev) == nil {
				for k, v := range prev.Replace {
					if k != abs {
						replace[k] = v
					}
				}
			}
		}
		overlay := filepath.Join(dir, "overlay.json")
		ov, _ := json.Marshal(map[string]map[string]string{"Replace": replace})
		if err := os.WriteFile(overlay, ov, 0o644); err != nil {
			return r, err
		}
		bs = &binaries{dir: dir, build: j.g.build, overlay: overlay, paths: map[string]string{}, fails: map[string]string{}, builds: j.g.builds}
		id = 0
	}
	factor := cfg.TimeoutFactor
	if factor <= 0 {
		factor = 5
	}
	floor := cfg.MinTimeout
	if floor <= 0 {
		floor = 2 * time.Second
	}
	for i, k := range cfg.Killers {
		limit := max(time.Duration(float64(j.g.baseline[i])*factor), floor)
		if j.schema && j.g.infected != nil && j.g.infected[i] != nil && j.g.traced[j.m.ID] {
			tests, ok := j.g.infected[i][j.m.ID]
			if !ok {
				r.note(cfg, k.Name, "passed")
				r.skipped++
				continue // never evaluated differently under k: it passes k
			}
			if len(tests) > 0 && len(tests) < len(j.g.tests[i]) {
				// only the tests in which it evaluated differently can fail
				k, limit = k.only(tests), max(time.Duration(float64(j.g.subset(i, tests))*factor), floor)
				r.narrowed++
			}
		}
		bin, fail, err := bs.get(ctx, cfg.Dir, k)
		switch {
		case ctx.Err() != nil:
			return r, ctx.Err()
		case err != nil:
			return r, fmt.Errorf("mutant %d: %v", j.m.ID, err)
		case fail != "":
			r.Outcome, r.Detail = NotViable, fail
			return r, nil
		}
		t, timedOut, err := runWithin(ctx, limit, cfg.Dir, k, j.g.build, bin, id, "")
		switch {
		case ctx.Err() != nil:
			return r, ctx.Err()
		case timedOut:
			r.note(cfg, k.Name, "timed-out")
			if r.Outcome == Survived {
				r.Outcome, r.KilledBy = TimedOut, k.Name
			}
		case err != nil:
			return r, fmt.Errorf("mutant %d, killer %s: %v", j.m.ID, k.Name, err)
		case t.failed:
			r.note(cfg, k.Name, "killed")
			if r.Outcome != Killed {
				r.Outcome, r.KilledBy, r.Test = Killed, k.Name, t.test
			}
		default:
			r.note(cfg, k.Name, "passed")
		}
		if r.Outcome != Survived && !cfg.Matrix {
			return r, nil
		}
	}
	if r.Outcome != Survived {
		return r, nil
	}
	if j.schema && len(cfg.Equivalence) > 0 {
		return r, nil // the equivalence phase takes the schema's survivors together (Run)
	}
	if j.g.build.GOARCH != runtime.GOARCH && len(cfg.Equivalence) > 0 {
		// an exhaustive domain under qemu-user would take hours a mutant
		r.Detail = "not checked for equivalence: its domains would run under qemu"
		return r, nil
	}
	for _, k := range cfg.Equivalence {
		if !k.covers(j.m.Func) {
			continue
		}
		if done, err := equivalenceOne(ctx, cfg, k, j.g.build, bs, id, dir, &r); done || err != nil {
			return r, err
		}
	}
	switch {
	case r.Domain != "":
		r.Outcome = Equivalent
	case len(cfg.Equivalence) > 0 && !slices.ContainsFunc(cfg.Equivalence, func(k Killer) bool { return k.covers(j.m.Func) }):
		r.Detail = "no exhaustive domain covers " + j.m.Func
	}
	return r, nil
}

// equivalenceOne runs equivalence killer k from bs with mutant id active (0: bs is the
// mutant's own build) on r's mutant: done when that decided it (killed: a gap; or timed
// out); when it passes, k's domain joins r.Domain.
func equivalenceOne(ctx context.Context, cfg Config, k Killer, b Build, bs *binaries, id int, dir string, r *Result) (done bool, err error) {
	bin, fail, err := bs.get(ctx, cfg.Dir, k)
	switch {
	case ctx.Err() != nil:
		return true, ctx.Err()
	case err != nil:
		return true, fmt.Errorf("mutant %d: equivalence %v", r.ID, err)
	case fail != "":
		return true, fmt.Errorf("mutant %d: built for the killers but not for equivalence killer %s: %s", r.ID, k.Name, fail)
	}
	limit := cfg.equivalenceLimit()
	evidence := filepath.Join(dir, fmt.Sprintf("evidence-%d-%s", r.ID, k.Name))
	defer os.Remove(evidence)
	t, timedOut, err := runWithin(ctx, limit, cfg.Dir, k, b, bin, id, evidence)
	switch {
	case ctx.Err() != nil:
		return true, ctx.Err()
	case timedOut:
		r.note(cfg, k.Name, "timed-out")
		r.Outcome, r.KilledBy = TimedOut, k.Name
		return true, nil
	case err != nil:
		return true, fmt.Errorf("mutant %d, equivalence killer %s: %v", r.ID, k.Name, err)
	case t.failed:
		r.note(cfg, k.Name, "killed")
		r.Outcome, r.KilledBy, r.Test, r.Gap = Killed, k.Name, t.test, true
		if !k.Main {
			r.Detail = failureLines(t.lines) // a command's output is its report; its evidence says it better
		}
		if b, err := os.ReadFile(evidence); err == nil {
			r.Evidence, _, _ = strings.Cut(string(b), "\n")
		}
		return true, nil
	}
	r.note(cfg, k.Name, "passed")
	r.Domain = strings.TrimPrefix(r.Domain+"; "+k.Domain, "; ")
	return false, nil
}

// verdict is what a recheck run said about one mutant.
type verdict struct {
	kind     string // "differs", "hang", "unattributed" or "" (proven: no re-run differed)
	evidence string // the record, for differs and hang
}

// rank orders verdicts by how much they decide: a difference over a hang over an
// unattributed divergence over a proof.
func (v verdict) rank() int {
	return map[string]int{"differs": 3, "hang": 2, "unattributed": 1}[v.kind]
}

// equivalencePhase decides the schema mutants that survived every killer. For each
// equivalence killer that covers some of them, one run of its domain from the schema build
// with all of them traced and each call where one diverged re-run with it active
// (recheckRun); these runs go in parallel (Config.Workers at once), one worker each. A
// mutant a re-run told apart is killed (a gap) or timed out; one that no re-run told apart
// passes that domain. A mutant whose expression the schema cannot trace, or that diverged
// outside a checked call, then gets a run of each domain of its own (equivalenceOne).
func equivalencePhase(ctx context.Context, cfg Config, tmp string, groups []*group, jobs []job, results []Result) error {
	for _, g := range groups {
		var idx []int // results of g's schema survivors
		for i, j := range jobs {
			if j.g == g && j.schema && results[i].Outcome == Survived {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			continue
		}
		// one recheck run per equivalence killer, in parallel; a domain that shards is split
		// into cfg.Workers shards (Killer.Shard) so that the longest one does not run alone
		verdicts := make([]map[int]verdict, len(cfg.Equivalence))
		perShard := make([][]map[int]verdict, len(cfg.Equivalence))
		complete := make([]bool, len(cfg.Equivalence))
		var errs []error
		var mu sync.Mutex
		rctx, cancel := context.WithCancel(ctx) // the first error stops the others
		sem := make(chan struct{}, max(cfg.Workers, 1))
		var wg sync.WaitGroup
		for ki, k := range cfg.Equivalence {
			var ids []int
			for _, i := range idx {
				if k.covers(results[i].Func) && g.traced[results[i].ID] {
					ids = append(ids, results[i].ID)
				}
			}
			if len(ids) == 0 {
				continue
			}
			shards := 1
			if k.Main && k.Shard {
				shards = max(cfg.Workers, 1)
			}
			perShard[ki], complete[ki] = make([]map[int]verdict, shards), true
			for sh := range shards {
				ks := k
				if shards > 1 {
					ks.Args = append(slices.Clone(k.Args), "--shard", fmt.Sprintf("%d/%d", sh, shards))
				}
				wg.Go(func() {
					sem <- struct{}{}
					defer func() { <-sem }()
					start := time.Now()
					v, done, err := recheckRun(rctx, cfg, filepath.Join(tmp, fmt.Sprint("eq", ki, "-", sh)), g, ks, ids)
					took := time.Since(start)
					share := took / time.Duration(len(ids)) // each mutant's share of the run's time
					mu.Lock()
					defer mu.Unlock()
					if err == nil && cfg.EquivalenceRun != nil {
						cfg.EquivalenceRun(k.Name, sh, shards, took, done)
					}
					if err != nil {
						if len(errs) == 0 || rctx.Err() == nil {
							errs = append(errs, err) // the first, not the runs it cancelled
						}
						cancel()
						return
					}
					complete[ki] = complete[ki] && done
					perShard[ki][sh] = v
					for _, i := range idx {
						if _, ok := v[results[i].ID]; ok {
							results[i].Elapsed += share
						}
					}
				})
			}
		}
		wg.Wait()
		cancel()
		// in shard order, whatever order they ended in: a difference in any shard decides
		// (the first shard's witness), then a hang, then an unattributed divergence; proven
		// only when every shard proves it
		for ki, shards := range perShard {
			if shards == nil {
				continue
			}
			verdicts[ki] = map[int]verdict{}
			for _, v := range shards {
				for id, w := range v {
					if prev, seen := verdicts[ki][id]; !seen || w.rank() > prev.rank() {
						verdicts[ki][id] = w
					}
				}
			}
		}
		if err := errors.Join(errs...); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		limit := cfg.equivalenceLimit()
		undecided := map[int][]string{} // why a survivor is not decided, per result
		// merge, killers in order; then runs of their own for what the rechecks left open
		type pending struct{ i, k int }
		var own []pending
		for _, i := range idx {
			r := &results[i]
			decided := false
			for ki, k := range cfg.Equivalence {
				if !k.covers(r.Func) {
					continue
				}
				v, ok := verdicts[ki][r.ID]
				switch {
				case decided:
				case (!ok || v.kind == "") && !complete[ki] && g.traced[r.ID]:
					// not one run a mutant: the domain's traced run did not finish
					undecided[i] = append(undecided[i], fmt.Sprintf("equivalence on %s not decided: its traced run did not finish within %s", k.Domain, limit))
				case !ok || v.kind == "unattributed":
					own = append(own, pending{i, ki})
				case v.kind == "differs":
					r.note(cfg, k.Name, "killed")
					r.Outcome, r.KilledBy, r.Gap, r.Evidence = Killed, k.Name, true, v.evidence
					decided = true
				case v.kind == "hang":
					r.note(cfg, k.Name, "timed-out")
					r.Outcome, r.KilledBy, r.Evidence, r.Detail = TimedOut, k.Name, v.evidence, "hangs on an input of the domain"
					decided = true
				default:
					r.note(cfg, k.Name, "passed")
					r.Domain = strings.TrimPrefix(r.Domain+"; "+k.Domain, "; ")
					r.Traced = true
				}
			}
			if decided {
				own = slices.DeleteFunc(own, func(p pending) bool { return p.i == i })
			}
		}
		var firstErr error
		each(ctx, cfg.Workers, own, func(p pending) {
			mu.Lock()
			r := results[p.i]
			mu.Unlock()
			if r.Outcome != Survived {
				return // another domain decided it meanwhile
			}
			start := time.Now()
			_, err := equivalenceOne(ctx, cfg, cfg.Equivalence[p.k], g.build, g.shared, r.ID, tmp, &r)
			r.Elapsed += time.Since(start)
			mu.Lock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			if err == nil {
				results[p.i] = r
			}
			mu.Unlock()
		})
		if firstErr != nil {
			return firstErr
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		for _, i := range idx {
			r := &results[i]
			switch {
			case r.Outcome == Survived && len(undecided[i]) > 0:
				r.Detail = strings.Join(undecided[i], "; ")
			case r.Outcome == Survived && r.Domain != "":
				r.Outcome = Equivalent
			case r.Outcome == Survived && !slices.ContainsFunc(cfg.Equivalence, func(k Killer) bool { return k.covers(r.Func) }):
				r.Detail = "no exhaustive domain covers " + r.Func
			}
		}
	}
	return nil
}

// recheckRun is one run of equivalence killer k from g's schema build with the mutants ids
// traced and every call during which one diverged re-run with it active (RecheckEnv; the
// campaign's side is fuzz's recheck), in directory dir. Its verdict on each: "differs" (a
// re-run returned something else than the original: the record is the witness, the
// original's result the wanted one), "hang" (a re-run did not return; the run is repeated
// without it), "unattributed" (it diverged outside a checked call: it needs a run of its
// own), or "" (proven: it never diverged, or none of its re-runs differed). complete is false
// when the run timed out: the mutants it had decided keep their verdict, the others have none.
func recheckRun(ctx context.Context, cfg Config, dir string, g *group, k Killer, ids []int) (map[int]verdict, bool, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, false, err
	}
	out := map[int]verdict{}
	limit := cfg.equivalenceLimit()
	bin, fail, err := g.shared.get(ctx, cfg.Dir, k)
	if err != nil {
		return nil, false, err
	}
	if fail != "" {
		return nil, false, fmt.Errorf("equivalence killer %s does not build: %s", k.Name, fail)
	}
	for attempt := 0; attempt < 50; attempt++ {
		var list []string
		for _, id := range ids {
			if _, ok := out[id]; !ok {
				list = append(list, fmt.Sprint(id))
			}
		}
		if len(list) == 0 {
			break
		}
		file := filepath.Join(dir, "recheck")
		os.Remove(file)
		env := []string{TraceEnv + "=" + strings.Join(list, ","), RecheckEnv + "=" + file}
		kctx, cancel := context.WithTimeout(ctx, limit)
		t, err := runTestsEnv(kctx, cfg.Dir, k, g.build, bin, 0, filepath.Join(dir, "evidence"), env)
		timedOut := kctx.Err() != nil
		cancel()
		hung := false
		if b, err := os.ReadFile(file); err == nil {
			for l := range strings.Lines(string(b)) {
				var rec struct {
					ID   int    `json:"id"`
					Kind string `json:"kind"`
				}
				if json.Unmarshal([]byte(l), &rec) != nil || !slices.Contains(ids, rec.ID) {
					continue
				}
				if w := (verdict{kind: rec.Kind, evidence: strings.TrimSpace(l)}); w.rank() > out[rec.ID].rank() {
					out[rec.ID] = w // a hang after a difference leaves the difference
				}
				hung = hung || rec.Kind == "hang"
			}
		}
		switch {
		case ctx.Err() != nil:
			return nil, false, ctx.Err()
		case timedOut:
			// what it found stands; the others are not known
			return out, false, nil
		case err != nil:
			return nil, false, fmt.Errorf("equivalence killer %s (rechecking): %v", k.Name, err)
		}
		if hung {
			continue // again without the mutant that hung
		}
		if t.failed {
			return nil, false, fmt.Errorf("equivalence killer %s fails without any mutant while rechecking mutants%s", k.Name, tail(t.lines))
		}
		for _, id := range ids {
			if _, ok := out[id]; !ok {
				out[id] = verdict{}
			}
		}
		break
	}
	return out, true, nil
}

// traceAll traces mutants ids under each killer of cfg from g's schema build (trace): a
// test-binary killer one top-level test at a time (cfg.Workers at once), so that a mutant
// runs only the tests in which it evaluated differently; a Main killer as a whole. Per
// killer, nil when a whole-killer run timed out; a test whose run timed out counts as
// infected by every mutant.
func traceAll(ctx context.Context, cfg Config, tmp string, g *group, ids []int) ([]map[int][]string, error) {
	infected := make([]map[int][]string, len(cfg.Killers))
	type unit struct {
		killer int
		test   testTime // zero: the whole killer
		at     int      // its index in g.tests[killer]
	}
	var units []unit
	for i := range cfg.Killers {
		infected[i] = map[int][]string{}
		if len(g.tests[i]) == 0 {
			units = append(units, unit{killer: i})
		}
		for j, t := range g.tests[i] {
			units = append(units, unit{i, t, j})
		}
	}
	var mu sync.Mutex
	var firstErr error
	parent := ctx
	ctx, cancel := context.WithCancel(ctx) // the first error stops the others
	defer cancel()
	each(ctx, cfg.Workers, units, func(u unit) {
		k, limit, tag := cfg.Killers[u.killer], max(50*g.baseline[u.killer], 2*time.Minute), cfg.Killers[u.killer].Name
		if u.test.name != "" {
			k, limit, tag = k.only([]string{u.test.name}), max(50*(u.test.took+g.overhead(u.killer)), 30*time.Second), fmt.Sprint(tag, "-", u.test.name)
		}
		start := time.Now()
		d, complete, err := trace(ctx, cfg, tmp, g, k, ids, limit, tag)
		mu.Lock()
		if u.test.name != "" {
			g.tests[u.killer][u.at].traced = time.Since(start)
		}
		switch {
		case errors.As(err, new(errFailsTraced)) && u.test.name != "":
			// the test fails on its own (it shares state with the killer's other tests):
			// nothing is known of this killer, and every mutant runs it whole
			infected[u.killer] = nil
		case err != nil:
			if firstErr == nil {
				firstErr = err
				cancel()
			}
		case u.test.name == "" && !complete:
			infected[u.killer] = nil
		case u.test.name == "":
			for id := range d {
				infected[u.killer][id] = nil
			}
		default:
			if !complete {
				d = g.traced
			}
			for id := range d {
				if infected[u.killer] != nil {
					infected[u.killer][id] = append(infected[u.killer][id], u.test.name)
				}
			}
		}
		mu.Unlock()
	})
	if firstErr == nil {
		firstErr = parent.Err()
	}
	for i, m := range infected {
		for id, tests := range m {
			// in the order the killer runs them
			slices.SortFunc(tests, func(a, b string) int {
				return slices.IndexFunc(g.tests[i], func(t testTime) bool { return t.name == a }) -
					slices.IndexFunc(g.tests[i], func(t testTime) bool { return t.name == b })
			})
			m[id] = tests
		}
	}
	return infected, firstErr
}

// each calls f on every item, workers (at least 1) at a time, and stops handing out items
// once ctx is done.
func each[T any](ctx context.Context, workers int, items []T, f func(T)) {
	queue := make(chan T)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for it := range queue {
				f(it)
			}
		})
	}
	for _, it := range items {
		if ctx.Err() != nil {
			break
		}
		queue <- it
	}
	close(queue)
	wg.Wait()
}

// overhead is killer i's baseline time outside its tests: the process's start and the
// package's initialisation.
func (g *group) overhead(i int) time.Duration {
	return max(g.baseline[i]-g.subset(i, nil), 0)
}

// subset is how long killer i's tests named in tests took in the baseline run (all of them
// when tests is nil). When tests is not nil it is what a run of just those tests is expected
// to take: each test's baseline time or, when longer, its traced run on its own (which paid
// for the setup that an earlier test paid in the baseline run), plus the process overhead.
func (g *group) subset(i int, tests []string) time.Duration {
	var d time.Duration
	for _, t := range g.tests[i] {
		switch {
		case tests == nil:
			d += t.took
		case slices.Contains(tests, t.name):
			d += max(t.took, t.traced)
		}
	}
	if tests != nil {
		d += g.overhead(i)
	}
	return d
}

// only is test-binary killer k restricted to the top-level tests named (its Skip still
// applies).
func (k Killer) only(tests []string) Killer {
	q := make([]string, len(tests))
	for i, t := range tests {
		q[i] = regexp.QuoteMeta(t)
	}
	k.Run = "^(" + strings.Join(q, "|") + ")$"
	return k
}

// errFailsTraced is a traced run that failed with no mutant active: a killer that is not
// deterministic, or one of its tests that fails when run on its own.
type errFailsTraced struct{ killer string }

func (e errFailsTraced) Error() string {
	return fmt.Sprintf("killer %s fails without any mutant while tracing mutants", e.killer)
}

// trace runs killer k once from g's schema build with no mutant active and the mutants ids
// traced (TraceEnv), within limit, and returns the ones whose expression evaluated
// differently from the original's at least once (DivergedEnv). complete is false when the
// run timed out (then nothing is known). A killer that fails while tracing is an error: with
// no mutant active it must pass. tag names the run's files in tmp.
func trace(ctx context.Context, cfg Config, tmp string, g *group, k Killer, ids []int, limit time.Duration, tag string) (diverged map[int]bool, complete bool, err error) {
	bin, fail, err := g.shared.get(ctx, cfg.Dir, k)
	if err != nil {
		return nil, false, err
	}
	if fail != "" {
		return nil, false, fmt.Errorf("killer %s does not build: %s", k.Name, fail)
	}
	list := make([]string, len(ids))
	for n, id := range ids {
		list[n] = fmt.Sprint(id)
	}
	file := filepath.Join(tmp, "diverged-"+tag)
	os.Remove(file)
	defer os.Remove(file)
	env := []string{TraceEnv + "=" + strings.Join(list, ","), DivergedEnv + "=" + file}
	kctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	t, err := runTestsEnv(kctx, cfg.Dir, k, g.build, bin, 0, filepath.Join(tmp, "evidence-trace-"+tag), env)
	switch {
	case ctx.Err() != nil:
		return nil, false, ctx.Err()
	case kctx.Err() != nil:
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("killer %s (tracing): %v", k.Name, err)
	case t.failed:
		return nil, false, fmt.Errorf("%w%s", errFailsTraced{k.Name}, tail(t.lines))
	}
	diverged = map[int]bool{}
	if b, err := os.ReadFile(file); err == nil {
		for l := range strings.Lines(string(b)) {
			if id, err := strconv.Atoi(strings.TrimSpace(l)); err == nil {
				diverged[id] = true
			}
		}
	}
	return diverged, true, nil
}

// failureLines are the first lines a failing test printed (where a differential test says
// which input differs): those between the first "--- FAIL" line and the "=== RUN" line before
// it, at most 6, trimmed.
func failureLines(lines []string) string {
	end := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "--- FAIL") })
	if end < 0 {
		end = len(lines)
	}
	start := 0
	for i := end - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "=== ") {
			start = i + 1
			break
		}
	}
	var out []string
	for _, l := range lines[start:end] {
		if l = strings.TrimSpace(l); l != "" && len(out) < 6 {
			out = append(out, l)
		}
	}
	return strings.Join(out, " | ")
}

// note records killer's verdict in r's kill matrix when cfg asks for one.
func (r *Result) note(cfg Config, killer, verdict string) {
	if !cfg.Matrix {
		return
	}
	if r.Matrix == nil {
		r.Matrix = map[string]string{}
	}
	r.Matrix[killer] = verdict
}

// outcome is what a build or a test run said.
type outcome struct {
	failed bool       // the build failed, or a test failed (or the binary crashed)
	test   string     // the first failing test
	passed int        // top-level tests that passed
	tests  []testTime // the top-level tests that passed or skipped, in order
	runs   int        // the top-level tests that started ("=== RUN" lines)
	whole  bool       // every line was read (none longer than the scanner's 1 MiB)
	lines  []string   // the output's lines (a build's, or the last ones of a run)
}

// tail is the last lines of out, indented, for an error message.
func tail(lines []string) string {
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	if len(lines) == 0 {
		return ""
	}
	return ":\n\t" + strings.Join(lines, "\n\t")
}

// firstCompileError is the first line of a failed build that is not a "# package" header.
func firstCompileError(lines []string) string {
	for _, l := range lines {
		if l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return strings.Join(lines, " ")
}

// goBuild builds k's binary at out under b with `go test -c -json` (`go build -json` for a
// Main killer): failed when the build failed (a build-fail event), with the compiler's
// lines. The error is for go not running, or failing without a build failure to show for it.
func goBuild(ctx context.Context, dir string, k Killer, b Build, overlay, out string) (outcome, error) {
	return goRun(ctx, dir, b, k.buildArgs(b, overlay, out))
}

// goRun runs the go command with args (a -json build) in dir for b's GOARCH.
func goRun(ctx context.Context, dir string, b Build, args []string) (outcome, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOARCH="+b.GOARCH)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var o outcome
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e struct{ Action, Output string }
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch e.Action {
		case "build-output":
			for l := range strings.Lines(e.Output) {
				o.lines = append(o.lines, strings.TrimRight(l, "\n"))
			}
		case "build-fail":
			o.failed = true
		}
	}
	if err != nil && !o.failed && ctx.Err() == nil {
		return o, fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return o, nil
}

// runWithin is runTests bounded by limit: timedOut when the limit (not ctx) ended it.
func runWithin(ctx context.Context, limit time.Duration, dir string, k Killer, b Build, bin string, mutant int, evidence string) (t outcome, timedOut bool, err error) {
	kctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	t, err = runTests(kctx, dir, k, b, bin, mutant, evidence)
	return t, kctx.Err() == context.DeadlineExceeded && ctx.Err() == nil, err
}

// runTests runs k's binary bin (under qemu-aarch64 for an arm64 build on another host), a
// test binary in k's package directory, a Main killer in dir, with mutant active (0: none):
// failed when it exits non-zero (a failing test, findings, a panic, a crash), with the first
// failing test's name.
func runTests(ctx context.Context, dir string, k Killer, b Build, bin string, mutant int, evidence string) (outcome, error) {
	return runTestsEnv(ctx, dir, k, b, bin, mutant, evidence, nil)
}

// runTestsEnv is runTests with more environment variables.
func runTestsEnv(ctx context.Context, dir string, k Killer, b Build, bin string, mutant int, evidence string, env []string) (outcome, error) {
	name, args := bin, k.runArgs(evidence)
	if b.GOARCH != runtime.GOARCH {
		name, args = "qemu-"+qemuArch(b.GOARCH), append([]string{bin}, args...)
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = filepath.Join(dir, k.Pkg)
	if k.Main {
		cmd.Dir = dir
	}
	cmd.Env = append(append(os.Environ(), fmt.Sprintf("%s=%d", SchemaEnv, mutant)), env...)
	cmd.WaitDelay = 5 * time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return outcome{}, err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return outcome{}, err
	}
	var t outcome
	var window []string // the last lines, until the first failure
	frozen := false
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "=== RUN   ") && !strings.Contains(l, "/"):
			t.runs++
		case strings.HasPrefix(l, "--- PASS: "), strings.HasPrefix(l, "--- SKIP: "):
			if strings.HasPrefix(l, "--- PASS: ") {
				t.passed++
			}
			// "--- PASS: TestX (0.66s)"
			name, took, _ := strings.Cut(l[len("--- PASS: "):], " ")
			d, _ := time.ParseDuration(strings.Trim(took, "()"))
			t.tests = append(t.tests, testTime{name: name, took: d})
		case strings.HasPrefix(l, "--- FAIL: ") && t.test == "":
			t.test, _, _ = strings.Cut(strings.TrimPrefix(l, "--- FAIL: "), " ")
		}
		if frozen {
			continue
		}
		if window = append(window, l); len(window) > 128 {
			window = window[len(window)-64:]
		}
		if strings.HasPrefix(strings.TrimSpace(l), "--- FAIL: ") {
			frozen = true // keep the first failure's output
		}
	}
	t.lines = window
	if sc.Err() != nil {
		io.Copy(io.Discard, stdout) // the rest, unread, so that the process can end
	} else {
		t.whole = true
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		if k.Main {
			t.passed = 1
		}
	case errors.As(err, &exit) || ctx.Err() != nil:
		t.failed = true
	default:
		return t, err
	}
	return t, nil
}

// qemuArch is qemu-user's name for a GOARCH.
func qemuArch(goarch string) string {
	if goarch == "arm64" {
		return "aarch64"
	}
	return goarch
}
