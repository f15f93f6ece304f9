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
// that is not built in (an --exec target's) is not replayed without --impl or --exec. Exit
// status: 1 if any still differs; else 2 if one could not be replayed (or a file cannot be
// read or parsed); 0 if all pass now.
func runRepro(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("repro", stderr)
	implList, execCmd, timeout := reproFlags(fs)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return exitUsage, err
	}
	if len(rest) == 0 {
		return exitUsage, usagef("repro: give the saved findings to replay (files or directories)")
	}
	if *implList != "" && *execCmd != "" {
		return exitUsage, usagef("repro: give --impl or --exec, not both")
	}
	if *timeout < minTimeout {
		return exitUsage, usagef("--timeout must be at least %v, got %v", minTimeout, *timeout)
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
	ctx := context.Background()
	var target *fuzz.Target
	if *execCmd != "" {
		if target, err = fuzz.StartTarget(ctx, *execCmd, fuzz.TargetConfig{Timeout: *timeout}); err != nil {
			return exitUsage, usagef("--exec %q: %v", *execCmd, err)
		}
		defer target.Close()
	}
	recorded := &recordedTargets{m: map[string]*fuzz.Target{}, why: map[string]string{}, timeout: *timeout, stderr: stderr}
	defer recorded.close()
	failing, skipped := 0, 0
	for _, s := range saved {
		ops := make([]string, len(s.Ops))
		for i, op := range s.Ops {
			ops[i] = string(op)
		}
		what := strings.Join(ops, "+") + ", " + plural(uint64(len(s.Input)), "byte")
		if len(s.Ops) == 1 && s.Ops[0] == fuzz.OpEscape {
			what += fmt.Sprintf(", flags %d", uint32(s.Flags))
		}
		var found []*fuzz.Finding
		var who, why, note string
		t := target
		if t == nil && chosen == nil {
			if t, why = recorded.target(ctx, s); t != nil {
				s.Path += " (through its recorded --exec command)"
			}
		}
		switch {
		case why != "":
		case t != nil:
			who = t.Name
			found, why, note = replayThrough(ctx, t, s)
		default:
			cands := chosen
			if cands == nil {
				cands = reproAll // a go test fuzz v1 file: every fast variant
				if im, err := reproLookup(s.Impl); s.Impl != "" && err == nil {
					cands = []fuzz.Impl{im}
				}
			}
			names := make([]string, len(cands))
			for i, im := range cands {
				names[i] = im.Name
			}
			who = strings.Join(names, ", ")
			found = s.Replay(cands, nil)
		}
		switch {
		case why != "":
			skipped++
			fmt.Fprintf(stdout, "skip  %s: %s: %s\n", s.Path, what, why)
		case len(found) == 0:
			fmt.Fprintf(stdout, "ok    %s: %s: %s agree with the oracle%s\n", s.Path, what, who, note)
		default:
			failing++
			fmt.Fprintf(stdout, "FAIL  %s: %s: %s%s\n", s.Path, what, plural(uint64(len(found)), "difference"), note)
			for _, f := range found {
				fmt.Fprintln(stdout, f.String())
			}
		}
	}
	switch {
	case failing > 0:
		fmt.Fprintf(stderr, "difffuzz: repro: %d of %d saved findings still differ%s\n", failing, len(saved), notReplayed(skipped))
		return exitFindings, nil
	case skipped == 1 && len(saved) == 1:
		fmt.Fprintln(stderr, "difffuzz: repro: the saved finding could not be replayed (skip line above)")
		return exitUsage, nil
	case skipped == len(saved):
		fmt.Fprintf(stderr, "difffuzz: repro: none of the %d saved findings could be replayed (skip lines above)\n", skipped)
		return exitUsage, nil
	case skipped > 0:
		fmt.Fprintf(stderr, "difffuzz: repro: %d of %d saved findings could not be replayed (skip lines above), the others pass now\n", skipped, len(saved))
		return exitUsage, nil
	}
	if len(saved) == 1 {
		fmt.Fprintln(stderr, "difffuzz: repro: the saved finding passes now")
	} else {
		fmt.Fprintf(stderr, "difffuzz: repro: all %d saved findings pass now\n", len(saved))
	}
	return exitOK, nil
}

// replayThrough asks target t each operation of s (one request each): the findings; why, when
// no operation could be sent; note, the operations that could not.
func replayThrough(ctx context.Context, t *fuzz.Target, s fuzz.Saved) (found []*fuzz.Finding, why, note string) {
	var not []string
	for _, op := range s.Ops {
		cs := fuzz.Case{Op: op, Input: s.Input}
		if op == fuzz.OpEscape {
			cs.Flags = s.Flags
		}
		f, err := t.Replay(ctx, cs)
		if err != nil {
			not = append(not, fmt.Sprintf("%s not sent: %v", op, err))
			continue
		}
		found = append(found, f...)
	}
	switch {
	case len(not) == len(s.Ops):
		why = strings.Join(not, "; ")
	case len(not) > 0:
		note = " (" + strings.Join(not, "; ") + ")"
	}
	return found, why, note
}

// recordedTargets are the --exec targets repro starts from the commands saved records name,
// when no --exec is given: one per command, started when first needed.
type recordedTargets struct {
	m       map[string]*fuzz.Target // by command; nil when it did not start
	why     map[string]string       // why it did not
	timeout time.Duration
	stderr  io.Writer
}

// target is the target of s's record when it names one that is not built in (its command:,
// or an older record's impl:), started: nil and "" for a built-in or a fuzz file; nil and why
// when it does not start.
func (r *recordedTargets) target(ctx context.Context, s fuzz.Saved) (*fuzz.Target, string) {
	if s.Impl == "" {
		return nil, ""
	}
	if _, err := reproLookup(s.Impl); err == nil && s.Command == "" {
		return nil, ""
	}
	cmd, name := s.Command, ""
	if cmd == "" {
		cmd = s.Impl
	} else if s.Impl != cmd {
		name = s.Impl
	}
	if t, ok := r.m[cmd]; ok {
		return t, r.why[cmd]
	}
	t, err := fuzz.StartTarget(ctx, cmd, fuzz.TargetConfig{Timeout: r.timeout, Name: name})
	if err != nil {
		r.m[cmd], r.why[cmd] = nil, fmt.Sprintf("recorded %q is not built in, and the command it records does not start (%s): replay it with --exec CMD (or check the built-ins with --impl)", s.Impl, oneLine(err))
		return nil, r.why[cmd]
	}
	fmt.Fprintf(r.stderr, "difffuzz: repro: no --exec given: replaying %s's records through the command they record: %s\n", s.Impl, fuzz.ShellCommand(cmd))
	r.m[cmd] = t
	return t, ""
}

func (r *recordedTargets) close() {
	for _, t := range r.m {
		if t != nil {
			t.Close()
		}
	}
}

// notReplayed is the tail of repro's summary when some saved findings were skipped.
func notReplayed(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d more could not be replayed: skip lines above)", n)
}
