package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/report"
)

// phptFlags defines phpt's flags.
func phptFlags(fs *flag.FlagSet) (dir *string) {
	return fs.String("dir", "phpt", "write the tests into `DIR` (made if missing)")
}

// runPHPT is `difffuzz phpt`: the boundary tests of report.WriteEdgePHPT.
func runPHPT(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("phpt", stderr)
	dir := phptFlags(fs)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("phpt: unexpected argument %q", rest[0])
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return usagef("phpt: %v", err)
	}
	tests, err := report.WriteEdgePHPT(*dir)
	cases := 0
	for _, t := range tests {
		fmt.Fprintf(stdout, "%s  %s\n", t.Path, report.Plural(uint64(t.Cases), "case"))
		cases += t.Cases
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "difffuzz: phpt: wrote %s in %d tests %s\n", report.Plural(uint64(cases), "case"), 2*len(fuzz.StratifiedWidths), report.PHPTHint(*dir))
	return nil
}

// writePHPT writes the .phpt tests of --phpt DIR and says so on stderr; false when they could
// not be written (said too).
func writePHPT(dir string, classes []*report.Class, stderr io.Writer) bool {
	paths, err := report.WritePHPT(dir, classes)
	if err != nil {
		fmt.Fprintf(stderr, "difffuzz: --phpt: %v\n", err)
		return false
	}
	if len(paths) > 0 {
		fmt.Fprintf(stderr, "difffuzz: wrote %s to %s %s\n", report.Plural(uint64(len(paths)), "PHP test"), filepath.Clean(dir), report.PHPTHint(dir))
	}
	return true
}
