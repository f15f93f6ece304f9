package bench

import (
	"fmt"
	"math"
	"time"

	"github.com/difffuzz/difffuzz/oracle"
	"github.com/difffuzz/difffuzz/protocol"
)

// Target makes a candidate of an external target speaking protocol v1 with its optional
// bench operation: the target times its own runs ("bench OP FLAGS HEX N", its monotonic
// clock) and the candidate adds up the nanoseconds it answers for each input of a cell. The
// answer the target gives with the timing is checked against the oracle's, each time: a
// timing of a wrong answer is refused. wait is the longest wait for one bench answer.
// A cell whose operation the target does not announce, whose option bits are outside its
// options= or whose input is longer than its max-len= is skipped.
func Target(name string, cl *protocol.Client, wait time.Duration) Candidate {
	return Candidate{Name: name, Prepare: func(c Cell) (Timer, error) {
		if !cl.Supports(c.Op) {
			return nil, fmt.Errorf("the target does not announce %s: %w", c.Op, ErrSkip)
		}
		if caps := cl.Capabilities(); c.Op == protocol.OpEscape && c.Options&^caps.Options != 0 {
			return nil, fmt.Errorf("option bits %s are outside the target's options=: %w", c.Options&^caps.Options, ErrSkip)
		}
		if caps := cl.Capabilities(); caps.MaxLen > 0 {
			for _, in := range c.Inputs {
				if len(in) > caps.MaxLen {
					return nil, fmt.Errorf("an input of %d bytes is longer than the target's max-len=%d: %w", len(in), caps.MaxLen, ErrSkip)
				}
			}
		}
		reqs := make([]protocol.Request, len(c.Inputs))
		wants := make([]protocol.Response, len(c.Inputs))
		for i, in := range c.Inputs {
			reqs[i] = protocol.Request{Op: c.Op, Input: in}
			if c.Op == protocol.OpEscape {
				reqs[i].Flags = c.Options
			}
			wants[i] = oracleAnswer(reqs[i])
		}
		run := func(n int) (time.Duration, error) {
			var total time.Duration
			for i, req := range reqs {
				d, resp, err := cl.Bench(req, n, wait)
				if err != nil {
					return 0, err
				}
				if got, want := resp.String(), wants[i].String(); got != want {
					what := fmt.Sprintf("%s; the oracle's %s", clipS(got), clipS(want))
					if resp.ErrorMsg == "" && wants[i].ErrorMsg == "" && resp.Steps == nil && wants[i].Steps == nil {
						what = firstDiff(resp.Result, wants[i].Result)
						if resp.False != wants[i].False || resp.Err != wants[i].Err {
							what += fmt.Sprintf(" (false %v, error %d; the oracle's false %v, error %d)", resp.False, resp.Err, wants[i].False, wants[i].Err)
						}
					}
					where := fmt.Sprintf("a %d-byte input", len(req.Input))
					if len(reqs) > 1 {
						where = fmt.Sprintf("input %d of %d (%d bytes)", i+1, len(reqs), len(req.Input))
					}
					return 0, fmt.Errorf("%w to bench %s on %s: %s", ErrWrongAnswer, req.Op, where, what)
				}
				if d < 0 || total+d < total {
					return 0, fmt.Errorf("the times of the cell's %d inputs add up past %v", len(reqs), time.Duration(math.MaxInt64))
				}
				total += d
			}
			return total, nil
		}
		if _, err := run(1); err != nil {
			return nil, err
		}
		return run, nil
	}}
}

// oracleAnswer is the oracle's response to req, as protocol v1 writes it.
func oracleAnswer(req protocol.Request) protocol.Response {
	return protocol.Handler{Escape: oracle.Escape, NextChar: oracle.NextChar, UTF8Decode: oracle.UTF8Decode}.Answer(req)
}

func clipS(s string) string {
	if len(s) > 80 {
		return s[:76] + "..."
	}
	return s
}
