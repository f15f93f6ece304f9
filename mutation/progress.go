package mutation

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Bar shows a run's progress over its mutants (fuzz.Progress's method set).
type Bar interface {
	Begin(label string, total uint64)
	Advance(n uint64)
	End()
}

// Progress is a run's progress lines on stderr: the start, a bar over the mutants, then the
// equivalence phase's runs and a heartbeat every two minutes. Install sets its hooks in a
// Config; End stops it after Run.
type Progress struct {
	stderr  io.Writer
	bar     Bar // from the baseline on, until the equivalence phase
	eqStart time.Time
	mu      sync.Mutex // the heartbeat and the runs' lines
	stop    chan struct{}
	beat    sync.WaitGroup
}

// NewProgress writes progress lines to stderr and advances bar over the mutants.
func NewProgress(stderr io.Writer, bar Bar) *Progress {
	return &Progress{stderr: stderr, bar: bar, stop: make(chan struct{})}
}

// Install sets cfg's Started, Progress, EquivalenceStarted and EquivalenceRun, for a run of
// total mutants in files files.
func (p *Progress) Install(cfg *Config, total, files int) {
	ks, workers := cfg.Killers, cfg.Workers
	bar := p.bar
	p.bar = nil // until the baseline has run
	cfg.Started = func(sum Summary) {
		fmt.Fprintf(p.stderr, "difffuzz: mutate: %s in %s (%d in schema builds, %d built or patched one by one); killers %s (baseline %s; traced runs %s); %d workers\n",
			plural(total, "mutant"), plural(files, "file"), sum.Schema, sum.Separate, KillerNames(ks), baselineText(ks, sum.Baseline),
			sum.Trace.Round(time.Second), workers)
		p.bar = bar
		p.bar.Begin("mutate", uint64(total))
	}
	cfg.Progress = func(done, total int, r Result) { p.bar.Advance(1) }
	cfg.EquivalenceStarted = func(n int) {
		p.bar.End()
		p.bar = nil
		p.eqStart = time.Now()
		fmt.Fprintf(p.stderr, "difffuzz: mutate: %s survived every killer: proving equivalence on the exhaustive domains (one traced run per domain and shard for all of them, then a run of its own for each one a traced run cannot decide)\n",
			plural(n, "mutant"))
		p.beat.Go(p.heartbeat)
	}
	cfg.EquivalenceRun = func(killer string, shard, shards int, took time.Duration, complete bool) {
		p.mu.Lock()
		defer p.mu.Unlock()
		state := "done"
		if !complete {
			state = "did not finish within the limit"
		}
		name := killer
		if shards > 1 {
			name = fmt.Sprintf("%s shard %d/%d", killer, shard, shards)
		}
		fmt.Fprintf(p.stderr, "difffuzz: mutate: %s %s in %s\n", name, state, took.Round(time.Second))
	}
}

// heartbeat says every two minutes that the equivalence phase still runs, until End.
func (p *Progress) heartbeat() {
	for {
		select {
		case <-p.stop:
			return
		case <-time.After(2 * time.Minute):
			p.mu.Lock()
			fmt.Fprintf(p.stderr, "difffuzz: mutate: proving equivalence, elapsed %s\n", time.Since(p.eqStart).Round(time.Second))
			p.mu.Unlock()
		}
	}
}

// End stops the heartbeat (one being written ends first) and the bar.
func (p *Progress) End() {
	close(p.stop)
	p.beat.Wait()
	if p.bar != nil {
		p.bar.End()
	}
}
