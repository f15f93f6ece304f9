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
	run(ctx context.Context, sp *Space, ck *Checkpoint, part string) (*fuzz.Report, error)
}

// Builtins are the built-in implementations as one candidate: they run together, each
// distinct function once a case, and their fast paths (fuzz.Checker's quick path, the option
// classes) stay inside fuzz.
type Builtins []fuzz.Impl

// Part is the mode's name: the built-ins' share of a mode is the mode.
func (b Builtins) Part(mode string) string { return mode }

func (b Builtins) run(ctx context.Context, sp *Space, ck *Checkpoint, part string) (*fuzz.Report, error) {
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

func (t Target) run(ctx context.Context, sp *Space, ck *Checkpoint, part string) (*fuzz.Report, error) {
	if prev := ck.Ended(part); prev != nil {
		return prev, nil
	}
	ck.Begin(part)
	r, err := fuzz.RunTargetUnits(ctx, t.Target, sp.Target(), sp.Progress, ck.TargetUnits(part))
	if sp.Finish != nil {
		sp.Finish(ctx, r, err)
	}
	if err == nil && !r.Interrupted {
		ck.End(part, r)
	}
	return r, err
}

// Space is one input space of a campaign (exhaustive, boundary, ...) as each kind of candidate
// takes it.
type Space struct {
	// Builtin runs the space against the built-in implementations; units, when set, resumes
	// it unit by unit.
	Builtin func(ctx context.Context, impls []fuzz.Impl, units fuzz.UnitTracker) (*fuzz.Report, error)
	// Target is the space as a target is asked it (its exhaustive spaces cut into units).
	Target func() []fuzz.TargetSpace
	// Progress shows the targets' spaces.
	Progress fuzz.Progress
	// Finish, if set, is called with each target's report of the space (and its error) before
	// it is merged, to complete it.
	Finish func(ctx context.Context, r *fuzz.Report, err error)
}

// Part is one mode of a campaign: a Space run against every candidate in turn, each
// candidate's share resumed unit by unit from a checkpoint; or, when Whole is set or Space is
// nil, run (Space against every candidate, or Run) and resumed whole: a part that ended is not
// run again, one that was interrupted runs again from its start.
type Part struct {
	Name   string
	Space  *Space
	Whole  bool
	Before func() // when set, called before the part runs (not when a checkpoint has it done)
	After  func() // when set, called after the part's space ran against every candidate without error
	Run    func(ctx context.Context) (*fuzz.Report, error)
}

// Campaign is the parts of a campaign, the candidates they run against and its checkpoint
// (nil without).
type Campaign struct {
	Parts      []Part
	Candidates []Candidate
	Checkpoint *Checkpoint
}

// Run runs the parts in turn (those the checkpoint has as ended are taken from it), until one
// fails or ctx is cancelled: every finding made so far is kept in the report.
func Run(ctx context.Context, c Campaign) (*fuzz.Report, error) {
	rep := &fuzz.Report{}
	ck := c.Checkpoint
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

// runUnits runs p's space against each candidate, each share resumed from the checkpoint.
func runUnits(ctx context.Context, c Campaign, p Part) (*fuzz.Report, error) {
	return eachCandidate(c, p, func(cand Candidate) (*fuzz.Report, error) {
		return cand.run(ctx, p.Space, c.Checkpoint, cand.Part(p.Name))
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
			r, err := fuzz.RunTarget(ctx, cand.Target, p.Space.Target(), p.Space.Progress)
			if p.Space.Finish != nil {
				p.Space.Finish(ctx, r, err)
			}
			return r, err
		}
		return nil, nil
	})
}

// eachCandidate runs one's share of part p for each candidate in turn, between p's Before and
// After, and merges their reports; on an error it returns what was found so far with it.
func eachCandidate(c Campaign, p Part, one func(Candidate) (*fuzz.Report, error)) (*fuzz.Report, error) {
	if p.Before != nil {
		p.Before()
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
	if p.After != nil {
		p.After()
	}
	return rep, nil
}
