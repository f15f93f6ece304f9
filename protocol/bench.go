package protocol

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// MaxBenchN is the largest N a bench request may ask for.
const MaxBenchN = 1_000_000_000

// BenchRequest is the optional request "bench OP FLAGS HEX N" (DESIGN.md §6): run Req's
// operation on Req's input N times on the target's side and answer the elapsed time of the
// whole loop with the result of one run (BenchResponse).
//
// Req.Op is OpEscape, OpDecode or OpUTF8Decode; Req.Flags is the escape's options and must be
// 0 for the other two (unlike in a plain request, FLAGS is always written); 1 <= N <=
// MaxBenchN.
type BenchRequest struct {
	Req Request
	N   int
}

// AppendTo appends the request line, without its newline, to b and returns the extended
// buffer: "bench OP FLAGS HEX N", e.g. "bench escape 0 41 1000" or "bench decode 0 41e08041 5".
// The fields are written as given, valid or not (a target answers a bad one "error ...").
func (r BenchRequest) AppendTo(b []byte) []byte {
	b = append(b, OpBench...)
	b = append(b, ' ')
	b = append(b, r.Req.Op...)
	b = append(b, ' ')
	b = strconv.AppendUint(b, uint64(r.Req.Flags), 10)
	b = append(b, ' ')
	b = appendHex(b, r.Req.Input)
	b = append(b, ' ')
	return strconv.AppendInt(b, int64(r.N), 10)
}

// String returns the request line without its newline, e.g. "bench utf8_decode 0 41c3a9 10".
func (r BenchRequest) String() string { return string(r.AppendTo(nil)) }

// ParseBenchRequest parses one bench request line (without its newline; a trailing "\r" is
// tolerated), as strictly as ParseRequest parses the plain ones: exactly 5 fields separated
// by single spaces; OP one of Ops (not "bench"); FLAGS a decimal integer in [0, 2^32) without
// sign, and 0 unless OP is escape (leading zeros are allowed); HEX an even number of hex
// digits (either case) or "-"; N a decimal integer in [1, MaxBenchN] without sign. The error
// names the field and the problem; the checks are made in field order.
func ParseBenchRequest(line string) (BenchRequest, error) {
	line = strings.TrimSuffix(line, "\r")
	if line == "" {
		return BenchRequest{}, errors.New("empty request line")
	}
	f := strings.Split(line, " ")
	if Op(f[0]) != OpBench {
		return BenchRequest{}, fmt.Errorf("request %s is not a bench request", quoteField(line))
	}
	if len(f) != 5 {
		return BenchRequest{}, fieldCountError(OpBench, "OP FLAGS HEX N", len(f)-1)
	}
	op := Op(f[1])
	switch {
	case op == OpBench:
		return BenchRequest{}, errors.New(`bench: OP "bench" cannot be timed (want escape, decode or utf8_decode)`)
	case !op.Valid():
		return BenchRequest{}, fmt.Errorf("bench: unknown operation %s (want escape, decode or utf8_decode)", quoteField(f[1]))
	}
	flags, err := strconv.ParseUint(f[2], 10, 32)
	if err != nil {
		return BenchRequest{}, fmt.Errorf("bench: FLAGS %s is not a decimal integer in [0, 4294967295]", quoteField(f[2]))
	}
	if op != OpEscape && flags != 0 {
		return BenchRequest{}, fmt.Errorf("bench: FLAGS %d must be 0 for %s", flags, op)
	}
	in, err := parseHex(f[3])
	if err != nil {
		return BenchRequest{}, fmt.Errorf("bench: HEX: %v", err)
	}
	n, err := strconv.ParseUint(f[4], 10, 64)
	if err != nil || n < 1 || n > MaxBenchN {
		return BenchRequest{}, fmt.Errorf("bench: N %s is not a decimal integer in [1, %d]", quoteField(f[4]), MaxBenchN)
	}
	return BenchRequest{Req: Request{Op: op, Flags: jsonopt.Options(flags), Input: in}, N: int(n)}, nil
}

// BenchResponse is the answer to a BenchRequest: "NANOSECONDS RESULT...", or "error MESSAGE".
type BenchResponse struct {
	// Elapsed is NANOSECONDS: the time the target measured, on its monotonic clock, for the
	// whole loop of N runs.
	Elapsed time.Duration
	// Resp is the result of one run, exactly as the answer to the plain request (Resp.Op is
	// the bench request's OP), or Resp.ErrorMsg alone when the target answered "error MESSAGE".
	Resp Response
}

// AppendTo appends the response line, without its newline, to b and returns the extended
// buffer: "error MESSAGE" when Resp.ErrorMsg is set (as Response.AppendTo writes it),
// otherwise Elapsed in decimal nanoseconds (a negative one as given, which ParseBenchResponse
// rejects), a space and Resp.
func (r BenchResponse) AppendTo(b []byte) []byte {
	if r.Resp.ErrorMsg != "" {
		return r.Resp.AppendTo(b)
	}
	b = strconv.AppendInt(b, int64(r.Elapsed), 10)
	b = append(b, ' ')
	return r.Resp.AppendTo(b)
}

// String returns the response line without its newline, e.g. "12345 224122 0".
func (r BenchResponse) String() string { return string(r.AppendTo(nil)) }

// ParseBenchResponse parses the response line to a bench request whose OP is op (without its
// newline; a trailing "\r" is tolerated). "error MESSAGE" gives a BenchResponse with
// Resp.ErrorMsg set and a nil error, as ParseResponse does. Otherwise the line must be
// NANOSECONDS, a decimal integer in [0, 2^63) without sign, one space, and a well-formed
// response to a plain request of op (ParseResponse), which cannot be "error ...": the error
// names the problem.
func ParseBenchResponse(op Op, line string) (BenchResponse, error) {
	line = strings.TrimSuffix(line, "\r")
	if line == "error" || strings.HasPrefix(line, "error ") {
		resp, err := ParseResponse(op, line)
		return BenchResponse{Resp: resp}, err
	}
	r := BenchResponse{Resp: Response{Op: op}}
	if !op.Valid() {
		return r, fmt.Errorf("bench response: unknown operation %s", quoteField(string(op)))
	}
	if line == "" {
		return r, errors.New("empty response line")
	}
	ns, rest, ok := strings.Cut(line, " ")
	if !ok {
		return r, fmt.Errorf("bench response %s has 1 field, want NANOSECONDS and the %s result", quoteField(line), op)
	}
	v, err := strconv.ParseUint(ns, 10, 63)
	if err != nil {
		return r, fmt.Errorf("bench response: NANOSECONDS %s is not a decimal integer in [0, 9223372036854775807]", quoteField(ns))
	}
	if rest == "error" || strings.HasPrefix(rest, "error ") {
		return r, fmt.Errorf("bench response: the result after NANOSECONDS is %s (a refusal is answered \"error MESSAGE\" alone)", quoteField(rest))
	}
	resp, err := ParseResponse(op, rest)
	if err != nil {
		return r, fmt.Errorf("bench response: %v", err)
	}
	return BenchResponse{Elapsed: time.Duration(v), Resp: resp}, nil
}

// isBenchLine reports whether a request line is a bench request (well-formed or not).
func isBenchLine(line string) bool {
	op, _, _ := strings.Cut(strings.TrimSuffix(line, "\r"), " ")
	return Op(op) == OpBench
}
