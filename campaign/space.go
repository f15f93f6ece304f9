package campaign

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/report"
)

// Scope is what every space of a campaign covers and runs with: the operations and lengths,
// the shard, the workers, where progress and findings go, and the candidates (which some
// spaces name in what they say before and after they run).
type Scope struct {
	Ops         []fuzz.Op
	MaxLen      int  // the exhaustive spaces' longest input (0: each operation's default)
	FullOptions bool // escape every exhaustive length under all 2,048 option sets
	// Default is the default campaign (no mode flag): each space runs its default budget, a
	// target's exhaustive space the small one (fuzz.DefaultTargetSpaces).
	Default       bool
	Shard, Shards int // part Shard of Shards of the exhaustive and boundary spaces (Shards ≤ 1: all)
	Workers       int
	Progress      fuzz.Progress
	Sink          fuzz.Sink
	Stderr        io.Writer
	Builtins      []fuzz.Impl
	Targets       []*fuzz.Target
	Reference     *fuzz.Target // --reference-exec (nil without)
}

// config is the fuzz.Config of a space run over impls.
func (s *Scope) config(impls []fuzz.Impl) fuzz.Config {
	return fuzz.Config{Ops: s.Ops, Impls: impls, Workers: s.Workers, Progress: s.Progress, Sink: s.Sink}
}

// Space is one input space of a campaign (exhaustive, boundary, random). Each kind of
// candidate takes it its own way: the built-ins by their fast paths (Builtin: fuzz.Checker's
// quick path, the option classes, guard-page placements), a target as streams of cases
// (Cases), the exhaustive ones cut into the units that sharding and checkpoints count. The
// engine (Run) runs it against every candidate alike.
type Space interface {
	// Builtin runs the space over the built-in implementations; units, when set, resumes it
	// unit by unit.
	Builtin(ctx context.Context, impls []fuzz.Impl, units fuzz.UnitTracker) (*fuzz.Report, error)
	// Cases is the space as a target is asked it: a stream of cases per operation (and length).
	Cases() []fuzz.TargetSpace
	// Plan is the space as a plan states it before the run: its spaces over the built-ins, and
	// the streams a target will be asked (Cases, or a stand-in of the same size).
	Plan() ([]PlanSpace, []fuzz.TargetSpace)
}

// The hooks a space may have besides Space.
type (
	// beginner says what the space is about to check, once, before the candidates run it.
	beginner interface{ begin() }
	// ender says what the space checked, after every candidate ran it without error.
	ender interface{ end() }
	// targetFinisher completes each target's report of the space (and its error) before it
	// is merged, and may show its progress otherwise (nil: none).
	targetFinisher interface {
		finishTarget(ctx context.Context, r *fuzz.Report, err error)
		targetProgress(p fuzz.Progress) fuzz.Progress
	}
)

// Exhaustive is every string of each length through each operation under its option sets:
// for the built-ins 1–4 bytes through the decoders and 1–3 through the escaper (fuzz.Exhaustive;
// MaxLen changes the lengths), for a target the default campaign's small space or, asked for,
// escape up to MaxLen (default 2) and the decoders up to MaxLen (default 3).
type Exhaustive struct{ S *Scope }

// Builtin runs fuzz.Exhaustive; with units (a checkpoint) the spaces resume unit by unit.
func (e Exhaustive) Builtin(ctx context.Context, impls []fuzz.Impl, units fuzz.UnitTracker) (*fuzz.Report, error) {
	s := e.S
	return fuzz.Exhaustive(ctx, fuzz.ExhaustiveConfig{Config: s.config(impls), MaxLen: s.MaxLen,
		FullOptions: s.FullOptions, Shard: s.Shard, Shards: s.Shards, Units: units})
}

// Cases is the exhaustive space as a target is asked it, which answers far fewer requests a
// second than a built-in: in the default campaign every 1-byte string under all 2,048 option
// sets and every 2-byte string under 8 representative ones; otherwise escape up to MaxLen
// (default 2) under fuzz.ExhaustiveCombos and the decoders up to MaxLen (default 3).
func (e Exhaustive) Cases() []fuzz.TargetSpace {
	s := e.S
	if s.Default {
		return fuzz.ShardTargetSpaces(fuzz.DefaultTargetSpaces(s.Ops), s.Shard, s.Shards)
	}
	var out []fuzz.TargetSpace
	for _, op := range s.Ops {
		n := s.MaxLen
		if n == 0 {
			n = 3
			if op == fuzz.OpEscape {
				n = 2
			}
		}
		if op != fuzz.OpEscape {
			out = append(out, fuzz.ExhaustiveTargetSpaces([]fuzz.Op{op}, n, nil)...)
			continue
		}
		for k := 1; k <= n; k++ { // each length under its option sets (fuzz.ExhaustiveCombos)
			out = append(out, fuzz.ExhaustiveTargetSpaces([]fuzz.Op{op}, k, fuzz.ExhaustiveCombos(k, s.FullOptions))[k-1])
		}
	}
	return fuzz.ShardTargetSpaces(out, s.Shard, s.Shards)
}

// Plan is one row per operation and length, and Cases.
func (e Exhaustive) Plan() ([]PlanSpace, []fuzz.TargetSpace) { return exhaustivePlan(e.S), e.Cases() }

// Boundary is the bytes an escaper or decoder treats specially at every offset around the 16-,
// 32- and 64-byte edges of vector code (fuzz.Boundary), each call with the input flush against
// a guard page; a target gets the stratified edge inputs and a sample of each family.
type Boundary struct {
	S        *Scope
	Families []string // nil: all
	// Sample is the built-ins' placements of each family (0: all); TargetSample a target's.
	Sample, TargetSample uint64
}

// Builtin runs fuzz.Boundary.
func (b Boundary) Builtin(ctx context.Context, impls []fuzz.Impl, _ fuzz.UnitTracker) (*fuzz.Report, error) {
	s := b.S
	return fuzz.Boundary(ctx, fuzz.BoundaryConfig{Config: s.config(impls), Families: b.Families, Sample: b.Sample,
		Shard: s.Shard, Shards: s.Shards})
}

// Cases is fuzz.BoundaryTargetSpaces.
func (b Boundary) Cases() []fuzz.TargetSpace {
	return fuzz.BoundaryTargetSpaces(b.S.Ops, b.Families, b.TargetSample, b.S.Shard, b.S.Shards)
}

// Plan is one row per operation, and Cases.
func (b Boundary) Plan() ([]PlanSpace, []fuzz.TargetSpace) {
	return boundaryPlan(b.S, b.Families, b.Sample), b.Cases()
}

func (b Boundary) begin() {
	s := b.S
	if len(s.Targets) > 0 {
		fmt.Fprintln(s.Stderr, boundaryTargetLine(s, b.Families, b.TargetSample))
	}
	if len(s.Builtins) > 0 && !fuzz.GuardPages() {
		fmt.Fprintln(s.Stderr, "difffuzz: no guard pages (mmap unavailable): reads outside the input go undetected in the boundary space")
	}
}

// Random is Count generated inputs (or as many as Duration allows), reproducible from Seed
// (DESIGN.md §3); every finding goes to the run's triage, which minimizes one per group.
// Random inputs are not split between shards: shard 0 checks them all (Part).
type Random struct {
	S        *Scope
	Seed     int64
	Count    uint64
	Duration time.Duration
	Stats    bool           // print what the generator drew
	inputs   uint64         // inputs checked (0..inputs-1), the first candidate's that checked any
	st       *fuzz.GenStats // what the built-ins' generator drew
}

// Part is the random space as the engine runs it, resumed whole; on a shard other than 0, a
// part that says it is left to shard 0.
func (r *Random) Part() Part {
	s := r.S
	if s.Shards > 1 && s.Shard != 0 {
		return Part{Name: "random", Run: func(context.Context) (*fuzz.Report, error) {
			fmt.Fprintf(s.Stderr, "difffuzz: random: left to shard 0/%d (random inputs are not split between shards)\n", s.Shards)
			return &fuzz.Report{}, nil
		}}
	}
	return Part{Name: "random", Whole: true, Space: r}
}

// Builtin runs fuzz.Random.
func (r *Random) Builtin(ctx context.Context, impls []fuzz.Impl, _ fuzz.UnitTracker) (*fuzz.Report, error) {
	s := r.S
	res, err := fuzz.Random(ctx, fuzz.RandomConfig{Config: s.config(impls), Seed: r.Seed, Count: r.Count,
		Duration: r.Duration, NoMinimize: s.Sink != nil}) // the triage minimizes one finding per group
	if err != nil {
		return nil, err
	}
	r.inputs, r.st = res.Inputs, res.Stats
	return res.Report, nil
}

// Cases is the random inputs as a target is asked them, one stream per operation, each
// getting its share of a Duration from its first case (the run's triage minimizes its
// findings by asking the target again).
func (r *Random) Cases() []fuzz.TargetSpace {
	total := r.Count
	if r.Duration > 0 {
		total = math.MaxInt64 // until the time is up
	}
	ops := r.S.Ops
	var spaces []fuzz.TargetSpace
	for _, op := range ops {
		var end time.Time
		stop := func() bool {
			if r.Duration <= 0 {
				return false
			}
			if end.IsZero() {
				end = time.Now().Add(r.Duration / time.Duration(len(ops)))
			}
			return time.Now().After(end)
		}
		spaces = append(spaces, fuzz.RandomTargetSpace(op, r.Seed, total, 0, stop))
	}
	return spaces
}

// Plan is one row (or a duration), and for targets Count inputs per operation of any seed
// (seed 1 sizes and times them); none under a Duration or on a shard other than 0.
func (r *Random) Plan() ([]PlanSpace, []fuzz.TargetSpace) {
	s := r.S
	if s.Shards > 1 && s.Shard != 0 {
		return nil, nil // left to shard 0
	}
	if r.Duration > 0 {
		return []PlanSpace{{Space: "random", Op: "all", Shape: "mixed", Budget: r.Duration}}, nil
	}
	var out []fuzz.TargetSpace
	for _, op := range s.Ops {
		out = append(out, fuzz.RandomTargetSpace(op, 1, r.Count, 0, nil))
	}
	return randomPlan(s, r.Count), out
}

func (r *Random) begin() {
	budget := report.Count(r.Count) + " inputs"
	if r.Count == 0 {
		budget = "for " + r.Duration.String()
	}
	fmt.Fprintf(r.S.Stderr, "difffuzz: random: seed %d, %s\n", r.Seed, budget)
}

// targetProgress: a target's spaces under a Duration have no meaningful total.
func (r *Random) targetProgress(p fuzz.Progress) fuzz.Progress {
	if r.Duration > 0 {
		return nil
	}
	return p
}

// finishTarget counts what a target checked: under a Duration, its spaces' strings are the
// inputs it was asked, complete unless stopped early.
func (r *Random) finishTarget(ctx context.Context, rep *fuzz.Report, err error) {
	var inputs uint64
	for i := range rep.Spaces {
		sp := &rep.Spaces[i]
		if r.Duration > 0 {
			sp.Strings = sp.Cases + sp.NotRun + sp.Skipped
			sp.Complete = ctx.Err() == nil && err == nil
		}
		inputs = max(inputs, sp.Cases+sp.NotRun+sp.Skipped)
	}
	if r.inputs == 0 {
		r.inputs = inputs
	}
}

// end says what the generator drew (Stats) and how to check the same inputs again.
func (r *Random) end() {
	s := r.S
	if r.Stats {
		if r.st == nil { // external targets only: the same inputs, generated again for counting
			g := fuzz.NewGenerator(r.Seed)
			for i := uint64(0); i < r.inputs; i++ {
				g.Sample(i)
			}
			r.st = g.Stats
		}
		fmt.Fprintln(s.Stderr, "difffuzz: random: what the generator drew (--stats):")
		r.st.Write(s.Stderr)
	}
	if r.inputs == 0 {
		why := "no candidate offers the operations asked for" // (a target announces only some)
		if r.Duration > 0 {
			why = fmt.Sprintf("--random %v ran out before an input was checked, or %s", r.Duration, why)
		}
		fmt.Fprintf(s.Stderr, "difffuzz: random: no input was checked (%s)\n", why)
		return
	}
	again := fmt.Sprintf("difffuzz --random %dx --seed %d", r.inputs, r.Seed)
	if ref := s.Reference; ref != nil {
		again += " --reference-exec " + fuzz.ShellQuote(ExecArg(ref))
	}
	for _, t := range s.Targets {
		again += " --exec " + fuzz.ShellQuote(ExecArg(t))
	}
	fmt.Fprintf(s.Stderr, "difffuzz: random: checked inputs 0..%d of seed %d; the same inputs again: %s\n", r.inputs-1, r.Seed, again)
}

// boundaryTargetLine describes the boundary sample the --exec targets get, for stderr: the
// stratified edge inputs, the placements per family and the requests per operation that a
// target announces.
func boundaryTargetLine(c *Scope, fams []string, sample uint64) string {
	counts := fuzz.BoundaryTargetCounts(c.Ops, fams, sample, c.Shard, c.Shards)
	if len(counts) == 0 {
		return "difffuzz: boundary for --exec targets: no operations"
	}
	c0 := counts[0]
	var b strings.Builder
	b.WriteString("difffuzz: boundary for --exec targets")
	if c.Shards > 1 {
		fmt.Fprintf(&b, " (shard %d/%d)", c.Shard, c.Shards)
	}
	b.WriteString(": ")
	if fams == nil {
		fmt.Fprintf(&b, "%s stratified edge inputs (every unit ending at, starting at and straddling each 16/32/64-byte edge; escape under %d option sets) + ",
			report.Count(c0.StratifiedInput), len(fuzz.StratifiedOptions))
	}
	famWord := "families"
	if c0.Families == 1 {
		famWord = "family"
	}
	if sample == 0 {
		fmt.Fprintf(&b, "all %s placements of %d %s", report.Count(c0.Placements), c0.Families, famWord)
	} else {
		fmt.Fprintf(&b, "at most %s placements of each of %d %s (%s in all)", report.Count(sample), c0.Families, famWord, report.Count(c0.Placements))
	}
	var ops []string
	for _, n := range counts {
		for _, t := range c.Targets {
			if t.Has(n.Op) {
				ops = append(ops, fmt.Sprintf("%s %s", n.Op, report.Count(n.Cases())))
				break
			}
		}
	}
	if len(ops) > 0 {
		fmt.Fprintf(&b, ": %s requests", strings.Join(ops, ", "))
	}
	return b.String()
}
