package fuzz

import (
	"context"
	"errors"

	"github.com/difffuzz/difffuzz/protocol"
)

// A line a target writes after one answer puts every later answer of the process one place
// late. When the answers after that one are all the same (utf8_decode of the bytes 80 to FF,
// each '?'), each late answer is right for its request, and the shift shows only where the
// answers change: the request before the first wrong answer is innocent. hiddenShift finds
// the request the line came after among those the process answered alike before it.

// maxRun bounds the requests of a run of alike answers kept across batches (lastAnswer.run).
const maxRun = 256

// nextLast is the lastAnswer of the running process after it answered reqs with rs (len(rs) >
// 0, rs[i] the answer to reqs[i]): the last request and its answer, and the run before it of
// requests answered alike (continuing t.lastAns's run when every answer in rs is the same as
// its answer) with the request before that run.
func (t *Target) nextLast(reqs []protocol.Request, rs []protocol.Response) lastAnswer {
	last := len(rs) - 1
	i := last
	for i > 0 && last-i < maxRun && sameAnswer(rs[i-1], rs[last]) {
		i--
	}
	var run []protocol.Request
	switch {
	case i > 0:
		run = append(run, reqs[i-1])
	case t.lastAns.client == t.client && t.lastAns.client != nil:
		if sameAnswer(t.lastAns.resp, rs[last]) {
			run = append(run, t.lastAns.run...)
		}
		run = append(run, t.lastAns.req)
	}
	fresh := len(run)
	if i > 0 {
		fresh = 0 // reqs[i-1] is appended too: cloned below
	}
	run = append(run, reqs[i:last]...)
	if n := len(run) - maxRun; n > 0 {
		run, fresh = run[n:], max(fresh-n, 0)
	}
	// One buffer for the inputs not cloned before (those of reqs).
	size := len(reqs[last].Input)
	for _, q := range run[fresh:] {
		size += len(q.Input)
	}
	buf := make([]byte, 0, size)
	for k := fresh; k < len(run); k++ {
		at := len(buf)
		buf = append(buf, run[k].Input...)
		run[k].Input = buf[at:len(buf):len(buf)]
	}
	q := reqs[last]
	at := len(buf)
	q.Input = append(buf, q.Input...)[at:]
	return lastAnswer{client: t.client, req: q, resp: rs[last], run: run}
}

// runBefore is the requests of the process, oldest first, that may have written the line that
// put resps[first] (an answer of batch) out of step unseen: those right before it answered as
// it was (each one place late and right for its request), the one before them, and, when they
// reach the start of batch, prior's run and prior. Only requests of batch[first]'s operation.
func runBefore(batch []Case, resps []protocol.Response, first int, prior lastAnswer) []Case {
	i := first
	for i > 0 && sameAnswer(resps[i-1], resps[first]) {
		i--
	}
	var out []Case
	switch {
	case i > 0:
		out = append(out, batch[i-1])
	case prior.client != nil:
		if sameAnswer(prior.resp, resps[first]) {
			for _, q := range prior.run {
				out = append(out, Case{Op: Op(q.Op), Input: q.Input, Flags: q.Flags})
			}
		}
		out = append(out, prior.asCase())
	}
	return sameOp(append(out, batch[i:first]...), batch[first].Op)
}

// earlierRun is the requests of the process, oldest first, answered before batch[k] that may
// have written a line read in place of its answer: the one right before it, and before that
// one, the requests answered as it was and the one before them (see runBefore). resps are the
// answers to batch (at least k of them).
func earlierRun(batch []Case, resps []protocol.Response, k int, prior lastAnswer) []Case {
	switch {
	case k > 0:
		return append(runBefore(batch, resps, k-1, prior), batch[k-1])
	case prior.client == nil:
		return nil
	}
	out := make([]Case, 0, len(prior.run)+1)
	for _, q := range prior.run {
		out = append(out, Case{Op: Op(q.Op), Input: q.Input, Flags: q.Flags})
	}
	return sameOp(append(out, prior.asCase()), batch[k].Op)
}

// sameOp is the requests at the end of cs of operation op.
func sameOp(cs []Case, op Op) []Case {
	k := len(cs)
	for k > 0 && cs[k-1].Op == op {
		k--
	}
	return cs[k:]
}

// hiddenShift looks for the request of cands (requests a process answered in a row, oldest
// first) after whose answer the target writes a line: a new process asked some of them and
// then a follow-up request twice answers the first follow-up late when the line came after
// one of them. Halving cands finds that request in about log2(len(cands)) process starts;
// probe then confirms it alone, and the finding is returned. Nil when cands has fewer than
// two requests, or the follow-up's answer alone is the same as their last one (a late answer
// would not show), or no request is found.
func (t *Target) hiddenShift(ctx context.Context, cands []Case) (*Finding, error) {
	if len(cands) < 2 {
		return nil, nil
	}
	g := t.followUp(ctx, cands[0].Op, nil)
	ref, ok := t.aloneAnswer(ctx, g)
	if !ok || ctx.Err() != nil {
		return nil, ctx.Err()
	}
	late := func(cs []Case) (bool, error) {
		reqs := make([]protocol.Request, 0, len(cs)+2)
		for _, c := range cs {
			reqs = append(reqs, c.request())
		}
		reqs = append(reqs, g.request(), g.request())
		t.extra++
		rs, err := t.askNew(ctx, reqs)
		if cerr := ctx.Err(); cerr != nil {
			return false, cerr
		}
		n := len(cs)
		return err == nil && len(rs) == n+2 && !sameAnswer(rs[n], ref) && sameAnswer(rs[n+1], ref), nil
	}
	if ok, err := late(cands); !ok || err != nil {
		return nil, err
	}
	lo, hi := 0, len(cands) // the request is one of cands[lo:hi]
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		ok, err := late(cands[lo:mid])
		if err != nil {
			return nil, err
		}
		if ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	pb, err := t.probe(ctx, cands[lo])
	if err != nil || pb == nil || pb.Kind != protocol.Malformed || pb.Index >= 0 {
		return nil, err
	}
	return targetFailure(t.Name, cands[lo], pb), nil
}

// stepCheck asks the running process, after the last case of a Check, a follow-up request twice
// (see followUp): a first answer late shows a line written after an answer that the alike
// answers after it hid and that no later answer would show (the process ends with the space).
// hiddenShift then looks for the request among the last answer's run; its finding, minimized,
// is returned. Nil when the process is in step, or none is found.
func (t *Target) stepCheck(ctx context.Context) *Finding {
	last := t.lastAns
	if t.client == nil || last.client != t.client || t.limit > 0 || ctx.Err() != nil {
		return nil // (a limit of the target explains its lines)
	}
	op := Op(last.req.Op)
	g := t.followUp(ctx, op, nil)
	ref, ok := t.aloneAnswer(ctx, g)
	if !ok || t.client != last.client || sameAnswer(ref, last.resp) {
		return nil // (a late answer would not show)
	}
	rs, err := t.do(ctx, []protocol.Request{g.request(), g.request()})
	var te *protocol.TargetError
	switch {
	case err == nil && (len(rs) < 2 || sameAnswer(rs[0], ref) || !sameAnswer(rs[1], ref)):
		return nil
	case err != nil && !(errors.As(err, &te) && te.Reason == protocol.ReasonUnasked):
		// Another failure of the follow-ups (a limit the target has, a crash): not this
		// check's to look into; the next request starts a new process.
		if t.client != nil {
			_ = t.client.Close()
			t.client = nil
			t.retired = true
		}
		return nil
	}
	if t.client != nil {
		_ = t.client.Close()
		t.client = nil
		t.retired = true // (not a failure of a campaign input, whatever hiddenShift finds)
	}
	cands := make([]Case, 0, len(last.run)+1)
	for _, q := range last.run {
		cands = append(cands, Case{Op: Op(q.Op), Input: q.Input, Flags: q.Flags})
	}
	f, _ := t.hiddenShift(ctx, sameOp(append(cands, last.asCase()), op))
	if f == nil {
		return nil
	}
	return t.minimizeFailure(ctx, f)
}
