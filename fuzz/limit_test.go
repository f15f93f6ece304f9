package fuzz

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/difffuzz/difffuzz/protocol"
)

// A line too long to keep (a target that answers 300 MB) is named as such, not as the empty
// line the client kept of it; an empty line is the empty string.
func TestLineOf(t *testing.T) {
	assert.Equal(t, "'x'", lineOf(&protocol.TargetError{Kind: protocol.Malformed, Line: "x"}))
	assert.Equal(t, "a line longer than 16777216 bytes",
		lineOf(&protocol.TargetError{Kind: protocol.Malformed, Detail: "its answer is " + protocol.ErrLineTooLong.Error(), TooLong: true}))
	assert.Equal(t, "''", lineOf(&protocol.TargetError{Kind: protocol.Malformed, Detail: "malformed response"}))
}
