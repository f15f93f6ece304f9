package report

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/internal/planted"
)

// The report is a function of the findings, not of the order parallel workers hand them in:
// the same findings added in enumeration order, reversed and shuffled give byte-identical text
// (the witnesses, the examples of each defect and class, the tables).
func TestReportOrderIndependent(t *testing.T) {
	im := plantedImpl(planted.Lenient, planted.Overlong, planted.RawSlash, planted.LowerHexTag, planted.LastLost16)
	var all collect
	_, err := fuzz.Exhaustive(context.Background(), fuzz.ExhaustiveConfig{Config: fuzz.Config{Impls: []fuzz.Impl{im}, Sink: &all, Workers: 1},
		MaxLen: 2, OptionCombos: fuzz.RepresentativeOptions})
	require.NoError(t, err)
	require.Greater(t, len(all.fs), 1000)
	text := func(order []*fuzz.Finding) string {
		tr := New(Config{})
		defer tr.Close()
		for _, f := range order {
			tr.Add(f)
		}
		classes := tr.Classes(context.Background(), func(name string) (fuzz.Impl, fuzz.CheckOne, bool) {
			return im, fuzz.OneCheck(plainCheck), name == im.Name
		})
		var buf bytes.Buffer
		WriteText(&buf, classes)
		WriteTable(&buf, classes)
		return buf.String()
	}
	want := text(all.fs)
	reversed := make([]*fuzz.Finding, len(all.fs))
	for i, f := range all.fs {
		reversed[len(all.fs)-1-i] = f
	}
	assert.Equal(t, want, text(reversed), "reversed")
	shuffled := append([]*fuzz.Finding(nil), all.fs...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	assert.Equal(t, want, text(shuffled), "shuffled")
}
