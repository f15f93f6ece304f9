package report

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

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
// findings two candidates with eight planted faults each make in the exhaustive 1-2-byte space
// under the representative option sets and 20,000 random inputs (about a million findings,
// reported as the findings metric): the cost issue 32 bounds at twice what triage cost before
// defects were named by deviations.
func BenchmarkTriage(b *testing.B) {
	ims := []fuzz.Impl{
		plantedImpl(planted.Lenient, planted.Overlong, planted.Surrogate, planted.LowerHexTag, planted.RawSlash,
			planted.UpperUnicode, planted.ControlRaw, planted.DropQuote),
		plantedImpl(planted.Sub1A, planted.SplitBadSequence, planted.DropIgnorable, planted.TrailAnd7F,
			planted.LostAtEnd, planted.RawSlash, planted.ControlRaw, planted.FFFDNotFalse),
	}
	c := &collect{}
	ctx := context.Background()
	if _, err := fuzz.Exhaustive(ctx, fuzz.ExhaustiveConfig{Config: fuzz.Config{Impls: ims, Sink: c}, MaxLen: 2, OptionCombos: fuzz.RepresentativeOptions}); err != nil {
		b.Fatal(err)
	}
	if _, err := fuzz.Random(ctx, fuzz.RandomConfig{Config: fuzz.Config{Impls: ims, Sink: c}, Seed: 5, Count: 20000, Check: plainCheck, NoMinimize: true}); err != nil {
		b.Fatal(err)
	}
	byName := map[string]fuzz.Impl{ims[0].Name: ims[0], ims[1].Name: ims[1]}
	recheck := func(name string) (fuzz.Impl, fuzz.CheckOne, bool) {
		im, ok := byName[name]
		return im, fuzz.OneCheck(plainCheck), ok
	}
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		// A campaign's workers give their findings to the triage as they find them (Add is
		// called from each); workers=1 is the triage alone on one core.
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.ReportMetric(float64(len(c.fs)), "findings")
			cpu0 := cpuTime()
			defer func() { b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op") }()
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

// cpuTime is the CPU time the process has used (user and system, every thread, the garbage
// collector's included): on a machine shared with other work, the cost of a benchmark's loop
// is steadier in it than in wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
