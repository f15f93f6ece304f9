//go:build !purego

package fast_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/difffuzz/difffuzz/fast"
	"golang.org/x/sys/cpu"
)

// TestGODEBUGAVX2Off checks that GODEBUG=cpu.avx2=off (honoured by golang.org/x/sys/cpu)
// removes the avx2 variant and makes sse2 the default: the test binary runs itself again with
// that setting.
func TestGODEBUGAVX2Off(t *testing.T) {
	if strings.Contains(os.Getenv("GODEBUG"), "cpu.avx2=off") {
		if _, ok := fast.Lookup("avx2"); ok {
			t.Fatalf("GODEBUG=%s: avx2 is registered", os.Getenv("GODEBUG"))
		}
		if fast.Default() != "sse2" {
			t.Fatalf("GODEBUG=%s: Default() = %s; want sse2", os.Getenv("GODEBUG"), fast.Default())
		}
		return
	}
	if _, ok := fast.Lookup("sse2"); !ok {
		t.Fatal("sse2 is not registered on amd64")
	}
	if _, ok := fast.Lookup("avx2"); ok != cpu.X86.HasAVX2 {
		t.Fatalf("avx2 registered = %v; cpu.X86.HasAVX2 = %v", ok, cpu.X86.HasAVX2)
	}
	if !cpu.X86.HasAVX2 {
		t.Skip("no AVX2 on this CPU: nothing to turn off")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGODEBUGAVX2Off$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GODEBUG=cpu.avx2=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("with GODEBUG=cpu.avx2=off: %v\n%s", err, out)
	}
}
