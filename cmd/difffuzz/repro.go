package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/protocol"
	"github.com/difffuzz/difffuzz/report"
)

// reproAll (the fast variants) and reproLookup are the built-ins repro replays against
// (tests add broken ones).
var (
	reproAll, _ = fuzz.Candidates("")
	reproLookup = fuzz.LookupImpl
)

// reproFlags defines repro's flags.
func reproFlags(fs *flag.FlagSet) (implList, execCmd *string, timeout *time.Duration) {
	implList = fs.String("impl", "", "implementations to replay against, comma-separated: "+strings.Join(fuzz.ImplNames(), ", ")+
		"; default: the one a text record names if it is built in")
	execCmd = fs.String("exec", "", "replay through this external target speaking target protocol v1, as a command line (as for the campaign's --exec)")
	timeout = fs.Duration("timeout", protocol.DefaultTimeout, "with --exec: longest wait for one answer, at least 1ms (a hang is a finding)")
	return implList, execCmd, timeout
}

// runRepro replays saved findings: `go test fuzz v1` files (for FuzzEscape, FuzzNextChar or
// FuzzUTF8Decode, by their directory), the text records --out and the regression store keep,
// or directories of them. Each is checked against the implementation its record names when
// that is built in, against the chosen candidates with --impl, or through an external target
// with --exec (one request per saved finding and operation). A record of an implementation
// that is not built in (an --exec target's) is not replayed without --impl or --exec
// (fuzz.Replayer). Exit status: 1 if any still differs; else 2 if one could not be replayed
// (or a file cannot be read or parsed); 0 if all pass now.
func runRepro(args []string, stdout, stderr io.Writer) (int, error) {
	a, err := parseRepro(args, stderr)
	if err != nil {
		return exitUsage, err
	}
	ctx := context.Background()
	r := &fuzz.Replayer{Impls: a.impls, All: reproAll, Lookup: reproLookup, Timeout: a.timeout}
	defer r.Close()
	if a.exec != "" {
		if r.Target, err = fuzz.StartTarget(ctx, a.exec, fuzz.TargetConfig{Timeout: a.timeout}); err != nil {
			return exitUsage, usagef("--exec %q: %v", a.exec, err)
		}
		defer r.Target.Close()
	}
	failing, skipped := 0, 0
	for _, s := range a.saved {
		rp := r.Replay(ctx, s)
		if rp.Started != "" {
			fmt.Fprintf(stderr, "difffuzz: repro: no --exec given: replaying %s's records through the command they record: %s\n", s.Impl, rp.Started)
		}
		switch {
		case rp.Why != "":
			skipped++
		case len(rp.Found) > 0:
			failing++
		}
		printReplay(stdout, s, rp)
	}
	return reproStatus(failing, skipped, len(a.saved), stderr), nil
}

// reproArgs is repro's command line: the saved findings read and the flags.
type reproArgs struct {
	saved   []fuzz.Saved
	impls   []fuzz.Impl // --impl (nil: none given)
	exec    string
	timeout time.Duration
}

// parseRepro parses and checks repro's command line and reads the saved findings it names.
func parseRepro(args []string, stderr io.Writer) (*reproArgs, error) {
	fs := newFlagSet("repro", stderr)
	implList, execCmd, timeout := reproFlags(fs)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return nil, err
	}
	if len(rest) == 0 {
		return nil, usagef("repro: give the saved findings to replay (files or directories)")
	}
	if *implList != "" && *execCmd != "" {
		return nil, usagef("repro: give --impl or --exec, not both")
	}
	if *timeout < minTimeout {
		return nil, usagef("--timeout must be at least %v, got %v", minTimeout, *timeout)
	}
	a := &reproArgs{exec: *execCmd, timeout: *timeout}
	if *implList != "" {
		if a.impls, err = fuzz.Candidates(*implList); err != nil {
			return nil, usagef("--impl: %v", err)
		}
	}
	for _, p := range rest {
		s, err := fuzz.ReadSaved(p)
		if err != nil {
			return nil, usagef("repro: %v", err)
		}
		if len(s) == 0 {
			return nil, usagef("repro: %s holds no saved findings", p)
		}
		a.saved = append(a.saved, s...)
	}
	return a, nil
}

// printReplay prints the line of a saved finding replayed (ok, FAIL with the findings, or skip
// and why).
func printReplay(w io.Writer, s fuzz.Saved, rp fuzz.Replay) {
	ops := make([]string, len(s.Ops))
	for i, op := range s.Ops {
		ops[i] = string(op)
	}
	what := strings.Join(ops, "+") + ", " + report.Plural(uint64(len(s.Input)), "byte")
	if len(s.Ops) == 1 && s.Ops[0] == fuzz.OpEscape {
		what += fmt.Sprintf(", flags %d", uint32(s.Flags))
	}
	switch {
	case rp.Why != "":
		fmt.Fprintf(w, "skip  %s: %s: %s\n", rp.Path, what, rp.Why)
	case len(rp.Found) == 0:
		fmt.Fprintf(w, "ok    %s: %s: %s agree with the oracle%s\n", rp.Path, what, rp.Who, rp.Note)
	default:
		fmt.Fprintf(w, "FAIL  %s: %s: %s%s\n", rp.Path, what, report.Plural(uint64(len(rp.Found)), "difference"), rp.Note)
		for _, f := range rp.Found {
			fmt.Fprintln(w, f.String())
		}
	}
}

// reproStatus says on stderr how the n saved findings replayed, and is repro's exit status.
func reproStatus(failing, skipped, n int, stderr io.Writer) int {
	switch {
	case failing > 0:
		fmt.Fprintf(stderr, "difffuzz: repro: %d of %d saved findings still differ%s\n", failing, n, notReplayed(skipped))
		return exitFindings
	case skipped == 1 && n == 1:
		fmt.Fprintln(stderr, "difffuzz: repro: the saved finding could not be replayed (skip line above)")
		return exitUsage
	case skipped == n:
		fmt.Fprintf(stderr, "difffuzz: repro: none of the %d saved findings could be replayed (skip lines above)\n", skipped)
		return exitUsage
	case skipped > 0:
		fmt.Fprintf(stderr, "difffuzz: repro: %d of %d saved findings could not be replayed (skip lines above), the others pass now\n", skipped, n)
		return exitUsage
	}
	if n == 1 {
		fmt.Fprintln(stderr, "difffuzz: repro: the saved finding passes now")
	} else {
		fmt.Fprintf(stderr, "difffuzz: repro: all %d saved findings pass now\n", n)
	}
	return exitOK
}

// notReplayed is the tail of repro's summary when some saved findings were skipped.
func notReplayed(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d more could not be replayed: skip lines above)", n)
}
