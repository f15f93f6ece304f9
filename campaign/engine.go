package campaign

import (
	"context"

	"github.com/difffuzz/difffuzz/fuzz"
)

// Candidate is what a campaign compares with the oracle: the built-in implementations
// (Builtins) or one protocol target (Target). Each runs a Space its own way; the engine (Run)
// resumes each candidate's share of a part from the checkpoint alike.
type Candidate interface {
	// Part names the candidate's share of mode in a checkpoint: the mode for the built-ins,
	// "MODE NAME" for a target.
	Part(mode string) string
	// run checks sp against the candidate; ck (nil without a checkpoint) resumes it unit by
	// unit under part.
	run(ctx context.Context, sp Space, ck *Checkpoint, part string, progress fuzz.Progress) (*fuzz.Report, error)
}

// Builtins are the built-in implementations as one candidate: they run together, each
// distinct function once a case, and their fast paths (fuzz.Checker's quick path, the option
// classes) stay inside fuzz.
type Builtins []fuzz.Impl

// Part is the mode's name: the built-ins' share of a mode is the mode.
func (b Builtins) Part(mode string) string { return mode }

func (b Builtins) run(ctx context.Context, sp Space, ck *Checkpoint, part string, _ fuzz.Progress) (*fuzz.Report, error) {
	ck.Begin(part)
	r, err := sp.Builtin(ctx, b, ck.Units())
	if err != nil {
		return nil, err
	}
	ck.AddPrior(r)
	return r, nil
}

// Target is a protocol target (--exec) as a candidate: batching, restarts and
// witness-skipping stay inside fuzz.Target.
type Target struct{ *fuzz.Target }

// Part is "MODE NAME".
func (t Target) Part(mode string) string { return mode + " " + t.Name }

func (t Target) run(ctx context.Context, sp Space, ck *Checkpoint, part string, progress fuzz.Progress) (*fuzz.Report, error) {
	if prev := ck.Ended(part); prev != nil {
		return prev, nil
	}
	ck.Begin(part)
	return runTarget(ctx, t, sp, progress, ck.TargetUnits(part, t.Target), func(r *fuzz.Report) {
		ck.End(part, r)
		ck.KeepWitnesses(t.Target)
	})
}

// runTarget runs sp's cases through t, resumed by units (nil: whole); ended, if the run ended
// (no error, not interrupted), is given the report.
func runTarget(ctx context.Context, t Target, sp Space, progress fuzz.Progress, units func(fuzz.TargetSpace) fuzz.SpaceUnits, ended func(*fuzz.Report)) (*fuzz.Report, error) {
	fin, _ := sp.(targetFinisher)
	if fin != nil {
		progress = fin.targetProgress(progress)
	}
	r, err := fuzz.RunTargetUnits(ctx, t.Target, sp.Cases(), progress, units)
	if fin != nil {
		fin.finishTarget(ctx, r, err)
	}
	if err == nil && !r.Interrupted && ended != nil {
		ended(r)
	}
	return r, err
}

// Part is one mode of a campaign: a Space run against every candidate in turn, each
// candidate's share resumed unit by unit from a checkpoint; or, when Whole is set or Space is
// nil, run (Space against every candidate, or Run) and resumed whole: a part that ended is not
// run again, one that was interrupted runs again from its start.
type Part struct {
	Name  string
	Space Space
	Whole bool
	Run   func(ctx context.Context) (*fuzz.Report, error)
}

// Campaign is the parts of a campaign, the candidates they run against, its checkpoint (nil
// without) and the progress the targets' spaces show.
type Campaign struct {
	Parts      []Part
	Candidates []Candidate
	Checkpoint *Checkpoint
	Progress   fuzz.Progress
}

// Run runs the parts in turn (those the checkpoint has as ended are taken from it), until one
// fails or ctx is cancelled: every finding made so far is kept in the report.
func Run(ctx context.Context, c Campaign) (*fuzz.Report, error) {
	rep := &fuzz.Report{}
	ck := c.Checkpoint
	for _, t := range c.targets() {
		ck.RestoreWitnesses(t) // (an earlier run's, as of the work it vouches for)
	}
	for _, p := range c.Parts {
		if ctx.Err() != nil {
			rep.Interrupted = true
			break
		}
		var r *fuzz.Report
		var err error
		if p.Space != nil && !p.Whole {
			r, err = runUnits(ctx, c, p)
		} else {
			if prev := ck.Ended(p.Name); prev != nil {
				rep.Merge(prev)
				continue
			}
			ck.Begin(p.Name)
			r, err = runWhole(ctx, c, p)
			if r != nil && err == nil && !r.Interrupted {
				ck.End(p.Name, r)
				keepWitnesses(c)
			}
		}
		if r != nil {
			rep.Merge(r)
		}
		if err != nil {
			// Keep every finding made so far: the caller prints them and the summary, then
			// the error.
			rep.Interrupted = true
			return rep, err
		}
	}
	return rep, nil
}

// targets are the campaign's protocol targets among its candidates.
func (c Campaign) targets() []*fuzz.Target {
	var out []*fuzz.Target
	for _, cand := range c.Candidates {
		if t, ok := cand.(Target); ok {
			out = append(out, t.Target)
		}
	}
	return out
}

// keepWitnesses records every target's witnesses in the checkpoint (after a part ended).
func keepWitnesses(c Campaign) {
	for _, t := range c.targets() {
		c.Checkpoint.KeepWitnesses(t)
	}
}

// runUnits runs p's space against each candidate, each share resumed from the checkpoint.
func runUnits(ctx context.Context, c Campaign, p Part) (*fuzz.Report, error) {
	return eachCandidate(c, p, func(cand Candidate) (*fuzz.Report, error) {
		return cand.run(ctx, p.Space, c.Checkpoint, cand.Part(p.Name), c.Progress)
	})
}

// runWhole runs a part that resumes whole: Run, or its space against each candidate.
func runWhole(ctx context.Context, c Campaign, p Part) (*fuzz.Report, error) {
	if p.Space == nil {
		return p.Run(ctx)
	}
	return eachCandidate(c, p, func(cand Candidate) (*fuzz.Report, error) {
		switch cand := cand.(type) {
		case Builtins:
			return p.Space.Builtin(ctx, cand, nil)
		case Target:
			return runTarget(ctx, cand, p.Space, c.Progress, nil, nil)
		}
		return nil, nil
	})
}

// eachCandidate runs one's share of part p for each candidate in turn, between its space's
// begin and end hooks (if it has them), and merges their reports; on an error it returns what was found so far with it.
func eachCandidate(c Campaign, p Part, one func(Candidate) (*fuzz.Report, error)) (*fuzz.Report, error) {
	if b, ok := p.Space.(beginner); ok {
		b.begin()
	}
	rep := &fuzz.Report{}
	for _, cand := range c.Candidates {
		r, err := one(cand)
		if r != nil {
			rep.Merge(r)
		}
		if err != nil {
			return rep, err
		}
	}
	if e, ok := p.Space.(ender); ok {
		e.end()
	}
	return rep, nil
}
