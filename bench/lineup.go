package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/protocol"
)

// Setup is who runs in a report: in-process implementations, --exec targets, the anchors.
type Setup struct {
	Impls    string        // in-process candidates, comma-separated: oracle, fast, a variant, all; "": none
	Execs    []string      // command lines of targets speaking target protocol v1 with its bench operation
	Names    string        // the targets' names, comma-separated, in Execs order ("": exec1, exec2, ...)
	Anchors  bool          // time the Go anchors too
	Baseline string        // the candidate the speedups are over ("": the first)
	Timeout  time.Duration // longest wait for a target's hello and plain answers
	PassTime time.Duration // about how long one pass takes (a bench answer may take 20 more)
	// Split splits each of Execs into words (fuzz.SplitCommand; bench does not import fuzz,
	// which the peers module would then have to require).
	Split func(cmd string) ([]string, error)
}

// Lineup is a report's candidates, started.
type Lineup struct {
	Candidates []Candidate // in report order: the targets, then the in-process ones and the anchors
	Control    *Candidate  // the first target's A/A control (nil without targets)
	Legend     []string    // "name: command line" of each target
	Baseline   string      // the candidate the speedups are over
	clients    []*protocol.Client
}

// Start checks the setup's names and starts its targets, each name once before any target
// starts. Close stops the targets; Start does on an error.
func Start(ctx context.Context, s Setup) (_ *Lineup, err error) {
	l := &Lineup{}
	defer func() {
		if err != nil {
			l.Close()
		}
	}()
	var local []Candidate
	if s.Impls != "" {
		impls, err := implsOf(s.Impls)
		if err != nil {
			return nil, fmt.Errorf("--impl: %v", err)
		}
		for _, im := range impls {
			local = append(local, Local(im))
		}
	}
	names, err := execNames(s)
	if err != nil {
		return nil, err
	}
	if err := checkNames(names, local); err != nil {
		return nil, err
	}
	if err := l.startTargets(ctx, s, names); err != nil {
		return nil, err
	}
	l.Candidates = append(l.Candidates, local...)
	if s.Anchors {
		l.Candidates = append(l.Candidates, Anchors()...)
	}
	if len(l.Candidates) == 0 {
		return nil, errors.New("no candidates (give --impl or --exec)")
	}
	if l.Baseline, err = baselineOf(s.Baseline, l.Candidates); err != nil {
		return nil, err
	}
	return l, nil
}

// Close stops the targets.
func (l *Lineup) Close() {
	for _, c := range l.clients {
		c.Close()
	}
}

// execNames are the names of the targets (Names, or exec1, exec2, ...).
func execNames(s Setup) ([]string, error) {
	names := make([]string, len(s.Execs))
	for i := range names {
		names[i] = fmt.Sprintf("exec%d", i+1)
	}
	if s.Names == "" {
		return names, nil
	}
	given := strings.Split(s.Names, ",")
	if len(given) != len(s.Execs) {
		return nil, fmt.Errorf("--names has %d names for %s", len(given), plural(len(s.Execs), "--exec target"))
	}
	for i, n := range given {
		if n = strings.TrimSpace(n); n == "" || strings.ContainsAny(n, "\t\n\r|") {
			return nil, fmt.Errorf("--names: name %d, %q, is empty or holds a tab, a line break or a | (a table's column mark)", i+1, n)
		}
		names[i] = strings.TrimSpace(n)
	}
	return names, nil
}

// checkNames checks that every name is taken once. (The anchors' names are taken even
// without them: "copy" is the copies' reference.)
func checkNames(execs []string, local []Candidate) error {
	taken := append([]string{}, execs...)
	for _, c := range local {
		taken = append(taken, c.Name)
	}
	for _, an := range Anchors() {
		taken = append(taken, an.Name)
	}
	for i, n := range taken {
		if slices.Contains(taken[:i], n) || strings.HasSuffix(n, ControlSuffix) {
			return fmt.Errorf("the name %q is taken (names in use: %s): give --names others", n, strings.Join(taken, ", "))
		}
	}
	return nil
}

// startTargets starts the targets, and a second process of the first as its A/A control:
// the noise between two processes of one build is part of what a comparison of two builds
// must rise above.
func (l *Lineup) startTargets(ctx context.Context, s Setup, names []string) error {
	wait := s.Timeout + 20*s.PassTime
	for i, cmd := range s.Execs {
		argv, err := s.Split(cmd)
		if err != nil {
			return fmt.Errorf("--exec %q: %v", cmd, err)
		}
		cl, err := protocol.StartConfig(ctx, argv, protocol.Config{Timeout: s.Timeout})
		if err != nil {
			return fmt.Errorf("--exec %q: %v", cmd, err)
		}
		l.clients = append(l.clients, cl)
		if !cl.Supports(protocol.OpBench) {
			return fmt.Errorf("--exec %q: the target does not announce the bench operation (protocol v1's optional \"bench OP FLAGS HEX N\"; the PHP adapter and difffuzz serve have it)", cmd)
		}
		l.Candidates = append(l.Candidates, Target(names[i], cl, wait))
		l.Legend = append(l.Legend, names[i]+": "+cmd)
	}
	if len(s.Execs) == 0 {
		return nil
	}
	argv, _ := s.Split(s.Execs[0]) // split once already
	cl, err := protocol.StartConfig(ctx, argv, protocol.Config{Timeout: s.Timeout})
	if err != nil {
		return fmt.Errorf("--exec %q (its A/A control, a second process): %v", s.Execs[0], err)
	}
	l.clients = append(l.clients, cl)
	c := Target(names[0]+ControlSuffix, cl, wait)
	l.Control = &c
	return nil
}

// baselineOf is base, checked to be a candidate ("": the first candidate).
func baselineOf(base string, cands []Candidate) (string, error) {
	if base == "" {
		base = cands[0].Name
	}
	var names []string
	for _, c := range cands {
		names = append(names, c.Name)
	}
	if !slices.Contains(names, base) {
		return "", fmt.Errorf("--baseline %q is not a candidate (the candidates: %s)", base, strings.Join(names, ", "))
	}
	return base, nil
}
