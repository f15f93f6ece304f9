// Package protocol implements both sides of the difffuzz target protocol, version 1
// (DESIGN.md §6): a line protocol on a target's stdin and stdout through which any
// implementation of PHP's json_encode string escaper, php_next_utf8_char() decoder or
// utf8_decode(), in any language, can be checked against the oracle.
//
// # The protocol
//
// On start the target writes one hello line, "difffuzz-target 1" followed by the operations it
// supports and, optionally, key=value fields announcing its capabilities: "options=MASK" (the
// option bits it implements) and "max-len=N" (the longest input it accepts, in bytes); a
// client ignores keys it does not know (see ParseHelloCaps, HelloWith, Capabilities). Then
// each request line gets exactly one response line, in request order; a client may pipeline.
// Fields are separated by one space. A byte string is hex (this package always writes
// lowercase and reads either case) and "-" is the empty string.
//
//	request                  response
//	escape FLAGS HEX         RESULT ERR    RESULT: hex of json_encode's string, or "false";
//	                                       ERR: json_last_error(), decimal
//	decode HEX               STEP ...      every php_next_utf8_char() step from position 0:
//	                                       "CP/ADVANCE" (CP lowercase hex) or "!/ADVANCE"
//	                                       for a failure; "-" for the empty string
//	utf8_decode HEX          HEX           utf8_decode()'s result
//	bench OP FLAGS HEX N     NS RESULT...  optional (announced as "bench" in the hello): OP
//	                                       (escape, decode or utf8_decode; FLAGS 0 unless
//	                                       escape) run N times (1 <= N <= MaxBenchN) on the
//	                                       target's side; NS: the whole loop's nanoseconds on
//	                                       its monotonic clock, decimal; RESULT...: one run's
//	                                       answer, exactly as to the plain OP request
//	(malformed or refused)   error MESSAGE the target keeps serving
//
// FLAGS is PHP's decimal option value (jsonopt.Options). Examples:
//
//	escape 2097152 e08041   →  225c75666666644122 0
//	escape 0 80             →  false 5
//	escape 512 80           →  6e756c6c 5
//	escape 32 31            →  31 0         (JSON_NUMERIC_CHECK: "1" is the number 1)
//	decode 41e08041c3a9     →  41/1 !/2 41/1 e9/2
//	utf8_decode 41c3a9      →  41e9
//	bench escape 0 41 1000  →  12345 224122 0
//	bench decode 0 41e08041 5 → 300 41/1 !/2 41/1
//	bench utf8_decode 0 41c3a9 10 → 800 41e9
//
// The bench operation times an implementation without the protocol's round trips: a client
// checks its RESULT (against the oracle) before it trusts NS. It checks nothing by itself,
// so it is not one of Ops (see OpBench, BenchRequest, BenchResponse, Client.Bench).
//
// At end of input the target exits with status 0. A line may end in "\r\n"; the "\r" is
// dropped. Lines have no length limit (inputs of megabytes are hex-encoded on one line).
//
// Serve is the target side (used by `difffuzz serve`); Client starts a target process and
// pipelines requests through it.
package protocol

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// Version is the protocol version this package speaks, announced in the hello line.
const Version = 1

// helloMagic is the first field of a hello line.
const helloMagic = "difffuzz-target"

// Op is a protocol operation: the first field of a request line.
type Op string

// The operations of protocol version 1.
const (
	OpEscape     Op = "escape"      // json_encode($s, FLAGS) of one string: "escape FLAGS HEX"
	OpDecode     Op = "decode"      // all php_next_utf8_char() steps of a string: "decode HEX"
	OpUTF8Decode Op = "utf8_decode" // utf8_decode($s): "utf8_decode HEX"

	// OpBench is the optional timing operation, "bench OP FLAGS HEX N" (BenchRequest,
	// BenchResponse). A hello may announce it like the others, but it is not Valid, not in
	// Ops and not a Request's Op: it checks nothing, it times one of the operations that do.
	OpBench Op = "bench"
)

// Ops lists every checkable operation of protocol version 1, in hello order: the operations
// a Request carries and a campaign compares. OpBench is not among them.
var Ops = []Op{OpEscape, OpDecode, OpUTF8Decode}

// Valid reports whether op is a checkable operation of protocol version 1 (one of Ops).
// OpBench is not Valid; ParseHelloCaps accepts it in a hello all the same.
func (op Op) Valid() bool {
	return op == OpEscape || op == OpDecode || op == OpUTF8Decode
}

// Request is one request: Flags is used by OpEscape only and must be 0 for the others.
type Request struct {
	Op    Op
	Flags jsonopt.Options
	Input []byte
}

// AppendTo appends the request line, without its newline, to b and returns the extended
// buffer. An invalid Op is rendered as given (the target will answer "error ...").
func (r Request) AppendTo(b []byte) []byte {
	b = append(b, r.Op...)
	if r.Op == OpEscape {
		b = append(b, ' ')
		b = strconv.AppendUint(b, uint64(r.Flags), 10)
	}
	b = append(b, ' ')
	return appendHex(b, r.Input)
}

// String returns the request line without its newline, e.g. "escape 512 80".
func (r Request) String() string { return string(r.AppendTo(nil)) }

// ParseRequest parses one plain request line (without its newline; a trailing "\r" is
// tolerated); a bench line is an error (see ParseBenchRequest).
// It is strict: the operation must be one of Ops, spelled in lowercase; the number of fields
// must be exact (escape: 3, decode and utf8_decode: 2) with single spaces between them; FLAGS
// must be a decimal integer in [0, 2^32) without sign; HEX must be an even number of hex digits
// (either case) or "-" for the empty string. The error names the field and the problem.
func ParseRequest(line string) (Request, error) {
	line = strings.TrimSuffix(line, "\r")
	if line == "" {
		return Request{}, errors.New("empty request line")
	}
	f := strings.Split(line, " ")
	op := Op(f[0])
	var r Request
	switch op {
	case OpEscape:
		if len(f) != 3 {
			return r, fieldCountError(op, "FLAGS HEX", len(f)-1)
		}
		v, err := strconv.ParseUint(f[1], 10, 32)
		if err != nil {
			return r, fmt.Errorf("escape: FLAGS %s is not a decimal integer in [0, 4294967295]", quoteField(f[1]))
		}
		in, err := parseHex(f[2])
		if err != nil {
			return r, fmt.Errorf("escape: HEX: %v", err)
		}
		return Request{Op: op, Flags: jsonopt.Options(v), Input: in}, nil
	case OpDecode, OpUTF8Decode:
		if len(f) != 2 {
			return r, fieldCountError(op, "HEX", len(f)-1)
		}
		in, err := parseHex(f[1])
		if err != nil {
			return r, fmt.Errorf("%s: HEX: %v", op, err)
		}
		return Request{Op: op, Input: in}, nil
	}
	if f[0] == "" {
		return r, errors.New("request line starts with a space")
	}
	if op == OpBench {
		return r, errors.New("bench is not a plain request (a bench line is parsed by ParseBenchRequest)")
	}
	return r, fmt.Errorf("unknown operation %s (want escape, decode or utf8_decode)", quoteField(f[0]))
}

func fieldCountError(op Op, want string, got int) error {
	return fmt.Errorf("%s takes %d field(s) (%s %s), got %d", op, strings.Count(want, " ")+1, op, want, got)
}

// Response is one response line. Which fields are meaningful depends on the operation:
//
//   - OpEscape: Result is the string json_encode returned (a JSON string with its quotes, or
//     under JSON_NUMERIC_CHECK a number, such as 1 for "1"), or False is true when it returned
//     false (Result is then nil); Err is json_last_error().
//   - OpDecode: Steps are the decoder steps from position 0 (none for the empty string).
//   - OpUTF8Decode: Result is utf8_decode()'s result.
//
// ErrorMsg is set, and nothing else, when the target answered "error MESSAGE" (a malformed or
// refused request: an operation or option bits the target does not announce, an input longer
// than its max-len, or an implementation error that carries no PHP error code).
type Response struct {
	Op       Op
	Result   []byte
	False    bool
	Err      int
	Steps    []jsonopt.Step
	ErrorMsg string
	// Malformed is set for a line that is not an answer, taken for this request's answer
	// (Config.InStep): Line holds it, and the other fields are unset.
	Malformed bool
	Line      string
	// Cut is, for an answer longer than any right one that a Client cut (see Keep), how
	// long it was: its result's bytes (escape, utf8_decode) or its steps (decode); Result or
	// Steps hold its start. 0 for an answer kept whole.
	Cut int
}

// Keep is how much of an answer to req a Client keeps: result bytes (escape, utf8_decode) or
// steps (decode). Every right answer is shorter (json_encode writes at most 6 bytes per input
// byte and its quotes, utf8_decode at most one, a decoder one step per byte): the rest of a
// longer one is dropped (Response.Cut), so that an answer of megabytes to a short request
// costs no more than its start.
func Keep(req Request) int { return 6*len(req.Input) + 4096 }

// cut drops what r holds past Keep(req), copying what it keeps (see Response.Cut).
func cut(req Request, r Response) Response {
	k := Keep(req)
	if len(r.Result) > k {
		r.Cut, r.Result = len(r.Result), bytes.Clone(r.Result[:k])
	}
	if len(r.Steps) > k {
		r.Cut, r.Steps = len(r.Steps), slices.Clone(r.Steps[:k])
	}
	return r
}

// AppendTo appends the response line, without its newline, to b and returns the extended
// buffer. A newline or carriage return inside ErrorMsg is written as a space so that the
// response stays one line; an empty ErrorMsg cannot be told apart from no error and is
// therefore never an error response.
func (r Response) AppendTo(b []byte) []byte {
	if r.ErrorMsg != "" {
		b = append(b, "error "...)
		for i := 0; i < len(r.ErrorMsg); i++ {
			c := r.ErrorMsg[i]
			if c == '\n' || c == '\r' {
				c = ' '
			}
			b = append(b, c)
		}
		return b
	}
	switch r.Op {
	case OpEscape:
		if r.False {
			b = append(b, "false"...)
		} else {
			b = appendHex(b, r.Result)
		}
		b = append(b, ' ')
		return strconv.AppendInt(b, int64(r.Err), 10)
	case OpDecode:
		if len(r.Steps) == 0 {
			return append(b, '-')
		}
		for i, s := range r.Steps {
			if i > 0 {
				b = append(b, ' ')
			}
			if s.OK {
				b = strconv.AppendUint(b, uint64(s.CP), 16)
			} else {
				b = append(b, '!')
			}
			b = append(b, '/')
			b = strconv.AppendInt(b, int64(s.Advance), 10)
		}
		return b
	default: // OpUTF8Decode
		return appendHex(b, r.Result)
	}
}

// String returns the response line without its newline, e.g. "6e756c6c 5", "41/1 !/2", "-".
func (r Response) String() string { return string(r.AppendTo(nil)) }

// ParseResponse parses the response line to a request of operation op (without its newline;
// a trailing "\r" is tolerated). "error MESSAGE" gives a Response with ErrorMsg set and a nil
// error ("error" alone gives the message "(no message)"). Anything that is not a well-formed
// response for op is an error naming the problem:
//
//   - escape: exactly two fields; RESULT is "false", "-" or an even number of hex digits;
//     ERR is a decimal integer in [0, 2^31).
//   - decode: "-", or one or more steps "CP/ADVANCE" or "!/ADVANCE" with CP 1–8 hex digits and
//     ADVANCE a decimal integer >= 1.
//   - utf8_decode: exactly one field, "-" or an even number of hex digits.
//
// Whether a well-formed response is right (steps that cover the input, a plausible error
// code) is for the caller to judge.
func ParseResponse(op Op, line string) (Response, error) {
	line = strings.TrimSuffix(line, "\r")
	r := Response{Op: op}
	if line == "error" {
		r.ErrorMsg = "(no message)"
		return r, nil
	}
	if msg, ok := strings.CutPrefix(line, "error "); ok {
		if msg == "" {
			msg = "(no message)"
		}
		r.ErrorMsg = msg
		return r, nil
	}
	if line == "" {
		return r, errors.New("empty response line")
	}
	f := strings.Split(line, " ")
	switch op {
	case OpEscape:
		if len(f) != 2 {
			return r, fmt.Errorf("escape response has %d field(s), want 2 (RESULT ERR)", len(f))
		}
		if f[0] == "false" {
			r.False = true
		} else {
			res, err := parseHex(f[0])
			if err != nil {
				return r, fmt.Errorf("escape response: RESULT is neither false nor hex: %v", err)
			}
			r.Result = res
		}
		e, err := strconv.ParseUint(f[1], 10, 31)
		if err != nil {
			return r, fmt.Errorf("escape response: ERR %s is not a decimal integer in [0, 2147483647]", quoteField(f[1]))
		}
		r.Err = int(e)
		return r, nil
	case OpDecode:
		if line == "-" {
			return r, nil
		}
		r.Steps = make([]jsonopt.Step, 0, len(f))
		for i, s := range f {
			st, err := parseStep(s)
			if err != nil {
				return Response{Op: op}, fmt.Errorf("decode response: step %d: %v", i+1, err)
			}
			r.Steps = append(r.Steps, st)
		}
		return r, nil
	case OpUTF8Decode:
		if len(f) != 1 {
			return r, fmt.Errorf("utf8_decode response has %d fields, want 1 (HEX)", len(f))
		}
		res, err := parseHex(f[0])
		if err != nil {
			return r, fmt.Errorf("utf8_decode response: %v", err)
		}
		r.Result = res
		return r, nil
	}
	return r, fmt.Errorf("unknown operation %s", quoteField(string(op)))
}

// parseStep parses "CP/ADVANCE" or "!/ADVANCE".
func parseStep(s string) (jsonopt.Step, error) {
	cp, adv, ok := strings.Cut(s, "/")
	if !ok {
		return jsonopt.Step{}, fmt.Errorf("%s is not CP/ADVANCE or !/ADVANCE", quoteField(s))
	}
	a, err := strconv.ParseUint(adv, 10, 31)
	if err != nil || a == 0 {
		return jsonopt.Step{}, fmt.Errorf("%s: ADVANCE %s is not a decimal integer >= 1", quoteField(s), quoteField(adv))
	}
	if cp == "!" {
		return jsonopt.Step{Advance: int(a)}, nil
	}
	if cp == "" || len(cp) > 8 || !isHex(cp) {
		return jsonopt.Step{}, fmt.Errorf("%s: CP %s is neither 1-8 hex digits nor \"!\"", quoteField(s), quoteField(cp))
	}
	v, _ := strconv.ParseUint(cp, 16, 32)
	return jsonopt.Step{CP: uint32(v), Advance: int(a), OK: true}, nil
}

// Hello returns the hello line a target writes first, without its newline:
// "difffuzz-target 1" followed by ops, e.g. "difffuzz-target 1 escape decode utf8_decode" or,
// for a target that answers bench, "difffuzz-target 1 escape decode utf8_decode bench" (ops
// is written as given: a target lists OpBench in it, last by convention). It announces no
// capabilities; see HelloWith.
func Hello(ops []Op) string {
	var b strings.Builder
	b.WriteString(helloMagic)
	b.WriteString(" ")
	b.WriteString(strconv.Itoa(Version))
	for _, op := range ops {
		b.WriteString(" ")
		b.WriteString(string(op))
	}
	return b.String()
}

// The keys of the hello's key=value fields that this package knows (DESIGN.md §6).
const (
	keyOptions = "options" // options=MASK: decimal option bits (uint32) the target implements
	keyMaxLen  = "max-len" // max-len=N: longest input the target accepts, in bytes, 1 <= N < 2^31
)

// maxMaxLen is the largest max-len a hello may announce (2^31-1 bytes).
const maxMaxLen = 1<<31 - 1

// Capabilities are what a target announced in its hello beyond its operations (DESIGN.md §6).
//
// ParseHelloCaps fills them from a hello line; HelloWith writes them; Handler.Caps makes Serve
// announce and enforce them. For HelloWith and Serve, Options counts only when OptionsSet is
// true, so the zero value announces and refuses nothing. ParseHelloCaps always sets Options
// (to every bit, ^0, when options= was not announced), so that a client can test
// req.Flags&^caps.Options == 0 without looking at OptionsSet.
type Capabilities struct {
	Options    jsonopt.Options // option bits the target implements; every bit (^0) when not announced
	OptionsSet bool            // options= was announced
	MaxLen     int             // longest input accepted, in bytes; 0: no limit announced
	Ignored    []string        // key=value fields whose keys this client does not know, as given
}

// HelloWith returns the hello line of a target that supports ops and announces caps, without
// its newline: Hello(ops) followed by "options=MASK" (only when caps.OptionsSet; MASK is
// caps.Options in decimal) and "max-len=N" (only when caps.MaxLen > 0), in that order, e.g.
// "difffuzz-target 1 escape options=7344095 max-len=65536" for a target that implements every
// option PHP names but JSON_NUMERIC_CHECK and accepts inputs up to 64 KiB. caps.Ignored is not
// written. A MaxLen above 2^31-1 is written as given, and ParseHelloCaps rejects the line.
func HelloWith(ops []Op, caps Capabilities) string {
	b := []byte(Hello(ops))
	if caps.OptionsSet {
		b = append(b, " "+keyOptions+"="...)
		b = strconv.AppendUint(b, uint64(caps.Options), 10)
	}
	if caps.MaxLen > 0 {
		b = append(b, " "+keyMaxLen+"="...)
		b = strconv.AppendInt(b, int64(caps.MaxLen), 10)
	}
	return string(b)
}

// ParseHello parses a hello line (without its newline; a trailing "\r" is tolerated). It
// returns the announced protocol version and, for version 1, the announced operations (OpBench
// included when announced: see ParseHelloCaps). It is
// ParseHelloCaps without the capabilities: the same lines are accepted and rejected, with the
// same errors.
func ParseHello(line string) (version int, ops []Op, err error) {
	version, ops, _, err = ParseHelloCaps(line)
	return version, ops, err
}

// ParseHelloCaps parses a hello line (without its newline; a trailing "\r" is tolerated):
// "difffuzz-target VERSION", then the operation names, then key=value fields, all separated
// by single spaces. It returns the announced protocol version and, for version 1, the
// announced operations and capabilities.
//
// A line that does not start with "difffuzz-target N" is an error. A version other than
// Version is returned together with an error saying so (ops and caps are then zero: the
// meaning of the rest is unknown). For version 1 every field after the version that contains
// no "=" is an operation name, and every field that contains one is a key=value field (split
// at the first "="). The operation names are those of Ops and OpBench, in any order; ops
// returns them as announced, OpBench included, so a caller that wants the checkable
// operations leaves OpBench out (Client.Ops does). The line is malformed, and the error names
// the field, when
//
//   - an operation is unknown or repeated (no operations at all is allowed);
//   - an operation name comes after a key=value field;
//   - a key is empty or not of the form [a-z0-9][a-z0-9-]*, or a value is empty;
//   - a known key is repeated, or its value is bad: options= must be a decimal integer in
//     [0, 2^32), max-len= a decimal integer in [1, 2^31-1] (no sign; leading zeros are
//     allowed, as in a request's FLAGS).
//
// A field whose key this package does not know is valid, whatever its non-empty value, and is
// returned as given in caps.Ignored, so that a target may announce what only newer clients
// use. caps.Options is ^0 when options= is absent. On an error ops and caps are zero.
func ParseHelloCaps(line string) (version int, ops []Op, caps Capabilities, err error) {
	line = strings.TrimSuffix(line, "\r")
	f := strings.Split(line, " ")
	if f[0] != helloMagic || len(f) < 2 {
		return 0, nil, Capabilities{}, fmt.Errorf("hello %s does not start with %q and a version", quoteField(line), helloMagic+" ")
	}
	v, err := strconv.ParseUint(f[1], 10, 31)
	if err != nil {
		return 0, nil, Capabilities{}, fmt.Errorf("hello: version %s is not a decimal integer", quoteField(f[1]))
	}
	if int(v) != Version {
		return int(v), nil, Capabilities{}, fmt.Errorf("target speaks protocol version %d; this client speaks version %d", v, Version)
	}
	fail := func(format string, args ...any) (int, []Op, Capabilities, error) {
		return Version, nil, Capabilities{}, fmt.Errorf("hello: "+format, args...)
	}
	caps.Options = ^jsonopt.Options(0)
	seen := map[Op]bool{}
	var firstField string // the first key=value field, once seen
	for _, s := range f[2:] {
		key, val, isField := strings.Cut(s, "=")
		if !isField {
			if firstField != "" {
				return fail("operation %s after the key=value field %s (operations come first)", quoteField(s), quoteField(firstField))
			}
			op := Op(s)
			if !op.Valid() && op != OpBench {
				return fail("unknown operation %s (version 1 has escape, decode, utf8_decode, bench)", quoteField(s))
			}
			if seen[op] {
				return fail("operation %s announced twice", op)
			}
			seen[op] = true
			ops = append(ops, op)
			continue
		}
		if firstField == "" {
			firstField = s
		}
		switch {
		case key == "":
			return fail("field %s has an empty key", quoteField(s))
		case !validKey(key):
			return fail("field %s: key %s is not of the form [a-z0-9][a-z0-9-]*", quoteField(s), quoteField(key))
		case val == "":
			return fail("field %s has an empty value", quoteField(s))
		}
		switch key {
		case keyOptions:
			if caps.OptionsSet {
				return fail("%s= announced twice", key)
			}
			m, err := strconv.ParseUint(val, 10, 32)
			if err != nil {
				return fail("%s=%s: MASK is not a decimal integer in [0, 4294967295]", key, quoteField(val))
			}
			caps.Options, caps.OptionsSet = jsonopt.Options(m), true
		case keyMaxLen:
			if caps.MaxLen > 0 {
				return fail("%s= announced twice", key)
			}
			n, err := strconv.ParseUint(val, 10, 31)
			if err != nil || n == 0 {
				return fail("%s=%s: N is not a decimal integer in [1, %d]", key, quoteField(val), maxMaxLen)
			}
			caps.MaxLen = int(n)
		default:
			caps.Ignored = append(caps.Ignored, s)
		}
	}
	return Version, ops, caps, nil
}

// validKey reports whether k matches [a-z0-9][a-z0-9-]*.
func validKey(k string) bool {
	if k == "" || k[0] == '-' {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// refusal returns the message with which a target announcing caps refuses req ("" when it
// accepts it): an escape whose FLAGS has bits outside caps.Options (only when
// caps.OptionsSet), or an input longer than caps.MaxLen bytes (only when caps.MaxLen > 0).
func (caps Capabilities) refusal(req Request) string {
	if req.Op == OpEscape && caps.OptionsSet {
		if out := req.Flags &^ caps.Options; out != 0 {
			return fmt.Sprintf("escape: FLAGS %d has option bits %d (%s) outside this target's %s=%d", req.Flags, out, out, keyOptions, caps.Options)
		}
	}
	if caps.MaxLen > 0 && len(req.Input) > caps.MaxLen {
		return fmt.Sprintf("%s: input of %d bytes is longer than this target's %s=%d", req.Op, len(req.Input), keyMaxLen, caps.MaxLen)
	}
	return ""
}

// appendHex appends the lowercase hex of s to b, or "-" when s is empty.
func appendHex(b, s []byte) []byte {
	if len(s) == 0 {
		return append(b, '-')
	}
	n := len(b)
	b = append(b, make([]byte, 2*len(s))...)
	hex.Encode(b[n:], s)
	return b
}

// parseHex decodes a protocol byte string: "-" or a non-empty even number of hex digits.
func parseHex(s string) ([]byte, error) {
	if s == "-" {
		return []byte{}, nil
	}
	if s == "" {
		return nil, errors.New("empty field (the empty string is written -)")
	}
	if len(s)%2 != 0 {
		return nil, fmt.Errorf("odd number of hex digits (%d)", len(s))
	}
	b := make([]byte, len(s)/2)
	if _, err := hex.Decode(b, []byte(s)); err != nil {
		var ib hex.InvalidByteError
		if errors.As(err, &ib) {
			i := strings.IndexByte(s, byte(ib))
			return nil, fmt.Errorf("byte %q at offset %d is not a hex digit", byte(ib), i)
		}
		return nil, err
	}
	return b, nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// quoteField quotes a field for an error message, abbreviating long ones.
func quoteField(s string) string {
	const max = 64
	if len(s) > max {
		return strconv.Quote(s[:max]) + fmt.Sprintf("... (%d bytes)", len(s))
	}
	return strconv.Quote(s)
}
