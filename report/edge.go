package report

import (
	"fmt"

	"github.com/difffuzz/difffuzz/boundary"
)

// edgePosition places the input bytes [in, inEnd) relative to the chunk edges of vector code:
// "ends@W" when they end exactly at a W-byte edge, "starts@W" when they start exactly at one
// (other than the start of the input), "straddles@W" when they cross one, for the widest W of
// 64, 32 and 16 that applies; "inside" otherwise, and "" for no bytes.
func edgePosition(in, inEnd int) string {
	if in < 0 || inEnd <= in {
		return ""
	}
	for i := len(boundary.Widths) - 1; i >= 0; i-- {
		w := boundary.Widths[i]
		switch {
		case inEnd%w == 0:
			return fmt.Sprintf("ends@%d", w)
		case in%w == 0 && in > 0:
			return fmt.Sprintf("starts@%d", w)
		case in/w != (inEnd-1)/w:
			return fmt.Sprintf("straddles@%d", w)
		}
	}
	return "inside"
}
