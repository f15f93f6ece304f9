package campaign

import (
	"fmt"
	"io"

	"github.com/difffuzz/difffuzz/fuzz"
)

// Verdict is what a campaign's run says of its candidates (the command's exit status).
type Verdict int

const (
	Passed     Verdict = iota // cases were compared and none differed
	Failed                    // a difference was found
	Unfinished                // nothing was compared, or the run stopped (an error, an interrupt) before finding a difference
)

// Judge is the verdict of a run that made rep (runErr: what stopped it) in shard K/N (shards 0:
// not sharded); when it compared nothing it says why on stderr.
func Judge(rep *fuzz.Report, runErr error, shard, shards int, stderr io.Writer) Verdict {
	if rep.Differences > 0 {
		return Failed
	}
	if Compared(rep) == 0 && runErr == nil && !rep.Interrupted {
		// A check that compared nothing must not pass: e.g. a target that announces none
		// of the operations asked for.
		if shards > 1 {
			fmt.Fprintf(stderr, "difffuzz: nothing was compared: shard %d/%d holds no work at this size (fewer shards, or a larger --max-len), or no candidate offers the operations asked for (--ops)\n", shard, shards)
		} else {
			fmt.Fprintln(stderr, "difffuzz: nothing was compared: no candidate offers the operations asked for (--ops)")
		}
		return Unfinished
	}
	if rep.Interrupted {
		return Unfinished
	}
	return Passed
}

// Compared is how many cases a run compared.
func Compared(rep *fuzz.Report) uint64 {
	var n uint64
	for _, sp := range rep.Spaces {
		n += sp.Cases
	}
	return n
}
