package report

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/fuzz"
)

// shard is a shard report of sweep config, index k of n, with spaces.
func shard(config string, k, n int, interrupted bool, spaces ...fuzz.SpaceReport) *ShardReport {
	return &ShardReport{Document: &Document{Version: Version, Config: config, Shard: Shard{Index: k, Count: n},
		Interrupted: interrupted, Spaces: spaces, Elapsed: time.Duration(k+1) * time.Second}, File: "s" + string(rune('0'+k))}
}

// OrderShards sorts the shards of one sweep and refuses another sweep's, a shard given twice
// and missing ones; MergeShards adds up each space across shards (its time too), takes the
// longest shard's elapsed time, and marks incomplete a space an interrupted shard never reached.
func TestMergeShardReports(t *testing.T) {
	dec := fuzz.SpaceReport{Space: "exhaustive", Op: fuzz.OpDecode, Len: 1, Strings: 128, Cases: 128, OptionSets: 1,
		Impls: []string{"swar"}, Elapsed: time.Second, Complete: true}
	u8 := dec
	u8.Op = fuzz.OpUTF8Decode
	s0, s1, s2 := shard("c", 0, 3, false, dec, u8), shard("c", 1, 3, true, dec), shard("c", 2, 3, false, dec, u8)
	shards := []*ShardReport{s2, s0, s1}
	require.NoError(t, OrderShards(shards))
	assert.Equal(t, []*ShardReport{s0, s1, s2}, shards)

	for _, tc := range []struct {
		shards []*ShardReport
		want   string
	}{
		{[]*ShardReport{s0, shard("d", 1, 3, false)}, `s1 is not of the sweep of s0: its configuration is "d", not "c"`},
		{[]*ShardReport{s0, shard("c", 1, 2, false)}, "s1 is shard 1/2 but s0 is shard 0/3: not one sweep"},
		{[]*ShardReport{s0, s0}, "shard 0/3 is given twice: s0 and s0"},
		{[]*ShardReport{s1}, "shards 0/3, 2/3 missing (1 of 3 shards given)"},
	} {
		err := OrderShards(tc.shards)
		if assert.Error(t, err) {
			assert.Equal(t, tc.want, err.Error())
		}
	}

	sw, err := MergeShards(shards, 0)
	require.NoError(t, err)
	require.Len(t, sw.Report.Spaces, 2)
	d, u := sw.Report.Spaces[0], sw.Report.Spaces[1]
	assert.Equal(t, []uint64{384, 384, 256, 256}, []uint64{d.Strings, d.Cases, u.Strings, u.Cases})
	assert.Equal(t, 3*time.Second, d.Elapsed)
	assert.InDelta(t, 128.0, d.CasesPerSec, 1e-9)
	assert.True(t, d.Complete, "shard 1 reached decode")
	assert.False(t, u.Complete, "interrupted shard 1 never reached utf8_decode")
	assert.Equal(t, 3*time.Second, sw.Elapsed)
	assert.True(t, sw.Report.Interrupted)

	bad := shard("c", 0, 1, false, fuzz.SpaceReport{Space: "exhaustive", Op: "nope"})
	_, err = MergeShards([]*ShardReport{bad}, 0)
	if assert.Error(t, err) {
		assert.True(t, strings.HasPrefix(err.Error(), `s0: a space of op "nope"`), err.Error())
	}
}
