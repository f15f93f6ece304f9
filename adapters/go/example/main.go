// Command example is a difffuzz target (target protocol v1, DESIGN.md §6) for a JSON string
// escaper written in Go: it answers "escape" requests with escape below and announces the
// option bits escape implements, so that difffuzz asks nothing else. Copy it, put your escaper
// in escape, and run difffuzz against the binary (README, "Check a Go escaper"):
//
//	go build -o bin/go-target ./adapters/go/example
//	bin/difffuzz --exec bin/go-target --exhaustive --max-len 2
//
// As it stands, escape is Go's encoding/json (json.Encoder with HTML escaping off), the
// nearest standard-library answer to json_encode under JSON_UNESCAPED_SLASHES |
// JSON_UNESCAPED_UNICODE, which are the bits it announces; difffuzz names where it is not
// PHP's (U+2028 and U+2029 escaped, invalid UTF-8 written as U+FFFD where PHP returns false,
// the slash and non-ASCII under the options without those bits, ...).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/protocol"
)

// options are the json_encode option bits escape implements (jsonopt names PHP's JSON_*
// constants); difffuzz sends escape requests under these bits and their subsets only.
const options = jsonopt.UnescapedSlashes | jsonopt.UnescapedUnicode

// escape appends json_encode(src, opts)'s answer to dst: the quoted string, or, where PHP
// returns false, a *jsonopt.Error with its JSON_ERROR_* code (see protocol.Handler).
func escape(dst, src []byte, opts jsonopt.Options) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(string(src)); err != nil {
		return dst, err
	}
	return append(dst, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...), nil
}

func main() {
	h := protocol.Handler{Escape: escape, Caps: protocol.Capabilities{Options: options, OptionsSet: true}}
	if err := protocol.Serve(os.Stdin, os.Stdout, h); err != nil {
		fmt.Fprintln(os.Stderr, "go-target:", err)
		os.Exit(1)
	}
}
