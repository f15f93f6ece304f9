package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/difffuzz/difffuzz/campaign"
	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/internal/planted"
	"github.com/difffuzz/difffuzz/report"
	"github.com/stretchr/testify/assert"
)

// TestPlanPrinted: a campaign against a target says first each space's size and the whole
// run's estimate, and the sizes add up to the requests the summary table counts.
func TestPlanPrinted(t *testing.T) {
	code, out, errs := runArgs(t, "", "--exec", planted.Command(os.Args[0]), "--exhaustive", "--max-len", "1", "--ops", "escape,utf8_decode")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	rows := regexp.MustCompile(`(?m)^difffuzz:   exhaustive (escape|utf8_decode) +len (\d)[^\n]* ([0-9,]+) requests  about `).FindAllStringSubmatch(errs, -1)
	whole := regexp.MustCompile(`(?m)^difffuzz:   the whole run +([0-9,]+) requests  about [^\n]*\(calibrated on [0-9,]+ requests in `).FindStringSubmatch(errs)
	if len(rows) != 2 || whole == nil {
		t.Fatalf("want 2 spaces and the whole run in the plan:\n%s", errs)
	}
	var sum uint64
	for _, r := range rows {
		n, _ := strconv.ParseUint(strings.ReplaceAll(r[3], ",", ""), 10, 64)
		sum += n
	}
	if got := report.Count(sum); got != whole[1] || !strings.Contains(out, "cases compared") || !strings.Contains(out, whole[1]+" cases compared") {
		t.Errorf("the spaces add up to %s, the whole run says %s; the summary:\n%s", got, whole[1], out)
	}
}

// TestPlanLongRun: a run estimated past an hour says so and how to shard it, before it starts.
func TestPlanLongRun(t *testing.T) {
	tg, err := fuzz.StartTarget(context.Background(), planted.Command(os.Args[0]), fuzz.TargetConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ps := []campaign.Part{{Name: "exhaustive", Space: campaign.Exhaustive{S: &campaign.Scope{Ops: []fuzz.Op{fuzz.OpEscape}, MaxLen: 4}}}}
	var w bytes.Buffer
	total, err := campaign.PrintPlan(context.Background(), ps, []*fuzz.Target{tg}, &w)
	if err != nil || total < 1<<32 || !regexp.MustCompile(`difffuzz: this run is estimated at \d+h\d\dm, over an hour: split it between machines with --shard K/\d+ \(K = 0\.\.\d+; about \d+m\d+s each`).MatchString(w.String()) {
		t.Errorf("total %d, plan:\n%s", total, w.String())
	}
}

// TestInterruptMinimizes: the first interrupt stops the campaign and still minimizes what it
// found; a second skips minimizing (the classes keep their findings as found).
func TestInterruptMinimizes(t *testing.T) {
	for _, twice := range []bool{false, true} {
		soft, cancelSoft := context.WithCancel(context.Background())
		hard, cancelHard := context.WithCancel(context.Background())
		ctx := context.WithValue(soft, hardStopKey{}, hard)
		// A target that answers "" to everything (wrong for every input) and writes its
		// answer count to mark every 500 answers. The interrupt comes 2,000 answers after
		// the random space began (its line on stderr), so there are findings to minimize
		// however slow or busy the machine (-race): the plan's calibration before it takes
		// 2,020 answers on an idle machine but 5,500-6,500 on a busy one, where answers seem
		// slow and are timed again one at a time (slow.go), so no fixed count is past it.
		mark := filepath.Join(t.TempDir(), "mark")
		target := `sh -c 'echo difffuzz-target 1 escape; i=0; while read l; do echo 2222 0; i=$((i+1)); if [ $((i % 500)) = 0 ]; then echo $i > ` + mark + `; fi; done'`
		answers := func() int {
			b, _ := os.ReadFile(mark)
			n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			return n
		}
		errb := &lockedBuffer{}
		go func() {
			base := -1
			for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				if base < 0 && strings.Contains(errb.String(), "difffuzz: random: seed 1") {
					base = answers()
				}
				if base >= 0 && answers() >= base+2000 {
					break
				}
			}
			cancelSoft()
			if twice {
				cancelHard()
			}
		}()
		var out bytes.Buffer
		code := run(ctx, []string{"--exec", target, "--random", "100000000x", "--seed", "1"}, strings.NewReader(""), &out, errb)
		cancelSoft()
		cancelHard()
		minimal := strings.Contains(out.String(), "   minimal")
		if code != 1 || minimal == twice || strings.Contains(errb.String(), "interrupted: minimizing what was found") == twice {
			t.Errorf("interrupted twice=%v: exit %d, minimal witness %v\n%s\n%s", twice, code, minimal, out.String(), errb.String())
		}
		// The interrupt cut the target's batch short: that is no crash of the target.
		assert.NotContains(t, errb.String(), "after a crash, hang or malformed line", "interrupted twice=%v", twice)
		// Nor is decode, which the target does not serve, a space the run did not begin.
		assert.NotContains(t, errb.String(), "random decode", "interrupted twice=%v", twice)
	}
}

// lockedBuffer is a bytes.Buffer that a run writes while a test goroutine reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
