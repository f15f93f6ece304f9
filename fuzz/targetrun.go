package fuzz

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"sort"
	"time"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// spaceUnits cut a target space into units of work as the built-in exhaustive spaces are cut:
// units of size consecutive strings of the whole space (ExhaustiveUnit), so that a checkpoint
// resumes it unit by unit.
type spaceUnits struct {
	size, count uint64
	strings     func(u uint64) uint64         // the strings of unit u in the space
	cases       func(u uint64) iter.Seq[Case] // its cases, in enumeration order
}

// exhaustiveUnits are the units of op's length-n exhaustive space under opts (sets of them).
func exhaustiveUnits(op Op, n int, opts []jsonopt.Options, sets int) *spaceUnits {
	total := pow256(n)
	size := ExhaustiveUnit(op, n, sets)
	span := func(u uint64) (from, to uint64) { return u * size, min((u+1)*size, total) }
	return &spaceUnits{size: size, count: (total + size - 1) / size,
		strings: func(u uint64) uint64 { from, to := span(u); return to - from },
		cases:   func(u uint64) iter.Seq[Case] { from, to := span(u); return exhaustiveRange(op, n, opts, from, to) },
	}
}

// shard is the units of part k of n of the space (ShardTargetSpaces): each unit keeps its
// strings v with v % n == k, each with its sets consecutive cases.
func (su *spaceUnits) shard(k, n, sets uint64) *spaceUnits {
	if su == nil {
		return nil
	}
	part := *su
	part.strings = func(u uint64) uint64 { return countMod(u*su.size, su.strings(u), k, n) }
	part.cases = func(u uint64) iter.Seq[Case] {
		seq := su.cases(u)
		return func(yield func(Case) bool) {
			var i uint64 // case index in the unit; its string is u*size + i/sets
			for c := range seq {
				if (u*su.size+i/sets)%n == k && !yield(c) {
					return
				}
				i++
			}
		}
	}
	return &part
}

// UnitCounts are what the units of work of a target space counted, as its SpaceReport counts.
type UnitCounts struct {
	Cases, NotRun, Skipped, Differences uint64
	Elapsed                             time.Duration
}

func (c UnitCounts) minus(d UnitCounts) UnitCounts {
	return UnitCounts{Cases: c.Cases - d.Cases, NotRun: c.NotRun - d.NotRun, Skipped: c.Skipped - d.Skipped,
		Differences: c.Differences - d.Differences}
}

// SpaceUnits keeps the units of work of one target space that are done (TargetSpace.UnitSize),
// for a checkpoint (RunTargetUnits). Its methods are called from one goroutine: Prior, Done of
// every unit, then Begin and Finished of each unit this run checks, in order.
type SpaceUnits interface {
	// Prior is what earlier runs counted in the units that are done, and the findings they
	// kept there (the first TargetConfig.MaxFindings found), in the order found.
	Prior() (UnitCounts, []*Finding)
	// Done reports whether unit u was checked by an earlier run.
	Done(u uint64) bool
	// Begin says that the findings that reach the Sink from now on are of unit u.
	Begin(u uint64)
	// Finished records that this run checked unit u, after its findings reached the Sink.
	Finished(u uint64, c UnitCounts)
}

// RunTarget runs each space's cases through the target (skipping operations it did not
// announce) and reports them like the built-in spaces: every finding goes to
// TargetConfig.Sink (Space set to the space's name), at most TargetConfig.MaxFindings per
// operation are kept in the report. Cases not sent (see Target) are counted in each
// SpaceReport's NotRun and Skipped. Findings made before an error (the target could not be
// restarted, or ctx was cancelled) are kept in the report.
func RunTarget(ctx context.Context, t *Target, spaces []TargetSpace, progress Progress) (*Report, error) {
	return RunTargetUnits(ctx, t, spaces, progress, nil)
}

// RunTargetUnits is RunTarget resuming earlier runs: units, if set, gives the checkpoint of
// each space cut into units (the exhaustive ones): units it reports done are not sent again,
// and what earlier runs counted and kept there is part of the report.
func RunTargetUnits(ctx context.Context, t *Target, spaces []TargetSpace, progress Progress, units func(TargetSpace) SpaceUnits) (*Report, error) {
	if progress == nil {
		progress = noProgress{}
	}
	rep := &Report{}
	for i, sp := range spaces {
		sp = t.fit(sp)
		if !t.Has(sp.Op) || sp.Total == 0 || t.vs != nil && !t.vs.Has(sp.Op) {
			continue // (a build is compared with its reference on the operations both serve)
		}
		r := &spaceRun{t: t, sp: sp, progress: progress}
		if units != nil && sp.units != nil {
			r.su = units(sp)
		}
		err := r.run(ctx)
		sr := r.report()
		sort.SliceStable(r.fs, func(i, j int) bool { return less(r.fs[i], r.fs[j]) })
		rep.Merge(&Report{Spaces: []SpaceReport{sr}, Findings: r.fs, Differences: sr.Differences})
		if err != nil {
			rep.Interrupted = true
			if ctx.Err() != nil {
				return rep, nil
			}
			return rep, notChecked(err, t, sp, spaces[i+1:])
		}
	}
	return rep, nil
}

// fit is sp as the target is asked it: only what it can take is sent, counted and shown; the
// string options outside its announced options= are not checked (Unchecked).
func (t *Target) fit(sp TargetSpace) TargetSpace {
	if sp.within != nil && sp.Op == OpEscape && t.Has(sp.Op) && t.caps.Options != ^jsonopt.Options(0) {
		sp = sp.Within(t.caps.Options)
		t.unchecked |= jsonopt.StringPath &^ t.caps.Options
		if t.caps.Options&jsonopt.NumericCheck == 0 {
			t.unchecked |= jsonopt.StringPath & jsonopt.PreserveZeroFraction // not asked without it (MaskOptions)
		}
	}
	return sp
}

// spaceRun is one space of RunTargetUnits being run.
type spaceRun struct {
	t        *Target
	sp       TargetSpace
	progress Progress
	su       SpaceUnits // nil: no checkpoint

	prior UnitCounts // what earlier runs counted in the units done
	done  uint64     // the cases of those units
	fs    []*Finding // kept (earlier runs' first)
	diffs uint64     // this run's findings
	st    checkStats
	chunk []Case
	err   error
	start time.Time
}

// run sends the space's cases (those of the units not done, when it has units) in chunks.
func (r *spaceRun) run(ctx context.Context) error {
	r.chunk = make([]Case, 0, 1<<16)
	units := r.sp.units
	var skip []bool
	if units != nil {
		skip = r.resume()
	}
	r.progress.Begin(fmt.Sprintf("%s %s %s", r.t.Name, r.sp.Space, r.sp.Op), r.sp.Total-r.done)
	defer r.progress.End()
	r.start = time.Now()
	if units == nil {
		if r.feed(ctx, r.sp.Seq) && len(r.chunk) > 0 {
			r.flush(ctx)
		}
		return r.err
	}
	for u := uint64(0); u < units.count; u++ {
		if skip[u] {
			continue
		}
		if r.su != nil {
			r.su.Begin(u)
		}
		before, t0 := r.counts(), time.Now()
		// A unit ends with a flush: its findings reach the Sink before it is finished.
		if !r.feed(ctx, units.cases(u)) || len(r.chunk) > 0 && !r.flush(ctx) {
			break
		}
		if r.su != nil {
			c := r.counts().minus(before)
			c.Elapsed = time.Since(t0)
			r.su.Finished(u, c)
		}
	}
	return r.err
}

// resume takes what earlier runs counted and kept from the checkpoint, and says which units
// they did.
func (r *spaceRun) resume() []bool {
	units := r.sp.units
	skip := make([]bool, units.count)
	if r.su == nil {
		return skip
	}
	var found []*Finding
	r.prior, found = r.su.Prior()
	r.fs = slices.Clone(found[:min(len(found), r.t.cfg.MaxFindings)])
	for u := range skip {
		if r.su.Done(uint64(u)) {
			skip[u] = true
			r.done += units.strings(uint64(u)) * uint64(max(r.sp.OptionSets, 1))
		}
	}
	return skip
}

func (r *spaceRun) counts() UnitCounts {
	return UnitCounts{Cases: r.st.answered, NotRun: r.st.notRun, Skipped: r.st.skipped, Differences: r.diffs}
}

// feed sends seq's cases of the space's operation, a chunk at a time; false when a chunk
// failed (r.err).
func (r *spaceRun) feed(ctx context.Context, seq iter.Seq[Case]) bool {
	for c := range seq {
		if c.Op != r.sp.Op {
			continue
		}
		r.chunk = append(r.chunk, c)
		if len(r.chunk) == cap(r.chunk) && !r.flush(ctx) {
			return false
		}
	}
	return true
}

// flush sends the chunk (and asks the reference, if any) and hands every finding to the Sink;
// false when that failed (r.err).
func (r *spaceRun) flush(ctx context.Context) bool {
	t := r.t
	var f []*Finding
	var e error
	if t.vs != nil {
		f, e = t.askReference(ctx, r.chunk)
	}
	if e == nil {
		var g []*Finding
		g, e = t.check(ctx, r.chunk, func(n int) { r.progress.Advance(uint64(n)) }, &r.st)
		f = append(f, g...)
	}
	for _, g := range f {
		g.Space = r.sp.Space
		if r.sp.Origin != "" && g.Origin == "" {
			g.Origin = r.sp.Origin
		}
		r.diffs++
		if t.cfg.Sink != nil {
			t.cfg.Sink.Add(g)
		}
		if len(r.fs) < t.cfg.MaxFindings {
			r.fs = append(r.fs, g)
		}
	}
	r.err = e
	r.chunk = r.chunk[:0]
	return e == nil
}

// report is what the space checked, the units earlier runs did included.
func (r *spaceRun) report() SpaceReport {
	sp, st, p := r.sp, r.st, r.prior
	el := time.Since(r.start) + p.Elapsed
	handled := st.answered + st.notRun + st.skipped + r.done
	sr := SpaceReport{Space: sp.Space, Op: sp.Op, Len: sp.Len, Strings: sp.Strings, OptionSets: sp.OptionSets,
		Cases: st.answered + p.Cases, NotRun: st.notRun + p.NotRun, Skipped: st.skipped + p.Skipped, Impls: []string{r.t.Name}, Distinct: 1,
		Differences: r.diffs + p.Differences, Elapsed: el, Complete: handled == sp.Total}
	if !sr.Complete && sp.OptionSets > 0 {
		sr.Strings = handled / uint64(sp.OptionSets)
	}
	if s := el.Seconds(); s > 0 {
		sr.CasesPerSec = float64(sr.Cases) / s
	}
	return sr
}
