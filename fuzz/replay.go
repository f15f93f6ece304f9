package fuzz

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/protocol"
)

// A Replayer replays saved findings (ReadSaved) as `difffuzz repro` does: each through Target
// when it is set, else against Impls when they are set, else through the --exec target its
// record names (started from the command it records, once per command, when first needed),
// else against the implementation its record names, else (a `go test fuzz v1` file) against
// All. Close stops the targets it started.
type Replayer struct {
	Target  *Target                    // --exec
	Impls   []Impl                     // --impl
	All     []Impl                     // what a go test fuzz v1 file is replayed against
	Lookup  func(string) (Impl, error) // the built-in a record names
	Timeout time.Duration              // of the targets started from records

	started map[string]*Target // by command; nil when it did not start
	why     map[string]string  // why it did not
}

// A Replay is what replaying one saved finding gave.
type Replay struct {
	Path  string     // the saved finding's, and how it was replayed when not as asked
	Found []*Finding // none when it passes now
	Who   string     // what it was replayed against
	Why   string     // why it was not replayed ("" when it was)
	Note  string     // the operations of it that could not be sent
	// Started is the recorded command (as ShellCommand shows it) started for it: "" when
	// none was, or one was for an earlier record.
	Started string
}

// Replay replays s.
func (r *Replayer) Replay(ctx context.Context, s Saved) Replay {
	rp := Replay{Path: s.Path}
	t := r.Target
	if t == nil && r.Impls == nil {
		if t, rp.Started, rp.Why = r.recorded(ctx, s); t != nil {
			rp.Path += " (through its recorded --exec command)"
		}
	}
	switch {
	case rp.Why != "":
	case t != nil:
		rp.Who = t.Name
		rp.Found, rp.Why, rp.Note = replayThrough(ctx, t, s)
	default:
		cands := r.Impls
		if cands == nil {
			cands = r.All // a go test fuzz v1 file: every fast variant
			if im, err := r.Lookup(s.Impl); s.Impl != "" && err == nil {
				cands = []Impl{im}
			}
		}
		names := make([]string, len(cands))
		for i, im := range cands {
			names[i] = im.Name
		}
		rp.Who = strings.Join(names, ", ")
		rp.Found = s.Replay(cands, nil)
	}
	return rp
}

// replayThrough asks target t each operation of s (one request each): the findings; why, when
// no operation could be sent; note, the operations that could not.
func replayThrough(ctx context.Context, t *Target, s Saved) (found []*Finding, why, note string) {
	var not []string
	for _, op := range s.Ops {
		cs := Case{Op: op, Input: s.Input}
		if op == OpEscape {
			cs.Flags = s.Flags
		}
		f, err := t.Replay(ctx, cs)
		if err != nil {
			not = append(not, fmt.Sprintf("%s not sent: %v", op, err))
			continue
		}
		found = append(found, f...)
	}
	switch {
	case len(not) == len(s.Ops):
		why = strings.Join(not, "; ")
	case len(not) > 0:
		note = " (" + strings.Join(not, "; ") + ")"
	}
	return found, why, note
}

// recorded is the target of s's record when it names one that is not built in (its command:,
// or an older record's impl:), started (and the command, when started now): nil for a
// built-in or a fuzz file; nil and why when it does not start.
func (r *Replayer) recorded(ctx context.Context, s Saved) (t *Target, started, why string) {
	if s.Impl == "" {
		return nil, "", ""
	}
	if _, err := r.Lookup(s.Impl); err == nil && s.Command == "" {
		return nil, "", ""
	}
	cmd, name := s.Command, ""
	if cmd == "" {
		cmd = s.Impl
	} else if s.Impl != cmd {
		name = s.Impl
	}
	if t, ok := r.started[cmd]; ok {
		return t, "", r.why[cmd]
	}
	if r.started == nil {
		r.started, r.why = map[string]*Target{}, map[string]string{}
	}
	t, err := StartTarget(ctx, cmd, TargetConfig{Timeout: r.Timeout, Name: name})
	if err != nil {
		r.started[cmd], r.why[cmd] = nil, fmt.Sprintf("recorded %q is not built in, and the command it records does not start (%s): replay it with --exec CMD (or check the built-ins with --impl)", s.Impl, protocol.OneLine(err))
		return nil, "", r.why[cmd]
	}
	r.started[cmd] = t
	return t, ShellCommand(cmd), ""
}

// Close stops the targets the Replayer started from records (not Target).
func (r *Replayer) Close() {
	for _, t := range r.started {
		if t != nil {
			t.Close()
		}
	}
}
