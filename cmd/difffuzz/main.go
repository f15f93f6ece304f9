// Command difffuzz is a differential correctness fuzzer and test oracle for the string path of
// PHP's json_encode(): it compares fast implementations of the JSON string escaper and the
// UTF-8 decoder with a byte-at-a-time oracle of PHP 8.2's behaviour and reports every
// difference.
//
// Run "difffuzz -h" for the synopsis of every command and "difffuzz COMMAND -h" for a command's
// flags; docs/cli.md has the reference of every command and flag, generated from the command
// table (commands.go) by make docs.
//
// Exit status follows diff: 0 nothing found, 1 findings (or, for escape, a PHP error), 2 usage
// or internal error. See README.md for the recipes.
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

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/protocol"
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
	switch c := lookupCommand(cmd); {
	case cmd == "help":
		err = runHelp(args, stdout)
	case c != nil:
		if code, err = c.run(ctx, cmd, args, stdin, stdout, stderr); errors.Is(err, flag.ErrHelp) {
			c.printHelp(stderr)
			return exitOK
		}
	default:
		err = usagef("unknown command %q (commands: %s; or flags for a campaign)", cmd, strings.Join(commandNames(), ", "))
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

// oneLine is an error on one line (protocol.OneLine).
func oneLine(err error) string { return protocol.OneLine(err) }

// newFlagSet returns a flag set that reports errors through run (one "difffuzz:" line)
// instead of printing its own usage (run prints a command's help for -h).
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

// commandLine is a command line of difffuzz as a shell would take it back: each argument
// single-quoted unless it is made only of characters a shell leaves alone (fuzz.ShellQuote).
func commandLine(args []string) string {
	out := []string{"difffuzz"}
	for _, a := range args {
		out = append(out, fuzz.ShellQuote(a))
	}
	return strings.Join(out, " ")
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
