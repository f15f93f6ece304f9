package mutation

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

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
