package protocol

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of Config.
const (
	DefaultTimeout     = 10 * time.Second // per request, and for the hello
	DefaultWindow      = 1024             // outstanding requests
	DefaultGrace       = 3 * time.Second  // Close: wait for exit after end of input
	DefaultStderrLines = 10               // stderr lines quoted in a TargetError
)

// Config tunes a Client. The zero value means every default.
type Config struct {
	// Timeout bounds the wait for each response, measured from the moment the client starts
	// waiting for it (the previous response, or the call to Do), and the wait for the hello.
	// 0 means DefaultTimeout.
	Timeout time.Duration
	// Window is the maximum number of requests written but not yet answered; at least 1.
	// 0 means DefaultWindow.
	Window int
	// Grace is how long Close waits for the target to exit after closing its stdin before
	// killing it. 0 means DefaultGrace.
	Grace time.Duration
	// Env holds extra "KEY=value" entries appended to the client's environment.
	Env []string
	// Dir is the target's working directory; "" means the client's.
	Dir string
	// StderrLines is how many of the target's last stderr lines a TargetError quotes.
	// 0 means DefaultStderrLines.
	StderrLines int
	// OnAnswer, if set, is called by Do with each response's wait: the time from the moment
	// the client started waiting for it (the previous response, or the call to Do) until it
	// arrived. It runs in Do's goroutine.
	OnAnswer func(wait time.Duration)
	// InStep, if set, is asked by Do about a line that is not a valid answer to a request of
	// operation op: true takes it for that request's answer (Response.Malformed, with the line in Line; the
	// answers after it are read as usual), false makes it a Malformed TargetError. It runs in
	// Do's goroutine.
	InStep func(op Op, line string) bool
}

func (c Config) withDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Window <= 0 {
		c.Window = DefaultWindow
	}
	if c.Grace <= 0 {
		c.Grace = DefaultGrace
	}
	if c.StderrLines <= 0 {
		c.StderrLines = DefaultStderrLines
	}
	return c
}

// FailureKind classifies a TargetError.
type FailureKind int

// The ways a target can fail the protocol.
const (
	Exited       FailureKind = iota + 1 // exited, crashed or closed its stdout before answering
	TimedOut                            // no answer within Config.Timeout
	Malformed                           // a line that is not a valid hello or response
	WrongVersion                        // the hello announced another protocol version
)

func (k FailureKind) String() string {
	switch k {
	case Exited:
		return "exited"
	case TimedOut:
		return "timed out"
	case Malformed:
		return "malformed line"
	case WrongVersion:
		return "wrong protocol version"
	}
	return fmt.Sprintf("FailureKind(%d)", int(k))
}

// TargetError is a failure of the target process to speak the protocol. After one, the
// client has killed the target and every later Do returns the same error.
type TargetError struct {
	Kind    FailureKind
	Target  string   // the command line
	Index   int      // index of the request in the Do batch; -1 for the hello or Close
	Request string   // the request line being answered, abbreviated; "" for the hello
	Line    string   // the offending line, abbreviated (Malformed, WrongVersion)
	Reason  string   // why the line is not an answer to the request (Malformed, by Do)
	Status  string   // the exit status ("exit status 3", "signal: killed"), if known
	Stderr  []string // the target's last stderr lines
	Detail  string   // what exactly went wrong
	// TooLong is set when the offending line was longer than MaxLine (ErrLineTooLong): none
	// of it was kept, so Line is empty (Malformed).
	TooLong bool
	// Timeout is, for TimedOut, the wait that ran out: the per-request timeout in force when
	// the answer was awaited (Config.Timeout or the last SetTimeout), the Grace of Close.
	Timeout time.Duration
}

func (e *TargetError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "target %s: %s", e.Target, e.Detail)
	switch {
	case e.Index >= 0:
		fmt.Fprintf(&b, " (request #%d: %s)", e.Index, e.Request)
	case e.Request != "":
		fmt.Fprintf(&b, " (%s)", e.Request)
	}
	if e.Status != "" {
		fmt.Fprintf(&b, "; %s", e.Status)
	}
	if len(e.Stderr) > 0 {
		b.WriteString("; its stderr ends with:")
		for _, l := range e.Stderr {
			b.WriteString("\n\t")
			b.WriteString(l)
		}
	} else {
		b.WriteString("; stderr empty")
	}
	return b.String()
}

// OneLine is err on one line: a TargetError's stderr lines ("...:\n\tline\n\tline") joined
// by " | ", other lines by "; ".
func OneLine(err error) string {
	msg := strings.TrimSpace(err.Error())
	msg = strings.ReplaceAll(msg, ":\n\t", ": ")
	msg = strings.ReplaceAll(msg, "\n\t", " | ")
	return strings.ReplaceAll(msg, "\n", "; ")
}

// Client drives one target process. Its methods must not be called concurrently.
type Client struct {
	cfg    Config
	name   string
	ctx    context.Context
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	bw     *bufio.Writer
	stderr *tailBuffer
	ops    []Op
	caps   Capabilities

	stdout *os.File      // read end of the target's stdout
	lines  chan lineMsg  // from the reader goroutine, closed after stdout's end
	quit   chan struct{} // closed by Close/kill: the reader discards further lines
	done   chan struct{} // closed once the process has exited
	wait   error         // cmd.Wait's result, valid after done

	timeout atomic.Int64 // Config.Timeout, changed by SetTimeout

	held  atomic.Int64  // bytes of the lines in lines (see maxHeld)
	freed chan struct{} // a line was taken from lines (cap 1)

	mu       sync.Mutex
	broken   error // set on the first TargetError, or by Close
	quitOnce sync.Once
}

type lineMsg struct {
	line string
	err  error // io.EOF at the end of stdout, or a read error
}

// Start starts the target argv[0] with arguments argv[1:] and the default Config, reads its
// hello and checks it. See StartConfig.
func Start(ctx context.Context, argv []string) (*Client, error) {
	return StartConfig(ctx, argv, Config{})
}

// StartConfig starts the target argv[0] (looked up in PATH) with arguments argv[1:], reads
// its hello line within cfg.Timeout and checks it (ParseHelloCaps; Ops and Capabilities
// return what it announced). The error is a *TargetError when the target exited, hung,
// printed something else than a valid hello (Malformed, a bad key=value field included), or
// announced another version (WrongVersion); the target is then killed. Cancelling ctx kills
// the target (with its process group on Unix).
func StartConfig(ctx context.Context, argv []string, cfg Config) (*Client, error) {
	if len(argv) == 0 {
		return nil, errors.New("protocol: empty target command")
	}
	cfg = cfg.withDefaults()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = cfg.Dir
	if len(cfg.Env) > 0 {
		cmd.Env = append(os.Environ(), cfg.Env...)
	}
	setProcessGroup(cmd)
	cmd.Cancel = func() error { return killProcess(cmd) }
	cmd.WaitDelay = cfg.Grace
	c := &Client{
		cfg:    cfg,
		name:   strings.Join(argv, " "),
		ctx:    ctx,
		cmd:    cmd,
		stderr: &tailBuffer{max: 16 << 10},
		lines:  make(chan lineMsg, cfg.Window+1),
		freed:  make(chan struct{}, 1),
		quit:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	c.timeout.Store(int64(cfg.Timeout))
	cmd.Stderr = c.stderr
	var err error
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	// stdout is a pipe of our own rather than cmd.StdoutPipe, so that the process can be
	// waited for while its output is still being read.
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = pw
	err = cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		return nil, fmt.Errorf("protocol: starting target %s: %w", c.name, err)
	}
	c.stdout = pr
	c.bw = bufio.NewWriterSize(c.stdin, 64<<10)
	go func() {
		c.wait = cmd.Wait()
		close(c.done)
	}()
	go c.read(pr)

	timer := time.NewTimer(cfg.Timeout)
	defer timer.Stop()
	select {
	case m, ok := <-c.lines:
		c.took(m)
		if ok && errors.Is(m.err, ErrLineTooLong) {
			return nil, c.fail(&TargetError{Kind: Malformed, Index: -1, Detail: "its hello line is " + ErrLineTooLong.Error(), TooLong: true})
		}
		if !ok || m.err != nil {
			return nil, c.fail(&TargetError{Kind: Exited, Index: -1, Detail: "exited before its hello line" + readErr(m.err)})
		}
		v, ops, caps, err := ParseHelloCaps(m.line)
		if err != nil {
			kind := Malformed
			if v != 0 && v != Version {
				kind = WrongVersion
			}
			return nil, c.fail(&TargetError{Kind: kind, Index: -1, Line: abbreviate(m.line), Detail: "bad hello line " + quoteField(m.line) + ": " + err.Error()})
		}
		c.ops, c.caps = ops, caps
	case <-timer.C:
		return nil, c.fail(&TargetError{Kind: TimedOut, Index: -1, Detail: fmt.Sprintf("no hello line within %v (does it flush its standard output after the hello?)", cfg.Timeout), Timeout: cfg.Timeout})
	case <-ctx.Done():
		return nil, c.fail(&TargetError{Kind: Exited, Index: -1, Detail: "cancelled before its hello line: " + ctx.Err().Error()})
	}
	return c, nil
}

// read runs in its own goroutine: it passes stdout's lines to c.lines until its end.
func (c *Client) read(stdout io.Reader) {
	br := bufio.NewReaderSize(stdout, 64<<10)
	var buf []byte
	for {
		var err error
		buf, err = readLine(br, buf[:0])
		m := lineMsg{line: string(buf), err: err}
		c.hold(int64(len(m.line)))
		select {
		case c.lines <- m:
		case <-c.quit:
		}
		if err != nil {
			break
		}
	}
	close(c.lines)
}

// ReasonUnasked is the Reason of a line read while no request waited for an answer.
const ReasonUnasked = "more lines than requests"

// maxHeld is about the most bytes of lines the reader holds for Do: a target that answers
// megabytes to every request (MaxLine each) has its lines read as Do takes them, not a window
// of them at once.
const maxHeld = 64 << 20

// hold waits until n more bytes of lines may be held (some line is always let through), or
// until the client quits, and counts them.
func (c *Client) hold(n int64) {
	for {
		if h := c.held.Load(); h == 0 || h+n <= maxHeld {
			c.held.Add(n)
			return
		}
		select {
		case <-c.freed:
		case <-c.quit:
			return
		}
	}
}

// took is called for each line taken from c.lines: its bytes are no longer held.
func (c *Client) took(m lineMsg) {
	c.held.Add(-int64(len(m.line)))
	select {
	case c.freed <- struct{}{}:
	default:
	}
}

// exitDetail says how a target that stopped answering ended: the write to its stdin that
// failed, a cancelled context, the read error.
func (c *Client) exitDetail(writeErr, readError error) string {
	detail := "exited before answering"
	if writeErr != nil {
		detail += " (writing its stdin: " + writeErr.Error() + ")"
	}
	if err := c.ctx.Err(); err != nil {
		detail += " (cancelled: " + err.Error() + ")"
	}
	return detail + readErr(readError)
}

func readErr(err error) string {
	if err == nil || err == io.EOF {
		return ""
	}
	return " (reading its stdout: " + err.Error() + ")"
}

// SetTimeout changes Config.Timeout (d > 0) from the next wait for a response on, also while
// Do runs (from Config.OnAnswer).
func (c *Client) SetTimeout(d time.Duration) {
	if d > 0 {
		c.timeout.Store(int64(d))
	}
}

// Ops returns the checkable operations the target announced in its hello (OpEscape,
// OpDecode, OpUTF8Decode), in hello order; never OpBench, so that a target that announces
// bench is checked exactly as one that does not. CanBench (or Supports(OpBench)) reports bench.
func (c *Client) Ops() []Op {
	var ops []Op
	for _, op := range c.ops {
		if op.Valid() {
			ops = append(ops, op)
		}
	}
	return ops
}

// CanBench reports whether the target announced the optional operation bench (see Bench).
func (c *Client) CanBench() bool { return c.Supports(OpBench) }

// Capabilities returns the capabilities the target announced in its hello (see
// ParseHelloCaps): Options is ^0 and MaxLen 0 when it announced none, and Ignored lists the
// key=value fields this client does not know. Do does not filter requests by them: a request
// outside them is sent, and the target's answer (normally "error MESSAGE") is returned; the
// caller decides what not to send.
func (c *Client) Capabilities() Capabilities {
	caps := c.caps
	caps.Ignored = append([]string(nil), c.caps.Ignored...)
	return caps
}

// Supports reports whether the target announced op, OpBench included.
func (c *Client) Supports(op Op) bool {
	for _, o := range c.ops {
		if o == op {
			return true
		}
	}
	return false
}

// Do sends reqs to the target, pipelined with at most Config.Window outstanding, and returns
// their responses in order (len(reqs) of them). A response "error MESSAGE" is returned in
// Response.ErrorMsg, not as an error. A request for an operation the target did not announce
// is an error before anything is sent. When the target exits, hangs for Config.Timeout or
// writes a line that is not a response to the request, Do kills it and returns a *TargetError
// naming the request; the responses before it are returned too.
func (c *Client) Do(reqs []Request) ([]Response, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return nil, c.broken
	}
	for i, r := range reqs {
		if r.Op == OpBench {
			return nil, fmt.Errorf("protocol: request #%d: bench is not a plain request (see Client.Bench)", i)
		}
		if !c.Supports(r.Op) {
			return nil, fmt.Errorf("protocol: request #%d: target %s does not support %s (it announced: %s)", i, c.name, quoteField(string(r.Op)), opList(c.ops))
		}
	}
	if len(reqs) == 0 {
		return nil, nil
	}

	sem := make(chan struct{}, c.cfg.Window)
	stop := make(chan struct{})
	werr := make(chan error, 1)
	wdone := make(chan struct{})
	go func() {
		defer close(wdone)
		c.write(reqs, sem, stop, werr)
	}()
	// The writer must be gone before the next Do writes: on a failure, fail has killed the
	// target and closed its stdin, so a blocked write returns.
	defer func() {
		close(stop)
		<-wdone
	}()

	out := make([]Response, 0, len(reqs))
	waitStart := time.Now()
	limit := time.Duration(c.timeout.Load()) // the wait for the next answer
	timer := time.NewTimer(limit)
	defer timer.Stop()
	var writeErr error
	done := c.done // nil once seen: the process exited, and what it wrote is read within Grace
	for i := 0; i < len(reqs); {
		select {
		case m, ok := <-c.lines:
			c.took(m)
			if ok && errors.Is(m.err, ErrLineTooLong) {
				return out, c.fail(&TargetError{Kind: Malformed, Index: i, Request: abbreviate(reqs[i].String()), Detail: "its answer is " + ErrLineTooLong.Error(), TooLong: true})
			}
			if !ok || m.err != nil {
				return out, c.fail(&TargetError{Kind: Exited, Index: i, Request: abbreviate(reqs[i].String()), Detail: c.exitDetail(writeErr, m.err)})
			}
			resp, err := ParseResponse(reqs[i].Op, m.line)
			resp = cut(reqs[i], resp)
			if err != nil && c.cfg.InStep != nil && c.cfg.InStep(reqs[i].Op, m.line) {
				resp, err = Response{Op: reqs[i].Op, Malformed: true, Line: m.line}, nil
			}
			if err != nil {
				return out, c.fail(&TargetError{Kind: Malformed, Index: i, Request: abbreviate(reqs[i].String()), Line: abbreviate(m.line), Reason: err.Error(), Detail: "malformed response " + quoteField(m.line) + ": " + err.Error()})
			}
			select {
			case <-sem: // request i was sent (the writer takes a token first)
			default:
				// A line while no request waits for one: the target writes more lines than it
				// is asked (and, the writer being done or blocked, no token would come).
				return out, c.fail(&TargetError{Kind: Malformed, Index: i, Request: abbreviate(reqs[i].String()), Line: abbreviate(m.line), Reason: ReasonUnasked,
					Detail: "wrote " + quoteField(m.line) + " before request #" + strconv.Itoa(i) + " was sent: " + ReasonUnasked})
			}
			out = append(out, resp)
			i++
			if c.cfg.OnAnswer != nil {
				now := time.Now()
				c.cfg.OnAnswer(now.Sub(waitStart))
				waitStart = now
			}
			limit = time.Duration(c.timeout.Load())
			if done == nil {
				limit = min(limit, c.cfg.Grace)
			}
			timer.Reset(limit)
		case err := <-werr:
			writeErr = err // the reader sees the exit; keep reading the answers already sent
			werr = nil
		case <-done:
			// The target exited, but its stdout may stay open in a process it left behind:
			// the answers it wrote are read, and the wait for the next ends after Grace.
			done = nil
			limit = min(limit, c.cfg.Grace)
			timer.Reset(limit)
		case <-timer.C:
			if done == nil {
				return out, c.fail(&TargetError{Kind: Exited, Index: i, Request: abbreviate(reqs[i].String()), Detail: c.exitDetail(writeErr, nil) + " (a process it started still holds its stdout)"})
			}
			return out, c.fail(&TargetError{Kind: TimedOut, Index: i, Request: abbreviate(reqs[i].String()), Detail: fmt.Sprintf("no response within %v", limit), Timeout: limit})
		case <-c.ctx.Done():
			return out, c.fail(&TargetError{Kind: Exited, Index: i, Request: abbreviate(reqs[i].String()), Detail: "cancelled: " + c.ctx.Err().Error()})
		}
	}
	return out, nil
}

// Unasked waits at most wait for one line the target writes while no request waits for an
// answer, one it is known to write (a line after the first answer of each process), and
// returns it; false when none came in that time, the target's output ended, or the client
// failed before (nothing is asked, and the client stays as it was: a line that comes later is
// the next Do's first answer).
func (c *Client) Unasked(wait time.Duration) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return "", false
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case m, ok := <-c.lines:
		if !ok {
			return "", false
		}
		c.took(m)
		return m.line, m.err == nil
	case <-timer.C:
	case <-c.ctx.Done():
	}
	return "", false
}

// ErrNoBench is wrapped by the error of Client.Bench when the target did not announce bench.
var ErrNoBench = errors.New("target does not announce bench")

// BenchError is the error of Client.Bench when the target answered the bench request
// "error MESSAGE" (it refused it: a malformed request, an operation or an input it does not
// take, ...). The target keeps serving and the client stays usable.
type BenchError struct {
	Target  string // the command line
	Request string // the bench request line, abbreviated
	Msg     string // the target's MESSAGE
}

func (e *BenchError) Error() string {
	return fmt.Sprintf("target %s answered %s with: error %s", e.Target, e.Request, e.Msg)
}

// Bench asks the target to time req (an OpEscape, OpDecode or OpUTF8Decode request; Flags
// must be 0 unless OpEscape) run n times on its own side: it sends "bench OP FLAGS HEX N"
// and waits at most wait for the answer (wait <= 0: the current per-answer timeout, see
// Config.Timeout and SetTimeout). It returns the loop's elapsed time as the target measured
// it and the result of one run, parsed as the response to req (resp.Op is req.Op). The result
// is not checked: the caller should compare it with the oracle before trusting elapsed.
//
// The errors:
//
//   - a target that did not announce bench: an error wrapping ErrNoBench; a req the target
//     did not announce, or that bench cannot time (another Op, Flags on a decode operation),
//     or n outside [1, MaxBenchN]: an error. Nothing is sent, and the client stays usable.
//   - the target answered "error MESSAGE": a *BenchError carrying MESSAGE (resp then holds
//     it in ErrorMsg, too); the client stays usable.
//   - the target wrote a line that is not a bench answer (NANOSECONDS negative or not a
//     decimal, a RESULT that is not a well-formed answer to req): a *TargetError of kind
//     Malformed whose Line and message name the line; it exited, or did not answer within
//     wait: a *TargetError of kind Exited or TimedOut. In these cases, as in Do, the target is
//     killed and every later call returns the same error. The TargetError's Index is -1 and
//     its Request the bench line.
//
// Bench may be called between Do calls on the same client (not concurrently with them: it
// waits for a running Do). Its answer is not passed to Config.OnAnswer (a bench's wait says
// nothing about the latency of single requests).
func (c *Client) Bench(req Request, n int, wait time.Duration) (elapsed time.Duration, resp Response, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return 0, Response{}, c.broken
	}
	switch {
	case !c.Supports(OpBench):
		return 0, Response{}, fmt.Errorf("protocol: bench %s: %w: target %s announced: %s", req.Op, ErrNoBench, c.name, opList(c.ops))
	case !req.Op.Valid():
		return 0, Response{}, fmt.Errorf("protocol: bench: cannot time operation %s (want escape, decode or utf8_decode)", quoteField(string(req.Op)))
	case !c.Supports(req.Op):
		return 0, Response{}, fmt.Errorf("protocol: bench: target %s does not support %s (it announced: %s)", c.name, req.Op, opList(c.ops))
	case req.Op != OpEscape && req.Flags != 0:
		return 0, Response{}, fmt.Errorf("protocol: bench: FLAGS %d must be 0 for %s", req.Flags, req.Op)
	case n < 1 || n > MaxBenchN:
		return 0, Response{}, fmt.Errorf("protocol: bench: N %d is not in [1, %d]", n, MaxBenchN)
	}
	if wait <= 0 {
		wait = time.Duration(c.timeout.Load())
	}
	line := append(BenchRequest{Req: req, N: n}.AppendTo(nil), '\n')
	reqLine := abbreviate(string(line[:len(line)-1]))

	// The line is written by a goroutine, as Do's are, so that a target that stops reading
	// cannot block the wait; on a failure, fail kills the target and closes its stdin, which
	// ends the write. It must be done before the next call writes.
	werr := make(chan error, 1)
	wdone := make(chan struct{})
	go func() {
		defer close(wdone)
		_, err := c.bw.Write(line)
		if err == nil {
			err = c.bw.Flush()
		}
		if err != nil {
			werr <- err
		}
	}()
	defer func() { <-wdone }()

	timer := time.NewTimer(wait)
	defer timer.Stop()
	var writeErr error
	for {
		select {
		case m, ok := <-c.lines:
			c.took(m)
			if ok && errors.Is(m.err, ErrLineTooLong) {
				return 0, Response{}, c.fail(&TargetError{Kind: Malformed, Index: -1, Request: reqLine, Detail: "its bench answer is " + ErrLineTooLong.Error(), TooLong: true})
			}
			if !ok || m.err != nil {
				return 0, Response{}, c.fail(&TargetError{Kind: Exited, Index: -1, Request: reqLine, Detail: c.exitDetail(writeErr, m.err)})
			}
			br, err := ParseBenchResponse(req.Op, m.line)
			if err != nil {
				return 0, Response{}, c.fail(&TargetError{Kind: Malformed, Index: -1, Request: reqLine, Line: abbreviate(m.line), Detail: "malformed bench response " + quoteField(m.line) + ": " + err.Error()})
			}
			if br.Resp.ErrorMsg != "" {
				return 0, br.Resp, &BenchError{Target: c.name, Request: reqLine, Msg: br.Resp.ErrorMsg}
			}
			return br.Elapsed, br.Resp, nil
		case err := <-werr:
			writeErr = err // the reader sees the exit
			werr = nil
		case <-timer.C:
			return 0, Response{}, c.fail(&TargetError{Kind: TimedOut, Index: -1, Request: reqLine, Detail: fmt.Sprintf("no bench response within %v", wait), Timeout: wait})
		case <-c.ctx.Done():
			return 0, Response{}, c.fail(&TargetError{Kind: Exited, Index: -1, Request: reqLine, Detail: "cancelled: " + c.ctx.Err().Error()})
		}
	}
}

// write runs in its own goroutine for one Do: it writes reqs, taking a window slot for each,
// and flushes whenever it would wait for a slot and at the end. It reports a write error on
// werr (nothing on success).
func (c *Client) write(reqs []Request, sem, stop chan struct{}, werr chan<- error) {
	var line []byte
	for _, r := range reqs {
		select {
		case sem <- struct{}{}:
		default:
			if err := c.bw.Flush(); err != nil {
				werr <- err
				return
			}
			select {
			case sem <- struct{}{}:
			case <-stop:
				return
			}
		}
		line = append(r.AppendTo(line[:0]), '\n')
		if _, err := c.bw.Write(line); err != nil {
			werr <- err
			return
		}
	}
	if err := c.bw.Flush(); err != nil {
		werr <- err
	}
}

// fail completes e with what is known about the process, kills it and marks the client
// broken.
func (c *Client) fail(e *TargetError) error {
	e.Target = c.name
	exited := false
	if e.Kind == Exited {
		// The process closed stdout: give it a moment to exit so the status is known.
		select {
		case <-c.done:
			exited = true
		case <-time.After(c.cfg.Grace):
		}
	}
	c.kill()
	if exited {
		e.Status = exitStatus(c.wait)
	} else if e.Kind == Exited {
		e.Status = "still running after closing its stdout; killed"
	}
	e.Stderr = c.stderr.lastLines(c.cfg.StderrLines)
	c.broken = e
	return e
}

// kill ends the target (and its process group on Unix), waits for it and releases the pipes.
func (c *Client) kill() {
	c.quitOnce.Do(func() { close(c.quit) })
	select {
	case <-c.done:
	default:
		killProcess(c.cmd)
		select {
		case <-c.done:
		case <-time.After(c.cfg.Grace):
		}
	}
	killGroup(c.cmd) // what it left running in the background
	c.stdin.Close()
	c.stdout.Close()
}

func exitStatus(err error) string {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "exit status 0"
	case errors.As(err, &ee):
		return ee.ProcessState.String()
	}
	return err.Error()
}

// Close ends the session: it closes the target's stdin, waits up to Config.Grace for it to
// exit and kills it otherwise. It returns a *TargetError when the target had to be killed or
// exited with a status other than 0, and nil when it exits cleanly or was already killed after
// an earlier failure (which Do reported).
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		c.kill()
		return nil
	}
	c.stdin.Close()
	c.quitOnce.Do(func() { close(c.quit) })
	timer := time.NewTimer(c.cfg.Grace)
	defer timer.Stop()
	select {
	case <-c.done:
	case <-timer.C:
		c.kill()
		c.broken = errors.New("protocol: client closed")
		return &TargetError{Kind: TimedOut, Target: c.name, Index: -1, Detail: fmt.Sprintf("did not exit within %v of the end of its input; killed", c.cfg.Grace), Timeout: c.cfg.Grace, Stderr: c.stderr.lastLines(c.cfg.StderrLines)}
	}
	killGroup(c.cmd) // what it left running in the background
	c.stdout.Close()
	c.broken = errors.New("protocol: client closed")
	if c.wait != nil {
		return &TargetError{Kind: Exited, Target: c.name, Index: -1, Detail: "exited unsuccessfully at the end of its input", Status: exitStatus(c.wait), Stderr: c.stderr.lastLines(c.cfg.StderrLines)}
	}
	return nil
}

// Kill ends the session at once: it kills the target (with its process group on Unix)
// without waiting for it to exit on the end of its input, for a process whose answers are no
// longer wanted (one replaced before it would stop answering). Every later call returns an
// error.
func (c *Client) Kill() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken == nil {
		c.broken = errors.New("protocol: client killed")
	}
	c.kill()
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

// lastLines returns up to n last non-empty lines, each abbreviated.
func (t *tailBuffer) lastLines(n int) []string {
	t.mu.Lock()
	b := string(t.buf)
	t.mu.Unlock()
	if len(b) > t.max {
		b = b[len(b)-t.max:]
	}
	var out []string
	for _, l := range strings.Split(b, "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) != "" {
			out = append(out, abbreviate(l))
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// abbreviate shortens s for a message.
func abbreviate(s string) string {
	const max = 120
	if len(s) > max {
		return s[:max] + fmt.Sprintf("... (%d bytes)", len(s))
	}
	return s
}
