package fuzz

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/internal/phplit"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
	"github.com/difffuzz/difffuzz/protocol"
)

// TargetConfig tunes how an external target is driven.
type TargetConfig struct {
	// Timeout is the longest a request may wait for its answer (default
	// protocol.DefaultTimeout, 10 s). Until CalibrateAfter answers have been seen it is the
	// timeout; after that the timeout is 50 times the p99 of the target's answer latency,
	// at least MinTimeout and at most Timeout, so that a hang costs a fraction of a second.
	Timeout time.Duration
	// MinTimeout is the floor of the calibrated timeout (default 100 ms).
	MinTimeout time.Duration
	// CalibrateAfter is how many answers are seen before the timeout is calibrated (default
	// 1,000; negative: never, every request waits Timeout).
	CalibrateAfter int
	Window         int // pipelined requests in flight (default 1,024; at least 256 is sensible)
	MaxRestarts    int // restarts after crashes and hangs of campaign inputs before giving up (default 100)
	Batch          int // requests per Do call (default 4,096)
	// MaxFindings is how many findings per operation RunTarget keeps in its Report (default
	// 20); Sink, if set, receives every one.
	MaxFindings int
	Sink        Sink
	// Name is the short name the target's findings go by (--exec name=CMD); "" names it by
	// its command.
	Name string
	// Flag is the flag that gave the target ("" for --exec; "--reference-exec"), by which
	// what is said about it names it (Label).
	Flag string
}

// Target is an external implementation speaking target protocol v1 (DESIGN.md §6), started
// from a command line. It is a candidate like a built-in variant: findings name it by its
// command. Its methods must not be called concurrently.
//
// In a campaign (Check, RunTarget) a crash or hang is minimized as soon as it is found
// (Minimize, through single requests with the calibrated timeout), and later cases that
// contain its minimal witness, for the same operation and with at least its option bits, are
// not sent: Witnesses counts them. Cases the target said it cannot take (options= and
// max-len= in its hello) are never sent either.
type Target struct {
	Name     string // TargetConfig.Name, or the command as given to --exec
	Command  string // the command as given to --exec
	argv     []string
	cfg      TargetConfig
	client   *protocol.Client
	restarts int // restarts caused by campaign inputs (bounded by MaxRestarts)
	extra    int // restarts while minimizing a crash or hang
	ops      []Op
	caps     protocol.Capabilities

	timeout    time.Duration     // the current per-request timeout
	floor      time.Duration     // the least timeout calibration may set: MinTimeout, raised after a slow answer
	fresh      bool              // the running process has not answered yet
	good       *protocol.Request // the shortest request answered so far
	lat        [64]uint64        // answer waits: lat[k] counts waits of bits.Len64(ns) == k
	answers    uint64
	calibrated bool
	calP99     time.Duration // the p99 the last calibration used
	calAnswers uint64        // the answers it was taken over
	heard      bool          // some request was answered, by any process of the target
	silent     int           // processes that timed out before answering a single request, while !heard

	witnesses []*Witness
	unchecked jsonopt.Options // option bits of cases not sent because of options=
	slow      int             // stalls that were slow answers, not hangs (see Slow)

	served      int                // answers of the running process, its first included
	sent        []protocol.Request // the requests of the running Do (see do), answered up to sentAt
	sentAt      int
	limit       int                           // > 0: every process stops answering after limit requests (see limit.go)
	renewed     int                           // processes replaced on purpose, before they reach the limit
	last        *stall                        // the last failure of a process after an answer, for the limit test
	pending     *Finding                      // an unsolicited line not reproducible alone, held (see limitTest)
	more        []*Finding                    // further lines after answers hiddenShift found, held
	stepProbes  int                           // probes of outOfStep that showed no line after an answer
	alikeProbed bool                          // outOfStep probed a batch of alike answers once
	lastAns     lastAnswer                    // the last answer of the running process (see do)
	priorAns    lastAnswer                    // the answer before the first of do's last call, by the same process
	follow      map[Op]int                    // what alone knows of its follow-up request (followOK, ...)
	vetted      map[string]bool               // follow-up requests vetted (see vetFollowUp), by caseKey
	vetLine     map[string]bool               // ... those that failed with a line after their answer
	everyAfter  map[Op]bool                   // a line after every answer of the operation (see noteEveryAfter)
	firstOnly   map[Op]bool                   // ... of a process's first answer only (see onlyFirst)
	warmOp      Op                            // once that was found: the operation each new process is asked first (warmUp); "" before
	lineAfters  map[Op]int                    // findings of a line after an answer, by operation (see manyAfter)
	aloneRefs   map[string]*protocol.Response // answers of new processes asked one request alone (nil: none), by caseKey
	retired     bool                          // the process was ended on purpose (Retire): the next start is not a restart
	slowest     slowAnswers

	vs         *Target                      // the reference its answers are compared with (SetReference)
	isRef      bool                         // it is a reference: kept holds its answers
	kept       map[string]protocol.Response // a reference's answers, by caseKey
	bothDiffer uint64                       // answers not PHP's, as the reference's (see VersusCounts)
	noRef      uint64                       // answers not compared: the reference gave none
}

// Witness is the minimized finding of a crash or hang of a target in a campaign; NotRun counts
// the cases that were not sent because they contain it.
type Witness struct {
	Finding *Finding
	NotRun  uint64
	// line is the malformed line the target answered the witness with alone (Kind
	// target-protocol): that line in place of another answer is taken as its answer, in step
	// (see inStep), and counted in Again instead of restarting the target.
	line    string
	hasLine bool
	Again   uint64
	// also are the culprits as found whose bytes minimization changed (it makes each byte
	// the representative of its class: a crash on any 4-byte lead at the end becomes one on
	// F1) and that fail the same way under the witness's options: cases that contain one are
	// not sent either.
	also [][]byte
	// exact: found on exactly its bytes (minimization changed nothing), so clean 'a' bytes
	// are the culprit, not a stand-in for any content (see holds).
	exact bool
	// every: a line after every answer of its operation (noteEveryAfter), or after so many
	// (manyAfter): it holds every case of the operation, whatever its bytes and options.
	every bool
	// OnFalse: a crash or hang on so many escape inputs PHP answers false at a first failed
	// decoder step of one §2.2 row (manyFalse: culprits counts them by row) that it holds every
	// escape case PHP answers false at a first failed step of such a row (held), whatever its
	// bytes and options.
	OnFalse  bool
	culprits map[string]int
	held     map[string]bool
}

// StartTarget starts the target command (split by SplitCommand) and reads its hello. An
// error here (the command cannot start, no hello, another protocol version) is a usage
// error for the caller, not a finding.
func StartTarget(ctx context.Context, command string, cfg TargetConfig) (*Target, error) {
	argv, err := SplitCommand(command)
	if err != nil {
		return nil, err
	}
	if phpWithoutScript(argv) {
		return nil, fmt.Errorf("%s would read the protocol as its script: pass the adapter's path (--exec '%s adapters/php/difffuzz-target.php')", argv[0], ShellCommand(command))
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = protocol.DefaultTimeout
	}
	if cfg.MinTimeout <= 0 {
		cfg.MinTimeout = 100 * time.Millisecond
	}
	if cfg.CalibrateAfter == 0 {
		cfg.CalibrateAfter = 1000
	}
	if cfg.MaxRestarts == 0 {
		cfg.MaxRestarts = 100
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 4096
	}
	if cfg.MaxFindings <= 0 {
		cfg.MaxFindings = DefaultMaxFindings
	}
	cfg.MinTimeout = min(cfg.MinTimeout, cfg.Timeout)
	name := cfg.Name
	if name == "" {
		name = command
	}
	t := &Target{Name: name, Command: command, argv: argv, cfg: cfg, timeout: cfg.Timeout, floor: cfg.MinTimeout, follow: map[Op]int{},
		vetted: map[string]bool{}, vetLine: map[string]bool{}, everyAfter: map[Op]bool{}, firstOnly: map[Op]bool{}, lineAfters: map[Op]int{}, aloneRefs: map[string]*protocol.Response{}}
	if err := t.start(ctx); err != nil {
		return nil, err
	}
	for _, op := range t.client.Ops() {
		t.ops = append(t.ops, Op(op))
	}
	t.caps = t.client.Capabilities()
	return t, nil
}

func (t *Target) start(ctx context.Context) error {
	// The hello gets the whole Timeout (a start can be slow); the requests the current one.
	c, err := protocol.StartConfig(ctx, t.argv, protocol.Config{Timeout: t.cfg.Timeout, Window: t.cfg.Window, OnAnswer: t.observe, InStep: t.inStep})
	if err != nil {
		return err
	}
	// The first answer of a new process gets the whole Timeout too (a runtime warming up must
	// not look like a hang); observe sets the current one after it.
	t.client, t.fresh, t.served, t.retired = c, true, 0, false
	t.warmUp(c)
	return nil
}

// warmUp asks a new process, once the target is known to write a line after the first answer
// of each process (warmOp), a follow-up input of that operation, and sets its answer and the
// line aside (lineWait), so that the line is found once rather than after the first answer of
// every process. A process that fails the request or writes no line in time is left as it is:
// its next answers show what it does.
func (t *Target) warmUp(c *protocol.Client) {
	if t.warmOp == "" {
		return
	}
	if _, err := c.Do([]protocol.Request{{Op: protocol.Op(t.warmOp), Input: []byte(followInputs[0])}}); err == nil {
		c.Unasked(t.lineWait())
	}
}

// lineWait is the wait for a line after a process's first answer: the current timeout, at
// least a second (a busy machine must not leave it for the next answer), at most the whole
// Timeout.
func (t *Target) lineWait() time.Duration { return min(max(t.timeout, time.Second), t.cfg.Timeout) }

// observe records one answer's wait and, once enough were seen, recalibrates the timeout.
func (t *Target) observe(wait time.Duration) {
	t.heard = true
	t.served++
	i := t.sentAt
	t.sentAt++
	if t.fresh {
		t.fresh = false
		if t.client != nil {
			t.client.SetTimeout(t.timeout)
		}
		return // a start's first answer says nothing about the latency of the others
	}
	t.lat[bits.Len64(uint64(max(wait, 1)))]++
	t.answers++
	t.noteWait(i, wait)
	if t.cfg.CalibrateAfter < 0 || t.answers < uint64(t.cfg.CalibrateAfter) || t.answers&1023 != 0 && t.calibrated {
		return
	}
	t.calP99, t.calAnswers = t.p99(), t.answers
	d := min(max(50*t.calP99, t.floor), t.cfg.Timeout)
	t.calibrated = true
	if d != t.timeout {
		t.timeout = d
		if t.client != nil {
			t.client.SetTimeout(d)
		}
	}
}

// p99 is the 99th percentile of the answer waits seen, rounded up to a power of two
// nanoseconds.
func (t *Target) p99() time.Duration {
	var seen uint64
	for k, n := range t.lat {
		seen += n
		if seen*100 >= t.answers*99 {
			return time.Duration(uint64(1) << k)
		}
	}
	return t.cfg.Timeout
}

// Slow is how many stalls under the calibrated timeout were slow answers, not hangs: the
// request was answered when sent again alone with a longer wait (see confirmHang), or no request
// reproduced the stall alone. Each raised the calibrated timeout's floor.
func (t *Target) Slow() int { return t.slow }

// Floor is the least timeout calibration may set now, and TargetConfig.MinTimeout it started
// from: now is more once slow answers raised it (see Slow).
func (t *Target) Floor() (now, configured time.Duration) { return t.floor, t.cfg.MinTimeout }

// CanRun reports whether the target can still be started to answer a request (it has not
// used up TargetConfig.MaxRestarts).
func (t *Target) CanRun() bool { return t.client != nil || t.retired || t.restarts < t.cfg.MaxRestarts }

// Timeout says how long a request may wait now, and how that was decided: calibrated is false
// while the configured Timeout applies (p99 and answers are then those seen so far); else p99
// is the answer latency the last calibration used, over answers answers (the timeout is 50
// times it, or the floor, or the configured Timeout: see Floor), which the answers since may
// have moved.
func (t *Target) Timeout() (timeout, p99 time.Duration, answers uint64, calibrated bool) {
	if !t.calibrated {
		return t.timeout, t.p99(), t.answers, false
	}
	return t.timeout, t.calP99, t.calAnswers, true
}

// Ops lists the operations the target announced.
func (t *Target) Ops() []Op { return t.ops }

// Capabilities are what the target announced in its hello beyond its operations.
func (t *Target) Capabilities() protocol.Capabilities { return t.caps }

// Unchecked are the option bits of cases a campaign did not send because the target does not
// implement them (options= in its hello).
func (t *Target) Unchecked() jsonopt.Options { return t.unchecked }

// Label is the target as the lines said about it name it: its flag and its name
// (`--exec "branch"`, `--reference-exec "master"`).
func (t *Target) Label() string {
	flag := t.cfg.Flag
	if flag == "" {
		flag = "--exec"
	}
	return fmt.Sprintf("%s %q", flag, t.Name)
}

// Witnesses are the crash and hang witnesses found so far, in the order found.
func (t *Target) Witnesses() []*Witness { return t.witnesses }

// WitnessState is a witness as a checkpoint keeps it, so that a resumed campaign does not
// send the cases that contain it again (a crash each) and counts them as one run would.
type WitnessState struct {
	Finding       *Finding
	NotRun, Again uint64
	Line          string // the malformed line it is answered with alone (HasLine)
	HasLine       bool
	Also          [][]byte // culprits kept with it (Witness.also)
	Exact         bool     `json:",omitempty"` // found on exactly its bytes (Witness.exact)
	Every         bool     `json:",omitempty"` // a line after every answer (Witness.every)
}

// WitnessStates are the witnesses found so far as a checkpoint keeps them.
func (t *Target) WitnessStates() []WitnessState {
	out := make([]WitnessState, len(t.witnesses))
	for i, w := range t.witnesses {
		out[i] = WitnessState{Finding: w.Finding, NotRun: w.NotRun, Again: w.Again, Line: w.line, HasLine: w.hasLine,
			Also: slices.Clone(w.also), Exact: w.exact, Every: w.every}
	}
	return out
}

// RestoreWitnesses makes ws, an earlier run's witnesses as its checkpoint kept them, this
// target's witnesses (those found so far are replaced): a resumed campaign goes on as the
// interrupted one would have.
func (t *Target) RestoreWitnesses(ws []WitnessState) {
	t.witnesses = t.witnesses[:0]
	for _, w := range ws {
		t.witnesses = append(t.witnesses, &Witness{Finding: w.Finding, NotRun: w.NotRun, Again: w.Again, line: w.Line,
			hasLine: w.HasLine, also: slices.Clone(w.Also), exact: w.Exact, every: w.Every})
	}
}

// Has reports whether the target announced op.
func (t *Target) Has(op Op) bool {
	for _, o := range t.ops {
		if o == op {
			return true
		}
	}
	return false
}

// Restarts is how many times the target was restarted after a crash, hang or malformed line
// (minimizing or confirming one included; see RestartCounts).
func (t *Target) Restarts() int { return t.restarts + t.extra }

// RestartCounts are the processes started after the first: failed after a failure of a
// campaign input (bounded by TargetConfig.MaxRestarts), confirm to minimize a failure or to
// confirm what caused it (at most MaxRestarts for each), renewed replaced on purpose before
// they would stop answering (see Limit).
func (t *Target) RestartCounts() (failed, confirm, renewed int) {
	return t.restarts, t.extra, t.renewed
}

// Retire ends the running process (as Close does) so that the next request starts a new one,
// counted as renewed (RestartCounts), not as a restart after a failure: findings re-checked
// after it (minimization) are asked in another process than the one that made them, which
// shows a target whose answers change between processes (Flaky).
func (t *Target) Retire() error {
	if t.client == nil {
		return nil
	}
	err := t.Close()
	t.retired = true
	return err
}

// Close ends the target's session (closes its stdin and waits for it).
func (t *Target) Close() error {
	if t.client == nil {
		return nil
	}
	err := t.client.Close()
	t.client = nil
	return err
}

// ErrTargetGaveUp is returned when a target failed more often than TargetConfig.MaxRestarts.
var ErrTargetGaveUp = errors.New("too many restarts")

// ErrTargetSilent is returned when a target answered its hello but, in two processes, not a
// single request: it hangs on everything, or (far more often) it does not flush its standard
// output after its answers, which then never reach difffuzz. Each try cost the whole Timeout;
// going on would make every request a hang of the whole Timeout, for hours.
var ErrTargetSilent = errors.New("answered its hello but not one request")

// silence counts a process that timed out (or exited, or closed its standard output) before
// answering anything. At once, a second process gets a probe unlike the culprit (the 1-byte input "a", or "b"): when it
// is answered the hangs were real and are reported as usual; when it is not, silence gives up
// with ErrTargetSilent. Once the target has answered once, a timeout is a hang finding.
func (t *Target) silence(ctx context.Context, te *protocol.TargetError, culprit Case) error {
	if t.heard || te.Kind != protocol.TimedOut && te.Kind != protocol.Exited {
		return nil
	}
	t.silent++
	probe := Case{Op: t.ops[0], Input: []byte("a")}
	if bytes.Equal(culprit.Input, probe.Input) {
		probe.Input = []byte("b")
	}
	if err := t.ensure(ctx, true); err != nil {
		return err
	}
	if _, err := t.do(ctx, []protocol.Request{probe.request()}); err == nil {
		return nil // heard now: the culprit hangs it, not every input
	}
	_ = t.client.Close()
	t.client = nil
	if err := ctx.Err(); err != nil {
		return err
	}
	if te.Kind == protocol.Exited {
		// Every process ends its answers before the first (it exits, or closes its standard
		// output and runs on): each restart would cost a grace period, for every input.
		return fmt.Errorf("target %s: %w: each of %d processes exited or closed its standard output before its first answer (the last one asked only %s of %s; %s)",
			t.Name, ErrTargetSilent, t.silent+1, probe.Op, phplit.Quote(probe.Input), te.Status)
	}
	return fmt.Errorf("target %s: %w within %v, in %d processes (the last one asked only %s of %s): it must write each answer line and flush its standard output when it has no further request to read (target protocol v1; Python: print(..., flush=True) or PYTHONUNBUFFERED=1, C: fflush(stdout), PHP CLI: fflush(STDOUT)), unless it hangs on every input",
		t.Name, ErrTargetSilent, t.timeout, t.silent+1, probe.Op, phplit.Quote(probe.Input))
}

// ensure restarts the target if it is not running. minimizing restarts count separately and
// are bounded by MaxRestarts per witness.
func (t *Target) ensure(ctx context.Context, minimizing bool) error {
	if t.client != nil {
		return nil
	}
	switch {
	case t.retired:
		t.retired = false
		t.renewed++
	case minimizing:
		t.extra++
	default:
		if t.restarts >= t.cfg.MaxRestarts {
			return fmt.Errorf("target %s: %w: %d after failures of campaign inputs (at most %d; besides %d to minimize or confirm them)",
				t.Name, ErrTargetGaveUp, t.restarts, t.cfg.MaxRestarts, t.extra)
		}
		t.restarts++
	}
	if err := t.start(ctx); err != nil {
		return fmt.Errorf("target %s: restart failed: %v", t.Name, err)
	}
	if t.good != nil && t.holder(Case{Op: Op(t.good.Op), Input: t.good.Input, Flags: t.good.Flags}) != nil {
		t.good = nil // a witness holds it since (a line after every answer of its operation)
	}
	if t.good != nil && t.limit == 0 {
		// A new process first answers a request it answered before, with the whole Timeout,
		// so that its warming up is not taken for a hang on the next case (nor a hang on the
		// next case made to cost the whole Timeout). If it cannot, the next case gets the
		// whole Timeout instead.
		// Followed by two follow-up requests ("a" as a rule; see alone), so that a line the
		// target writes after its answer to it is not taken for the next case's answer: such
		// a request is not used again.
		g := t.followUp(ctx, Op(t.good.Op), t.good.Input)
		reqs := []protocol.Request{*t.good, g.request(), g.request()}
		if rs, err := t.client.Do(reqs); err != nil || !sameAnswer(rs[1], rs[2]) {
			_ = t.client.Close()
			if err == nil {
				t.good = nil
			}
			if err := t.start(ctx); err != nil {
				return fmt.Errorf("target %s: restart failed: %v", t.Name, err)
			}
		} else {
			// (A line after the last one's answer is then the next batch's first answer:
			// outOfStep.)
			t.lastAns = lastAnswer{client: t.client, req: reqs[len(reqs)-1], resp: rs[len(rs)-1]}
		}
	}
	return nil
}

// checkStats counts what became of the cases given to check.
type checkStats struct {
	answered uint64 // sent, answered (or failed) and compared
	notRun   uint64 // not sent: they contain a crash or hang witness
	skipped  uint64 // not sent: outside the target's announced options or max-len
}

// Check sends cases to the target, pipelined in batches, and compares every answer with the
// oracle. A crash, hang or protocol violation becomes a finding naming the request that
// triggered it; the target is restarted and the remaining cases go on. A crash or hang is
// minimized at once, and later cases that contain its witness are not sent (Witnesses);
// cases the target cannot take (options=, max-len=) are not sent either. It returns the
// findings, how many cases were answered and compared, and an error only when the target
// could not be restarted (after MaxRestarts) or ctx was cancelled — the findings made so far
// are returned with it.
func (t *Target) Check(ctx context.Context, cases []Case, progress func(n int)) ([]*Finding, int, error) {
	var st checkStats
	fs, err := t.check(ctx, cases, progress, &st)
	return fs, int(st.answered), err
}

func (t *Target) check(ctx context.Context, cases []Case, progress func(n int), st *checkStats) ([]*Finding, error) {
	out, err := t.checkCases(ctx, cases, progress, st)
	return t.stamp(out), err
}

// stamp sets the command of t's findings (Finding.Command) when t goes by a short name.
func (t *Target) stamp(fs []*Finding) []*Finding {
	if t.Name == t.Command {
		return fs
	}
	for _, f := range fs {
		if f.Command == "" && f.Impl == t.Name {
			f.Command = t.Command
		}
	}
	return fs
}

func (t *Target) checkCases(ctx context.Context, cases []Case, progress func(n int), st *checkStats) ([]*Finding, error) {
	var out []*Finding
	var c Checker
	send := t.filter(cases, st, progress)
	for len(send) > 0 {
		if err := ctx.Err(); err != nil {
			return t.flushPending(out), err
		}
		if err := t.ensure(ctx, false); err != nil {
			return t.flushPending(out), err
		}
		n := min(len(send), t.cfg.Batch)
		batch := send[:n]
		reqs := make([]protocol.Request, n)
		for i, cs := range batch {
			reqs[i] = cs.request()
		}
		t.slowest.hold = true
		resps, err := t.do(ctx, reqs)
		t.slowest.hold = false
		prior := t.priorAns         // (compare may ask the target again)
		first, mark := -1, len(out) // the first answer that differs, and its findings' start
		for i := range resps {
			if i >= n {
				break
			}
			k := len(out)
			out = t.compare(ctx, &c, out, batch[i], resps[i])
			if first < 0 && len(out) > k {
				first, mark = i, k
			}
		}
		answered := len(resps)
		t.remember(batch[:min(answered, n)])
		fresh := false // a new witness
		var te *protocol.TargetError
		if err != nil && !(errors.As(err, &te) && te.Reason == protocol.ReasonUnasked) {
			// Only a line read before its request was sent, which answers out of step lead
			// to, is looked into here; failed has the rest.
			first = -1
		}
		served := t.served // (the failed process's, for failed: outOfStep may start another)
		if f, perr := t.outOfStep(ctx, &c, batch, resps, first, prior, err != nil); perr != nil {
			return t.flushPending(out), perr
		} else if f == nil {
			t.served = served
		} else {
			// The answers from first on were out of step: their findings are dropped, and
			// they are asked again (the ones that hold the new witness are not).
			out, answered, fresh, err = append(out[:mark], t.minimizeFailure(ctx, f)), first, true, nil
			t.slowest.held = nil
		}
		if err != nil {
			t.slowest.held = nil
			out, answered, fresh, err = t.failed(ctx, &c, out, batch, resps, err, prior)
			if err != nil {
				st.answered += uint64(answered)
				return t.flushPending(out), err
			}
		} else {
			out = t.flushPending(t.retimeHeld(ctx, out))
		}
		st.answered += uint64(answered)
		if progress != nil {
			progress(answered)
		}
		send = send[answered:]
		if fresh {
			send = t.filter(send, st, progress)
		}
	}
	out, _ = t.stepCheck(ctx, out)
	return t.flushPending(out), nil
}

// failed handles the failure err of a Do of batch, after the answers resps: a limit of the
// target (see limitTest), a malformed line (a finding, minimized), or a crash or hang
// (isolate finds the culprit). It returns how many cases of batch were answered or consumed,
// and whether a new witness was recorded. prior is the answer the process gave before batch.
func (t *Target) failed(ctx context.Context, c *Checker, out []*Finding, batch []Case, resps []protocol.Response, err error, prior lastAnswer) ([]*Finding, int, bool, error) {
	answered := len(resps)
	var te *protocol.TargetError
	if !errors.As(err, &te) || te.Index < 0 || te.Index >= len(batch) {
		return out, answered, false, err
	}
	if cerr := ctx.Err(); cerr != nil {
		// The run was interrupted while the target worked: nothing to blame it for (no
		// culprit to isolate; the next process, for triage, is a renewal, not a restart).
		_ = t.client.Close()
		t.client, t.retired = nil, true
		return out, answered, false, cerr
	}
	served := t.served
	_ = t.client.Close()
	t.client = nil
	culprit := batch[te.Index]
	v, f, err := t.limitTest(ctx, te, culprit, earlierRun(batch, resps, te.Index, prior), served)
	switch {
	case v == limitFound:
		return append(t.flushPending(out), f), te.Index, false, err
	case err != nil:
		return out, answered, false, err
	case v == limitKnown || v == limitHeld:
		return out, te.Index, false, nil
	case v == limitBefore:
		// The line was written after the answer to the request before the culprit, which is
		// sent again.
		return append(t.flushPending(out), t.minimizeFailure(ctx, f)), te.Index, true, nil
	case v == limitBlame:
		return append(t.flushPending(out), t.minimizeFailure(ctx, f)), te.Index + 1, true, nil
	}
	out = t.flushPending(out)
	if err := t.silence(ctx, te, culprit); err != nil {
		return out, answered, false, err
	}
	if te.Kind == protocol.Malformed || te.Kind == protocol.WrongVersion {
		// The offending line was read as the answer to this request. Minimized as a crash
		// is, its witness keeps the cases that contain it from costing a restart each (a
		// debug line printed for one byte, under every option set).
		return append(out, t.minimizeFailure(ctx, targetFailure(t.Name, culprit, te))), te.Index + 1, true, nil
	}
	// A target that buffers its answers dies or stalls after the request that caused it,
	// taking earlier answers with it: find the culprit by sending the unanswered requests one
	// at a time.
	out, f, k, err := t.isolate(ctx, c, out, batch[te.Index:], te)
	if err != nil || f == nil {
		return out, te.Index + k, false, err
	}
	return append(out, t.minimizeFailure(ctx, f)), te.Index + k, true, nil
}

// lastAnswer is a request a process answered and its answer (client: that process), with the
// requests the process answered right before it (see nextLast).
type lastAnswer struct {
	client *protocol.Client
	req    protocol.Request
	resp   protocol.Response
	// run: the requests before req whose answers were the same as resp, and the leads
	// requests before them, oldest first, at most maxRun (their inputs cloned).
	run []protocol.Request
}

// asCase is the request as a Case.
func (a lastAnswer) asCase() Case {
	return Case{Op: Op(a.req.Op), Input: a.req.Input, Flags: a.req.Flags}
}

// outOfStep tells answers thrown out of step by a line the target wrote after an answer (its
// answer twice, or another line) from answers that differ: when the first answer of a batch
// that differs, resps[first], is the answer before it again (for the batch's first answer,
// prior: the one the same process gave before the batch), or the answers after it are shifted
// (the right ones to the requests before theirs), the request before it is asked alone in a new
// process (probe); a line after its answer there is the finding returned (nil otherwise). A
// target whose answers are so alike without such a line costs a process start each time, at
// most maxStepProbes times. unasked says the batch ended on a line read before its request was
// sent: answers certainly out of step, whose last ones may all be alike (the answer to four
// requests in a row, each given twice), so alike does not count then.
func (t *Target) outOfStep(ctx context.Context, c *Checker, batch []Case, resps []protocol.Response, first int, prior lastAnswer, unasked bool) (*Finding, error) {
	if first < 0 || ctx.Err() != nil || t.stepProbes >= maxStepProbes || resps[first].Malformed {
		return nil, nil
	}
	if !unasked && alike(resps[first:]) {
		// A target that answers everything alike is not out of step; nor, as a rule, is one
		// whose answers from the first that differs are alike. But every answer written twice
		// after a run of inputs with one answer (byte 00 under 2,048 option sets) looks so
		// too: one probe per target tells them apart.
		if t.alikeProbed {
			return nil, nil
		}
		t.alikeProbed = true
	}
	var before Case
	switch {
	case first > 0 && (sameAnswer(resps[first], resps[first-1]) || shifted(c, t.Name, batch, resps, first) || interleaved(c, t.Name, batch, resps, first)):
		before = batch[first-1]
	case first == 0 && prior.client != nil && (sameAnswer(resps[0], prior.resp) || shifted(c, t.Name, batch, resps, 0) || interleaved(c, t.Name, batch, resps, 0)):
		before = prior.asCase()
	default:
		return nil, nil
	}
	pb, err := t.probe(ctx, before)
	if err != nil {
		return nil, err
	}
	if pb == nil || pb.Kind != protocol.Malformed || pb.Index >= 0 {
		// The line may have come after an earlier answer, hidden by the same answers after it.
		if f, _, err := t.hiddenShift(ctx, runBefore(batch, resps, first, prior)); f != nil || err != nil {
			return f, err
		}
		t.stepProbes++
		return nil, nil
	}
	return targetFailure(t.Name, before, pb), nil
}

// shifted reports whether answers from resps[first] on (up to 16) look out of step: at least
// two that are wrong for their own request (c's oracle) are right for one of the three before
// it. (A line written after an answer puts each later answer of the process one or more
// places late; requests with the same answer in a row hide the shift, so one place is not
// enough.)
func shifted(c *Checker, name string, batch []Case, resps []protocol.Response, first int) bool {
	late := 0
	for k := first; k < min(first+16, len(resps), len(batch)) && late < 2; k++ {
		r := resps[k]
		if r.Malformed || len(c.compareResponse(nil, name, batch[k], r)) == 0 {
			continue
		}
		for j := k - 1; j >= max(0, k-3); j-- {
			if len(c.compareResponse(nil, name, batch[j], r)) == 0 {
				late++
				break
			}
		}
	}
	return late >= 2
}

// interleaved reports whether answers from resps[first] on (up to 16) look like one line the
// target writes after its answers, the same each time, among late answers that are right for
// their own requests too (the line an answer of another input, after every answer to requests
// that are answered alike: shifted sees no late answer wrong): at least three wrong ones, all
// the same line, each but the last followed by a right one, and every right one right for the
// request before it too, as a late one may be. (A target that answers many requests in a row
// with the same wrong line has no right answer between them; one wrong under every other
// option set, JSON_HEX_TAG, has right ones that are not right for the request before.)
func interleaved(c *Checker, name string, batch []Case, resps []protocol.Response, first int) bool {
	wrong, last := 0, -1
	for k := first; k < min(first+16, len(resps), len(batch)); k++ {
		r := resps[k]
		if r.Malformed {
			continue
		}
		if len(c.compareResponse(nil, name, batch[k], r)) == 0 {
			if k > first && len(c.compareResponse(nil, name, batch[k-1], r)) != 0 {
				return false
			}
			continue
		}
		if !sameAnswer(r, resps[first]) || last == k-1 {
			return false
		}
		wrong, last = wrong+1, k
	}
	return wrong >= 3
}

// alike reports whether rs are two or more answers, all the same: those of a target that
// answers everything alike, which are not out of step.
func alike(rs []protocol.Response) bool {
	for _, r := range rs[min(1, len(rs)):] {
		if !sameAnswer(r, rs[0]) {
			return false
		}
	}
	return len(rs) > 1
}

// maxStepProbes bounds the probes outOfStep makes that show no line after an answer.
const maxStepProbes = 8

// remember keeps the shortest answered request, which a new process answers first (see one).
func (t *Target) remember(answered []Case) {
	for _, cs := range answered {
		if t.good == nil || len(cs.Input) < len(t.good.Input) {
			r := cs.request()
			r.Input = clone(r.Input)
			t.good = &r
		}
	}
}

// filter drops the cases the target cannot take and those that contain a crash or hang
// witness, counting them.
func (t *Target) filter(cases []Case, st *checkStats, progress func(n int)) []Case {
	var keep []Case
	dropped := 0
	for i, c := range cases {
		why := t.drop(c)
		if why == nil && keep == nil {
			continue // nothing dropped yet: no copy
		}
		if keep == nil {
			keep = append(make([]Case, 0, len(cases)), cases[:i]...)
		}
		if why == nil {
			keep = append(keep, c)
			continue
		}
		dropped++
		if w, ok := why.(*Witness); ok {
			w.NotRun++
			st.notRun++
		} else {
			st.skipped++
		}
	}
	if progress != nil && dropped > 0 {
		progress(dropped)
	}
	if keep == nil {
		return cases
	}
	return keep
}

// drop says why case c is not sent: a *Witness it contains, or errCannot when the target
// announced it cannot take it; nil to send it.
func (t *Target) drop(c Case) any {
	if c.Flags&^t.caps.Options != 0 || (t.caps.MaxLen > 0 && len(c.Input) > t.caps.MaxLen) {
		t.unchecked |= c.Flags &^ t.caps.Options
		return errCannot
	}
	if w := t.holder(c); w != nil {
		return w
	}
	return nil
}

// holder is a witness that holds case c, or nil.
func (t *Target) holder(c Case) *Witness {
	for _, w := range t.witnesses {
		if w.holds(c) {
			return w
		}
	}
	return nil
}

// holds reports whether case c contains the witness (contains) or is an input PHP answers
// false at a first failed step of a row w holds (OnFalse). c contains the witness when it has
// the same operation, at least its option bits, and its bytes (or a culprit kept with it,
// also). An empty witness holds only the empty input (it must not stop every input); a
// witness of clean 'a' bytes alone, which minimization leaves when the content does not
// matter, holds every input at least as long (a target that crashes or hangs on long input),
// unless it was found on exactly those bytes (exact: a target that fails on "a" itself) or is
// a line that is not an answer (minimization makes the 'b' of a target that writes one after
// "a" to "d" an 'a': the length is not the cause).
func (w *Witness) holds(c Case) bool {
	return w.OnFalse && c.Op == OpEscape && w.held[falseRow(c.Input, c.Flags)] || w.contains(c)
}

// contains is holds without the rows of OnFalse.
func (w *Witness) contains(c Case) bool {
	f := w.Finding
	if w.every {
		return f.Op == c.Op
	}
	if f.Op != c.Op || c.Flags&f.Flags != f.Flags {
		return false
	}
	for _, in := range w.also {
		if bytes.Contains(c.Input, in) {
			return true
		}
	}
	switch {
	case len(f.Input) == 0:
		return len(c.Input) == 0
	case len(bytes.Trim(f.Input, "a")) == 0 && !w.exact && f.Kind != KindTargetProtocol:
		return len(c.Input) >= len(f.Input)
	}
	return bytes.Contains(c.Input, f.Input)
}

var errCannot = errors.New("the target cannot take it")

// isolate sends cases one at a time to a restarted target until one of them fails the way
// first did (or every one in the window was answered), and reports that one. It returns how
// many cases it consumed, and the failure when one request alone reproduced it (nil when
// none did: then a finding saying so is appended instead).
func (t *Target) isolate(ctx context.Context, c *Checker, out []*Finding, cases []Case, first *protocol.TargetError) ([]*Finding, *Finding, int, error) {
	window := min(len(cases), max(t.cfg.Window, protocol.DefaultWindow))
	for i := 0; i < window; i++ {
		if err := ctx.Err(); err != nil {
			return out, nil, i, err
		}
		if err := t.ensure(ctx, false); err != nil {
			return out, nil, i, err
		}
		t.slowest.hold = true // (campaign inputs: their slow answers are the campaign's)
		resps, err := t.do(ctx, []protocol.Request{cases[i].request()})
		t.slowest.hold = false
		var te *protocol.TargetError
		if err != nil {
			if !errors.As(err, &te) {
				return out, nil, i, err
			}
			served := t.served
			_ = t.client.Close()
			t.client = nil
			if err := ctx.Err(); err != nil {
				return out, nil, i, err // cancelled, not failed
			}
			var before []Case
			if i > 0 {
				before = cases[i-1 : i]
			}
			switch v, f, err := t.limitTest(ctx, te, cases[i], before, served); {
			case v == limitFound:
				return append(out, f), nil, i, err
			case err != nil:
				return out, nil, i, err
			case v == limitKnown || v == limitHeld:
				i-- // not the culprit's fault: ask it again
				continue
			case v == limitBefore:
				return out, f, i, nil // the one before wrote the line: ask the culprit again
			case v == limitBlame:
				return out, f, i + 1, nil
			}
			if err := t.silence(ctx, te, cases[i]); err != nil {
				return out, nil, i, err
			}
			if te.Kind == protocol.TimedOut {
				if r, ok, err := t.confirmHang(ctx, cases[i], te.Timeout); err != nil {
					return out, nil, i, err
				} else if !ok {
					out = t.compare(ctx, c, out, cases[i], r) // only slow
					continue
				}
			}
			return out, targetFailure(t.Name, cases[i], te), i + 1, nil
		}
		out = t.retimeHeld(ctx, t.compare(ctx, c, out, cases[i], resps[0]))
		if i == 0 && t.last != nil && sameCase(t.last.culprit, cases[0]) {
			t.last.cleared = true // answered alone: the failure it was taken for is not its own
		}
	}
	if first.Kind == protocol.TimedOut && first.Timeout < t.cfg.Timeout {
		// Under a calibrated timeout, a stall that no request reproduces alone was a slow
		// answer (a collection, a busy machine, slow answers of a buffering target waiting
		// behind each other): double the floor instead of reporting it. A stall that keeps
		// coming back reaches the whole Timeout and is reported then. The timeout the stall
		// ran out is what counts, not the current one: the answers asked alone above may
		// have recalibrated it (up to the whole Timeout, when they were slow).
		t.floor = min(max(t.floor, 2*first.Timeout), t.cfg.Timeout)
		t.timeout = max(t.timeout, t.floor)
		if t.client != nil {
			t.client.SetTimeout(t.timeout)
		}
		t.slow++
		return out, nil, window, nil
	}
	// Sent alone, every request was answered: report the original failure where it showed.
	f := targetFailure(t.Name, cases[0], first)
	f.Detail += " (sent one at a time, each of the next " + fmt.Sprint(window) + " requests was answered: not reproducible alone)"
	return append(out, f), nil, window, nil
}

// confirmHang sends a case that timed out after waiting waited, a calibrated timeout, alone
// again, to a new process, with a longer wait: 10× waited, at least one second, at most
// TargetConfig.Timeout (a hang costs that wait once, not the whole Timeout). When it is answered
// after all, it was only slow: the answer is returned (ok false) and the calibrated timeout's
// floor is raised above the wait, so that such answers are not taken for hangs again. ok true:
// a hang (at once when it waited the whole Timeout).
func (t *Target) confirmHang(ctx context.Context, cs Case, waited time.Duration) (protocol.Response, bool, error) {
	if waited >= t.cfg.Timeout {
		return protocol.Response{}, true, nil
	}
	if err := t.ensure(ctx, true); err != nil {
		return protocol.Response{}, false, err
	}
	t.client.SetTimeout(min(max(10*waited, time.Second), t.cfg.Timeout))
	start := time.Now()
	resps, err := t.do(ctx, []protocol.Request{cs.request()})
	wait := time.Since(start)
	if err != nil {
		_ = t.client.Close()
		t.client = nil
		if cerr := ctx.Err(); cerr != nil {
			return protocol.Response{}, false, cerr
		}
		var te *protocol.TargetError
		return protocol.Response{}, errors.As(err, &te), nil
	}
	t.floor = min(max(t.floor, 4*wait), t.cfg.Timeout)
	t.timeout = max(t.timeout, t.floor)
	t.client.SetTimeout(t.timeout)
	t.slow++
	return resps[0], false, nil
}

// minimizeFailure minimizes a crash, hang or protocol violation found by one request alone
// (single requests with the current timeout; the restarts it costs do not count against
// MaxRestarts, but at most MaxRestarts of them per failure), records its witness and returns
// the minimized finding. A witness already recorded (the same operation, options and bytes)
// is not recorded twice; the culprit as found is kept with it when minimization changed its
// bytes and it fails the same way under the witness's options.
func (t *Target) minimizeFailure(ctx context.Context, f *Finding) *Finding {
	if EveryAnswer(f) && t.everyAfter[f.Op] {
		if t.firstOnly[f.Op] && t.warmOp == "" {
			// A line after the first answer of each process only: each new process is asked
			// a request first from now on (warmUp), and the cases go on. The follow-ups
			// are vetted again: every one failed for the line. (An operation with a line
			// after every answer keeps its own verdict.)
			t.warmOp, t.vetted, t.vetLine = f.Op, map[string]bool{}, map[string]bool{}
			for op, first := range t.firstOnly {
				if first {
					delete(t.everyAfter, op)
				}
			}
			return f
		}
		// A line after every answer: no input is smaller or more to blame than another, and
		// no other case of the operation is sent.
		t.witness(f).every = true
		return f
	}
	budget := t.extra + t.cfg.MaxRestarts
	check := func(op Op, _ Impl, src []byte, opts jsonopt.Options) []*Finding {
		if t.extra >= budget && t.client == nil {
			return nil // out of restarts: count it as not failing, the result still fails
		}
		return t.one(ctx, Case{Op: op, Input: src, Flags: opts}, true)
	}
	g := Minimize(f, Impl{Name: t.Name}, check)
	g.Origin = f.Origin
	if g.Minimized && ctx.Err() == nil {
		// Reproduced alone: inputs that contain it are not sent again. (One that is not
		// reproducible is a finding, not a filter.)
		n := len(t.witnesses)
		w := t.witness(g)
		if len(t.witnesses) > n {
			// (Kept once set: another finding minimized to it through clean 'a' bytes may
			// be another fault's, and must not make it hold every input.)
			w.exact = bytes.Equal(f.Input, g.Input)
			manyFalse(w, f.Input)
		}
		t.manyAfter(w, g) // (each finding: those on other inputs often minimize to one witness)
		if g.malformed != nil {
			w.line, w.hasLine = *g.malformed, true // answered alone: in place of an answer
		}
		// (contains, not holds: a culprit a row holds is kept, so that what contains it at
		// other places, "80 F4", is held too.)
		if cs := (Case{Op: g.Op, Input: f.Input, Flags: g.Flags}); !w.contains(cs) && t.failsLike(ctx, cs, g.Kind) {
			if len(t.witnesses) == n {
				manyFalse(w, f.Input) // (a new witness counted it)
			}
			w.also = append(w.also, clone(f.Input))
		}
	}
	return g
}

// manyCulprits is how many culprits of a crash or hang witness PHP answers false at a first
// failed step of one §2.2 row make the witness hold every such input (manyFalse).
const manyCulprits = 4

// manyFalse counts culprit, an input as found that a crash or hang witness w of escape holds,
// by the §2.2 row of its failed decoder steps when PHP answers it false under w's options
// and they are all of one row (onlyRow); at manyCulprits of a row, w holds every escape case
// PHP answers false at a first failed step of that row. A target that dies whenever
// json_encode would return false (a port that throws on invalid UTF-8) would otherwise cost a
// restart per byte (80..BF, C0 and C1 are 66 culprits of row 80..C1, each minimized to 80)
// until the restarts run out, and no other space checked; one row at a time, one that dies on
// some rows only is still asked the others.
func manyFalse(w *Witness, culprit []byte) {
	f := w.Finding
	if f.Op != OpEscape || f.Kind != KindTargetCrash && f.Kind != KindTargetHang {
		return
	}
	row := onlyRow(culprit, f.Flags)
	if row == "" || w.held[row] {
		return
	}
	if w.culprits == nil {
		w.culprits, w.held = map[string]int{}, map[string]bool{}
	}
	if w.culprits[row]++; w.culprits[row] >= manyCulprits {
		w.held[row], w.OnFalse = true, true
	}
}

// falseRow is the §2.2 row of the first failed decoder step when PHP answers escape of in
// under opts false (or null), else "".
func falseRow(in []byte, opts jsonopt.Options) string {
	_, spans, err := oracle.EscapeExplain(nil, in, opts)
	if err == nil || len(spans) != 1 {
		return ""
	}
	return spans[0].Exit.Row()
}

// onlyRow is the §2.2 row of every failed decoder step of in when PHP answers escape of it
// under opts false and they are all of one row ("" otherwise): a culprit that fails in two
// rows ("80 F1") does not say which one its crash was for.
func onlyRow(in []byte, opts jsonopt.Options) string {
	row := falseRow(in, opts)
	if row == "" {
		return ""
	}
	_, spans, _ := oracle.EscapeExplain(nil, in, opts&^jsonopt.InvalidUTF8Ignore|jsonopt.InvalidUTF8Substitute)
	for _, sp := range spans {
		if f := sp.Exit.Family(); f != "" && f != "valid" && f != "end" && sp.Exit.Row() != row {
			return ""
		}
	}
	return row
}

// manyLines is how many findings of a line after an answer an operation may have before no
// other case of it is sent (manyAfter).
const manyLines = 8

// manyAfter counts a finding minimized to w when w is a line after an answer (alone's
// findings); at the manyLines'th of its operation, w holds every case of it and that finding,
// g, says why: a target that writes a line after most answers (all but some inputs, or under
// an option) would otherwise be a finding, a restart and a minimization per input until the
// restarts run out, and no other operation checked.
func (t *Target) manyAfter(w *Witness, g *Finding) {
	f := w.Finding
	if f.Kind != KindTargetProtocol || !strings.HasPrefix(f.Detail, lineAfter) && !strings.HasPrefix(f.Detail, answerAgain) {
		return
	}
	t.lineAfters[f.Op]++
	if n := t.lineAfters[f.Op]; n >= manyLines && !w.every {
		w.every = true
		g.Detail += fmt.Sprintf("; %d inputs of %s have had a line after their answer%s%s request was sent", n, f.Op, manyTail, f.Op)
	}
}

// manyTail ends the detail manyAfter gives (EveryAnswer knows it).
const manyTail = ", so no other "

// witness returns the witness of g's kind, operation, options and bytes, recording g as a new
// one when there is none.
func (t *Target) witness(g *Finding) *Witness {
	for _, w := range t.witnesses {
		h := w.Finding
		if h.Kind == g.Kind && h.Op == g.Op && h.Flags == g.Flags && bytes.Equal(h.Input, g.Input) {
			return w
		}
	}
	w := &Witness{Finding: g}
	t.witnesses = append(t.witnesses, w)
	return w
}

// failsLike sends cs alone (its restarts counted as minimizing ones) and reports whether the
// target failed on it with a finding of kind k.
func (t *Target) failsLike(ctx context.Context, cs Case, k Kind) bool {
	for _, h := range t.one(ctx, cs, true) {
		if h.Kind == k {
			return true
		}
	}
	return false
}

// one sends one case alone (restarting the target if needed) and compares its answer; a crash,
// hang or malformed answer is a finding. minimizing: restarts count as extra.
func (t *Target) one(ctx context.Context, cs Case, minimizing bool) []*Finding {
	if ctx.Err() != nil || t.ensure(ctx, minimizing) != nil {
		return nil
	}
	var c Checker
	r, err := t.alone(ctx, cs)
	var te *protocol.TargetError
	if err != nil {
		if !errors.As(err, &te) {
			return nil
		}
		if t.client != nil {
			_ = t.client.Close()
			t.client = nil
		}
		if ctx.Err() != nil {
			t.retired = true // cancelled, not failed: the next process is a renewal
			return nil
		}
		return t.stamp([]*Finding{targetFailure(t.Name, cs, te)})
	}
	return t.stamp(t.compare(ctx, &c, nil, cs, r))
}

// Replay sends case cs alone, as `difffuzz repro --exec` does with a saved finding, and
// compares the answer: a crash, hang or malformed answer is a finding. Nothing is sent, and
// the error says why, when the target does not serve the operation, announced (options=,
// max-len=) that it cannot take the case, or cannot be started again.
func (t *Target) Replay(ctx context.Context, cs Case) ([]*Finding, error) {
	if !t.Has(cs.Op) {
		return nil, fmt.Errorf("it does not serve %s", cs.Op)
	}
	if cs.Flags&^t.caps.Options != 0 {
		return nil, fmt.Errorf("it announced options=%d, without option bits %d", uint32(t.caps.Options), uint32(cs.Flags&^t.caps.Options))
	}
	if t.caps.MaxLen > 0 && len(cs.Input) > t.caps.MaxLen {
		return nil, fmt.Errorf("it announced max-len=%d, and the input is %d bytes", t.caps.MaxLen, len(cs.Input))
	}
	if err := t.ensure(ctx, false); err != nil {
		return nil, err
	}
	return t.one(ctx, cs, false), nil
}

// CheckOne is the target as a CheckOne for minimization (package report): each call sends
// one request; a case the target cannot take, or that contains a crash or hang witness, is not
// sent and fails nothing. Restarts it causes count against MaxRestarts.
func (t *Target) CheckOne(ctx context.Context) CheckOne {
	return func(op Op, _ Impl, src []byte, opts jsonopt.Options) []*Finding {
		cs := Case{Op: op, Input: src, Flags: opts}
		if t.drop(cs) != nil {
			return nil // the target cannot take it, or it contains a crash or hang witness
		}
		return t.one(ctx, cs, false)
	}
}

func targetFailure(name string, cs Case, te *protocol.TargetError) *Finding {
	kind := KindTargetProtocol
	switch te.Kind {
	case protocol.Exited:
		kind = KindTargetCrash
	case protocol.TimedOut:
		kind = KindTargetHang
	}
	detail := te.Detail
	if te.Status != "" {
		detail += "; " + te.Status
	}
	if len(te.Stderr) > 0 {
		detail += "; its stderr ends with: " + strings.Join(te.Stderr, " | ")
	}
	f := &Finding{Kind: kind, Op: cs.Op, Impl: name, Input: clone(cs.Input), Flags: cs.Flags,
		Detail: detail, External: true}
	if te.Kind == protocol.Malformed && te.Index >= 0 && !strings.HasSuffix(te.Line, " bytes)") {
		line := te.Line // (not abbreviated)
		f.malformed = &line
	}
	return f
}
