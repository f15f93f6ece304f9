package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/difffuzz/difffuzz/corpus"
	"github.com/difffuzz/difffuzz/fast"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// runList prints the implementations, the CPU features that select among them, the named
// corpora and the option names.
func runList(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("list", stderr)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("list takes no arguments, got %q", rest[0])
	}
	fmt.Fprintln(stdout, "implementations:")
	fmt.Fprintf(stdout, "  %-8s %s\n", "oracle", "byte-at-a-time executable specification of PHP 8.2 (the reference)")
	fmt.Fprintf(stdout, "  %-8s %s\n", "fast", "fast's dispatched entry point, currently "+fast.Default())
	for _, v := range fast.Variants() {
		mark := ""
		if v.Name == fast.Default() {
			mark = " (default)"
		}
		fmt.Fprintf(stdout, "  %-8s %s%s\n", v.Name, v.Doc, mark)
	}
	fmt.Fprintln(stdout, strings.TrimSpace(fmt.Sprintf("cpu: %s/%s %s", runtime.GOOS, runtime.GOARCH, fast.CPUFeatures())))
	fmt.Fprintln(stdout, "corpora:")
	for _, c := range corpus.All() {
		fmt.Fprintf(stdout, "  %-22s %s\n", c.Name, c.Doc)
	}
	fmt.Fprintf(stdout, "options: %s\n", strings.Join(jsonopt.Names(), " "))
	return nil
}
