package campaign

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/fuzz"
)

// TestWitnessesResume: a checkpoint keeps what each witness holds, so that a resumed campaign
// drops the cases the interrupted one would have: a witness of clean 'a' bytes found on
// exactly them (Exact) holds only inputs that contain them, not every longer input; one of a
// line after every answer (Every) holds every input of its operation. Without them a resumed
// run would send every decode case again (each a finding) and not send the longer escape
// inputs an exact witness of "aa" does not hold.
func TestWitnessesResume(t *testing.T) {
	start := func() *fuzz.Target {
		tg, err := fuzz.StartTarget(context.Background(), `sh -c 'echo difffuzz-target 1 escape decode; cat >/dev/null'`, fuzz.TargetConfig{Timeout: time.Second})
		require.NoError(t, err)
		t.Cleanup(func() { _ = tg.Close() })
		return tg
	}
	ws := []fuzz.WitnessState{
		{Finding: &fuzz.Finding{Kind: fuzz.KindTargetCrash, Op: fuzz.OpEscape, Impl: "t", Input: []byte("aa"), External: true}, Exact: true},
		{Finding: &fuzz.Finding{Kind: fuzz.KindTargetProtocol, Op: fuzz.OpDecode, Impl: "t", Input: []byte{1}, External: true,
			Detail: "writes a line after every answer: 'debug' after its answer to decode of \"\\x01\", and one after those to 'a', 'b', 'c', 'd' (each asked first in a new process), whatever it is asked: no other decode request was sent"},
			Every: true},
	}
	path := filepath.Join(t.TempDir(), "ck")
	ck, err := Open(path, "cfg", "0/1", false, []string{"exhaustive"}, nil)
	require.NoError(t, err)
	tg := start()
	tg.RestoreWitnesses(ws)
	ck.KeepWitnesses(tg)
	require.NoError(t, ck.Close())

	ck, err = Open(path, "cfg", "0/1", false, []string{"exhaustive"}, nil)
	require.NoError(t, err)
	defer ck.Close()
	again := start()
	ck.RestoreWitnesses(again)
	got := again.WitnessStates()
	require.Len(t, got, 2)
	assert.True(t, got[0].Exact, "exact kept")
	assert.True(t, got[1].Every, "every kept")
}
