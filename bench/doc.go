// Package bench is difffuzz's performance report (DESIGN.md §8, `difffuzz bench`) and its
// `go test -bench` suite.
//
// # The report
//
// Run times candidates on cells. A Cell is an operation (escape, decode, utf8_decode) on the
// input of a corpus (package corpus, or "short": 16 strings of 8–11 bytes, or "batch": the
// 10,000 field values of "1,000 arrays of 10 fields") at a size, under an option set; Cells
// makes the seeds' set or a Selection of it. A Candidate is an in-process implementation
// (Local: the oracle, fast's variants), an anchor (Anchors: copy(), append-quoted,
// encoding/json.Marshal, a json.Encoder with SetEscapeHTML(false); utf8.DecodeRune and
// utf8.Valid for the decoder) or an external target (Target: protocol v1's optional
// "bench OP FLAGS HEX N", timed by the target's own clock). Every candidate but the anchors
// answers each cell once before it is timed, and a wrong answer is never timed (the
// measure is then "refused: …").
//
// The method is the seeds' (seed 000): for each cell, each candidate is calibrated so that
// one pass takes about Config.PassTime, then Config.Passes passes are timed, the candidates
// alternating (each pass in another order); the first candidate is timed a second time under
// another name as the A/A control (Config.Control: for a target, a second process). The median of the passes and its 95% confidence
// interval come from golang.org/x/perf/benchmath (AssumeNothing). The noise floor is the
// control's largest deviation from the first candidate over all cells; a speedup within it,
// or whose passes benchmath's Mann-Whitney U test does not tell apart from the baseline's
// (p ≥ 0.05), is "≈" (printed before the number: "≈0.98×"). Levels aggregate the cells by operation, size and corpus (geometric
// means of speedups), as seed 004 organises its results. Write prints the report as text,
// markdown, JSON or CSV, Plot draws it.
//
// Times are per Cell.Unit: per call (one run over the cell's input), per string (short), per
// batch, or per code point (decode, whose run walks every php_next_utf8_char step).
//
// # The go test -bench suite
//
// The benchmarks are named with key=value parts, so that benchstat groups them by any of
// them (benchstat -col /impl):
//
//	BenchmarkEscape/corpus=<corpus>/size=<size>/impl=<impl>          json_encode($s), no options
//	BenchmarkEscapeUnicode/corpus=<corpus>/size=<size>/impl=<impl>   json_encode($s, JSON_UNESCAPED_UNICODE)
//	BenchmarkUTF8Decode/corpus=<corpus>/size=<size>/impl=<impl>      utf8_decode($s)
//
// <corpus> is a name from package corpus, <size> is corpus.SizeName of 16 B, 4 KiB or 64 KiB,
// and <impl> is "oracle", "fast" (the entry point, dispatching to the best variant), the
// name of every fast variant this CPU runs ("generic", "swar", …), or an anchor measured in
// the same run: "copy" (copy() of the input into a buffer), "append-quoted" (append(buf, '"',
// s..., '"')) and, for Escape, "encoding-json" (json.Marshal of the string, which escapes
// differently but does the same kind of work). Every benchmark calls b.SetBytes with the
// input length, so B/s is input bytes per second, and reuses its destination buffer (dst =
// f(dst[:0], src)), so steady-state allocations are zero except for encoding-json. Before
// timing, each implementation's output is checked against the oracle's, so a benchmark
// never measures a wrong answer.
//
// Typical use, comparing medians on a noisy machine (make bench does this):
//
//	go test ./bench -run '^$' -bench 'Escape/corpus=(cyrillic|ascii|html)$/size=4KiB' -count 10 | tee new.txt
//	benchstat -col /impl new.txt
//
// Timing never decides a test (DESIGN.md §8).
package bench
