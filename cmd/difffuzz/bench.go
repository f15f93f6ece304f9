package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/bench"
	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/internal/progress"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/protocol"
)

// runBench is `difffuzz bench`: the A/A-controlled performance report (DESIGN.md §8) of the
// built-in implementations, anchors and external targets. Exit status: 0, or 1 when a
// candidate gave a wrong answer on some cell (that cell was not timed for it), 2 on a usage
// error, a target that cannot be started, or an interrupt. It parses the flags
// (benchArgs.parse, .cells), gathers the candidates (benchArgs.candidates), runs, writes, then
// says what was not timed and why (benchVerdict).
func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	a := newBenchArgs(stderr)
	if err := a.parse(args); err != nil {
		return exitUsage, err
	}
	cells, err := a.cells()
	if err != nil {
		return exitUsage, err
	}
	var clients []*protocol.Client
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	cands, control, legend, err := a.candidates(ctx, &clients)
	if err != nil {
		return exitUsage, err
	}
	base, err := a.baselineOf(cands)
	if err != nil {
		return exitUsage, err
	}
	cfg := bench.Config{Cells: cells, Candidates: cands, Baseline: base, Passes: *a.passes, PassTime: *a.passTime,
		Progress: progress.New(stderr, "passes"), Control: control}
	// Every runner is timed on every cell, the A/A control (the +1) and the anchors included;
	// the report's header counts only the candidates timed on some cell.
	fmt.Fprintf(stderr, "difffuzz: bench: %d cells × %d runners (candidates, anchors and the A/A control) × %d passes of about %v: about %v\n", len(cells), len(cands)+1, *a.passes, *a.passTime,
		max(time.Duration(len(cells)*(len(cands)+1)*(*a.passes+2))**a.passTime, time.Second).Round(time.Second))
	rep, err := bench.Run(ctx, cfg)
	if err != nil {
		return exitUsage, usagef("bench: %v", err)
	}
	rep.Command = commandLine(append([]string{"bench"}, args...))
	rep.Machine = bench.Machine()
	rep.Targets = legend
	code := exitOK
	if err := bench.Write(stdout, rep, *a.format); err != nil {
		fmt.Fprintf(stderr, "difffuzz: bench: writing the report: %v\n", err)
		code = exitUsage
	}
	if *a.plotFile != "" {
		if err := bench.Plot(rep, *a.plotFile); err != nil {
			fmt.Fprintf(stderr, "difffuzz: bench: --plot: %v\n", err)
			code = exitUsage
		} else {
			fmt.Fprintf(stderr, "difffuzz: bench: plot written to %s\n", *a.plotFile)
		}
	}
	return max(code, benchVerdict(rep, cands, stderr)), nil
}

// benchArgs are bench's flags.
type benchArgs struct {
	fs                                                                     *flag.FlagSet
	implList, nameList, baseline, opsList, corpora, sizes, options, format *string
	plotFile                                                               *string
	execs                                                                  stringList
	anchors                                                                *bool
	passes                                                                 *int
	passTime, timeout                                                      *time.Duration
}

// newBenchArgs defines bench's flags.
func newBenchArgs(stderr io.Writer) *benchArgs {
	fs := newFlagSet("bench", stderr)
	a := &benchArgs{fs: fs}
	a.implList = fs.String("impl", "", "in-process candidates, comma-separated: oracle, fast, "+strings.Join(fastNames(), ", ")+
		"; all = the oracle and every fast variant (default: all, or none when --exec is given)")
	fs.Var(&a.execs, "exec", "an external target speaking target protocol v1 with its bench operation, as a command line (split like a shell would); repeatable")
	a.nameList = fs.String("names", "", "names of the --exec targets in the report, comma-separated, in --exec order (default exec1, exec2, …)")
	a.anchors = fs.Bool("anchors", true, "also time the Go anchors: copy(), append-quoted, encoding/json.Marshal and a json.Encoder (escape), utf8.DecodeRune and utf8.Valid (decode); with --exec targets alone only when given")
	a.baseline = fs.String("baseline", "", "the candidate the speedups are over (default: the oracle, or the first --exec)")
	a.opsList = fs.String("ops", "escape,decode", "operations: escape, decode (ns per code point), utf8_decode; comma-separated")
	a.corpora = fs.String("corpus", "", "corpora, comma-separated: "+strings.Join(bench.CorpusNames(), ", ")+" (default: all for escape and utf8_decode; cyrillic, cjk, emoji, ascii for decode)")
	a.sizes = fs.String("sizes", "", "sizes of the corpora, comma-separated, like 16B,4KiB,64KiB (default: 4KiB, and 16B and 64KiB for ascii)")
	a.options = fs.String("options", "", "escape's option sets, separated by spaces, each PHP names joined by | or a decimal, \"default\" for none (default: none, and UNESCAPED_UNICODE for cyrillic, cjk, emoji, ascii-eacute-periodic)")
	a.passes = fs.Int("passes", bench.DefaultPasses, fmt.Sprintf("timed passes of each candidate over each cell, alternating (at least %d)", bench.MinPasses))
	a.passTime = fs.Duration("pass-time", 100*time.Millisecond, "about how long one pass of one candidate over one cell takes")
	a.format = fs.String("format", "text", "report format: "+strings.Join(bench.Formats, ", "))
	a.plotFile = fs.String("plot", "", "draw the speedups per cell to `FILE` (.svg or .png)")
	a.timeout = fs.Duration("timeout", 10*time.Second, "longest wait for an --exec target's hello and plain answers, at least 1ms; a bench answer may take 20 pass times more")
	return a
}

// parse parses bench's flags and checks those that need no other.
func (a *benchArgs) parse(args []string) error {
	rest, err := parseFlags(a.fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("bench takes no arguments, got %q (see difffuzz bench -h)", rest[0])
	}
	if err := bench.CheckSettings(*a.format, *a.passes, *a.passTime); err != nil {
		return usagef("bench: %v", err)
	}
	if *a.timeout < minTimeout {
		return usagef("bench: --timeout %v: want at least %v", *a.timeout, minTimeout)
	}
	if p := *a.plotFile; p != "" {
		if ext := strings.ToLower(p); !strings.HasSuffix(ext, ".svg") && !strings.HasSuffix(ext, ".png") {
			return usagef("bench: --plot %s: the plot is written as .svg or .png", p)
		}
		// Where it goes is checked now, not after minutes of timing.
		if st, err := os.Stat(filepath.Dir(p)); err != nil || !st.IsDir() {
			return usagef("bench: --plot %s: no directory %s", p, filepath.Dir(p))
		}
		if st, err := os.Stat(p); err == nil && !st.Mode().IsRegular() {
			return usagef("bench: --plot %s: not a regular file", p)
		}
	}
	return nil
}

// cells are the cells --ops, --corpus, --sizes and --options select.
func (a *benchArgs) cells() ([]bench.Cell, error) {
	var sel bench.Selection
	fops, err := fuzz.ParseOps(*a.opsList)
	if err != nil {
		return nil, usagef("bench: --ops: %v", err)
	}
	for _, op := range fops {
		sel.Ops = append(sel.Ops, protocol.Op(op))
	}
	if *a.corpora != "" {
		sel.Corpora = strings.Split(*a.corpora, ",")
		for i := range sel.Corpora {
			sel.Corpora[i] = strings.TrimSpace(sel.Corpora[i])
			if slices.Contains(sel.Corpora[:i], sel.Corpora[i]) {
				return nil, usagef("bench: --corpus: %s is given twice", sel.Corpora[i])
			}
		}
	}
	if *a.sizes != "" {
		if sel.Sizes, err = bench.ParseSizes(*a.sizes); err != nil {
			return nil, usagef("bench: --sizes: %v", err)
		}
		for i, n := range sel.Sizes {
			if slices.Contains(sel.Sizes[:i], n) {
				return nil, usagef("bench: --sizes: %d bytes are given twice", n)
			}
		}
	}
	for _, f := range strings.Fields(*a.options) {
		o := jsonopt.Options(0)
		if f != "default" {
			if o, err = jsonopt.Parse(f); err != nil {
				return nil, usagef("bench: --options %q: %v", f, err)
			}
		}
		if slices.Contains(sel.Options, o) {
			return nil, usagef("bench: --options: %q is given twice", f)
		}
		sel.Options = append(sel.Options, o)
	}
	cells, err := bench.Cells(sel)
	if err != nil {
		return nil, usagef("bench: %v", err)
	}
	return cells, nil
}

// execNames are the names of the --exec targets (--names, or exec1, exec2, ...).
func (a *benchArgs) execNames() ([]string, error) {
	names := make([]string, len(a.execs))
	for i := range names {
		names[i] = fmt.Sprintf("exec%d", i+1)
	}
	if *a.nameList == "" {
		return names, nil
	}
	given := strings.Split(*a.nameList, ",")
	if len(given) != len(a.execs) {
		return nil, usagef("bench: --names has %d names for %s", len(given), plural(uint64(len(a.execs)), "--exec target"))
	}
	for i, n := range given {
		if n = strings.TrimSpace(n); n == "" || strings.ContainsAny(n, "\t\n\r|") {
			return nil, usagef("bench: --names: name %d, %q, is empty or holds a tab, a line break or a | (a table's column mark)", i+1, n)
		}
		names[i] = strings.TrimSpace(n)
	}
	return names, nil
}

// candidates are the candidates in report order (the --exec targets first, then the
// in-process ones and the anchors), the first target's A/A control (nil without targets)
// and the targets' legend; the targets' clients are added to clients.
func (a *benchArgs) candidates(ctx context.Context, clients *[]*protocol.Client) ([]bench.Candidate, *bench.Candidate, []string, error) {
	var cands []bench.Candidate
	names := *a.implList
	if !given(a.fs, "impl") && len(a.execs) == 0 {
		names = "all"
	}
	if names != "" {
		impls, err := benchImpls(names)
		if err != nil {
			return nil, nil, nil, usagef("bench: --impl: %v", err)
		}
		for _, im := range impls {
			cands = append(cands, bench.Local(im))
		}
	}
	execNames, err := a.execNames()
	if err != nil {
		return nil, nil, nil, err
	}
	// Every name once, before any target starts.
	// (The anchors' names are taken even without them: "copy" is the copies' reference.)
	taken := append([]string{}, execNames...)
	for _, c := range cands {
		taken = append(taken, c.Name)
	}
	for _, an := range bench.Anchors() {
		taken = append(taken, an.Name)
	}
	for i, n := range taken {
		if slices.Contains(taken[:i], n) || strings.HasSuffix(n, bench.ControlSuffix) {
			return nil, nil, nil, usagef("bench: the name %q is taken (names in use: %s): give --names others", n, strings.Join(taken, ", "))
		}
	}
	execCands, control, legend, err := a.startTargets(ctx, execNames, clients)
	if err != nil {
		return nil, nil, nil, err
	}
	cands = append(execCands, cands...)
	// The Go anchors are timed with in-process candidates; with targets alone only if asked.
	if *a.anchors && (len(a.execs) == 0 || given(a.fs, "impl") || given(a.fs, "anchors")) {
		cands = append(cands, bench.Anchors()...)
	}
	if len(cands) == 0 {
		return nil, nil, nil, usagef("bench: no candidates (give --impl or --exec)")
	}
	return cands, control, legend, nil
}

// startTargets starts the --exec targets, and a second process of the first as its A/A
// control: the noise between two processes of one build is part of what a comparison of two
// builds must rise above.
func (a *benchArgs) startTargets(ctx context.Context, names []string, clients *[]*protocol.Client) ([]bench.Candidate, *bench.Candidate, []string, error) {
	var cands []bench.Candidate
	var legend []string
	wait := *a.timeout + 20**a.passTime
	for i, cmd := range a.execs {
		argv, err := fuzz.SplitCommand(cmd)
		if err != nil {
			return nil, nil, nil, usagef("bench: --exec %q: %v", cmd, err)
		}
		cl, err := protocol.StartConfig(ctx, argv, protocol.Config{Timeout: *a.timeout})
		if err != nil {
			return nil, nil, nil, usagef("bench: --exec %q: %v", cmd, err)
		}
		*clients = append(*clients, cl)
		if !cl.Supports(protocol.OpBench) {
			return nil, nil, nil, usagef("bench: --exec %q: the target does not announce the bench operation (protocol v1's optional \"bench OP FLAGS HEX N\"; the PHP adapter and difffuzz serve have it)", cmd)
		}
		cands = append(cands, bench.Target(names[i], cl, wait))
		legend = append(legend, names[i]+": "+cmd)
	}
	if len(a.execs) == 0 {
		return cands, nil, legend, nil
	}
	argv, _ := fuzz.SplitCommand(a.execs[0]) // split once already
	cl, err := protocol.StartConfig(ctx, argv, protocol.Config{Timeout: *a.timeout})
	if err != nil {
		return nil, nil, nil, usagef("bench: --exec %q (its A/A control, a second process): %v", a.execs[0], err)
	}
	*clients = append(*clients, cl)
	c := bench.Target(names[0]+bench.ControlSuffix, cl, wait)
	return cands, &c, legend, nil
}

// baselineOf is --baseline, checked to be a candidate (default: the first candidate).
func (a *benchArgs) baselineOf(cands []bench.Candidate) (string, error) {
	base := *a.baseline
	if base == "" {
		base = cands[0].Name
	}
	var names []string
	for _, c := range cands {
		names = append(names, c.Name)
	}
	if !slices.Contains(names, base) {
		return "", usagef("bench: --baseline %q is not a candidate (the candidates: %s)", base, strings.Join(names, ", "))
	}
	return base, nil
}

// benchVerdict says what was not timed and why, and returns the exit status it makes: wrong
// answers (exit 1: a finding) and failures (exit 2: the target crashed, hung or answered a
// malformed line), one line for each candidate's first, one with its count; a baseline timed
// on no cell and an interrupt (exit 2).
func benchVerdict(rep *bench.Report, cands []bench.Candidate, stderr io.Writer) int {
	code := exitOK
	wrong, failed := map[string]int{}, map[string]int{}
	for _, c := range rep.Cells {
		for _, m := range c.Measures {
			if !m.Refused() || m.Candidate == rep.Control { // the control is the first candidate again
				continue
			}
			count := failed
			if strings.HasPrefix(m.Skipped, "refused: ") {
				count = wrong
			}
			if wrong[m.Candidate]+failed[m.Candidate] == 0 {
				fmt.Fprintf(stderr, "difffuzz: bench: %s on %s: %s\n", m.Candidate, c.Name, m.Skipped)
			}
			count[m.Candidate]++
		}
	}
	for _, cand := range cands {
		name := cand.Name
		if n := wrong[name]; n > 0 {
			fmt.Fprintf(stderr, "difffuzz: bench: %s was not timed on %s: a wrong answer is never timed\n", name, plural(uint64(n), "cell"))
			code = max(code, exitFindings)
		}
		if n := failed[name]; n > 0 {
			fmt.Fprintf(stderr, "difffuzz: bench: %s failed on %s (it crashed, hung, answered a malformed line or a time that cannot be one)\n", name, plural(uint64(n), "cell"))
			code = exitUsage
		}
	}
	baseTimed := false
	for _, c := range rep.Cells {
		for _, m := range c.Measures {
			baseTimed = baseTimed || m.Candidate == rep.Baseline && m.Median > 0
		}
	}
	if !baseTimed && len(rep.Cells) > 0 {
		fmt.Fprintf(stderr, "difffuzz: bench: the baseline %s was timed on no cell (none is its operation, option set or size): no speedup could be given\n", rep.Baseline)
		code = exitUsage
	}
	if rep.Interrupted {
		fmt.Fprintf(stderr, "difffuzz: bench: interrupted: the report covers the %s timed before\n", plural(uint64(len(rep.Cells)), "cell"))
		code = exitUsage
	}
	return code
}

// benchImpls resolves --impl: oracle, fast (the dispatching entry point), the variants by
// name, all.
func benchImpls(list string) ([]bench.Impl, error) {
	all := bench.Impls()
	var out []bench.Impl
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		switch name {
		case "all":
			out = append(out, all...)
			continue
		case "fast":
			im, err := fuzz.LookupImpl("fast")
			if err != nil {
				return nil, err
			}
			out = append(out, bench.Impl{Name: "fast", Escape: im.Escape, NextChar: im.NextChar, UTF8Decode: im.UTF8Decode})
			continue
		}
		i := slices.IndexFunc(all, func(im bench.Impl) bool { return im.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("no implementation %q on this CPU (there are: oracle, fast, %s, all)", name, strings.Join(fastNames(), ", "))
		}
		out = append(out, all[i])
	}
	seen := map[string]bool{}
	for _, im := range out {
		if seen[im.Name] {
			return nil, fmt.Errorf("%s is given twice", im.Name)
		}
		seen[im.Name] = true
	}
	return out, nil
}

func fastNames() []string {
	var out []string
	for _, im := range bench.Impls()[1:] {
		out = append(out, im.Name)
	}
	return out
}
