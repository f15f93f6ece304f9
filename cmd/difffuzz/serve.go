package main

import (
	"flag"
	"io"
	"strings"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/protocol"
)

// runServe speaks target protocol v1 (DESIGN.md §6) on stdin/stdout for one built-in
// implementation, until end of input.
func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", stderr)
	implName := serveFlags(fs)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("serve takes no arguments, got %q", rest[0])
	}
	im, err := fuzz.LookupImpl(*implName)
	if err != nil {
		return usageError{err.Error()}
	}
	return protocol.Serve(stdin, stdout, protocol.Handler{
		Escape: im.Escape, NextChar: im.NextChar, UTF8Decode: im.UTF8Decode,
	})
}

// serveFlags defines serve's flags.
func serveFlags(fs *flag.FlagSet) (implName *string) {
	return fs.String("impl", "fast", "implementation: "+strings.Join(fuzz.ImplNames(), ", "))
}
