package progress

import (
	"bytes"
	"io"
	"regexp"
	"testing"
	"time"
)

// TestWholeRunProgress: the status lines of a campaign against targets give the whole run's
// share and ETA beside the current space's.
func TestWholeRunProgress(t *testing.T) {
	var w bytes.Buffer
	lp := &lineProgress{w: &w, unit: "cases"}
	p := Targets(lp, 1000)
	p.(*wholeRun).start = time.Now().Add(-10 * time.Second)
	p.Begin("t exhaustive escape", 100)
	lp.last = time.Now().Add(-time.Minute) // (a status line is due)
	p.Advance(50)
	p.End()
	want := regexp.MustCompile(`^difffuzz: t exhaustive escape: 50\.0% of 100 cases, elapsed \d+s, ETA \d+s; whole run 5% of 1,000 requests, ETA 3m10s\n$`)
	if !want.MatchString(w.String()) {
		t.Errorf("status line %q", w.String())
	}
}

// TestStatusLineAlone: a status line of a run without a whole-run plan (built-in candidates)
// is the space's alone.
func TestStatusLineAlone(t *testing.T) {
	var w bytes.Buffer
	lp := &lineProgress{w: &w, unit: "cases"}
	lp.Begin("exhaustive escape", 100)
	lp.last = time.Now().Add(-time.Minute)
	lp.Advance(50)
	if !regexp.MustCompile(`^difffuzz: exhaustive escape: 50\.0% of 100 cases, elapsed \d+s, ETA \d+s\n$`).MatchString(w.String()) {
		t.Errorf("status line %q", w.String())
	}
}

// TestBarWholeRunConcurrent: the bar of a terminal shows the whole run's progress while the
// workers advance it at once (go test -race finds a race here).
func TestBarWholeRunConcurrent(t *testing.T) {
	var w bytes.Buffer
	bp := &barProgress{w: &w}
	p := overall(bp, 4000, "exhaustive sweep", "cases")
	p.Begin("escape len 1", 4000)
	done := make(chan bool)
	for range 4 {
		go func() {
			for range 1000 {
				p.Advance(1)
			}
			done <- true
		}()
	}
	for range 4 {
		<-done
	}
	p.End()
	if got := p.(*wholeRun).done.Load(); got != 4000 {
		t.Errorf("advanced %d, want 4000", got)
	}
}

// TestWholeRunWeighted: the whole run's ETA weighs the cases done by their spaces' estimates.
func TestWholeRunWeighted(t *testing.T) {
	w := Builtins(&lineProgress{w: io.Discard}, []Span{{Cases: 900, Est: time.Second}, {Cases: 100, Est: 3 * time.Second}}).(*wholeRun)
	if got := w.share(900); got != 0.25 {
		t.Errorf("share after the first space %v, want 0.25", got)
	}
	if got := w.share(950); got != 0.625 {
		t.Errorf("share half-way through the second %v, want 0.625", got)
	}
}
