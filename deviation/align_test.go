package deviation

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAlignBytesBand: the banded table gives the alignment the whole table gives
// (alignBytesFull, the table as it was), on answers with few and with many differences.
func TestAlignBytesBand(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 3000 {
		want := make([]byte, 1+r.IntN(200))
		for k := range want {
			want[k] = "a?b"[r.IntN(3)]
		}
		got := slices.Clone(want)
		edits := 1 + r.IntN(3)
		if n%5 == 0 {
			edits = r.IntN(len(want) + 1) // many differences: the band widens
		}
		for range edits {
			k := r.IntN(len(got) + 1)
			switch r.IntN(3) {
			case 0:
				got = slices.Insert(got, k, "?x"[r.IntN(2)])
			case 1:
				if k < len(got) {
					got = slices.Delete(got, k, k+1)
				}
			default:
				if k < len(got) {
					got[k] = "a?x"[r.IntN(3)]
				}
			}
		}
		if n%7 == 0 && len(got) > 60 { // a block lost and one added elsewhere: far off the diagonal
			run := 20 + r.IntN(40)
			k := r.IntN(len(got) - run)
			got = slices.Delete(got, k, k+run)
			got = slices.Insert(got, r.IntN(len(got)+1), slices.Repeat([]byte("x"), run)...)
		}
		units := make([]unit, len(want))
		for k := range want {
			units[k] = unit{in: k, inEnd: k + 1, want: want[k : k+1]}
		}
		if a, b := alignBytes(units, got), alignBytesFull(units, got); !slices.Equal(a, b) {
			t.Fatalf("%q against %q: banded %v, whole table %v", want, got, a, b)
		}
	}
}

// alignBytes aligns utf8_decode's answer, one byte a step, with PHP's by the fewest steps and
// bytes written otherwise, lost or added (an edit distance; of equal ones, pairing first): a
// run of '?' one longer than PHP's on each side of an 'a' is two failed steps split, not one
// 'a' written as "?a?". It returns the stretches that differ, nil when the table would be too
// large or a step writes other than one byte.
func alignBytesFull(units []unit, got []byte) []region {
	for _, u := range units {
		if len(u.want) != 1 {
			return nil
		}
	}
	lo := 0
	for lo < len(units) && lo < len(got) && units[lo].want[0] == got[lo] {
		lo++
	}
	n, m := len(units)-lo, len(got)-lo
	for n > 0 && m > 0 && units[lo+n-1].want[0] == got[lo+m-1] {
		n, m = n-1, m-1
	}
	if (n+1)*(m+1) > maxCells {
		return nil
	}
	w := m + 1
	cost := make([]int32, (n+1)*w)
	for k := 0; k <= n; k++ {
		for q := 0; q <= m; q++ {
			switch {
			case k == 0:
				cost[q] = int32(q)
			case q == 0:
				cost[k*w] = int32(k)
			default:
				c := cost[(k-1)*w+q-1]
				if units[lo+k-1].want[0] != got[lo+q-1] {
					c++
				}
				cost[k*w+q] = min(c, cost[(k-1)*w+q]+1, cost[k*w+q-1]+1)
			}
		}
	}
	// Back from the end: a pair (match or step written otherwise) first, then a step lost,
	// then a byte added; differing moves next to each other are one stretch.
	var out []region
	k, q := n, m
	open := false
	for k > 0 || q > 0 {
		k0, q0 := k, q
		same := false
		switch {
		case k > 0 && q > 0 && cost[k*w+q] == cost[(k-1)*w+q-1]+b2i(units[lo+k-1].want[0] != got[lo+q-1]):
			same = units[lo+k-1].want[0] == got[lo+q-1]
			k, q = k-1, q-1
		case k > 0 && cost[k*w+q] == cost[(k-1)*w+q]+1:
			k--
		default:
			q--
		}
		switch {
		case same:
			open = false
		case open:
			out[len(out)-1].i, out[len(out)-1].p = lo+k, lo+q
		default:
			out = append(out, region{lo + k, lo + k0, lo + q, lo + q0})
			open = true
		}
	}
	slices.Reverse(out)
	return out
}
