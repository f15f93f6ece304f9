package protocol

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// Handler is the implementation a Serve loop answers for. A nil function is an operation the
// target does not support: it is left out of the hello and its requests are answered
// "error ...". The functions have the contracts of the oracle package (DESIGN.md §2).
type Handler struct {
	// Escape appends json_encode's result for src under opts to dst and returns it. On a PHP
	// error it returns a *jsonopt.Error whose Code is the JSON_ERROR_* value (>= 0) with
	// nothing appended (json_encode returned false) or "null" appended (PARTIAL_OUTPUT_ON_ERROR).
	// Any other error, a *jsonopt.Error with a negative Code or an error of another type, is a
	// refusal (the implementation declines the request), answered "error MESSAGE": the
	// *jsonopt.Error's Msg, or the other error's Error().
	Escape func(dst, src []byte, opts jsonopt.Options) ([]byte, error)
	// NextChar is one php_next_utf8_char() step at s[pos:], 0 <= pos < len(s).
	NextChar func(s []byte, pos int) jsonopt.Step
	// UTF8Decode appends utf8_decode(src) to dst and returns it.
	UTF8Decode func(dst, src []byte) []byte
	// Caps are announced in the hello (HelloWith) and enforced before a function is called:
	// when Caps.OptionsSet, an escape whose FLAGS has bits outside Caps.Options is answered
	// "error MESSAGE" naming those bits; when Caps.MaxLen > 0, a request whose input is longer
	// than Caps.MaxLen bytes is answered "error MESSAGE". Caps.Ignored is not used. The zero
	// value announces and refuses nothing.
	Caps Capabilities
}

// Ops returns the checkable operations h supports, in hello order (Serve's hello adds OpBench
// after them; see helloOps).
func (h Handler) Ops() []Op {
	var ops []Op
	if h.Escape != nil {
		ops = append(ops, OpEscape)
	}
	if h.NextChar != nil {
		ops = append(ops, OpDecode)
	}
	if h.UTF8Decode != nil {
		ops = append(ops, OpUTF8Decode)
	}
	return ops
}

// helloOps returns the operations Serve announces for h: h.Ops() followed by OpBench, unless
// h supports no operation at all.
func (h Handler) helloOps() []Op {
	ops := h.Ops()
	if len(ops) > 0 {
		ops = append(ops, OpBench)
	}
	return ops
}

// Serve speaks the target side of protocol version 1: it writes the hello for h.Ops(),
// followed by "bench" when h supports any operation, and h.Caps (HelloWith), then reads
// request lines from r until end of input and answers each one on w, in order.
//
// A bench request "bench OP FLAGS HEX N" is refused as the plain request of OP would be (and
// when malformed, see ParseBenchRequest); otherwise Serve calls OP's function N times on the
// input, reusing its result buffer (dst = f(dst[:0], src); for decode one run is every
// NextChar step of the input from position 0, as the plain answer computes them), measures
// the loop with time.Now and time.Since (the monotonic clock) and answers
// "NANOSECONDS RESULT...", RESULT... being the last run's answer to the plain request. A run
// whose answer is "error ..." ends the loop and is the answer.
//
// A malformed request, a request for an operation h does not support, a request outside
// h.Caps (for example "error escape: FLAGS 544 has option bits 512
// (JSON_PARTIAL_OUTPUT_ON_ERROR) outside this target's options=32", "error utf8_decode: input
// of 5 bytes is longer than this target's max-len=4"), an escape refused with
// an error that carries no PHP error code (a *jsonopt.Error with Code < 0, answered "error "
// and its Msg, or any other error, answered "error " and its Error()) and a decoder step with
// an advance below 1 are answered "error MESSAGE"; Serve then keeps serving.
//
// Answers are buffered and flushed whenever no complete request line is left in the input
// buffer, so a pipelining client gets large writes and an interactive one never waits. Lines
// may be of any length. Serve returns nil at end of input, or the first read or write error.
// A panic in a handler function is not recovered: the target crashes, and a client reports it.
func Serve(r io.Reader, w io.Writer, h Handler) error {
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	if _, err := bw.WriteString(HelloWith(h.helloOps(), h.Caps) + "\n"); err != nil {
		return err
	}
	var (
		line []byte
		out  []byte // response line being built
		res  []byte // scratch result buffer, reused
	)
	for {
		if !completeLineBuffered(br) {
			if err := bw.Flush(); err != nil {
				return err
			}
		}
		var err error
		line, err = readLine(br, line[:0])
		if err == io.EOF {
			return bw.Flush()
		}
		if errors.Is(err, ErrLineTooLong) {
			// Refuse it and go on with the next line, without holding this one.
			if err == errLineOpen {
				if err = skipLine(br); err != nil && err != io.EOF {
					bw.Flush()
					return err
				}
			}
			out = append(Response{ErrorMsg: "request " + ErrLineTooLong.Error()}.AppendTo(out[:0]), '\n')
			if _, err := bw.Write(out); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			bw.Flush()
			return err
		}
		out, res = answer(out[:0], res[:0], string(line), h)
		out = append(out, '\n')
		if _, err := bw.Write(out); err != nil {
			return err
		}
	}
}

// answer appends the response line for one request line to out.
func answer(out, res []byte, line string, h Handler) ([]byte, []byte) {
	if isBenchLine(line) {
		return answerBench(out, res, line, h)
	}
	req, err := ParseRequest(line)
	if err != nil {
		return Response{ErrorMsg: err.Error()}.AppendTo(out), res
	}
	if msg := h.refusal(req); msg != "" {
		return Response{ErrorMsg: msg}.AppendTo(out), res
	}
	resp, res, _ := h.run(req, res, nil)
	return resp.AppendTo(out), res
}

// answerBench appends the response line for one bench request line to out: the request is
// refused as the plain one would be, otherwise its operation is run N times, timed with the
// monotonic clock, and answered with the elapsed nanoseconds and the last run's answer. A run
// answered "error ..." (an escape refused without a PHP error code, a decoder step that does
// not advance) ends the loop, and the bench is answered with that error.
func answerBench(out, res []byte, line string, h Handler) ([]byte, []byte) {
	if len(h.Ops()) == 0 {
		return Response{ErrorMsg: "operation bench is not supported by this target (it supports: none)"}.AppendTo(out), res
	}
	br, err := ParseBenchRequest(line)
	if err != nil {
		return Response{ErrorMsg: err.Error()}.AppendTo(out), res
	}
	if msg := h.refusal(br.Req); msg != "" {
		return Response{ErrorMsg: msg}.AppendTo(out), res
	}
	var (
		resp  Response
		steps []jsonopt.Step
	)
	start := time.Now()
	for i := 0; i < br.N; i++ {
		resp, res, steps = h.run(br.Req, res, steps)
		if resp.ErrorMsg != "" {
			return resp.AppendTo(out), res
		}
	}
	elapsed := time.Since(start)
	return BenchResponse{Elapsed: max(elapsed, 0), Resp: resp}.AppendTo(out), res
}

// refusal returns the message with which h refuses a well-formed plain request ("" when it
// accepts it): an operation h does not support, or a request outside h.Caps.
func (h Handler) refusal(req Request) string {
	if !h.supports(req.Op) {
		return fmt.Sprintf("operation %s is not supported by this target (it supports: %s)", req.Op, opList(h.Ops()))
	}
	return h.Caps.refusal(req)
}

// Answer is h's response to req, as Serve would write it: "error MESSAGE" (ErrorMsg) for a
// request h does not support or its Caps refuse, else the result of one call of h's function
// for req.Op. The response owns its buffers.
func (h Handler) Answer(req Request) Response {
	if msg := h.refusal(req); msg != "" {
		return Response{ErrorMsg: msg}
	}
	resp, _, _ := h.run(req, nil, nil)
	return resp
}

// run answers req, an accepted request, by calling h's function once. res and steps are
// scratch buffers, reused (res[:0], steps[:0]) and returned; the response refers to them, so
// it must be written before the next run.
func (h Handler) run(req Request, res []byte, steps []jsonopt.Step) (Response, []byte, []jsonopt.Step) {
	resp := Response{Op: req.Op}
	switch req.Op {
	case OpEscape:
		var err error
		res, err = h.Escape(res[:0], req.Input, req.Flags)
		var pe *jsonopt.Error
		switch {
		case err == nil:
			resp.Result = res
		case errors.As(err, &pe) && pe.Code >= 0:
			resp.Err = pe.Code
			if len(res) == 0 {
				resp.False = true
			} else {
				resp.Result = res
			}
		case errors.As(err, &pe):
			resp.ErrorMsg = pe.Msg
		default:
			resp.ErrorMsg = err.Error()
		}
	case OpDecode:
		s := req.Input
		steps = steps[:0]
		for pos := 0; pos < len(s); {
			st := h.NextChar(s, pos)
			if st.Advance < 1 {
				return Response{ErrorMsg: fmt.Sprintf("decoder step at byte %d returned advance %d (cp %x, ok %v)", pos, st.Advance, st.CP, st.OK)}, res, steps
			}
			steps = append(steps, st)
			pos += st.Advance
		}
		if len(steps) > 0 {
			resp.Steps = steps
		}
	case OpUTF8Decode:
		res = h.UTF8Decode(res[:0], req.Input)
		resp.Result = res
	}
	return resp, res, steps
}

// supports reports whether h has a function for op.
func (h Handler) supports(op Op) bool {
	switch op {
	case OpEscape:
		return h.Escape != nil
	case OpDecode:
		return h.NextChar != nil
	case OpUTF8Decode:
		return h.UTF8Decode != nil
	}
	return false
}

func opList(ops []Op) string {
	if len(ops) == 0 {
		return "none"
	}
	var b []byte
	for i, op := range ops {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, op...)
	}
	return string(b)
}

// completeLineBuffered reports whether br holds a whole line that can be read without
// blocking.
func completeLineBuffered(br *bufio.Reader) bool {
	n := br.Buffered()
	if n == 0 {
		return false
	}
	b, _ := br.Peek(n)
	return bytes.IndexByte(b, '\n') >= 0
}

// MaxLine is the longest line, in bytes without its newline, that a client or `serve` reads
// (DESIGN.md §6): protocol lines are hex of inputs and answers of kilobytes, so a longer one
// is a target (or a client) gone wrong, not an answer to wait for.
const MaxLine = 16 << 20

// ErrLineTooLong is readLine's error for a line longer than MaxLine (errLineOpen, which wraps
// it, when the rest of the line is still unread).
var (
	ErrLineTooLong = fmt.Errorf("a line longer than %d bytes", MaxLine)
	errLineOpen    = fmt.Errorf("%w", ErrLineTooLong)
)

// skipLine reads br up to and including the next newline, keeping none of it.
func skipLine(br *bufio.Reader) error {
	for {
		_, err := br.ReadSlice('\n')
		if err != bufio.ErrBufferFull {
			return err
		}
	}
}

// readLine appends the next line of br, without "\n" or "\r\n", to buf and returns it. A
// last line without a newline is returned with a nil error; the following call returns
// io.EOF. A line longer than MaxLine is ErrLineTooLong as soon as it is (buf as it came; the
// rest of the line unread when the error is errLineOpen: skipLine).
func readLine(br *bufio.Reader, buf []byte) ([]byte, error) {
	start := len(buf)
	for {
		frag, err := br.ReadSlice('\n')
		switch n := len(buf) - start + len(frag); {
		case err == nil && n > MaxLine+2:
			return buf[:start], ErrLineTooLong // the line is read
		case err != nil && n > MaxLine:
			return buf[:start], errLineOpen
		}
		buf = append(buf, frag...)
		switch {
		case err == nil:
			buf = buf[:len(buf)-1]
			if len(buf) > start && buf[len(buf)-1] == '\r' {
				buf = buf[:len(buf)-1]
			}
			return buf, nil
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(buf) > start:
			return buf, nil
		default:
			return buf, err
		}
	}
}
