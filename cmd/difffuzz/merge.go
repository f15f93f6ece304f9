package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/difffuzz/difffuzz/campaign"
	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/report"
)

// mergeFlags defines merge's flags.
func mergeFlags(fs *flag.FlagSet) (jsonOut *bool, junitFile *string, examples *int) {
	jsonOut = fs.Bool("json", false, "print the merged report as JSON on stdout (the layout of a campaign's --json)")
	junitFile = fs.String("junit", "", "write the merged checks to `FILE` as JUnit XML")
	examples = decimalFlag(fs, "examples", 0, "`N` further witnesses kept per defect class (default: as many as the shards kept)")
	return jsonOut, junitFile, examples
}

// mergeArgs is merge's command line: the shard reports and the flags.
type mergeArgs struct {
	files     []string
	jsonOut   *bool
	junitFile *string
	examples  *int
}

// parseMerge parses and checks merge's command line.
func parseMerge(args []string, stderr io.Writer) (*mergeArgs, error) {
	fs := newFlagSet("merge", stderr)
	a := &mergeArgs{}
	a.jsonOut, a.junitFile, a.examples = mergeFlags(fs)
	var err error
	if a.files, err = parseFlags(fs, args); err != nil {
		return nil, err
	}
	if len(a.files) == 0 {
		return nil, usagef("merge: no report given (see difffuzz merge -h)")
	}
	if *a.examples < 0 || *a.examples > maxExamples {
		return nil, usagef("merge: --examples must be between 0 and %d, got %d", maxExamples, *a.examples)
	}
	return a, nil
}

// runMerge combines the --json reports of the shards of one sweep into the report of the
// whole, printed as a single run prints it (terminal report or --json, --junit, the closing
// line), with a single run's exit status.
func runMerge(args []string, stdout, stderr io.Writer) (int, error) {
	a, err := parseMerge(args, stderr)
	if err != nil {
		return exitUsage, err
	}
	shards, err := readShards(a.files)
	if err != nil {
		return exitUsage, err
	}
	junitOut, err := openMergeJUnit(a.files, *a.junitFile)
	if err != nil {
		return exitUsage, err
	}
	if junitOut != nil {
		defer junitOut.Close()
	}
	sw, err := report.MergeShards(shards, *a.examples)
	if err != nil {
		return exitUsage, usagef("merge: %v", err)
	}
	out := &report.Outcome{Modes: shards[0].Modes, Config: shards[0].Config, Report: sw.Report, Classes: sw.Classes, Elapsed: sw.Elapsed,
		Targets: sw.Targets, Shard: 0, Shards: 1, NotChecked: sw.NotChecked, MergedFrom: len(shards)}
	if err := out.Write(stdout, *a.jsonOut); err != nil {
		return exitUsage, err
	}
	checks := out.Checks()
	outputFailed := false
	if junitOut != nil {
		props := [][2]string{{"command", commandLine(append([]string{"merge"}, args...))}, {"config", out.Config}, {"shards", fmt.Sprint(len(shards))}}
		if err := report.WriteJUnitFile(junitOut, checks, props); err != nil {
			fmt.Fprintf(stderr, "difffuzz: merge: --junit: %v\n", err)
			outputFailed = true
		} else {
			fmt.Fprintf(stderr, "difffuzz: wrote %s to %s (JUnit XML)\n", report.Plural(uint64(len(checks)), "check"), *a.junitFile)
		}
	}
	return closing(mergeStatus(out.Report, stderr), outputFailed, *a.jsonOut, checks, stdout, stderr), nil
}

// readShards reads the shard reports of one sweep, in shard order (report.OrderShards).
func readShards(files []string) ([]*report.ShardReport, error) {
	var shards []*report.ShardReport
	for _, file := range files {
		data, err := campaign.ReadSmall(file, maxReportSize)
		if err != nil {
			return nil, usagef("merge: %v", err)
		}
		r, err := report.ParseShardReport(file, data)
		if err != nil {
			return nil, usagef("merge: %v", err)
		}
		shards = append(shards, r)
	}
	if err := report.OrderShards(shards); err != nil {
		return nil, usagef("merge: %v", err)
	}
	return shards, nil
}

// maxReportSize bounds a shard report read by merge.
const maxReportSize = 1 << 30

// openMergeJUnit opens --junit FILE (nil for none), which must not be one of the reports.
func openMergeJUnit(files []string, junitFile string) (*os.File, error) {
	if junitFile == "" {
		return nil, nil
	}
	for _, f := range files {
		if campaign.SamePath(f, junitFile) {
			return nil, usagef("merge: --junit %s is one of the reports merged: it would be overwritten", junitFile)
		}
	}
	f, err := os.OpenFile(junitFile, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, usagef("merge: --junit: %v", err)
	}
	return f, nil
}

// mergeStatus is a merge's exit status, as a single run's: 1 for differences, else 2 when a
// shard was interrupted, a space is not complete or nothing was compared (said on stderr),
// else 0.
func mergeStatus(rep *fuzz.Report, stderr io.Writer) int {
	code := exitOK
	incomplete := false
	for _, s := range rep.Spaces {
		incomplete = incomplete || !s.Complete
	}
	switch {
	case rep.Interrupted:
		fmt.Fprintln(stderr, "difffuzz: merge: a shard was interrupted: the summary covers what was checked before the interrupt")
		code = exitUsage
	case incomplete:
		fmt.Fprintln(stderr, "difffuzz: merge: a space is not complete in its shard: the summary covers what was checked of it")
		code = exitUsage
	}
	if rep.Differences > 0 {
		code = exitFindings
	}
	if campaign.Compared(rep) == 0 && code == exitOK {
		fmt.Fprintln(stderr, "difffuzz: merge: nothing was compared in any shard")
		code = exitUsage
	}
	return code
}
