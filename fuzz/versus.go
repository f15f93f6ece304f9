package fuzz

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/protocol"
)

// Build against build (--reference-exec): a candidate target's answers are compared with a
// reference target's answers to the same requests, not with the oracle's. Every difference
// between the two is a finding; the oracle still says which side answers as PHP 8.2 does. The
// finding is made of the side that does not (its Want is PHP's answer, its Got that side's),
// so that it is triaged, minimized and named like any other, and its Versus names the other
// build and its answer.

// Versus is the other build of a build-against-build finding.
type Versus struct {
	Name      string `json:"name"`      // the other build
	Reference bool   `json:"reference"` // the other build is the reference (else the finding's is)
	Agrees    bool   `json:"agrees"`    // its answer is PHP 8.2's (the oracle's)
	Answer    string `json:"answer"`    // its answer, as ResponseText writes it
}

// VersusText says how the two builds of a build-against-build finding differ and which one PHP
// 8.2 agrees with: "branch writes X where master writes Y (PHP 8.2 agrees with master)"; ""
// for another finding.
func (f *Finding) VersusText() string {
	v := f.Versus
	if v == nil {
		return ""
	}
	mine := answerText(f)
	if f.Kind == KindOutput || f.Kind == KindError {
		mine = f.GotText()
	}
	agrees := "agrees with " + v.Name
	if !v.Agrees {
		agrees = "writes " + ResultText(f.Want, f.WantErr, f.Op == OpEscape) + ": neither"
		if f.Kind == KindStep {
			agrees = "steps " + StepText(f.WantStep) + " there: neither"
		}
	}
	if v.Reference {
		return fmt.Sprintf("%s writes %s where %s writes %s (PHP 8.2 %s)", f.Impl, mine, v.Name, v.Answer, agrees)
	}
	return fmt.Sprintf("%s writes %s where %s writes %s (PHP 8.2 agrees with %s)", v.Name, v.Answer, f.Impl, mine, v.Name)
}

// SetReference makes ref the reference of t: from now on t's answers are compared with ref's
// answers to the same requests (see Versus). ref keeps its answers for t and makes no finding
// of a difference from the oracle; its crashes, hangs, malformed lines and refusals are
// findings of ref.
func (t *Target) SetReference(ref *Target) {
	t.vs = ref
	ref.isRef = true
	if ref.kept == nil {
		ref.kept = map[string]protocol.Response{}
	}
}

// Reference is t's reference (SetReference), nil without.
func (t *Target) Reference() *Target { return t.vs }

// VersusCounts are the requests of a build-against-build run that were not findings although
// the candidate's answer is not PHP's (both builds answered alike), and those not compared
// because the reference gave no answer (it crashed or hung on them, or refused them).
func (t *Target) VersusCounts() (bothDiffer, noReference uint64) { return t.bothDiffer, t.noRef }

// caseKey is a case as a map key.
func caseKey(cs Case) string {
	return string(cs.Op) + "\x00" + strconv.FormatUint(uint64(cs.Flags), 10) + "\x00" + string(cs.Input)
}

// compare compares t's answer r to case cs: with the oracle's; a reference keeps it for its
// candidates instead; a candidate with a reference compares it with the reference's answer.
func (t *Target) compare(ctx context.Context, c *Checker, out []*Finding, cs Case, r protocol.Response) []*Finding {
	switch {
	case r.Malformed:
		// A line its witness was answered with (inStep): a finding of the witness's class.
		for _, w := range t.witnesses {
			if w.hasLine && w.line == r.Line && w.Finding.Op == cs.Op {
				w.Again++
				return append(out, &Finding{Kind: KindTargetProtocol, Op: cs.Op, Impl: t.Name, Input: clone(cs.Input),
					Flags: cs.Flags, Detail: w.Finding.Detail, External: true})
			}
		}
		return out
	case r.ErrorMsg != "":
		return c.compareResponse(out, t.Name, cs, r)
	case t.isRef:
		r.Result, r.Steps = bytes.Clone(r.Result), slices.Clone(r.Steps)
		t.kept[caseKey(cs)] = r
		return out
	case t.vs != nil:
		return t.compareVersus(ctx, c, out, cs, r)
	}
	return c.compareResponse(out, t.Name, cs, r)
}

// compareVersus compares t's answer r with its reference's answer to cs: when they differ, the
// finding is of the side that does not answer as PHP does (t's when neither does).
func (t *Target) compareVersus(ctx context.Context, c *Checker, out []*Finding, cs Case, r protocol.Response) []*Finding {
	rr, ok := t.vs.answer(ctx, cs)
	if !ok {
		t.noRef++
		return out
	}
	mine := c.compareResponse(nil, t.Name, cs, r)
	if sameAnswer(r, rr) {
		if len(mine) > 0 {
			t.bothDiffer++
		}
		return out
	}
	theirs := c.compareResponse(nil, t.vs.Name, cs, rr)
	switch {
	case len(mine) > 0:
		mine[0].Versus = &Versus{Name: t.vs.Name, Reference: true, Agrees: len(theirs) == 0, Answer: ResponseText(cs.Op, rr)}
		return append(out, mine[0])
	case len(theirs) > 0:
		// t answers as PHP does: the reference is the build that differs.
		f := theirs[0]
		f.Versus = &Versus{Name: t.Name, Agrees: true, Answer: ResponseText(cs.Op, r)}
		f.Command = t.vs.Command
		return append(out, f)
	}
	return out
}

// answer is the reference's answer to cs: kept from the batch it was asked in, or asked alone
// (minimization); ok false when it gives none (it cannot take the case, it crashes on it).
func (t *Target) answer(ctx context.Context, cs Case) (protocol.Response, bool) {
	if r, ok := t.kept[caseKey(cs)]; ok {
		return r, true
	}
	if t.drop(cs) != nil || !t.CanRun() {
		return protocol.Response{}, false
	}
	t.one(ctx, cs, false)
	r, ok := t.kept[caseKey(cs)]
	if len(t.kept) > 1<<17 {
		clear(t.kept)
	}
	return r, ok
}

// sameAnswer reports whether two answers to one request are the same answer.
func sameAnswer(a, b protocol.Response) bool {
	if a.False != b.False || a.Err != b.Err || !slices.Equal(a.Steps, b.Steps) {
		return false
	}
	return a.False || bytes.Equal(a.Result, b.Result)
}

// ResponseText is an answer to op for a person: ResultText of its result, or its steps.
func ResponseText(op Op, r protocol.Response) string {
	switch {
	case r.ErrorMsg != "":
		return "error " + r.ErrorMsg
	case op == OpDecode:
		s := make([]string, len(r.Steps))
		for i, st := range r.Steps {
			s[i] = StepText(st)
		}
		if len(s) == 0 {
			return "(no steps)"
		}
		return strings.Join(s, " ")
	case r.False:
		return ResultText(nil, r.Err, true)
	}
	return resultText(r.Result, r.Err, op == OpEscape, true, -1) // "-": the empty string, not false
}

// askReference asks t's reference every case of chunk (kept for compare) and returns the
// findings of the reference's own failures (crashes, hangs, malformed lines, refusals).
func (t *Target) askReference(ctx context.Context, chunk []Case) ([]*Finding, error) {
	clear(t.vs.kept)
	var st checkStats
	return t.vs.check(ctx, chunk, nil, &st)
}

// Ask sends case cs alone and returns the target's answer (difffuzz escape --exec). Nothing is
// sent, and the error says why, when the target does not serve the operation or announced
// (options=, max-len=) that it cannot take the case.
func (t *Target) Ask(ctx context.Context, cs Case) (protocol.Response, error) {
	if !t.Has(cs.Op) {
		return protocol.Response{}, fmt.Errorf("it does not serve %s (its hello announced: %s)", cs.Op, opsText(t.ops))
	}
	if cs.Flags&^t.caps.Options != 0 {
		return protocol.Response{}, fmt.Errorf("it announced options=%d, without option bits %d", uint32(t.caps.Options), uint32(cs.Flags&^t.caps.Options))
	}
	if t.caps.MaxLen > 0 && len(cs.Input) > t.caps.MaxLen {
		return protocol.Response{}, fmt.Errorf("it announced max-len=%d, and the input is %d bytes", t.caps.MaxLen, len(cs.Input))
	}
	resps, err := t.do(ctx, []protocol.Request{cs.request()})
	if err != nil {
		return protocol.Response{}, err
	}
	return resps[0], nil
}

func opsText(ops []Op) string {
	s := make([]string, len(ops))
	for i, o := range ops {
		s[i] = string(o)
	}
	return strings.Join(s, " ")
}

// Judge compares t's answer r to case cs with the oracle's (PHP 8.2's): the findings, none
// when they agree.
func (t *Target) Judge(cs Case, r protocol.Response) []*Finding {
	var c Checker
	return t.stamp(c.compareResponse(nil, t.Name, cs, r))
}

// inStep takes a malformed line for the answer to a request of op when a witness of op was
// answered with that very line alone, in a new process (Witness.line): the target writes it
// in place of an answer, not besides one, so the answers after it are in step, and the request
// is counted in the witness's Again instead of costing a restart (a target that writes an
// empty line for a whole class of inputs is one finding, not one per input up to the
// restart cap).
func (t *Target) inStep(op protocol.Op, line string) bool {
	for _, w := range t.witnesses {
		if w.hasLine && w.line == line && string(w.Finding.Op) == string(op) {
			return true
		}
	}
	return false
}

// Line is the malformed line the target answered the witness with, when later requests
// answered with it were taken in step (see inStep); ok false otherwise.
func (w *Witness) Line() (line string, ok bool) { return w.line, w.hasLine }

// Time asks the target cases (pipelined; the answers are not compared) and returns how long
// their answers took: a campaign's calibration of its speed before it says what the run will
// cost. Cases it cannot take or did not announce are not sent. A failure is returned, and the
// process replaced by a new one, counted nowhere (the campaign finds the failure itself); a
// target that has answered nothing yet is probed at once (silence): ErrTargetSilent.
func (t *Target) Time(ctx context.Context, cases []Case) (time.Duration, int, error) {
	reqs := make([]protocol.Request, 0, len(cases))
	for _, c := range cases {
		if t.Has(c.Op) && c.Flags&^t.caps.Options == 0 && (t.caps.MaxLen == 0 || len(c.Input) <= t.caps.MaxLen) {
			reqs = append(reqs, c.request())
		}
	}
	if len(reqs) == 0 {
		return 0, 0, nil
	}
	if err := t.ensure(ctx, false); err != nil {
		return 0, 0, err
	}
	start := time.Now()
	_, err := t.do(ctx, reqs)
	el := time.Since(start)
	if err == nil && t.client != nil && !t.inStepAfter(ctx, reqs[len(reqs)-1]) {
		// The answers are not compared here: a line the target wrote after one of them
		// would throw the campaign's first answers out of step. Its next process starts
		// afresh (counted as renewed); the campaign finds the line itself.
		_ = t.client.Close()
		t.client, t.retired = nil, true
	}
	if err != nil && t.client != nil {
		_ = t.client.Close()
		t.client = nil
		var te *protocol.TargetError
		if errors.As(err, &te) && ctx.Err() == nil {
			// Not one answer yet: probe now (see silence), so that a target that answers
			// nothing costs two waits in all, not these and two more in the campaign.
			if serr := t.silence(ctx, te, cases[0]); serr != nil {
				return el, len(reqs), serr
			}
		}
		if t.client == nil && t.start(ctx) != nil {
			t.retired = true // (the campaign starts it, counted as renewed)
		}
	}
	return el, len(reqs), err
}

// inStepAfter asks the running process two follow-up requests of last (see alone), g and h
// (inputs "a" and "b" as a rule), as g, h, h, g, and reports whether their answers come in
// that pattern (the first and last alike, the two between them), as they do from a process
// that answers in step; one still answering earlier requests (a line it wrote after an answer
// before) gives g's answer where h's should be, and fails it unless it answers g and h alike.
func (t *Target) inStepAfter(ctx context.Context, last protocol.Request) bool {
	gc := t.followUp(ctx, Op(last.Op), last.Input)
	g, h := gc.request(), t.followUp(ctx, gc.Op, gc.Input).request()
	rs, err := t.do(ctx, []protocol.Request{g, h, h, g})
	return err == nil && len(rs) == 4 && sameAnswer(rs[0], rs[3]) && sameAnswer(rs[1], rs[2])
}
