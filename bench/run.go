package bench

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"golang.org/x/perf/benchmath"

	"github.com/difffuzz/difffuzz/corpus"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/protocol"
)

// Cell is one thing timed: an operation on a corpus at a size under an option set.
type Cell struct {
	Op      protocol.Op     // escape, decode or utf8_decode
	Corpus  string          // a corpus name (package corpus), "short" or "batch"
	Size    int             // bytes of the input (batch: of all its strings together)
	Options jsonopt.Options // escape's option set; 0 for the decoders
	// Inputs are the strings one run goes through, in order: one, or a batch's many.
	Inputs [][]byte
	// Unit is what a time is given per: "call" (one run over Inputs) or, for decode, "code
	// point" (a run divided by the code points it decodes).
	Unit string
	// PerRun is how many Units one run makes (1 for "call").
	PerRun int
}

// Name is the cell's path in the report: "escape/4KiB/cyrillic/UNESCAPED_UNICODE" (options
// "default" when none).
func (c Cell) Name() string {
	return fmt.Sprintf("%s/%s/%s/%s", c.Op, SizeLabel(c), c.Corpus, OptionsLabel(c.Options))
}

// SizeLabel is the cell's size level: "16B", "4KiB", …, "8-11B" for short strings and
// "10000x8-11B" for the batch.
func SizeLabel(c Cell) string {
	switch c.Corpus {
	case "short":
		return "8-11B"
	case "batch":
		return fmt.Sprintf("%dx8-11B", len(c.Inputs))
	}
	return corpus.SizeName(c.Size)
}

// OptionsLabel names an option set by PHP's JSON_* names without the prefix, "default" for none.
func OptionsLabel(o jsonopt.Options) string {
	if o == 0 {
		return "default"
	}
	return o.Short()
}

// Timer runs a prepared cell n times and returns how long the n runs took, by the
// candidate's own clock.
type Timer func(n int) (time.Duration, error)

// Candidate is one implementation (or anchor) the report times.
type Candidate struct {
	Name string
	// Anchor marks a candidate that does not implement the operation (copy(), encoding/json,
	// utf8.Valid …): it is timed for scale and its answer is not checked.
	Anchor bool
	// Prepare checks the candidate's answer for the cell against the oracle's (except for
	// anchors) and returns its Timer. It returns an error wrapping ErrSkip when the candidate
	// does not do the cell (its operation or option set); any other error refuses the
	// candidate for the cell (a wrong answer is never timed) and is reported with it.
	Prepare func(c Cell) (Timer, error)
}

// ErrSkip is wrapped by a Prepare error for a cell the candidate does not do.
var ErrSkip = errors.New("not done by this candidate")

// Progress is told of the passes as they run (fuzz.Progress's method set).
type Progress interface {
	Begin(label string, total uint64)
	Advance(n uint64)
	End()
}

// Config is one report's settings.
type Config struct {
	Cells      []Cell
	Candidates []Candidate // the first is A: it is also timed as its own A/A control
	// Baseline names the candidate the ratios are to (default: the first).
	Baseline string
	// Passes is how many timed passes each candidate makes over each cell, alternating with
	// the others (default DefaultPasses, at least MinPasses).
	Passes int
	// PassTime is about how long one pass of one candidate over one cell takes: the number of
	// runs per pass is calibrated to it (default 100ms).
	PassTime time.Duration
	Progress Progress // nil: none
	// Control, if set, is the A/A control: the same implementation as the first candidate,
	// prepared and timed on its own (for an external target, a second process of the same
	// command, so that the floor includes the noise between processes). Nil: the first
	// candidate's prepared runs timed again, under the control's name. Its Name is ignored.
	Control *Candidate
}

// ControlSuffix names the A/A control: the first candidate timed again as if it were another.
const ControlSuffix = " (A/A)"

// MinPasses is the fewest passes a report makes; DefaultPasses, the most the medians'
// 95% confidence intervals need (benchmath gives none below 6), is the default.
const (
	MinPasses     = 5
	DefaultPasses = 6
)

// CheckSettings says which of a report's format, passes and pass time is out of range, as
// "--format ...", "--passes ..." or "--pass-time ...", before any time is spent timing.
func CheckSettings(format string, passes int, passTime time.Duration) error {
	if !slices.Contains(Formats, format) {
		return fmt.Errorf("--format %q: want one of %s", format, strings.Join(Formats, ", "))
	}
	if passes < MinPasses || passes > 1000 {
		return fmt.Errorf("--passes %d: from %d (a median and its range) to 1000", passes, MinPasses)
	}
	if passTime < time.Millisecond || passTime > time.Minute {
		return fmt.Errorf("--pass-time %v: want 1ms to 1m", passTime)
	}
	return nil
}

// Measure is one candidate on one cell.
type Measure struct {
	Candidate string    `json:"candidate"`
	Runs      int       `json:"runs_per_pass,omitempty"` // calibrated runs per pass
	Passes    []float64 `json:"passes_ns,omitempty"`     // ns per Unit, each pass, in order
	Median    float64   `json:"median_ns,omitempty"`     // benchmath's center (the median), ns per Unit
	Lo        float64   `json:"lo_ns,omitempty"`         // benchmath's 95% confidence interval of the median (none below 6 passes)
	Hi        float64   `json:"hi_ns,omitempty"`
	Min       float64   `json:"min_ns,omitempty"` // the fastest and slowest pass
	Max       float64   `json:"max_ns,omitempty"`
	// Speedup is the baseline's median over this one's: 2 is twice as fast, 0.8 a 25% slower.
	Speedup float64 `json:"speedup,omitempty"`
	// Copies is this median over copy()'s on the same cell: the call's cost in copies of the
	// input (0 when copy() was not timed).
	Copies float64 `json:"copies,omitempty"`
	// Verdict is "faster" or "slower" when the speedup is outside the noise floor and the
	// passes tell the two apart (P below 0.05), else "≈"; "" for the baseline itself.
	Verdict string `json:"verdict,omitempty"`
	// P is benchmath's p-value (Mann-Whitney U) of this candidate's passes against the
	// baseline's: how likely passes this far apart are when the two take the same time.
	P float64 `json:"p,omitempty"`
	// Skipped says why the candidate was not timed on the cell (the operation or option set
	// is not its, or its answer is wrong: "wrong answer: …").
	Skipped string `json:"skipped,omitempty"`
}

// CellResult is a cell's measures, one per candidate in Report.Candidates order.
type CellResult struct {
	Name     string    `json:"name"`
	Op       string    `json:"op"`
	Size     string    `json:"size"`
	Bytes    int       `json:"bytes"`
	Corpus   string    `json:"corpus"`
	Options  string    `json:"options"`
	Flags    int       `json:"flags"`
	Strings  int       `json:"strings"`
	Unit     string    `json:"unit"`
	PerRun   int       `json:"units_per_run"`
	Measures []Measure `json:"measures"`
}

// Report is the outcome of Run.
type Report struct {
	Command    string   `json:"command,omitempty"` // the command line that made it (set by the caller)
	Machine    string   `json:"machine,omitempty"` // CPU model, cores, OS/arch, Go version (set by the caller)
	Targets    []string `json:"targets,omitempty"` // "NAME: COMMAND" of each external target (set by the caller)
	Candidates []string `json:"candidates"`        // column order: the first, its A/A control, the others
	Anchors    []string `json:"anchors"`           // those of Candidates that are anchors
	Baseline   string   `json:"baseline"`
	Control    string   `json:"control"`
	// Floor is the noise floor: the A/A control's largest deviation from the first candidate
	// over the cells, max |ln(control median / first median)| written as a fraction (0.013 is
	// 1.3%). A speedup within [1/(1+Floor), 1+Floor] is "≈".
	Floor    float64        `json:"noise_floor"`
	FloorAt  string         `json:"noise_floor_cell"` // the cell where it was seen
	Passes   int            `json:"passes"`
	PassTime time.Duration  `json:"pass_time_ns"`
	Cells    []CellResult   `json:"cells"`
	Levels   []LevelSummary `json:"levels"`
	// Interrupted is set when the context ended before every cell was timed: the cells
	// timed so far are reported.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Run times every candidate on every cell: for each cell, each candidate is calibrated (runs
// per pass so that a pass takes about PassTime), then Passes passes are timed, the
// candidates alternating (each pass in another order), with the first candidate timed a
// second time as the A/A control (Config.Control). Medians and their confidence intervals
// come from benchmath (AssumeNothing). A cancelled ctx ends the run after the pass under way;
// the report covers the cells timed to the end.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cands, rep, err := prepare(&cfg)
	if err != nil {
		return nil, err
	}
	base := slices.Index(rep.Candidates, rep.Baseline)
	copyAt := slices.Index(rep.Candidates, "copy")
	if cfg.Progress != nil {
		cfg.Progress.Begin("bench", uint64(len(cfg.Cells)*len(cands)*cfg.Passes))
		defer cfg.Progress.End()
	}
	for ci, cell := range cfg.Cells {
		if ctx.Err() != nil {
			rep.Interrupted = true
			break
		}
		cr, ok := runCell(ctx, cfg, ci, cell, cands)
		if !ok {
			rep.Interrupted = true
			break
		}
		score(&cr, base, copyAt)
		rep.Cells = append(rep.Cells, cr)
	}
	rep.Floor, rep.FloorAt = noiseFloor(rep.Cells)
	verdicts(rep, base)
	rep.Levels = levels(rep)
	return rep, nil
}

// prepare checks cfg and fills in its defaults, and returns the candidates in timing order (the
// first, its A/A control, the others) and the report they start.
func prepare(cfg *Config) ([]Candidate, *Report, error) {
	switch {
	case len(cfg.Candidates) == 0:
		return nil, nil, errors.New("bench: no candidates")
	case len(cfg.Cells) == 0:
		return nil, nil, errors.New("bench: no cells")
	}
	if cfg.Passes == 0 {
		cfg.Passes = DefaultPasses
	}
	if cfg.Passes < MinPasses {
		return nil, nil, fmt.Errorf("bench: %d passes: at least %d are needed", cfg.Passes, MinPasses)
	}
	if cfg.PassTime <= 0 {
		cfg.PassTime = 100 * time.Millisecond
	}
	first := cfg.Candidates[0]
	control := first
	if cfg.Control != nil {
		control = *cfg.Control
	}
	control.Name = first.Name + ControlSuffix
	cands := append([]Candidate{first, control}, cfg.Candidates[1:]...)
	rep := &Report{Baseline: cmp.Or(cfg.Baseline, first.Name), Control: control.Name, Passes: cfg.Passes, PassTime: cfg.PassTime}
	seen := map[string]bool{}
	for _, c := range cands {
		if seen[c.Name] {
			return nil, nil, fmt.Errorf("bench: two candidates are named %q", c.Name)
		}
		seen[c.Name] = true
		rep.Candidates = append(rep.Candidates, c.Name)
		if c.Anchor {
			rep.Anchors = append(rep.Anchors, c.Name)
		}
	}
	if !seen[rep.Baseline] {
		return nil, nil, fmt.Errorf("bench: baseline %q is not a candidate (%v)", rep.Baseline, cfg.Candidates[0].Name)
	}
	return cands, rep, nil
}

// noiseFloor is the A/A control's largest deviation from the first candidate over cells, either
// way (a control 1% faster or slower than the first makes a floor of 1%), and where it was.
func noiseFloor(cells []CellResult) (float64, string) {
	dev, at := 0.0, ""
	for _, cr := range cells {
		a, b := cr.Measures[0], cr.Measures[1]
		if a.Median > 0 && b.Median > 0 {
			if d := math.Abs(math.Log(b.Median / a.Median)); d > dev {
				dev, at = d, cr.Name
			}
		}
	}
	return math.Expm1(dev), at
}

// verdicts gives each measure its verdict: outside the floor, and told apart from the baseline
// by benchmath's comparison of the passes (Mann-Whitney U, alpha 0.05); otherwise "≈".
func verdicts(rep *Report, base int) {
	for i := range rep.Cells {
		ms := rep.Cells[i].Measures
		for j := range ms {
			m := &ms[j]
			m.Verdict = verdict(m.Speedup, rep.Floor, j == base)
			if m.Verdict == "" || len(ms[base].Passes) == 0 {
				continue
			}
			cmp := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(ms[base].Passes), &benchmath.DefaultThresholds),
				benchmath.NewSample(slices.Clone(m.Passes), &benchmath.DefaultThresholds))
			m.P = cmp.P
			if m.Verdict != "≈" && cmp.P >= cmp.Alpha {
				m.Verdict = "≈"
			}
		}
	}
}

// runCell calibrates and times every candidate on cell; false when ctx ended first.
func runCell(ctx context.Context, cfg Config, ci int, cell Cell, cands []Candidate) (CellResult, bool) {
	cr := CellResult{Name: cell.Name(), Op: string(cell.Op), Size: SizeLabel(cell), Bytes: cell.Size, Corpus: cell.Corpus,
		Options: OptionsLabel(cell.Options), Flags: int(cell.Options), Strings: len(cell.Inputs), Unit: cell.Unit, PerRun: max(cell.PerRun, 1)}
	cr.Measures = make([]Measure, len(cands))
	timers := prepareCell(cfg, cell, cands, cr.Measures)
	per := float64(cr.PerRun)
	for p := 0; p < cfg.Passes; p++ {
		// Each pass times the candidates in another order (a permutation drawn from the cell
		// and pass numbers, the same on every run), so that no candidate always follows
		// another: a slow start after a switch, or a burst of noise, spreads over all of them.
		order := rand.New(rand.NewPCG(uint64(ci), uint64(p))).Perm(len(cands))
		for _, i := range order {
			if ctx.Err() != nil {
				return cr, false
			}
			if cfg.Progress != nil {
				cfg.Progress.Advance(1)
			}
			m := &cr.Measures[i]
			if timers[i] == nil {
				continue
			}
			d, err := timers[i](m.Runs)
			if err == nil && d < 0 {
				err = fmt.Errorf("a negative time, %v", d)
			}
			if err != nil {
				m.Skipped, m.Passes, timers[i] = notTimed(err), nil, nil
				continue
			}
			m.Passes = append(m.Passes, float64(d.Nanoseconds())/float64(m.Runs)/per)
		}
	}
	summarize(cr.Measures)
	return cr, true
}

// prepareCell prepares and calibrates every candidate on cell: its timer (nil when it is not
// timed on the cell, ms[i].Skipped saying why) and its runs per pass in ms[i].Runs.
func prepareCell(cfg Config, cell Cell, cands []Candidate, ms []Measure) []Timer {
	timers := make([]Timer, len(cands))
	for i, c := range cands {
		ms[i].Candidate = c.Name
		if i == 1 && cfg.Control == nil { // the control shares the first candidate's preparation
			timers[1], ms[1].Skipped = timers[0], ms[0].Skipped
			continue
		}
		t, err := c.Prepare(cell)
		switch {
		case errors.Is(err, ErrSkip):
			ms[i].Skipped = err.Error()
		case err != nil:
			ms[i].Skipped = notTimed(err)
		default:
			timers[i] = t
		}
	}
	for i := range cands {
		if timers[i] == nil {
			continue
		}
		n, err := calibrate(timers[i], cfg.PassTime)
		if err != nil {
			ms[i].Skipped = notTimed(err)
			timers[i] = nil
			continue
		}
		ms[i].Runs = n
	}
	return timers
}

// summarize refuses the first candidate and its control together, and gives every timed
// measure its median, confidence interval and range.
func summarize(ms []Measure) {
	// The first candidate and its control are one implementation: what refuses one (a wrong
	// answer on its turn, a failure) refuses both, and neither is timed on the cell.
	for _, pair := range [][2]int{{0, 1}, {1, 0}} {
		a, b := &ms[pair[0]], &ms[pair[1]]
		if a.Refused() && !b.Refused() {
			b.Skipped = a.Skipped
			if pair[0] == 1 {
				b.Skipped = strings.Replace(a.Skipped, ": ", ": on its A/A control's turn: ", 1)
			}
			b.Passes = nil
		}
	}
	for i := range ms {
		m := &ms[i]
		if len(m.Passes) == 0 {
			continue
		}
		s := benchmath.NewSample(slices.Clone(m.Passes), &benchmath.DefaultThresholds)
		sum := benchmath.AssumeNothing.Summary(s, 0.95)
		m.Median = sum.Center
		if !math.IsInf(sum.Lo, 0) && !math.IsInf(sum.Hi, 0) { // fewer than 6 passes have none
			m.Lo, m.Hi = sum.Lo, sum.Hi
		}
		m.Min, m.Max = slices.Min(m.Passes), slices.Max(m.Passes)
	}
}

// ErrWrongAnswer is wrapped by the error of a candidate whose answer differs from the
// oracle's: the cell is not timed for it ("refused: wrong answer …"). Other errors of Prepare
// and Timer are failures ("failed: …": a target that crashed, hung, or answered a malformed
// line).
var ErrWrongAnswer = errors.New("wrong answer")

// notTimed is the Skipped of a candidate refused (wrong answer) or failed on a cell.
func notTimed(err error) string {
	if errors.Is(err, ErrWrongAnswer) {
		return "refused: " + err.Error()
	}
	return "failed: " + err.Error()
}

// calibrate finds the runs per pass that take about passTime: it doubles n from 1 until a
// timing is long enough to scale from (a tenth of passTime), then scales.
func calibrate(t Timer, passTime time.Duration) (int, error) {
	const maxRuns = protocol.MaxBenchN // a target takes no more in one bench request
	n := 1
	for {
		d, err := t(n)
		if err != nil {
			return 0, err
		}
		if d < 0 {
			return 0, fmt.Errorf("a negative time, %v for %d runs", d, n)
		}
		if d >= passTime/10 {
			return int(min(max(float64(n)*float64(passTime)/float64(d), 1), maxRuns)), nil
		}
		if n >= maxRuns {
			// A billion runs in less than a tenth of a pass: the clock or the loop does not
			// time the operation (a loop the compiler removed, a clock that does not move).
			return 0, fmt.Errorf("%d runs took %v, less than a tenth of --pass-time %v: the time does not grow with the runs (a loop that does not run the operation, or a clock that does not move)", n, d, passTime)
		}
		if d == 0 {
			n = min(n*16, maxRuns)
		} else {
			n = int(min(float64(n)*max(2, min(100, float64(passTime/10)/float64(d)*1.2)), maxRuns))
		}
	}
}

// score sets each measure's speedup over the baseline and cost in copies.
func score(cr *CellResult, base, copyAt int) {
	b := cr.Measures[base].Median
	c := 0.0
	if copyAt >= 0 {
		c = cr.Measures[copyAt].Median
	}
	for i := range cr.Measures {
		m := &cr.Measures[i]
		if m.Median <= 0 {
			continue
		}
		if b > 0 {
			m.Speedup = b / m.Median
		}
		if c > 0 {
			m.Copies = m.Median / c
		}
	}
}

// verdict reads a speedup against the noise floor: within it when it is between 1/(1+floor)
// and 1+floor.
func verdict(speedup, floor float64, isBase bool) string {
	switch {
	case isBase || speedup == 0:
		return ""
	case math.Abs(math.Log(speedup)) <= math.Log1p(floor)*(1+1e-9):
		return "≈"
	case speedup > 1:
		return "faster"
	}
	return "slower"
}

// Machine describes this machine for a report: CPU model (Linux), cores, OS/arch, Go version.
func Machine() string {
	model := ""
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v) + ", "
				break
			}
		}
		f.Close()
	}
	return fmt.Sprintf("%s%d cores, %s/%s, %s", model, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}
