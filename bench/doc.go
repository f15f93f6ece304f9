// Package bench holds difffuzz's benchmarks; it has no code of its own besides its tests.
//
// The benchmarks follow DESIGN.md §8 and are named so that benchstat can group them:
//
//	BenchmarkEscape/<corpus>/<size>/<impl>          json_encode($s), no options
//	BenchmarkEscapeUnicode/<corpus>/<size>/<impl>   json_encode($s, JSON_UNESCAPED_UNICODE)
//	BenchmarkUTF8Decode/<corpus>/<size>/<impl>      utf8_decode($s)
//
// <corpus> is a name from package corpus, <size> is corpus.SizeName of 16 B, 4 KiB or 64 KiB,
// and <impl> is "oracle", the name of every fast variant this CPU runs ("generic", "swar", …),
// or an anchor measured in the same run: "copy" (copy() of the input into a buffer),
// "append-quoted" (append(buf, '"', s..., '"')) and, for Escape, "encoding-json"
// (json.Marshal of the string, which escapes differently but does the same kind of work).
// Every benchmark calls b.SetBytes with the input length, so MB/s is input bytes per second,
// and reuses its destination buffer (dst = f(dst[:0], src)), so steady-state allocations are
// zero except for encoding-json. Before timing, each implementation's output is checked
// against the oracle's, so a benchmark never measures a wrong answer.
//
// Typical use, comparing medians on a noisy machine:
//
//	go test ./bench -run x -bench 'Escape/(cyrillic|ascii|html)/' -count 6 | tee new.txt
//	benchstat -col /impl new.txt
//
// Timing never decides a test (DESIGN.md §8).
package bench
