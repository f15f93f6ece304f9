package mutation

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Killer is one named test selection run against each mutant: the test binary of Pkg (built
// once per mutant with `go test -c -vet=off [-tags Tags]` and shared by the killers of the same
// package and tags), run in the package's directory with -test.run Run [-test.short].
type Killer struct {
	Name  string // "unit", "exhaustive", ...
	Pkg   string // one package, as a directory relative to Config.Dir: "./fast"
	Run   string // the -run regular expression ("" runs every test)
	Short bool   // pass -short
	Tags  string // build tags ("purego"), "" for none
	// Domain, for an equivalence killer (Config.Equivalence), is the input domain it checks
	// exhaustively, in words: what a mutant that passes it is proven equivalent on.
	Domain string
}

// buildArgs is the go test -c command line that builds k's test binary at out, through the
// overlay file when there is one.
func (k Killer) buildArgs(overlay, out string) []string {
	a := []string{"test", "-c", "-json", "-vet=off", "-o", out}
	if overlay != "" {
		a = append(a, "-overlay", overlay)
	}
	if k.Tags != "" {
		a = append(a, "-tags", k.Tags)
	}
	return append(a, k.Pkg)
}

// runArgs are the test binary's flags for k.
func (k Killer) runArgs() []string {
	a := []string{"-test.count=1", "-test.v=true", "-test.failfast"}
	if k.Short {
		a = append(a, "-test.short")
	}
	if k.Run != "" {
		a = append(a, "-test.run", k.Run)
	}
	return a
}

// binKey is what decides whether two killers share a test binary.
func (k Killer) binKey() string { return k.Pkg + "\x00" + k.Tags }

// Outcome is how a mutant ended.
type Outcome string

// The outcomes of DESIGN.md §7.
const (
	Killed    Outcome = "killed"     // a killer's test failed
	Survived  Outcome = "survived"   // every killer passed
	TimedOut  Outcome = "timed-out"  // a killer ran past its timeout (counted apart from killed)
	NotViable Outcome = "not-viable" // the mutant does not compile (a build-fail event), never counted as killed
	// Equivalent: it survived every killer and every equivalence killer, so it behaves like
	// the original on their exhaustive domains (Result.Domain).
	Equivalent Outcome = "equivalent"
)

// Result is what the killers made of one mutant.
type Result struct {
	Mutant
	Outcome  Outcome
	KilledBy string // the killer that killed it (or timed out), "" otherwise
	// Matrix is, with Config.Matrix, each killer's verdict on the mutant by killer name:
	// "killed", "passed" or "timed-out" (not run: absent).
	Matrix map[string]string `json:",omitempty"`
	Test   string            // the first failing test, when one was named
	Detail string            // for not viable: the compiler's first message; for a gap: the failing test's first lines
	Domain string            // for equivalent: the domains it was proven equivalent on
	// Gap: it survived the killers but an equivalence killer killed it, so the killers'
	// tests miss an input that tells it from the original (Detail shows the test's output).
	Gap     bool          `json:",omitempty"`
	Elapsed time.Duration // the time its killers took
}

// Config is a mutation run.
type Config struct {
	Dir     string   // the module directory go test runs in
	Killers []Killer // cheapest first
	Workers int      // mutants run at once (default 1)
	// Timeout of one killer on a mutant is TimeoutFactor × the killer's baseline time, at
	// least MinTimeout (defaults 10 and 30 s): a mutant that loops forever is timed out.
	TimeoutFactor float64
	MinTimeout    time.Duration
	// Equivalence are the killers run on a mutant that survived Killers (the exhaustive
	// domain of its function; slower): passing them all makes it Equivalent, failing one
	// makes it Killed with Gap set.
	Equivalence []Killer
	// EquivalenceTimeout bounds each equivalence killer's run on a mutant (default 1 hour);
	// past it the mutant is TimedOut.
	EquivalenceTimeout time.Duration
	// Matrix runs every killer on every mutant (the kill matrix) instead of stopping at the
	// first that kills it.
	Matrix bool
	// Progress, if set, is called after each mutant (from one goroutine at a time).
	Progress func(done, total int, r Result)
}

// Baseline builds each killer's test binary from the unmutated tree and runs it, returning
// the run times (builds not included). A killer that does not build, fails or runs no test
// there stops the run: its error names the killer and shows the output's last lines.
func Baseline(ctx context.Context, cfg Config) ([]time.Duration, error) {
	tmp, err := os.MkdirTemp("", "difffuzz-mutate-base-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := make([]time.Duration, len(cfg.Killers))
	bins := map[string]string{}
	for i, k := range cfg.Killers {
		bin, ok := bins[k.binKey()]
		if !ok {
			bin = filepath.Join(tmp, fmt.Sprintf("%d.test", i))
			b, err := goBuild(ctx, cfg.Dir, k, "", bin)
			if err != nil {
				return nil, fmt.Errorf("killer %s: %v", k.Name, err)
			}
			if b.failed {
				return nil, fmt.Errorf("killer %s: its package does not build without any mutant%s", k.Name, tail(b.lines))
			}
			bins[k.binKey()] = bin
		}
		start := time.Now()
		r, err := runTests(ctx, cfg.Dir, k, bin)
		out[i] = time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("killer %s: %v", k.Name, err)
		}
		if r.failed {
			return nil, fmt.Errorf("killer %s fails without any mutant%s", k.Name, tail(r.lines))
		}
		if r.passed == 0 {
			return nil, fmt.Errorf("killer %s runs no test (-test.run %q in %s)", k.Name, k.Run, k.Pkg)
		}
	}
	return out, nil
}

// Run applies each mutant of src (the source of the file the mutants were made from, at path
// file relative to cfg.Dir or absolute) through an overlay and runs the killers in order until
// one fails; baseline is Baseline's result. The file on disk is never written. Results are in
// the mutants' order.
func Run(ctx context.Context, cfg Config, file string, src []byte, mutants []Mutant, baseline []time.Duration) ([]Result, error) {
	abs, err := filepath.Abs(filepath.Join(cfg.Dir, file))
	if filepath.IsAbs(file) {
		abs = file
	}
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "difffuzz-mutate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	workers := max(cfg.Workers, 1)
	factor := cfg.TimeoutFactor
	if factor <= 0 {
		factor = 10
	}
	floor := cfg.MinTimeout
	if floor <= 0 {
		floor = 30 * time.Second
	}
	results := make([]Result, len(mutants))
	jobs := make(chan int)
	var mu sync.Mutex
	var firstErr error
	done := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				r, err := runOne(ctx, cfg, tmp, abs, src, mutants[i], baseline, factor, floor)
				mu.Lock()
				results[i] = r
				if err != nil && firstErr == nil {
					firstErr = err
				}
				done++
				if cfg.Progress != nil && err == nil {
					cfg.Progress(done, len(mutants), r)
				}
				mu.Unlock()
			}
		})
	}
feed:
	for i := range mutants {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	return results, firstErr
}

// runOne writes mutant m of src and its overlay under tmp and runs the killers on it.
func runOne(ctx context.Context, cfg Config, tmp, abs string, src []byte, m Mutant, baseline []time.Duration, factor float64, floor time.Duration) (r Result, err error) {
	r = Result{Mutant: m, Outcome: Survived}
	dir := filepath.Join(tmp, fmt.Sprint(m.ID))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err
	}
	defer os.RemoveAll(dir) // its test binaries: tens of MB each
	mutated := filepath.Join(dir, filepath.Base(abs))
	if err := os.WriteFile(mutated, m.Apply(src), 0o644); err != nil {
		return r, err
	}
	overlay := filepath.Join(dir, "overlay.json")
	ov, _ := json.Marshal(map[string]map[string]string{"Replace": {abs: mutated}})
	if err := os.WriteFile(overlay, ov, 0o644); err != nil {
		return r, err
	}
	start := time.Now()
	defer func() { r.Elapsed = time.Since(start) }()
	bins := map[string]string{}
	for i, k := range cfg.Killers {
		bin, ok := bins[k.binKey()]
		if !ok {
			bin = filepath.Join(dir, fmt.Sprintf("%d.test", i))
			b, err := goBuild(ctx, cfg.Dir, k, overlay, bin)
			switch {
			case ctx.Err() != nil:
				return r, ctx.Err()
			case err != nil:
				return r, fmt.Errorf("mutant %d, killer %s: %v", m.ID, k.Name, err)
			case b.failed:
				r.Outcome, r.Detail = NotViable, firstCompileError(b.lines)
				return r, nil
			}
			bins[k.binKey()] = bin
		}
		t, timedOut, err := runWithin(ctx, max(time.Duration(float64(baseline[i])*factor), floor), cfg.Dir, k, bin)
		switch {
		case ctx.Err() != nil:
			return r, ctx.Err()
		case timedOut:
			r.note(cfg, k.Name, "timed-out")
			if r.Outcome == Survived {
				r.Outcome, r.KilledBy = TimedOut, k.Name
			}
		case err != nil:
			return r, fmt.Errorf("mutant %d, killer %s: %v", m.ID, k.Name, err)
		case t.failed:
			r.note(cfg, k.Name, "killed")
			if r.Outcome != Killed {
				r.Outcome, r.KilledBy, r.Test = Killed, k.Name, t.test
			}
		default:
			r.note(cfg, k.Name, "passed")
		}
		if r.Outcome != Survived && !cfg.Matrix {
			return r, nil
		}
	}
	if r.Outcome != Survived {
		return r, nil
	}
	var domains []string
	for i, k := range cfg.Equivalence {
		bin := filepath.Join(dir, fmt.Sprintf("eq%d.test", i))
		b, err := goBuild(ctx, cfg.Dir, k, overlay, bin)
		switch {
		case ctx.Err() != nil:
			return r, ctx.Err()
		case err != nil:
			return r, fmt.Errorf("mutant %d, equivalence killer %s: %v", m.ID, k.Name, err)
		case b.failed:
			return r, fmt.Errorf("mutant %d: built for the killers but not for equivalence killer %s%s", m.ID, k.Name, tail(b.lines))
		}
		limit := cfg.EquivalenceTimeout
		if limit <= 0 {
			limit = time.Hour
		}
		t, timedOut, err := runWithin(ctx, limit, cfg.Dir, k, bin)
		switch {
		case ctx.Err() != nil:
			return r, ctx.Err()
		case timedOut:
			r.note(cfg, k.Name, "timed-out")
			r.Outcome, r.KilledBy = TimedOut, k.Name
			return r, nil
		case err != nil:
			return r, fmt.Errorf("mutant %d, equivalence killer %s: %v", m.ID, k.Name, err)
		case t.failed:
			r.note(cfg, k.Name, "killed")
			r.Outcome, r.KilledBy, r.Test, r.Gap = Killed, k.Name, t.test, true
			r.Detail = failureLines(t.lines)
			return r, nil
		}
		r.note(cfg, k.Name, "passed")
		domains = append(domains, k.Domain)
	}
	if len(cfg.Equivalence) > 0 {
		r.Outcome, r.Domain = Equivalent, strings.Join(domains, "; ")
	}
	return r, nil
}

// failureLines are the first lines a failing test printed (where a differential test says
// which input differs): those between the first "--- FAIL" line and the "=== RUN" line before
// it, at most 6, trimmed.
func failureLines(lines []string) string {
	end := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "--- FAIL") })
	if end < 0 {
		end = len(lines)
	}
	start := 0
	for i := end - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "=== ") {
			start = i + 1
			break
		}
	}
	var out []string
	for _, l := range lines[start:end] {
		if l = strings.TrimSpace(l); l != "" && len(out) < 6 {
			out = append(out, l)
		}
	}
	return strings.Join(out, " | ")
}

// note records killer's verdict in r's kill matrix when cfg asks for one.
func (r *Result) note(cfg Config, killer, verdict string) {
	if !cfg.Matrix {
		return
	}
	if r.Matrix == nil {
		r.Matrix = map[string]string{}
	}
	r.Matrix[killer] = verdict
}

// outcome is what a build or a test run said.
type outcome struct {
	failed bool     // the build failed, or a test failed (or the binary crashed)
	test   string   // the first failing test
	passed int      // top-level tests that passed
	lines  []string // the output's lines (a build's, or the last ones of a run)
}

// tail is the last lines of out, indented, for an error message.
func tail(lines []string) string {
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	if len(lines) == 0 {
		return ""
	}
	return ":\n\t" + strings.Join(lines, "\n\t")
}

// firstCompileError is the first line of a failed build that is not a "# package" header.
func firstCompileError(lines []string) string {
	for _, l := range lines {
		if l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return strings.Join(lines, " ")
}

// goBuild builds k's test binary at out with `go test -c -json`: failed when the build failed
// (a build-fail event), with the compiler's lines. The error is for go not running, or failing
// without a build failure to show for it.
func goBuild(ctx context.Context, dir string, k Killer, overlay, out string) (outcome, error) {
	cmd := exec.CommandContext(ctx, "go", k.buildArgs(overlay, out)...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var b outcome
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e struct{ Action, Output string }
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch e.Action {
		case "build-output":
			b.lines = append(b.lines, strings.TrimRight(e.Output, "\n"))
		case "build-fail":
			b.failed = true
		}
	}
	if err != nil && !b.failed && ctx.Err() == nil {
		return b, fmt.Errorf("go %s: %v: %s", strings.Join(k.buildArgs(overlay, out), " "), err, strings.TrimSpace(stderr.String()))
	}
	return b, nil
}

// runWithin is runTests bounded by limit: timedOut when the limit (not ctx) ended it.
func runWithin(ctx context.Context, limit time.Duration, dir string, k Killer, bin string) (t outcome, timedOut bool, err error) {
	kctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	t, err = runTests(kctx, dir, k, bin)
	return t, kctx.Err() == context.DeadlineExceeded && ctx.Err() == nil, err
}

// runTests runs test binary bin with k's flags in k's package directory: failed when it exits
// non-zero (a failing test, a panic, a crash), with the first failing test's name.
func runTests(ctx context.Context, dir string, k Killer, bin string) (outcome, error) {
	cmd := exec.CommandContext(ctx, bin, k.runArgs()...)
	cmd.Dir = filepath.Join(dir, k.Pkg)
	cmd.WaitDelay = 5 * time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return outcome{}, err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return outcome{}, err
	}
	var t outcome
	var window []string // the last lines, until the first failure
	frozen := false
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "--- PASS: "):
			t.passed++
		case strings.HasPrefix(l, "--- FAIL: ") && t.test == "":
			t.test, _, _ = strings.Cut(strings.TrimPrefix(l, "--- FAIL: "), " ")
		}
		if frozen {
			continue
		}
		if window = append(window, l); len(window) > 128 {
			window = window[len(window)-64:]
		}
		if strings.HasPrefix(strings.TrimSpace(l), "--- FAIL: ") {
			frozen = true // keep the first failure's output
		}
	}
	t.lines = window
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) || ctx.Err() != nil:
		t.failed = true
	default:
		return t, err
	}
	return t, nil
}
