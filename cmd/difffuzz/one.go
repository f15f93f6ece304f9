package main

import (
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/jsonopt"
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
// protocol form; utf8-decode the raw bytes.
func runOne(cmd string, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if cmd == "utf8_decode" {
		cmd = "utf8-decode"
	}
	fs := newFlagSet(cmd, stderr)
	implName := fs.String("impl", "fast", "implementation: "+strings.Join(fuzz.ImplNames(), ", "))
	flagsArg := "0"
	if cmd == "escape" {
		fs.StringVar(&flagsArg, "flags", "0", "json_encode options: PHP names joined by | or , (JSON_HEX_TAG|UNESCAPED_UNICODE) or an integer (320)")
	}
	hexArg := fs.String("hex", "", "the input as hex digits (e08041)")
	strArg := fs.String("string", "", "the input as a literal string")
	synopsis := "difffuzz " + cmd + " [--impl NAME] (--hex HEX | --string S | -)"
	if cmd == "escape" {
		synopsis = "difffuzz escape [--impl NAME] [--flags F] (--hex HEX | --string S | -)"
	}
	rest, err := parseFlags(fs, args, stderr, synopsis)
	if err != nil {
		return exitUsage, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	sources := 0
	if set["hex"] {
		sources++
	}
	if set["string"] {
		sources++
	}
	readStdin := false
	switch {
	case len(rest) == 1 && rest[0] == "-":
		sources++
		readStdin = true
	case len(rest) > 0:
		return exitUsage, usagef("unexpected argument %q (give the input with --hex, --string or -)", rest[0])
	}
	if sources != 1 {
		return exitUsage, usagef("give exactly one input: --hex HEX, --string S or - for stdin")
	}
	var in []byte
	switch {
	case set["hex"]:
		if in, err = parseHex(*hexArg); err != nil {
			return exitUsage, usageError{err.Error()}
		}
	case set["string"]:
		in = []byte(*strArg)
	case readStdin:
		in, err = io.ReadAll(io.LimitReader(stdin, maxInput+1))
		if err != nil {
			return exitUsage, usagef("reading stdin: %v", err)
		}
		if len(in) > maxInput {
			return exitUsage, usagef("stdin is larger than %d bytes", maxInput)
		}
	}
	im, err := fuzz.LookupImpl(*implName)
	if err != nil {
		return exitUsage, usageError{err.Error()}
	}
	switch cmd {
	case "escape":
		opts, err := jsonopt.Parse(flagsArg)
		if err != nil {
			return exitUsage, usagef("--flags: %v", err)
		}
		out, eerr := im.Escape(nil, in, opts)
		if eerr != nil && jsonopt.ErrorCode(eerr) < 0 {
			return exitUsage, eerr
		}
		if _, err := stdout.Write(out); err != nil {
			return exitUsage, err
		}
		if eerr != nil {
			what := "json_encode returned false"
			if len(out) > 0 {
				what = fmt.Sprintf("json_encode returned %q", out)
			}
			fmt.Fprintf(stderr, "difffuzz: %s: %v\n", what, eerr)
			return exitFindings, nil
		}
	case "decode":
		var steps []string
		for pos := 0; pos < len(in); {
			st := im.NextChar(in, pos)
			steps = append(steps, st.String())
			if st.Advance <= 0 {
				return exitUsage, fmt.Errorf("%s returned advance %d at position %d", im.Name, st.Advance, pos)
			}
			pos += st.Advance
		}
		if len(steps) == 0 {
			steps = []string{"-"}
		}
		fmt.Fprintln(stdout, strings.Join(steps, " "))
	default:
		if _, err := stdout.Write(im.UTF8Decode(nil, in)); err != nil {
			return exitUsage, err
		}
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
