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
	"strings"
	"sync"
	"time"
)

// Killer is one named test selection run against each mutant: `go test -count=1 -vet=off
// [-short] [-tags Tags] -run Run Pkg` in the module directory.
type Killer struct {
	Name  string // "unit", "exhaustive", ...
	Pkg   string // a package pattern, "./fast"
	Run   string // the -run regular expression ("" runs every test)
	Short bool   // pass -short
	Tags  string // build tags ("purego"), "" for none
}

// args is the go test command line of k, with the overlay file.
func (k Killer) args(overlay string) []string {
	a := []string{"test", "-json", "-count=1", "-vet=off"}
	if overlay != "" {
		a = append(a, "-overlay", overlay)
	}
	if k.Short {
		a = append(a, "-short")
	}
	if k.Tags != "" {
		a = append(a, "-tags", k.Tags)
	}
	if k.Run != "" {
		a = append(a, "-run", k.Run)
	}
	return append(a, k.Pkg)
}

// Outcome is how a mutant ended.
type Outcome string

// The outcomes of DESIGN.md §7.
const (
	Killed    Outcome = "killed"     // a killer's test failed
	Survived  Outcome = "survived"   // every killer passed
	TimedOut  Outcome = "timed-out"  // a killer ran past its timeout (counted apart from killed)
	NotViable Outcome = "not-viable" // the mutant does not compile (a build-fail event), never counted as killed
)

// Result is what the killers made of one mutant.
type Result struct {
	Mutant
	Outcome  Outcome
	KilledBy string        // the killer that killed it (or timed out), "" otherwise
	Test     string        // the first failing test, when one was named
	Detail   string        // for not viable: the compiler's first message
	Elapsed  time.Duration // the time its killers took
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
	// Progress, if set, is called after each mutant (from one goroutine at a time).
	Progress func(done, total int, r Result)
}

// Baseline runs each killer on the unmutated tree and returns its time. A killer that fails
// there stops the run: its error names the killer and the failing output's first lines.
func Baseline(ctx context.Context, cfg Config) ([]time.Duration, error) {
	out := make([]time.Duration, len(cfg.Killers))
	for i, k := range cfg.Killers {
		start := time.Now()
		ev, err := goTest(ctx, cfg.Dir, k, "")
		out[i] = time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("killer %s: %v", k.Name, err)
		}
		if ev.outcome != "" {
			return nil, fmt.Errorf("killer %s fails without any mutant (%s)%s", k.Name, ev.outcome, ev.tail())
		}
		if ev.passed == 0 {
			return nil, fmt.Errorf("killer %s runs no test (go %s)", k.Name, strings.Join(k.args(""), " "))
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
func runOne(ctx context.Context, cfg Config, tmp, abs string, src []byte, m Mutant, baseline []time.Duration, factor float64, floor time.Duration) (Result, error) {
	r := Result{Mutant: m, Outcome: Survived}
	dir := filepath.Join(tmp, fmt.Sprint(m.ID))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err
	}
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
	for i, k := range cfg.Killers {
		limit := max(time.Duration(float64(baseline[i])*factor), floor)
		kctx, cancel := context.WithTimeout(ctx, limit)
		ev, err := goTest(kctx, cfg.Dir, k, overlay)
		timedOut := kctx.Err() == context.DeadlineExceeded
		cancel()
		switch {
		case ctx.Err() != nil:
			return r, ctx.Err()
		case timedOut:
			r.Outcome, r.KilledBy = TimedOut, k.Name
			return r, nil
		case err != nil:
			return r, fmt.Errorf("mutant %d, killer %s: %v", m.ID, k.Name, err)
		case ev.outcome == NotViable:
			r.Outcome, r.Detail = NotViable, ev.firstBuildLine()
			return r, nil
		case ev.outcome == Killed:
			r.Outcome, r.KilledBy, r.Test = Killed, k.Name, ev.test
			return r, nil
		}
	}
	return r, nil
}

// testEvents is what a go test -json run said: outcome "" when it passed, Killed when a test
// (or the package) failed, NotViable on a build failure.
type testEvents struct {
	outcome Outcome
	test    string   // the first failing test
	passed  int      // tests that passed
	build   []string // build output
	output  []string // the last lines of test output
}

func (e testEvents) firstBuildLine() string {
	for _, l := range e.build {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return strings.Join(e.build, " ")
}

func (e testEvents) tail() string {
	lines := append(append([]string(nil), e.build...), e.output...)
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	if len(lines) == 0 {
		return ""
	}
	return ":\n" + strings.TrimRight(strings.Join(lines, ""), "\n")
}

// goTest runs one killer and reads its -json events. The error is for go test itself not
// running, or exiting non-zero with neither a failed test nor a build failure to show for it.
func goTest(ctx context.Context, dir string, k Killer, overlay string) (testEvents, error) {
	cmd := exec.CommandContext(ctx, "go", k.args(overlay)...)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return testEvents{}, err
	}
	if err := cmd.Start(); err != nil {
		return testEvents{}, err
	}
	var ev testEvents
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e struct {
			Action, Test, Output string
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch e.Action {
		case "build-output":
			ev.build = append(ev.build, e.Output)
		case "build-fail":
			ev.outcome = NotViable
		case "output":
			ev.output = append(ev.output, e.Output)
			if len(ev.output) > 64 {
				ev.output = ev.output[len(ev.output)-32:]
			}
		case "pass":
			if e.Test != "" {
				ev.passed++
			}
		case "fail":
			if ev.outcome == "" {
				ev.outcome, ev.test = Killed, e.Test
			}
		}
	}
	werr := cmd.Wait()
	if ctx.Err() != nil {
		return ev, nil // the caller sees its context's error
	}
	var exit *exec.ExitError
	if werr != nil && (!errors.As(werr, &exit) || ev.outcome == "") {
		if ev.outcome == "" && strings.Contains(stderr.String(), "build failed") {
			ev.outcome = NotViable
			ev.build = append(ev.build, stderr.String())
			return ev, nil
		}
		return ev, fmt.Errorf("go %s: %v: %s", strings.Join(k.args(overlay), " "), werr, strings.TrimSpace(stderr.String()))
	}
	return ev, nil
}
