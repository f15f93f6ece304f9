package report

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/internal/planted"
)

// checksCampaign runs the exhaustive 1–2-byte space (representative option sets) and a sample
// of the boundary space on a candidate with a planted fault beside a correct one, and returns
// the space reports and classes.
func checksCampaign(t *testing.T, fault planted.Fault) (fuzz.Impl, *fuzz.Report, []*Class) {
	t.Helper()
	ctx := context.Background()
	broken := plantedImpl(fault)
	good, err := fuzz.Candidates("generic")
	require.NoError(t, err)
	impls := append([]fuzz.Impl{broken}, good...)
	tr := New(Config{})
	defer tr.Close()
	rep, err := fuzz.Exhaustive(ctx, fuzz.ExhaustiveConfig{Config: fuzz.Config{Impls: impls, Sink: tr}, MaxLen: 2, OptionCombos: fuzz.RepresentativeOptions})
	require.NoError(t, err)
	bd, err := fuzz.Boundary(ctx, fuzz.BoundaryConfig{Config: fuzz.Config{Impls: impls, Sink: tr}, Sample: 100})
	require.NoError(t, err)
	rep.Merge(bd)
	classes := tr.Classes(ctx, func(name string) (fuzz.Impl, fuzz.CheckOne, bool) {
		return broken, fuzz.OneCheck(plainCheck), name == broken.Name
	})
	require.NotEmpty(t, classes)
	return broken, rep, classes
}

// A check is a space × operation × candidate: the planted raw slash fails escape in both spaces
// and nothing else; the correct candidate passes everywhere; the closing line counts them.
func TestChecks(t *testing.T) {
	broken, rep, classes := checksCampaign(t, planted.RawSlash)
	checks := Checks(rep.Spaces, classes)
	require.Len(t, checks, 2*3*2, "2 spaces × 3 operations × 2 candidates")
	var failed []string
	for _, c := range checks {
		assert.True(t, c.Complete, "%+v", c)
		assert.NotZero(t, c.Cases, "%s %s %s", c.Space, c.Op, c.Impl)
		if !c.Failed() {
			assert.Zero(t, c.Findings)
			continue
		}
		failed = append(failed, c.Space+" "+string(c.Op)+" "+c.Impl)
		var n uint64
		for _, cl := range c.Classes {
			assert.Equal(t, "1.3-slash", cl.Rule, "class %s of %s", cl.ID, c.Impl)
			n += cl.Spaces[c.Space]
		}
		assert.Equal(t, n, c.Findings)
	}
	assert.ElementsMatch(t, []string{"exhaustive escape " + broken.Name, "boundary escape " + broken.Name}, failed)
	p, f, i := Tally(checks)
	assert.Equal(t, [3]int{10, 2, 0}, [3]int{p, f, i})
	assert.Equal(t, "difffuzz: 10 checks passed, 2 failed", TallyLine(checks))

	// A space cut short without a finding is neither passed nor failed.
	cut := append([]fuzz.SpaceReport(nil), rep.Spaces...)
	for k := range cut {
		if cut[k].Op == fuzz.OpDecode && cut[k].Space == "boundary" {
			cut[k].Complete = false
		}
	}
	assert.Equal(t, "difffuzz: 8 checks passed, 2 failed, 2 interrupted", TallyLine(Checks(cut, classes)))

	// A class with findings in a space that has no report still fails a check.
	only := Checks(rep.Spaces[:1], classes)
	_, f, _ = Tally(only)
	assert.Equal(t, 2, f, "the boundary findings fail a check of their own")
}

// junitDoc is the part of a JUnit file the test reads back.
type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Name  string `xml:"name,attr"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Body    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// lookXmllint finds xmllint, which checks the JUnit files against the schema; without it the
// test is skipped, except in CI, where it fails.
func lookXmllint(t *testing.T) string {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("xmllint is not installed (apt-get install -y libxml2-utils; .ci/run does): the JUnit schema check must not skip in CI")
		}
		t.Skip("xmllint is not installed (apt-get install -y libxml2-utils)")
	}
	return xmllint
}

// The JUnit file validates against Jenkins' JUnit schema (testdata/junit-jenkins.xsd, checked by
// xmllint) and says what the terminal report says: a testcase per check, a failure per failed
// check naming its classes, with each class's witness and replay line in its body; an
// interrupted check is an error.
func TestJUnitSchema(t *testing.T) {
	xmllint := lookXmllint(t)
	broken, rep, classes := checksCampaign(t, planted.LowerHexTag)
	checks := Checks(rep.Spaces, classes)
	checks[len(checks)-1].Complete = false // the last check (boundary utf8_decode of generic) cut short
	var buf bytes.Buffer
	require.NoError(t, WriteJUnit(&buf, checks, [][2]string{{"command", "difffuzz --exhaustive --junit r.xml"}, {"shard", "0/1"}}))
	file := filepath.Join(t.TempDir(), "report.xml")
	require.NoError(t, os.WriteFile(file, buf.Bytes(), 0o644))
	out, err := exec.Command(xmllint, "--noout", "--schema", "testdata/junit-jenkins.xsd", file).CombinedOutput()
	require.NoError(t, err, "xmllint:\n%s\n%s", out, buf.String())
	assert.Contains(t, string(out), "validates")

	var doc junitDoc
	require.NoError(t, xml.Unmarshal(buf.Bytes(), &doc))
	assert.Equal(t, 12, doc.Tests)
	assert.Equal(t, 2, doc.Failures)
	require.Len(t, doc.Suites, 2)
	assert.Equal(t, "difffuzz exhaustive", doc.Suites[0].Name)
	assert.Equal(t, "difffuzz boundary", doc.Suites[1].Name)
	failures, errors := 0, 0
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if c.Error != nil {
				errors++
				assert.Equal(t, "interrupted", c.Error.Message)
			}
			if c.Failure == nil {
				continue
			}
			failures++
			assert.Equal(t, broken.Name, c.Name)
			assert.True(t, strings.HasSuffix(c.Classname, ".escape"), c.Classname)
			assert.Regexp(t, `^\d+ defect class(es)?, [0-9,]+ findings?: D\d+ output-differs 1\.3-tag`, c.Failure.Message)
			assert.Regexp(t, `(?m)^    witness +1 byte: 3c   options HEX_TAG`, c.Failure.Body)
			assert.Regexp(t, `(?m)^    replay +go run \./cmd/difffuzz escape --impl `+broken.Name+` --flags 1 --hex 3c$`, c.Failure.Body)
		}
	}
	assert.Equal(t, 2, failures)
	assert.Equal(t, 1, errors)

	// The schema check can fail: an attribute Jenkins' schema does not have is refused.
	bad := strings.Replace(buf.String(), "<testsuites ", `<testsuites skipped="1" `, 1)
	require.NoError(t, os.WriteFile(file, []byte(bad), 0o644))
	out, err = exec.Command(xmllint, "--noout", "--schema", "testdata/junit-jenkins.xsd", file).CombinedOutput()
	assert.Error(t, err, "xmllint accepted an attribute outside the schema:\n%s", out)
}

// A target's stderr can hold any bytes: the JUnit file stays valid XML (and valid against the
// schema) whatever the witness's detail, the candidate's name or a property hold.
func TestJUnitControlBytes(t *testing.T) {
	xmllint := lookXmllint(t)
	bad := "\x01\x1b[31mred\x00\xff\xfe]]> end"
	w := &fuzz.Finding{Kind: "target-crashed", Op: fuzz.OpEscape, Impl: "php t.php" + bad, Input: []byte{0xfe},
		Detail: "exited before answering; its stderr ends with: " + bad, External: true}
	cl := &Class{ID: "D1", Signature: Signature{Op: fuzz.OpEscape, Impl: w.Impl, Kind: w.Kind}, Witness: w,
		Findings: 1, Spaces: map[string]uint64{"exhaustive": 1}, Kinds: map[fuzz.Kind]uint64{w.Kind: 1}}
	checks := []Check{{Space: "exhaustive", Op: fuzz.OpEscape, Impl: w.Impl, Strings: 1, Cases: 1, Complete: true, Classes: []*Class{cl}, Findings: 1}}
	var buf bytes.Buffer
	require.NoError(t, WriteJUnit(&buf, checks, [][2]string{{"command", "difffuzz --exec 'php t.php" + bad + "'"}}))
	file := filepath.Join(t.TempDir(), "report.xml")
	require.NoError(t, os.WriteFile(file, buf.Bytes(), 0o644))
	out, err := exec.Command(xmllint, "--noout", "--schema", "testdata/junit-jenkins.xsd", file).CombinedOutput()
	require.NoError(t, err, "xmllint:\n%s\n%q", out, buf.String())
	assert.Contains(t, buf.String(), `\u0001\u001b[31mred\u0000\xff\xfe`)
	var doc junitDoc
	require.NoError(t, xml.Unmarshal(buf.Bytes(), &doc))
	require.NotNil(t, doc.Suites[0].Cases[0].Failure)
	assert.Contains(t, doc.Suites[0].Cases[0].Failure.Body, `]]> end`, "a CDATA end inside the body survives")
}
