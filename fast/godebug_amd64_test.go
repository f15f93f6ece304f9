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
	// The AVX2 kernels also use POPCNT (every AVX2 CPU has it; GODEBUG=cpu.popcnt=off does not).
	if _, ok := fast.Lookup("avx2"); ok != (cpu.X86.HasAVX2 && cpu.X86.HasPOPCNT) {
		t.Fatalf("avx2 registered = %v; cpu.X86.HasAVX2 = %v, HasPOPCNT = %v", ok, cpu.X86.HasAVX2, cpu.X86.HasPOPCNT)
	}
	if !cpu.X86.HasAVX2 || !cpu.X86.HasPOPCNT {
		t.Skip("no AVX2 (or POPCNT) on this CPU: nothing to turn off")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGODEBUGAVX2Off$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GODEBUG=cpu.avx2=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("with GODEBUG=cpu.avx2=off: %v\n%s", err, out)
	}
}

// TestAVX512 checks that the avx512 variant is registered exactly when the CPU has what its
// kernel uses, that it is then the default, and that GODEBUG=cpu.avx512=off removes it
// (avx2 is then the default). Without those features the test skips, and the avx512 kernel
// is unverified on this machine: every other test covers the variants that are registered.
func TestAVX512(t *testing.T) {
	if strings.Contains(os.Getenv("GODEBUG"), "cpu.avx512=off") {
		if _, ok := fast.Lookup("avx512"); ok {
			t.Fatalf("GODEBUG=%s: avx512 is registered", os.Getenv("GODEBUG"))
		}
		if cpu.X86.HasAVX2 && fast.Default() != "avx2" {
			t.Fatalf("GODEBUG=%s: Default() = %s; want avx2", os.Getenv("GODEBUG"), fast.Default())
		}
		return
	}
	has := cpu.X86.HasAVX2 && cpu.X86.HasAVX512 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI &&
		cpu.X86.HasAVX512VBMI2 && cpu.X86.HasBMI2 && cpu.X86.HasPOPCNT
	if _, ok := fast.Lookup("avx512"); ok != has {
		t.Fatalf("avx512 registered = %v; the CPU has AVX2, AVX-512 F/BW/VBMI/VBMI2, BMI2 and POPCNT = %v", ok, has)
	}
	if !has {
		t.Skip("avx512: this CPU lacks AVX-512 BW, VBMI or VBMI2 (or BMI2/POPCNT): the variant is not registered and its kernel is unverified here")
	}
	if fast.Default() != "avx512" {
		t.Fatalf("Default() = %s; want avx512", fast.Default())
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAVX512$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GODEBUG=cpu.avx512=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("with GODEBUG=cpu.avx512=off: %v\n%s", err, out)
	}
}
