package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/campaign"
	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/internal/progress"
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
	sc            *campaign.Scope      // what the spaces get (scope)
}

// scope is what every space of the campaign gets: c's settings, candidates and resources,
// made once (after the targets started), its Progress kept up to date by runParts.
func (c *common) scope() *campaign.Scope {
	if c.sc == nil {
		c.sc = &campaign.Scope{Ops: c.ops, MaxLen: c.maxLen, FullOptions: c.fullOptions, Default: c.isDefault,
			Shard: c.shard, Shards: c.shards, Workers: c.workers, Progress: c.progress, Sink: c.sink, Stderr: c.stderr,
			Builtins: c.cands, Targets: c.targets, Reference: c.reference}
	}
	return c.sc
}

// parts are the modes to run as the engine runs and plans them.
func parts(c *common, run []*mode) []campaign.Part {
	out := make([]campaign.Part, len(run))
	for i, m := range run {
		out[i] = m.part(c)
	}
	return out
}

// shardText is the run's shard as its checkpoint and --junit name it: K/N (0/1 unsharded).
func (c *common) shardText() string { return fmt.Sprintf("%d/%d", c.shard, max(c.shards, 1)) }

// campaignCandidates resolves --impl (a variable so that tests can add planted candidates).
var campaignCandidates = fuzz.Candidates

// minTimeout is the least --timeout: a target's hello and answers cross two pipes and a
// process switch, which a shorter wait would take for a hang.
const minTimeout = time.Millisecond

// maxExamples bounds --examples: the report is read by a person (--findings keeps them all).
const maxExamples = 100

// maxWorkers bounds --workers: each worker holds its buffers (and, with --exec, a target
// process); more than a few per core only waits.
const maxWorkers = 256

// runCampaign runs the selected modes against the candidates and prints the findings and a
// summary. With no mode flag it runs the default campaign (every mode marked inDefault).
// It goes parse and validate (campaignArgs.parse) → open the outputs, the checkpoint and the
// targets (campaignArgs.start) → run the modes (runParts) → triage (campaign.Classify) → print
// (campaignArgs.write, sayEnd).
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
	done, err := a.start(ctx, c, triage, stderr)
	defer done()
	if err != nil {
		return exitUsage, err
	}
	ps := parts(c, run)
	if err := announce(ctx, c, run, ps, stderr); err != nil {
		return exitUsage, err
	}
	start := time.Now()
	rep, runErr := runParts(ctx, c, ps)
	outputFailed := c.ck.Finish(rep.Interrupted, stderr)
	if runErr != nil && rep.Differences == 0 && triage.Total() == 0 && campaign.Compared(rep) == 0 && c.ck == nil {
		// Nothing was checked, nothing found (a target that answers nothing): the error alone.
		return exitUsage, runErr
	}
	classes := campaign.Classify(ctx, hardStop(ctx), triage, c.cands, c.targets, c.reference, stderr)
	out := &report.Outcome{
		Modes: names(run), Config: campaign.ConfigLine(a.fs, c.cands, a.execs), Report: rep, Classes: classes, Elapsed: time.Since(start) + c.ck.Earlier(),
		Targets: campaign.TargetRecords(campaign.AllTargets(c.reference, c.targets)), Versus: campaign.ReferenceName(c.reference),
		Shard: c.shard, Shards: max(c.shards, 1), NotChecked: campaign.NotChecked(c.targets),
	}
	checks := out.Checks()
	if a.write(out, checks, c, triage, stdout, stderr) {
		outputFailed = true
	}
	campaign.SayEnd(stderr, campaign.AllTargets(c.reference, c.targets), ps, rep, runErr)
	code := exitStatus[campaign.Judge(rep, runErr, c.shard, c.shards, stderr)]
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
	a.maxLen = decimalFlag(fs, "max-len", 0, "maximum input length `N` of the exhaustive spaces for every operation (default 4 for decode and utf8_decode, 3 for escape)")
	a.fullOptions = fs.Bool("full-options", false, "exhaustive: escape strings of 3 bytes and more under all 2,048 option sets too (default: 1,088 past 2 bytes, see docs/cli.md)")
	a.workers = decimalFlag(fs, "workers", runtime.GOMAXPROCS(0), "`N` worker goroutines")
	a.jsonOut = fs.Bool("json", false, "print the report as JSON on stdout")
	fs.Var(&a.execs, "exec", "an external target speaking target protocol v1, as a command line (split like a shell would, no shell runs), or `name=CMD` to name it in the report (a build: branch='sapi/cli/php ...'); repeatable")
	a.refExec = fs.String("reference-exec", "", "compare the --exec targets with this target (`[name=]CMD`, a build of master) instead of the oracle: every difference between them is a finding, and the oracle says which side answers as PHP 8.2 does")
	a.shardArg = fs.String("shard", "", "check only part K of N of the exhaustive and boundary spaces (K/N, 0 <= K < N), to share a campaign between machines; auto/N takes K from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job), DIFFFUZZ_SHARD_INDEX, CI_NODE_INDEX (GitLab, from 1) or BUILDKITE_PARALLEL_JOB; random inputs are not split: shard 0 checks them all")
	a.timeout = fs.Duration("timeout", protocol.DefaultTimeout, "longest wait for one answer of an --exec target (at least 1ms); after its first 1,000 answers the wait is 50× its p99 answer latency, at least 100ms and at most this")
	a.examples = decimalFlag(fs, "examples", 3, "`N` further witnesses printed with each defect class")
	a.findingsFile = fs.String("findings", "", "write every raw finding to `FILE` as JSON Lines, each with the id of its defect class")
	a.checkpointFile = fs.String("checkpoint", "", "write the campaign's position to `FILE` (and its findings to FILE.findings) every 30s and when it ends or is interrupted; the same command with the same FILE continues where it stopped, and its report covers the whole run")
	a.junitFile = fs.String("junit", "", "write the checks (space × operation × candidate) to `FILE` as JUnit XML, a failure per failed check with its defect classes' witnesses and replay lines")
	a.phptDir = fs.String("phpt", "", "write a .phpt test (php-src's run-tests format) of each escape and utf8_decode defect class to `DIR`: its witness asked of json_encode() or utf8_decode(), expecting PHP 8.2's answer")
	a.outDir = fs.String("out", "", "save the witness of each defect class (and of each defect no class stands for) as DIR/<Target>/<id> (go test fuzz v1) and DIR/<id>.txt")
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
	c := &common{maxLen: *a.maxLen, fullOptions: *a.fullOptions, workers: *a.workers, progress: progress.New(stderr, "cases"), stderr: stderr}
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
		if c.shard, c.shards, err = campaign.ParseShard(*a.shardArg, os.Getenv); err != nil {
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

// checkOutputs makes the --out and --phpt directories and checks the output files
// (campaign.CheckOutputs: distinct, and none a name the checkpoint's log takes).
func (a *campaignArgs) checkOutputs() error {
	for _, d := range [][2]string{{"--out", *a.outDir}, {"--phpt", *a.phptDir}} { // (in this order)
		if d[1] != "" {
			if err := os.MkdirAll(d[1], 0o755); err != nil {
				return usagef("%s: %v", d[0], err)
			}
		}
	}
	return campaign.CheckOutputs(map[string]string{"--findings": *a.findingsFile, "--junit": *a.junitFile}, *a.checkpointFile)
}

// openFiles opens --findings and --junit now, so that a path that cannot be written fails
// before the campaign; they are emptied only when written at its end.
func (a *campaignArgs) openFiles() error {
	var err error
	if *a.findingsFile != "" {
		if a.findingsOut, err = campaign.OpenOutput(*a.findingsFile); err != nil {
			return usagef("--findings: %v", err)
		}
	}
	if *a.junitFile != "" {
		if a.junitOut, err = campaign.OpenOutput(*a.junitFile); err != nil {
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

// start opens --checkpoint (reading an earlier run back into triage, and starting its
// periodic writes) and starts the targets, each sending its findings to the checkpoint, or
// to triage without one. done closes the targets, then the checkpoint (on an error too).
func (a *campaignArgs) start(ctx context.Context, c *common, triage *report.Triage, stderr io.Writer) (done func(), err error) {
	c.sink = triage
	if *a.checkpointFile != "" {
		c.ck, err = campaign.StartCheckpoint(ctx, *a.checkpointFile, campaign.ConfigLine(a.fs, c.cands, a.execs), c.shardText(), c.fullOptions, modeNames(), triage, stderr)
		if err != nil {
			return func() {}, err
		}
		c.sink = c.ck
	}
	var closeTargets func()
	c.reference, c.targets, closeTargets, err = campaign.StartTargets(ctx, a.execs, *a.refExec, *a.timeout, c.sink, stderr)
	return func() {
		closeTargets()
		c.ck.Close() // the campaign closes it itself (Finish) unless it stopped before
	}, err
}

// announce says on stderr what the campaign runs against which candidates and, unless it
// resumes a checkpoint, its plan: the spaces and what they will cost; the progress then shows
// the whole run.
func announce(ctx context.Context, c *common, run []*mode, ps []campaign.Part, stderr io.Writer) error {
	fmt.Fprintf(stderr, "difffuzz: %s campaign: candidates %s, %s\n",
		strings.Join(names(run), " + "), campaign.CandidatesText(c.cands, c.targets, c.reference, c.ops), report.Plural(uint64(c.workers), "worker"))
	switch {
	case c.ck != nil:
	case len(c.targets) > 0:
		total, err := campaign.PrintPlan(ctx, ps, c.targets, stderr)
		if err != nil {
			return err
		}
		if total > 0 && len(c.cands) == 0 {
			c.progress = progress.Targets(c.progress, total)
		}
	default:
		if plan := campaign.PrintBuiltinPlan(ctx, ps, stderr); len(plan) > 0 {
			c.progress = progress.Builtins(c.progress, campaign.Spans(plan))
		}
	}
	return nil
}

// runParts runs the parts against the candidates (campaign.Run).
func runParts(ctx context.Context, c *common, ps []campaign.Part) (*fuzz.Report, error) {
	c.scope().Progress = c.progress // (wrapped by the whole run's progress)
	return campaign.Run(ctx, campaign.Campaign{Checkpoint: c.ck, Parts: ps, Progress: c.progress,
		Candidates: campaign.Candidates(c.cands, c.targets)})
}

// write prints the report and writes --findings, --junit, --out and --phpt; it reports
// whether one of them could not be written (said on stderr).
func (a *campaignArgs) write(out *report.Outcome, checks []report.Check, c *common, triage *report.Triage, stdout, stderr io.Writer) bool {
	failed := false
	if err := out.Write(stdout, *a.jsonOut); err != nil {
		fmt.Fprintf(stderr, "difffuzz: writing the report: %v\n", err)
		failed = true
	}
	if a.findingsOut != nil && !a.writeFindings(triage, stderr) {
		failed = true
	}
	if a.junitOut != nil {
		if err := report.WriteJUnitFile(a.junitOut, checks, [][2]string{{"command", commandLine(a.args)}, {"config", out.Config},
			{"shard", c.shardText()}}); err != nil {
			fmt.Fprintf(stderr, "difffuzz: --junit: %v\n", err)
			failed = true
		} else {
			fmt.Fprintf(stderr, "difffuzz: wrote %s to %s (JUnit XML)\n", report.Plural(uint64(len(checks)), "check"), *a.junitFile)
		}
	}
	if *a.outDir != "" {
		report.SaveWitnesses(*a.outDir, out.Classes, stderr)
	}
	if *a.phptDir != "" && !writePHPT(*a.phptDir, out.Classes, stderr) {
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

// exitStatus is the exit status of a campaign's verdict.
var exitStatus = [...]int{campaign.Passed: exitOK, campaign.Failed: exitFindings, campaign.Unfinished: exitUsage}

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
