package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// A command is one of difffuzz's commands, after cmd/go's base.Command: its synopsis, what it
// does in a line, its flags and its run function. The table of them (commands) is what run
// dispatches on, what the usage text, each command's -h and `difffuzz help COMMAND` print, and
// what docs/cli.md's reference is generated from (make docs; TestCLIReference fails when the
// file differs from it).
type command struct {
	name    string   // what follows difffuzz; "" for the campaign, which takes flags only
	aliases []string // further names run accepts, not shown
	// usage is the synopsis, one form of the command a line, each after "difffuzz NAME "; a
	// "\n" is where a long form wraps (TestUsageNamesEveryFlag: the forms name every flag).
	usage []string
	short string // what the command does, one line
	// flags is the command's flag set as its run function defines it (not parsed).
	flags func(stderr io.Writer) *flag.FlagSet
	// run runs the command as called by name (an alias included) with args, the arguments
	// after it; it parses them with parseFlags (flag.ErrHelp: -h was given).
	run func(ctx context.Context, name string, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error)
}

// commands is the command table, in the order the usage text lists them. No run function
// reads it: run prints a command's help when its parseFlags returns flag.ErrHelp.
var commands = []*command{{
	usage: []string{"[--exhaustive [--full-options]] [--boundary [--boundary-families LIST] [--boundary-sample N]]\n" +
		"[--impl LIST] [--ops LIST] [--max-len N] [--workers N] [--seed S] [--checkpoint FILE]\n" +
		"[--shard K/N|auto/N] [--exec [NAME=]CMD]... [--reference-exec [NAME=]CMD] [--timeout D]\n" +
		"[--json] [--findings FILE] [--junit FILE] [--phpt DIR] [--examples N] [--out DIR]",
		"--random N|DURATION [--seed S] [--stats] [--impl LIST] [--ops LIST]"},
	short: "a campaign: compare the candidates (built-in implementations, --exec targets) with PHP 8.2's oracle on the exhaustive, boundary and random spaces; with no mode flag, the default campaign runs all three",
	flags: func(stderr io.Writer) *flag.FlagSet { return newCampaignArgs(nil, stderr).fs },
	run: func(ctx context.Context, _ string, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
		return runCampaign(ctx, args, stdout, stderr)
	},
},
	oneCommand("escape", nil, "[--impl NAME | --exec [NAME=]CMD [--timeout D]] [--flags F] (--hex HEX | --string S | -)",
		"print what json_encode returns for one input (quotes included, no newline), from a built-in implementation or an --exec target"),
	oneCommand("decode", nil, "[--impl NAME | --exec [NAME=]CMD [--timeout D]] (--hex HEX | --string S | -)",
		"print the php_next_utf8_char steps of one input as the target protocol writes them (code point/advance, ! for an error)"),
	oneCommand("utf8-decode", []string{"utf8_decode"}, "[--impl NAME | --exec [NAME=]CMD [--timeout D]] (--hex HEX | --string S | -)",
		"print the bytes utf8_decode returns for one input"),
	{
		name: "serve", usage: []string{"[--impl NAME]"},
		short: "speak target protocol v1 on stdin and stdout for one built-in implementation (an --exec target of difffuzz itself)",
		flags: flagsOf("serve", func(fs *flag.FlagSet) { serveFlags(fs) }),
		run: func(_ context.Context, _ string, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
			return exitOK, runServe(args, stdin, stdout, stderr)
		},
	}, {
		name: "repro", usage: []string{"[--impl LIST | --exec CMD [--timeout D]] FILE|DIR..."},
		short: "replay saved findings (go test fuzz v1 files, the text records of --out, directories of them) against built-in implementations or an --exec target",
		flags: flagsOf("repro", func(fs *flag.FlagSet) { reproFlags(fs) }),
		run: func(_ context.Context, _ string, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
			return runRepro(args, stdout, stderr)
		},
	}, {
		name: "mutate",
		usage: []string{"[--target PATH[:FUNC,...]]... [--asm] [--all] [--seeds] [--only IDS] [--killers LIST] [--matrix] [--list] [--json] [--threshold P]\n" +
			"[--equivalence=false] [--trace=false] [--workers N] [--dir DIR]"},
		short: "mutation testing: mutate the code that validates UTF-8 and run the killers' tests on every mutant",
		flags: func(stderr io.Writer) *flag.FlagSet { return newMutateArgs(stderr).fs },
		run: func(ctx context.Context, _ string, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
			return runMutate(ctx, args, stdout, stderr)
		},
	}, {
		name: "merge", usage: []string{"[--json] [--junit FILE] [--examples N] REPORT.json..."},
		short: "combine the --json reports of the shards of one sweep into the report of the whole",
		flags: flagsOf("merge", func(fs *flag.FlagSet) { mergeFlags(fs) }),
		run: func(_ context.Context, _ string, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
			return runMerge(args, stdout, stderr)
		},
	}, {
		name: "bench",
		usage: []string{"[--impl LIST] [--exec CMD]... [--names LIST] [--baseline NAME] [--ops LIST] [--corpus LIST] [--sizes LIST] [--options LIST]\n" +
			"[--passes N] [--pass-time D] [--anchors=false] [--timeout D] [--format text|markdown|json|csv] [--plot FILE]"},
		short: "the A/A-controlled performance report of the built-in implementations, the Go anchors and --exec targets",
		flags: func(stderr io.Writer) *flag.FlagSet { return newBenchArgs(stderr).fs },
		run: func(ctx context.Context, _ string, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
			return runBench(ctx, args, stdout, stderr)
		},
	}, {
		name: "phpt", usage: []string{"[--dir DIR]"},
		short: "write the boundary tests of a SIMD change to json_encode or utf8_decode as .phpt files (php-src's run-tests format)",
		flags: flagsOf("phpt", func(fs *flag.FlagSet) { phptFlags(fs) }),
		run: func(_ context.Context, _ string, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
			return exitOK, runPHPT(args, stdout, stderr)
		},
	}, {
		name: "list", usage: []string{""},
		short: "name the implementations, the CPU features that select among them, the corpora and the option names",
		flags: flagsOf("list", func(*flag.FlagSet) {}),
		run: func(_ context.Context, _ string, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
			return exitOK, runList(args, stdout, stderr)
		},
	}}

// oneCommand is the entry of escape, decode or utf8-decode.
func oneCommand(name string, alias []string, usage, short string) *command {
	return &command{name: name, aliases: alias, usage: []string{usage}, short: short,
		flags: func(stderr io.Writer) *flag.FlagSet { return newOneArgs(name, stderr).fs },
		run: func(ctx context.Context, name string, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
			return runOne(ctx, name, args, stdin, stdout, stderr)
		}}
}

// flagsOf is a command's flags constructor from the function that defines its flags.
func flagsOf(name string, define func(*flag.FlagSet)) func(io.Writer) *flag.FlagSet {
	return func(stderr io.Writer) *flag.FlagSet {
		fs := newFlagSet(name, stderr)
		define(fs)
		return fs
	}
}

// lookupCommand is the command called name (its name or an alias; "" is the campaign), or nil.
func lookupCommand(name string) *command {
	for _, c := range commands {
		if c.name == name || slices.Contains(c.aliases, name) {
			return c
		}
	}
	return nil
}

// commandNames are the names of the commands (the campaign's aside), as the usage text lists
// them.
func commandNames() []string {
	var out []string
	for _, c := range commands {
		if c.name != "" {
			out = append(out, c.name)
		}
	}
	return out
}

// synopsis is the command's synopsis lines, each form starting "difffuzz NAME", a wrapped
// form's further lines aligned under its first argument.
func (c *command) synopsis() []string {
	head := "difffuzz "
	if c.name != "" {
		head += c.name + " "
	}
	var out []string
	for _, form := range c.usage {
		for i, l := range strings.Split(form, "\n") {
			if i == 0 {
				out = append(out, strings.TrimRight(head+l, " "))
			} else {
				out = append(out, strings.Repeat(" ", len(head))+l)
			}
		}
	}
	return out
}

// usageText is what `difffuzz -h` and `difffuzz help` print first: every command's synopsis.
func usageText() string {
	var b strings.Builder
	b.WriteString("usage:\n")
	for _, c := range commands {
		for _, l := range c.synopsis() {
			b.WriteString("  " + l + "\n")
		}
	}
	b.WriteString("Run \"difffuzz COMMAND -h\" for a command's flags. Exit status: 0 nothing found, 1 findings, 2 error.\n")
	return b.String()
}

// printHelp prints the command's help to w: its synopsis, what it does and its flags (the
// campaign's synopsis is the usage text, every command's).
func (c *command) printHelp(w io.Writer) {
	fs := c.flags(io.Discard)
	if c.name == "" {
		fmt.Fprint(w, usageText())
	} else {
		prefix := "usage: "
		for _, l := range c.synopsis() {
			fmt.Fprintln(w, prefix+l)
			prefix = strings.Repeat(" ", len(prefix))
		}
		fmt.Fprintf(w, "\n%s.\n", c.short)
		if hasFlags(fs) {
			fmt.Fprintln(w)
		}
	}
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// hasFlags reports whether fs defines a flag.
func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// runHelp is `difffuzz help [COMMAND]`: the usage text, or a command's help, on stdout.
func runHelp(args []string, stdout io.Writer) error {
	switch {
	case len(args) == 0 || len(args) == 1 && slices.Contains([]string{"help", "-h", "-help", "--help"}, args[0]):
		fmt.Fprint(stdout, usageText())
		return nil
	case len(args) > 1:
		return usagef("help: give one command, got %q", args)
	}
	c := lookupCommand(args[0])
	if c == nil || args[0] == "" {
		return usagef("help: unknown command %q (commands: %s)", args[0], strings.Join(commandNames(), ", "))
	}
	c.printHelp(stdout)
	return nil
}

// parseFlags parses args, turning any error into a usage error; on -h it returns flag.ErrHelp,
// and run prints the command's help. Positional arguments are returned; flags may not follow
// them.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		see := "difffuzz " + fs.Name() + " -h"
		if fs.Name() == "difffuzz" {
			see = "difffuzz -h"
		}
		return nil, usagef("%v (see %s)", err, see)
	}
	return fs.Args(), nil
}
