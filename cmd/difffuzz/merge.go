package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/bits"
	"os"
	"slices"
	"strings"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/report"
)

// shardReport is a campaign's --json report as merge reads it, and the file it was read from.
type shardReport struct {
	*report.Document
	file string
}

// mergeFlags defines merge's flags.
func mergeFlags(fs *flag.FlagSet) (jsonOut *bool, junitFile *string, examples *int) {
	jsonOut = fs.Bool("json", false, "print the merged report as JSON on stdout (the layout of a campaign's --json)")
	junitFile = fs.String("junit", "", "write the merged checks to `FILE` as JUnit XML")
	examples = fs.Int("examples", 0, "further witnesses kept per defect class (default: as many as the shards kept)")
	return jsonOut, junitFile, examples
}

// runMerge combines the --json reports of the shards of one sweep into the report of the
// whole, printed as a single run prints it (terminal report or --json, --junit, the closing
// line), with a single run's exit status.
func runMerge(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("merge", stderr)
	jsonOut, junitFile, examples := mergeFlags(fs)
	files, err := parseFlags(fs, args)
	if err != nil {
		return exitUsage, err
	}
	if len(files) == 0 {
		return exitUsage, usagef("merge: no report given (see difffuzz merge -h)")
	}
	if *examples < 0 || *examples > maxExamples {
		return exitUsage, usagef("merge: --examples must be between 0 and %d, got %d", maxExamples, *examples)
	}
	var shards []*shardReport
	for _, file := range files {
		r, err := readShardReport(file)
		if err != nil {
			return exitUsage, err
		}
		shards = append(shards, r)
	}
	if err := checkShards(shards); err != nil {
		return exitUsage, err
	}
	slices.SortFunc(shards, func(a, b *shardReport) int { return a.Shard.Index - b.Shard.Index })
	var junitOut *os.File
	for _, f := range files {
		if *junitFile != "" && samePath(f, *junitFile) {
			return exitUsage, usagef("merge: --junit %s is one of the reports merged: it would be overwritten", *junitFile)
		}
	}
	if *junitFile != "" {
		if junitOut, err = os.OpenFile(*junitFile, os.O_WRONLY|os.O_CREATE, 0o644); err != nil {
			return exitUsage, usagef("merge: --junit: %v", err)
		}
		defer junitOut.Close()
	}
	out, err := mergeShards(shards, *examples)
	if err != nil {
		return exitUsage, err
	}
	outputFailed := false
	if err := out.write(stdout, *jsonOut); err != nil {
		return exitUsage, err
	}
	checks := out.checks()
	if junitOut != nil {
		props := [][2]string{{"command", commandLine(append([]string{"merge"}, args...))}, {"config", out.config}, {"shards", fmt.Sprint(len(shards))}}
		if err := report.WriteJUnitFile(junitOut, checks, props); err != nil {
			fmt.Fprintf(stderr, "difffuzz: merge: --junit: %v\n", err)
			outputFailed = true
		} else {
			fmt.Fprintf(stderr, "difffuzz: wrote %s to %s (JUnit XML)\n", plural(uint64(len(checks)), "check"), *junitFile)
		}
	}
	code := exitOK
	if out.rep.Interrupted {
		fmt.Fprintln(stderr, "difffuzz: merge: a shard was interrupted: the summary covers what was checked before the interrupt")
		code = exitUsage
	}
	if out.rep.Differences > 0 {
		code = exitFindings
	}
	var compared uint64
	for _, sp := range out.rep.Spaces {
		compared += sp.Cases
	}
	if compared == 0 && code == exitOK {
		fmt.Fprintln(stderr, "difffuzz: merge: nothing was compared in any shard")
		code = exitUsage
	}
	return closing(code, outputFailed, *jsonOut, checks, stdout, stderr), nil
}

// readShardReport reads one --json report; every problem is one error naming the file.
func readShardReport(file string) (*shardReport, error) {
	data, err := readSmall(file, maxReportSize)
	if err != nil {
		return nil, usagef("merge: %v", err)
	}
	r := shardReport{Document: &report.Document{}, file: file}
	err = json.Unmarshal(data, r.Document)
	if r.Version != 0 && r.Version != report.Version {
		return nil, usagef("merge: %s: report version %d, this difffuzz reads version %d", file, r.Version, report.Version)
	}
	if err != nil {
		return nil, usagef("merge: %s: not a difffuzz --json report: %v", file, err)
	}
	if r.Config == "" || r.Shard == (report.Shard{}) || r.Version == 0 {
		return nil, usagef("merge: %s: not a difffuzz --json report (no version, config or shard)", file)
	}
	if r.Shard.Count < 1 || r.Shard.Index < 0 || r.Shard.Index >= r.Shard.Count {
		return nil, usagef("merge: %s: shard %d/%d is not a shard", file, r.Shard.Index, r.Shard.Count)
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
		return nil, usagef("merge: %s: its spaces hold %s and its classes %s, but it reports %s (edited, or not written whole?)",
			file, plural(inSpaces, "difference"), plural(inClasses, "finding"), plural(r.Differences, "difference"))
	}
	return &r, nil
}

// maxReportSize bounds a shard report read by merge.
const maxReportSize = 1 << 30

// maxNamed is how many missing shards an error names.
const maxNamed = 10

// checkShards checks that the reports are the shards 0..N-1 of one sweep, each exactly once.
func checkShards(shards []*shardReport) error {
	first := shards[0]
	n := first.Shard.Count
	byIndex := map[int]*shardReport{}
	for _, r := range shards {
		if r.Config != first.Config {
			return usagef("merge: %s is not of the sweep of %s: its configuration is %q, not %q", r.file, first.file, r.Config, first.Config)
		}
		if r.Shard.Count != n {
			return usagef("merge: %s is shard %d/%d but %s is shard %d/%d: not one sweep", r.file, r.Shard.Index, r.Shard.Count, first.file, first.Shard.Index, n)
		}
		if other := byIndex[r.Shard.Index]; other != nil {
			return usagef("merge: shard %d/%d is given twice: %s and %s", r.Shard.Index, n, other.file, r.file)
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
		return usagef("merge: %s %s missing (%d of %d shards given)", what, list, len(shards), n)
	}
	return nil
}

// mergeKey is what the parts of one space share across shards: the space, operation, length,
// option sets and candidates.
func mergeKey(s fuzz.SpaceReport) string {
	return fmt.Sprintf("%s\x00%s\x00%d\x00%d\x00%s", s.Space, s.Op, s.Len, s.OptionSets, strings.Join(s.Impls, ","))
}

// mergeShards adds up the shards' spaces (a space's time is the sum of its shards' times, the
// machine time it took; the run's elapsed time is the longest shard's), merges their defect
// classes (report.Merge) and keeps every shard's targets and options not checked.
func mergeShards(shards []*shardReport, examples int) (*outcome, error) {
	out := &outcome{modes: shards[0].Modes, config: shards[0].Config, rep: &fuzz.Report{}, shard: 0, shards: 1,
		targets: []report.TargetRecord{}, notChecked: []string{}, mergedFrom: len(shards)}
	index := map[string]int{}
	var classes [][]*report.Class
	var findings []*fuzz.Finding
	for _, r := range shards {
		for _, s := range r.Spaces {
			if _, err := fuzz.ParseOps(string(s.Op)); err != nil || s.Op == "" {
				return nil, usagef("merge: %s: a space of op %q: want escape, decode or utf8_decode", r.file, s.Op)
			}
			k := mergeKey(s)
			i, ok := index[k]
			if !ok {
				index[k] = len(out.rep.Spaces)
				s.CasesPerSec = 0
				out.rep.Spaces = append(out.rep.Spaces, s)
				continue
			}
			m := &out.rep.Spaces[i]
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
				return nil, usagef("merge: %s: the counts of space %s %s add up past 2^64: not a shard report difffuzz wrote", r.file, s.Space, s.Op)
			}
			m.Elapsed += s.Elapsed
			m.Complete = m.Complete && s.Complete
			m.Distinct = max(m.Distinct, s.Distinct)
		}
		out.rep.Differences += r.Differences
		out.rep.Interrupted = out.rep.Interrupted || r.Interrupted
		out.elapsed = max(out.elapsed, r.Elapsed)
		out.targets = append(out.targets, r.Targets...)
		for _, o := range r.NotChecked {
			if !slices.Contains(out.notChecked, o) {
				out.notChecked = append(out.notChecked, o)
			}
		}
		var cs []*report.Class
		for _, cr := range r.Classes {
			c, err := cr.Class()
			if err != nil {
				return nil, usagef("merge: %s: %v", r.file, err)
			}
			cs = append(cs, c)
		}
		classes = append(classes, cs)
		for i, fr := range r.Findings {
			f, err := fr.Finding()
			if err != nil {
				return nil, usagef("merge: %s: finding %d: %v", r.file, i+1, err)
			}
			findings = append(findings, f)
		}
	}
	// A shard that was interrupted may not have reached some spaces at all: those are
	// incomplete in the sweep, even if every other shard finished its part of them.
	for _, r := range shards {
		if !r.Interrupted {
			continue
		}
		has := map[string]bool{}
		for _, s := range r.Spaces {
			has[mergeKey(s)] = true
		}
		for i := range out.rep.Spaces {
			s := &out.rep.Spaces[i]
			if s.Space == "random" && r.Shard.Index != 0 {
				continue // random inputs are shard 0's alone
			}
			if !has[mergeKey(*s)] {
				s.Complete = false
			}
		}
	}
	for i := range out.rep.Spaces {
		s := &out.rep.Spaces[i]
		if sec := s.Elapsed.Seconds(); sec > 0 {
			s.CasesPerSec = float64(s.Cases) / sec
		}
	}
	out.rep.Merge(&fuzz.Report{Findings: findings}) // sorted as a single run's
	out.classes = report.Merge(classes, examples)
	return out, nil
}
