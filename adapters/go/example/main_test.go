package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/difffuzz/difffuzz/protocol"
	"github.com/difffuzz/difffuzz/reference"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The example's escaper is Go's encoding/json without HTML escaping, and it is served with the
// options it announces: a request outside them is refused, not answered wrongly.
func TestExampleTarget(t *testing.T) {
	for _, in := range []string{"", "a/b", "é\u2028", "\x80", "\"\\\n"} {
		got, err := escape(nil, []byte(in), options)
		require.NoError(t, err)
		assert.Equal(t, string(reference.GoJSON([]byte(in))), string(got), "%q", in)
	}
	got, err := escape(nil, []byte("<&>"), options)
	require.NoError(t, err)
	assert.Equal(t, `"<&>"`, string(got), "HTML escaping off, as json_encode without HEX_ options")
	var out bytes.Buffer
	h := protocol.Handler{Escape: escape, Caps: protocol.Capabilities{Options: options, OptionsSet: true}}
	require.NoError(t, protocol.Serve(strings.NewReader("escape 64 2f\nescape 1 2f\n"), &out, h))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3)
	assert.Equal(t, "difffuzz-target 1 escape bench options=320", lines[0])
	assert.Equal(t, "222f22 0", lines[1], `"/" as Go writes it`)
	assert.True(t, strings.HasPrefix(lines[2], "error escape: FLAGS 1 has option bits 1 (JSON_HEX_TAG) outside"), lines[2])
}
