// Package boundary builds the inputs and the memory on which vector (SIMD) text code breaks:
// units placed at every offset around the 16-, 32- and 64-byte edges of its chunks,
// straddling them at every split point, two and three to a block, under every source
// alignment and destination offset and spare capacity, and every 1–3-byte string across the
// edges; and buffers flush against PROT_NONE guard pages, so that a read of one byte outside
// an input faults.
//
// It knows nothing about JSON or any other format: the caller supplies the units (the bytes
// its code treats specially) and a clean filler; UTF8Units offers the UTF-8 classes (valid
// range ends and every invalid class of a UTF-8 decoder), which are about UTF-8 only.
//
// Shapes and units:
//
//   - A Space (New) is a list of Families; a Family numbers its placements 0..Len()-1, and
//     At builds one: a Placement (the units' offsets, the input's length, the memory layouts
//     to run it in, dst's length and spare capacity) and the input bytes. Families can be
//     split across workers by index and sampled deterministically (Family.Sample).
//   - Offsets and lengths are in bytes from the start of the input. Locate places an offset on
//     the 16-lane chunk grid: chunk, lane (0..15) and the nearest edge (a multiple of 16,
//     named by the widest of 16, 32, 64 it is a multiple of).
//   - A Buffer is a region between two guard pages (mmap, golang.org/x/sys/unix). Input
//     slices an input flush against the trailing guard (EndFlush), the leading one
//     (StartFlush), or at a chosen address mod 64 (Aligned); Tail slices a destination whose
//     capacity ends at the trailing guard. Protect runs a call with
//     runtime/debug.SetPanicOnFault, FaultAddr reads the faulting address off the panic and
//     Buffer.Where says on which side of a slice it lies and at which offset.
//
// Errors: New rejects an empty filler, units of 0 or more than MaxUnitLen bytes and MaxLen
// outside [68, 16384]. NewBuffer never fails: where mmap is unavailable (not a Unix system,
// or mmap fails) it returns a heap buffer whose Guarded method reports false; everything
// works except that reads outside a slice go unnoticed. Input and Tail panic when asked for
// more than the buffer holds (a programming error).
package boundary
