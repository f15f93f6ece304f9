package mutation

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

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
	groups, err := groupTargets(cfg, targets, &builds)
	if err != nil {
		return nil, sum, err
	}
	jobs, err := prepareGroups(ctx, cfg, tmp, groups, &sum, &builds)
	if err != nil {
		return nil, sum, err
	}
	// results in the targets' order
	order := map[string]int{}
	for i, t := range targets {
		order[t.File] = i
	}
	slices.SortStableFunc(jobs, func(a, b job) int {
		return order[a.g.targets[a.target].File] - order[b.g.targets[b.target].File]
	})
	results := make([]Result, len(jobs))
	for i := range jobs {
		jobs[i].index = i
		results[i].Mutant = jobs[i].m
	}
	if cfg.Started != nil {
		cfg.Started(sum)
	}
	firstErr := runJobs(ctx, cfg, tmp, jobs, results, &sum)
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

// groupTargets groups the targets by the build their mutants need (BuildFor), in order.
func groupTargets(cfg Config, targets []Target, builds *atomic.Int64) ([]*group, error) {
	var groups []*group
	byBuild := map[Build]*group{}
	for _, t := range targets {
		abs := t.File
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cfg.Dir, t.File)
		}
		abs, err := filepath.Abs(abs)
		if err != nil {
			return nil, err
		}
		b, err := BuildFor(t.File, t.Src)
		if err != nil {
			return nil, err
		}
		g := byBuild[b]
		if g == nil {
			g = &group{build: b, builds: builds}
			byBuild[b] = g
			groups = append(groups, g)
		}
		g.targets = append(g.targets, t)
		g.abs = append(g.abs, abs)
	}
	return groups, nil
}

// prepareGroups makes each group's schema build, runs its killers without a mutant (the
// baseline), traces its schema mutants, and returns the jobs: one a mutant.
func prepareGroups(ctx context.Context, cfg Config, tmp string, groups []*group, sum *Summary, builds *atomic.Int64) ([]job, error) {
	var jobs []job
	for gi, g := range groups {
		gdir := filepath.Join(tmp, fmt.Sprint("g", gi))
		g.traced = map[int]bool{}
		inSchema, overlay, err := prepareSchemas(ctx, cfg, g, gdir, sum)
		if err != nil {
			return nil, err
		}
		g.shared = &binaries{dir: gdir, build: g.build, overlay: overlay, paths: map[string]string{}, fails: map[string]string{}, builds: builds}
		if g.baseline, g.tests, err = baseline(ctx, cfg, g.shared); err != nil {
			return nil, err
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
				return nil, err
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
	return jobs, nil
}

// runJobs runs the jobs on cfg.Workers workers, schema mutants first (the cheap ones,
// results soonest), separate builds after, into results; the first error (or the context's)
// stops it.
func runJobs(ctx context.Context, cfg Config, tmp string, jobs []job, results []Result, sum *Summary) error {
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
	return firstErr
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
	dir := filepath.Join(tmp, fmt.Sprint("m", j.m.ID))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err
	}
	defer os.RemoveAll(dir) // its binaries: tens of MB each
	bs, id, err := j.binaries(dir, &r)
	if err != nil {
		return r, err
	}
	if done, err := runKillers(ctx, cfg, j, bs, id, &r); done || err != nil {
		return r, err
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

// binaries are the builds the job's mutant runs in, and the mutant's number in them (0: the
// mutation is built in): its group's schema binaries, the patched binaries of a table
// mutant, or a build of its own through an overlay in dir. r.How says which.
func (j job) binaries(dir string, r *Result) (*binaries, int, error) {
	switch {
	case j.schema:
		return j.g.shared, j.m.ID, nil
	case j.m.patch != nil:
		r.How = "patch"
		return &binaries{dir: dir, build: j.g.build, paths: map[string]string{}, fails: map[string]string{}, builds: j.g.builds, from: j.g.shared, patch: j.m.patch}, 0, nil
	}
	r.How = "build"
	abs := j.g.abs[j.target]
	mutated := filepath.Join(dir, filepath.Base(abs))
	if err := os.WriteFile(mutated, j.m.Apply(j.g.targets[j.target].Src), 0o644); err != nil {
		return nil, 0, err
	}
	replace := map[string]string{abs: mutated}
	if j.g.shared.overlay != "" {
		// the schemas of the other files stay in, all inactive
		var prev struct{ Replace map[string]string }
		if b, err := os.ReadFile(j.g.shared.overlay); err == nil && json.Unmarshal(b, &prev) == nil {
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
		return nil, 0, err
	}
	return &binaries{dir: dir, build: j.g.build, overlay: overlay, paths: map[string]string{}, fails: map[string]string{}, builds: j.g.builds}, 0, nil
}

// runKillers runs cfg's killers on the job's mutant (in bs, as number id), each within a
// multiple of its baseline time, and records the outcome in r; done when it is final (not
// survived; or, without a kill matrix, the first kill).
func runKillers(ctx context.Context, cfg Config, j job, bs *binaries, id int, r *Result) (done bool, err error) {
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
			return true, ctx.Err()
		case err != nil:
			return true, fmt.Errorf("mutant %d: %v", j.m.ID, err)
		case fail != "":
			r.Outcome, r.Detail = NotViable, fail
			return true, nil
		}
		if err := r.killer(ctx, cfg, k, j.g.build, bin, id, limit); err != nil {
			return true, err
		}
		if r.Outcome != Survived && !cfg.Matrix {
			return true, nil
		}
	}
	return r.Outcome != Survived, nil
}

// killer runs killer k's binary bin on mutant id within limit and records what it did.
func (r *Result) killer(ctx context.Context, cfg Config, k Killer, build Build, bin string, id int, limit time.Duration) error {
	t, timedOut, err := runWithin(ctx, limit, cfg.Dir, k, build, bin, id, "")
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case timedOut:
		r.note(cfg, k.Name, "timed-out")
		if r.Outcome == Survived {
			r.Outcome, r.KilledBy = TimedOut, k.Name
		}
	case err != nil:
		return fmt.Errorf("mutant %d, killer %s: %v", r.Mutant.ID, k.Name, err)
	case t.failed:
		r.note(cfg, k.Name, "killed")
		if r.Outcome != Killed {
			r.Outcome, r.KilledBy, r.Test = Killed, k.Name, t.test
		}
	default:
		r.note(cfg, k.Name, "passed")
	}
	return nil
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
