package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/bench"
	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/protocol"
)

const benchSynopsis = "difffuzz bench [--impl LIST] [--exec CMD]... [--names LIST] [--baseline NAME] [--ops LIST] [--corpus LIST] [--sizes LIST] [--options LIST] [--passes N] [--pass-time D] [--anchors=false] [--timeout D] [--format F] [--plot FILE]"

// runBench is `difffuzz bench`: the A/A-controlled performance report (DESIGN.md §8) of the
// built-in implementations, anchors and external targets. Exit status: 0, or 1 when a
// candidate gave a wrong answer on some cell (that cell was not timed for it), 2 on a usage
// error, a target that cannot be started, or an interrupt.
func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("bench", stderr)
	implList := fs.String("impl", "", "in-process candidates, comma-separated: oracle, fast, "+strings.Join(fastNames(), ", ")+
		"; all = the oracle and every fast variant (default: all, or none when --exec is given)")
	var execs stringList
	fs.Var(&execs, "exec", "an external target speaking target protocol v1 with its bench operation, as a command line (split like a shell would); repeatable")
	nameList := fs.String("names", "", "names of the --exec targets in the report, comma-separated, in --exec order (default exec1, exec2, …)")
	anchors := fs.Bool("anchors", true, "also time the Go anchors: copy(), append-quoted, encoding/json.Marshal and a json.Encoder (escape), utf8.DecodeRune and utf8.Valid (decode); with --exec targets alone only when given")
	baseline := fs.String("baseline", "", "the candidate the speedups are over (default: the oracle, or the first --exec)")
	opsList := fs.String("ops", "escape,decode", "operations: escape, decode (ns per code point), utf8_decode; comma-separated")
	corpora := fs.String("corpus", "", "corpora, comma-separated: "+strings.Join(bench.CorpusNames(), ", ")+" (default: all for escape and utf8_decode; cyrillic, cjk, emoji, ascii for decode)")
	sizes := fs.String("sizes", "", "sizes of the corpora, comma-separated, like 16B,4KiB,64KiB (default: 4KiB, and 16B and 64KiB for ascii)")
	options := fs.String("options", "", "escape's option sets, separated by spaces, each PHP names joined by | or a decimal, \"default\" for none (default: none, and UNESCAPED_UNICODE for cyrillic, cjk, emoji, ascii-eacute-periodic)")
	passes := fs.Int("passes", bench.DefaultPasses, fmt.Sprintf("timed passes of each candidate over each cell, alternating (at least %d)", bench.MinPasses))
	passTime := fs.Duration("pass-time", 100*time.Millisecond, "about how long one pass of one candidate over one cell takes")
	format := fs.String("format", "text", "report format: "+strings.Join(bench.Formats, ", "))
	plotFile := fs.String("plot", "", "draw the speedups per cell to `FILE` (.svg or .png)")
	timeout := fs.Duration("timeout", 10*time.Second, "longest wait for an --exec target's hello and plain answers, at least 1ms; a bench answer may take 20 pass times more")
	rest, err := parseFlags(fs, args, stderr, benchSynopsis)
	if err != nil {
		return exitUsage, err
	}
	if len(rest) > 0 {
		return exitUsage, usagef("bench takes no arguments, got %q (usage: %s)", rest[0], benchSynopsis)
	}
	if !slices.Contains(bench.Formats, *format) {
		return exitUsage, usagef("bench: --format %q: want one of %s", *format, strings.Join(bench.Formats, ", "))
	}
	if *passes < bench.MinPasses || *passes > 1000 {
		return exitUsage, usagef("bench: --passes %d: from %d (a median and its range) to 1000", *passes, bench.MinPasses)
	}
	if *passTime < time.Millisecond || *passTime > time.Minute {
		return exitUsage, usagef("bench: --pass-time %v: want 1ms to 1m", *passTime)
	}
	if *timeout < minTimeout {
		return exitUsage, usagef("bench: --timeout %v: want at least %v", *timeout, minTimeout)
	}
	if *plotFile != "" {
		if ext := strings.ToLower(*plotFile); !strings.HasSuffix(ext, ".svg") && !strings.HasSuffix(ext, ".png") {
			return exitUsage, usagef("bench: --plot %s: the plot is written as .svg or .png", *plotFile)
		}
		// Where it goes is checked now, not after minutes of timing.
		if st, err := os.Stat(filepath.Dir(*plotFile)); err != nil || !st.IsDir() {
			return exitUsage, usagef("bench: --plot %s: no directory %s", *plotFile, filepath.Dir(*plotFile))
		}
		if st, err := os.Stat(*plotFile); err == nil && !st.Mode().IsRegular() {
			return exitUsage, usagef("bench: --plot %s: not a regular file", *plotFile)
		}
	}
	var sel bench.Selection
	fops, err := fuzz.ParseOps(*opsList)
	if err != nil {
		return exitUsage, usagef("bench: --ops: %v", err)
	}
	for _, op := range fops {
		sel.Ops = append(sel.Ops, protocol.Op(op))
	}
	if *corpora != "" {
		sel.Corpora = strings.Split(*corpora, ",")
		for i := range sel.Corpora {
			sel.Corpora[i] = strings.TrimSpace(sel.Corpora[i])
			if slices.Contains(sel.Corpora[:i], sel.Corpora[i]) {
				return exitUsage, usagef("bench: --corpus: %s is given twice", sel.Corpora[i])
			}
		}
	}
	if *sizes != "" {
		if sel.Sizes, err = bench.ParseSizes(*sizes); err != nil {
			return exitUsage, usagef("bench: --sizes: %v", err)
		}
		for i, n := range sel.Sizes {
			if slices.Contains(sel.Sizes[:i], n) {
				return exitUsage, usagef("bench: --sizes: %d bytes are given twice", n)
			}
		}
	}
	if *options != "" {
		for _, f := range strings.Fields(*options) {
			o := jsonopt.Options(0)
			if f != "default" {
				if o, err = jsonopt.Parse(f); err != nil {
					return exitUsage, usagef("bench: --options %q: %v", f, err)
				}
			}
			if slices.Contains(sel.Options, o) {
				return exitUsage, usagef("bench: --options: %q is given twice", f)
			}
			sel.Options = append(sel.Options, o)
		}
	}
	cells, err := bench.Cells(sel)
	if err != nil {
		return exitUsage, usagef("bench: %v", err)
	}

	var cands []bench.Candidate
	implsGiven := false
	fs.Visit(func(f *flag.Flag) { implsGiven = implsGiven || f.Name == "impl" })
	names := *implList
	if !implsGiven && len(execs) == 0 {
		names = "all"
	}
	if names != "" {
		impls, err := benchImpls(names)
		if err != nil {
			return exitUsage, usagef("bench: --impl: %v", err)
		}
		for _, im := range impls {
			cands = append(cands, bench.Local(im))
		}
	}
	var clients []*protocol.Client
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	execNames := make([]string, len(execs))
	for i := range execNames {
		execNames[i] = fmt.Sprintf("exec%d", i+1)
	}
	if *nameList != "" {
		given := strings.Split(*nameList, ",")
		if len(given) != len(execs) {
			return exitUsage, usagef("bench: --names has %d names for %s", len(given), plural(uint64(len(execs)), "--exec target"))
		}
		for i, n := range given {
			if n = strings.TrimSpace(n); n == "" || strings.ContainsAny(n, "\t\n\r|") {
				return exitUsage, usagef("bench: --names: name %d, %q, is empty or holds a tab, a line break or a | (a table's column mark)", i+1, n)
			}
			execNames[i] = strings.TrimSpace(n)
		}
	}
	// Every name once, before any target starts.
	// (The anchors' names are taken even without them: "copy" is the copies' reference.)
	taken := append([]string{}, execNames...)
	for _, c := range cands {
		taken = append(taken, c.Name)
	}
	for _, a := range bench.Anchors() {
		taken = append(taken, a.Name)
	}
	for i, n := range taken {
		if slices.Contains(taken[:i], n) || strings.HasSuffix(n, bench.ControlSuffix) {
			return exitUsage, usagef("bench: the name %q is taken (names in use: %s): give --names others", n, strings.Join(taken, ", "))
		}
	}
	var execCands []bench.Candidate
	var legend []string
	for i, cmd := range execs {
		argv, err := fuzz.SplitCommand(cmd)
		if err != nil {
			return exitUsage, usagef("bench: --exec %q: %v", cmd, err)
		}
		cl, err := protocol.StartConfig(ctx, argv, protocol.Config{Timeout: *timeout})
		if err != nil {
			return exitUsage, usagef("bench: --exec %q: %v", cmd, err)
		}
		clients = append(clients, cl)
		if !cl.Supports(protocol.OpBench) {
			return exitUsage, usagef("bench: --exec %q: the target does not announce the bench operation (protocol v1's optional \"bench OP FLAGS HEX N\"; the PHP adapter and difffuzz serve have it)", cmd)
		}
		execCands = append(execCands, bench.Target(execNames[i], cl, *timeout+20**passTime))
		legend = append(legend, execNames[i]+": "+cmd)
	}
	// The first --exec is the first candidate when there are targets, and its A/A control is
	// a second process of the same command: the noise between two processes of one build is
	// part of what a comparison of two builds must rise above.
	var control *bench.Candidate
	if len(execs) > 0 {
		argv, _ := fuzz.SplitCommand(execs[0]) // split once already
		cl, err := protocol.StartConfig(ctx, argv, protocol.Config{Timeout: *timeout})
		if err != nil {
			return exitUsage, usagef("bench: --exec %q (its A/A control, a second process): %v", execs[0], err)
		}
		clients = append(clients, cl)
		c := bench.Target(execNames[0]+bench.ControlSuffix, cl, *timeout+20**passTime)
		control = &c
	}
	cands = append(execCands, cands...)
	// The Go anchors are timed with in-process candidates; with targets alone only if asked.
	anchorsGiven := false
	fs.Visit(func(f *flag.Flag) { anchorsGiven = anchorsGiven || f.Name == "anchors" })
	if *anchors && (len(execs) == 0 || implsGiven || anchorsGiven) {
		cands = append(cands, bench.Anchors()...)
	}
	if len(cands) == 0 {
		return exitUsage, usagef("bench: no candidates (give --impl or --exec)")
	}
	base := *baseline
	if base == "" {
		base = cands[0].Name
	}
	var candNames []string
	for _, c := range cands {
		candNames = append(candNames, c.Name)
	}
	if !slices.Contains(candNames, base) {
		return exitUsage, usagef("bench: --baseline %q is not a candidate (the candidates: %s)", base, strings.Join(candNames, ", "))
	}

	cfg := bench.Config{Cells: cells, Candidates: cands, Baseline: base, Passes: *passes, PassTime: *passTime,
		Progress: newProgressOf(stderr, "passes"), Control: control}
	// Every runner is timed on every cell, the A/A control (the +1) and the anchors included;
	// the report's header counts only the candidates timed on some cell.
	fmt.Fprintf(stderr, "difffuzz: bench: %d cells × %d runners (candidates, anchors and the A/A control) × %d passes of about %v: about %v\n", len(cells), len(cands)+1, *passes, *passTime,
		max(time.Duration(len(cells)*(len(cands)+1)*(*passes+2))**passTime, time.Second).Round(time.Second))
	rep, err := bench.Run(ctx, cfg)
	if err != nil {
		return exitUsage, usagef("bench: %v", err)
	}
	rep.Command = commandLine(append([]string{"bench"}, args...))
	rep.Machine = machine()
	rep.Targets = legend
	code := exitOK
	if err := bench.Write(stdout, rep, *format); err != nil {
		fmt.Fprintf(stderr, "difffuzz: bench: writing the report: %v\n", err)
		code = exitUsage
	}
	if *plotFile != "" {
		if err := bench.Plot(rep, *plotFile); err != nil {
			fmt.Fprintf(stderr, "difffuzz: bench: --plot: %v\n", err)
			code = exitUsage
		} else {
			fmt.Fprintf(stderr, "difffuzz: bench: plot written to %s\n", *plotFile)
		}
	}
	// Wrong answers (exit 1: a finding) and failures (exit 2: the target crashed, hung or
	// answered a malformed line), one line for each candidate's first, one with its count.
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
	for _, name := range candNames {
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
	return code, nil
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

// machine describes this machine for the report: CPU model (Linux), cores, OS/arch, Go.
func machine() string {
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
