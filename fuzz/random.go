package fuzz

import (
	"context"
	"fmt"
	"iter"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// CheckFunc compares candidates with the oracle on one input of one operation (opts is for
// escape), appending findings to out; c is the calling goroutine's Checker. The method
// expression (*Checker).Check is the plain comparison; GuardedCheck adds guard pages.
type CheckFunc func(c *Checker, out []*Finding, op Op, cands []Impl, src []byte, opts jsonopt.Options) []*Finding

// DefaultCheck is the CheckFunc random campaigns, the native fuzz targets, minimization and
// repro use when told nothing else: GuardedCheck, the Checker's comparison and memory checks
// plus the guard-page pass.
var DefaultCheck CheckFunc = GuardedCheck

// RandomConfig selects a random campaign (DESIGN.md §3, "random"): Count inputs, or as many
// as fit in Duration (whichever ends first when both are set), generated from Seed.
// Its Config's MaxFindings are kept and minimized first by input index, its Progress is shown
// for a count budget, its Sink receives every finding as found, unminimized.
type RandomConfig struct {
	Config
	Seed        int64         // the campaign's seed: the same seed gives the same inputs
	Count       uint64        // inputs to check (0: no count limit)
	Duration    time.Duration // time budget (0: none); the inputs checked are always 0..n-1
	MaxLen      int           // longest input (default DefaultMaxLen)
	StopAtFirst bool          // stop after the lowest-numbered input that makes a finding
	NoMinimize  bool          // report findings as found
	Check       CheckFunc     // default DefaultCheck
}

// RandomResult is a random campaign's outcome: the report (one "random" space per operation)
// and what the generator drew.
type RandomResult struct {
	*Report
	Seed   int64
	Inputs uint64    // inputs checked: exactly inputs 0..Inputs-1 of the seed
	Stats  *GenStats // byte classes and option bits drawn
	// First maps each candidate that made a finding to the number of inputs it took: 1 + the
	// index of the first input on which it differed.
	First map[string]uint64
}

// Repro is the command line that checks exactly the same inputs again.
func (r *RandomResult) Repro() string {
	return fmt.Sprintf("difffuzz --random %dx --seed %d", r.Inputs, r.Seed)
}

// randomBlock is how many consecutive inputs a worker takes at a time.
const randomBlock = 256

// Random runs a random campaign. Input i is always the same for a given seed (see
// Generator), and the inputs checked are always 0..n-1 whatever the number of workers, so a
// campaign is reproduced by its seed and count. Findings are kept in input order (at most
// MaxFindings per operation and candidate), minimized, de-duplicated and sorted. A cancelled
// ctx ends the campaign after the blocks in flight, with everything found so far.
func Random(ctx context.Context, cfg RandomConfig) (*RandomResult, error) {
	if err := cfg.defaults(false); err != nil {
		return nil, err
	}
	if cfg.Count == 0 && cfg.Duration <= 0 {
		return nil, fmt.Errorf("random campaign without a budget: give a count or a duration")
	}
	if cfg.MaxLen <= 0 {
		cfg.MaxLen = DefaultMaxLen
	}
	if cfg.Check == nil {
		cfg.Check = DefaultCheck
	}
	if cfg.Count == 0 {
		cfg.Progress = noProgress{}
	}
	r := &randomRun{cfg: &cfg, opCands: map[Op][]Impl{}, results: map[uint64]*blockResult{}}
	start := time.Now()
	if cfg.Duration > 0 {
		r.deadline = start.Add(cfg.Duration)
	}
	if cfg.Count > 0 {
		r.blocks = (cfg.Count + randomBlock - 1) / randomBlock
	}
	cfg.Progress.Begin("random", cfg.Count)
	// The candidates of each operation: those that offer it.
	for _, op := range cfg.Ops {
		for _, im := range cfg.Impls {
			if im.Has(op) {
				r.opCands[op] = append(r.opCands[op], im)
			}
		}
	}
	var wg sync.WaitGroup
	for w := 0; w < cfg.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.work(ctx)
		}()
	}
	wg.Wait()
	cfg.Progress.End()
	return r.result(ctx, time.Since(start)), nil
}

// randomRun is a random campaign being run: its workers claim blocks of randomBlock inputs in
// turn (next) and leave each finished block's result.
type randomRun struct {
	cfg      *RandomConfig
	opCands  map[Op][]Impl // the candidates of each operation: those that offer it
	blocks   uint64        // 0: unlimited
	deadline time.Time     // zero: none
	next     atomic.Uint64
	firstHit atomic.Uint64 // 1 + lowest input index with a finding (StopAtFirst), 0 none
	mu       sync.Mutex
	// results holds each finished block's result; the campaign covers the blocks below the
	// first unfinished one (a block claimed after the budget ran out may be abandoned while a
	// later one, claimed just before, completes).
	results map[uint64]*blockResult
}

// blockResult is what one block of inputs found.
type blockResult struct {
	findings []*Finding
	diffs    map[Op]uint64
	stats    *GenStats
}

// work checks blocks until the budget is spent, ctx is cancelled or (StopAtFirst) a block
// past the first finding would be next.
func (r *randomRun) work(ctx context.Context) {
	cfg := r.cfg
	g := NewGenerator(cfg.Seed)
	g.MaxLen = cfg.MaxLen
	var c Checker
	var local []*Finding
	for {
		b := r.next.Add(1) - 1
		if (r.blocks > 0 && b >= r.blocks) || ctx.Err() != nil ||
			(!r.deadline.IsZero() && time.Now().After(r.deadline)) {
			return
		}
		if f := r.firstHit.Load(); f > 0 && b*randomBlock >= f {
			return
		}
		lo, hi := b*randomBlock, (b+1)*randomBlock
		if cfg.Count > 0 {
			hi = min(hi, cfg.Count)
		}
		br := &blockResult{diffs: map[Op]uint64{}, stats: NewGenStats()}
		g.Stats = br.stats
		local = r.block(g, &c, local, br, lo, hi)
		r.mu.Lock()
		r.results[b] = br
		r.mu.Unlock()
		cfg.Progress.Advance(hi - lo)
	}
}

// block checks inputs lo..hi-1 through each operation's candidates into br: every finding to
// the Sink, at most MaxFindings per operation and candidate kept.
func (r *randomRun) block(g *Generator, c *Checker, local []*Finding, br *blockResult, lo, hi uint64) []*Finding {
	cfg := r.cfg
	counts := map[string]int{}
	for i := lo; i < hi; i++ {
		s := g.Sample(i)
		for _, op := range cfg.Ops {
			if len(r.opCands[op]) == 0 {
				continue
			}
			opts := jsonopt.Options(0)
			if op == OpEscape {
				opts = s.Opts
			}
			local = cfg.Check(c, local[:0], op, r.opCands[op], s.Input, opts)
			for _, f := range local {
				br.diffs[op]++
				f.Space = "random"
				if cfg.Sink != nil {
					f.Origin = fmt.Sprintf("random --seed %d, input #%d", cfg.Seed, i)
					cfg.Sink.Add(f)
				}
				k := string(f.Op) + "\x00" + f.Impl
				if counts[k] < cfg.MaxFindings {
					counts[k]++
					f.Origin = fmt.Sprintf("random --seed %d, input #%d", cfg.Seed, i)
					br.findings = append(br.findings, f)
				}
			}
		}
		if cfg.StopAtFirst && len(br.findings) > 0 {
			for {
				f := r.firstHit.Load()
				if f != 0 && f <= i+1 || r.firstHit.CompareAndSwap(f, i+1) {
					break
				}
			}
			break
		}
	}
	return local
}

// result is the campaign's result from the finished blocks below the first unfinished one.
func (r *randomRun) result(ctx context.Context, elapsed time.Duration) *RandomResult {
	cfg := r.cfg
	var done uint64 // blocks 0..done-1 all finished
	for r.results[done] != nil {
		done++
	}
	inputs := done * randomBlock
	if cfg.Count > 0 {
		inputs = min(inputs, cfg.Count)
	}
	hit := r.firstHit.Load()
	if cfg.StopAtFirst && hit > 0 && hit <= inputs {
		inputs = hit
	} else {
		hit = 0
	}
	interrupted := ctx.Err() != nil && hit == 0 && (cfg.Count == 0 || inputs < cfg.Count)
	stats := NewGenStats()
	diffs := map[Op]uint64{}
	res := &RandomResult{Report: &Report{Interrupted: interrupted}, Seed: cfg.Seed, Inputs: inputs, Stats: stats, First: map[string]uint64{}}
	counts := map[string]int{}
	var found []*Finding
	for b := uint64(0); b < done; b++ {
		br := r.results[b]
		stats.Merge(br.stats)
		for op, n := range br.diffs {
			diffs[op] += n
		}
		for _, f := range br.findings {
			i := originIndex(f)
			if i >= inputs {
				continue
			}
			if _, ok := res.First[f.Impl]; !ok {
				res.First[f.Impl] = i + 1
			}
			k := string(f.Op) + "\x00" + f.Impl
			if counts[k] < cfg.MaxFindings {
				counts[k]++
				found = append(found, f)
			}
		}
	}
	if !cfg.NoMinimize {
		found = minimizeAll(found, cfg.Impls, cfg.Check)
	}
	res.Findings = found
	sort.SliceStable(res.Findings, func(i, j int) bool { return less(res.Findings[i], res.Findings[j]) })
	r.spaces(res, diffs, elapsed)
	return res
}

// spaces adds to res a SpaceReport per operation some candidate offers.
func (r *randomRun) spaces(res *RandomResult, diffs map[Op]uint64, elapsed time.Duration) {
	for _, op := range r.cfg.Ops {
		cands := r.opCands[op]
		if len(cands) == 0 {
			continue
		}
		sr := SpaceReport{Space: "random", Op: op, Strings: res.Inputs, OptionSets: 1, Cases: res.Inputs, Impls: implNamesOrdered(cands),
			Distinct: len(distinctFuncs(op, cands, -1)), Differences: diffs[op], Elapsed: elapsed, Complete: !res.Interrupted}
		if s := elapsed.Seconds(); s > 0 {
			sr.CasesPerSec = float64(res.Inputs) / s
		}
		res.Spaces = append(res.Spaces, sr)
		res.Differences += diffs[op]
	}
}

// originIndex reads the input index back from a random finding's Origin.
func originIndex(f *Finding) uint64 {
	var seed int64
	var i uint64
	fmt.Sscanf(f.Origin, "random --seed %d, input #%d", &seed, &i)
	return i
}

// minimizeAll minimizes each finding with its candidate (found by name in impls) and drops
// the ones that minimize to the same case as an earlier one.
func minimizeAll(fs []*Finding, impls []Impl, check CheckFunc) []*Finding {
	one := OneCheck(check)
	seen := map[string]bool{}
	var out []*Finding
	for _, f := range fs {
		for _, im := range impls {
			if im.Name == f.Impl {
				f = Minimize(f, im, one)
				break
			}
		}
		k := fmt.Sprintf("%s\x00%s\x00%s\x00%x\x00%d", f.Op, f.Impl, f.Kind, f.Input, f.Flags)
		if !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	return out
}

// RandomCases yields the random campaign's cases for op (inputs 0..count-1 of seed, escape
// with each input's option set), for external targets; stop, if not nil, ends the sequence
// early (a time budget).
func RandomCases(op Op, seed int64, count uint64, maxLen int, stop func() bool) iter.Seq[Case] {
	return randomCases(op, seed, count, maxLen, stop, ^jsonopt.Options(0))
}

// RandomTargetSpace is the random space of op for an external target: inputs 0..count-1 of
// seed (RandomCases); for a target that announced options=, each input's option set is drawn
// inside the mask (projected onto it).
func RandomTargetSpace(op Op, seed int64, count uint64, maxLen int, stop func() bool) TargetSpace {
	sp := TargetSpace{Space: "random", Origin: fmt.Sprintf("random --seed %d", seed), Op: op, Strings: count, OptionSets: 1, Total: count,
		Seq: RandomCases(op, seed, count, maxLen, stop)}
	sp.within = func(mask jsonopt.Options) TargetSpace {
		r := sp
		r.Seq, r.within = randomCases(op, seed, count, maxLen, stop, mask), nil
		return r
	}
	return sp
}

func randomCases(op Op, seed int64, count uint64, maxLen int, stop func() bool, mask jsonopt.Options) iter.Seq[Case] {
	return func(yield func(Case) bool) {
		g := NewGenerator(seed)
		if maxLen > 0 {
			g.MaxLen = maxLen
		}
		for i := uint64(0); i < count; i++ {
			if stop != nil && i%randomBlock == 0 && stop() {
				return
			}
			s := g.Sample(i)
			c := Case{Op: op, Input: s.Input}
			if op == OpEscape {
				c.Flags = s.Opts & mask
			}
			if !yield(c) {
				return
			}
		}
	}
}
