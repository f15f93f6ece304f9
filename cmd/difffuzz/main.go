// Command difffuzz is a differential correctness fuzzer and test oracle for the string path of
// PHP's json_encode(): it compares fast implementations of the JSON string escaper and the
// UTF-8 decoder with a byte-at-a-time oracle of PHP 8.2's behaviour and reports every
// difference.
//
// Usage:
//
//	difffuzz [--exhaustive [--full-options]] [--boundary [--boundary-families LIST] [--boundary-sample N]]
//	         [--impl LIST] [--ops LIST] [--max-len N] [--workers N] [--seed S] [--checkpoint FILE]
//	         [--shard K/N|auto/N] [--exec [NAME=]CMD]... [--reference-exec [NAME=]CMD] [--timeout D]
//	         [--json] [--findings FILE] [--junit FILE] [--phpt DIR] [--examples N] [--out DIR]
//	difffuzz escape|decode|utf8-decode [--impl NAME | --exec [NAME=]CMD [--timeout D]] [--flags F] (--hex HEX | --string S | -)
//	difffuzz --random N|DURATION [--seed S] [--stats] [--impl LIST] [--ops LIST]
//	difffuzz serve [--impl NAME]
//	difffuzz repro [--impl LIST | --exec CMD [--timeout D]] FILE|DIR...
//	difffuzz mutate [--target PATH[:FUNC,...]]... [--asm] [--all] [--seeds] [--only IDS] [--killers LIST] [--matrix] [--list] [--json] [--threshold P]
//	                [--equivalence=false] [--trace=false] [--workers N] [--dir DIR]
//	difffuzz merge [--json] [--junit FILE] [--examples N] REPORT.json...
//	difffuzz bench [--impl LIST] [--exec CMD]... [--names LIST] [--baseline NAME] [--ops LIST] [--corpus LIST] [--sizes LIST] [--options LIST]
//	               [--passes N] [--pass-time D] [--anchors=false] [--timeout D] [--format text|markdown|json|csv] [--plot FILE]
//	difffuzz phpt [--dir DIR]
//	difffuzz list
//
// Exit status follows diff: 0 nothing found, 1 findings (or, for escape, a PHP error), 2 usage
// or internal error. See README.md and docs/cli.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := processSignals()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// processSignals is how the process takes signals: the first SIGINT or SIGTERM cancels the
// context (the run stops, minimizes what it found and prints the summary); a second one
// cancels the context of hardStop too (a campaign then skips minimizing), and a third ends
// the process as the signal does. A closed pipe on stdout or stderr (| head) is a write error
// that run reports, not a SIGPIPE that ends the run before --junit and --findings are written.
func processSignals() (context.Context, context.CancelFunc) {
	signal.Ignore(syscall.SIGPIPE)
	soft, cancelSoft := context.WithCancel(context.Background())
	hard, cancelHard := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ch
		cancelSoft()
		<-ch
		cancelHard()
		signal.Stop(ch)
	}()
	return context.WithValue(soft, hardStopKey{}, hard), func() {
		signal.Stop(ch)
		cancelSoft()
		cancelHard()
	}
}

type hardStopKey struct{}

// hardStop is the context a second interrupt cancels (see processSignals): what a campaign
// does after an interrupt (minimizing its findings) runs under it. ctx itself when it carries
// none (tests).
func hardStop(ctx context.Context) context.Context {
	if h, ok := ctx.Value(hardStopKey{}).(context.Context); ok {
		return h
	}
	return ctx
}

// Exit codes, as diff's.
const (
	exitOK       = 0
	exitFindings = 1
	exitUsage    = 2
)

// usageError is a problem with the command line or its input: one line, exit 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

const usageText = `usage:
  difffuzz [--exhaustive [--full-options]] [--boundary [--boundary-families LIST] [--boundary-sample N]]
           [--impl LIST] [--ops LIST] [--max-len N] [--workers N] [--seed S] [--checkpoint FILE]
           [--shard K/N|auto/N] [--exec [NAME=]CMD]... [--reference-exec [NAME=]CMD] [--timeout D]
           [--json] [--findings FILE] [--junit FILE] [--phpt DIR] [--examples N] [--out DIR]
  difffuzz escape|decode|utf8-decode [--impl NAME | --exec [NAME=]CMD [--timeout D]] [--flags F] (--hex HEX | --string S | -)
  difffuzz --random N|DURATION [--seed S] [--stats] [--impl LIST] [--ops LIST]
  difffuzz serve [--impl NAME]
  difffuzz repro [--impl LIST | --exec CMD [--timeout D]] FILE|DIR...
  difffuzz mutate [--target PATH[:FUNC,...]]... [--asm] [--all] [--seeds] [--only IDS] [--killers LIST] [--matrix] [--list] [--json] [--threshold P]
                  [--equivalence=false] [--trace=false] [--workers N] [--dir DIR]
  difffuzz merge [--json] [--junit FILE] [--examples N] REPORT.json...
  difffuzz bench [--impl LIST] [--exec CMD]... [--names LIST] [--baseline NAME] [--ops LIST] [--corpus LIST] [--sizes LIST] [--options LIST]
                 [--passes N] [--pass-time D] [--anchors=false] [--timeout D] [--format text|markdown|json|csv] [--plot FILE]
  difffuzz phpt [--dir DIR]
  difffuzz list
Run "difffuzz COMMAND -h" for a command's flags. Exit status: 0 nothing found, 1 findings, 2 error.
`

// run is the whole command: main only wires the process to it, so tests call it directly.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var err error
	out := &firstError{w: stdout} // a failed write to stdout (a full disk, a closed pipe) is an error
	stdout = out
	cmd := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	code := exitOK
	switch cmd {
	case "":
		code, err = runCampaign(ctx, args, stdout, stderr)
	case "escape", "decode", "utf8-decode", "utf8_decode":
		code, err = runOne(ctx, cmd, args, stdin, stdout, stderr)
	case "serve":
		err = runServe(args, stdin, stdout, stderr)
	case "list":
		err = runList(args, stdout, stderr)
	case "repro":
		code, err = runRepro(args, stdout, stderr)
	case "mutate":
		code, err = runMutate(ctx, args, stdout, stderr)
	case "merge":
		code, err = runMerge(args, stdout, stderr)
	case "bench":
		code, err = runBench(ctx, args, stdout, stderr)
	case "phpt":
		err = runPHPT(args, stdout, stderr)
	case "help":
		fmt.Fprint(stdout, usageText)
	default:
		err = usagef("unknown command %q (commands: escape, decode, utf8-decode, serve, repro, mutate, merge, bench, phpt, list; or flags for a campaign)", cmd)
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err == nil && out.err != nil && code != exitUsage { // (a campaign says so itself)
		err = fmt.Errorf("writing the standard output: %v", out.err)
	}
	if err != nil {
		fmt.Fprintf(stderr, "difffuzz: %s\n", oneLine(err))
		return exitUsage
	}
	return code
}

// firstError is a writer that keeps the first error of the writes to w (and drops the writes
// after it).
type firstError struct {
	w   io.Writer
	err error
}

func (f *firstError) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.w.Write(p)
	f.err = err
	return n, err
}

// oneLine is an error on one line: a target's stderr lines ("...:\n\tline\n\tline") joined
// by " | ", other lines by "; ".
func oneLine(err error) string {
	msg := strings.TrimSpace(err.Error())
	msg = strings.ReplaceAll(msg, ":\n\t", ": ")
	msg = strings.ReplaceAll(msg, "\n\t", " | ")
	return strings.ReplaceAll(msg, "\n", "; ")
}

// newFlagSet returns a flag set that reports errors through run (one "difffuzz:" line)
// instead of printing its own usage, and prints its defaults for -h.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// given reports whether the flag name was set on the command line (parsed into fs).
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// parseFlags parses args, printing the flag defaults on -h and turning any error into a
// usage error. Positional arguments are returned; flags may not follow them.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer, synopsis string) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			if fs.Name() == "difffuzz" {
				fmt.Fprint(stderr, usageText)
			} else {
				fmt.Fprintf(stderr, "usage: %s\n", synopsis)
			}
			fs.SetOutput(stderr)
			fs.PrintDefaults()
			return nil, flag.ErrHelp
		}
		see := "difffuzz " + fs.Name() + " -h"
		if fs.Name() == "difffuzz" {
			see = "difffuzz -h"
		}
		return nil, usagef("%v (see %s)", err, see)
	}
	return fs.Args(), nil
}
