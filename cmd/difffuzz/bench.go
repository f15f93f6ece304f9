package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/bench"
	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/internal/progress"
	"github.com/difffuzz/difffuzz/protocol"
)

// runBench is `difffuzz bench`: the A/A-controlled performance report (DESIGN.md §8) of the
// built-in implementations, anchors and external targets. Exit status: 0, or 1 when a
// candidate gave a wrong answer on some cell (that cell was not timed for it), 2 on a usage
// error, a target that cannot be started, or an interrupt. It parses the flags, selects the
// cells, starts the candidates (bench.Start), runs, writes, then says what was not timed and
// why (bench.Verdict).
func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	a := newBenchArgs(stderr)
	if err := a.parse(args); err != nil {
		return exitUsage, err
	}
	cells, err := a.cells()
	if err != nil {
		return exitUsage, err
	}
	l, err := bench.Start(ctx, a.setup)
	if err != nil {
		return exitUsage, usagef("bench: %v", err)
	}
	defer l.Close()
	cfg := bench.Config{Cells: cells, Candidates: l.Candidates, Baseline: l.Baseline, Passes: a.passes, PassTime: a.setup.PassTime,
		Progress: progress.New(stderr, "passes"), Control: l.Control}
	// Every runner is timed on every cell, the A/A control (the +1) and the anchors included;
	// the report's header counts only the candidates timed on some cell.
	runners := len(l.Candidates) + 1
	fmt.Fprintf(stderr, "difffuzz: bench: %d cells × %d runners (candidates, anchors and the A/A control) × %d passes of about %v: about %v\n", len(cells), runners, a.passes, cfg.PassTime,
		max(time.Duration(len(cells)*runners*(a.passes+2))*cfg.PassTime, time.Second).Round(time.Second))
	rep, err := bench.Run(ctx, cfg)
	if err != nil {
		return exitUsage, usagef("bench: %v", err)
	}
	rep.Command = commandLine(append([]string{"bench"}, args...))
	rep.Machine = bench.Machine()
	rep.Targets = l.Legend
	code := exitOK
	if err := bench.Write(stdout, rep, a.format); err != nil {
		fmt.Fprintf(stderr, "difffuzz: bench: writing the report: %v\n", err)
		code = exitUsage
	}
	if a.plotFile != "" {
		if err := bench.Plot(rep, a.plotFile); err != nil {
			fmt.Fprintf(stderr, "difffuzz: bench: --plot: %v\n", err)
			code = exitUsage
		} else {
			fmt.Fprintf(stderr, "difffuzz: bench: plot written to %s\n", a.plotFile)
		}
	}
	wrong, failed := bench.Verdict(stderr, rep, l.Candidates)
	if wrong {
		code = max(code, exitFindings)
	}
	if failed {
		code = exitUsage
	}
	return code, nil
}

// benchArgs are bench's flags, and the setup they make.
type benchArgs struct {
	fs                                             *flag.FlagSet
	setup                                          bench.Setup
	execs                                          stringList
	ops, corpora, sizes, options, format, plotFile string
	passes                                         int
}

// newBenchArgs defines bench's flags.
func newBenchArgs(stderr io.Writer) *benchArgs {
	fs := newFlagSet("bench", stderr)
	a := &benchArgs{fs: fs}
	s := &a.setup
	fs.StringVar(&s.Impls, "impl", "", "in-process candidates, comma-separated: oracle, fast, "+strings.Join(bench.FastNames(), ", ")+
		"; all = the oracle and every fast variant (default: all, or none when --exec is given)")
	fs.Var(&a.execs, "exec", "an external target speaking target protocol v1 with its bench operation, as a command line (split like a shell would); repeatable")
	fs.StringVar(&s.Names, "names", "", "names of the --exec targets in the report, comma-separated, in --exec order (default exec1, exec2, …)")
	fs.BoolVar(&s.Anchors, "anchors", true, "also time the Go anchors: copy(), append-quoted, encoding/json.Marshal and a json.Encoder (escape), utf8.DecodeRune and utf8.Valid (decode); with --exec targets alone only when given")
	fs.StringVar(&s.Baseline, "baseline", "", "the candidate the speedups are over (default: the oracle, or the first --exec)")
	fs.StringVar(&a.ops, "ops", "escape,decode", "operations: escape, decode (ns per code point), utf8_decode; comma-separated")
	fs.StringVar(&a.corpora, "corpus", "", "corpora, comma-separated: "+strings.Join(bench.CorpusNames(), ", ")+" (default: all for escape and utf8_decode; cyrillic, cjk, emoji, ascii for decode)")
	fs.StringVar(&a.sizes, "sizes", "", "sizes of the corpora, comma-separated, like 16B,4KiB,64KiB (default: 4KiB, and 16B and 64KiB for ascii)")
	fs.StringVar(&a.options, "options", "", "escape's option sets, separated by spaces, each PHP names joined by | or a decimal, \"default\" for none (default: none, and UNESCAPED_UNICODE for cyrillic, cjk, emoji, ascii-eacute-periodic)")
	decimalVar(fs, &a.passes, "passes", bench.DefaultPasses, fmt.Sprintf("`N` timed passes of each candidate over each cell, alternating (at least %d)", bench.MinPasses))
	fs.DurationVar(&s.PassTime, "pass-time", 100*time.Millisecond, "about how long one pass of one candidate over one cell takes")
	fs.StringVar(&a.format, "format", "text", "report format: "+strings.Join(bench.Formats, ", "))
	fs.StringVar(&a.plotFile, "plot", "", "draw the speedups per cell to `FILE` (.svg or .png)")
	fs.DurationVar(&s.Timeout, "timeout", 10*time.Second, "longest wait for an --exec target's hello and plain answers, at least 1ms; a bench answer may take 20 pass times more")
	return a
}

// parse parses bench's flags, checks those that need no other, and completes the setup: the
// in-process candidates default to all without --exec; with --exec targets alone the anchors
// run only when given.
func (a *benchArgs) parse(args []string) error {
	rest, err := parseFlags(a.fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("bench takes no arguments, got %q (see difffuzz bench -h)", rest[0])
	}
	if err := bench.CheckSettings(a.format, a.passes, a.setup.PassTime); err != nil {
		return usagef("bench: %v", err)
	}
	if a.setup.Timeout < minTimeout {
		return usagef("bench: --timeout %v: want at least %v", a.setup.Timeout, minTimeout)
	}
	if a.plotFile != "" {
		if err := bench.CheckPlot(a.plotFile); err != nil {
			return usagef("bench: %v", err)
		}
	}
	s := &a.setup
	s.Execs, s.Split = a.execs, fuzz.SplitCommand
	if !given(a.fs, "impl") && len(s.Execs) == 0 {
		s.Impls = "all"
	}
	s.Anchors = s.Anchors && (len(s.Execs) == 0 || given(a.fs, "impl") || given(a.fs, "anchors"))
	return nil
}

// cells are the cells --ops, --corpus, --sizes and --options select.
func (a *benchArgs) cells() ([]bench.Cell, error) {
	fops, err := fuzz.ParseOps(a.ops)
	if err != nil {
		return nil, usagef("bench: --ops: %v", err)
	}
	ops := make([]protocol.Op, len(fops))
	for i, op := range fops {
		ops[i] = protocol.Op(op)
	}
	cells, err := bench.SelectCells(ops, a.corpora, a.sizes, a.options)
	if err != nil {
		return nil, usagef("bench: %v", err)
	}
	return cells, nil
}
