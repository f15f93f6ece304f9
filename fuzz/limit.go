package fuzz

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/internal/phplit"
	"github.com/difffuzz/difffuzz/protocol"
)

// A target may stop answering after the same number of requests in every process, whatever
// it is asked: a hang, an exit or an unsolicited line after its N-th answer (a leak, a
// request counter, a debug line). Blaming the request it stopped at would blame innocent
// inputs, one restart (and, for a hang, one whole timeout) each. So each failure of a process
// that had answered something is remembered (stall); when a later process fails the same way
// after about as many answers, on another request, and both requests were answered when asked
// first in a new process, the target has a limit: one finding says so (limitFinding), and from
// then on each process is replaced before it reaches the limit (do), so the rest of the
// campaign runs and is checked.

// stall is a failure of a process after at least one answer, kept for the limit test.
type stall struct {
	kind    protocol.FailureKind
	served  int    // answers the process had given
	line    string // the offending line (Malformed)
	culprit Case   // the request it failed on
	cleared bool   // the culprit was answered when asked first in a new process
}

// limitVerdict is what limitTest made of a failure.
type limitVerdict int

const (
	limitNone   limitVerdict = iota // no limit shown: handle the failure as usual
	limitFound                      // a limit, found now: the finding says so; re-send the culprit
	limitKnown                      // the known limit (perhaps lowered): re-send the culprit, no finding
	limitBlame                      // the culprit failed again when asked first: the finding blames it
	limitHeld                       // an unsolicited line, not reproducible alone: held (t.pending); re-send the culprit
	limitBefore                     // the line follows the answer to the request before the culprit: the finding blames that one; re-send the culprit
)

// ErrTargetUnusable is returned when every process of a target writes a line that is not an
// answer before its first answer, whatever it is asked: no answer can be read.
var ErrTargetUnusable = errors.New("no answer can be read")

// limitTolerance is how far apart two failures' answer counts may be and still show one limit.
func limitTolerance(n int) int { return n / 16 }

// limitTest looks at a failure te of a process on culprit after n answers (the process is
// closed; earlier, oldest first, are requests the process answered before culprit, the last
// right before it). It may start a new process and ask it culprit first (a probe; its restart
// counts as one to confirm a failure), which it leaves running when it answered; and, for a
// line that is not an answer to a culprit answered alone, ask the request before it so (a line
// written after its answer stood for culprit's), then look among earlier for one whose line
// the same answers after it hid (hiddenShift).
func (t *Target) limitTest(ctx context.Context, te *protocol.TargetError, culprit Case, earlier []Case, n int) (limitVerdict, *Finding, error) {
	malformed := te.Kind == protocol.Malformed || te.Kind == protocol.WrongVersion
	if n == 0 {
		if !malformed || t.limit > 0 {
			return limitNone, nil, nil // silence's business (TimedOut, Exited)
		}
		return t.firstLine(ctx, te, culprit)
	}
	s := &stall{kind: te.Kind, served: n, line: te.Line, culprit: culprit}
	prev := t.last
	t.last = s
	match := t.limit > 0 || prev != nil && prev.cleared && prev.kind == s.kind && prev.line == s.line &&
		abs(prev.served-n) <= limitTolerance(max(prev.served, n)) && !sameCase(prev.culprit, culprit)
	if !match && !malformed {
		return limitNone, nil, nil // isolate asks the culprit first, and clears it (see isolate)
	}
	probe, err := t.probe(ctx, culprit)
	if err != nil {
		return limitNone, nil, err
	}
	if probe != nil {
		return limitBlame, targetFailure(t.Name, culprit, probe), nil
	}
	s.cleared = true
	switch {
	case t.limit > 0:
		t.limit = min(t.limit, n)
		return limitKnown, nil, nil
	case match && te.Kind == protocol.TimedOut:
		// Two stalls after as many answers may be slow answers (a target slow every so many
		// answers): a limit only if a new process stops there with the longer wait too.
		if stops, err := t.confirmLimit(ctx, culprit, min(prev.served, n), te.Timeout); err != nil || !stops {
			return limitNone, nil, err
		}
		fallthrough
	case match:
		t.limit = min(prev.served, n)
		t.pending = nil // the unsolicited line held was this limit's
		return limitFound, t.limitFinding(te, culprit, prev), nil
	}
	if len(earlier) > 0 && malformed {
		before := earlier[len(earlier)-1]
		pb, err := t.probe(ctx, before)
		if err != nil {
			return limitNone, nil, err
		}
		if pb != nil && pb.Kind == protocol.Malformed && pb.Index < 0 {
			return limitBefore, targetFailure(t.Name, before, pb), nil
		}
		// A line read before its request was sent may be an answer thrown out of step by a
		// line after an earlier one, hidden by the same answers after it (hiddenShift); a line
		// that is no answer would have shown at once.
		if te.Reason == protocol.ReasonUnasked {
			if f, _, err := t.hiddenShift(ctx, earlier); err != nil || f != nil {
				return limitBefore, f, err
			}
		}
	}
	// An unsolicited line on a request answered alone: a finding unless the next process
	// shows it after as many answers (a limit); held until then (flushPending).
	f := targetFailure(t.Name, culprit, te)
	f.Detail += fmt.Sprintf(" (after %d answers; asked first in a new process, the request was answered: not reproducible alone)", n)
	t.pending = f
	return limitHeld, nil, nil
}

// firstLine handles an offending line read as a process's first answer: a probe unlike the
// culprit (the 1-byte input "a", or "b") asked first in a new process tells a target that
// writes that line before every first answer (one finding, and ErrTargetUnusable) from one
// that failed on the culprit (limitNone: blamed as usual).
func (t *Target) firstLine(ctx context.Context, te *protocol.TargetError, culprit Case) (limitVerdict, *Finding, error) {
	p := Case{Op: t.ops[0], Input: []byte("a")}
	if sameCase(p, culprit) {
		p.Input = []byte("b")
	}
	probe, err := t.probe(ctx, p)
	if err != nil || probe == nil || probe.Kind != te.Kind {
		return limitNone, nil, err
	}
	f := targetFailure(t.Name, culprit, te)
	switch {
	case probe.Line == te.Line:
		f.Detail = fmt.Sprintf("writes a line that is not an answer (%s) after 0 requests in every process, whatever they ask: before its first answer (%s of %s too), so no answer can be read", lineOf(te), p.Op, phplit.Quote(p.Input))
		return limitFound, f, fmt.Errorf("target %s: %w: every process writes %s before its first answer", t.Name, ErrTargetUnusable, lineOf(te))
	case te.Reason != "" && probe.Reason == te.Reason:
		// Not one line, but the same fault in every first answer (a space after each).
		f.Detail = fmt.Sprintf("writes answers in a form that is not the protocol's (%s: %s) after 0 requests in every process, whatever they ask: from its first answer on (%s of %s too: %s), so no answer can be read", te.Reason, lineOf(te), p.Op, phplit.Quote(p.Input), lineOf(probe))
		return limitFound, f, fmt.Errorf("target %s: %w: its answers are not the protocol's (%s: %s)", t.Name, ErrTargetUnusable, te.Reason, lineOf(te))
	}
	return limitNone, nil, nil
}

// probe starts a new process and asks it cs first. It returns the process's failure on cs
// (the process is then closed), or nil when cs was answered (the process runs on).
func (t *Target) probe(ctx context.Context, cs Case) (*protocol.TargetError, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if t.client != nil {
		t.client.Kill()
		t.client = nil
	}
	t.extra++
	if err := t.start(ctx); err != nil {
		return nil, fmt.Errorf("target %s: restart failed: %v", t.Name, err)
	}
	_, err := t.alone(ctx, cs)
	if err == nil {
		return nil, nil
	}
	if t.client != nil {
		_ = t.client.Close()
		t.client = nil
	}
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	var te *protocol.TargetError
	if !errors.As(err, &te) {
		return nil, err
	}
	return te, nil
}

// alone asks the running process cs, then three times a follow-up request (the 1-byte input
// "a" of cs's operation under no options as a rule, vetted; see followUp), and returns cs's
// answer. A line the target writes after its answer to cs (a debug line that is
// not an answer, the answer again, or another answer: the last two follow-ups' answers agree,
// the first's is neither theirs nor cs's) then stands where the first follow-up's answer
// should: that is a failure on cs, a *protocol.TargetError of Kind
// Malformed and Index -1 (the line is not an answer in place of one; see Witness.line) whose
// Detail says so, and the process, out of step, is closed. Before the first such verdict for
// an operation, a new process is asked the follow-up alone: when it does not answer it (a
// target whose every answer is malformed), the operation's requests are asked alone without
// follow-ups from then on. The follow-ups' own failures (a target that hangs or exits after
// some answers whatever it is asked) are not cs's: the process is closed and cs's answer
// returned.
func (t *Target) alone(ctx context.Context, cs Case) (protocol.Response, error) {
	g := t.followUp(ctx, cs.Op, cs.Input)
	reqs := []protocol.Request{cs.request(), g.request(), g.request(), g.request()}
	if t.follow[cs.Op] == followBad {
		reqs = reqs[:1]
	}
	resps, err := t.do(ctx, reqs)
	if len(resps) == 0 {
		return protocol.Response{}, err
	}
	var te *protocol.TargetError
	switch {
	case err == nil && len(resps) >= 2 && t.everyAfter[cs.Op]:
		// A line after every answer (noteEveryAfter): the second line is cs's, whatever it is
		// (an answer of another input too, which the check below cannot tell from one).
		line, times := string(resps[1].AppendTo(nil)), 0
		if sameAnswer(resps[0], resps[1]) {
			times = 2
		}
		te = &protocol.TargetError{Kind: protocol.Malformed, Target: t.Command, Index: -1, Request: reqs[0].String(), Line: line,
			Detail: t.afterDetail(phplit.Quote([]byte(line)), times, cs, g)}
	case err == nil && len(resps) == 4 && !sameAnswer(resps[0], resps[1]) && !sameAnswer(resps[1], resps[2]) && sameAnswer(resps[2], resps[3]):
		line := string(resps[1].AppendTo(nil))
		te = &protocol.TargetError{Kind: protocol.Malformed, Target: t.Command, Index: -1, Request: reqs[0].String(), Line: line,
			Detail: t.afterDetail(phplit.Quote([]byte(line)), 0, cs, g)}
	case err == nil && len(resps) == 4 && t.lateFollowUps(ctx, g, resps[1:]):
		// Two lines after cs's answer (its answer three times, as a rule): the first two
		// follow-ups' answers are not g's alone (they agree), the last one's is.
		line := string(resps[1].AppendTo(nil))
		te = &protocol.TargetError{Kind: protocol.Malformed, Target: t.Command, Index: -1, Request: reqs[0].String(), Line: line,
			Detail: t.afterDetail(phplit.Quote([]byte(line)), answerTimes(resps, resps[3]), cs, g)}
	case err == nil && (len(resps) < 3 || sameAnswer(resps[1], resps[2]) || !sameAnswer(resps[0], resps[1])):
		// (Answers to the follow-up that differ, but for a repeat of cs's answer or the
		// last two agreeing, say nothing certain of cs: a target may answer a request
		// otherwise each time.)
		return resps[0], nil
	case err == nil:
		te = &protocol.TargetError{Kind: protocol.Malformed, Target: t.Command, Index: -1, Request: reqs[0].String(), Line: string(resps[1].AppendTo(nil)), Detail: t.afterDetail("", 2, cs, g)}
	case errors.As(err, &te) && te.Kind == protocol.Malformed && len(resps) == 1:
		te = &protocol.TargetError{Kind: protocol.Malformed, Target: te.Target, Index: -1, Request: reqs[0].String(), Line: te.Line, TooLong: te.TooLong,
			Detail: t.afterDetail(lineOf(te), 0, cs, g)}
	default:
		te = nil
	}
	if t.client != nil {
		_ = t.client.Close()
		t.client = nil
	}
	if ctx.Err() != nil {
		return resps[0], ctx.Err()
	}
	if te != nil && t.follow[cs.Op] == followUnknown {
		ok, err := t.answersAlone(ctx, g)
		if err != nil {
			return resps[0], err
		}
		t.follow[cs.Op] = map[bool]int{true: followOK, false: followBad}[ok]
	}
	if te == nil || t.follow[cs.Op] != followOK {
		return resps[0], nil
	}
	return resps[0], te
}

// lateFollowUps reports whether rs, the answers to follow-up requests g in a row, are late:
// the first is not g's answer alone (aloneAnswer), the last is. It asks only when the first
// two agree (the case alone's other tests leave: a line, or lines, the same as an answer).
func (t *Target) lateFollowUps(ctx context.Context, g Case, rs []protocol.Response) bool {
	if len(rs) < 2 || !sameAnswer(rs[0], rs[1]) {
		return false
	}
	ref, ok := t.aloneAnswer(ctx, g)
	return ok && !sameAnswer(rs[0], ref) && sameAnswer(rs[len(rs)-1], ref)
}

// followUp is the request alone asks after a request of op with input in: the first of "a",
// "b", "c", "d" under no options that is not in, that no witness of the target's holds, and
// that passed vetFollowUp. When none passed (a target that writes a line after every answer,
// or ctx was cancelled), the first of "a", "b", "c" that is neither in nor held, or "a" ("b"
// for "a"), as before the check: the line after an answer is then what alone finds.
func (t *Target) followUp(ctx context.Context, op Op, in []byte) Case {
	for _, s := range followInputs {
		g := Case{Op: op, Input: []byte(s)}
		if s != string(in) && t.holder(g) == nil && t.vetFollowUp(ctx, g) {
			return g
		}
	}
	t.noteEveryAfter(ctx, op)
	for _, s := range followInputs[:3] {
		g := Case{Op: op, Input: []byte(s)}
		if s != string(in) && t.holder(g) == nil {
			return g
		}
	}
	if string(in) == "a" {
		return Case{Op: op, Input: []byte("b")}
	}
	return Case{Op: op, Input: []byte("a")}
}

// followInputs are the inputs a follow-up request may have, in the order they are tried.
var followInputs = []string{"a", "b", "c", "d"}

// vetFollowUp reports whether g may follow another request: a new process asked g and then
// another follow-up input h twice answers h both times as a new process asked h alone does,
// for two such h (a line after g's answer that is one h's answer passes with that h). A target that
// writes a line after its answer to g (its answer twice, a debug line), or that hangs, exits
// or answers otherwise on g, fails it: used as a follow-up, g would throw every later answer
// of the process out of step and make findings of innocent requests. The verdict is kept
// (each check costs one process start or two, not counted as restarts); one that ctx cut
// short is not. An h the target does not answer alone, or answers as it answered g (the check
// would say nothing), gives way to the next.
func (t *Target) vetFollowUp(ctx context.Context, g Case) bool {
	key := caseKey(g)
	if ok, done := t.vetted[key]; done {
		return ok
	}
	passed := 0
	for _, s := range followInputs {
		h := Case{Op: g.Op, Input: []byte(s)}
		if s == string(g.Input) {
			continue
		}
		ref, ok := t.aloneAnswer(ctx, h)
		if !ok {
			continue
		}
		rs, err := t.askNew(ctx, []protocol.Request{g.request(), h.request(), h.request()})
		if ctx.Err() != nil {
			return false
		}
		if err == nil && len(rs) == 3 && sameAnswer(rs[0], ref) {
			continue
		}
		if ok = err == nil && len(rs) == 3 && sameAnswer(rs[1], ref) && sameAnswer(rs[2], ref); !ok {
			t.vetted[key], t.vetLine[key] = false, lineAfterFirst(rs, err, ref)
			return false
		}
		// Passed with h; a second h must agree (a line after g's answer that is h's answer
		// would pass with that h alone).
		if passed++; passed == 2 {
			t.vetted[key] = true
			return true
		}
	}
	if ctx.Err() == nil {
		t.vetted[key] = passed > 0
	}
	return passed > 0
}

// lineAfterFirst reports whether the answers rs (and the error err) of a new process asked g
// and then h twice show a line after g's answer: a line that is not an answer in place of h's
// first, or any other line there with h's own answer (ref) after it (g's answer again, an
// answer of another input), where a target whose state g changed answers h otherwise twice.
func lineAfterFirst(rs []protocol.Response, err error, ref protocol.Response) bool {
	var te *protocol.TargetError
	if errors.As(err, &te) {
		return te.Kind == protocol.Malformed && te.Index == 1 && len(rs) == 1
	}
	return err == nil && len(rs) == 3 && !sameAnswer(rs[1], ref) && sameAnswer(rs[2], ref)
}

// noteEveryAfter records that the target writes a line after every answer of op (a debug line
// or a notice its runtime prints after each, every answer twice) when at least three follow-up
// inputs were vetted and every one failed so (vetFollowUp), and so does an input of another
// shape, é (C3 A9: two bytes, not ASCII): alone then says so of the request it finds such a
// line after, and that finding's witness holds every case of op (minimizeFailure), instead of
// a finding, a restart and a minimization for each input.
func (t *Target) noteEveryAfter(ctx context.Context, op Op) {
	n := 0
	for _, s := range followInputs {
		key := caseKey(Case{Op: op, Input: []byte(s)})
		if _, done := t.vetted[key]; !done {
			continue
		}
		if !t.vetLine[key] {
			return
		}
		n++
	}
	if n < 3 {
		return
	}
	for _, p := range everyProbes {
		other := Case{Op: op, Input: []byte(p)}
		if t.holder(other) != nil || t.vetFollowUp(ctx, other) || !t.vetLine[caseKey(other)] {
			return
		}
	}
	t.everyAfter[op] = true
	t.firstOnly[op] = t.onlyFirst(ctx, op)
}

// onlyFirst reports whether the line noteEveryAfter found after every answer of op comes
// after the first answer of a process only (a banner or notice printed once, the first answer
// twice): a new process asked the follow-up input g answers it, writes a line no request waits
// for (read as such: a banner is no answer), and then answers h, g, h, g (inputs whose answers
// alone differ) in step. A line after every answer puts the second of those out of step (h's
// again, or the line).
func (t *Target) onlyFirst(ctx context.Context, op Op) bool {
	g, h := Case{Op: op, Input: []byte(followInputs[0])}, Case{Op: op, Input: []byte(followInputs[1])}
	ga, ok1 := t.aloneAnswer(ctx, g)
	ha, ok2 := t.aloneAnswer(ctx, h)
	if !ok1 || !ok2 || sameAnswer(ga, ha) || ctx.Err() != nil {
		return false
	}
	t.extra++
	c, err := t.apart(ctx)
	if err != nil {
		return false
	}
	defer c.Kill()
	if rs, err := c.Do([]protocol.Request{g.request()}); err != nil || !sameAnswer(rs[0], ga) {
		return false
	}
	if _, ok := c.Unasked(t.lineWait()); !ok {
		return false
	}
	rs, err := c.Do([]protocol.Request{h.request(), g.request(), h.request(), g.request()})
	return err == nil && len(rs) == 4 && sameAnswer(rs[0], ha) && sameAnswer(rs[1], ga) && sameAnswer(rs[2], ha) && sameAnswer(rs[3], ga)
}

// everyProbes are the inputs noteEveryAfter asks besides the follow-up inputs: é, and 40 bytes
// of ASCII with two-, three- and four-byte characters (past a 32-byte edge).
var everyProbes = []string{"\xc3\xa9", "the quick brown \xc3\xa9 fox \xe2\x82\xac jumps \xf0\x9f\x98\x80 ok"}

// everyAnswer is in the detail of a line after every answer, and only there, firstAnswer in
// that of a line after the first answer of each process (see afterDetail).
const (
	everyAnswer = ", whatever it is asked: no other "
	firstAnswer = ", whatever it is asked: each new process is asked "
)

// EveryAnswer reports whether f says that its target writes a line after every answer of
// f.Op, or after the first answer of each process, whatever it is asked (no input is to blame
// for it: see noteEveryAfter), or after so many that no other case of f.Op was sent
// (manyAfter).
func EveryAnswer(f *Finding) bool {
	return f.External && f.Kind == KindTargetProtocol && (strings.Contains(f.Detail, everyAnswer) || strings.Contains(f.Detail, firstAnswer) ||
		strings.Contains(f.Detail, manyTail+string(f.Op)+" request was sent"))
}

// afterDetail is the detail of a line written after the answer to cs, found by asking g after
// it: what was seen (the line, or the answer written times times: 2 or more, 0 for a line that
// is not the answer), and, when the target writes one after every answer of the operation
// (noteEveryAfter), that it does so whatever it is asked.
func (t *Target) afterDetail(line string, times int, cs, g Case) string {
	if !t.everyAfter[cs.Op] {
		if times >= 2 {
			return afterAnswer(answerAgain+timesWord(times), times-1, g)
		}
		return afterAnswer(lineAfter+": "+line, 1, g)
	}
	var vetted []string
	for _, s := range append(followInputs[:len(followInputs):len(followInputs)], everyProbes...) {
		switch {
		case !t.vetLine[caseKey(Case{Op: cs.Op, Input: []byte(s)})]:
		case len(s) > 4:
			vetted = append(vetted, fmt.Sprintf("a %d-byte string", len(s)))
		default:
			vetted = append(vetted, phplit.Quote([]byte(s)))
		}
	}
	every, each, tail := "every answer", "", everyAnswer+"%s request was sent"
	if t.firstOnly[cs.Op] {
		every, each = "the first answer of each process", "; the later answers in step"
		tail = firstAnswer + "%s of 'a' first from then on, its answer and the line set aside"
	}
	what := "writes a line after " + every + ": " + line + " after its answer to %s of %s, and one after those to %s"
	if times >= 2 {
		what = "writes " + every + " " + timesWord(times) + ": its answer to %s of %s, and those to %s"
	}
	return fmt.Sprintf(what+" (each asked first in a new process%s)"+tail,
		cs.Op, phplit.Quote(cs.Input), strings.Join(vetted, ", "), each, cs.Op)
}

// answerAgain and lineAfter begin the details of alone's findings (manyAfter counts them).
const (
	answerAgain = "writes its answer " // twice, three times
	lineAfter   = "writes a line after its answer"
)

// timesWord says n times in words: "twice", "three times", "4 times".
func timesWord(n int) string {
	switch n {
	case 2:
		return "twice"
	case 3:
		return "three times"
	}
	return fmt.Sprintf("%d times", n)
}

// answerTimes is how many times the target wrote rs[0], an answer that follow-up requests
// whose answer alone is ref came after (rs[1:], late): 1 + the lines before the first answer
// that is ref, when each of them is rs[0] again; 0 when one is another line. (1: none is
// before it, or rs[0] is ref itself, and nothing can be told.)
func answerTimes(rs []protocol.Response, ref protocol.Response) int {
	n := 1
	for _, r := range rs[1:] {
		if sameAnswer(r, ref) {
			break
		}
		if !sameAnswer(r, rs[0]) {
			return 0
		}
		n++
	}
	return n
}

// aloneAnswer is the target's answer to h asked alone in a new process, and false when it gave
// none (either is kept).
func (t *Target) aloneAnswer(ctx context.Context, h Case) (protocol.Response, bool) {
	key := caseKey(h)
	if r, done := t.aloneRefs[key]; done {
		return deref(r), r != nil
	}
	rs, err := t.askNew(ctx, []protocol.Request{h.request()})
	if ctx.Err() != nil {
		return protocol.Response{}, false
	}
	var r *protocol.Response
	if err == nil && len(rs) == 1 {
		r = &rs[0]
	}
	t.aloneRefs[key] = r
	return deref(r), r != nil
}

func deref(r *protocol.Response) protocol.Response {
	if r == nil {
		return protocol.Response{}
	}
	return *r
}

// askNew asks reqs of a new process of the target, apart from the running one, and closes it.
func (t *Target) askNew(ctx context.Context, reqs []protocol.Request) ([]protocol.Response, error) {
	c, err := t.apart(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Kill()
	return c.Do(reqs)
}

// apart starts a new process of the target apart from the running one (warmed up: warmUp);
// the caller kills it.
func (t *Target) apart(ctx context.Context) (*protocol.Client, error) {
	c, err := protocol.StartConfig(ctx, t.argv, protocol.Config{Timeout: t.cfg.Timeout, Window: t.cfg.Window})
	if err == nil {
		t.warmUp(c)
	}
	return c, err
}

// What alone knows of its follow-up request for an operation (Target.follow).
const (
	followUnknown = iota // not checked
	followOK             // a new process answers it alone
	followBad            // it does not: no follow-ups
)

// answersAlone reports whether a new process answers g, asked alone, with an answer (the
// process is then closed).
func (t *Target) answersAlone(ctx context.Context, g Case) (bool, error) {
	t.extra++
	if err := t.start(ctx); err != nil {
		return false, fmt.Errorf("target %s: restart failed: %v", t.Name, err)
	}
	_, err := t.do(ctx, []protocol.Request{g.request()})
	_ = t.client.Close()
	t.client = nil
	if cerr := ctx.Err(); cerr != nil {
		return false, cerr
	}
	return err == nil, nil
}

// afterAnswer is the detail of a line written after an answer, found by asking g after it.
func afterAnswer(what string, lines int, g Case) string {
	next := "the next request with that line"
	if lines > 1 {
		next = fmt.Sprintf("the next %d requests with those lines", lines)
	}
	return fmt.Sprintf("%s (asked alone in a new process and then %s of %s, the target answered %s)", what, g.Op, phplit.Quote(g.Input), next)
}

// confirmLimit asks a new process cs n times and then once more, with confirmHang's longer
// wait: true when that answer does not come (the process stops after n answers), false when it
// does (a slow answer). The process is closed.
func (t *Target) confirmLimit(ctx context.Context, cs Case, n int, waited time.Duration) (bool, error) {
	if t.client != nil {
		t.client.Kill()
		t.client = nil
	}
	t.extra++
	if err := t.start(ctx); err != nil {
		return false, fmt.Errorf("target %s: restart failed: %v", t.Name, err)
	}
	reqs := make([]protocol.Request, n+1)
	for i := range reqs {
		reqs[i] = cs.request()
	}
	_, err := t.do(ctx, reqs[:1]) // (a new process's first answer sets the timeout: observe)
	if err == nil {
		t.client.SetTimeout(min(max(10*waited, time.Second), t.cfg.Timeout))
		_, err = t.do(ctx, reqs[1:])
	}
	_ = t.client.Close()
	t.client = nil
	if cerr := ctx.Err(); cerr != nil {
		return false, cerr
	}
	return err != nil, nil
}

// limitFinding is the one finding of a limit shown by the failures prev and te (on culprit).
func (t *Target) limitFinding(te *protocol.TargetError, culprit Case, prev *stall) *Finding {
	f := targetFailure(t.Name, culprit, te)
	what := "stops answering"
	switch te.Kind {
	case protocol.Exited:
		what = "exits (or closes its standard output)"
	case protocol.Malformed, protocol.WrongVersion:
		what = fmt.Sprintf("writes a line that is not an answer (%s)", lineOf(te))
	}
	f.Detail = fmt.Sprintf("%s after %d requests in every process, whatever they ask (no input is to blame: two processes failed so after %d and %d answers, on different requests, each answered when asked first in a new process); from then on each process was replaced after %d answers; the last failure: %s",
		what, t.limit, prev.served, t.last.served, t.limit, te.Detail)
	return f
}

// limitRE finds the limit in a limit finding's detail.
var limitRE = regexp.MustCompile(` after (\d+) requests in every process, whatever they ask`)

// LimitOf returns N when f says that its target fails after N requests in every process,
// whatever they ask (no input is to blame for it).
func LimitOf(f *Finding) (int, bool) {
	if !f.External {
		return 0, false
	}
	m := limitRE.FindStringSubmatch(f.Detail)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// Limit is how many requests each process of the target answers before it stops (hangs,
// exits or writes an unsolicited line), whatever it is asked; 0 when no such limit was seen.
// Renewed is how many processes were replaced on purpose (after Limit answers).
func (t *Target) Limit() (limit, renewed int) { return t.limit, t.renewed }

// do sends reqs to the running process. When the target has a limit it sends each process
// at most the answers it has left, and replaces a process that used them up (Renewed, not a
// restart after a failure). A *protocol.TargetError's Index counts from reqs[0].
func (t *Target) do(ctx context.Context, reqs []protocol.Request) ([]protocol.Response, error) {
	var out []protocol.Response
	for len(out) < len(reqs) {
		if t.client == nil { // retime ended it
			if err := t.ensure(ctx, true); err != nil {
				return out, err
			}
		}
		if t.limit > 0 && t.served >= t.limit {
			if err := t.renew(ctx); err != nil {
				return out, err
			}
		}
		n := len(reqs) - len(out)
		if t.limit > 0 {
			n = min(n, t.limit-t.served)
		}
		at := len(out)
		if at == 0 {
			t.priorAns = lastAnswer{}
			if t.lastAns.client == t.client {
				t.priorAns = t.lastAns
			}
		}
		t.sent, t.sentAt = reqs[at:at+n], 0
		r, err := t.client.Do(reqs[at : at+n])
		t.sent = nil
		out = append(out, r...)
		if len(r) > 0 {
			t.lastAns = t.nextLast(reqs[at:at+len(r)], r)
		}
		if s := &t.slowest; err == nil && len(s.at) > 0 && s.hold {
			s.held = append(s.held, heldRetime{reqs: reqs[at : at+n], at: s.at, last: t.lastAns})
		}
		t.slowest.at = nil
		if err != nil {
			var te *protocol.TargetError
			if errors.As(err, &te) && te.Index >= 0 && at > 0 {
				e := *te
				e.Index += at
				return out, &e
			}
			return out, err
		}
	}
	return out, nil
}

// renew replaces the running process by a new one without waiting for it to end.
func (t *Target) renew(ctx context.Context) error {
	if t.client != nil {
		t.client.Kill()
		t.client = nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	t.renewed++
	if err := t.start(ctx); err != nil {
		return fmt.Errorf("target %s: restart failed: %v", t.Name, err)
	}
	return nil
}

// flushPending appends the held finding of an unsolicited line that no limit explained, and
// those of further lines after answers hiddenShift found.
func (t *Target) flushPending(out []*Finding) []*Finding {
	out = append(out, t.more...)
	t.more = nil
	if t.pending == nil {
		return out
	}
	f := t.pending
	t.pending = nil
	return append(out, f)
}

func sameCase(a, b Case) bool {
	return a.Op == b.Op && a.Flags == b.Flags && string(a.Input) == string(b.Input)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// lineOf is the offending line of te as a finding names it: a PHP expression of its bytes, or
// what it was when too long to keep (protocol.ErrLineTooLong).
func lineOf(te *protocol.TargetError) string {
	if te.TooLong {
		return protocol.ErrLineTooLong.Error()
	}
	return phplit.Quote([]byte(te.Line))
}
