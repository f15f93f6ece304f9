package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/fuzz"
)

var updateDocs = flag.Bool("update", false, "rewrite the generated parts of docs/cli.md (make docs)")

// cliDoc is the CLI reference, whose generated parts the command table writes.
const cliDoc = "../../docs/cli.md"

// TestHelp: -h, COMMAND -h, help and help COMMAND print from the command table and exit 0 (-h
// on stderr, help on stdout); help of something else is a usage error.
func TestHelp(t *testing.T) {
	code, out, errs := runArgs(t, "", "-h")
	assert.Equal(t, 0, code)
	assert.Empty(t, out)
	assert.True(t, strings.HasPrefix(errs, usageText()), "difffuzz -h starts with the usage text:\n%s", errs)
	assert.Contains(t, errs, "\n  -exhaustive\n", "and lists the campaign's flags")
	assert.Contains(t, usageText(), "\n  difffuzz mutate [--target PATH[:FUNC,...]]...", "the usage text lists every command")

	for _, args := range [][]string{{"help"}, {"help", "help"}, {"help", "-h"}, {"help", "--help"}} {
		code, out, errs = runArgs(t, "", args...)
		assert.Equal(t, 0, code, args)
		assert.Equal(t, usageText(), out, args)
		assert.Empty(t, errs, args)
	}

	for _, c := range commands[1:] {
		for _, name := range append([]string{c.name}, c.aliases...) {
			code, out, dashH := runArgs(t, "", name, "-h")
			assert.Equal(t, 0, code, name)
			assert.Empty(t, out, name)
			want := "usage: " + strings.Join(c.synopsis(), "\n       ") + "\n\n" + c.short + ".\n"
			assert.True(t, strings.HasPrefix(dashH, want), "%s -h:\n%s\nwant it to start\n%s", name, dashH, want)
			c.flags(io.Discard).VisitAll(func(f *flag.Flag) {
				assert.Contains(t, dashH, "\n  -"+f.Name, "%s -h lists --%s", name, f.Name)
			})
			code, help, errs := runArgs(t, "", "help", name)
			assert.Equal(t, 0, code, name)
			assert.Empty(t, errs)
			assert.Equal(t, dashH, help, "help %s prints on stdout what %[1]s -h prints on stderr", name)
		}
	}
	for _, args := range [][]string{{"help", "nope"}, {"help", "serve", "list"}, {"help", ""}} {
		code, out, errs := runArgs(t, "", args...)
		assert.Equal(t, 2, code, "%q", args)
		assert.Empty(t, out)
		assert.Regexp(t, `^difffuzz: help: .*\n$`, errs, "%q", args)
	}
}

// TestUsageNamesEveryFlag: each command's synopsis names exactly the flags its flag set
// defines (so neither can gain or lose one alone).
func TestUsageNamesEveryFlag(t *testing.T) {
	named := regexp.MustCompile(`--([a-z0-9-]+)`)
	for _, c := range commands {
		var inUsage, defined []string
		for _, m := range named.FindAllStringSubmatch(strings.Join(c.usage, " "), -1) {
			if !slices.Contains(inUsage, m[1]) {
				inUsage = append(inUsage, m[1])
			}
		}
		c.flags(io.Discard).VisitAll(func(f *flag.Flag) { defined = append(defined, f.Name) })
		slices.Sort(inUsage)
		assert.Equal(t, defined, inUsage, "difffuzz %s: the flags its synopsis names", c.name)
	}
}

// TestCLIReference: the generated parts of docs/cli.md are what the command table generates
// (make docs rewrites them), and no other document carries a copy of a synopsis.
func TestCLIReference(t *testing.T) {
	b, err := os.ReadFile(cliDoc)
	require.NoError(t, err)
	doc := string(b)
	gen := map[string]string{"synopsis": "```\n" + strings.Join(allSynopses(), "\n") + "\n```\n", "reference": cliReference()}
	updated := doc
	for _, name := range []string{"synopsis", "reference"} {
		updated, err = spliceGenerated(updated, name, gen[name])
		require.NoError(t, err)
	}
	if *updateDocs {
		require.NoError(t, os.WriteFile(cliDoc, []byte(updated), 0o644))
	} else if updated != doc {
		t.Errorf("docs/cli.md differs from what the command table (cmd/difffuzz/commands.go) generates: run make docs")
	}
	others, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	others = slices.DeleteFunc(append(others, "../../README.md", "main.go"), func(f string) bool { return f == cliDoc })
	require.Contains(t, others, "../../docs/DESIGN.md")
	for _, file := range others {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		for _, l := range allSynopses() {
			if strings.Contains(l, "[") {
				assert.False(t, strings.Contains(string(b), l), "%s copies the synopsis %q: point to docs/cli.md instead", file, l)
			}
		}
	}
}

// The reference is the same on every machine: the lists of this CPU's variants and the
// default worker count are written as rules.
func TestCLIReferenceStable(t *testing.T) {
	ref := cliReference()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1))
	assert.Equal(t, ref, cliReference(), "with another GOMAXPROCS")
	assert.NotContains(t, ref, strings.Join(fuzz.ImplNames(), ", "), "this CPU's implementations")
}

// allSynopses is every command's synopsis lines, as the usage text lists them.
func allSynopses() []string {
	var out []string
	for _, c := range commands {
		out = append(out, c.synopsis()...)
	}
	return out
}

// spliceGenerated replaces what stands between doc's BEGIN and END GENERATED markers of name
// with text.
func spliceGenerated(doc, name, text string) (string, error) {
	begin := fmt.Sprintf("<!-- BEGIN GENERATED %s: make docs writes this from cmd/difffuzz's command table; do not edit -->\n", name)
	end := fmt.Sprintf("<!-- END GENERATED %s -->\n", name)
	before, rest, ok := strings.Cut(doc, begin)
	if !ok {
		return "", fmt.Errorf("docs/cli.md has no line %q", strings.TrimSpace(begin))
	}
	_, after, ok := strings.Cut(rest, end)
	if !ok {
		return "", fmt.Errorf("docs/cli.md has no line %q", strings.TrimSpace(end))
	}
	return before + begin + text + end + after, nil
}

// cliReference is docs/cli.md's reference: each command's synopsis, what it does, and each of
// its flags with its help and default, as `difffuzz COMMAND -h` gives them.
func cliReference() string {
	var b strings.Builder
	b.WriteString("## Reference: every command and flag\n\n" +
		"What `difffuzz COMMAND -h` prints, command by command (`difffuzz -h` for the campaign's flags).\n")
	for _, c := range commands {
		title := "`difffuzz " + c.name + "`"
		if c.name == "" {
			title = "`difffuzz` (a campaign)"
		}
		short := machineFree(c.short)
		fmt.Fprintf(&b, "\n### %s\n\n%s%s.\n\n```\n%s\n```\n", title, strings.ToUpper(short[:1]), short[1:], strings.Join(c.synopsis(), "\n"))
		fs := c.flags(io.Discard)
		if hasFlags(fs) {
			b.WriteString("\n")
		}
		fs.VisitAll(func(f *flag.Flag) {
			arg, usage := flag.UnquoteUsage(f)
			if arg != "" {
				arg = " " + arg
			}
			def := f.DefValue
			if d, ok := machineDefaults[c.name+" --"+f.Name]; ok {
				def = d
			} else if slices.Contains([]string{"", "0", "false", "0s", "[]"}, def) {
				def = ""
			} else {
				def = "`" + def + "`"
			}
			if def != "" {
				def = " Default: " + def + "."
			}
			fmt.Fprintf(&b, "- `--%s%s`: %s.%s\n", f.Name, arg, strings.TrimSuffix(mdEscape(machineFree(usage)), "."), def)
		})
	}
	return b.String()
}

// machineDefaults are the defaults that depend on the machine, as the reference writes them
// (by command name and flag).
var machineDefaults = map[string]string{" --workers": "the number of CPUs Go may use (GOMAXPROCS)"}

// machineFree writes the list of this machine's implementations (oracle, fast and the fast
// variants its CPU runs) as what it is.
func machineFree(s string) string {
	return strings.ReplaceAll(s, strings.Join(fuzz.ImplNames(), ", "),
		"oracle, fast and the fast variants this CPU runs (`difffuzz list` names them)")
}

// mdEscape keeps Markdown from reading a help text's <Target> as HTML.
func mdEscape(s string) string { return strings.ReplaceAll(s, "<", `\<`) }
