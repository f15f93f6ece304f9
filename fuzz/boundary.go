package fuzz

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/difffuzz/difffuzz/boundary"
	"github.com/difffuzz/difffuzz/jsonopt"
)

// The boundary space (DESIGN.md §3, issue 4) puts the bytes an escaper or decoder treats
// specially at every offset around the 16-, 32- and 64-byte edges of vector code, runs every
// candidate on each input with the input flush against a PROT_NONE guard page (at its end,
// and again at its start), with dst's capacity ending at one and its spare capacity filled
// with a canary, and checks after each call that the input is unchanged, nothing was
// written past the returned length and no byte outside the input was read (a fault becomes
// a finding through debug.SetPanicOnFault). Package boundary builds the placements; this
// file supplies what is special about JSON (the units, the filler, the option sets) and
// compares with the oracle.
//
// The space for the fuzz units below (97 units: BoundaryUnits; 16 pair and 8 triple
// representatives: boundaryPairs), per family, with the option sets each placement runs
// escape under and its layouts (each layout is a separate call of every candidate):
//
//	family     placements   escape option sets            layouts
//	clean             194   BoundaryOptions (12)          end flush, start flush
//	edge          903,364   BoundaryOptions               end flush, start flush
//	straddle      101,718   BoundaryOptions               end flush, start flush
//	pair          376,096   BoundaryOptions               end flush, start flush
//	triple        606,720   BoundaryOptions               end flush, start flush
//	align          18,624   BoundaryOptions               address ≡ 0..63 (mod 64)
//	dst            37,830   BoundaryOptions               end flush
//	embed1         14,336   all 2,048                     end flush
//	embed2      3,670,016   BoundaryOptions               end flush
//	embed3    218,103,808   Embed3Options, alternating    end flush
//	total     223,832,706   316,038,680 escape cases
//
// decode and utf8_decode run each placement once per layout (223,832,706 cases each). The
// whole space takes about 250 CPU seconds with four fast variants (avx2, sse2, swar,
// generic), about two minutes on two cores; most of it is embed3.
//
// The embedded exhaustive space is the documented equivalent of the issue's "1–3-byte space
// at edge offsets {0..3, 12..19, 28..35, 60..67}": every 1- and 2-byte string at all 28 of
// those offsets, each at the end of the input and followed by 17 filler bytes, 1-byte
// strings under all 2,048 option sets and 2-byte strings under the 12 BoundaryOptions; and
// every 3-byte string at offset 0 and across each 16-, 32- and 64-byte edge at each of its
// 4 split points (the edge before byte 0, 1, 2 or after byte 2), 13 placements, placement i
// under Embed3Options[i%2] (so each string runs under both across its placements, and each
// placement under both across strings). All 3-byte strings at all 28 offsets under all
// option sets would be 481 billion calls per candidate. The 12 edge placements per string
// are every position of an edge relative to the string, which is what the offsets 12..19
// etc. vary; offsets farther from the edge put the string inside one chunk, which the
// exhaustive space covers at offset 0; and the option sets left out change only how a byte
// is written, which the 1- and 2-byte strings cover under every (1-byte) or every
// representative (2-byte) option set at all 28 offsets.

// boundaryFiller is the clean filler: 62 bytes no option makes json_encode escape, period 62
// so no 16-, 32- or 64-byte shift of the input leaves it unchanged.
const boundaryFiller = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// BoundaryOptions are the option sets every boundary placement runs escape under (except
// embed1, which runs all 2,048, and embed3, see Embed3Options): every string option on and
// off, each HEX_* option alone (vector kernels pick their set of special bytes from them),
// the raw and escaped UTF-8 paths, each invalid-UTF-8 mode.
var BoundaryOptions = []jsonopt.Options{
	0,
	jsonopt.HexTag,
	jsonopt.HexAmp | jsonopt.HexApos | jsonopt.UnescapedSlashes,
	jsonopt.HexQuot | jsonopt.UnescapedUnicode,
	jsonopt.InvalidUTF8Substitute,
	jsonopt.InvalidUTF8Substitute | jsonopt.HexTag | jsonopt.HexQuot,
	jsonopt.InvalidUTF8Ignore | jsonopt.UnescapedUnicode,
	jsonopt.InvalidUTF8Substitute | jsonopt.UnescapedUnicode | jsonopt.UnescapedLineTerminators,
	jsonopt.PartialOutputOnError | jsonopt.HexTag | jsonopt.HexAmp | jsonopt.HexApos | jsonopt.HexQuot,
	jsonopt.UnescapedSlashes | jsonopt.InvalidUTF8Ignore | jsonopt.InvalidUTF8Substitute,
	jsonopt.UnescapedUnicode | jsonopt.PartialOutputOnError | jsonopt.UnescapedSlashes,
	jsonopt.StringPath, // NUMERIC_CHECK included: no placement is a number
}

// Embed3Options are the option sets of the embedded 3-byte strings: the error path with
// \uXXXX escapes, and the raw path with substitution.
var Embed3Options = []jsonopt.Options{
	0,
	jsonopt.InvalidUTF8Substitute | jsonopt.UnescapedUnicode,
}

// BoundaryUnits are the units of the boundary space: the 39 bytes json_encode escapes
// (0x00..0x1F, " & ' / < > \, class "dirty-ascii"), their clean neighbours 0x20 and 0x7F
// (class "clean-edge"), boundary.UTF8Units (valid sequences at the ends of every UTF-8
// range, U+2028, U+2029, U+FFFD, U+FEFF, and every invalid class of spec §2.2), and U+00FF
// and U+0100, the ends of what utf8_decode keeps (class "latin1-edge").
func BoundaryUnits() []boundary.Unit {
	var dirty []byte
	for b := 0; b < 0x20; b++ {
		dirty = append(dirty, byte(b))
	}
	dirty = append(dirty, '"', '&', '\'', '/', '<', '>', '\\')
	units := boundary.ByteUnits("dirty-ascii", dirty...)
	units = append(units, boundary.ByteUnits("clean-edge", 0x20, 0x7F)...)
	units = append(units, boundary.UTF8Units()...)
	units = append(units,
		boundary.Unit{Class: "latin1-edge", Name: "U+00FF", Bytes: []byte{0xC3, 0xBF}},
		boundary.Unit{Class: "latin1-edge", Name: "U+0100", Bytes: []byte{0xC4, 0x80}})
	return units
}

// boundaryPairs are the 16 units placed two to a block; the first 8 are also placed three
// to a block.
func boundaryPairs() []boundary.Unit {
	u := func(name string, b ...byte) boundary.Unit {
		return boundary.Unit{Class: "pair", Name: name, Bytes: b}
	}
	return []boundary.Unit{
		u(`"`, '"'), u("0x01", 0x01), u("/", '/'), u("<", '<'),
		u("U+00E9", 0xC3, 0xA9), u("U+2028", 0xE2, 0x80, 0xA8), u("U+1F600", 0xF0, 0x9F, 0x98, 0x80), u("truncated E2 82", 0xE2, 0x82),
		u(`\`, '\\'), u("\\n", '\n'), u("&", '&'), u("'", '\''),
		u("0x1F", 0x1F), u("stray 80", 0x80), u("surrogate ED A0 80", 0xED, 0xA0, 0x80), u("byte FF", 0xFF),
	}
}

var (
	boundaryOnce  sync.Once
	boundarySpace *boundary.Space
)

// BoundarySpace is the boundary space of the fuzz units (built once).
func BoundarySpace() *boundary.Space {
	boundaryOnce.Do(func() {
		p := boundaryPairs()
		s, err := boundary.New(boundary.Config{Units: BoundaryUnits(), Pairs: p, Triples: p[:8], Filler: []byte(boundaryFiller)})
		if err != nil {
			panic(err) // the configuration is fixed: a programming error
		}
		boundarySpace = s
	})
	return boundarySpace
}

// BoundaryConfig selects a boundary campaign.
type BoundaryConfig struct {
	Config

	// Sample > 0 checks a deterministic sample of at most Sample placements of each family
	// (boundary.Family.Sample), and runs embed1 under BoundaryOptions instead of all 2,048
	// option sets. 0 checks the whole space.
	Sample uint64
	// Families restricts the campaign to the named families (nil: all, in space order).
	Families []string
	// Shard and Shards split the work into Shards parts (chunks of placements dealt
	// round-robin), of which this run checks part Shard. Shards 0 or 1: everything.
	Shard, Shards int
}

// familyOptions are the escape option sets of a family, and whether they rotate: placement
// i then runs under opts[i%len(opts)] alone.
func familyOptions(cfg *BoundaryConfig, f *boundary.Family) ([]jsonopt.Options, bool) {
	switch f.Name {
	case "embed1":
		if cfg.Sample == 0 {
			return AllCombos(), false
		}
	case "embed3":
		return Embed3Options, true
	}
	return BoundaryOptions, false
}

func layoutsOf(l boundary.Layout) []boundary.Layout {
	var out []boundary.Layout
	for _, x := range []boundary.Layout{boundary.EndFlush, boundary.StartFlush, boundary.Aligned} {
		if l&x != 0 {
			out = append(out, x)
		}
	}
	return out
}

// bchunk is one unit of work: placements [lo, hi) of a family's sample.
type bchunk struct {
	fam    *boundary.Family
	sample boundary.Sample
	opts   []jsonopt.Options
	rotate bool // placement i runs under opts[i%len(opts)] alone
	lo, hi uint64
}

// cases is the number of cases (placement × option set) of placements [lo, hi).
func (c *bchunk) cases(lo, hi uint64) uint64 {
	if c.rotate {
		return hi - lo
	}
	return (hi - lo) * uint64(len(c.opts))
}

// candGroup is a set of candidates whose function for the operation is the same func
// value: it runs once, and its findings are reported for each of them.
type candGroup struct {
	first *Impl
	names []string
}

func groupCands(op Op, cands []Impl) []candGroup {
	idx := map[unsafe.Pointer]int{}
	var out []candGroup
	for i := range cands {
		im := &cands[i]
		var p unsafe.Pointer
		switch op {
		case OpEscape:
			p = funcPtr(im.Escape)
		case OpDecode:
			p = funcPtr(im.NextChar)
		default:
			p = funcPtr(im.UTF8Decode)
		}
		if j, ok := idx[p]; ok {
			out[j].names = append(out[j].names, im.Name)
			continue
		}
		idx[p] = len(out)
		out = append(out, candGroup{first: im, names: []string{im.Name}})
	}
	return out
}

// Boundary runs the boundary space (see the table above) for each operation against the
// candidates, with every memory check, and reports one SpaceReport per operation (Space
// "boundary", Len 0; OptionSets 0 for escape, whose families use different option sets).
// It stops early, with a partial report and every finding made so far, when ctx is
// cancelled. Without guard pages (no mmap) reads outside the input go undetected; the rest
// of the checks still run.
func Boundary(ctx context.Context, cfg BoundaryConfig) (*Report, error) {
	if err := cfg.defaults(true); err != nil {
		return nil, err
	}
	if cfg.Shards > 1 && (cfg.Shard < 0 || cfg.Shard >= cfg.Shards) {
		return nil, fmt.Errorf("shard %d/%d: want 0 <= K < N", cfg.Shard, cfg.Shards)
	}
	sp := BoundarySpace()
	var fams []*boundary.Family
	if cfg.Families == nil {
		fams = sp.Families()
	} else {
		for _, n := range cfg.Families {
			f := sp.Family(n)
			if f == nil {
				return nil, fmt.Errorf("unknown boundary family %q", n)
			}
			fams = append(fams, f)
		}
	}
	rep := &Report{}
	for _, op := range cfg.Ops {
		if ctx.Err() != nil {
			rep.Interrupted = true
			break
		}
		var cands []Impl
		for _, im := range cfg.Impls {
			if im.Has(op) {
				cands = append(cands, im)
			}
		}
		if len(cands) == 0 {
			continue
		}
		sr, fs, err := runBoundary(ctx, &cfg, op, fams, cands)
		if err != nil {
			return nil, err
		}
		rep.Spaces = append(rep.Spaces, sr)
		rep.Findings = append(rep.Findings, fs...)
		rep.Differences += sr.Differences
		if !sr.Complete {
			rep.Interrupted = true
		}
	}
	sort.SliceStable(rep.Findings, func(i, j int) bool { return less(rep.Findings[i], rep.Findings[j]) })
	return rep, nil
}

func runBoundary(ctx context.Context, cfg *BoundaryConfig, op Op, fams []*boundary.Family, cands []Impl) (SpaceReport, []*Finding, error) {
	shards := uint64(max(cfg.Shards, 1))
	chunks, totalCases := boundaryChunks(cfg, op, fams)
	label := "boundary " + string(op)
	if shards > 1 {
		label += fmt.Sprintf(" (shard %d/%d)", cfg.Shard, shards)
	}
	cfg.Progress.Begin(label, totalCases)
	start := time.Now()
	groups := groupCands(op, cands)
	var next, doneChunks, donePlacements, doneCases, diffs atomic.Uint64
	perChunk := map[int][]*Finding{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var envErr error
	for w := 0; w < cfg.Workers; w++ {
		env, err := newMemEnv(BoundarySpace().MaxLen, 64+6*BoundarySpace().MaxLen+2+64)
		if err != nil {
			envErr = err
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer env.free()
			bw := &bworker{env: env, op: op, groups: groups, maxFindings: cfg.MaxFindings, sink: cfg.Sink}
			for {
				c := next.Add(1) - 1
				if c >= uint64(len(chunks)) || ctx.Err() != nil {
					return
				}
				ch := &chunks[c]
				bw.found, bw.diffs = nil, 0
				clear(bw.kept)
				for k := ch.lo; k < ch.hi; k++ {
					bw.placement(ch.fam, ch.sample.Index(k), ch.opts, ch.rotate)
				}
				diffs.Add(bw.diffs)
				if len(bw.found) > 0 {
					mu.Lock()
					perChunk[int(c)] = bw.found
					mu.Unlock()
				}
				doneChunks.Add(1)
				donePlacements.Add(ch.hi - ch.lo)
				doneCases.Add(ch.cases(ch.lo, ch.hi))
				cfg.Progress.Advance(ch.cases(ch.lo, ch.hi))
			}
		}()
	}
	wg.Wait()
	cfg.Progress.End()
	if envErr != nil {
		return SpaceReport{}, nil, envErr
	}
	elapsed := time.Since(start)
	order := make([]int, 0, len(perChunk))
	for c := range perChunk {
		order = append(order, c)
	}
	sort.Ints(order)
	kept := map[string]int{}
	var findings []*Finding
	for _, c := range order {
		for _, f := range perChunk[c] {
			k := string(f.Op) + "\x00" + f.Impl
			if kept[k] < cfg.MaxFindings {
				kept[k]++
				findings = append(findings, f)
			}
		}
	}
	sr := SpaceReport{Space: "boundary", Op: op, Strings: donePlacements.Load(), OptionSets: 1, Cases: doneCases.Load(),
		Impls: implNamesOrdered(cands), Distinct: len(groups), Differences: diffs.Load(), Elapsed: elapsed,
		Complete: doneChunks.Load() == uint64(len(chunks))}
	if op == OpEscape {
		sr.OptionSets = 0
	}
	if s := elapsed.Seconds(); s > 0 {
		sr.CasesPerSec = float64(sr.Cases) / s
	}
	return sr, findings, nil
}

// boundaryChunks are the units of work of op's boundary space with cfg (its shard), and
// their cases.
func boundaryChunks(cfg *BoundaryConfig, op Op, fams []*boundary.Family) ([]bchunk, uint64) {
	shards := uint64(max(cfg.Shards, 1))
	var chunks []bchunk
	var totalCases uint64
	var j uint64
	for _, f := range fams {
		opts, rotate := []jsonopt.Options{0}, false
		if op == OpEscape {
			opts, rotate = familyOptions(cfg, f)
		}
		s := f.Sample(cfg.Sample)
		per := uint64(len(layoutsOf(f.Layouts)))
		if !rotate {
			per *= uint64(len(opts))
		}
		size := max(1, 8192/per)
		for lo := uint64(0); lo < s.Len; lo += size {
			hi := min(lo+size, s.Len)
			if j%shards == uint64(cfg.Shard) {
				ch := bchunk{fam: f, sample: s, opts: opts, rotate: rotate, lo: lo, hi: hi}
				chunks = append(chunks, ch)
				totalCases += ch.cases(lo, hi)
			}
			j++
		}
	}
	return chunks, totalCases
}

// BoundaryTotal is how many cases Boundary checks of op with cfg (its shard of the families
// of cfg.Families): the total of its progress for op.
func BoundaryTotal(cfg BoundaryConfig, op Op) uint64 {
	_, n := boundaryChunks(&cfg, op, boundaryFamilies(cfg.Families))
	return n
}

// bworker is one worker's state: its guarded memory, the current placement and the oracle's
// answers for it.
type bworker struct {
	env         *memEnv
	op          Op
	groups      []candGroup
	maxFindings int
	sink        Sink

	found []*Finding
	diffs uint64
	kept  map[string]int

	p   boundary.Placement
	buf []byte

	// The oracle's answers for the current placement.
	want  []byte
	steps []posStep

	// The oracle's answers for a single placed item, which every placement of the same item
	// shares: the item's bytes, and per option set its escape (with quotes) and error.
	item      []byte
	itemOpts  []jsonopt.Options
	itemEsc   [][]byte
	itemErr   []error
	itemSteps []posStep
	itemUTF8  []byte
}

// composable reports whether the oracle's answers for the placement can be assembled from
// those of its single item: the filler is clean ASCII, so every filler byte is a decoder step
// of its own, escaped as itself, and the item's steps are the same as alone (spec §2.2: a
// failing step stops before an ASCII byte, and the end of the input ends it the same way).
func (bw *bworker) composable() bool { return len(bw.p.Items) == 1 }

// loadItem computes the oracle's answers for the placement's single item if they are not
// cached.
func (bw *bworker) loadItem(x []byte, opts []jsonopt.Options) {
	it := bw.p.Items[0]
	s := x[it.Off : it.Off+it.Len]
	if string(s) == string(bw.item) && len(opts) == len(bw.itemOpts) && (len(opts) == 0 || &opts[0] == &bw.itemOpts[0]) {
		return
	}
	bw.item = append(bw.item[:0], s...)
	bw.itemOpts = opts
	switch bw.op {
	case OpEscape:
		bw.itemEsc = bw.itemEsc[:0]
		bw.itemErr = bw.itemErr[:0]
		for _, o := range opts {
			// The item is escaped alone as a piece of a string: under NUMERIC_CHECK a digit
			// alone would be a number (a placement that may be one is not composed).
			w, err := Oracle.Escape(nil, s, o&^jsonopt.NumericCheck)
			bw.itemEsc = append(bw.itemEsc, w)
			bw.itemErr = append(bw.itemErr, err)
		}
	case OpDecode:
		bw.itemSteps = oracleSteps(bw.itemSteps[:0], s)
	default:
		bw.itemUTF8 = Oracle.UTF8Decode(bw.itemUTF8[:0], s)
	}
}

// numericAlphabet reports whether every byte of x may be part of a numeric string (spec
// §1.7: digits, sign, point, exponent, whitespace): a short placement of the filler, which
// starts "0123456789", may be a number under NUMERIC_CHECK.
func numericAlphabet(x []byte) bool {
	for _, c := range x {
		if !(c >= '0' && c <= '9') && !strings.ContainsRune("+-.eE \t\n\r\v\f", rune(c)) {
			return false
		}
	}
	return true
}

// oracleSteps appends the oracle's decoder walk over s from position 0.
func oracleSteps(out []posStep, s []byte) []posStep {
	for pos := 0; pos < len(s); {
		st := Oracle.NextChar(s, pos)
		out = append(out, posStep{pos, st})
		pos += st.Advance
	}
	return out
}

// wantEscape is the oracle's escape of x under option set number oi of opts.
func (bw *bworker) wantEscape(x []byte, opts []jsonopt.Options, oi int) ([]byte, error) {
	if !bw.composable() || (opts[oi]&jsonopt.NumericCheck != 0 && numericAlphabet(x)) {
		w, err := Oracle.Escape(bw.want[:0], x, opts[oi])
		bw.want = w
		return w, err
	}
	bw.loadItem(x, opts)
	it := bw.p.Items[0]
	e, err := bw.itemEsc[oi], bw.itemErr[oi]
	if err != nil {
		return e, err // the whole string fails: false, or null under PARTIAL_OUTPUT_ON_ERROR
	}
	w := append(bw.want[:0], '"')
	w = append(w, x[:it.Off]...)
	w = append(w, e[1:len(e)-1]...)
	w = append(w, x[it.Off+it.Len:]...)
	w = append(w, '"')
	bw.want = w
	return w, nil
}

// wantSteps is the oracle's decoder walk over x.
func (bw *bworker) wantSteps(x []byte) []posStep {
	if !bw.composable() {
		bw.steps = oracleSteps(bw.steps[:0], x)
		return bw.steps
	}
	bw.loadItem(x, nil)
	it := bw.p.Items[0]
	st := bw.steps[:0]
	for i := 0; i < it.Off; i++ {
		st = append(st, posStep{i, jsonopt.Step{CP: uint32(x[i]), Advance: 1, OK: true}})
	}
	for _, s := range bw.itemSteps {
		st = append(st, posStep{it.Off + s.pos, s.st})
	}
	for i := it.Off + it.Len; i < len(x); i++ {
		st = append(st, posStep{i, jsonopt.Step{CP: uint32(x[i]), Advance: 1, OK: true}})
	}
	bw.steps = st
	return st
}

// wantUTF8 is the oracle's utf8_decode of x.
func (bw *bworker) wantUTF8(x []byte) []byte {
	if !bw.composable() {
		bw.want = Oracle.UTF8Decode(bw.want[:0], x)
		return bw.want
	}
	bw.loadItem(x, nil)
	it := bw.p.Items[0]
	w := append(bw.want[:0], x[:it.Off]...)
	w = append(w, bw.itemUTF8...)
	w = append(w, x[it.Off+it.Len:]...)
	bw.want = w
	return w
}

// spare is the destination's spare capacity for the placement: as placed, or room for the
// longest output plus 64 canary bytes.
func (bw *bworker) spare(n int) int {
	if bw.p.Spare != boundary.Ample {
		return bw.p.Spare
	}
	if bw.op == OpEscape {
		return 6*n + 2 + 64
	}
	return n + 64
}

// placement checks placement i of f against every candidate group in every layout, escape
// under every option set of opts (rotate: under opts[i%len(opts)] alone).
func (bw *bworker) placement(f *boundary.Family, i uint64, opts []jsonopt.Options, rotate bool) {
	bw.buf = f.At(i, &bw.p, bw.buf)
	bw.run(bw.buf, i, opts, rotate)
}

// run checks input x (placed as bw.p says) against every candidate group in every layout.
func (bw *bworker) run(x []byte, i uint64, opts []jsonopt.Options, rotate bool) {
	for _, l := range layoutsOf(bw.p.Layouts) {
		switch bw.op {
		case OpEscape:
			for oi, o := range opts {
				if rotate && uint64(oi) != i%uint64(len(opts)) {
					continue
				}
				want, werr := bw.wantEscape(x, opts, oi)
				for gi := range bw.groups {
					g := &bw.groups[gi]
					got, pv, iss, gerr := bw.env.escape(g.first.Name, g.first.Escape, x, l, bw.p.Align, bw.p.DstLen, bw.spare(len(x)), o)
					if len(iss) == 0 && pv == nil && gerr == werr && string(got) == string(want) {
						continue
					}
					bw.report(g, x, l, o, want, werr, got, gerr, pv, iss)
				}
			}
		case OpDecode:
			steps := bw.wantSteps(x)
			for gi := range bw.groups {
				g := &bw.groups[gi]
				k, got, pv, iss := bw.env.decode(g.first.Name, g.first.NextChar, x, steps, l, bw.p.Align)
				if len(iss) == 0 && pv == nil && k == len(steps) {
					continue
				}
				bw.reportDecode(g, x, l, steps, k, got, pv, iss)
			}
		default:
			want := bw.wantUTF8(x)
			for gi := range bw.groups {
				g := &bw.groups[gi]
				got, pv, iss := bw.env.utf8Decode(g.first.Name, g.first.UTF8Decode, x, l, bw.p.Align, bw.p.DstLen, bw.spare(len(x)))
				if len(iss) == 0 && pv == nil && string(got) == string(want) {
					continue
				}
				bw.report(g, x, l, 0, want, nil, got, nil, pv, iss)
			}
		}
	}
}

// add appends f, and a copy of it for every other candidate of the group, to the findings
// of the chunk, counting all and keeping at most maxFindings per (op, impl); the sink gets
// every one.
func (bw *bworker) add(g *candGroup, mk func() *Finding) {
	var f *Finding
	for _, name := range g.names {
		bw.diffs++
		k := string(bw.op) + "\x00" + name
		if bw.kept == nil {
			bw.kept = map[string]int{}
		}
		keep := bw.kept[k] < bw.maxFindings
		if !keep && bw.sink == nil {
			continue
		}
		if f == nil {
			f = mk()
			f.Space = "boundary"
		}
		c := *f
		c.Impl = name
		if first := g.first.Name; name != first && strings.HasPrefix(c.Detail, first+" ") {
			c.Detail = name + c.Detail[len(first):] // the detail names the candidate
		}
		if c.Loc != nil {
			l := *c.Loc
			c.Loc = &l
		}
		if keep {
			bw.kept[k]++
			bw.found = append(bw.found, &c)
		}
		if bw.sink != nil {
			bw.sink.Add(&c)
		}
	}
}

// loc builds a Location at offset off of the current placement, run in layout l.
func (bw *bworker) loc(off int, output bool, l boundary.Layout) *Location {
	loc := &Location{Loc: boundary.Locate(off), Output: output, Layout: l, Align: bw.env.align}
	if bw.p.Family != "" {
		loc.Family, loc.Placement = bw.p.Family, bw.p.String()
	}
	return loc
}

// itemOff is the offset a finding falls back to when the first difference cannot be located
// in the input: the first placed item, or the end of the input for filler alone.
func (bw *bworker) itemOff(x []byte) int {
	if len(bw.p.Items) > 0 {
		return bw.p.Items[0].Off
	}
	return len(x)
}

// report turns the memory issues, panic and output difference of one escape or utf8_decode
// call into findings.
func (bw *bworker) report(g *candGroup, x []byte, l boundary.Layout, o jsonopt.Options, want []byte, werr error,
	got []byte, gerr error, pv any, iss []memIssue) {
	base := Finding{Op: bw.op, Input: clone(x), Flags: o}
	for _, is := range iss {
		is := is
		bw.add(g, func() *Finding {
			f := base
			f.Kind, f.Detail, f.Loc = is.kind, is.detail, bw.loc(is.off, is.output, l)
			return &f
		})
	}
	wcode, gcode := jsonopt.ErrorCode(werr), jsonopt.ErrorCode(gerr)
	switch {
	case bw.env.faulted:
		// The call ended in a guard-page fault, reported above: it has no result.
	case pv != nil:
		bw.add(g, func() *Finding {
			f := base
			f.Kind, f.Want, f.WantErr, f.Detail = KindPanic, clone(want), wcode, fmt.Sprint(pv)
			f.Loc = bw.loc(bw.itemOff(x), false, l)
			return &f
		})
	case gcode != wcode:
		bw.add(g, func() *Finding {
			f := base
			f.Kind, f.Want, f.Got, f.WantErr, f.GotErr, f.Detail = KindError, clone(want), clone(got), wcode, gcode, errDetail(gerr)
			f.Loc = bw.loc(bw.errorOff(g.first, x, o, werr), false, l)
			return &f
		})
	case string(got) != string(want):
		bw.add(g, func() *Finding {
			f := base
			f.Kind, f.Want, f.Got, f.WantErr, f.GotErr = KindOutput, clone(want), clone(got), wcode, gcode
			d := FirstDiff(want, got)
			off := firstFailure(x)
			if werr == nil {
				off = outputInputOffset(bw.op, x, o, insertionPoint(want, got, d), d)
			}
			f.Loc = bw.loc(off, false, l)
			return &f
		})
	}
}

// reportDecode is report for decode: k is the index of the first differing step.
func (bw *bworker) reportDecode(g *candGroup, x []byte, l boundary.Layout, steps []posStep, k int, got jsonopt.Step, pv any, iss []memIssue) {
	base := Finding{Op: OpDecode, Input: clone(x)}
	for _, is := range iss {
		is := is
		bw.add(g, func() *Finding {
			f := base
			f.Kind, f.Detail, f.Loc = is.kind, is.detail, bw.loc(is.off, is.output, l)
			if k < len(steps) {
				f.Pos = steps[k].pos
			}
			return &f
		})
	}
	if k >= len(steps) || bw.env.faulted {
		return
	}
	bw.add(g, func() *Finding {
		f := base
		f.Pos, f.WantStep = steps[k].pos, steps[k].st
		if pv != nil {
			f.Kind, f.Detail = KindPanic, fmt.Sprint(pv)
		} else {
			f.Kind, f.GotStep = KindStep, got
		}
		f.Loc = bw.loc(steps[k].pos, false, l)
		return &f
	})
}

// outputInputOffset maps the first difference between the oracle's (successful) output of
// op on x and a candidate's, output bytes lo..hi (lo < hi only for an ambiguous insertion,
// see insertionPoint), to the input offset of the decoder step whose output holds it: 0 for
// escape's opening quote, len(x) for its closing quote or past the end. Each step's output
// is that of its bytes alone (spec §2.2: a step's result depends only on its own bytes),
// escaped by the oracle. When several steps explain the difference equally (an insertion
// between outputs that look alike, such as utf8_decode's '?'), the first one that crosses a
// 16-byte edge is named, else the first.
func outputInputOffset(op Op, x []byte, opts jsonopt.Options, lo, hi int) int {
	at := 0
	if op == OpEscape {
		if hi < 1 {
			return 0
		}
		at = 1
	}
	first := -1
	var piece []byte
	for i := 0; i < len(x) && at <= hi; {
		adv, n := 1, 1
		if x[i] >= 0x80 || op != OpEscape {
			adv = Oracle.NextChar(x, i).Advance
		}
		if op == OpEscape {
			piece, _ = Oracle.Escape(piece[:0], x[i:i+adv], opts)
			n = max(len(piece)-2, 0)
		}
		if at >= lo || lo < at+n { // the step's output starts in [lo, hi] or holds lo
			if first < 0 {
				first = i
			}
			if i%boundary.Lanes+adv > boundary.Lanes {
				return i
			}
			if lo == hi && lo < at+n {
				return first
			}
		}
		at += n
		i += adv
	}
	if first >= 0 {
		return first
	}
	return len(x)
}

// firstFailure is the offset of the first failing decoder step of x (len(x) if none).
func firstFailure(x []byte) int {
	for pos := 0; pos < len(x); {
		if x[pos] < 0x80 {
			pos++
			continue
		}
		st := Oracle.NextChar(x, pos)
		if !st.OK {
			return pos
		}
		pos += st.Advance
	}
	return len(x)
}

// errorOff locates an error difference: where the oracle fails when it does; otherwise (the
// candidate fails on valid input) the start of the step that makes the candidate fail on
// the shortest prefix of x ending at a step boundary, or the first item when no prefix fails.
func (bw *bworker) errorOff(im *Impl, x []byte, opts jsonopt.Options, werr error) int {
	if werr != nil {
		return firstFailure(x)
	}
	var buf []byte
	for pos := 0; pos < len(x); {
		adv := 1
		if x[pos] >= 0x80 {
			adv = Oracle.NextChar(x, pos).Advance
		}
		end := pos + adv
		prefix := clone(x[:end])
		var err error
		if boundary.Protect(func() { buf, err = im.Escape(buf[:0], prefix, opts) }) == nil && jsonopt.ErrorCode(err) != jsonopt.ErrorNone {
			return pos
		}
		pos = end
	}
	return bw.itemOff(x)
}

// GuardPages reports whether the boundary space runs with real guard pages (mmap); without
// them reads outside the input are not detected.
func GuardPages() bool {
	b, err := boundary.NewBuffer(1)
	if err != nil {
		return false
	}
	defer b.Free()
	return b.Guarded()
}

// BoundaryFamilies lists the names of the boundary families, in order.
func BoundaryFamilies() []string {
	var out []string
	for _, f := range BoundarySpace().Families() {
		out = append(out, f.Name)
	}
	return out
}

// ParseBoundaryFamilies reads a comma-separated list of boundary family names; "" or "all"
// is nil (every family).
func ParseBoundaryFamilies(list string) ([]string, error) {
	list = strings.TrimSpace(list)
	if list == "" || list == "all" {
		return nil, nil
	}
	var out []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if BoundarySpace().Family(n) == nil {
			return nil, fmt.Errorf("unknown boundary family %q (known: %s)", n, strings.Join(BoundaryFamilies(), ", "))
		}
		out = append(out, n)
	}
	return out, nil
}

// boundaryFamilies resolves family names (nil: all), skipping unknown ones.
func boundaryFamilies(names []string) []*boundary.Family {
	sp := BoundarySpace()
	if names == nil {
		return sp.Families()
	}
	var out []*boundary.Family
	for _, n := range names {
		if f := sp.Family(n); f != nil {
			out = append(out, f)
		}
	}
	return out
}
