package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/difffuzz/difffuzz/fuzz"
)

// statusEvery is how often a non-terminal gets a status line.
const statusEvery = 5 * time.Second

// newProgress draws a progress bar with an ETA when w is a terminal, and otherwise prints
// one status line every few seconds (for CI logs), counting cases.
func newProgress(w io.Writer) fuzz.Progress { return newProgressOf(w, "cases") }

// newProgressOf is newProgress counting unit ("mutants") in its status lines.
func newProgressOf(w io.Writer, unit string) fuzz.Progress {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &barProgress{w: w}
	}
	return &lineProgress{w: w, unit: unit}
}

type barProgress struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func (p *barProgress) Begin(label string, total uint64) {
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

func (p *barProgress) Advance(n uint64) { _ = p.bar.Add64(int64(n)) }

func (p *barProgress) End() { _ = p.bar.Finish() }

type lineProgress struct {
	w     io.Writer
	unit  string
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
	fmt.Fprintf(p.w, "difffuzz: %s: %.1f%% of %s %s, elapsed %s, ETA %s\n",
		p.label, 100*frac, group(p.total), p.unit, el.Round(time.Second), eta.Round(time.Second))
}

func (p *lineProgress) End() {}
