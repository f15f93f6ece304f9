package fuzz

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestListsSkipEmptyEntries: --ops and --impl read their lists alike: an empty entry (a
// trailing comma) is skipped, a list of none is refused, an unknown name is refused.
func TestListsSkipEmptyEntries(t *testing.T) {
	ops, err := ParseOps("escape,")
	require.NoError(t, err)
	assert.Equal(t, []Op{OpEscape}, ops)
	ops, err = ParseOps(" utf8-decode , ,decode")
	require.NoError(t, err)
	assert.Equal(t, []Op{OpDecode, OpUTF8Decode}, ops)
	_, err = ParseOps(",")
	assert.ErrorContains(t, err, `no operation named in ","`)
	_, err = ParseOps("escape,frob")
	assert.ErrorContains(t, err, `unknown operation "frob"`)

	cands, err := Candidates("oracle,")
	require.NoError(t, err)
	assert.Len(t, cands, 1)
	_, err = Candidates(",")
	assert.ErrorContains(t, err, `no implementation named in ","`)
}
