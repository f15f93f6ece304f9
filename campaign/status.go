package campaign

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/protocol"
	"github.com/difffuzz/difffuzz/report"
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
			fmt.Fprintf(stderr, "difffuzz: nothing was compared: shard %d/%d holds no work (random inputs are checked on shard 0 only; the exhaustive and boundary spaces may be too small for %d shards: fewer shards, or a larger --max-len), or no candidate offers the operations asked for (--ops)\n", shard, shards, shards)
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

// SayEnd says on stderr how each target was driven and what stopped the run of parts ps
// early: an error or an interrupt, and the spaces it did not begin (NotReached).
func SayEnd(stderr io.Writer, targets []*fuzz.Target, ps []Part, rep *fuzz.Report, runErr error) {
	for _, t := range targets {
		report.TargetNotes(stderr, t)
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "difffuzz: %s\n", protocol.OneLine(runErr))
		fmt.Fprintln(stderr, "difffuzz: stopped early: the summary covers what was checked before the error")
	} else if rep.Interrupted {
		fmt.Fprintln(stderr, "difffuzz: interrupted: the summary covers what was checked before the interrupt")
	}
	if runErr != nil || rep.Interrupted {
		if nr := NotReached(ps, targets, rep); len(nr) > 0 {
			fmt.Fprintf(stderr, "difffuzz: not begun, so neither passed nor failed: %s\n", strings.Join(nr, ", "))
		}
	}
}

// notIdentity are the campaign flags that change how a run goes or what it writes, not what
// it checks: shards that differ only in these belong to one sweep.
var notIdentity = map[string]bool{"workers": true, "json": true, "findings": true, "junit": true, "out": true,
	"examples": true, "shard": true, "timeout": true, "stats": true, "checkpoint": true}

// ConfigLine is what a campaign checks, as one line: the flags of fs given that choose it
// (--name=value, sorted; those of notIdentity left out), the candidates they resolve to (the
// built-ins, then the --exec targets as given) and the platform. `difffuzz merge` refuses
// shard reports whose configs differ, and a checkpoint resumes only the same config.
func ConfigLine(fs *flag.FlagSet, builtins []fuzz.Impl, execs []string) string {
	var flags []string
	fs.Visit(func(f *flag.Flag) {
		if !notIdentity[f.Name] {
			flags = append(flags, "--"+f.Name+"="+f.Value.String())
		}
	})
	sort.Strings(flags)
	var cands []string
	for _, im := range builtins {
		cands = append(cands, im.Name)
	}
	cands = append(cands, execs...)
	return fmt.Sprintf("%s; candidates %s; %s/%s", strings.Join(flags, " "), strings.Join(cands, ","), runtime.GOOS, runtime.GOARCH)
}

// Candidates are the built-ins (one candidate, none when builtins is empty) and each target.
func Candidates(builtins []fuzz.Impl, targets []*fuzz.Target) []Candidate {
	var out []Candidate
	if len(builtins) > 0 {
		out = append(out, Builtins(builtins))
	}
	for _, t := range targets {
		out = append(out, Target{Target: t})
	}
	return out
}
