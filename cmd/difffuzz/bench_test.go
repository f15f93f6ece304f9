package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/internal/planted"
)

// `difffuzz bench --exec A --exec B`: the targets time themselves through the protocol's bench
// operation; a target answering wrong (a planted raw /) is never timed on the cells it gets
// wrong, says so in the table and on stderr, and the run exits 1; one answering right is timed.
func TestBenchExec(t *testing.T) {
	t.Setenv("DIFFFUZZ_CMD_SERVE", "oracle")
	good := fmt.Sprintf("%q -test.run=^TestHelperServe$", os.Args[0])
	bad := planted.Command(os.Args[0], planted.RawSlash)
	code, out, errs := runArgs(t, "", "bench", "--exec", good, "--exec", bad, "--ops", "escape", "--corpus", "url,cyrillic",
		"--sizes", "256B", "--options", "default UNESCAPED_SLASHES", "--pass-time", "2ms", "--anchors=false")
	require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", out, errs)
	t.Logf("\n%s\n%s", out, errs)
	assert.Contains(t, out, "difffuzz bench --exec ")
	assert.Regexp(t, `(?m)^ +default +[0-9,]+ ns/call +[-+][0-9.]+% +wrong answer$`, out, "url under default options: / is escaped")
	assert.Regexp(t, `(?m)^ +UNESCAPED_SLASHES +[0-9,]+ ns/call +[-+][0-9.]+% +\S+$`, out)
	assert.NotRegexp(t, `(?m)UNESCAPED_SLASHES.*wrong answer`, out)
	assert.Contains(t, out, "\nexec2: "+bad+"\n", "the legend")
	assert.Contains(t, errs, "difffuzz: bench: exec2 on escape/256B/url/default: refused: wrong answer to bench escape")
	assert.Contains(t, errs, "difffuzz: bench: exec2 was not timed on 1 cell: a wrong answer is never timed\n")

	// JSON: the cells, the candidates, the floor.
	code, out, errs = runArgs(t, "", "bench", "--exec", good, "--names", "master", "--ops", "escape,utf8_decode", "--corpus", "ascii", "--sizes", "64",
		"--pass-time", "1ms", "--impl", "oracle", "--format", "json", "--plot", filepath.Join(t.TempDir(), "p.svg"))
	require.Equal(t, 0, code, errs)
	var doc struct {
		Version    int      `json:"version"`
		Command    string   `json:"command"`
		Candidates []string `json:"candidates"`
		Baseline   string   `json:"baseline"`
		Cells      []struct {
			Name string `json:"name"`
		} `json:"cells"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	assert.Equal(t, 1, doc.Version)
	assert.Equal(t, "master", doc.Baseline, "the first --exec is the baseline")
	assert.Equal(t, []string{"master", "master (A/A)", "oracle", "copy", "append-quoted", "encoding-json", "json-encoder", "utf8.DecodeRune", "utf8.Valid"}, doc.Candidates)
	assert.Equal(t, []string{"escape/64B/ascii/default", "utf8_decode/64B/ascii/default"}, []string{doc.Cells[0].Name, doc.Cells[1].Name})
	assert.Contains(t, errs, "plot written to")
}

// Bad bench flags and targets get one line and exit 2.
func TestBenchUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "yaml"}, `--format "yaml": want one of text, markdown, json, csv`},
		{[]string{"--passes", "3"}, "--passes 3: from 5"},
		{[]string{"--pass-time", "0s"}, "--pass-time 0s: want 1ms to 1m"},
		{[]string{"--plot", "x.pdf"}, "--plot x.pdf: the plot is written as .svg or .png"},
		{[]string{"--corpus", "nope"}, `no corpus "nope"`},
		{[]string{"--sizes", "0"}, `--sizes: size "0"`},
		{[]string{"--options", "BOGUS"}, `--options "BOGUS"`},
		{[]string{"--impl", "nope"}, `no implementation "nope"`},
		{[]string{"--impl", "oracle,oracle"}, "oracle is given twice"},
		{[]string{"--baseline", "nope"}, `--baseline "nope" is not a candidate`},
		{[]string{"--ops", "nope"}, "--ops"},
		{[]string{"--exec", "/nonexistent/target"}, `--exec "/nonexistent/target"`},
		{[]string{"--exec", "true"}, `--exec "true"`},
		{[]string{"--exec", "sh -c 'echo difffuzz-target 1 escape; cat >/dev/null'"}, "the target does not announce the bench operation"},
		{[]string{"--impl", "", "--anchors=false"}, "no candidates"},
		{[]string{"x"}, "bench takes no arguments"},
		{[]string{"--exec", "cat", "--names", "a,b"}, "--names has 2 names for 1 --exec target"},
		{[]string{"--exec", "cat", "--exec", "cat", "--names", "a,a"}, `the name "a" is taken`},
		{[]string{"--exec", "cat", "--names", "copy"}, `the name "copy" is taken`},
		{[]string{"--exec", "cat", "--names", "x (A/A)"}, `the name "x (A/A)" is taken`},
		{[]string{"--exec", "cat", "--names", "a|b"}, "holds a tab, a line break or a |"},
		{[]string{"--passes", "1001"}, "--passes 1001: from 5"},
		{[]string{"--corpus", "ascii,ascii"}, "--corpus: ascii is given twice"},
		{[]string{"--sizes", "4KiB,4096"}, "--sizes: 4096 bytes are given twice"},
		{[]string{"--options", "default 0"}, `--options: "0" is given twice`},
		{[]string{"--plot", "/nonexistent/p.svg"}, "no directory /nonexistent"},
		{[]string{"--plot", "/tmp"}, ".svg or .png"},
	} {
		code, out, errs := runArgs(t, "", append([]string{"bench"}, tc.args...)...)
		assert.Equal(t, 2, code, "%v: %s", tc.args, errs)
		assert.Empty(t, out, "%v", tc.args)
		assert.True(t, strings.HasPrefix(errs, "difffuzz: ") && strings.Count(errs, "\n") == 1, "%v: %q", tc.args, errs)
		assert.Contains(t, errs, tc.want, "%v", tc.args)
	}
}
