package fuzz

import (
	"bytes"
	"context"
	"errors"
	"slices"

	"github.com/difffuzz/difffuzz/internal/phplit"
	"github.com/difffuzz/difffuzz/protocol"
)

// A line a target writes after one answer puts every later answer of the process one place
// late. When the answers after that one are all the same (utf8_decode of the bytes 80 to FF,
// each '?'), each late answer is right for its request, and the shift shows only where the
// answers change: the request before the first wrong answer is innocent. hiddenShift finds
// the request the line came after among those the process answered alike before it.

// maxRun bounds the requests of a run of alike answers kept across batches (lastAnswer.run).
const maxRun = 256

// leads is how many requests before a run of alike answers it is kept with: the line that
// threw the run's answers late may have come after the one before it (the run then begins
// with the line, the same as its answers: the answer twice) or after the one before that (the
// line, another one, stood for the next request's answer).
const leads = 2

// nextLast is the lastAnswer of the running process after it answered reqs with rs (len(rs) >
// 0, rs[i] the answer to reqs[i]): the last request and its answer, and the run before it of
// requests answered alike (continuing t.lastAns's run when every answer in rs is the same as
// its answer) with the leads requests before that run.
func (t *Target) nextLast(reqs []protocol.Request, rs []protocol.Response) lastAnswer {
	last := len(rs) - 1
	i := last
	for i > 0 && last-i < maxRun && sameAnswer(rs[i-1], rs[last]) {
		i--
	}
	var run []protocol.Request // the older part: t.lastAns's, its inputs cloned before
	if i < leads && t.lastAns.client == t.client && t.lastAns.client != nil {
		h := append(slices.Clip(t.lastAns.run), t.lastAns.req)
		if i > 0 || !sameAnswer(t.lastAns.resp, rs[last]) {
			h = h[max(len(h)-(leads-i), 0):]
		}
		run = h
	}
	fresh := len(run)
	run = append(run, reqs[max(i-leads, 0):last]...)
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
// it was (each one place late and right for its request), and the leads requests before them,
// from prior's run and prior when they reach the start of batch (all of prior's run when it
// was answered alike too). Only requests of batch[first]'s operation.
func runBefore(batch []Case, resps []protocol.Response, first int, prior lastAnswer) []Case {
	i := first
	for i > 0 && sameAnswer(resps[i-1], resps[first]) {
		i--
	}
	var out []Case
	if i < leads && prior.client != nil {
		h := append(slices.Clip(prior.run), prior.req)
		if i > 0 || !sameAnswer(prior.resp, resps[first]) {
			h = h[max(len(h)-(leads-i), 0):]
		}
		for _, q := range h {
			out = append(out, Case{Op: Op(q.Op), Input: q.Input, Flags: q.Flags})
		}
	}
	return sameOp(append(out, batch[max(i-leads, 0):first]...), batch[first].Op)
}

// earlierRun is the requests of the process, oldest first, answered before batch[k] that may
// have written a line read in place of its answer: the one right before it, and before that
// one, the requests answered as it was and the leads before them (see runBefore). resps are
// the answers to batch (at least k of them).
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

// follows is how many follow-up requests hiddenShift and stepCheck ask after the requests they
// look into: the last one's answer in step, the first's late, shows up to follows-1 lines
// written after answers.
const follows = 4

// hiddenShift looks for the request of cands (requests a process answered in a row, oldest
// first) after whose answer the target writes a line (or more): a new process asked some of
// them and then a follow-up request follows times answers the first follow-up late, and the
// last in step, when the line came after one of them. Halving cands finds that request in
// about log2(len(cands)) process starts (see findShift), and its finding is returned with the
// requests of cands after it (answered late: their findings are not theirs). The requests
// after it are then looked into again, for up to maxMore further ones, whose findings are held
// (Target.more) for the batch's. Nil when cands has fewer than two requests, or the
// follow-up's answer alone is the same as their last one (a late answer would not show), or
// no request is found.
func (t *Target) hiddenShift(ctx context.Context, cands []Case) (*Finding, []Case, error) {
	if len(cands) < 2 {
		return nil, nil, nil
	}
	g := t.followUp(ctx, cands[0].Op, nil)
	ref, ok := t.aloneAnswer(ctx, g)
	if !ok || ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	f, after, err := t.findShift(ctx, cands, g, ref)
	if f == nil || err != nil {
		return nil, nil, err
	}
	// The requests after it, but those that contain a request found (a witness holds them).
	found, rest := [][]byte{f.Input}, after
	for range maxMore {
		rest = slices.DeleteFunc(slices.Clone(rest), func(c Case) bool {
			return slices.ContainsFunc(found, func(in []byte) bool { return bytes.Contains(c.Input, in) })
		})
		more, next, err := t.findShift(ctx, rest, g, ref)
		if more == nil || err != nil {
			break
		}
		found = append(found, more.Input)
		t.more = append(t.more, t.minimizeFailure(ctx, more))
		rest = next
	}
	return f, after, nil
}

// maxMore bounds the further requests hiddenShift looks for after the first.
const maxMore = 4

// findShift is hiddenShift's search of cands with the follow-up g (ref: its answer alone):
// the finding of the request the line came after, and the requests after it in cands; nil
// when none is found. A process it leaves running after its probe is ended (it may be out of
// step).
func (t *Target) findShift(ctx context.Context, cands []Case, g Case, ref protocol.Response) (*Finding, []Case, error) {
	late := func(cs []Case) ([]protocol.Response, bool, error) {
		reqs := make([]protocol.Request, 0, len(cs)+follows)
		for _, c := range cs {
			reqs = append(reqs, c.request())
		}
		for range follows {
			reqs = append(reqs, g.request())
		}
		t.extra++
		rs, err := t.askNew(ctx, reqs)
		if cerr := ctx.Err(); cerr != nil {
			return nil, false, cerr
		}
		n := len(cs)
		return rs, err == nil && len(rs) == n+follows && !sameAnswer(rs[n], ref) && sameAnswer(rs[n+follows-1], ref), nil
	}
	if len(cands) == 0 {
		return nil, nil, nil
	}
	if _, ok, err := late(cands); !ok || err != nil {
		return nil, nil, err
	}
	lo, hi := 0, len(cands) // the request is one of cands[lo:hi]
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		_, ok, err := late(cands[lo:mid])
		if err != nil {
			return nil, nil, err
		}
		if ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	culprit, after := cands[lo], cands[lo+1:]
	pb, err := t.probe(ctx, culprit)
	if t.client != nil && (err != nil || pb == nil) {
		_ = t.client.Close()
		t.client, t.retired = nil, true
	}
	switch {
	case err != nil:
		return nil, nil, err
	case pb != nil && pb.Kind == protocol.Malformed && pb.Index < 0:
		return targetFailure(t.Name, culprit, pb), after, nil
	}
	// More than one line after its answer (probe tells one): the follow-ups late show them.
	rs, ok, err := late([]Case{culprit})
	if err != nil || !ok {
		return nil, nil, err
	}
	line := string(rs[1].AppendTo(nil))
	te := &protocol.TargetError{Kind: protocol.Malformed, Target: t.Command, Index: -1, Request: culprit.request().String(), Line: line,
		Detail: t.afterDetail(phplit.Quote([]byte(line)), answerTimes(rs, ref), culprit, g)}
	return targetFailure(t.Name, culprit, te), after, nil
}

// stepCheck asks the running process, after the last case of a Check, a follow-up request
// follows times (see followUp): the first answer late and the last in step show a line
// written after an answer that the alike answers after it hid and that no later answer would
// show (the process ends with the space). hiddenShift then looks for the request among the
// last answer's run; its finding, minimized, is appended to out, and the findings in out of
// the requests after it (late answers) are replaced by those of a new process asked them
// again. A process out of step otherwise is ended (its next answers would be late). out is
// returned as it was when the process is in step, or no request is found; inStep says the
// process answered the follow-ups in step (false too when the check could not tell).
func (t *Target) stepCheck(ctx context.Context, out []*Finding) (_ []*Finding, inStep bool) {
	last := t.lastAns
	if t.client == nil || last.client != t.client || t.limit > 0 || ctx.Err() != nil {
		return out, false // (a limit of the target explains its lines)
	}
	op := Op(last.req.Op)
	g := t.followUp(ctx, op, nil)
	ref, ok := t.aloneAnswer(ctx, g)
	if !ok || t.client != last.client || sameAnswer(ref, last.resp) {
		return out, false // (a late answer would not show)
	}
	reqs := make([]protocol.Request, follows)
	for i := range reqs {
		reqs[i] = g.request()
	}
	rs, err := t.do(ctx, reqs)
	var te *protocol.TargetError
	inStep = err == nil && len(rs) == follows && sameAnswer(rs[0], ref) && sameAnswer(rs[follows-1], ref)
	lateOnes := err == nil && len(rs) == follows && !sameAnswer(rs[0], ref) && sameAnswer(rs[follows-1], ref) ||
		err != nil && errors.As(err, &te) && te.Reason == protocol.ReasonUnasked
	if inStep {
		return out, true
	}
	if t.client != nil {
		// Ended on purpose: not a failure of a campaign input, whatever hiddenShift finds.
		_ = t.client.Close()
		t.client = nil
		t.retired = true
	}
	if !lateOnes {
		return out, false // (another failure of the follow-ups, a limit or a crash, is not this check's)
	}
	cands := make([]Case, 0, len(last.run)+1)
	for _, q := range last.run {
		cands = append(cands, Case{Op: Op(q.Op), Input: q.Input, Flags: q.Flags})
	}
	f, after, _ := t.hiddenShift(ctx, sameOp(append(cands, last.asCase()), op))
	if f == nil {
		return out, false
	}
	// The findings of the requests after it were of late answers: they are asked again.
	var again []Case
	out = slices.DeleteFunc(out, func(d *Finding) bool {
		for _, c := range after {
			if d.Op == c.Op && d.Flags == c.Flags && bytes.Equal(d.Input, c.Input) {
				again = append(again, c)
				return true
			}
		}
		return false
	})
	out = append(out, t.minimizeFailure(ctx, f))
	if len(again) > 0 {
		more, _ := t.checkCases(ctx, again, nil, &checkStats{})
		out = append(out, more...)
	}
	return out, false
}
