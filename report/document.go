package report

import (
	"cmp"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/boundary"
	"github.com/difffuzz/difffuzz/deviation"
	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// Version is the version of Document's layout; `difffuzz merge` reads documents of this
// version only. Version 1 carried every finding and class twice (the second time under
// "records"); version 2 carries each once.
const Version = 2

// Document is the report of a campaign, or of a merge of shard reports, as --json prints it
// and `difffuzz merge` reads it back. Fields are in the order of their JSON names, the order
// the report has always printed them in; docs/report.md documents each one
// (TestDocumentDocumented). Durations are in nanoseconds, byte strings hex.
type Document struct {
	Checks            []CheckRecord      `json:"checks"`
	Classes           []ClassRecord      `json:"classes"`
	Config            string             `json:"config"` // what the shards of one sweep share
	Differences       uint64             `json:"differences"`
	Elapsed           time.Duration      `json:"elapsed_ns"`
	Failed            int                `json:"failed"` // checks
	Findings          []FindingRecord    `json:"findings"`
	Interrupted       bool               `json:"interrupted"`
	InterruptedChecks int                `json:"interrupted_checks"`
	MergedFrom        int                `json:"merged_from,omitempty"` // the shard reports a merge read
	Modes             []string           `json:"modes"`
	NotChecked        []string           `json:"options_not_checked"`
	Passed            int                `json:"passed"` // checks
	Shard             Shard              `json:"shard"`
	Spaces            []fuzz.SpaceReport `json:"spaces"`
	Targets           []TargetRecord     `json:"targets"`
	Version           int                `json:"version"`
}

// Shard is which shard of a sweep a report is (--shard K/N; 0/1 unsharded).
type Shard struct {
	Count int `json:"count"`
	Index int `json:"index"`
}

// NewDocument is the document of a report and its defect classes: the spaces, findings,
// classes and checks. What only the caller knows (config, modes, elapsed time, targets,
// shard, options not checked, merged_from) it sets itself.
func NewDocument(rep *fuzz.Report, classes []*Class) *Document {
	d := &Document{Version: Version, Spaces: rep.Spaces, Differences: rep.Differences, Interrupted: rep.Interrupted,
		Findings: make([]FindingRecord, len(rep.Findings)), Classes: make([]ClassRecord, len(classes))}
	for i, f := range rep.Findings {
		d.Findings[i] = RecordOf(f)
	}
	defects := map[*Class][]*Defect{} // a class whose findings deviate twice is in two
	all := Defects(classes)
	for _, df := range all {
		for _, cl := range append(slices.Clip(df.Classes), df.alsoOrder...) {
			defects[cl] = append(defects[cl], df)
		}
	}
	shown := DefectOf(all) // the block the text report lists each class under
	for i, cl := range classes {
		d.Classes[i] = cl.Record(defects[cl], shown[cl])
	}
	checks := Checks(rep.Spaces, classes)
	d.Checks = make([]CheckRecord, len(checks))
	for i, ch := range checks {
		d.Checks[i] = ch.Record()
	}
	d.Passed, d.Failed, d.InterruptedChecks = Tally(checks)
	return d
}

// Write writes d as indented JSON.
func (d *Document) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// FindingRecord is a finding as a report carries it: every field of the finding, so that a
// merged report prints it as the shard did, and what the report derives from them (options,
// first_diff, replay, builds, chunk, lane, edge). A field that is not always present says when
// it is. Fields are in the order of their JSON names.
type FindingRecord struct {
	Align     *int         `json:"align,omitempty"`      // with layout: the input's address mod 64
	Anchored  bool         `json:"anchored,omitempty"`   // fuzz.Finding.Anchored
	Builds    string       `json:"builds,omitempty"`     // with versus: fuzz.Finding.VersusText
	Chunk     *int         `json:"chunk,omitempty"`      // with off
	Command   string       `json:"command,omitempty"`    // a named target's command
	Detail    string       `json:"detail,omitempty"`     // a panic's value, or what else went wrong
	Edge      string       `json:"edge,omitempty"`       // with off: where off lies from the nearest edge
	External  bool         `json:"external,omitempty"`   // impl is an --exec target
	Family    string       `json:"family,omitempty"`     // with placement: the boundary family
	FirstDiff *int         `json:"first_diff,omitempty"` // output and error kinds: first differing output offset (-1: none)
	Flags     *uint32      `json:"flags,omitempty"`      // escape: the option bits
	Got       *string      `json:"got,omitempty"`        // output and error kinds, or when not empty
	GotEmpty  bool         `json:"got_empty,omitempty"`  // with got_err: the target answered "", not false
	GotErr    *int         `json:"got_err,omitempty"`    // output and error kinds, or when not 0
	GotStep   string       `json:"got_step,omitempty"`   // step kind: "CP/ADVANCE" (hex) or "!/ADVANCE"
	Impl      string       `json:"impl"`
	Input     string       `json:"input"`
	Kind      fuzz.Kind    `json:"kind"`
	Lane      *int         `json:"lane,omitempty"`      // with off
	Layout    string       `json:"layout,omitempty"`    // how the input lay (boundary.Layout), when known
	Minimized bool         `json:"minimized,omitempty"` // its input and options are 1-minimal
	Off       *int         `json:"off,omitempty"`       // located findings: the offset of the first difference
	OffIn     string       `json:"off_in,omitempty"`    // with off: "input" or "output"
	Op        fuzz.Op      `json:"op"`
	Options   string       `json:"options,omitempty"`   // with flags: the bits by PHP name
	Origin    string       `json:"origin,omitempty"`    // where the input came from, when not just its space
	Placement string       `json:"placement,omitempty"` // the boundary placement
	Pos       *int         `json:"pos,omitempty"`       // step kind, or when not 0: the step's position
	Replay    string       `json:"replay,omitempty"`    // a shell command that replays the candidate's side
	Space     string       `json:"space,omitempty"`     // the input space that found it
	Versus    *fuzz.Versus `json:"versus,omitempty"`    // the other build of a build-against-build run
	Want      *string      `json:"want,omitempty"`      // as got, the oracle's
	WantErr   *int         `json:"want_err,omitempty"`  // as got_err, the oracle's
	WantStep  string       `json:"want_step,omitempty"` // as got_step, the oracle's
}

// RecordOf is f as a FindingRecord, with the fields a report derives from its facts.
func RecordOf(f *fuzz.Finding) FindingRecord {
	r := FactsOf(f)
	r.Replay, r.Builds = f.Replay(), f.VersusText()
	if r.Flags != nil {
		r.Options = f.Flags.String()
	}
	if f.Kind == fuzz.KindOutput || f.Kind == fuzz.KindError {
		r.FirstDiff = ptr(fuzz.FirstDiff(f.Want, f.Got))
	}
	if l := f.Loc; l != nil {
		r.Chunk, r.Lane, r.Edge = ptr(l.Chunk), ptr(l.Lane), l.EdgeString()
	}
	return r
}

// FactsOf is f as a FindingRecord without the fields derived from the others (options,
// first_diff, replay, builds, chunk, lane, edge): what a checkpoint's findings log keeps.
func FactsOf(f *fuzz.Finding) FindingRecord {
	r := FindingRecord{Kind: f.Kind, Op: f.Op, Impl: f.Impl, External: f.External, Command: f.Command, Versus: f.Versus,
		Input: hex.EncodeToString(f.Input), Detail: f.Detail, Origin: f.Origin, Space: f.Space, Minimized: f.Minimized,
		Anchored: f.Anchored}
	if f.Op == fuzz.OpEscape || f.Flags != 0 {
		r.Flags = ptr(uint32(f.Flags))
	}
	if f.Kind == fuzz.KindStep {
		r.WantStep, r.GotStep = f.WantStep.String(), f.GotStep.String()
	}
	if f.Kind == fuzz.KindStep || f.Pos != 0 {
		r.Pos = ptr(f.Pos)
	}
	answers := f.Kind == fuzz.KindOutput || f.Kind == fuzz.KindError
	if answers || len(f.Want) > 0 {
		r.Want = ptr(hex.EncodeToString(f.Want))
	}
	if answers || len(f.Got) > 0 {
		r.Got = ptr(hex.EncodeToString(f.Got))
	}
	if answers || f.WantErr != 0 {
		r.WantErr = ptr(f.WantErr)
	}
	if answers || f.GotErr != 0 {
		r.GotErr = ptr(f.GotErr)
	}
	r.GotEmpty = f.GotEmpty
	if l := f.Loc; l != nil {
		r.Off, r.OffIn = ptr(l.Off), "input"
		if l.Output {
			r.OffIn = "output"
		}
		r.Family, r.Placement = l.Family, l.Placement
		if l.Placement != "" || l.Layout != 0 || l.Align != 0 {
			r.Layout, r.Align = l.Layout.String(), ptr(l.Align)
		}
	}
	return r
}

func ptr[T any](v T) *T { return &v }

// or0 is *p, or the zero value for nil.
func or0[T any](p *T) T {
	if p == nil {
		var z T
		return z
	}
	return *p
}

// Finding is the record as a finding; an error names the field that is not valid. The
// fields derived from others (options, first_diff, replay, builds) are not read; chunk, lane
// and edge, when there, must be those of off.
func (r FindingRecord) Finding() (*fuzz.Finding, error) {
	f := &fuzz.Finding{Kind: r.Kind, Op: r.Op, Impl: r.Impl, External: r.External, Command: r.Command, Versus: r.Versus,
		Flags: jsonopt.Options(or0(r.Flags)), WantErr: or0(r.WantErr), GotErr: or0(r.GotErr), GotEmpty: r.GotEmpty, Pos: or0(r.Pos),
		Detail: r.Detail, Origin: r.Origin, Space: r.Space, Minimized: r.Minimized, Anchored: r.Anchored}
	if _, err := fuzz.ParseOps(string(r.Op)); err != nil || r.Op == "" {
		return nil, fmt.Errorf("finding: op %q: want escape, decode or utf8_decode", r.Op)
	}
	for _, b := range []struct {
		name string
		hex  string
		to   *[]byte
	}{{"input", r.Input, &f.Input}, {"want", or0(r.Want), &f.Want}, {"got", or0(r.Got), &f.Got}} {
		v, err := hex.DecodeString(b.hex)
		if err != nil {
			return nil, fmt.Errorf("finding: %s %q: %v", b.name, b.hex, err)
		}
		*b.to = v
	}
	if f.Pos < 0 || f.Kind == fuzz.KindStep && f.Pos > len(f.Input) {
		return nil, fmt.Errorf("finding: pos %d: not an offset in its %d-byte input", f.Pos, len(f.Input))
	}
	for _, s := range []struct {
		name, text string
		to         *jsonopt.Step
	}{{"want_step", r.WantStep, &f.WantStep}, {"got_step", r.GotStep, &f.GotStep}} {
		if s.text == "" {
			continue
		}
		st, err := parseStep(s.text)
		if err != nil {
			return nil, fmt.Errorf("finding: %s %q: %v", s.name, s.text, err)
		}
		*s.to = st
	}
	if r.Off != nil {
		loc, err := r.location()
		if err != nil {
			return nil, err
		}
		f.Loc = loc
	}
	return f, nil
}

// parseStep is the inverse of jsonopt.Step.String: "e9/2" or "!/2". A failed step has no
// code point.
func parseStep(s string) (jsonopt.Step, error) {
	cp, adv, ok := strings.Cut(s, "/")
	a, err := strconv.ParseUint(adv, 10, 31)
	if !ok || err != nil {
		return jsonopt.Step{}, fmt.Errorf("not CP/ADVANCE or !/ADVANCE")
	}
	if cp == "!" {
		return jsonopt.Step{Advance: int(a)}, nil
	}
	v, err := strconv.ParseUint(cp, 16, 32)
	if err != nil {
		return jsonopt.Step{}, fmt.Errorf("code point %q is not hex", cp)
	}
	return jsonopt.Step{CP: uint32(v), Advance: int(a), OK: true}, nil
}

// layouts are the layouts a record names, by their names.
var layouts = map[string]boundary.Layout{}

func init() {
	for l := range boundary.Layout(255) {
		layouts[l.String()] = l
	}
}

// location is the record's Location: off located on the chunk grid, which must give the
// record's chunk, lane and edge when it has them.
func (r FindingRecord) location() (*fuzz.Location, error) {
	l := &fuzz.Location{Loc: boundary.Locate(*r.Off), Output: r.OffIn == "output", Family: r.Family,
		Placement: r.Placement, Align: or0(r.Align)}
	if r.OffIn != "input" && r.OffIn != "output" {
		return nil, fmt.Errorf("finding: off_in %q: want input or output", r.OffIn)
	}
	if (r.Chunk != nil && *r.Chunk != l.Chunk) || (r.Lane != nil && *r.Lane != l.Lane) || (r.Edge != "" && r.Edge != l.EdgeString()) {
		return nil, fmt.Errorf("finding: off %d: chunk %d, lane %d, %q are not that offset's (%s)", *r.Off, or0(r.Chunk), or0(r.Lane), r.Edge, l.Loc)
	}
	if r.Layout != "" {
		var ok bool
		if l.Layout, ok = layouts[r.Layout]; !ok {
			return nil, fmt.Errorf("finding: layout %q is not a layout", r.Layout)
		}
	}
	return l, nil
}

// ClassRecord is a defect class as a report carries it: its signature, counts, witness and
// examples, everything Merge needs to make the classes of the whole sweep, and what the
// report derives from them (the defects it is counted in, the rule in the spec's words, what
// the witness shows the candidate did). Fields are in the order of their JSON names.
type ClassRecord struct {
	Cause       string `json:"cause"`        // what its defect shares (causeOf)
	Defect      int    `json:"defect"`       // the number of the defect block that lists it (the text report's table)
	DefectTitle string `json:"defect_title"` // that block's title
	Defects     []int  `json:"defects"`      // every defect it is counted in
	// DeviationStats are Class.Deviations, so that a merged report names the same defects.
	DeviationStats []DevRecord          `json:"deviation_stats,omitempty"`
	Deviations     []DeviationRecord    `json:"deviations"` // what the witness shows the candidate did
	Examples       []FindingRecord      `json:"examples"`
	Findings       uint64               `json:"findings"`
	Flags          *uint32              `json:"flags,omitempty"` // escape: the minimized option bits
	ID             string               `json:"id"`
	Ignored        uint32               `json:"ignored_flags,omitempty"`
	IgnoredOptions string               `json:"ignored_options,omitempty"`
	Impl           string               `json:"impl"`
	Kind           fuzz.Kind            `json:"kind"`
	Kinds          map[fuzz.Kind]uint64 `json:"kinds"`
	Minimized      bool                 `json:"minimized"`
	NotRun         uint64               `json:"not_run"`
	NotRunFalse    bool                 `json:"not_run_false,omitempty"`
	Note           string               `json:"note,omitempty"`
	Op             fuzz.Op              `json:"op"`
	Options        string               `json:"options,omitempty"` // with flags: the bits by PHP name
	Rule           string               `json:"rule"`
	RuleSpec       string               `json:"rule_spec"`
	Shape          string               `json:"shape"`
	Spaces         map[string]uint64    `json:"spaces"`
	Where          string               `json:"where,omitempty"`
	Witness        FindingRecord        `json:"witness"`
}

// DeviationRecord is one deviation the witness shows, in the order it shows them.
type DeviationRecord struct {
	Detail string `json:"detail"`
	Family string `json:"family"`
	Key    string `json:"key"`
	Row    string `json:"row"`
	Title  string `json:"title"`
	What   string `json:"what"`
}

// DevRecord is a DevStat as a report carries it: its key, counts, witness and examples
// (the deviation itself is read off the witness again).
type DevRecord struct {
	Key      string             `json:"key"`
	Findings uint64             `json:"findings"`
	Rows     map[string]uint64  `json:"rows"`
	Ops      map[fuzz.Op]uint64 `json:"ops"`
	Witness  FindingRecord      `json:"witness"`
	Variants []FindingRecord    `json:"variants"`
	// Alts counts the findings by their other reading (DevStat.Alts), when they have one.
	Alts map[string]uint64 `json:"alts,omitempty"`
	// Models counts the findings by the known behaviour they are answered as (DevStat.Models).
	Models map[string]uint64 `json:"models,omitempty"`
}

// record is s as a DevRecord.
func (s *DevStat) record(key string) DevRecord {
	r := DevRecord{Key: key, Findings: s.Findings, Rows: s.Rows, Ops: s.Ops, Witness: RecordOf(s.Witness), Variants: []FindingRecord{}, Alts: s.Alts, Models: s.Models}
	for _, v := range sortedVariants(s) {
		r.Variants = append(r.Variants, RecordOf(v))
	}
	return r
}

// stat is the record as a DevStat; an error names what is not valid.
func (r DevRecord) stat() (*DevStat, error) {
	w, err := r.Witness.Finding()
	if err != nil {
		return nil, fmt.Errorf("deviation %s: witness: %v", r.Key, err)
	}
	dev, ok := deviationByKey(w, r.Key)
	if !ok {
		return nil, fmt.Errorf("deviation %s: its witness does not show it", r.Key)
	}
	s := newDevStat(dev)
	s.Findings, s.Witness, s.alone = r.Findings, w, len(deviationsOf(w)) == 1
	for a, n := range r.Alts {
		s.addAlt(a, n)
	}
	for m, n := range r.Models {
		s.addModel(m, n)
	}
	for k, n := range r.Rows {
		s.Rows[k] = n
	}
	for k, n := range r.Ops {
		s.Ops[k] = n
	}
	for i, v := range r.Variants {
		f, err := v.Finding()
		if err != nil {
			return nil, fmt.Errorf("deviation %s: variant %d: %v", r.Key, i+1, err)
		}
		row := ""
		if d, ok := deviationByKey(f, r.Key); ok {
			row = d.Row
		}
		s.keep(variant{devs: byte(min(len(deviationsOf(f)), 9)), row: row, op: f.Op, shape: fuzz.Shape(f.Input), flags: f.Flags}, f)
	}
	return s, nil
}

// Record is c as a ClassRecord, counted in defects and shown in the block of shown (DefectOf;
// nil: the first of defects).
func (c *Class) Record(defects []*Defect, shown *Defect) ClassRecord {
	r := ClassRecord{ID: c.ID, Op: c.Op, Impl: c.Impl, Kind: c.Kind, Rule: c.Rule, RuleSpec: c.Attribution.Spec(), Shape: c.Shape,
		Witness: RecordOf(c.Witness), Examples: []FindingRecord{}, Ignored: uint32(c.Ignored), Minimized: c.Minimized, Note: c.Note,
		Findings: c.Findings, Spaces: c.Spaces, Kinds: c.Kinds, NotRun: c.NotRun, NotRunFalse: c.NotRunFalse, Cause: causeOf(c), Where: c.Attribution.Where(),
		Deviations: []DeviationRecord{}}
	if c.Ignored != 0 {
		r.IgnoredOptions = c.Ignored.String()
	}
	if c.Op == fuzz.OpEscape || c.Options != 0 {
		r.Flags, r.Options = ptr(uint32(c.Options)), c.Options.String()
	}
	if shown == nil && len(defects) > 0 {
		shown = defects[0]
	}
	if shown != nil {
		r.Defect, r.DefectTitle = shown.N, shown.Title()
	}
	for _, d := range defects {
		r.Defects = append(r.Defects, d.N)
	}
	for _, d := range deviationsOf(c.Witness) {
		r.Deviations = append(r.Deviations, DeviationRecord{Key: d.Key(), What: string(d.What), Detail: d.Detail, Family: d.Family,
			Row: d.Row, Title: deviation.Title(string(c.Op), d, rowsOf(d))})
	}
	for _, e := range c.Examples {
		r.Examples = append(r.Examples, RecordOf(e))
	}
	keys := make([]string, 0, len(c.Deviations))
	for k := range c.Deviations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r.DeviationStats = append(r.DeviationStats, c.Deviations[k].record(k))
	}
	return r
}

// Class is the record as a class without an id (Merge numbers them); the oracle's attribution
// of the witness is worked out again, and what the report derives is not read.
func (r ClassRecord) Class() (*Class, error) {
	w, err := r.Witness.Finding()
	if err != nil {
		return nil, fmt.Errorf("class %s %s: witness: %v", r.Op, r.Impl, err)
	}
	if r.Op != w.Op {
		return nil, fmt.Errorf("class %q %s: its op is not its witness's (%s)", r.Op, r.Impl, w.Op)
	}
	sig := Signature{Op: r.Op, Impl: r.Impl, Kind: r.Kind, Rule: r.Rule, Options: jsonopt.Options(or0(r.Flags)), Shape: r.Shape}
	c := &Class{Signature: sig, Witness: w, Attribution: fuzz.Attribute(w), Ignored: jsonopt.Options(r.Ignored),
		Minimized: r.Minimized, Note: r.Note, Findings: r.Findings, Spaces: r.Spaces, Kinds: r.Kinds, NotRun: r.NotRun, NotRunFalse: r.NotRunFalse}
	for i, e := range r.Examples {
		f, err := e.Finding()
		if err != nil {
			return nil, fmt.Errorf("class %s %s: example %d: %v", r.Op, r.Impl, i+1, err)
		}
		c.Examples = append(c.Examples, f)
	}
	if c.Spaces == nil {
		c.Spaces = map[string]uint64{}
	}
	if c.Kinds == nil {
		c.Kinds = map[fuzz.Kind]uint64{}
	}
	c.Deviations = map[string]*DevStat{}
	for _, dr := range r.DeviationStats {
		s, err := dr.stat()
		if err != nil {
			return nil, fmt.Errorf("class %s %s: %v", r.Op, r.Impl, err)
		}
		c.Deviations[dr.Key] = s
	}
	return c, nil
}

// CheckRecord is a check as a report carries it: its space, operation, candidate, counts,
// whether it completed and failed, and the ids of its defect classes.
type CheckRecord struct {
	Cases    uint64        `json:"cases"`
	Classes  []string      `json:"classes"`
	Complete bool          `json:"complete"`
	Elapsed  time.Duration `json:"elapsed_ns"`
	Failed   bool          `json:"failed"`
	Findings uint64        `json:"findings"`
	Impl     string        `json:"impl"`
	Op       fuzz.Op       `json:"op"`
	Space    string        `json:"space"`
	Strings  uint64        `json:"strings"`
}

// Record is c as a CheckRecord.
func (c Check) Record() CheckRecord {
	ids := []string{}
	for _, cl := range c.Classes {
		ids = append(ids, cl.ID)
	}
	return CheckRecord{Space: c.Space, Op: c.Op, Impl: c.Impl, Strings: c.Strings, Cases: c.Cases, Elapsed: c.Elapsed,
		Complete: c.Complete, Failed: c.Failed(), Classes: ids, Findings: c.Findings}
}

// TargetRecord is how an --exec target was driven. A field that is not always present says
// when it is. Fields are in the order of their JSON names.
type TargetRecord struct {
	Answers      uint64         `json:"answers"`
	Calibrated   bool           `json:"calibrated"`
	Command      string         `json:"command"`           // its command as given to --exec
	Limit        *int           `json:"limit,omitempty"`   // with renewed, when either is not 0: the answers a process may give
	MaxLen       int            `json:"max_len,omitempty"` // max-len= announced
	Name         string         `json:"name,omitempty"`    // its name, when it is not its command (--exec NAME=CMD)
	NotRun       uint64         `json:"not_run"`
	Ops          []fuzz.Op      `json:"ops"`
	Options      *uint32        `json:"options,omitempty"` // options= announced
	P99          time.Duration  `json:"p99_ns"`
	Reference    string         `json:"reference,omitempty"`           // --reference-exec's name
	RefNoAnswer  *uint64        `json:"reference_no_answer,omitempty"` // with reference
	Renewed      *int           `json:"renewed,omitempty"`             // with limit: processes renewed
	Restarts     int            `json:"restarts"`
	SameAsRef    *uint64        `json:"same_as_reference_not_php,omitempty"` // with reference
	SlowAnswers  *uint64        `json:"slow_answers,omitempty"`              // when some were slow
	SlowOver     *time.Duration `json:"slow_over_ns,omitempty"`              // with slow_answers
	SlowestInput string         `json:"slowest_input,omitempty"`             // with slowest_ns
	Slowest      *time.Duration `json:"slowest_ns,omitempty"`                // with slow_answers, when kept
	Timeout      time.Duration  `json:"timeout_ns"`
	Unchecked    uint32         `json:"unchecked_flags"`
	UncheckedOpt string         `json:"unchecked_options"`
	Witnesses    int            `json:"witnesses"`
}

// TargetOf is how t was driven, as a TargetRecord.
func TargetOf(t *fuzz.Target) TargetRecord {
	d, p99, answers, calibrated := t.Timeout()
	var notRun uint64
	for _, w := range t.Witnesses() {
		notRun += w.NotRun
	}
	caps := t.Capabilities()
	r := TargetRecord{Command: cmp.Or(t.Command, t.Name), Ops: t.Ops(), Timeout: d, P99: p99, Answers: answers, Calibrated: calibrated,
		Restarts: t.Restarts(), Witnesses: len(t.Witnesses()), NotRun: notRun, Unchecked: uint32(t.Unchecked()),
		UncheckedOpt: t.Unchecked().String(), MaxLen: caps.MaxLen}
	if t.Name != t.Command {
		r.Name = t.Name
	}
	if ref := t.Reference(); ref != nil {
		both, none := t.VersusCounts()
		r.Reference, r.SameAsRef, r.RefNoAnswer = ref.Name, &both, &none
	}
	if limit, renewed := t.Limit(); limit > 0 || renewed > 0 {
		r.Limit, r.Renewed = &limit, &renewed
	}
	if n, over, _, slowest := t.SlowAnswers(); n > 0 {
		r.SlowAnswers, r.SlowOver = &n, &over
		if len(slowest) > 0 {
			r.Slowest, r.SlowestInput = &slowest[0].Wait, hex.EncodeToString(slowest[0].Case.Input)
		}
	}
	if caps.OptionsSet {
		r.Options = ptr(uint32(caps.Options))
	}
	return r
}
