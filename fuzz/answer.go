package fuzz

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/difffuzz/difffuzz/internal/phplit"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/protocol"
)

// The answer to one input, as `difffuzz escape`, `decode` and `utf8-decode` print it: escape
// the string json_encode returns (quotes included, no newline), decode the decoder steps in
// target protocol form on one line ("-" for none), utf8_decode the bytes. What makes an answer
// a finding (a PHP false, an answer that is not PHP 8.2's) comes back as lines to say.

// WriteAnswer writes built-in im's answer to cs to w. findings is, for an escape that fails
// in PHP, what it returned and the error; err is an error of im that is none of PHP's, or of
// writing.
func WriteAnswer(w io.Writer, im Impl, cs Case) (findings []string, err error) {
	switch cs.Op {
	case OpEscape:
		out, eerr := im.Escape(nil, cs.Input, cs.Flags)
		if eerr != nil && jsonopt.ErrorCode(eerr) < 0 {
			return nil, eerr
		}
		if _, err := w.Write(out); err != nil {
			return nil, err
		}
		if eerr != nil {
			what := "json_encode returned false"
			if len(out) > 0 {
				what = "json_encode returned " + phplit.Quote(out)
			}
			return []string{fmt.Sprintf("%s: %v", what, eerr)}, nil
		}
	case OpDecode:
		return nil, writeSteps(w, im, cs.Input)
	default:
		_, err = w.Write(im.UTF8Decode(nil, cs.Input))
	}
	return nil, err
}

// writeSteps writes im's decoder steps through in as they are taken: a 64 MiB input is 64 Mi
// steps, too many to hold as strings.
func writeSteps(w io.Writer, im Impl, in []byte) error {
	bw := bufio.NewWriter(w)
	sep := ""
	for pos := 0; pos < len(in); {
		st := im.NextChar(in, pos)
		bw.WriteString(sep)
		bw.WriteString(st.String())
		if st.Advance <= 0 {
			bw.Flush()
			return fmt.Errorf("%s returned advance %d at position %d", im.Name, st.Advance, pos)
		}
		pos, sep = pos+st.Advance, " "
	}
	if len(in) == 0 {
		bw.WriteString("-")
	}
	bw.WriteString("\n")
	return bw.Flush()
}

// WriteAnswer writes t's answer r to cs (Ask) to w as the package's WriteAnswer writes a
// built-in's. findings are a refusal (nothing written), an escape answered false or with an
// error, and an answer that is not PHP 8.2's (with the PHP line that shows it, for a PHP
// build); err is an error of writing.
func (t *Target) WriteAnswer(w io.Writer, cs Case, r protocol.Response) (findings []string, err error) {
	if r.ErrorMsg != "" {
		return []string{fmt.Sprintf("%s refused it: error %s", t.Name, r.ErrorMsg)}, nil
	}
	switch {
	case cs.Op == OpDecode:
		steps := make([]string, len(r.Steps))
		for i, st := range r.Steps {
			steps[i] = st.String()
		}
		if len(steps) == 0 {
			steps = []string{"-"}
		}
		_, err = fmt.Fprintln(w, strings.Join(steps, " "))
	case r.False:
		findings = append(findings, fmt.Sprintf("json_encode returned false: json_last_error() = %d", r.Err))
	default:
		_, err = w.Write(r.Result)
		if cs.Op == OpEscape && r.Err != 0 {
			findings = append(findings, fmt.Sprintf("json_encode returned %s: json_last_error() = %d", phplit.Quote(r.Result), r.Err))
		}
	}
	if err != nil {
		return findings, err
	}
	if fs := t.Judge(cs, r); len(fs) > 0 {
		f := fs[0]
		findings = append(findings, fmt.Sprintf("%s differs from PHP 8.2: %s", t.Name, versusPHP(f)))
		if line, ok := PHPLine(f); ok {
			findings = append(findings, "with the build's PHP: "+line)
		}
	}
	return findings, nil
}

// versusPHP says how a target's answer differs from PHP 8.2's: "it writes X, PHP 8.2 writes Y".
func versusPHP(f *Finding) string {
	switch f.Kind {
	case KindStep:
		return fmt.Sprintf("the step at offset %d is %s, PHP 8.2's %s", f.Pos, StepText(f.GotStep), StepText(f.WantStep))
	case KindOutput, KindError:
		esc := f.Op == OpEscape
		return fmt.Sprintf("it returns %s, PHP 8.2 returns %s", f.GotText(), ResultText(f.Want, f.WantErr, esc))
	}
	return f.Detail
}
