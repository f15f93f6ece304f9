// Command peerbench times fast.Escape against the Go JSON string escapers (package peers) with
// difffuzz bench's method (alternating passes, an A/A control, medians with confidence
// intervals) and writes its report: every corpus at 4 KiB and 64 KiB under peers.PHPOpts, the
// option set under which every peer's answer is PHP's (each answer is checked against the
// oracle before it is timed; a wrong one is refused, never timed). The anchors are copy() of
// the input and of the output (the write bound). With --floors it times fast alone against
// copy-output under the default options instead (no peers): copy-output's column is then
// fast's cost in copies of its output, the unit of the escaper's speed floors. make perf-doc
// puts the markdown of both in docs/benchmarks.md.
//
//	go run ./cmd/peerbench [--floors] [--format text|markdown|json|csv] [--sizes 4KiB,64KiB] [--passes N] [--pass-time D]
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/difffuzz/difffuzz/bench"
	"github.com/difffuzz/difffuzz/bench/peers"
	"github.com/difffuzz/difffuzz/corpus"
	"github.com/difffuzz/difffuzz/fast"
	"github.com/difffuzz/difffuzz/jsonopt"
	"github.com/difffuzz/difffuzz/oracle"
	"github.com/difffuzz/difffuzz/protocol"
)

func main() {
	format := flag.String("format", "text", "report format: "+strings.Join(bench.Formats, ", "))
	sizes := flag.String("sizes", "4KiB,64KiB", "sizes of the corpora, comma-separated")
	passes := flag.Int("passes", bench.DefaultPasses, "timed passes of each candidate over each cell")
	passTime := flag.Duration("pass-time", 100*time.Millisecond, "about how long one pass takes")
	floors := flag.Bool("floors", false, "time fast and copy-output alone, every corpus under the default options (copy-output's column: fast's cost in copies of its output)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "peerbench: takes no arguments, got %q\n", flag.Arg(0))
		os.Exit(2)
	}
	if err := run(*format, *sizes, *passes, *passTime, *floors); err != nil {
		fmt.Fprintln(os.Stderr, "peerbench:", err)
		os.Exit(2)
	}
}

func run(format, sizeList string, passes int, passTime time.Duration, floors bool) error {
	if err := bench.CheckSettings(format, passes, passTime); err != nil {
		return err
	}
	sizes, err := bench.ParseSizes(sizeList)
	if err != nil {
		return err
	}
	cells, cands, err := lineup(sizes, floors)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := bench.Run(ctx, bench.Config{Cells: cells, Candidates: cands, Passes: passes, PassTime: passTime})
	if err != nil {
		return err
	}
	rep.Command = "(cd bench/peers && go run ./cmd/peerbench " + strings.Join(os.Args[1:], " ") + ")"
	rep.Machine = bench.Machine()
	return bench.Write(os.Stdout, rep, format)
}

// lineup returns the cells and candidates of a run: every corpus at each size under
// peers.PHPOpts, fast and the peers, copy() of the input and copy-output; with floors, under
// the default options, fast (under each cell's options) and copy-output alone.
func lineup(sizes []int, floors bool) ([]bench.Cell, []bench.Candidate, error) {
	opts := peers.PHPOpts
	if floors {
		opts = 0
	}
	cells, err := bench.Cells(bench.Selection{Ops: []protocol.Op{protocol.OpEscape}, Corpora: corpus.Names(),
		Sizes: sizes, Options: []jsonopt.Options{opts}})
	if err != nil {
		return nil, nil, err
	}
	var cands []bench.Candidate
	if floors {
		cands = append(cands, checked(peers.Escaper{Name: "fast"}))
	} else {
		for _, e := range peers.Escapers() {
			cands = append(cands, checked(e))
		}
		for _, a := range bench.Anchors() {
			if a.Name == "copy" {
				cands = append(cands, a)
			}
		}
	}
	return cells, append(cands, copyOutput()), nil
}

// checked is e as a candidate: its answer on each input is compared with the oracle's under the
// cell's options first, then it is timed with dst reused between runs. An Escaper without F is
// fast.Escape under the cell's options.
func checked(e peers.Escaper) bench.Candidate {
	return bench.Candidate{Name: e.Name, Prepare: func(c bench.Cell) (bench.Timer, error) {
		f := e.F
		if f == nil {
			f = func(dst, s []byte) []byte { out, _ := fast.Escape(dst, s, c.Options); return out }
		}
		dst := make([]byte, 0, 8*c.Size+64)
		for _, in := range c.Inputs {
			want, _ := oracle.Escape(nil, in, c.Options)
			if got := f(dst[:0], in); !bytes.Equal(got, want) {
				return nil, fmt.Errorf("%w on a %d-byte input", bench.ErrWrongAnswer, len(in))
			}
		}
		return bench.Timed(func() {
			for _, in := range c.Inputs {
				dst = f(dst[:0], in)
			}
		}), nil
	}}
}

// copyOutput is the anchor "copy-output": copy() of as many bytes as the oracle's answer has.
func copyOutput() bench.Candidate {
	return bench.Candidate{Name: "copy-output", Anchor: true, Prepare: func(c bench.Cell) (bench.Timer, error) {
		var outs [][]byte
		for _, in := range c.Inputs {
			out, _ := oracle.Escape(nil, in, c.Options)
			outs = append(outs, out)
		}
		dst := make([]byte, 8*c.Size+64)
		return bench.Timed(func() {
			for _, out := range outs {
				copy(dst, out)
			}
		}), nil
	}}
}
