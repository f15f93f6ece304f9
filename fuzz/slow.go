package fuzz

import (
	"context"
	"errors"
	"time"

	"github.com/difffuzz/difffuzz/protocol"
)

// SlowAnswer is one of a target's slowest answers: the case asked and how long its answer
// took (the wait from the previous answer, or from the request when none was pending).
type SlowAnswer struct {
	Case Case
	Wait time.Duration
}

// keepSlowest is how many of the slowest answers a Target keeps.
const keepSlowest = 3

// slowAnswers keeps the slowest answers, slowest first; a faster answer costs one comparison.
// A pipelined target that buffers its answers sends them in bursts, so the answer that waited
// is not always the request that was slow: a wait that would enter the top is only noted
// (at, the index in the running Do's requests), and the requests from there are timed one at a
// time (retime) to find the slow one. Only a campaign batch's answers are noted (hold), and
// its retime waits (held) until the batch is compared and the process found in step after it
// (retimeHeld): requests one at a time to a process that a line after an answer put out of
// step would hide the line among their answers.
type slowAnswers struct {
	top     []SlowAnswer
	at      []int        // requests of the running Do whose answer waited long, to retime
	hold    bool         // a campaign batch is asked: its slow answers are noted, and held
	held    []heldRetime // the batch's Dos with slow answers, for retimeHeld
	retimed bool         // retime is running: its answers are not noted
	bursts  int          // bursts retimed so far (at most maxRetimes: each costs a window of round trips)
}

// heldRetime is a Do of a campaign batch whose answers at the indexes at waited long (reqs:
// its requests; last: its last answer, see lastAnswer).
type heldRetime struct {
	reqs []protocol.Request
	at   []int
	last lastAnswer
}

// maxRetimes bounds the bursts a target's campaign retimes: on a busy machine a pause of a
// few ms is common, and each burst retimed is up to a window of requests asked one at a time.
const maxRetimes = 16

func (s *slowAnswers) slower(wait time.Duration) bool {
	return len(s.top) < keepSlowest || wait > s.top[keepSlowest-1].Wait
}

func (s *slowAnswers) add(r protocol.Request, wait time.Duration) {
	if !s.slower(wait) {
		return
	}
	a := SlowAnswer{Case: Case{Op: Op(r.Op), Input: clone(r.Input), Flags: r.Flags}, Wait: wait}
	i := len(s.top)
	for i > 0 && s.top[i-1].Wait < wait {
		i--
	}
	s.top = append(s.top, SlowAnswer{})
	copy(s.top[i+1:], s.top[i:])
	s.top[i] = a
	if len(s.top) > keepSlowest {
		s.top = s.top[:keepSlowest]
	}
}

// note notes that the answer to request i of the running Do waited wait.
func (t *Target) noteWait(i int, wait time.Duration) {
	s := &t.slowest
	if !s.hold || s.retimed || s.bursts >= maxRetimes || i >= len(t.sent) || t.answers < 100 || wait < t.slowOver() || !s.slower(wait) {
		return
	}
	if len(s.at) < keepSlowest {
		s.at = append(s.at, i)
	}
}

// retimeHeld runs the retimes held for the batch just compared in step (slowAnswers.held),
// once the running process is found in step after the batch's last answer (stepCheck, which
// looks for a line hidden among the alike answers before it, and appends its finding to out).
// A process not proven in step, ended or replaced, is not asked them.
func (t *Target) retimeHeld(ctx context.Context, out []*Finding) []*Finding {
	held := t.slowest.held
	t.slowest.held = nil
	if len(held) == 0 {
		return out
	}
	last := held[len(held)-1].last
	if t.client == nil || last.client != t.client || ctx.Err() != nil {
		return out
	}
	p, l := t.priorAns, t.lastAns
	t.lastAns = last
	out, inStep := t.stepCheck(ctx, out)
	if !inStep || t.client != last.client {
		return out
	}
	for _, h := range held {
		t.retime(ctx, h.reqs, h.at, h.last)
	}
	// (retime asks again through do: the batch's prior and last answers stand)
	t.priorAns = p
	if t.client == l.client {
		t.lastAns = l
	}
	return out
}

// retime times the requests of reqs from each index of at on, one at a time, until one takes
// at least the slow threshold: that one is kept among the slowest. It stops at a failure,
// which may be a line the process wrote after an answer of the batch, hidden by the alike
// answers after it: last (the batch's last answer) then says which requests to look among.
func (t *Target) retime(ctx context.Context, reqs []protocol.Request, at []int, last lastAnswer) {
	s := &t.slowest
	s.retimed = true
	defer func() { s.retimed = false }()
	for _, i := range at {
		s.bursts++
		for k := i; k < min(len(reqs), i+max(t.cfg.Window, protocol.DefaultWindow)); k++ {
			wait, err := t.timeOne(ctx, reqs[k])
			if err != nil {
				t.retimeFailed(ctx, err, last)
				return
			}
			if wait < t.slowOver() {
				continue
			}
			// Once more, so that a hiccup of the machine is not taken for the slow one.
			again, err := t.timeOne(ctx, reqs[k])
			if err != nil {
				t.retimeFailed(ctx, err, last)
				return
			}
			if wait = min(wait, again); wait >= t.slowOver() {
				s.add(reqs[k], wait)
				break
			}
		}
	}
}

// retimeFailed looks into the failure err of a request retime asked again: a line the process
// wrote that no request asked for, which is not retime's request's (answered before), but a
// line after an answer of the batch that the alike answers after it hid (hiddenShift, among
// last's run). Its finding is held (Target.pending) for the batch's findings: killed with the
// process, it would be lost.
func (t *Target) retimeFailed(ctx context.Context, err error, last lastAnswer) {
	var te *protocol.TargetError
	if !errors.As(err, &te) || te.Kind != protocol.Malformed || t.pending != nil || last.client == nil || ctx.Err() != nil {
		return
	}
	cands := make([]Case, 0, len(last.run)+1)
	for _, q := range last.run {
		cands = append(cands, Case{Op: Op(q.Op), Input: q.Input, Flags: q.Flags})
	}
	if f, _, _ := t.hiddenShift(ctx, sameOp(append(cands, last.asCase()), Op(last.req.Op))); f != nil {
		t.pending = t.minimizeFailure(ctx, f)
	}
}

// slowOver is the wait from which an answer is slow: 2^slowFactor times the median answer
// wait, rounded up to a power of two, and at least 2^slowFloorLog ns.
func (t *Target) slowOver() time.Duration {
	_, e := t.median()
	return time.Duration(uint64(1) << max(e+slowFactor, slowFloorLog))
}

// median is the median answer wait rounded up to a power of two, and its log2.
func (t *Target) median() (time.Duration, int) {
	var seen uint64
	for k, c := range t.lat {
		seen += c
		if 2*seen >= t.answers {
			return time.Duration(uint64(1) << k), k
		}
	}
	return 0, 0
}

// slowFactor and slowFloorLog say when an answer is slow (SlowAnswers): it took at least
// 2^slowFactor times the median answer's wait (rounded up to a power of two), and at least
// 2^slowFloorLog ns (about 4 ms), so that a hiccup of a busy machine (a pause of a ms or two,
// twice in a row) on a fast target is not one.
const (
	slowFactor   = 6
	slowFloorLog = 22
)

// SlowAnswers says which answers of the campaign took far longer than the others, even
// though none timed out: n answers took at least over (64 times the median answer wait,
// rounded up to a power of two, and at least about 4 ms); slowest are the slowest answers
// among them (at most 3, slowest first). n is 0 when no answer was that slow. A process's
// first answer (its start) is not counted.
func (t *Target) SlowAnswers() (n uint64, over, median time.Duration, slowest []SlowAnswer) {
	if t.answers == 0 {
		return 0, 0, 0, nil
	}
	median, med := t.median()
	e := max(med+slowFactor, slowFloorLog)
	over = time.Duration(uint64(1) << e)
	for k := e + 1; k < len(t.lat); k++ {
		n += t.lat[k] // waits of bits.Len64 == k are at least 2^(k-1) >= over
	}
	for _, a := range t.slowest.top {
		if a.Wait >= over {
			slowest = append(slowest, a)
		}
	}
	return n, over, median, slowest
}

// timeOne is how long the running process takes to answer r alone.
// A failure ends the process (the request was answered before: the campaign's own
// requests find out what it was).
func (t *Target) timeOne(ctx context.Context, r protocol.Request) (time.Duration, error) {
	start := time.Now()
	_, err := t.do(ctx, []protocol.Request{r})
	if err != nil && t.client != nil {
		t.client.Kill()
		t.client = nil
	}
	return time.Since(start), err
}
