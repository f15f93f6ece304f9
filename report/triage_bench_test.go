package report

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/internal/planted"
)

// collect is a fuzz.Sink that keeps every raw finding.
type collect struct {
	mu sync.Mutex
	fs []*fuzz.Finding
}

func (c *collect) Add(f *fuzz.Finding) {
	c.mu.Lock()
	c.fs = append(c.fs, f)
	c.mu.Unlock()
}

// BenchmarkTriage is the whole triage (every Add, then Classes with minimization) of the raw
// findings a candidate with eight planted faults makes in the exhaustive 1-2-byte space under
// the representative option sets and 5,000 random inputs (about 600,000 findings): the cost
// issue 32 bounds at twice what triage cost before defects were named by deviations.
func BenchmarkTriage(b *testing.B) {
	im := plantedImpl(planted.Lenient, planted.Overlong, planted.Surrogate, planted.LowerHexTag, planted.RawSlash,
		planted.UpperUnicode, planted.ControlRaw, planted.DropQuote)
	c := &collect{}
	ctx := context.Background()
	if _, err := fuzz.Exhaustive(ctx, fuzz.ExhaustiveConfig{MaxLen: 2, Impls: []fuzz.Impl{im}, OptionCombos: fuzz.RepresentativeOptions, Sink: c}); err != nil {
		b.Fatal(err)
	}
	if _, err := fuzz.Random(ctx, fuzz.RandomConfig{Impls: []fuzz.Impl{im}, Seed: 5, Count: 5000, Check: plainCheck, NoMinimize: true, Sink: c}); err != nil {
		b.Fatal(err)
	}
	recheck := func(string) (fuzz.Impl, fuzz.CheckOne, bool) { return im, fuzz.OneCheck(plainCheck), true }
	b.ReportMetric(float64(len(c.fs)), "findings")
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		// A campaign's workers give their findings to the triage as they find them (Add is
		// called from each); workers=1 is the triage alone on one core.
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			for range b.N {
				tr := New(Config{})
				var wg sync.WaitGroup
				for w := range workers {
					wg.Go(func() {
						for i := w; i < len(c.fs); i += workers {
							tr.Add(c.fs[i])
						}
					})
				}
				wg.Wait()
				if len(tr.Classes(ctx, recheck)) == 0 {
					b.Fatal("no classes")
				}
				tr.Close()
			}
		})
	}
}
