package mutation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

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
		verdicts, complete, err := recheckAll(ctx, cfg, tmp, g, idx, results)
		if err != nil {
			return err
		}
		own, undecided := applyVerdicts(cfg, g, idx, results, verdicts, complete)
		if err := runOwn(ctx, cfg, tmp, g, own, results); err != nil {
			return err
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

// recheckAll runs each equivalence killer once over g's traced survivors idx (recheckRun), in
// parallel; a domain that shards is split into cfg.Workers shards (Killer.Shard) so that the
// longest one does not run alone. It returns each killer's verdicts and whether its runs
// finished; the first error stops the others.
func recheckAll(ctx context.Context, cfg Config, tmp string, g *group, idx []int, results []Result) ([]map[int]verdict, []bool, error) {
	perShard := make([][]map[int]verdict, len(cfg.Equivalence))
	complete := make([]bool, len(cfg.Equivalence))
	var errs []error
	var mu sync.Mutex
	rctx, cancel := context.WithCancel(ctx)
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
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	// In shard order, whatever order they ended in: a difference in any shard decides (the
	// first shard's witness), then a hang, then an unattributed divergence; proven only when
	// every shard proves it.
	verdicts := make([]map[int]verdict, len(cfg.Equivalence))
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
	return verdicts, complete, nil
}

// pending is a survivor (result i) that equivalence killer k must run on alone.
type pending struct{ i, k int }

// applyVerdicts merges the killers' verdicts into the results idx, killers in order: a
// difference kills, a hang times out, a proof names the domain. It returns what the rechecks
// left open (own: runs of their own) and why a survivor is not decided, per result.
func applyVerdicts(cfg Config, g *group, idx []int, results []Result, verdicts []map[int]verdict, complete []bool) ([]pending, map[int][]string) {
	limit := cfg.equivalenceLimit()
	undecided := map[int][]string{}
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
	return own, undecided
}

// runOwn runs each pending survivor alone under its equivalence killer (equivalenceOne), on
// cfg.Workers workers; one another domain decided meanwhile is skipped.
func runOwn(ctx context.Context, cfg Config, tmp string, g *group, own []pending, results []Result) error {
	var mu sync.Mutex
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
	return ctx.Err()
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
