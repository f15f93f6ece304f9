package fuzz

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// Default maximum lengths of the exhaustive spaces (DESIGN.md §3): every byte string of
// length 1–4 through the decoders, every string of length 1–3 through the escaper under
// each of the 2,048 option sets of jsonopt.Combo (the eleven string options, NUMERIC_CHECK
// included, with PRESERVE_ZERO_FRACTION in every other one).
const (
	DefaultDecodeMaxLen = 4
	DefaultEscapeMaxLen = 3
)

// Progress receives a campaign's progress; the command line draws it. Implementations must
// be safe for concurrent Advance calls.
type Progress interface {
	Begin(label string, total uint64) // a new space of total cases starts
	Advance(n uint64)                 // n more cases done
	End()                             // the space is finished (or interrupted)
}

type noProgress struct{}

func (noProgress) Begin(string, uint64) {}
func (noProgress) Advance(uint64)       {}
func (noProgress) End()                 {}

// Config is what every campaign over the built-in candidates (Exhaustive, Boundary, Random)
// shares; the zero value of each field takes its default (Config.defaults).
type Config struct {
	Ops         []Op     // default AllOps
	Impls       []Impl   // candidates (default: every fast variant)
	Workers     int      // goroutines (default GOMAXPROCS)
	MaxFindings int      // findings kept per (op, impl); the rest are only counted (default DefaultMaxFindings)
	Progress    Progress // default none
	// Sink, if set, receives every finding (its Space set), not only the MaxFindings kept.
	Sink Sink
}

// ExhaustiveConfig selects an exhaustive campaign.
type ExhaustiveConfig struct {
	Config
	MaxLen int // if > 0: the maximum length for every op; else the defaults above
	MinLen int // if > 0: the shortest length checked (shorter spaces are left out); else 1
	// Sample, if > 0, checks only the first Sample strings of each unit: a sample of the
	// space to time (the report counts what was checked; such a space is not Complete).
	Sample uint64
	// OptionCombos, if set, are the escape option sets of every length; else ExhaustiveCombos.
	OptionCombos []jsonopt.Options
	// FullOptions checks escape strings of every length under all 2,048 jsonopt.Combo sets
	// (ExhaustiveCombos(n, true)), not only those up to FullOptionsLen bytes.
	FullOptions bool
	// Shard and Shards split every space into Shards parts (units of about a million
	// cases, dealt round-robin) of which this run checks part Shard (0-based), so that
	// several machines can share a campaign. Shards 0 or 1 means the whole space.
	Shard, Shards int
	// Units, if set, lets a run resume an earlier one: units it reports done are skipped, and
	// it is told of every unit this run finishes (after the unit's findings reached Sink).
	Units UnitTracker
}

// UnitTracker keeps the units of work of the exhaustive spaces that are done, for a
// checkpoint (ExhaustiveConfig.Units). A space's 256^n strings are cut into units of
// ExhaustiveUnit(op, n, optionSets) consecutive strings (big-endian numbers), unit u holding
// the strings u*size up to (u+1)*size. Both methods may be called from several goroutines.
type UnitTracker interface {
	// Done reports whether unit u of op's length-n space was checked by an earlier run.
	Done(op Op, n int, u uint64) bool
	// Finished records that this run checked unit u: strings inputs, differences findings.
	Finished(op Op, n int, u uint64, strings, differences uint64)
}

// ExhaustiveUnit is the number of strings in a unit of work of op's length-n exhaustive space
// under optionSets option sets (1 for the decoders): about a million cases, so that progress is
// smooth and a cancel is quick.
func ExhaustiveUnit(op Op, n int, optionSets int) uint64 {
	unit := uint64(1 << 20)
	if op == OpEscape {
		unit = max(1, unit/uint64(max(optionSets, 1)))
	}
	return min(unit, pow256(n))
}

// UnitOf is the unit of work of op's exhaustive space that holds input (ExhaustiveUnit).
func UnitOf(op Op, input []byte, optionSets int) uint64 {
	var v uint64
	for _, b := range input {
		v = v<<8 | uint64(b)
	}
	return v / ExhaustiveUnit(op, len(input), optionSets)
}

// SpaceReport says what one exhaustive space checked.
type SpaceReport struct {
	Space       string        `json:"space"` // "exhaustive", "boundary", "random", ...
	Op          Op            `json:"op"`
	Len         int           `json:"len"`           // input length in bytes (0: mixed lengths)
	Strings     uint64        `json:"strings"`       // distinct inputs of that length checked
	OptionSets  int           `json:"option_sets"`   // option combinations per input (escape), else 1
	Cases       uint64        `json:"cases"`         // cases compared: Strings × OptionSets, less the two below
	NotRun      uint64        `json:"not_run"`       // external targets: cases not sent because they contain a crash or hang witness
	Skipped     uint64        `json:"skipped"`       // external targets: cases not sent because the target cannot take them (options=, max-len=)
	Impls       []string      `json:"impls"`         // candidates compared with the oracle
	Distinct    int           `json:"distinct"`      // distinct functions among them (a shared decoder runs once)
	Differences uint64        `json:"differences"`   // findings, counted before the MaxFindings cap
	Elapsed     time.Duration `json:"elapsed_ns"`    // wall time
	Complete    bool          `json:"complete"`      // false when interrupted
	CasesPerSec float64       `json:"cases_per_sec"` // Cases / Elapsed
}

// Report is the outcome of a campaign: what was checked and what was found, in a
// deterministic order.
type Report struct {
	Spaces      []SpaceReport `json:"spaces"`
	Findings    []*Finding    `json:"-"`
	Differences uint64        `json:"differences"`
	Interrupted bool          `json:"interrupted"`
}

// Merge appends other's spaces and findings to r (findings stay sorted) and adds up the
// counts, so that one report covers a campaign made of several modes.
func (r *Report) Merge(other *Report) {
	r.Spaces = append(r.Spaces, other.Spaces...)
	r.Findings = append(r.Findings, other.Findings...)
	sort.SliceStable(r.Findings, func(i, j int) bool { return less(r.Findings[i], r.Findings[j]) })
	r.Differences += other.Differences
	r.Interrupted = r.Interrupted || other.Interrupted
}

func pow256(n int) uint64 { return uint64(1) << (8 * uint(n)) }

// Exhaustive runs the exhaustive spaces. It stops early, with a partial report and every
// finding made so far, when ctx is cancelled.
func Exhaustive(ctx context.Context, cfg ExhaustiveConfig) (*Report, error) {
	if err := cfg.defaults(true); err != nil {
		return nil, err
	}
	if cfg.OptionCombos != nil && len(cfg.OptionCombos) == 0 {
		return nil, fmt.Errorf("fuzz: ExhaustiveConfig.OptionCombos is empty (nil means all %d)", jsonopt.NumStringCombos)
	}
	if cfg.Shards > 1 && (cfg.Shard < 0 || cfg.Shard >= cfg.Shards) {
		return nil, fmt.Errorf("shard %d/%d: want 0 <= K < N", cfg.Shard, cfg.Shards)
	}
	if cfg.MaxLen > 8 {
		return nil, fmt.Errorf("--max-len %d is too large: the space has 256^%d strings", cfg.MaxLen, cfg.MaxLen)
	}
	rep := &Report{}
	for _, op := range cfg.Ops {
		maxLen := cfg.MaxLen
		if maxLen <= 0 {
			maxLen = DefaultDecodeMaxLen
			if op == OpEscape {
				maxLen = DefaultEscapeMaxLen
			}
		}
		var cands []Impl
		for _, im := range cfg.Impls {
			if im.Has(op) {
				cands = append(cands, im)
			}
		}
		if len(cands) == 0 {
			continue
		}
		for n := max(cfg.MinLen, 1); n <= maxLen; n++ {
			if ctx.Err() != nil {
				rep.Interrupted = true
				break
			}
			sr, fs := runSpace(ctx, cfg, op, n, cands)
			rep.Spaces = append(rep.Spaces, sr)
			rep.Findings = append(rep.Findings, fs...)
			rep.Differences += sr.Differences
			if !sr.Complete {
				rep.Interrupted = true
			}
		}
	}
	sort.SliceStable(rep.Findings, func(i, j int) bool { return less(rep.Findings[i], rep.Findings[j]) })
	return rep, nil
}

// FullOptionsLen is the longest escape string the exhaustive space checks under all 2,048
// option sets by default; longer ones are checked under the 1,088 of ExhaustiveCombos.
const FullOptionsLen = 2

// longNumericBits are the string options the exhaustive space combines with NUMERIC_CHECK for
// strings longer than FullOptionsLen by default: one of each kind of path a string that is not
// a number falls through to (a quote, a slash, the raw and escaped Unicode paths, the three
// invalid-UTF-8 answers). HEX_TAG, HEX_AMP and HEX_APOS are HEX_QUOT's kind,
// UNESCAPED_LINE_TERMINATORS is UNESCAPED_UNICODE's.
const longNumericBits = jsonopt.HexQuot | jsonopt.UnescapedSlashes | jsonopt.UnescapedUnicode |
	jsonopt.PartialOutputOnError | jsonopt.InvalidUTF8Ignore | jsonopt.InvalidUTF8Substitute

// ExhaustiveCombos are the option sets the exhaustive escape space checks a string of n bytes
// under, in jsonopt.Combo index order: all 2,048 when n <= FullOptionsLen or full is set;
// else the 1,024 without NUMERIC_CHECK and the 64 with it whose other bits are among
// longNumericBits (1,088 sets: 3-byte strings under all 2,048 would take the default
// --exhaustive past its five minutes). PRESERVE_ZERO_FRACTION follows jsonopt.Combo's parity
// in both. The slice is shared: callers must not modify it.
func ExhaustiveCombos(n int, full bool) []jsonopt.Options {
	if n <= FullOptionsLen || full {
		return allCombos
	}
	return longCombos
}

var allCombos, longCombos = func() (all, long []jsonopt.Options) {
	for i := 0; i < jsonopt.NumStringCombos; i++ {
		o := jsonopt.Combo(i)
		all = append(all, o)
		if o&jsonopt.NumericCheck == 0 || o&jsonopt.StringOptions&^(jsonopt.NumericCheck|longNumericBits) == 0 {
			long = append(long, o)
		}
	}
	return all, long
}()

// spaceOptions are the option sets the exhaustive space of op at length n checks each string
// under.
func spaceOptions(cfg ExhaustiveConfig, op Op, n int) []jsonopt.Options {
	switch {
	case op != OpEscape:
		return []jsonopt.Options{0}
	case cfg.OptionCombos != nil:
		return cfg.OptionCombos
	}
	return ExhaustiveCombos(n, cfg.FullOptions)
}

// ExhaustiveTotal is how many cases Exhaustive checks with cfg (its shard of every space, a
// checkpoint's units done included): the total of a progress over the whole sweep.
func ExhaustiveTotal(cfg ExhaustiveConfig) uint64 {
	ops := cfg.Ops
	if len(ops) == 0 {
		ops = []Op{OpEscape, OpDecode, OpUTF8Decode}
	}
	var sum uint64
	for _, op := range ops {
		served := cfg.Impls == nil
		for _, im := range cfg.Impls {
			served = served || im.Has(op)
		}
		maxLen := cfg.MaxLen
		if maxLen <= 0 {
			maxLen = DefaultDecodeMaxLen
			if op == OpEscape {
				maxLen = DefaultEscapeMaxLen
			}
		}
		for n := max(cfg.MinLen, 1); served && n <= maxLen; n++ {
			total, opts := pow256(n), uint64(len(spaceOptions(cfg, op, n)))
			unit := ExhaustiveUnit(op, n, int(opts))
			units, shards := (total+unit-1)/unit, uint64(max(cfg.Shards, 1))
			for u := uint64(cfg.Shard); u < units; u += shards {
				sum += (min((u+1)*unit, total) - u*unit) * opts
			}
		}
	}
	return sum
}

// runSpace checks every string of length n for op. The 256^n strings are enumerated as
// big-endian numbers and cut into units handed out in order through an atomic counter; the
// findings of each unit are merged and sorted, so the report does not depend on scheduling.
func runSpace(ctx context.Context, cfg ExhaustiveConfig, op Op, n int, cands []Impl) (SpaceReport, []*Finding) {
	s := newSweep(&cfg, op, n, cands)
	label := fmt.Sprintf("%s len %d", op, n)
	if s.shards > 1 {
		label += fmt.Sprintf(" (shard %d/%d)", s.shard, s.shards)
	}
	cfg.Progress.Begin(label, s.myTotal*uint64(len(s.opts)))
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < cfg.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.work(ctx)
		}()
	}
	wg.Wait()
	cfg.Progress.End()
	return s.report(time.Since(start))
}

// sweep is one exhaustive space (op, length n) being checked by the workers of runSpace.
type sweep struct {
	cfg   *ExhaustiveConfig
	op    Op
	n     int
	cands []Impl
	opts  []jsonopt.Options
	// distinct are the candidates the hot path runs: those whose function for op is the very
	// same func value (same code and same closure context: fast variants sharing one decoder)
	// give the same answer on every input, so it runs each distinct function once. Findings
	// still name every candidate: an input that fails the hot path is re-run through all.
	distinct []Impl
	spot     []Impl // the candidates run through their own entry point on a sample (spotCheck)
	// pos and idx, when the option sets are jsonopt.Combo sets in increasing index order, let
	// the hot path reuse the oracle's answer across a class of them (Checker.byClass).
	pos *[jsonopt.NumStringCombos]int16
	idx []int16

	total, unit, shard, shards uint64
	mine, myTotal              uint64   // this shard's units (left after a checkpoint) and their strings
	todo                       []uint64 // indexes j of the units left after a checkpoint (nil: all of them)

	next, diffs, doneUnits, doneStrings atomic.Uint64
	mu                                  sync.Mutex
	perUnit                             map[uint64][]*Finding // findings of each unit, at most MaxFindings per key
}

// newSweep lays out the space: its units of this shard still to check, and what the hot path
// runs.
func newSweep(cfg *ExhaustiveConfig, op Op, n int, cands []Impl) *sweep {
	s := &sweep{cfg: cfg, op: op, n: n, cands: cands, opts: spaceOptions(*cfg, op, n), perUnit: map[uint64][]*Finding{}}
	s.total = pow256(n)
	s.unit = ExhaustiveUnit(op, n, len(s.opts))
	units := (s.total + s.unit - 1) / s.unit
	s.shards, s.shard = uint64(max(cfg.Shards, 1)), uint64(cfg.Shard)
	s.mine = (units + s.shards - 1 - s.shard) / s.shards // units u < units with u % shards == shard
	for j := uint64(0); j < s.mine; j++ {
		u := s.shard + j*s.shards
		if cfg.Units != nil {
			if cfg.Units.Done(op, n, u) {
				continue
			}
			s.todo = append(s.todo, j)
		}
		s.myTotal += min((u+1)*s.unit, s.total) - u*s.unit
	}
	if cfg.Units != nil {
		s.mine = uint64(len(s.todo))
	}
	s.distinct = distinctFuncs(op, cands, n)
	if op == OpEscape {
		s.comboClasses()
	}
	s.spotCandidates()
	return s
}

// comboClasses sets pos and idx when the option sets are jsonopt.Combo sets in increasing
// index order.
func (s *sweep) comboClasses() {
	pos := new([jsonopt.NumStringCombos]int16)
	prev := -1
	for p, o := range s.opts {
		i := jsonopt.ComboIndex(o)
		if jsonopt.Combo(i) != o || i <= prev {
			s.idx = nil
			return
		}
		pos[i], prev = int16(p+1), i
		s.idx = append(s.idx, int16(i))
	}
	s.pos = pos
}

// spotCandidates chooses the candidates that also run through their own entry point on a
// sample (spotCheck), with a canary in dst's spare capacity: candidates whose Short code
// stands in for them at this length (fast's variants below fast.ShortLen) are thereby shown
// to hand such input to Short, and a write past the returned length is caught (the hot path
// does not look). decode has no dst: there only candidates whose own function the hot path
// does not run need the sample.
func (s *sweep) spotCandidates() {
	s.spot = s.cands
	if s.op != OpDecode {
		return
	}
	hot := map[unsafe.Pointer]bool{}
	for _, im := range s.distinct {
		hot[opFunc(s.op, im)] = true
	}
	s.spot = nil
	for _, im := range s.cands {
		if !hot[opFunc(s.op, im)] {
			s.spot = append(s.spot, im)
		}
	}
}

// work checks units until none is left or ctx is cancelled.
func (s *sweep) work(ctx context.Context) {
	cfg := s.cfg
	c := &Checker{byClass: s.pos != nil, pos: s.pos, idx: s.idx, posN: len(s.opts)}
	if s.pos != nil {
		c.box = comboBox(s.pos, len(s.opts))
	}
	buf := make([]byte, s.n)
	var local, unitFindings []*Finding
	kept := map[string]int{}
	for {
		j := s.next.Add(1) - 1
		if j >= s.mine || ctx.Err() != nil {
			return
		}
		if s.todo != nil {
			j = s.todo[j]
		}
		u := s.shard + j*s.shards
		lo, hi := u*s.unit, min((u+1)*s.unit, s.total)
		if cfg.Sample > 0 {
			hi = min(hi, lo+cfg.Sample)
		}
		unitFindings = unitFindings[:0]
		clear(kept)
		var unitDiffs uint64
		local, unitFindings = s.checkUnit(c, buf, lo, hi, local, unitFindings, kept, &unitDiffs)
		if len(unitFindings) > 0 {
			s.mu.Lock()
			s.perUnit[u] = append([]*Finding(nil), unitFindings...)
			s.mu.Unlock()
		}
		if cfg.Units != nil {
			cfg.Units.Finished(s.op, s.n, u, hi-lo, unitDiffs)
		}
		s.doneUnits.Add(1)
		s.doneStrings.Add(hi - lo)
		cfg.Progress.Advance((hi - lo) * uint64(len(s.opts)))
	}
}

// checkUnit checks strings lo..hi-1 (buf is their length): the hot path (Checker.quick and the
// spot check), and for a string that fails it the slow path (findingsOf).
func (s *sweep) checkUnit(c *Checker, buf []byte, lo, hi uint64, local, unitFindings []*Finding, kept map[string]int, unitDiffs *uint64) ([]*Finding, []*Finding) {
	n, op, distinct, spot, opts := s.n, s.op, s.distinct, s.spot, s.opts
	for i := 0; i < n; i++ {
		buf[i] = byte(lo >> (8 * uint(n-1-i)))
	}
	for v := lo; v < hi; v++ {
		if v != lo { // the next string: big-endian increment of buf
			for i := n - 1; i >= 0; i-- {
				buf[i]++
				if buf[i] != 0 {
					break
				}
			}
		}
		if c.quick(op, distinct, buf, opts) && c.spotCheck(op, spot, v, buf, opts) {
			continue
		}
		local, unitFindings = findingsOf(c, s.cfg, op, s.cands, buf, opts, local, unitFindings, kept, &s.diffs, unitDiffs)
	}
	return local, unitFindings
}

// report is the space's report after the workers stopped: the first MaxFindings per (op,
// impl) in enumeration order, whatever the schedule.
func (s *sweep) report(elapsed time.Duration) (SpaceReport, []*Finding) {
	checked := s.doneStrings.Load()
	complete := s.doneUnits.Load() == s.mine && (s.cfg.Sample == 0 || checked == s.myTotal)
	order := make([]uint64, 0, len(s.perUnit))
	for u := range s.perUnit {
		order = append(order, u)
	}
	sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
	kept := map[string]int{}
	var findings []*Finding
	for _, u := range order {
		for _, f := range s.perUnit[u] {
			k := string(f.Op) + "\x00" + f.Impl
			if kept[k] < s.cfg.MaxFindings {
				kept[k]++
				findings = append(findings, f)
			}
		}
	}
	sr := SpaceReport{
		Space: "exhaustive", Op: s.op, Len: s.n, Strings: checked, OptionSets: len(s.opts), Cases: checked * uint64(len(s.opts)),
		Impls: implNamesOrdered(s.cands), Distinct: len(s.distinct), Differences: s.diffs.Load(), Elapsed: elapsed, Complete: complete,
	}
	if sec := elapsed.Seconds(); sec > 0 {
		sr.CasesPerSec = float64(sr.Cases) / sec
	}
	return sr, findings
}

// findingsOf is the exhaustive spaces' slow path, for an input that failed the hot path: it
// re-runs the input through every candidate under every option set (Checker.Check), counts
// the findings (in diffs and in the unit's unitDiffs), gives each to the sink and keeps the first MaxFindings per (op, impl) of the
// unit. It is kept out of runSpace's loop so that the loop stays lean.
//
//go:noinline
func findingsOf(c *Checker, cfg *ExhaustiveConfig, op Op, cands []Impl, buf []byte, opts []jsonopt.Options,
	local, unitFindings []*Finding, kept map[string]int, diffs *atomic.Uint64, unitDiffs *uint64) ([]*Finding, []*Finding) {
	for _, o := range opts {
		local = c.Check(local[:0], op, cands, buf, o)
		if len(local) == 0 {
			continue
		}
		diffs.Add(uint64(len(local)))
		*unitDiffs += uint64(len(local))
		for _, f := range local {
			f.Space = "exhaustive"
			if cfg.Sink != nil {
				cfg.Sink.Add(f)
			}
			k := string(f.Op) + "\x00" + f.Impl
			if kept[k] < cfg.MaxFindings {
				kept[k]++
				unitFindings = append(unitFindings, f)
			}
		}
	}
	return local, unitFindings
}

func implNamesOrdered(impls []Impl) []string {
	n := make([]string, len(impls))
	for i, im := range impls {
		n[i] = im.Name
	}
	return n
}

// funcPtr is the identity of a func value: its funcval pointer, which is the same for two
// values only when they have the same code and the same captured context.
func funcPtr[F any](f F) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&f)) }

// opFunc is the identity (funcPtr) of im's function for op.
func opFunc(op Op, im Impl) unsafe.Pointer {
	switch op {
	case OpEscape:
		return funcPtr(im.Escape)
	case OpDecode:
		return funcPtr(im.NextChar)
	}
	return funcPtr(im.UTF8Decode)
}

// distinctFuncs drops every candidate whose function for op is the same func value as an
// earlier candidate's. For inputs of length n (n < 0: any length) shorter than a candidate's
// ShortLen, its Short code stands in for it.
func distinctFuncs(op Op, cands []Impl, n int) []Impl {
	seen := map[unsafe.Pointer]bool{}
	var out []Impl
	for _, im := range cands {
		if n >= 0 && n < im.ShortLen && im.Short != nil {
			im = *im.Short
		}
		if p := opFunc(op, im); !seen[p] {
			seen[p] = true
			out = append(out, im)
		}
	}
	return out
}

// DefaultMaxFindings is how many findings of each operation and candidate (per space) a
// campaign keeps in its report when its MaxFindings is 0; the rest are counted.
const DefaultMaxFindings = 20

// defaults fills the settings every campaign shares: every operation, every fast variant,
// GOMAXPROCS workers, DefaultMaxFindings findings kept per (op, impl), no progress display.
// traced: the candidates are wrapped for difffuzz mutate's recheck (see recheck).
func (c *Config) defaults(traced bool) error {
	if c.Ops == nil {
		c.Ops = AllOps
	}
	if c.Impls == nil {
		var err error
		if c.Impls, err = Candidates(""); err != nil {
			return err
		}
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.MaxFindings <= 0 {
		c.MaxFindings = DefaultMaxFindings
	}
	if c.Progress == nil {
		c.Progress = noProgress{}
	}
	if traced {
		c.Impls = recheck(c.Impls, &c.Workers)
	}
	return nil
}
