package fuzz

import (
	"bytes"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/mattn/go-shellwords"

	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/protocol"
)

// Case is one question to an implementation: an operation, its input and, for escape, its
// options.
type Case struct {
	Op    Op
	Input []byte
	Flags jsonopt.Options
}

// The kinds of finding an external target adds (DESIGN.md §4).
const (
	KindTargetCrash    Kind = "target-crashed"  // the target exited or crashed on a request
	KindTargetHang     Kind = "target-hung"     // no answer within the per-request timeout
	KindTargetProtocol Kind = "target-protocol" // a malformed or unexpected line
	KindTargetRefused  Kind = "target-refused"  // it answered "error ..." to a valid request
)

// SplitCommand splits a --exec string into words the way a POSIX shell would (quotes,
// backslashes), without running a shell or expanding variables, globs or backticks.
func SplitCommand(cmd string) ([]string, error) {
	p := shellwords.NewParser()
	posix, paren, open := readQuotes(cmd)
	argv, err := p.Parse(posix)
	if err != nil {
		switch {
		case paren >= 0:
			return nil, fmt.Errorf("command %q has an unquoted %q at byte %d (a shell would start a subshell there): quote the word that holds it ('f($s)')", cmd, cmd[paren], paren)
		case open != 0:
			return nil, fmt.Errorf("command %q has an unterminated %c quote", cmd, open)
		}
		return nil, fmt.Errorf("cannot split command %q: %v", cmd, err)
	}
	if p.Position >= 0 {
		// The parser stops at an unquoted ; | & > <: the rest would be dropped silently.
		op := strings.TrimSpace(posix[p.Position:])
		op = op[:len(op)-len(strings.TrimLeft(op, ";|&<>"))]
		return nil, fmt.Errorf("command %q has an unquoted shell operator %q; it is run without a shell: for a pipe, a list or a redirection give sh -c '...'", cmd, op)
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("empty command %q", cmd)
	}
	return argv, nil
}

// readQuotes reads cmd's quotes as a POSIX shell does. posix is cmd with each backslash inside
// double quotes that sh keeps doubled: one not before $ ` " \ or a newline ("a\b" is a,
// backslash, b; go-shellwords alone drops the backslash, and reads \n as a newline). paren is
// where cmd has its first unquoted ( or ) (-1 if none); open is the quote left open at its end
// (0 if none).
func readQuotes(cmd string) (posix string, paren int, open byte) {
	var b strings.Builder
	paren = -1
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		b.WriteByte(c)
		switch {
		case open == 0 && c == '\\' && i+1 < len(cmd): // escapes the next byte, whatever it is
			i++
			b.WriteByte(cmd[i])
		case open == 0 && (c == '\'' || c == '"'):
			open = c
		case open == 0 && (c == '(' || c == ')') && paren < 0:
			paren = i
		case c == open:
			open = 0
		case open == '"' && c == '\\' && i+1 < len(cmd) && strings.IndexByte("$`\"\\\n", cmd[i+1]) >= 0:
			i++
			b.WriteByte(cmd[i])
		case open == '"' && c == '\\':
			b.WriteByte('\\')
		}
	}
	return b.String(), paren, open
}

// request turns a case into a protocol request.
func (c Case) request() protocol.Request {
	return protocol.Request{Op: protocol.Op(c.Op), Flags: c.Flags, Input: c.Input}
}

// clipAnswer returns a copy of got, the result of r, for a finding, at most keepExtra bytes
// past want's length (an answer of megabytes to a short input costs a finding no more), and a
// detail that says how long the answer was when it was cut here or by the client
// (protocol.Keep).
func clipAnswer(r protocol.Response, got, want []byte) ([]byte, string) {
	n := len(want) + keepExtra
	full := max(len(got), r.Cut)
	if full <= n && r.Cut == 0 {
		return clone(got), ""
	}
	return clone(got[:min(n, len(got))]), fmt.Sprintf("the target's answer is %d bytes; its first %d are kept", full, min(n, len(got)))
}

// keepExtra is how many bytes of a target's answer past the oracle's a finding keeps.
const keepExtra = 4 << 10

// compareResponse compares one target answer with the oracle's.
func (c *Checker) compareResponse(out []*Finding, name string, cs Case, r protocol.Response) []*Finding {
	base := Finding{Op: cs.Op, Impl: name, Input: clone(cs.Input), Flags: cs.Flags, External: true}
	if r.ErrorMsg != "" {
		f := base
		f.Kind = KindTargetRefused
		f.Detail = "target answered: error " + r.ErrorMsg
		return append(out, &f)
	}
	switch cs.Op {
	case OpEscape:
		want, werr := Oracle.Escape(c.want[:0], cs.Input, cs.Flags)
		c.want = want[:0]
		wcode := jsonopt.ErrorCode(werr)
		got := r.Result
		if r.False {
			got = nil
		}
		switch {
		case r.Err != wcode || (r.False != (werr != nil && len(want) == 0)):
			f := base
			f.Kind, f.Want, f.WantErr, f.GotErr = KindError, clone(want), wcode, r.Err
			f.Got, f.Detail = clipAnswer(r, got, want)
			f.GotEmpty = !r.False && len(got) == 0
			return append(out, &f)
		case !bytes.Equal(got, want):
			f := base
			f.Kind, f.Want, f.WantErr, f.GotErr = KindOutput, clone(want), wcode, r.Err
			f.Got, f.Detail = clipAnswer(r, got, want)
			return append(out, &f)
		}
	case OpDecode:
		pos, i := 0, 0
		for ; pos < len(cs.Input); i++ {
			want := Oracle.NextChar(cs.Input, pos)
			if i >= len(r.Steps) || r.Steps[i] != want {
				f := base
				f.Kind, f.Pos, f.WantStep = KindStep, pos, want
				if i < len(r.Steps) {
					f.GotStep = r.Steps[i]
				} else {
					f.Detail = fmt.Sprintf(StepsEnded+" %d steps", len(r.Steps))
				}
				return append(out, &f)
			}
			pos += want.Advance
		}
		if i < len(r.Steps) {
			f := base
			f.Kind, f.Pos = KindStep, pos
			f.Detail = fmt.Sprintf("the target answered %d steps, the oracle %d", max(len(r.Steps), r.Cut), i)
			return append(out, &f)
		}
	default:
		want := Oracle.UTF8Decode(c.want[:0], cs.Input)
		c.want = want[:0]
		if !bytes.Equal(r.Result, want) {
			f := base
			f.Kind, f.Want = KindOutput, clone(want)
			f.Got, f.Detail = clipAnswer(r, r.Result, want)
			return append(out, &f)
		}
	}
	return out
}

// ExhaustiveCases yields every string of length n for op, under each option set in opts for
// escape (once otherwise), in enumeration order.
func ExhaustiveCases(op Op, n int, opts []jsonopt.Options) iter.Seq[Case] {
	return exhaustiveRange(op, n, opts, 0, pow256(n))
}

// exhaustiveRange is ExhaustiveCases of the strings from up to to (big-endian numbers).
func exhaustiveRange(op Op, n int, opts []jsonopt.Options, from, to uint64) iter.Seq[Case] {
	return func(yield func(Case) bool) {
		if op != OpEscape {
			opts = []jsonopt.Options{0}
		}
		for v := from; v < to; v++ {
			buf := make([]byte, n)
			for i := 0; i < n; i++ {
				buf[i] = byte(v >> (8 * uint(n-1-i)))
			}
			for _, o := range opts {
				if !yield(Case{Op: op, Input: buf, Flags: o}) {
					return
				}
			}
		}
	}
}

// ShardTargetSpaces keeps part shard (0 <= shard < shards) of each of spaces, which must be
// spaces in which every string comes with OptionSets consecutive cases (Strings × OptionSets =
// Total), like ExhaustiveTargetSpaces': the strings are dealt round-robin, one at a time, so
// that the parts of all shards are disjoint, together the whole space, and no string is split
// (--shard; BoundaryTargetSpaces shards its placements itself). shards <= 1 keeps everything.
// It panics on a space of another shape.
func ShardTargetSpaces(spaces []TargetSpace, shard, shards int) []TargetSpace {
	if shards <= 1 {
		return spaces
	}
	n, k := uint64(shards), uint64(shard)
	out := make([]TargetSpace, 0, len(spaces))
	for _, sp := range spaces {
		sets := uint64(sp.OptionSets)
		if sets == 0 || sp.Strings*sets != sp.Total {
			panic("fuzz: ShardTargetSpaces: space " + sp.Space + " " + string(sp.Op) + " does not have OptionSets cases per string")
		}
		part := sp
		if sp.within != nil {
			part.within = func(mask jsonopt.Options) TargetSpace {
				return ShardTargetSpaces([]TargetSpace{sp.within(mask)}, shard, shards)[0]
			}
		}
		part.Strings = countMod(0, sp.Strings, k, n)
		part.Total = part.Strings * sets
		part.units = sp.units.shard(k, n, sets)
		seq := sp.Seq
		part.Seq = func(yield func(Case) bool) {
			var i uint64 // case index; its string is i / sets
			for c := range seq {
				if (i/sets)%n == k && !yield(c) {
					return
				}
				i++
			}
		}
		out = append(out, part)
	}
	return out
}

// RepresentativeOptions are eight option sets that together make every string option matter
// at least once, NUMERIC_CHECK with and without PRESERVE_ZERO_FRACTION included: the ones the
// external-target campaign uses for 2-byte strings.
var RepresentativeOptions = []jsonopt.Options{
	0,
	jsonopt.InvalidUTF8Substitute,
	jsonopt.InvalidUTF8Ignore | jsonopt.UnescapedUnicode,
	jsonopt.InvalidUTF8Substitute | jsonopt.UnescapedUnicode | jsonopt.UnescapedLineTerminators,
	jsonopt.PartialOutputOnError | jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot,
	jsonopt.UnescapedSlashes | jsonopt.InvalidUTF8Ignore | jsonopt.InvalidUTF8Substitute | jsonopt.NumericCheck,
	jsonopt.UnescapedUnicode | jsonopt.PartialOutputOnError | jsonopt.UnescapedSlashes,
	jsonopt.StringPath,
}

// replayExternal is the shell command that asks an external target the question of a finding.
func replayExternal(f *Finding) string {
	req := Case{Op: f.Op, Input: f.Input, Flags: f.Flags}.request()
	if n, ok := LimitOf(f); ok {
		// The target fails after n answers, whatever it is asked: n+1 requests show it.
		return fmt.Sprintf("yes '%s' | head -n %d | %s", req.String(), n+1, ShellCommand(f.TargetCommand()))
	}
	return fmt.Sprintf("printf '%%s\\n' '%s' | %s", req.String(), ShellCommand(f.TargetCommand()))
}

// TargetCommand is the command of an external target's finding: Command, or Impl when the
// target goes by its command.
func (f *Finding) TargetCommand() string {
	if f.Command != "" {
		return f.Command
	}
	return f.Impl
}

// ShellCommand is the --exec command cmd written for a shell so that it runs the words
// difffuzz runs: each word that a shell would read otherwise ($, quotes, spaces ...) in single
// quotes (difffuzz splits without expanding anything). cmd itself when it does not split.
func ShellCommand(cmd string) string {
	argv, err := SplitCommand(cmd)
	if err != nil {
		return cmd
	}
	for i, w := range argv {
		argv[i] = ShellQuote(w)
	}
	return strings.Join(argv, " ")
}

// ShellQuote is w as one shell word: itself when it holds only bytes no shell reads specially,
// else in single quotes (a ' in it as '\”).
func ShellQuote(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./,:=+@%") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// TargetSpace is one part of a campaign against an external target: its cases and how to
// report them.
type TargetSpace struct {
	Space      string // "exhaustive", "boundary", "random", ...
	Origin     string // if set, the Origin of its findings ("random --seed 7")
	Op         Op
	Len        int // input length, 0 for mixed
	Strings    uint64
	OptionSets int
	Total      uint64         // number of cases Seq yields
	Seq        iter.Seq[Case] // the cases, streamed
	// within, when set, is the space with only option sets inside a mask (each projected
	// onto it, duplicates of an input dropped): RunTarget builds it for a target that announced
	// options=, so that what is counted and shown in progress is what is sent.
	within func(mask jsonopt.Options) TargetSpace
	// units, when set, cut the space into units of work, in which a checkpoint resumes it
	// (RunTargetUnits); nil: it resumes whole.
	units *spaceUnits
}

// UnitSize is the number of strings in a unit of work of the space (fuzz.ExhaustiveUnit for
// the exhaustive spaces, sharded or not), 0 when the space is not cut into units.
func (sp TargetSpace) UnitSize() uint64 {
	if sp.units == nil {
		return 0
	}
	return sp.units.size
}

// Within is the space with only option sets inside mask (see TargetSpace.within); the space
// itself when it has no other or mask has every bit.
func (sp TargetSpace) Within(mask jsonopt.Options) TargetSpace {
	if sp.within == nil || mask == ^jsonopt.Options(0) {
		return sp
	}
	return sp.within(mask)
}

// MaskOptions is opts projected onto mask (o & mask), duplicates dropped, in order: the option
// sets a target that implements only mask's bits can be asked. Without NUMERIC_CHECK in mask,
// PRESERVE_ZERO_FRACTION goes too: it changes a string's answer only with NUMERIC_CHECK (§1.7),
// so the sets with it would ask every case again.
func MaskOptions(opts []jsonopt.Options, mask jsonopt.Options) []jsonopt.Options {
	if mask&jsonopt.NumericCheck == 0 {
		mask &^= jsonopt.PreserveZeroFraction
	}
	out := make([]jsonopt.Options, 0, len(opts))
	for _, o := range opts {
		if !slices.Contains(out, o&mask) {
			out = append(out, o&mask)
		}
	}
	return out
}

// ExhaustiveTargetSpaces are the exhaustive spaces of ops up to maxLen as target spaces,
// escape under opts.
func ExhaustiveTargetSpaces(ops []Op, maxLen int, opts []jsonopt.Options) []TargetSpace {
	var out []TargetSpace
	for _, op := range ops {
		for n := 1; n <= maxLen; n++ {
			sets := 1
			if op == OpEscape {
				sets = len(opts)
			}
			sp := TargetSpace{Space: "exhaustive", Op: op, Len: n, Strings: pow256(n), OptionSets: sets,
				Total: pow256(n) * uint64(sets), Seq: ExhaustiveCases(op, n, opts), units: exhaustiveUnits(op, n, opts, sets)}
			sp.within = func(mask jsonopt.Options) TargetSpace {
				return ExhaustiveTargetSpaces([]Op{op}, n, MaskOptions(opts, mask))[n-1]
			}
			out = append(out, sp)
		}
	}
	return out
}

// AllCombos lists the 2,048 option sets of the exhaustive spaces (jsonopt.Combo), a new slice.
func AllCombos() []jsonopt.Options { return append([]jsonopt.Options(nil), allCombos...) }

// DefaultTargetSpaces is the exhaustive part of the campaign run against an external
// target when no mode is chosen: every 1-byte string under all 2,048 option sets and every
// 2-byte string under the eight RepresentativeOptions (escape), every 1- and 2-byte string
// (decode, utf8_decode). The boundary and random parts are added by their modes.
func DefaultTargetSpaces(ops []Op) []TargetSpace {
	var out []TargetSpace
	for _, op := range ops {
		out = append(out, ExhaustiveTargetSpaces([]Op{op}, 1, AllCombos())...)
		sp := ExhaustiveTargetSpaces([]Op{op}, 2, RepresentativeOptions)
		out = append(out, sp[1])
	}
	return out
}

// notChecked adds to err what the target was not asked because of it: the rest of space sp
// and the spaces after it.
func notChecked(err error, t *Target, sp TargetSpace, rest []TargetSpace) error {
	left := []string{"the rest of " + sp.Space + " " + string(sp.Op)}
	for _, r := range rest {
		if t.Has(r.Op) && r.Total > 0 {
			name := r.Space + " " + string(r.Op)
			if !slices.Contains(left, name) {
				left = append(left, name)
			}
		}
	}
	return fmt.Errorf("%w; not checked: %s", err, strings.Join(left, ", "))
}
