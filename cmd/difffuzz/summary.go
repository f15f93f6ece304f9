package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/difffuzz/difffuzz/report"
)

// writePHPT writes the .phpt tests of --phpt DIR and says so on stderr; false when they could
// not be written (said too).
func writePHPT(dir string, classes []*report.Class, stderr io.Writer) bool {
	paths, err := report.WritePHPT(dir, classes)
	if err != nil {
		fmt.Fprintf(stderr, "difffuzz: --phpt: %v\n", err)
		return false
	}
	if len(paths) > 0 {
		fmt.Fprintf(stderr, "difffuzz: wrote %s to %s %s\n", plural(uint64(len(paths)), "PHP test"), filepath.Clean(dir), report.PHPTHint(dir))
	}
	return true
}
