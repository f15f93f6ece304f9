package report

import (
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// FindingRecord is a finding as a shard report carries it for `difffuzz merge`: every field,
// so that the merged report prints it as the shard did. Byte strings are hex.
type FindingRecord struct {
	Kind      fuzz.Kind      `json:"kind"`
	Op        fuzz.Op        `json:"op"`
	Impl      string         `json:"impl"`
	External  bool           `json:"external,omitempty"`
	Command   string         `json:"command,omitempty"`
	Versus    *fuzz.Versus   `json:"versus,omitempty"`
	Input     string         `json:"input"`
	Flags     uint32         `json:"flags,omitempty"`
	Want      string         `json:"want,omitempty"`
	Got       string         `json:"got,omitempty"`
	WantErr   int            `json:"want_err,omitempty"`
	GotErr    int            `json:"got_err,omitempty"`
	Pos       int            `json:"pos,omitempty"`
	WantStep  *jsonopt.Step  `json:"want_step,omitempty"`
	GotStep   *jsonopt.Step  `json:"got_step,omitempty"`
	Detail    string         `json:"detail,omitempty"`
	Origin    string         `json:"origin,omitempty"`
	Space     string         `json:"space,omitempty"`
	Minimized bool           `json:"minimized,omitempty"`
	Anchored  bool           `json:"anchored,omitempty"`
	Loc       *fuzz.Location `json:"loc,omitempty"`
}

// RecordOf is f as a FindingRecord.
func RecordOf(f *fuzz.Finding) FindingRecord {
	r := FindingRecord{Kind: f.Kind, Op: f.Op, Impl: f.Impl, External: f.External, Command: f.Command, Versus: f.Versus, Input: hex.EncodeToString(f.Input),
		Flags: uint32(f.Flags), Want: hex.EncodeToString(f.Want), Got: hex.EncodeToString(f.Got), WantErr: f.WantErr,
		GotErr: f.GotErr, Pos: f.Pos, Detail: f.Detail, Origin: f.Origin, Space: f.Space, Minimized: f.Minimized,
		Anchored: f.Anchored, Loc: f.Loc}
	if f.Kind == fuzz.KindStep {
		r.WantStep, r.GotStep = &f.WantStep, &f.GotStep
	}
	return r
}

// Finding is the record as a finding; an error names the field that is not valid.
func (r FindingRecord) Finding() (*fuzz.Finding, error) {
	f := &fuzz.Finding{Kind: r.Kind, Op: r.Op, Impl: r.Impl, External: r.External, Command: r.Command, Versus: r.Versus, Flags: jsonopt.Options(r.Flags),
		WantErr: r.WantErr, GotErr: r.GotErr, Pos: r.Pos, Detail: r.Detail, Origin: r.Origin, Space: r.Space,
		Minimized: r.Minimized, Anchored: r.Anchored, Loc: r.Loc}
	if _, err := fuzz.ParseOps(string(r.Op)); err != nil || r.Op == "" {
		return nil, fmt.Errorf("finding: op %q: want escape, decode or utf8_decode", r.Op)
	}
	for _, b := range []struct {
		name string
		hex  string
		to   *[]byte
	}{{"input", r.Input, &f.Input}, {"want", r.Want, &f.Want}, {"got", r.Got, &f.Got}} {
		v, err := hex.DecodeString(b.hex)
		if err != nil {
			return nil, fmt.Errorf("finding: %s %q: %v", b.name, b.hex, err)
		}
		*b.to = v
	}
	if r.WantStep != nil {
		f.WantStep = *r.WantStep
	}
	if r.GotStep != nil {
		f.GotStep = *r.GotStep
	}
	return f, nil
}

// ClassRecord is a defect class as a shard report carries it for `difffuzz merge`: its
// signature, counts, witness and examples, everything Merge needs to make the classes of the
// whole sweep.
type ClassRecord struct {
	Signature
	Witness   FindingRecord        `json:"witness"`
	Examples  []FindingRecord      `json:"examples"`
	Ignored   uint32               `json:"ignored_flags,omitempty"`
	Minimized bool                 `json:"minimized"`
	Note      string               `json:"note,omitempty"`
	Findings  uint64               `json:"findings"`
	Spaces    map[string]uint64    `json:"spaces"`
	Kinds     map[fuzz.Kind]uint64 `json:"kinds"`
	NotRun    uint64               `json:"not_run,omitempty"`
	// Deviations are Class.Deviations, so that the merged report names the same defects.
	Deviations []DevRecord `json:"deviations,omitempty"`
}

// DevRecord is a DevStat as a shard report carries it: its key, counts, witness and examples
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

// Record is c as a ClassRecord.
func (c *Class) Record() ClassRecord {
	r := ClassRecord{Signature: c.Signature, Witness: RecordOf(c.Witness), Examples: []FindingRecord{}, Ignored: uint32(c.Ignored),
		Minimized: c.Minimized, Note: c.Note, Findings: c.Findings, Spaces: c.Spaces, Kinds: c.Kinds, NotRun: c.NotRun}
	for _, e := range c.Examples {
		r.Examples = append(r.Examples, RecordOf(e))
	}
	keys := make([]string, 0, len(c.Deviations))
	for k := range c.Deviations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r.Deviations = append(r.Deviations, c.Deviations[k].record(k))
	}
	return r
}

// Class is the record as a class without an id (Merge numbers them); the oracle's attribution
// of the witness is worked out again.
func (r ClassRecord) Class() (*Class, error) {
	w, err := r.Witness.Finding()
	if err != nil {
		return nil, fmt.Errorf("class %s %s: witness: %v", r.Op, r.Impl, err)
	}
	if r.Op != w.Op {
		return nil, fmt.Errorf("class %q %s: its op is not its witness's (%s)", r.Op, r.Impl, w.Op)
	}
	c := &Class{Signature: r.Signature, Witness: w, Attribution: fuzz.Attribute(w), Ignored: jsonopt.Options(r.Ignored),
		Minimized: r.Minimized, Note: r.Note, Findings: r.Findings, Spaces: r.Spaces, Kinds: r.Kinds, NotRun: r.NotRun}
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
	for _, dr := range r.Deviations {
		s, err := dr.stat()
		if err != nil {
			return nil, fmt.Errorf("class %s %s: %v", r.Op, r.Impl, err)
		}
		c.Deviations[dr.Key] = s
	}
	return c, nil
}

// Merge combines the classes of several shards of one sweep into the classes of the whole:
// classes with the same signature are one, their counts added (findings, by space and kind,
// inputs not run), their witness the smaller minimized one, their examples the smallest of
// all (at most examples; the shards' own bound when 0). The result is ordered and numbered as
// Triage.Classes orders a single run's.
func Merge(shards [][]*Class, examples int) []*Class {
	byKey := map[string]*Class{}
	var out []*Class
	most := 0
	for _, classes := range shards {
		for _, c := range classes {
			most = max(most, len(c.Examples))
			m := byKey[c.Signature.key()]
			if m == nil {
				m = &Class{Signature: c.Signature, Ignored: c.Ignored, Spaces: map[string]uint64{}, Kinds: map[fuzz.Kind]uint64{}}
				byKey[c.Signature.key()] = m
				out = append(out, m)
			}
			if m.Witness == nil || (c.Minimized && !m.Minimized) || (c.Minimized == m.Minimized && smaller(c.Witness, m.Witness)) {
				m.Witness, m.Attribution, m.Minimized, m.Note = c.Witness, c.Attribution, c.Minimized, c.Note
			}
			m.Findings += c.Findings
			m.NotRun += c.NotRun
			m.Deviations = mergeDevs(m.Deviations, c.Deviations)
			for s, n := range c.Spaces {
				m.Spaces[s] += n
			}
			for k, n := range c.Kinds {
				m.Kinds[k] += n
			}
			m.Examples = append(m.Examples, c.Examples...)
		}
	}
	if examples == 0 {
		examples = most
	}
	for _, m := range out {
		sort.SliceStable(m.Examples, func(i, j int) bool { return smaller(m.Examples[i], m.Examples[j]) })
		m.Examples, m.examples = m.Examples[:min(len(m.Examples), examples)], examples
	}
	number(out)
	return out
}

// number sorts classes as a report lists them (most findings first, then operation, candidate
// and witness) and gives them their ids, D1 first.
func number(classes []*Class) {
	sort.SliceStable(classes, func(i, j int) bool {
		a, b := classes[i], classes[j]
		if a.Findings != b.Findings {
			return a.Findings > b.Findings
		}
		if a.Op != b.Op {
			return opIndex(a.Op) < opIndex(b.Op)
		}
		if a.Impl != b.Impl {
			return a.Impl < b.Impl
		}
		return smaller(a.Witness, b.Witness)
	})
	for i, c := range classes {
		c.ID = "D" + strconv.Itoa(i+1)
	}
}
