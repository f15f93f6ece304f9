package campaign

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/report"
)

// StartTargets starts the --reference-exec target (reference, "" for none) and the --exec
// targets (each `[name=]CMD`), every one sending its raw findings to sink; each --exec target
// is compared with the reference when there is one. closeAll closes the targets started
// (saying on stderr why one did not end well), on an error too.
func StartTargets(ctx context.Context, execs []string, reference string, timeout time.Duration, sink fuzz.Sink, stderr io.Writer) (
	ref *fuzz.Target, targets []*fuzz.Target, closeAll func(), err error) {
	var started []*fuzz.Target
	closeAll = func() {
		for _, t := range started {
			if err := t.Close(); err != nil {
				fmt.Fprintf(stderr, "difffuzz: %s: %v\n", t.Label(), err)
			}
		}
	}
	start := func(flag, arg string) (*fuzz.Target, error) {
		name, cmd := SplitExecName(arg)
		for _, t := range started {
			if name != "" && t.Name == name {
				return nil, fmt.Errorf("%s %q: a target of that name was given already (name each one: --exec NAME=CMD)", flag, arg)
			}
			if name == "" && t.Name == cmd {
				return nil, fmt.Errorf("%s %q: that command was given already (to check it twice, name each: --exec NAME=CMD)", flag, arg)
			}
		}
		t, err := fuzz.StartTarget(ctx, cmd, fuzz.TargetConfig{Timeout: timeout, Sink: sink, Name: name, Flag: flag})
		if err != nil {
			return nil, fmt.Errorf("%s %q: %v", flag, cmd, err)
		}
		started = append(started, t)
		return t, nil
	}
	if reference != "" {
		if ref, err = start("--reference-exec", reference); err != nil {
			return nil, nil, closeAll, err
		}
	}
	for _, cmd := range execs {
		t, err := start("--exec", cmd)
		if err != nil {
			return ref, targets, closeAll, err
		}
		if ref != nil {
			t.SetReference(ref)
		}
		targets = append(targets, t)
	}
	return ref, targets, closeAll, nil
}

// SplitExecName splits an --exec argument NAME=CMD into its name and command: NAME is a word
// of letters, digits, '.', '_' and '-' that starts with a letter, right before the first '='
// and not part of the command's first word otherwise; "" and the whole argument without one.
func SplitExecName(arg string) (name, cmd string) {
	n, rest, ok := strings.Cut(arg, "=")
	if !ok || n == "" || strings.TrimSpace(rest) == "" || !isLetter(n[0]) ||
		strings.Trim(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "" {
		return "", arg
	}
	return n, strings.TrimSpace(rest)
}

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// AllTargets are the reference (nil: none) and the --exec targets.
func AllTargets(reference *fuzz.Target, targets []*fuzz.Target) []*fuzz.Target {
	if reference == nil {
		return targets
	}
	return append([]*fuzz.Target{reference}, targets...)
}

// TargetRecords is how each target was driven, for --json ([] for none).
func TargetRecords(ts []*fuzz.Target) []report.TargetRecord {
	out := []report.TargetRecord{}
	for _, t := range ts {
		out = append(out, report.TargetOf(t))
	}
	return out
}

// NotChecked names the option bits of PHP's string path that the run did not check: those a
// target did not announce (every built-in implementation has them all).
func NotChecked(ts []*fuzz.Target) []string {
	out := []string{}
	for _, t := range ts {
		if u := t.Unchecked() & jsonopt.StringPath; u != 0 {
			for _, name := range strings.Split(u.String(), "|") {
				if !slices.Contains(out, name) {
					out = append(out, name)
				}
			}
		}
	}
	return out
}

// CandidatesText names the candidates of a campaign (the built-ins, then the --exec targets
// with the operations of ops each is asked) for its first line, and what they are compared
// with: the oracle, or the reference.
func CandidatesText(builtins []fuzz.Impl, targets []*fuzz.Target, reference *fuzz.Target, ops []fuzz.Op) string {
	var names []string
	for _, im := range builtins {
		names = append(names, im.Name)
	}
	for _, t := range targets {
		// The operations it is asked: those it announced that ops selects.
		asked := slices.DeleteFunc(slices.Clone(t.Ops()), func(o fuzz.Op) bool { return !slices.Contains(ops, o) })
		names = append(names, fmt.Sprintf("%s (%s)", targetLabel(t), joinOps(asked)))
	}
	if reference == nil {
		return strings.Join(names, ", ") + " against the oracle"
	}
	return fmt.Sprintf("%s against the reference %s (every difference is a finding; the oracle says which side answers as PHP 8.2 does)",
		strings.Join(names, ", "), targetLabel(reference))
}

func joinOps(ops []fuzz.Op) string {
	s := make([]string, len(ops))
	for i, o := range ops {
		s[i] = string(o)
	}
	return strings.Join(s, ",")
}

// ReferenceName is the reference's name, "" without one (nil).
func ReferenceName(reference *fuzz.Target) string {
	if reference == nil {
		return ""
	}
	return reference.Name
}

// ExecArg is a target as --exec takes it back: NAME=CMD, or its command.
func ExecArg(t *fuzz.Target) string {
	if t.Name != t.Command {
		return t.Name + "=" + t.Command
	}
	return t.Command
}

// targetLabel is a target as the first line names it: its command quoted, after its name.
func targetLabel(t *fuzz.Target) string {
	if t.Name != t.Command {
		return fmt.Sprintf("%s=%q", t.Name, t.Command)
	}
	return fmt.Sprintf("%q", t.Name)
}
