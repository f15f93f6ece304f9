// Package progress shows how far a long run is: a bar with an ETA on a terminal, else a status
// line every few seconds (for CI logs), and a whole run's share and ETA beside the current
// space's.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/report"
)

// statusEvery is how often a non-terminal gets a status line.
const statusEvery = 5 * time.Second

// New draws a progress bar with an ETA when w is a terminal, and otherwise prints one status
// line every few seconds (for CI logs), counting unit ("cases", "mutants") in them.
func New(w io.Writer, unit string) fuzz.Progress {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &barProgress{w: w}
	}
	return &lineProgress{w: w, unit: unit}
}

type barProgress struct {
	w     io.Writer
	bar   *progressbar.ProgressBar
	label string
	whole *wholeRun  // the whole run's progress, shown beside the space's (nil: none)
	mu    sync.Mutex // guards last (workers advance concurrently)
	last  time.Time
}

func (p *barProgress) Begin(label string, total uint64) {
	p.label = label
	p.bar = progressbar.NewOptions64(int64(total),
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(label),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionFullWidth(),
	)
}

func (p *barProgress) Advance(n uint64) {
	if p.whole != nil {
		p.mu.Lock()
		if time.Since(p.last) > time.Second {
			p.last = time.Now()
			p.bar.Describe(p.label + " · " + p.whole.text())
		}
		p.mu.Unlock()
	}
	_ = p.bar.Add64(int64(n))
}

func (p *barProgress) End() { _ = p.bar.Finish() }

type lineProgress struct {
	w     io.Writer
	unit  string
	whole *wholeRun // the whole run's progress, added to each status line (nil: none)
	mu    sync.Mutex
	label string
	total uint64
	done  uint64
	start time.Time
	last  time.Time
}

func (p *lineProgress) Begin(label string, total uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.label, p.total, p.done = label, total, 0
	p.start = time.Now()
	p.last = p.start
}

func (p *lineProgress) Advance(n uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	now := time.Now()
	if now.Sub(p.last) < statusEvery || p.total == 0 {
		return
	}
	p.last = now
	el := now.Sub(p.start)
	frac := float64(p.done) / float64(p.total)
	eta := time.Duration(float64(el) * (1 - frac) / frac)
	whole := ""
	if t := p.whole.text(); t != "" {
		whole = "; " + t
	}
	fmt.Fprintf(p.w, "difffuzz: %s: %.1f%% of %s %s, elapsed %s, ETA %s%s\n",
		p.label, 100*frac, report.Count(p.total), p.unit, el.Round(time.Second), eta.Round(time.Second), whole)
}

func (p *lineProgress) End() {}

// wholeRun is the progress of a whole campaign: the requests of every space it planned
// against --exec targets (campaign.PrintPlan), or the cases of every space over the built-in
// candidates (campaign.PrintBuiltinPlan), so that the status lines and the bar give the whole run's
// ETA, not only the current space's.
type wholeRun struct {
	inner fuzz.Progress
	what  string // "whole run", "exhaustive sweep"
	unit  string // "requests", "cases"
	total uint64
	// spans, if set, are the planned spaces in the order they run, whose estimates weigh the
	// cases done for the ETA (a boundary case costs far more than an exhaustive one); nil:
	// every case weighs the same.
	spans []Span
	done  atomic.Uint64
	start time.Time
}

// Span is a planned space as the whole run's progress walks it: its cases and estimated time.
type Span struct {
	Cases uint64
	Est   time.Duration
}

// Builtins wraps p, which shows the whole run's progress beside each space's: the
// cases of the built-in campaign's spaces, its ETA weighted by their estimates.
func Builtins(p fuzz.Progress, spans []Span) fuzz.Progress {
	var total uint64
	for _, s := range spans {
		total += s.Cases
	}
	w := overall(p, total, "whole run", "cases").(*wholeRun)
	w.spans = spans
	return w
}

// share is the part of the whole run done when done cases are: the estimated time of the
// spaces done and of the part of the current one done, over the whole estimate; done's
// share of the cases without spans (or estimates).
func (w *wholeRun) share(done uint64) float64 {
	cases := min(float64(done)/float64(w.total), 1)
	var all, past time.Duration
	for _, s := range w.spans {
		all += s.Est
		if done >= s.Cases {
			past += s.Est
			done -= s.Cases
		} else if done > 0 {
			past += time.Duration(float64(s.Est) * float64(done) / float64(s.Cases))
			done = 0
		}
	}
	if all <= 0 {
		return cases
	}
	return min(float64(past)/float64(all), 1)
}

// Targets wraps p, which shows the whole run's progress beside each space's: total
// requests to the --exec targets.
func Targets(p fuzz.Progress, total uint64) fuzz.Progress {
	return overall(p, total, "whole run", "requests")
}

// overall wraps p, which shows the progress of what (total cases of unit) beside each
// space's.
func overall(p fuzz.Progress, total uint64, what, unit string) fuzz.Progress {
	w := &wholeRun{inner: p, what: what, unit: unit, total: total, start: time.Now()}
	switch q := p.(type) {
	case *lineProgress:
		q.whole = w
	case *barProgress:
		q.whole = w
	}
	return w
}

func (w *wholeRun) Begin(label string, total uint64) { w.inner.Begin(label, total) }

func (w *wholeRun) Advance(n uint64) {
	w.done.Add(n)
	w.inner.Advance(n)
}

func (w *wholeRun) End() { w.inner.End() }

// text is "whole run 43% of 1,333,583 requests, ETA 5s", "" before anything is done.
func (w *wholeRun) text() string {
	if w == nil {
		return ""
	}
	done := w.done.Load()
	if done == 0 || w.total == 0 {
		return ""
	}
	frac := min(float64(done)/float64(w.total), 1)
	el := time.Since(w.start)
	eta := time.Duration(float64(el) * (1 - frac) / frac)
	if w.spans != nil {
		if f := w.share(done); f > 0 {
			eta = time.Duration(float64(el) * (1 - f) / f)
		}
	}
	return fmt.Sprintf("%s %.0f%% of %s %s, ETA %s", w.what, 100*frac, report.Count(w.total), w.unit, eta.Round(time.Second))
}
