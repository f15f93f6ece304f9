package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/difffuzz/difffuzz/fuzz"
)

// reproCandidates and reproLookup are the built-ins repro replays against (tests add broken
// ones).
var (
	reproCandidates = func() ([]fuzz.Impl, error) { return fuzz.Candidates("") }
	reproLookup     = fuzz.LookupImpl
)

// runRepro replays saved findings: `go test fuzz v1` files (for FuzzEscape, FuzzNextChar or
// FuzzUTF8Decode, by their directory), the text records --out and the regression store keep,
// or directories of them. Each is checked against the implementation its record names when
// that is built in, else (and with --impl) against the chosen candidates. Exit status: 1 if
// any still differs, 0 if all pass now, 2 if a file cannot be read or parsed.
func runRepro(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("repro", stderr)
	implList := fs.String("impl", "", "implementations to replay against, comma-separated: "+strings.Join(fuzz.ImplNames(), ", ")+
		"; default: the one a text record names if it is built in, else every fast variant")
	rest, err := parseFlags(fs, args, stderr, "difffuzz repro [--impl LIST] FILE|DIR...")
	if err != nil {
		return exitUsage, err
	}
	if len(rest) == 0 {
		return exitUsage, usagef("repro: give the saved findings to replay (files or directories)")
	}
	var chosen []fuzz.Impl
	if *implList != "" {
		if chosen, err = fuzz.Candidates(*implList); err != nil {
			return exitUsage, usagef("--impl: %v", err)
		}
	}
	var saved []fuzz.Saved
	for _, p := range rest {
		s, err := fuzz.ReadSaved(p)
		if err != nil {
			return exitUsage, usagef("repro: %v", err)
		}
		if len(s) == 0 {
			return exitUsage, usagef("repro: %s holds no saved findings", p)
		}
		saved = append(saved, s...)
	}
	all, err := reproCandidates()
	if err != nil {
		return exitUsage, err
	}
	failing := 0
	for _, s := range saved {
		cands, note := chosen, ""
		if cands == nil {
			cands = all
			if s.Impl != "" {
				if im, err := reproLookup(s.Impl); err == nil {
					cands = []fuzz.Impl{im}
				} else {
					note = fmt.Sprintf(" (recorded %q is not built in: the built-ins were replayed; a finding of an --exec target is replayed with its replay: line)", s.Impl)
				}
			}
		}
		names := make([]string, len(cands))
		for i, im := range cands {
			names[i] = im.Name
		}
		ops := make([]string, len(s.Ops))
		for i, op := range s.Ops {
			ops[i] = string(op)
		}
		what := fmt.Sprintf("%s, %d bytes", strings.Join(ops, "+"), len(s.Input))
		if len(s.Ops) == 1 && s.Ops[0] == fuzz.OpEscape {
			what += fmt.Sprintf(", flags %d", uint32(s.Flags))
		}
		found := s.Replay(cands, nil)
		if len(found) == 0 {
			fmt.Fprintf(stdout, "ok    %s: %s: %s agree with the oracle%s\n", s.Path, what, strings.Join(names, ", "), note)
			continue
		}
		failing++
		fmt.Fprintf(stdout, "FAIL  %s: %s: %d differences%s\n", s.Path, what, len(found), note)
		for _, f := range found {
			fmt.Fprintln(stdout, f.String())
		}
	}
	if failing > 0 {
		fmt.Fprintf(stderr, "difffuzz: repro: %d of %d saved findings still differ\n", failing, len(saved))
		return exitFindings, nil
	}
	fmt.Fprintf(stderr, "difffuzz: repro: all %d saved findings pass now\n", len(saved))
	return exitOK, nil
}
