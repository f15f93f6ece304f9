package fuzz

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/difffuzz/difffuzz/boundary"
	"github.com/difffuzz/difffuzz/internal/phplit"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// Kind classifies a finding (DESIGN.md §4).
type Kind string

// The kinds of finding.
const (
	KindError         Kind = "error-differs"  // the candidate failed where the oracle did not, or with another code
	KindOutput        Kind = "output-differs" // same error, different bytes
	KindStep          Kind = "step-differs"   // a decoder step differs in code point, advance or status
	KindPanic         Kind = "panic"          // the candidate panicked
	KindInputModified Kind = "input-modified" // the candidate wrote to its input
	KindDstPrefix     Kind = "dst-prefix"     // the candidate changed bytes of dst before len(dst)
)

// Finding is one difference between a candidate and the oracle on one input.
type Finding struct {
	Kind  Kind            `json:"kind"`
	Op    Op              `json:"op"`
	Impl  string          `json:"impl"`
	Input []byte          `json:"-"`
	Flags jsonopt.Options `json:"-"` // escape only

	// Escape and utf8_decode: the two results. Nothing appended and an error code means
	// "returned false", unless GotEmpty: a target that answered "" with the error code
	// (protocol RESULT "-", not "false").
	Want, Got       []byte `json:"-"`
	WantErr, GotErr int    `json:"-"`
	GotEmpty        bool   `json:"-"`

	// Decode: the step position and the two steps.
	Pos      int          `json:"-"`
	WantStep jsonopt.Step `json:"-"`
	GotStep  jsonopt.Step `json:"-"`

	Detail string `json:"detail,omitempty"` // panic value, or what else went wrong

	// External is true when Impl is an external target (--exec): Impl is then its command,
	// or its short name (--exec name=CMD) and Command its command.
	External bool   `json:"-"`
	Command  string `json:"-"`

	// Versus is the other build of a build-against-build run (--reference-exec): Impl's
	// answer (Got) differs from Versus's; Want is PHP's.
	Versus *Versus `json:"-"`

	malformed *string // a target-protocol finding's line, when it is whole (see Target.inStep)

	// Origin says where the input came from and how it was minimized ("random --seed 1,
	// input #42; minimized from 87 to 17 bytes"), "" when that is just the space it was in.
	Origin string `json:"-"`

	// Space is the input space that found it ("exhaustive", "boundary", "random", ...); set by
	// the campaigns before a finding reaches their Sink.
	Space string `json:"-"`

	// Minimized is set on a finding Minimize made: its input and options are 1-minimal.
	Minimized bool `json:"-"`

	// Anchored is set on a minimized finding whose input is filler 'a' (at least MinFiller
	// bytes) around the bytes that matter and which fails with those bytes at no other
	// offset: a defect of a place in the input (a vector kernel's lane or edge), not of what
	// the bytes are. A witness whose filler is only needed for the length (a kernel that
	// mishandles a byte anywhere in a full 16-byte chunk) is not anchored, and its bytes sit
	// at the first offset where they fail.
	Anchored bool `json:"-"`

	// Loc places the first difference on the chunk grid of vector code: its offset, 16-byte
	// chunk, lane and nearest 16-, 32- or 64-byte edge, and how the input was laid out. Set
	// by the boundary space (nil elsewhere).
	Loc *Location `json:"-"`
}

// Sink receives every raw finding of a campaign as it is made (ExhaustiveConfig.Sink,
// BoundaryConfig.Sink, RandomConfig.Sink, TargetConfig.Sink): the campaigns keep only a few
// findings per operation and candidate in their Report, a Sink sees them all (package report
// groups them into defect classes). Add may be called from several goroutines at once; the
// finding is not modified after Add and may be kept.
type Sink interface {
	Add(f *Finding)
}

// Location says where a finding's first difference lies and how its input was built
// (boundary space findings).
type Location struct {
	boundary.Loc // Off, Chunk, Lane and the nearest edge (boundary.Locate)

	// Output is set when Off counts bytes of the output appended to dst (dst-overflow and
	// dst-prefix findings) rather than bytes of the input.
	Output bool

	Family    string          // the boundary family ("straddle", "embed3", ...)
	Placement string          // the boundary placement: family, index, units and offsets, dst layout
	Layout    boundary.Layout // where the input lay: flush against the guard page at its end or start, or aligned
	Align     int             // the input's address mod 64
}

// String is "input offset 20: chunk 1, lane 4 of 16, 4 bytes after the 16-byte edge at 16".
func (l *Location) String() string {
	what := "input"
	if l.Output {
		what = "output"
	}
	return fmt.Sprintf("%s offset %d: %s", what, l.Off, l.Loc)
}

// FirstDiff returns the first offset at which a and b differ, or -1 if they are equal.
func FirstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return n
	}
	return -1
}

// insertionPoint refines the first difference d between want and got: when got is want
// with bytes inserted (the candidate wrote more, then the rest of want), the inserted bytes
// may share a prefix with what follows them, so the insertion can start before d; it
// returns the leftmost point where it can. For any other difference it returns d.
func insertionPoint(want, got []byte, d int) int {
	k := len(got) - len(want)
	if k <= 0 || d > len(want) || string(got[d+k:]) != string(want[d:]) {
		return d
	}
	for d > 0 && want[d-1] == got[d-1+k] {
		d--
	}
	return d
}

// Replay is a shell command that reproduces the candidate's side of the finding.
func (f *Finding) Replay() string {
	if f.External {
		return replayExternal(f)
	}
	h := hex.EncodeToString(f.Input)
	if h == "" {
		h = `""`
	}
	switch f.Op {
	case OpEscape:
		return fmt.Sprintf("go run ./cmd/difffuzz escape --impl %s --flags %d --hex %s", f.Impl, uint32(f.Flags), h)
	case OpDecode:
		return fmt.Sprintf("go run ./cmd/difffuzz decode --impl %s --hex %s", f.Impl, h)
	default:
		return fmt.Sprintf("go run ./cmd/difffuzz utf8-decode --impl %s --hex %s", f.Impl, h)
	}
}

// SpacedHex is b as space-separated hex bytes ("e0 80 41"), "(empty)" for none.
func SpacedHex(b []byte) string {
	if len(b) == 0 {
		return "(empty)"
	}
	var sb strings.Builder
	for i, c := range b {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(hex.EncodeToString([]byte{c}))
	}
	return sb.String()
}

// StepText renders one decoder step for a person: "U+00E9/2" for U+00E9 in two bytes,
// "fail/1" for a failure that advanced one byte, "(none)" for a step that is not there (the
// zero Step: a target's answer that ended early, or the oracle's end of input).
func StepText(s jsonopt.Step) string {
	switch {
	case s.Advance == 0 && !s.OK:
		return "(none)"
	case !s.OK:
		return fmt.Sprintf("fail/%d", s.Advance)
	}
	return fmt.Sprintf("U+%04X/%d", s.CP, s.Advance)
}

// ResultText renders one side of a comparison: the bytes as a PHP expression (phplit.Quote:
// '"a\/b"', "\xc3" . '('), for escape with json_last_error() when errCode is not 0, or
// "false (json_last_error()=5)" when an escape appended nothing and failed.
func ResultText(b []byte, errCode int, isEscape bool) string {
	return resultText(b, errCode, isEscape, false, -1)
}

// GotText is ResultText of f's candidate answer: the empty string with an error code when the target
// answered the empty string (GotEmpty), not false.
func (f *Finding) GotText() string { return f.AnswerText(false, -1) }

// AnswerText is GotText (ResultText of the oracle's answer with oracle) with the expression cut
// to its longest start of at most max bytes (phplit.Clip; none when max < 0), "…" after it
// when bytes were left out.
func (f *Finding) AnswerText(oracle bool, max int) string {
	if oracle {
		return resultText(f.Want, f.WantErr, f.Op == OpEscape, false, max)
	}
	return resultText(f.Got, f.GotErr, f.Op == OpEscape, f.GotEmpty, max)
}

// GotFalse reports whether f's candidate returned false (json_encode: nothing and an error).
func (f *Finding) GotFalse() bool { return f.GotErr != 0 && len(f.Got) == 0 && !f.GotEmpty }

// resultText is ResultText; with empty, nothing and an error code is the empty string; the
// expression is clipped to max bytes as AnswerText says.
func resultText(b []byte, errCode int, isEscape, empty bool, max int) string {
	if isEscape && errCode != 0 && len(b) == 0 && !empty {
		return fmt.Sprintf("false (json_last_error()=%d)", errCode)
	}
	s, n := phplit.Clip(b, max)
	if n < len(b) {
		s += "…"
	}
	if isEscape && errCode != 0 {
		s += fmt.Sprintf(" (json_last_error()=%d)", errCode)
	}
	return s
}

// String renders the finding for a terminal: what differs, the input as hex, the options by
// PHP name, the oracle's and the candidate's results side by side, the first differing offset
// and a command that replays it.
func (f *Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "FINDING %s: %s by %s\n", f.Kind, f.Op, f.Impl)
	fmt.Fprintf(&b, "  input    %d bytes: %s\n", len(f.Input), SpacedHex(f.Input))
	if f.Op == OpEscape {
		fmt.Fprintf(&b, "  options  %s (%d)\n", f.Flags, uint32(f.Flags))
	}
	w := max(len("oracle"), len(f.Impl))
	switch {
	case f.Kind == KindStep:
		fmt.Fprintf(&b, "  step at input offset %d (chunk %d, lane %d of 16)\n", f.Pos, f.Pos/16, f.Pos%16)
		fmt.Fprintf(&b, "  %-*s  %s\n", w, "oracle", StepText(f.WantStep))
		fmt.Fprintf(&b, "  %-*s  %s\n", w, f.Impl, StepText(f.GotStep))
	case f.Kind == KindOutput || f.Kind == KindError:
		esc := f.Op == OpEscape
		fmt.Fprintf(&b, "  %-*s  %s\n", w, "oracle", ResultText(f.Want, f.WantErr, esc))
		fmt.Fprintf(&b, "  %-*s  %s\n", w, f.Impl, f.GotText())
		fmt.Fprintf(&b, "  %-*s  %s\n", w, "hex", hex.EncodeToString(f.Want))
		fmt.Fprintf(&b, "  %-*s  %s\n", w, "", hex.EncodeToString(f.Got))
		if d := FirstDiff(f.Want, f.Got); d >= 0 {
			fmt.Fprintf(&b, "  first difference at output offset %d\n", d)
		}
	}
	if f.Loc != nil {
		fmt.Fprintf(&b, "  at       %s\n", f.Loc)
	}
	if f.Detail != "" {
		fmt.Fprintf(&b, "  detail   %s\n", f.Detail)
	}
	if f.Loc != nil && f.Loc.Placement != "" {
		fmt.Fprintf(&b, "  placed   %s; input %s, address ≡ %d mod 64\n", f.Loc.Placement, f.Loc.Layout, f.Loc.Align)
		if !f.External {
			fmt.Fprintf(&b, "  rerun    go run ./cmd/difffuzz --boundary --boundary-families %s --ops %s --impl %s\n", f.Loc.Family, f.Op, f.Impl)
		}
	}
	if f.Origin != "" {
		fmt.Fprintf(&b, "  origin   %s\n", f.Origin)
	}
	fmt.Fprintf(&b, "  replay   %s\n", f.Replay())
	return b.String()
}

// less orders findings deterministically: by operation, implementation, input length,
// input bytes, options and position.
func less(a, b *Finding) bool {
	if a.Op != b.Op {
		return opIndex(a.Op) < opIndex(b.Op)
	}
	if a.Impl != b.Impl {
		return a.Impl < b.Impl
	}
	if len(a.Input) != len(b.Input) {
		return len(a.Input) < len(b.Input)
	}
	if c := bytes.Compare(a.Input, b.Input); c != 0 {
		return c < 0
	}
	if a.Flags != b.Flags {
		return a.Flags < b.Flags
	}
	return a.Pos < b.Pos
}

func opIndex(op Op) int {
	for i, o := range AllOps {
		if o == op {
			return i
		}
	}
	return len(AllOps)
}

// StepsEnded begins the Detail of a decode finding whose target answered fewer steps than
// the input has (GotStep is then the zero Step): "… after N steps".
const StepsEnded = "the target's answer ends after"
