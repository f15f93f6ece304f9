package report

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/fuzz"
)

// A ShardReport is one shard's --json report as `difffuzz merge` reads it, and its file.
type ShardReport struct {
	*Document
	File string
}

// ParseShardReport reads the --json report data of file; every problem is one error naming
// the file.
func ParseShardReport(file string, data []byte) (*ShardReport, error) {
	r := ShardReport{Document: &Document{}, File: file}
	err := json.Unmarshal(data, r.Document)
	if r.Version != 0 && r.Version != Version {
		return nil, fmt.Errorf("%s: report version %d, this difffuzz reads version %d", file, r.Version, Version)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: not a difffuzz --json report: %v", file, err)
	}
	if r.Config == "" || r.Shard == (Shard{}) || r.Version == 0 {
		return nil, fmt.Errorf("%s: not a difffuzz --json report (no version, config or shard)", file)
	}
	if r.Shard.Count < 1 || r.Shard.Index < 0 || r.Shard.Index >= r.Shard.Count {
		return nil, fmt.Errorf("%s: shard %d/%d is not a shard", file, r.Shard.Index, r.Shard.Count)
	}
	// What a report says must add up: an edited or truncated one would merge into a report
	// whose classes and counts disagree.
	var inSpaces, inClasses uint64
	for _, sp := range r.Spaces {
		inSpaces += sp.Differences
	}
	for _, c := range r.Classes {
		inClasses += c.Findings
	}
	if inSpaces != r.Differences || inClasses != r.Differences {
		return nil, fmt.Errorf("%s: its spaces hold %s and its classes %s, but it reports %s (edited, or not written whole?)",
			file, Plural(inSpaces, "difference"), Plural(inClasses, "finding"), Plural(r.Differences, "difference"))
	}
	return &r, nil
}

// maxNamed is how many missing shards an error names.
const maxNamed = 10

// OrderShards checks that the reports are the shards 0..N-1 of one sweep, each exactly once,
// and sorts them by index.
func OrderShards(shards []*ShardReport) error {
	first := shards[0]
	n := first.Shard.Count
	byIndex := map[int]*ShardReport{}
	for _, r := range shards {
		if r.Config != first.Config {
			return fmt.Errorf("%s is not of the sweep of %s: its configuration is %q, not %q", r.File, first.File, r.Config, first.Config)
		}
		if r.Shard.Count != n {
			return fmt.Errorf("%s is shard %d/%d but %s is shard %d/%d: not one sweep", r.File, r.Shard.Index, r.Shard.Count, first.File, first.Shard.Index, n)
		}
		if other := byIndex[r.Shard.Index]; other != nil {
			return fmt.Errorf("shard %d/%d is given twice: %s and %s", r.Shard.Index, n, other.File, r.File)
		}
		byIndex[r.Shard.Index] = r
	}
	if len(byIndex) < n {
		var missing []string
		for k := 0; k < n && len(missing) < maxNamed; k++ {
			if byIndex[k] == nil {
				missing = append(missing, fmt.Sprintf("%d/%d", k, n))
			}
		}
		what := "shard"
		if n-len(byIndex) > 1 {
			what = "shards"
		}
		list := strings.Join(missing, ", ")
		if rest := n - len(byIndex) - len(missing); rest > 0 {
			list += fmt.Sprintf(" and %d more", rest)
		}
		return fmt.Errorf("%s %s missing (%d of %d shards given)", what, list, len(shards), n)
	}
	slices.SortFunc(shards, func(a, b *ShardReport) int { return a.Shard.Index - b.Shard.Index })
	return nil
}

// A Sweep is the report of a sweep's shards merged: their spaces and findings, their defect
// classes, the longest shard's elapsed time, every shard's targets and options not checked.
type Sweep struct {
	Report     *fuzz.Report
	Classes    []*Class
	Elapsed    time.Duration
	Targets    []TargetRecord
	NotChecked []string
}

// MergeShards adds up the shards' spaces (a space's time is the sum of its shards' times, the
// machine time it took; the sweep's elapsed time is the longest shard's), merges their defect
// classes (Merge, keeping examples further witnesses) and keeps every shard's targets and
// options not checked. The shards are those of one sweep, in order (OrderShards).
func MergeShards(shards []*ShardReport, examples int) (*Sweep, error) {
	out := &Sweep{Report: &fuzz.Report{}, Targets: []TargetRecord{}, NotChecked: []string{}}
	index := map[string]int{}
	var classes [][]*Class
	var findings []*fuzz.Finding
	for _, r := range shards {
		seen := map[string]bool{}
		for _, s := range r.Spaces {
			k := mergeKey(s)
			if seen[k] {
				return nil, fmt.Errorf("%s: space %s %s len %d is listed twice: not a shard report difffuzz wrote", r.File, s.Space, s.Op, s.Len)
			}
			seen[k] = true
			if err := out.addSpace(index, r.File, s); err != nil {
				return nil, err
			}
		}
		out.Report.Differences += r.Differences
		out.Report.Interrupted = out.Report.Interrupted || r.Interrupted
		out.Elapsed = max(out.Elapsed, r.Elapsed)
		out.Targets = append(out.Targets, r.Targets...)
		for _, o := range r.NotChecked {
			if !slices.Contains(out.NotChecked, o) {
				out.NotChecked = append(out.NotChecked, o)
			}
		}
		cs, fs, err := r.records()
		if err != nil {
			return nil, err
		}
		classes = append(classes, cs)
		findings = append(findings, fs...)
	}
	out.incomplete(shards)
	for i := range out.Report.Spaces {
		s := &out.Report.Spaces[i]
		if sec := s.Elapsed.Seconds(); sec > 0 {
			s.CasesPerSec = float64(s.Cases) / sec
		}
	}
	out.Report.Merge(&fuzz.Report{Findings: findings}) // sorted as a single run's
	out.Classes = Merge(classes, examples)
	return out, nil
}

// mergeKey is what the parts of one space share across shards: the space, operation, length,
// option sets and candidates.
func mergeKey(s fuzz.SpaceReport) string {
	return fmt.Sprintf("%s\x00%s\x00%d\x00%d\x00%s", s.Space, s.Op, s.Len, s.OptionSets, strings.Join(s.Impls, ","))
}

// addSpace adds the part of a space in the shard report file to the sweep's (index: where
// each space is by its mergeKey).
func (out *Sweep) addSpace(index map[string]int, file string, s fuzz.SpaceReport) error {
	if _, err := fuzz.ParseOps(string(s.Op)); err != nil || s.Op == "" {
		return fmt.Errorf("%s: a space of op %q: want escape, decode or utf8_decode", file, s.Op)
	}
	k := mergeKey(s)
	i, ok := index[k]
	if !ok {
		index[k] = len(out.Report.Spaces)
		s.CasesPerSec = 0
		out.Report.Spaces = append(out.Report.Spaces, s)
		return nil
	}
	m := &out.Report.Spaces[i]
	var overflow bool
	for _, p := range []struct {
		sum *uint64
		n   uint64
	}{{&m.Strings, s.Strings}, {&m.Cases, s.Cases}, {&m.NotRun, s.NotRun},
		{&m.Skipped, s.Skipped}, {&m.Differences, s.Differences}} {
		var carry uint64
		*p.sum, carry = bits.Add64(*p.sum, p.n, 0)
		overflow = overflow || carry != 0
	}
	if overflow {
		return fmt.Errorf("%s: the counts of space %s %s add up past 2^64: not a shard report difffuzz wrote", file, s.Space, s.Op)
	}
	m.Elapsed += s.Elapsed
	m.Complete = m.Complete && s.Complete
	m.Distinct = max(m.Distinct, s.Distinct)
	return nil
}

// records are a shard's defect classes and findings, read back from its report.
func (r *ShardReport) records() ([]*Class, []*fuzz.Finding, error) {
	var cs []*Class
	for _, cr := range r.Classes {
		c, err := cr.Class()
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", r.File, err)
		}
		cs = append(cs, c)
	}
	var fs []*fuzz.Finding
	for i, fr := range r.Findings {
		f, err := fr.Finding()
		if err != nil {
			return nil, nil, fmt.Errorf("%s: finding %d: %v", r.File, i+1, err)
		}
		fs = append(fs, f)
	}
	return cs, fs, nil
}

// incomplete marks the spaces an interrupted shard did not reach at all: those are incomplete
// in the sweep, even if every other shard finished its part of them.
func (out *Sweep) incomplete(shards []*ShardReport) {
	for _, r := range shards {
		if !r.Interrupted {
			continue
		}
		has := map[string]bool{}
		for _, s := range r.Spaces {
			has[mergeKey(s)] = true
		}
		for i := range out.Report.Spaces {
			s := &out.Report.Spaces[i]
			if s.Space == "random" && r.Shard.Index != 0 {
				continue // random inputs are shard 0's alone
			}
			if !has[mergeKey(*s)] {
				s.Complete = false
			}
		}
	}
}
