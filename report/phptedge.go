package report

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// The boundary tests a php-src change to json_encode or utf8_decode wants (`difffuzz phpt`;
// the seed PRs wrote json_encode_sse2_boundary.phpt and utf8_decode_sequences.phpt by hand):
// for each block width of vector code, every boundary unit at its edges, expecting what PHP
// 8.2 answers (the oracle).

// An EdgeTest is a .phpt file WriteEdgePHPT wrote: its path and its number of cases.
type EdgeTest struct {
	Path  string
	Cases int
}

// WriteEdgePHPT writes the boundary tests into dir, which must exist: for each width of
// fuzz.StratifiedWidths the json_encode test, then the utf8_decode one. It returns the tests
// written, those before a failure too.
func WriteEdgePHPT(dir string) ([]EdgeTest, error) {
	var tests []EdgeTest
	for _, w := range fuzz.StratifiedWidths {
		for _, op := range []fuzz.Op{fuzz.OpEscape, fuzz.OpUTF8Decode} {
			name, text, n := edgePHPT(op, w)
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				return tests, err
			}
			tests = append(tests, EdgeTest{Path: p, Cases: n})
		}
	}
	return tests, nil
}

// PHPTHint says how to run the .phpt tests written into dir.
func PHPTHint(dir string) string {
	dir = filepath.Clean(dir)
	return fmt.Sprintf("(run them: sapi/cli/php run-tests.php -p sapi/cli/php %s, or %s PHP %s)", dir, runPHPT(), filepath.Join(dir, "*.phpt"))
}

// runPHPT is where adapters/php/run-phpt is as the user would type it: beside the difffuzz
// binary's checkout (bin/difffuzz, run from a php-src tree), relative to the working directory
// when that is shorter; in the working directory; else named as in the checkout.
func runPHPT() string {
	const rel = "adapters/php/run-phpt"
	wd, _ := os.Getwd()
	if exe, err := os.Executable(); err == nil && wd != "" {
		for _, root := range []string{filepath.Dir(filepath.Dir(exe)), filepath.Dir(exe)} {
			p := filepath.Join(root, rel)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				if r, err := filepath.Rel(wd, p); err == nil && len(r) < len(p) {
					return r
				}
				return p
			}
		}
	}
	if _, err := os.Stat(rel); err == nil {
		return rel
	}
	return "DIFFFUZZ/" + rel + " (DIFFFUZZ: your difffuzz checkout)"
}

// phptOptions are the option sets an edge input is escaped under when one changes its answer
// (besides 0): one of each kind of path of the escaper.
var phptOptions = []jsonopt.Options{
	jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot,
	jsonopt.UnescapedSlashes,
	jsonopt.UnescapedUnicode,
	jsonopt.UnescapedUnicode | jsonopt.UnescapedLineTerminators,
	jsonopt.InvalidUTF8Ignore,
	jsonopt.InvalidUTF8Substitute,
	jsonopt.PartialOutputOnError,
}

// edgePHPT is the .phpt test of op at the edges of width w: its file name, its text and its
// number of cases. Each case prints its input (hex), its options and the answer (hex, and
// json_last_error() for json_encode), so that a failure's diff names the case.
func edgePHPT(op fuzz.Op, w int) (name, text string, n int) {
	var data, expect strings.Builder
	for _, e := range fuzz.EdgeInputs(w) {
		h := hex.EncodeToString(e.Input)
		if op == fuzz.OpUTF8Decode {
			fmt.Fprintf(&data, "    '%s',\n", h)
			fmt.Fprintf(&expect, "%s %s\n", h, hexOrEmpty(fuzz.Oracle.UTF8Decode(nil, e.Input)))
			n++
			continue
		}
		base, berr := fuzz.Oracle.Escape(nil, e.Input, 0)
		for i, o := range append([]jsonopt.Options{0}, phptOptions...) {
			out, err := fuzz.Oracle.Escape(nil, e.Input, o)
			if i > 0 && bytes.Equal(out, base) && jsonopt.ErrorCode(err) == jsonopt.ErrorCode(berr) {
				continue // o does not change this input's answer
			}
			ans := "false"
			if err == nil || len(out) > 0 {
				ans = hexOrEmpty(out)
			}
			fmt.Fprintf(&data, "    ['%s', %d],\n", h, uint32(o))
			fmt.Fprintf(&expect, "%s %d %s %d\n", h, uint32(o), ans, jsonopt.ErrorCode(err))
			n++
		}
	}
	fn, loop := "json_encode", `foreach ($cases as [$h, $flags]) {
    $r = json_encode(hex2bin($h), $flags);
    echo $h, ' ', $flags, ' ', $r === false ? 'false' : bin2hex($r), ' ', json_last_error(), "\n";
}`
	if op == fuzz.OpUTF8Decode {
		fn, loop = "utf8_decode", `foreach ($cases as $h) {
    echo $h, ' ', bin2hex(@utf8_decode(hex2bin($h))), "\n";
}`
	}
	text = fmt.Sprintf(`--TEST--
%s(): every boundary unit ending at, starting at and straddling the %d- and %d-byte edges (difffuzz phpt)
--FILE--
<?php
// Written by difffuzz phpt: each unit of difffuzz's boundary space (every byte json_encode
// escapes, each UTF-8 length class, U+2028/2029, each invalid class) in clean filler, ending
// at, starting at and straddling the edges %d and %d of inputs of %d, %d, %d and %d bytes%s.
// Each line: the input (hex)%s, the answer (hex)%s.
$cases = [
%s];
%s
?>
--EXPECT--
%s`, fn, w, 2*w, w, 2*w, w, w+1, 2*w, 2*w+1, escapeNote(op), flagsNote(op), errNote(op), data.String(), loop, expect.String())
	return fmt.Sprintf("%s_edges_%d.phpt", fn, w), text, n
}

func escapeNote(op fuzz.Op) string {
	if op == fuzz.OpEscape {
		return ",\n// under options 0 and each option set that changes the answer"
	}
	return ""
}

func flagsNote(op fuzz.Op) string {
	if op == fuzz.OpEscape {
		return ", the options"
	}
	return ""
}

func errNote(op fuzz.Op) string {
	if op == fuzz.OpEscape {
		return " or false, json_last_error()"
	}
	return ""
}

// hexOrEmpty is b as hex ("" for none: what PHP's bin2hex prints).
func hexOrEmpty(b []byte) string { return hex.EncodeToString(b) }
