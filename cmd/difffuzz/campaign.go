package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/campaign"
	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/protocol"
	"github.com/difffuzz/difffuzz/report"
)

// common is what every campaign mode gets: the candidates, the operations and the
// resources, as chosen by the shared flags.
type common struct {
	cands         []fuzz.Impl    // built-in candidates (none when only --exec targets were asked for)
	targets       []*fuzz.Target // external targets (--exec), started
	reference     *fuzz.Target   // --reference-exec, started (nil without)
	isDefault     bool           // no mode flag was given: each mode runs its default budget
	shard, shards int            // --shard K/N (exhaustive spaces)
	ops           []fuzz.Op
	maxLen        int
	fullOptions   bool // --full-options: escape every length under all 2,048 option sets
	workers       int
	progress      fuzz.Progress
	stderr        io.Writer
	sink          fuzz.Sink            // every raw finding goes here (the run's report.Triage, through ck with --checkpoint)
	ck            *campaign.Checkpoint // --checkpoint (nil without)
}

// mode is one way of choosing inputs (exhaustive, boundary, random, ...). Each lives in its
// own file and adds itself to modes from init, so modes can be added without touching the
// others.
type mode struct {
	name      string
	order     int                           // position in a campaign
	inDefault bool                          // runs when no mode flag is given
	addFlags  func(fs *flag.FlagSet)        // registers the mode's flags
	selected  func() bool                   // after parsing: was the mode asked for
	check     func(runs bool) error         // after parsing: validate the mode's flags (runs: the mode is part of this campaign)
	part      func(c *common) campaign.Part // the mode as the engine runs it (campaign.Run)
	// plan, if set, is the spaces the mode asks each --exec target, for printPlan to say
	// their sizes and what they will cost before the campaign starts; nil: its part's
	// Space.Target (modePlan).
	plan func(c *common) []fuzz.TargetSpace
	// builtinPlan, if set, is the spaces the mode runs over the built-in candidates, for
	// printBuiltinPlan.
	builtinPlan func(c *common) []builtinSpace
}

var modes []*mode

// modeNames are the names of the modes, which a checkpoint's parts are of.
func modeNames() []string {
	names := make([]string, len(modes))
	for i, m := range modes {
		names[i] = m.name
	}
	return names
}

// readSmall reads a regular file of at most limit bytes (campaign.ReadSmall).
func readSmall(path string, limit int64) ([]byte, error) { return campaign.ReadSmall(path, limit) }

func addMode(m *mode) {
	modes = append(modes, m)
	for i := len(modes) - 1; i > 0 && modes[i].order < modes[i-1].order; i-- {
		modes[i], modes[i-1] = modes[i-1], modes[i]
	}
}

// campaignCandidates resolves --impl (a variable so that tests can add planted candidates).
var campaignCandidates = fuzz.Candidates

// minTimeout is the least --timeout: a target's hello and answers cross two pipes and a
// process switch, which a shorter wait would take for a hang.
const minTimeout = time.Millisecond

// maxExamples bounds --examples: the report is read by a person (--findings keeps them all).
const maxExamples = 100

// runCampaign runs the selected modes against the candidates and prints the findings and a
// summary. With no mode flag it runs the default campaign (every mode marked inDefault).
// It goes parse (campaignArgs.parse) → open the outputs and the checkpoint → start the
// targets → run the modes (runModes) → triage (triageCampaign) → print (campaignArgs.write).
func runCampaign(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	a := newCampaignArgs(args, stderr)
	c, run, err := a.parse(stderr)
	if err != nil {
		return exitUsage, err
	}
	if err := a.openFiles(); err != nil {
		return exitUsage, err
	}
	defer a.closeFiles()
	triage := report.New(report.Config{Examples: a.examplesConfig(), Spool: a.findingsOut != nil, Progress: c.progress})
	defer triage.Close()
	c.sink = triage
	if err := a.openCheckpoint(ctx, c, triage, stderr); err != nil {
		return exitUsage, err
	}
	defer c.ck.Close() // on the error returns below; the campaign closes it itself
	closeTargets, err := startTargets(ctx, c, a.execs, *a.refExec, *a.timeout)
	defer closeTargets()
	if err != nil {
		return exitUsage, err
	}
	modeNames := make([]string, len(run))
	for i, m := range run {
		modeNames[i] = m.name
	}
	fmt.Fprintf(stderr, "difffuzz: %s campaign: candidates %s, %s\n",
		strings.Join(modeNames, " + "), candidatesText(c), plural(uint64(c.workers), "worker"))
	if len(c.targets) > 0 && c.ck == nil {
		total, err := printPlan(ctx, c, run, stderr)
		if err != nil {
			return exitUsage, err
		}
		if total > 0 && len(c.cands) == 0 {
			c.progress = newWholeRun(c.progress, total)
		}
	}
	if len(c.targets) == 0 && c.ck == nil {
		if plan := printBuiltinPlan(ctx, c, run, stderr); len(plan) > 0 {
			c.progress = newBuiltinRun(c.progress, wholeRunSpans(plan))
		}
	}
	start := time.Now()
	rep, runErr := runModes(ctx, c, run)
	outputFailed := closeCheckpoint(c, rep, *a.checkpointFile, stderr)
	if runErr != nil && rep.Differences == 0 && triage.Total() == 0 && compared(rep) == 0 && c.ck == nil {
		// Nothing was checked, nothing found (a target that answers nothing): the error alone.
		return exitUsage, runErr
	}
	classes := triageCampaign(ctx, c, triage, stderr)
	out := &outcome{
		modes: modeNames, config: campaignConfig(a.fs, c, a.execs), rep: rep, classes: classes, elapsed: time.Since(start) + c.ck.Earlier(),
		targets: targetRecords(allTargets(c)), versus: versusName(c), shard: c.shard, shards: max(c.shards, 1), notChecked: notChecked(c.targets),
	}
	checks := out.checks()
	if a.write(out, checks, c, triage, stdout, stderr) {
		outputFailed = true
	}
	for _, t := range allTargets(c) {
		report.TargetNotes(stderr, t)
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "difffuzz: %s\n", oneLine(runErr))
		fmt.Fprintln(stderr, "difffuzz: stopped early: the summary covers what was checked before the error")
	} else if rep.Interrupted {
		fmt.Fprintln(stderr, "difffuzz: interrupted: the summary covers what was checked before the interrupt")
	}
	if runErr != nil || rep.Interrupted {
		if nr := notReached(c, run, rep); len(nr) > 0 {
			fmt.Fprintf(stderr, "difffuzz: not begun, so neither passed nor failed: %s\n", strings.Join(nr, ", "))
		}
	}
	code := campaignStatus(rep, runErr, c, stderr)
	return closing(code, outputFailed, *a.jsonOut, checks, stdout, stderr), nil
}

// campaignArgs are the campaign's flags as parsed, and the output files they name.
type campaignArgs struct {
	fs                                                       *flag.FlagSet
	args                                                     []string
	implList, opsList, refExec, shardArg                     *string
	findingsFile, checkpointFile, junitFile, phptDir, outDir *string
	maxLen, workers, examples                                *int
	fullOptions, jsonOut                                     *bool
	timeout                                                  *time.Duration
	execs                                                    stringList
	findingsOut, junitOut                                    *os.File
}

// newCampaignArgs defines the campaign's flags (the modes add theirs).
func newCampaignArgs(args []string, stderr io.Writer) *campaignArgs {
	fs := newFlagSet("difffuzz", stderr)
	a := &campaignArgs{fs: fs, args: args}
	a.implList = fs.String("impl", "all", "candidates to compare with the oracle, comma-separated: "+strings.Join(fuzz.ImplNames(), ", ")+"; all = every fast variant")
	a.opsList = fs.String("ops", "all", "operations: escape,decode,utf8_decode")
	a.maxLen = fs.Int("max-len", 0, "maximum input length of the exhaustive spaces for every operation (default 4 for decode and utf8_decode, 3 for escape)")
	a.fullOptions = fs.Bool("full-options", false, "exhaustive: escape strings of 3 bytes and more under all 2,048 option sets too (default: 1,088 past 2 bytes, see docs/cli.md)")
	a.workers = fs.Int("workers", runtime.GOMAXPROCS(0), "worker goroutines")
	a.jsonOut = fs.Bool("json", false, "print the report as JSON on stdout")
	fs.Var(&a.execs, "exec", "an external target speaking target protocol v1, as a command line (split like a shell would, no shell runs), or `name=CMD` to name it in the report (a build: branch='sapi/cli/php ...'); repeatable")
	a.refExec = fs.String("reference-exec", "", "compare the --exec targets with this target (`[name=]CMD`, a build of master) instead of the oracle: every difference between them is a finding, and the oracle says which side answers as PHP 8.2 does")
	a.shardArg = fs.String("shard", "", "check only part K of N of the exhaustive and boundary spaces (K/N, 0 <= K < N), to share a campaign between machines; auto/N takes K from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job), DIFFFUZZ_SHARD_INDEX, CI_NODE_INDEX (GitLab, from 1) or BUILDKITE_PARALLEL_JOB; random inputs are not split: shard 0 checks them all")
	a.timeout = fs.Duration("timeout", protocol.DefaultTimeout, "longest wait for one answer of an --exec target (at least 1ms); after its first 1,000 answers the wait is 50× its p99 answer latency, at least 100ms and at most this")
	a.examples = fs.Int("examples", 3, "further witnesses printed with each defect class")
	a.findingsFile = fs.String("findings", "", "write every raw finding to `FILE` as JSON Lines, each with the id of its defect class")
	a.checkpointFile = fs.String("checkpoint", "", "write the campaign's position to `FILE` (and its findings to FILE.findings) every 30s and when it ends or is interrupted; the same command with the same FILE continues where it stopped, and its report covers the whole run")
	a.junitFile = fs.String("junit", "", "write the checks (space × operation × candidate) to `FILE` as JUnit XML, a failure per failed check with its defect classes' witnesses and replay lines")
	a.phptDir = fs.String("phpt", "", "write a .phpt test (php-src's run-tests format) of each escape and utf8_decode defect class to `DIR`: its witness asked of json_encode() or utf8_decode(), expecting PHP 8.2's answer")
	a.outDir = fs.String("out", "", "save the witness of each defect class as DIR/<Target>/<id> (go test fuzz v1) and DIR/<id>.txt")
	for _, m := range modes {
		m.addFlags(fs)
	}
	return a
}

// parse parses and checks the flags: the campaign's common settings and the modes to run.
func (a *campaignArgs) parse(stderr io.Writer) (*common, []*mode, error) {
	rest, err := parseFlags(a.fs, a.args)
	if err != nil {
		return nil, nil, err
	}
	if len(rest) > 0 {
		return nil, nil, usagef("unexpected argument %q", rest[0])
	}
	if *a.workers < 1 || *a.workers > maxWorkers {
		return nil, nil, usagef("--workers must be between 1 and %d, got %d", maxWorkers, *a.workers)
	}
	if *a.maxLen < 0 || *a.maxLen > 4 || (given(a.fs, "max-len") && *a.maxLen == 0) {
		return nil, nil, usagef("--max-len must be between 1 and 4, got %d", *a.maxLen)
	}
	c := &common{maxLen: *a.maxLen, fullOptions: *a.fullOptions, workers: *a.workers, progress: newProgress(stderr), stderr: stderr}
	if c.cands, err = campaignCandidates(*a.implList); err != nil {
		return nil, nil, usagef("--impl: %v", err)
	}
	if c.ops, err = fuzz.ParseOps(*a.opsList); err != nil {
		return nil, nil, usagef("--ops: %v", err)
	}
	if *a.refExec != "" && (len(a.execs) == 0 || given(a.fs, "impl")) {
		return nil, nil, usagef("--reference-exec compares --exec targets with it: give at least one --exec, and no --impl (built-ins are compared with the oracle)")
	}
	if len(a.execs) > 0 && !given(a.fs, "impl") {
		c.cands = nil // only the external targets, unless --impl asks for built-ins too
	}
	if *a.shardArg != "" {
		if c.shard, c.shards, err = parseShard(*a.shardArg, os.Getenv); err != nil {
			return nil, nil, err
		}
	}
	if *a.timeout < minTimeout {
		return nil, nil, usagef("--timeout must be at least %v, got %v", minTimeout, *a.timeout)
	}
	if *a.examples < 0 || *a.examples > maxExamples {
		return nil, nil, usagef("--examples must be between 0 and %d, got %d (--findings FILE keeps every finding)", maxExamples, *a.examples)
	}
	run, err := a.modes(c)
	if err != nil {
		return nil, nil, err
	}
	return c, run, a.checkOutputs()
}

// modes are the modes to run (the default campaign's when no mode flag was given), each
// mode's flags checked.
func (a *campaignArgs) modes(c *common) ([]*mode, error) {
	var run []*mode
	for _, m := range modes {
		if m.selected() {
			run = append(run, m)
		}
	}
	if len(run) == 0 {
		c.isDefault = true
		for _, m := range modes {
			if m.inDefault {
				run = append(run, m)
			}
		}
	}
	for _, m := range modes {
		if m.check != nil {
			if err := m.check(slices.Contains(run, m)); err != nil {
				return nil, err
			}
		}
	}
	return run, nil
}

// checkOutputs makes the --out and --phpt directories and checks that the output files are
// distinct and none is a name the checkpoint's log takes.
func (a *campaignArgs) checkOutputs() error {
	for flag, dir := range map[string]string{"--out": *a.outDir, "--phpt": *a.phptDir} {
		if dir == "" {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return usagef("%s: %v", flag, err)
		}
	}
	outs := map[string]string{"--findings": *a.findingsFile, "--junit": *a.junitFile}
	if *a.checkpointFile != "" {
		outs["--checkpoint"] = *a.checkpointFile
		outs["--checkpoint's findings log"] = *a.checkpointFile + ".findings"
	}
	if err := distinctPaths(outs); err != nil {
		return err
	}
	for _, flag := range []string{"--findings", "--junit"} {
		if outs[flag] != "" && *a.checkpointFile != "" && logGeneration(outs[flag], *a.checkpointFile) {
			return usagef("%s %s is a name the checkpoint's findings log takes when a resume compacts it: give another", flag, outs[flag])
		}
	}
	return nil
}

// openFiles opens --findings and --junit now, so that a path that cannot be written fails
// before the campaign; they are emptied only when written at its end.
func (a *campaignArgs) openFiles() error {
	var err error
	if *a.findingsFile != "" {
		if a.findingsOut, err = openOutput(*a.findingsFile); err != nil {
			return usagef("--findings: %v", err)
		}
	}
	if *a.junitFile != "" {
		if a.junitOut, err = openOutput(*a.junitFile); err != nil {
			return usagef("--junit: %v", err)
		}
	}
	return nil
}

// closeFiles closes what openFiles opened (a second close is harmless).
func (a *campaignArgs) closeFiles() {
	for _, f := range []*os.File{a.findingsOut, a.junitOut} {
		if f != nil {
			f.Close()
		}
	}
}

// examplesConfig is --examples as report.Config takes it (-1: none).
func (a *campaignArgs) examplesConfig() int {
	if *a.examples == 0 {
		return -1
	}
	return *a.examples
}

// openCheckpoint opens --checkpoint (reading an earlier run back into triage) and starts its
// periodic writes; without the flag it does nothing.
func (a *campaignArgs) openCheckpoint(ctx context.Context, c *common, triage *report.Triage, stderr io.Writer) error {
	if *a.checkpointFile == "" {
		return nil
	}
	var err error
	if c.ck, err = campaign.Open(*a.checkpointFile, campaignConfig(a.fs, c, a.execs), fmt.Sprintf("%d/%d", c.shard, max(c.shards, 1)), c.fullOptions, modeNames(), triage); err != nil {
		return usageError{err.Error()}
	}
	c.sink = c.ck
	if ctx.Err() != nil {
		c.ck.Close()
		return usagef("interrupted while reading the checkpoint back: %s is saved as it was read, run the same command again", *a.checkpointFile)
	}
	if c.ck.Resumed() {
		fmt.Fprintln(stderr, c.ck.ResumeLine())
	}
	c.ck.Start(stderr)
	return nil
}

// runModes runs the modes against the candidates (campaign.Run).
func runModes(ctx context.Context, c *common, run []*mode) (*fuzz.Report, error) {
	cm := campaign.Campaign{Checkpoint: c.ck}
	for _, m := range run {
		cm.Parts = append(cm.Parts, m.part(c))
	}
	if len(c.cands) > 0 {
		cm.Candidates = append(cm.Candidates, campaign.Builtins(c.cands))
	}
	for _, t := range c.targets {
		cm.Candidates = append(cm.Candidates, campaign.Target{Target: t})
	}
	return campaign.Run(ctx, cm)
}

// closeCheckpoint writes the checkpoint a last time and says what it holds; it reports
// whether that failed.
func closeCheckpoint(c *common, rep *fuzz.Report, file string, stderr io.Writer) bool {
	if c.ck == nil {
		return false
	}
	switch err := c.ck.Close(); {
	case err != nil:
		fmt.Fprintf(stderr, "difffuzz: --checkpoint: %v\n", err)
		return true
	case rep.Interrupted:
		fmt.Fprintf(stderr, "difffuzz: checkpoint written to %s: run the same command again to continue\n", file)
	case c.ck.Resumed() && !c.ck.Worked():
		fmt.Fprintf(stderr, "difffuzz: --checkpoint %s: that run was already complete: this report is its report, nothing was checked again (delete the file to check again)\n", file)
	}
	return false
}

// triageCampaign retires the targets and makes the defect classes of what was found,
// minimizing even when interrupted (a second interrupt stops that), and says how it went.
func triageCampaign(ctx context.Context, c *common, triage *report.Triage, stderr io.Writer) []*report.Class {
	for _, t := range allTargets(c) {
		for _, w := range t.Witnesses() {
			triage.AddNotRun(w.Finding, w.NotRun)
		}
	}
	for _, t := range allTargets(c) {
		// Findings are re-checked in a new process: a target whose answers change between
		// processes is then said to be nondeterministic, not minimized into another defect.
		if err := t.Retire(); err != nil {
			fmt.Fprintf(stderr, "difffuzz: --exec %q: %v\n", t.Name, err)
		}
	}
	tctx := hardStop(ctx)
	if ctx.Err() != nil && tctx.Err() == nil && triage.Total() > 0 {
		fmt.Fprintln(stderr, "difffuzz: interrupted: minimizing what was found (interrupt again to report it as found)")
	}
	classes := triage.Classes(tctx, rechecker(tctx, c))
	report.FlakyNotes(stderr, classes)
	if st := triage.Stats(); st.Groups > 0 {
		fmt.Fprintf(stderr, "difffuzz: triage: %s findings in %s groups, %s classes: %s groups minimized, %s classes tried for a slip, %s candidate runs, %v\n",
			group(triage.Total()), group(uint64(st.Groups)), group(uint64(len(classes))), group(uint64(st.Minimized)), group(uint64(st.Merges)),
			group(uint64(st.Runs)), st.Elapsed.Round(10*time.Millisecond))
		if st.Cut > 0 {
			fmt.Fprintf(stderr, "difffuzz: triage interrupted: %s of %s groups not minimized (their classes keep the smallest finding as found)\n",
				group(uint64(st.Cut)), group(uint64(st.Groups)))
		}
	}
	return classes
}

// write prints the report and writes --findings, --junit, --out and --phpt; it reports
// whether one of them could not be written (said on stderr).
func (a *campaignArgs) write(out *outcome, checks []report.Check, c *common, triage *report.Triage, stdout, stderr io.Writer) bool {
	failed := false
	if err := out.write(stdout, *a.jsonOut); err != nil {
		fmt.Fprintf(stderr, "difffuzz: writing the report: %v\n", err)
		failed = true
	}
	if a.findingsOut != nil && !a.writeFindings(triage, stderr) {
		failed = true
	}
	if a.junitOut != nil {
		if err := report.WriteJUnitFile(a.junitOut, checks, [][2]string{{"command", commandLine(a.args)}, {"config", out.config},
			{"shard", fmt.Sprintf("%d/%d", c.shard, max(c.shards, 1))}}); err != nil {
			fmt.Fprintf(stderr, "difffuzz: --junit: %v\n", err)
			failed = true
		} else {
			fmt.Fprintf(stderr, "difffuzz: wrote %s to %s (JUnit XML)\n", plural(uint64(len(checks)), "check"), *a.junitFile)
		}
	}
	if *a.outDir != "" {
		report.SaveWitnesses(*a.outDir, out.classes, stderr)
	}
	if *a.phptDir != "" && !writePHPT(*a.phptDir, out.classes, stderr) {
		failed = true
	}
	return failed
}

// writeFindings writes every raw finding to --findings; it reports whether that worked.
func (a *campaignArgs) writeFindings(triage *report.Triage, stderr io.Writer) bool {
	var n uint64
	var err error
	if st, serr := a.findingsOut.Stat(); serr == nil && st.Mode().IsRegular() {
		err = a.findingsOut.Truncate(0) // not a pipe or a terminal
	}
	if err == nil {
		n, err = triage.WriteFindings(a.findingsOut)
	}
	if err == nil {
		err = a.findingsOut.Close()
	}
	if err != nil {
		fmt.Fprintf(stderr, "difffuzz: --findings: %v\n", err)
		return false
	}
	fmt.Fprintf(stderr, "difffuzz: wrote %s findings to %s (JSON Lines)\n", report.Count(n), *a.findingsFile)
	return true
}

// closing prints the closing line, last of all (on stdout after the summary, on stderr under
// --json), and returns the exit status: code, or 2 instead of 0 when an output could not be
// written (the report, --findings, --junit, --checkpoint), which was said on stderr.
func closing(code int, outputFailed, asJSON bool, checks []report.Check, stdout, stderr io.Writer) int {
	w := stdout
	if asJSON {
		w = stderr
	}
	if _, err := fmt.Fprintln(w, report.TallyLine(checks)); err != nil {
		fmt.Fprintf(stderr, "difffuzz: writing the report: %v\n", err)
		outputFailed = true
	}
	if outputFailed && code == exitOK {
		return exitUsage
	}
	return code
}

// campaignStatus is a campaign's exit status: 1 with a difference; 2 when it compared nothing
// (saying why on stderr) or was interrupted or stopped by an error before finding one; else 0.
func campaignStatus(rep *fuzz.Report, runErr error, c *common, stderr io.Writer) int {
	if rep.Differences > 0 {
		return exitFindings
	}
	if compared(rep) == 0 && runErr == nil && !rep.Interrupted {
		// A check that compared nothing must not pass: e.g. a target that announces none
		// of the operations asked for.
		if c.shards > 1 {
			fmt.Fprintf(stderr, "difffuzz: nothing was compared: shard %d/%d holds no work at this size (fewer shards, or a larger --max-len), or no candidate offers the operations asked for (--ops)\n", c.shard, c.shards)
		} else {
			fmt.Fprintln(stderr, "difffuzz: nothing was compared: no candidate offers the operations asked for (--ops)")
		}
		return exitUsage
	}
	if rep.Interrupted {
		return exitUsage
	}
	return exitOK
}

// compared is how many cases a campaign compared.
func compared(rep *fuzz.Report) uint64 {
	var n uint64
	for _, sp := range rep.Spaces {
		n += sp.Cases
	}
	return n
}

// commandLine is the campaign's command line as a shell would take it back: each argument
// single-quoted unless it is made only of characters a shell leaves alone.
func commandLine(args []string) string {
	out := []string{"difffuzz"}
	for _, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=/.,:+@%") == "" {
			out = append(out, a)
		} else {
			out = append(out, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
		}
	}
	return strings.Join(out, " ")
}

// maxWorkers bounds --workers: each worker holds its buffers (and, with --exec, a target
// process); more than a few per core only waits.
const maxWorkers = 256

// stringPath are the option bits PHP's string path reads: the eleven of jsonopt.StringOptions
// and PRESERVE_ZERO_FRACTION (for a double under NUMERIC_CHECK).
const stringPath = jsonopt.StringPath

// notChecked names the option bits of PHP's string path that the run did not check: those a
// target did not announce (every built-in implementation has them all).
func notChecked(ts []*fuzz.Target) []string {
	out := []string{}
	for _, t := range ts {
		if u := t.Unchecked() & stringPath; u != 0 {
			for _, name := range strings.Split(u.String(), "|") {
				if !slices.Contains(out, name) {
					out = append(out, name)
				}
			}
		}
	}
	return out
}

// shardEnv are the environment variables --shard auto/N reads the shard index from, in order:
// the engine's name, the variable, and whether the index counts from 1.
var shardEnv = []struct {
	engine, name string
	oneBased     bool
}{
	{"a Kubernetes Indexed Job", "JOB_COMPLETION_INDEX", false},
	{"a CI matrix (set it to the matrix index)", "DIFFFUZZ_SHARD_INDEX", false},
	{"GitLab CI's parallel jobs", "CI_NODE_INDEX", true},
	{"Buildkite's parallel jobs", "BUILDKITE_PARALLEL_JOB", false},
}

// parseShard reads --shard: K/N with 0 <= K < N, or auto/N, which takes K from the first of
// shardEnv that getenv finds set.
func parseShard(arg string, getenv func(string) string) (k, n int, err error) {
	kText, nText, ok := strings.Cut(arg, "/")
	bad := usagef("--shard %q: want K/N with 0 <= K < N, like 0/4, or auto/N to take K from the environment (%s)", arg, shardEnvNames())
	if !ok {
		return 0, 0, bad
	}
	if n, err = strconv.Atoi(nText); err != nil || n < 1 || nText != strconv.Itoa(n) {
		return 0, 0, bad
	}
	if kText == "auto" {
		for _, e := range shardEnv {
			v := getenv(e.name)
			if v == "" {
				continue
			}
			first := 0
			if e.oneBased {
				first = 1
			}
			k, err = strconv.Atoi(v)
			if err != nil || v != strconv.Itoa(k) || k < first || k >= n+first {
				return 0, 0, usagef("--shard %q (from %s=%s, %s): shard %q is not a number from %d to %d", arg, e.name, v, e.engine, v, first, n-1+first)
			}
			return k - first, n, nil
		}
		return 0, 0, usagef("--shard %q: no shard index in the environment: none of %s is set", arg, shardEnvNames())
	}
	if k, err = strconv.Atoi(kText); err != nil || k < 0 || k >= n || kText != strconv.Itoa(k) {
		return 0, 0, usagef("--shard %q: shard %q is not a number from 0 to %d", arg, kText, n-1)
	}
	return k, n, nil
}

// shardEnvNames lists the variables of shardEnv.
func shardEnvNames() string {
	var names []string
	for _, e := range shardEnv {
		names = append(names, e.name)
	}
	return strings.Join(names, ", ")
}

// distinctPaths refuses two of the named files (flag → path; "" is none) that are one file:
// one output would overwrite the other.
func distinctPaths(paths map[string]string) error {
	names := make([]string, 0, len(paths))
	for n, p := range paths {
		if p != "" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for i, a := range names {
		for _, b := range names[i+1:] {
			if samePath(paths[a], paths[b]) {
				return usagef("%s and %s are the same file (%s): one would overwrite the other", a, b, paths[a])
			}
		}
	}
	return nil
}

// openOutput opens an output file (--findings, --junit) for writing, created when missing. A
// named pipe or a socket is refused: opening one blocks until a reader comes, and no signal
// ends the wait.
func openOutput(path string) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0 {
		return nil, fmt.Errorf("%s is a named pipe or a socket: give a regular file", path)
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
}

// samePath is whether two paths name one file: the same path once links are followed (a link
// to a file not yet written included), or (both existing) the same file.
func samePath(a, b string) bool {
	if resolvedPath(a) == resolvedPath(b) {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// resolvedPath is p absolute with its symbolic links followed, the last one too when what it
// points to does not exist yet (os.Stat cannot tell such a link from its target).
func resolvedPath(p string) string {
	for range 40 { // as the kernel's limit on links followed
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			break
		}
		t, err := os.Readlink(p)
		if err != nil {
			break
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = t
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		p = filepath.Join(d, filepath.Base(p))
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// logGeneration reports whether out is a findings log the checkpoint at ck may write
// (CK.findings.N, when a resume compacts the log).
func logGeneration(out, ck string) bool {
	rest, ok := strings.CutPrefix(resolvedPath(out), resolvedPath(ck)+".findings.")
	return ok && rest != "" && strings.Trim(rest, "0123456789") == ""
}

// stringList collects a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, " ") }

func (l *stringList) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("empty command")
	}
	*l = append(*l, v)
	return nil
}

func joinOps(ops []fuzz.Op) string {
	s := make([]string, len(ops))
	for i, o := range ops {
		s[i] = string(o)
	}
	return strings.Join(s, ",")
}

// group formats n with thousands separators (report.Count).
func group(n uint64) string { return report.Count(n) }

// plural is n and the noun, plural unless n is 1 ("1 class", "3 classes").
func plural(n uint64, noun string) string { return report.Plural(n, noun) }

// rechecker finds a candidate of the run by name for minimization: a built-in through
// fuzz.DefaultCheck, an external target through single requests.
func rechecker(ctx context.Context, c *common) report.Rechecker {
	return func(impl string) (fuzz.Impl, fuzz.CheckOne, bool) {
		for _, im := range c.cands {
			if im.Name == impl {
				return im, fuzz.OneCheck(fuzz.DefaultCheck), true
			}
		}
		for _, t := range c.targets {
			if t.Name == impl {
				// A target that used up its restarts cannot be asked again.
				return fuzz.Impl{Name: t.Name}, t.CheckOne(ctx), t.CanRun() && (c.reference == nil || c.reference.CanRun())
			}
		}
		if r := c.reference; r != nil && r.Name == impl && len(c.targets) > 0 {
			// The reference's findings (where a build answers as PHP does and it does not)
			// are asked again through the first build, which asks the reference too.
			return fuzz.Impl{Name: r.Name}, c.targets[0].CheckOne(ctx), r.CanRun() && c.targets[0].CanRun()
		}
		return fuzz.Impl{}, nil, false
	}
}

// startTargets starts the --exec targets and the --reference-exec target (each `[name=]CMD`)
// into c; the returned function closes them (saying on stderr why one did not end well).
func startTargets(ctx context.Context, c *common, execs []string, refExec string, timeout time.Duration) (func(), error) {
	var started []*fuzz.Target
	closeAll := func() {
		for _, t := range started {
			if err := t.Close(); err != nil {
				fmt.Fprintf(c.stderr, "difffuzz: --exec %q: %v\n", t.Name, err)
			}
		}
	}
	start := func(flag, arg string) (*fuzz.Target, error) {
		name, cmd := splitExecName(arg)
		for _, t := range started {
			if name != "" && t.Name == name {
				return nil, usagef("%s %q: a target of that name was given already (name each one: --exec NAME=CMD)", flag, arg)
			}
		}
		t, err := fuzz.StartTarget(ctx, cmd, fuzz.TargetConfig{Timeout: timeout, Sink: c.sink, Name: name})
		if err != nil {
			return nil, usagef("%s %q: %v", flag, cmd, err)
		}
		started = append(started, t)
		return t, nil
	}
	if refExec != "" {
		r, err := start("--reference-exec", refExec)
		if err != nil {
			return closeAll, err
		}
		c.reference = r
	}
	for _, cmd := range execs {
		t, err := start("--exec", cmd)
		if err != nil {
			return closeAll, err
		}
		if c.reference != nil {
			t.SetReference(c.reference)
		}
		c.targets = append(c.targets, t)
	}
	return closeAll, nil
}

// splitExecName splits an --exec argument NAME=CMD into its name and command: NAME is a word
// of letters, digits, '.', '_' and '-' that starts with a letter, right before the first '='
// and not part of the command's first word otherwise; "" and the whole argument without one.
func splitExecName(arg string) (name, cmd string) {
	n, rest, ok := strings.Cut(arg, "=")
	if !ok || n == "" || strings.TrimSpace(rest) == "" || !isLetter(n[0]) ||
		strings.Trim(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "" {
		return "", arg
	}
	return n, strings.TrimSpace(rest)
}

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// allTargets are the --exec targets and the reference.
func allTargets(c *common) []*fuzz.Target {
	if c.reference == nil {
		return c.targets
	}
	return append([]*fuzz.Target{c.reference}, c.targets...)
}

// targetRecords is how each target was driven, for --json ([] for none).
func targetRecords(ts []*fuzz.Target) []report.TargetRecord {
	out := []report.TargetRecord{}
	for _, t := range ts {
		out = append(out, report.TargetOf(t))
	}
	return out
}

// candidatesText names the candidates of a campaign for its first line, and what they are
// compared with: the oracle, or the --reference-exec target.
func candidatesText(c *common) string {
	var names []string
	for _, im := range c.cands {
		names = append(names, im.Name)
	}
	for _, t := range c.targets {
		// The operations it is asked: those it announced that --ops selects.
		ops := slices.DeleteFunc(slices.Clone(t.Ops()), func(o fuzz.Op) bool { return !slices.Contains(c.ops, o) })
		names = append(names, fmt.Sprintf("%s (%s)", targetLabel(t), joinOps(ops)))
	}
	if c.reference == nil {
		return strings.Join(names, ", ") + " against the oracle"
	}
	return fmt.Sprintf("%s against the reference %s (every difference is a finding; the oracle says which side answers as PHP 8.2 does)",
		strings.Join(names, ", "), targetLabel(c.reference))
}

// versusName is the reference's name, "" without --reference-exec.
func versusName(c *common) string {
	if c.reference == nil {
		return ""
	}
	return c.reference.Name
}

// execArg is a target as --exec takes it back: NAME=CMD, or its command.
func execArg(t *fuzz.Target) string {
	if t.Name != t.Command {
		return t.Name + "=" + t.Command
	}
	return t.Command
}

// targetLabel is a target as the first line names it: its command quoted, after its name.
func targetLabel(t *fuzz.Target) string {
	if t.Name != t.Command {
		return fmt.Sprintf("%s=%q", t.Name, t.Command)
	}
	return fmt.Sprintf("%q", t.Name)
}
