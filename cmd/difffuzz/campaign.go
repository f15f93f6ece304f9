package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/fuzz"
)

// runCampaign runs the selected input spaces against the candidates and prints the
// findings and a summary. With no mode flag it runs the default campaign (today: the
// exhaustive spaces).
func runCampaign(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("difffuzz", stderr)
	exhaustive := fs.Bool("exhaustive", false, "check every string of length 1–4 through the decoders and 1–3 through the escaper under all 1,024 option sets")
	implList := fs.String("impl", "all", "candidates to compare with the oracle, comma-separated: "+strings.Join(fuzz.ImplNames(), ", ")+"; all = every fast variant")
	opsList := fs.String("ops", "all", "operations: escape,decode,utf8_decode")
	maxLen := fs.Int("max-len", 0, "maximum input length of the exhaustive spaces for every operation (default 4 for decode and utf8_decode, 3 for escape)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "worker goroutines")
	jsonOut := fs.Bool("json", false, "print the report as JSON on stdout")
	synopsis := "difffuzz [--exhaustive] [--impl LIST] [--ops LIST] [--max-len N] [--workers N] [--json]"
	rest, err := parseFlags(fs, args, stderr, synopsis)
	if err != nil {
		return exitUsage, err
	}
	if len(rest) > 0 {
		return exitUsage, usagef("unexpected argument %q", rest[0])
	}
	_ = exhaustive // the exhaustive spaces are the default campaign
	if *workers < 1 {
		return exitUsage, usagef("--workers must be at least 1, got %d", *workers)
	}
	if *maxLen < 0 || *maxLen > 4 {
		return exitUsage, usagef("--max-len must be between 1 and 4, got %d", *maxLen)
	}
	cands, err := fuzz.Candidates(*implList)
	if err != nil {
		return exitUsage, usagef("--impl: %v", err)
	}
	ops, err := fuzz.ParseOps(*opsList)
	if err != nil {
		return exitUsage, usagef("--ops: %v", err)
	}
	names := make([]string, len(cands))
	for i, c := range cands {
		names[i] = c.Name
	}
	fmt.Fprintf(stderr, "difffuzz: exhaustive campaign: candidates %s against the oracle, %d workers\n", strings.Join(names, ", "), *workers)
	start := time.Now()
	rep, err := fuzz.Exhaustive(ctx, fuzz.ExhaustiveConfig{
		Ops: ops, MaxLen: *maxLen, Impls: cands, Workers: *workers, Progress: newProgress(stderr),
	})
	if err != nil {
		return exitUsage, err
	}
	elapsed := time.Since(start)
	if *jsonOut {
		fj := make([]map[string]any, len(rep.Findings))
		for i, f := range rep.Findings {
			fj[i] = f.JSON()
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{
			"mode": "exhaustive", "spaces": rep.Spaces, "differences": rep.Differences,
			"findings": fj, "interrupted": rep.Interrupted, "elapsed_ns": elapsed,
		}); err != nil {
			return exitUsage, err
		}
	} else {
		for _, f := range rep.Findings {
			fmt.Fprintln(stdout, f.String())
		}
		printSummary(stdout, rep, elapsed)
	}
	if rep.Interrupted {
		fmt.Fprintln(stderr, "difffuzz: interrupted: the summary covers what was checked before the interrupt")
	}
	if rep.Differences > 0 {
		return exitFindings, nil
	}
	if rep.Interrupted {
		return exitUsage, nil
	}
	return exitOK, nil
}

// group formats n with thousands separators.
func group(n uint64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func printSummary(w io.Writer, rep *fuzz.Report, elapsed time.Duration) {
	fmt.Fprintf(w, "%-12s %4s %15s %7s %17s %-28s %11s %9s %14s %14s\n",
		"space", "len", "strings", "options", "cases", "candidates", "differences", "time", "strings/s", "cases/s")
	var strs, cases, comparisons uint64
	for _, s := range rep.Spaces {
		state := ""
		if !s.Complete {
			state = " (interrupted)"
		}
		sps := 0.0
		if sec := s.Elapsed.Seconds(); sec > 0 {
			sps = float64(s.Strings) / sec
		}
		cands := strings.Join(s.Impls, ",")
		if s.Distinct < len(s.Impls) {
			cands += fmt.Sprintf(" (%d distinct)", s.Distinct)
		}
		fmt.Fprintf(w, "%-12s %4d %15s %7d %17s %-28s %11s %9s %14s %14s%s\n",
			s.Op, s.Len, group(s.Strings), s.OptionSets, group(s.Cases), cands,
			group(s.Differences), s.Elapsed.Round(100*time.Millisecond), group(uint64(sps)), group(uint64(s.CasesPerSec)), state)
		strs += s.Strings
		cases += s.Cases
		comparisons += s.Cases * uint64(len(s.Impls))
	}
	verdict := "no differences"
	if rep.Differences > 0 {
		verdict = fmt.Sprintf("%s differences", group(rep.Differences))
	}
	fmt.Fprintf(w, "difffuzz: %s: %s strings, %s cases, %s candidate results compared with the oracle in %s\n",
		verdict, group(strs), group(cases), group(comparisons), elapsed.Round(100*time.Millisecond))
}
