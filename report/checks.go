package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/difffuzz/difffuzz/fuzz"
)

// Check is one check of a campaign: one input space, one operation and one candidate, as the
// closing line "difffuzz: N checks passed, N failed", --json's "checks" and --junit count them. It
// fails when a defect class of the candidate and operation has findings in the space.
type Check struct {
	Space    string        // "exhaustive", "boundary", "random", ...
	Op       fuzz.Op       // the operation
	Impl     string        // the candidate: a built-in's name or an --exec target's command
	Strings  uint64        // distinct inputs checked, over every length of the space
	Cases    uint64        // cases compared with the oracle (inputs × option sets)
	Elapsed  time.Duration // wall time of the space's parts (shared by the candidates checked together)
	Complete bool          // false when the space was interrupted before its end
	Classes  []*Class      // the candidate's defect classes of Op with findings in Space, in class order
	Findings uint64        // raw findings of those classes in Space
}

// Failed is whether the check found a defect.
func (c Check) Failed() bool { return len(c.Classes) > 0 }

// Checks lists the checks of a campaign: one per space, operation and candidate of the
// space reports (their lengths and parts added up), in the order they first appear, each with
// the defect classes that have findings there; a check that compared no case is left out. A
// class with findings in a space that has no report (a space cut short before it could report)
// gets a check of its own, failed, at the end.
func Checks(spaces []fuzz.SpaceReport, classes []*Class) []Check {
	var out []Check
	index := map[string]int{}
	key := func(space string, op fuzz.Op, impl string) string {
		return space + "\x00" + string(op) + "\x00" + impl
	}
	for _, s := range spaces {
		for _, impl := range s.Impls {
			k := key(s.Space, s.Op, impl)
			i, ok := index[k]
			if !ok {
				i = len(out)
				index[k] = i
				out = append(out, Check{Space: s.Space, Op: s.Op, Impl: impl, Complete: true})
			}
			c := &out[i]
			c.Strings += s.Strings
			c.Cases += s.Cases
			c.Elapsed += s.Elapsed
			c.Complete = c.Complete && s.Complete
		}
	}
	// A check that compared nothing (a shard with no work at this length, a target that
	// could take none of the cases) neither passed nor failed: it is left out.
	kept := out[:0]
	clear(index)
	for _, c := range out {
		if c.Cases > 0 {
			index[key(c.Space, c.Op, c.Impl)] = len(kept)
			kept = append(kept, c)
		}
	}
	out = kept
	for _, cl := range classes {
		for _, space := range spaceNames(cl.Spaces) {
			k := key(space, cl.Op, cl.Impl)
			i, ok := index[k]
			if !ok {
				i = len(out)
				index[k] = i
				out = append(out, Check{Space: space, Op: cl.Op, Impl: cl.Impl})
			}
			out[i].Classes = append(out[i].Classes, cl)
			out[i].Findings += cl.Spaces[space]
		}
	}
	return out
}

// Tally is the closing line's counts: checks passed, failed, and interrupted before their
// end without a finding (neither passed nor failed).
func Tally(checks []Check) (passed, failed, interrupted int) {
	for _, c := range checks {
		switch {
		case c.Failed():
			failed++
		case !c.Complete:
			interrupted++
		default:
			passed++
		}
	}
	return passed, failed, interrupted
}

// TallyLine is the line every campaign ends with: "difffuzz: 14 checks passed, 1 failed"
// (checks, not defects), with ", 2 interrupted" when checks were cut short without a finding.
func TallyLine(checks []Check) string {
	p, f, i := Tally(checks)
	s := fmt.Sprintf("difffuzz: %s passed, %d failed", Plural(uint64(p), "check"), f)
	if i > 0 {
		s += fmt.Sprintf(", %d interrupted", i)
	}
	return s
}

// maxFailureMessage bounds a JUnit failure's message attribute (CI pages show it on one line).
const maxFailureMessage = 300

// JUnit is the campaign as JUnit XML (go-junit-report's junit package, which writes the
// format of Jenkins' JUnit plugin): a testsuite per space, in check order, named
// "difffuzz SPACE"; a testcase per check, classname "difffuzz.SPACE.OP" and name the candidate,
// its time the space's wall time in seconds and its system-out the counts checked. A failed
// check carries one failure: the message names each defect class (id, kind, rule, findings)
// and the body is every class's block as the terminal report prints it, witness and replay
// line included. A check interrupted without a finding is an error ("interrupted"). props are
// the suites' properties (the command line, the shard), in order.
func JUnit(checks []Check, props [][2]string) junit.Testsuites {
	suites := junit.Testsuites{Name: "difffuzz"}
	var order []string
	bySpace := map[string][]Check{}
	for _, c := range checks {
		if _, ok := bySpace[c.Space]; !ok {
			order = append(order, c.Space)
		}
		bySpace[c.Space] = append(bySpace[c.Space], c)
	}
	var total time.Duration
	for _, space := range order {
		ts := junit.Testsuite{Name: "difffuzz " + space, ID: len(suites.Suites)}
		for _, p := range props {
			ts.AddProperty(p[0], xmlText(p[1]))
		}
		var el time.Duration
		for _, c := range bySpace[space] {
			tc := junit.Testcase{
				Name:      xmlText(c.Impl),
				Classname: "difffuzz." + space + "." + string(c.Op),
				Time:      seconds(c.Elapsed),
				SystemOut: &junit.Output{Data: fmt.Sprintf("%s %s: %s strings, %s cases compared with the oracle",
					space, c.Op, Count(c.Strings), Count(c.Cases))},
			}
			switch {
			case c.Failed():
				tc.Failure = failure(c)
			case !c.Complete:
				tc.Error = &junit.Result{Message: "interrupted", Type: "interrupted",
					Data: fmt.Sprintf("stopped after %s cases without a difference", Count(c.Cases))}
			}
			ts.AddTestcase(tc)
			el = max(el, c.Elapsed) // the candidates of a space run side by side
		}
		ts.Time = seconds(el)
		total += el
		suites.AddSuite(ts)
	}
	suites.Time = seconds(total)
	return suites
}

// failure is a failed check's JUnit failure.
func failure(c Check) *junit.Result {
	var names []string
	var body bytes.Buffer
	for i, cl := range c.Classes {
		names = append(names, fmt.Sprintf("%s %s %s (%s)", cl.ID, cl.Kind, ruleName(cl), Plural(cl.Spaces[c.Space], "finding")))
		if i > 0 {
			body.WriteString("\n")
		}
		WriteBlock(&body, cl)
	}
	msg := fmt.Sprintf("%s, %s: %s", Plural(uint64(len(c.Classes)), "defect class"), Plural(c.Findings, "finding"), strings.Join(names, "; "))
	return &junit.Result{Message: xmlText(clip(msg, maxFailureMessage)), Type: string(c.Classes[0].Kind), Data: xmlText(body.String())}
}

// xmlText makes s fit XML 1.0 text: bytes that are not UTF-8 and characters XML does not allow
// (control characters but tab, newline and carriage return; U+FFFE, U+FFFF) become \xNN or
// \uXXXX, as a target's stderr can hold any bytes (an ANSI colour, a NUL).
func xmlText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0xFFFE, r == 0xFFFF:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// ruleName is a class's rule for a one-line list, "-" when it has none.
func ruleName(c *Class) string {
	if c.Rule == "" {
		return "-"
	}
	return c.Rule
}

// WriteJUnit writes JUnit(checks, props) as XML with its declaration.
func WriteJUnit(w io.Writer, checks []Check, props [][2]string) error {
	suites := JUnit(checks, props)
	if _, err := io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"); err != nil {
		return err
	}
	return suites.WriteXML(w)
}

// seconds is a duration as JUnit writes it: seconds with three decimals.
func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }
