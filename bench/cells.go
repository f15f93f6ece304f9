package bench

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/difffuzz/difffuzz/corpus"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
	"github.com/difffuzz/difffuzz/protocol"
)

// The corpora that are not package corpus's texts: strings of 8–11 bytes, timed one by one,
// and a batch of them, the values of "1,000 arrays of 10 fields".
const (
	ShortCorpus = "short"
	BatchCorpus = "batch"
	shortCount  = 16    // strings in the short cell (a run escapes each once; times are per string)
	batchCount  = 10000 // strings in the batch cell (a run is the whole batch)
)

// Selection says which cells to make; the zero value is the seeds' set (DefaultCells).
type Selection struct {
	Ops     []protocol.Op     // default escape and decode
	Corpora []string          // default: every corpus, short and batch (escape); cyrillic, cjk, emoji and ascii (decode)
	Sizes   []int             // default: 4 KiB, and 16 B and 64 KiB for ascii
	Options []jsonopt.Options // escape's option sets; default: none, and UNESCAPED_UNICODE for cyrillic, cjk, emoji and ascii-eacute-periodic
}

// unicodeCorpora are the corpora the seeds also time under JSON_UNESCAPED_UNICODE.
var unicodeCorpora = []string{"cyrillic", "cjk", "emoji", "ascii-eacute-periodic"}

// decodeCorpora are the decoder's default corpora: code points of 2, 3 and 4 bytes, and ASCII.
var decodeCorpora = []string{"cyrillic", "cjk", "emoji", "ascii"}

// CorpusNames lists what Selection.Corpora may name: package corpus's names, short and batch.
func CorpusNames() []string { return append(corpus.Names(), ShortCorpus, BatchCorpus) }

// Cells makes the cells of sel, in report order: by operation, size, corpus, option set.
func Cells(sel Selection) ([]Cell, error) {
	ops := sel.Ops
	if len(ops) == 0 {
		ops = []protocol.Op{protocol.OpEscape, protocol.OpDecode}
	}
	for _, name := range sel.Corpora {
		if !slices.Contains(CorpusNames(), name) {
			return nil, fmt.Errorf("no corpus %q (the corpora: %s)", name, strings.Join(CorpusNames(), ", "))
		}
	}
	for _, n := range sel.Sizes {
		if n < 1 || n > 1<<26 {
			return nil, fmt.Errorf("size %d bytes: sizes go from 1 B to 64 MiB", n)
		}
	}
	var cells []Cell
	for _, op := range ops {
		names := sel.Corpora
		if names == nil {
			names = CorpusNames()
			if op == protocol.OpDecode {
				names = decodeCorpora
			}
		}
		type key struct {
			size int
			name string
		}
		var order []key
		for _, name := range names {
			if name == ShortCorpus || name == BatchCorpus {
				order = append(order, key{0, name})
				continue
			}
			sizes := sel.Sizes
			if sizes == nil {
				sizes = []int{4096}
				if name == "ascii" {
					sizes = corpus.Sizes
				}
			}
			for _, n := range sizes {
				order = append(order, key{n, name})
			}
		}
		// By size (short and batch last), then in the corpora's order.
		slices.SortStableFunc(order, func(a, b key) int {
			ka, kb := a.size, b.size
			if ka == 0 {
				ka = 1 << 30
			}
			if kb == 0 {
				kb = 1 << 30
			}
			if ka == kb && a.size == 0 { // short before batch
				return strings.Compare(b.name, a.name)
			}
			return ka - kb
		})
		for _, k := range order {
			opts := []jsonopt.Options{0}
			switch {
			case op != protocol.OpEscape:
			case sel.Options != nil:
				opts = sel.Options
			case slices.Contains(unicodeCorpora, k.name):
				opts = []jsonopt.Options{0, jsonopt.UnescapedUnicode}
			}
			for _, o := range opts {
				cells = append(cells, makeCell(op, k.name, k.size, o))
			}
		}
	}
	return cells, nil
}

func makeCell(op protocol.Op, name string, size int, o jsonopt.Options) Cell {
	c := Cell{Op: op, Corpus: name, Options: o, Unit: "call", PerRun: 1}
	switch name {
	case ShortCorpus:
		c.Inputs, c.Unit, c.PerRun = corpus.Fields(shortCount), "string", shortCount
	case BatchCorpus:
		c.Inputs, c.Unit = corpus.Fields(batchCount), "batch"
	default:
		cp, _ := corpus.Lookup(name)
		c.Inputs = [][]byte{cp.Make(size)}
	}
	for _, in := range c.Inputs {
		c.Size += len(in)
	}
	if op == protocol.OpDecode {
		c.Unit, c.PerRun = "code point", 0
		for _, in := range c.Inputs {
			for pos := 0; pos < len(in); c.PerRun++ {
				pos += oracle.NextChar(in, pos).Advance
			}
		}
		c.PerRun = max(c.PerRun, 1)
	}
	return c
}

// ParseSizes reads a comma-separated list of sizes: bytes ("16"), or with a unit B, KiB or
// MiB ("16B", "4KiB", "1MiB").
func ParseSizes(s string) ([]int, error) {
	var out []int
	for _, orig := range strings.Split(s, ",") {
		f := strings.TrimSpace(orig)
		mult := 1
		switch {
		case strings.HasSuffix(f, "KiB"):
			f, mult = strings.TrimSuffix(f, "KiB"), 1<<10
		case strings.HasSuffix(f, "MiB"):
			f, mult = strings.TrimSuffix(f, "MiB"), 1<<20
		case strings.HasSuffix(f, "B"):
			f = strings.TrimSuffix(f, "B")
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > (1<<26)/mult {
			return nil, fmt.Errorf("size %q: want a number of bytes from 1 B to 64 MiB, like 16, 16B, 4KiB or 1MiB", strings.TrimSpace(orig))
		}
		out = append(out, n*mult)
	}
	return out, nil
}
