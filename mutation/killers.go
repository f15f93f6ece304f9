package mutation

import (
	"context"
	"fmt"
	"go/build/constraint"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Killer is one named test selection run against each mutant: the test binary of Pkg (built
// with `go test -c -vet=off [-tags Tags]`, once per build of the mutants and shared by the
// killers of the same package), run in the package's directory with -test.run Run
// [-test.short]; or, with Main, a command.
type Killer struct {
	Name  string // "unit", "exhaustive", ...
	Pkg   string // one package, as a directory relative to Config.Dir: "./fast"
	Run   string // the -run regular expression ("" runs every test)
	Skip  string // the -skip regular expression ("" skips none)
	Short bool   // pass -short
	Tags  string // build tags ("purego"), "" for none
	// Main makes the killer a command: Pkg is a main package, built with `go build`, run in
	// Config.Dir with Args; it kills a mutant when it exits non-zero (difffuzz: 1, findings).
	// For a test binary, Args follow its -test flags (a package's own flags: "-seed=1").
	// An argument "{evidence}" is replaced by a file the command may write; its first line is
	// kept as Result.Evidence.
	Main bool
	Args []string
	// Shard, for a Main equivalence killer whose command takes `--shard K/N` (K from 0) and
	// whose every shard has work, splits its recheck run into Config.Workers shards run at
	// once.
	Shard bool
	// Funcs, for an equivalence killer, are the functions whose mutants its domain covers
	// (nil: every mutant's but those in Except).
	Funcs  []string
	Except []string
	// Domain, for an equivalence killer (Config.Equivalence), is the input domain it checks
	// exhaustively, in words: what a mutant that passes it is proven equivalent on.
	Domain string
}

// Build is the build configuration a mutant's file compiles under: GOARCH and build tags. A
// build for another GOARCH than the host's (arm64 on amd64) runs its binaries under
// qemu-user (qemu-aarch64).
type Build struct {
	GOARCH string // "amd64", "arm64"
	Tags   string // "", "purego"
}

func (b Build) String() string {
	if b.Tags == "" {
		return b.GOARCH
	}
	return b.GOARCH + " -tags " + b.Tags
}

// builds are the configurations tried for a file, in order.
var builds = []Build{{"amd64", ""}, {"amd64", "purego"}, {"arm64", ""}}

// BuildFor is the first configuration of amd64, amd64 with -tags purego and arm64 (all
// linux) that compiles file, by its _GOARCH suffix and its //go:build line. It fails when
// none does.
func BuildFor(file string, src []byte) (Build, error) {
	base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(file), ".go"), ".s")
	var expr constraint.Expr
	for l := range strings.Lines(string(src)) {
		l = strings.TrimSpace(l)
		if constraint.IsGoBuild(l) {
			var err error
			if expr, err = constraint.Parse(l); err != nil {
				return Build{}, fmt.Errorf("%s: %v", file, err)
			}
			break
		}
		if l != "" && !strings.HasPrefix(l, "//") {
			break
		}
	}
	for _, b := range builds {
		if i := strings.LastIndex(base, "_"); i >= 0 && slices.Contains([]string{"amd64", "arm64", "386", "arm", "riscv64", "ppc64le", "s390x", "wasm", "loong64"}, base[i+1:]) && base[i+1:] != b.GOARCH {
			continue
		}
		if expr != nil && !expr.Eval(func(tag string) bool {
			return tag == b.GOARCH || tag == "linux" || tag == "unix" || tag == "gc" || (b.Tags != "" && tag == b.Tags) || strings.HasPrefix(tag, "go1.")
		}) {
			continue
		}
		return b, nil
	}
	return Build{}, fmt.Errorf("%s: compiled in none of %v", file, builds)
}

// tags is the -tags value of k under b.
func (k Killer) tags(b Build) string {
	return strings.Trim(k.Tags+","+b.Tags, ",")
}

// buildArgs is the go command line that builds k's binary at out under b, through the overlay
// file when there is one.
func (k Killer) buildArgs(b Build, overlay, out string) []string {
	a := []string{"test", "-c", "-json", "-vet=off", "-o", out}
	if k.Main {
		a = []string{"build", "-json", "-o", out}
	}
	if overlay != "" {
		a = append(a, "-overlay", overlay)
	}
	if t := k.tags(b); t != "" {
		a = append(a, "-tags", t)
	}
	return append(a, k.Pkg)
}

// runArgs are the binary's arguments for k.
func (k Killer) runArgs(evidence string) []string {
	if k.Main {
		a := slices.Clone(k.Args)
		for i := range a {
			a[i] = strings.ReplaceAll(a[i], "{evidence}", evidence)
		}
		return a
	}
	a := []string{"-test.count=1", "-test.v=true", "-test.failfast"}
	if k.Short {
		a = append(a, "-test.short")
	}
	if k.Run != "" {
		a = append(a, "-test.run", k.Run)
	}
	if k.Skip != "" {
		a = append(a, "-test.skip", k.Skip)
	}
	return append(a, k.Args...)
}

// binKey is what decides whether two killers share a binary.
func (k Killer) binKey() string { return fmt.Sprint(k.Pkg, "\x00", k.Tags, "\x00", k.Main) }

// covers says whether the equivalence killer k applies to mutants of function fn.
func (k Killer) covers(fn string) bool {
	return (len(k.Funcs) == 0 || slices.Contains(k.Funcs, fn)) && !slices.Contains(k.Except, fn)
}

// binaries builds, once each, the binaries of a set of killers under one build and overlay.
type binaries struct {
	dir     string // where they are written
	build   Build
	overlay string
	mu      sync.Mutex
	paths   map[string]string
	fails   map[string]string // binKey → first compiler message
	builds  *atomic.Int64     // counts the go builds made
	// from and patch: the binaries are from's, copied with patch applied (no build)
	from  *binaries
	patch *patch
}

// get returns k's binary, building it on first use; notViable is the compiler's first
// message when the build failed.
func (bs *binaries) get(ctx context.Context, dir string, k Killer) (bin, notViable string, err error) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	key := k.binKey()
	if p, ok := bs.paths[key]; ok {
		return p, bs.fails[key], nil
	}
	bin = filepath.Join(bs.dir, fmt.Sprintf("%d.bin", len(bs.paths)))
	if bs.from != nil {
		orig, fail, err := bs.from.get(ctx, dir, k)
		if err != nil || fail != "" {
			return "", fail, err
		}
		b, err := os.ReadFile(orig)
		if err != nil {
			return "", "", err
		}
		if b, err = bs.patch.apply(b); err != nil {
			return "", "", fmt.Errorf("killer %s: %v", k.Name, err)
		}
		if err := os.WriteFile(bin, b, 0o755); err != nil {
			return "", "", err
		}
		bs.paths[key] = bin
		return bin, "", nil
	}
	b, err := goBuild(ctx, dir, k, bs.build, bs.overlay, bin)
	if err != nil {
		return "", "", fmt.Errorf("killer %s: %v", k.Name, err)
	}
	bs.builds.Add(1)
	bs.paths[key] = bin
	if b.failed {
		bs.fails[key] = firstCompileError(b.lines)
		if bs.fails[key] == "" {
			bs.fails[key] = "build failed"
		}
	}
	return bin, bs.fails[key], nil
}

// only is test-binary killer k restricted to the top-level tests named (its Skip still
// applies).
func (k Killer) only(tests []string) Killer {
	q := make([]string, len(tests))
	for i, t := range tests {
		q[i] = regexp.QuoteMeta(t)
	}
	k.Run = "^(" + strings.Join(q, "|") + ")$"
	return k
}
