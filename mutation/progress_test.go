package mutation

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// fakeBar records what a Progress does with its bar.
type fakeBar struct{ calls []string }

func (b *fakeBar) Begin(label string, total uint64) {
	b.calls = append(b.calls, fmt.Sprintf("begin %s %d", label, total))
}
func (b *fakeBar) Advance(n uint64) { b.calls = append(b.calls, fmt.Sprintf("advance %d", n)) }
func (b *fakeBar) End()             { b.calls = append(b.calls, "end") }

// The bar starts once the baseline has run, ends when the equivalence phase starts (which
// then writes a line per run), and End after it does not end it twice.
func TestProgress(t *testing.T) {
	var w strings.Builder
	bar := &fakeBar{}
	cfg := Config{Killers: DefaultKillers[:2], Workers: 3}
	p := NewProgress(&w, bar)
	p.Install(&cfg, 1234, 2)
	cfg.Started(Summary{Schema: 1200, Separate: 34, Baseline: []time.Duration{1500 * time.Microsecond, 2 * time.Second}, Trace: 61 * time.Second})
	cfg.Progress(1, 1234, Result{})
	cfg.EquivalenceStarted(5)
	cfg.EquivalenceRun("decode-domain", 1, 2, 90*time.Second, true)
	cfg.EquivalenceRun("escape-domain", 0, 1, time.Hour, false)
	p.End()
	assert.Equal(t, []string{"begin mutate 1234", "advance 1", "end"}, bar.calls)
	assert.Equal(t, `difffuzz: mutate: 1,234 mutants in 2 files (1200 in schema builds, 34 built or patched one by one); killers tables,kernel (baseline tables 2ms, kernel 2s; traced runs 1m1s); 3 workers
difffuzz: mutate: 5 mutants survived every killer: proving equivalence on the exhaustive domains (one traced run per domain and shard for all of them, then a run of its own for each one a traced run cannot decide)
difffuzz: mutate: decode-domain shard 1/2 done in 1m30s
difffuzz: mutate: escape-domain did not finish within the limit in 1h0m0s
`, w.String())

	// A run that ends before its baseline never began the bar.
	bar = &fakeBar{}
	p = NewProgress(&w, bar)
	p.Install(&cfg, 1, 1)
	p.End()
	assert.Empty(t, bar.calls)
}
