package main

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/campaign"
	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/protocol"
)

// maxInput bounds what escape/decode read from stdin (64 MiB).
const maxInput = 64 << 20

// parseHex decodes a --hex argument: pairs of hex digits, spaces allowed between bytes,
// an optional 0x prefix.
func parseHex(s string) ([]byte, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s), "0x"), "0X")
	s = strings.Join(strings.Fields(s), "")
	if i := strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune("0123456789abcdefABCDEF", r) }); i >= 0 {
		return nil, fmt.Errorf("--hex %s is not hex: %q at offset %d", clip(s), []rune(s[i:])[0], i)
	}
	if len(s)%2 != 0 {
		return nil, fmt.Errorf("--hex %s has an odd number of hex digits (%d)", clip(s), len(s))
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("--hex %s is not hex: %v", clip(s), err)
	}
	return b, nil
}

// runOne prints the exact result of one implementation on one input: escape writes the
// string json_encode returns (quotes included, no newline); a PHP false writes nothing on
// stdout, the error on stderr, and exits 1. decode writes the decoder steps in target
// protocol form; utf8-decode the raw bytes. With --exec the input is asked of an external
// target, and an answer that is not PHP 8.2's (the oracle's) is said on stderr and exits 1.
func runOne(ctx context.Context, cmd string, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if cmd == "utf8_decode" {
		cmd = "utf8-decode"
	}
	a := newOneArgs(cmd, stderr)
	rest, err := parseFlags(a.fs, args)
	if err != nil {
		return exitUsage, err
	}
	set := map[string]bool{}
	a.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	in, err := oneInput(set, rest, *a.hex, *a.str, stdin)
	if err != nil {
		return exitUsage, err
	}
	opts, err := jsonopt.Parse(a.flags)
	if err != nil {
		return exitUsage, usagef("--flags: %v", err)
	}
	cs := fuzz.Case{Op: fuzz.Op(strings.ReplaceAll(cmd, "-", "_")), Input: in, Flags: opts}
	switch {
	case set["exec"] && set["impl"]:
		return exitUsage, usagef("give --impl or --exec, not both")
	case set["exec"]:
		if *a.timeout < minTimeout {
			return exitUsage, usagef("--timeout must be at least %v, got %v", minTimeout, *a.timeout)
		}
		return oneExec(ctx, *a.exec, *a.timeout, cs, stdout, stderr)
	case set["timeout"]:
		return exitUsage, usagef("--timeout is for --exec")
	}
	im, err := fuzz.LookupImpl(*a.impl)
	if err != nil {
		return exitUsage, usageError{err.Error()}
	}
	findings, err := fuzz.WriteAnswer(stdout, im, cs)
	return oneVerdict(findings, err, stderr)
}

// oneArgs are the flags of escape, decode and utf8-decode.
type oneArgs struct {
	fs                   *flag.FlagSet
	impl, exec, hex, str *string
	timeout              *time.Duration
	flags                string // escape's --flags ("0" for the decoders)
}

// newOneArgs defines the flags of cmd (escape, decode or utf8-decode).
func newOneArgs(cmd string, stderr io.Writer) *oneArgs {
	fs := newFlagSet(cmd, stderr)
	a := &oneArgs{fs: fs, flags: "0"}
	a.impl = fs.String("impl", "fast", "implementation: "+strings.Join(fuzz.ImplNames(), ", "))
	a.exec = fs.String("exec", "", "ask this external target (target protocol v1; `[NAME=]CMD` as the campaign's --exec) instead of a built-in, and compare its answer with PHP 8.2's")
	a.timeout = fs.Duration("timeout", protocol.DefaultTimeout, "with --exec: longest wait for the target's hello and answer (at least 1ms)")
	if cmd == "escape" {
		fs.StringVar(&a.flags, "flags", "0", "json_encode options: PHP names joined by | or , (JSON_HEX_TAG|UNESCAPED_UNICODE) or an integer (320)")
	}
	a.hex = fs.String("hex", "", "the input as hex digits (e08041)")
	a.str = fs.String("string", "", "the input as a literal string")
	return a
}

// oneInput reads the one input of escape, decode and utf8-decode: --hex, --string or stdin (-).
func oneInput(set map[string]bool, rest []string, hexArg, strArg string, stdin io.Reader) ([]byte, error) {
	sources := 0
	for _, f := range []string{"hex", "string"} {
		if set[f] {
			sources++
		}
	}
	switch {
	case len(rest) == 1 && rest[0] == "-":
		sources++
	case len(rest) > 0:
		return nil, usagef("unexpected argument %q (give the input with --hex, --string or -)", rest[0])
	}
	if sources != 1 {
		return nil, usagef("give exactly one input: --hex HEX, --string S or - for stdin")
	}
	switch {
	case set["hex"]:
		in, err := parseHex(hexArg)
		if err != nil {
			return nil, usageError{err.Error()}
		}
		return in, nil
	case set["string"]:
		return []byte(strArg), nil
	}
	in, err := io.ReadAll(io.LimitReader(stdin, maxInput+1))
	if err != nil {
		return nil, usagef("reading stdin: %v", err)
	}
	if len(in) > maxInput {
		return nil, usagef("stdin is larger than %d bytes", maxInput)
	}
	return in, nil
}

// oneExec asks an external target cs and prints its answer as a built-in's is printed (see
// runOne, fuzz.Target.WriteAnswer).
func oneExec(ctx context.Context, arg string, timeout time.Duration, cs fuzz.Case, stdout, stderr io.Writer) (int, error) {
	name, command := campaign.SplitExecName(arg)
	t, err := fuzz.StartTarget(ctx, command, fuzz.TargetConfig{Timeout: timeout, Name: name, CalibrateAfter: -1})
	if err != nil {
		return exitUsage, usagef("--exec %q: %v", command, err)
	}
	defer t.Close()
	r, err := t.Ask(ctx, cs)
	if err != nil {
		return exitUsage, usagef("--exec %q: %v", command, err)
	}
	findings, err := t.WriteAnswer(stdout, cs, r)
	return oneVerdict(findings, err, stderr)
}

// oneVerdict says on stderr what makes a one-input answer a finding, and maps it to the exit
// status: 1 for a finding, 2 for an error.
func oneVerdict(findings []string, err error, stderr io.Writer) (int, error) {
	for _, f := range findings {
		fmt.Fprintf(stderr, "difffuzz: %s\n", f)
	}
	switch {
	case err != nil:
		return exitUsage, err
	case len(findings) > 0:
		return exitFindings, nil
	}
	return exitOK, nil
}

// clip quotes s for an error message, cut to its first 64 bytes.
func clip(s string) string {
	if len(s) > 64 {
		return fmt.Sprintf("%q… (%d bytes)", s[:64], len(s))
	}
	return fmt.Sprintf("%q", s)
}
