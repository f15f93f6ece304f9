package campaign

import (
	"context"
	"fmt"
	"io"

	"github.com/difffuzz/difffuzz/fuzz"
)

// StartCheckpoint opens the checkpoint at path (Open: an earlier run's findings go to triage
// again) and starts its periodic writes, saying on stderr what an earlier run left. An
// interrupt (ctx) while it was read back closes it again, as it was read, and is an error.
func StartCheckpoint(ctx context.Context, path, config, shard string, full bool, modes []string, triage fuzz.Sink, stderr io.Writer) (*Checkpoint, error) {
	ck, err := Open(path, config, shard, full, modes, triage)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		ck.Close()
		return nil, fmt.Errorf("interrupted while reading the checkpoint back: %s is saved as it was read, run the same command again", path)
	}
	if ck.Resumed() {
		fmt.Fprintln(stderr, ck.ResumeLine())
	}
	ck.Start(stderr)
	return ck, nil
}

// Finish writes the checkpoint a last time (Close) and says on stderr what it holds: a run to
// continue (interrupted), or one that was complete before this run began; it reports whether
// writing failed (said on stderr too). Without a checkpoint (nil) it does nothing.
func (ck *Checkpoint) Finish(interrupted bool, stderr io.Writer) (failed bool) {
	if ck == nil {
		return false
	}
	switch err := ck.Close(); {
	case err != nil:
		fmt.Fprintf(stderr, "difffuzz: --checkpoint: %v\n", err)
		return true
	case interrupted:
		fmt.Fprintf(stderr, "difffuzz: checkpoint written to %s: run the same command again to continue\n", ck.path)
	case ck.Resumed() && !ck.Worked():
		fmt.Fprintf(stderr, "difffuzz: --checkpoint %s: that run was already complete: this report is its report, nothing was checked again (delete the file to check again)\n", ck.path)
	}
	return false
}
