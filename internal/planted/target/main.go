// Command target serves target protocol v1 (DESIGN.md §6) for a deliberately broken
// implementation with the planted faults named on its command line (package planted), so that
// difffuzz's report can be tried on a target with known defects:
//
//	go build -o bin/planted-target ./internal/planted/target
//	difffuzz --exec 'bin/planted-target lenient,overlong,surrogate,raw-slash,lower-hex-tag,crash-fe'
//
// Faults: lenient, overlong, surrogate, ignore-options, lower-hex-tag, raw-slash, drop-quote,
// upper-unicode, control-raw, hang-efbfbd, crash-fe, options-0, unflushed (package planted says what each
// does).
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/difffuzz/difffuzz/internal/planted"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintf(os.Stderr, "usage: %s FAULT[,FAULT...] (faults: %v)\n", os.Args[0], planted.All)
		os.Exit(2)
	}
	faults, err := planted.Parse(strings.TrimSpace(os.Args[1]))
	if err != nil {
		fmt.Fprintln(os.Stderr, "planted target:", err)
		os.Exit(2)
	}
	if err := planted.New(faults...).Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "planted target:", err)
		os.Exit(1)
	}
}
