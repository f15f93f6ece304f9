package mutation

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// prepareSchemas writes the schemas of g's Go targets under dir with their overlay file, and
// returns which mutants they hold and the overlay ("" when none). A schema the compiler
// refuses loses the mutants its errors point into, until it compiles.
func prepareSchemas(ctx context.Context, cfg Config, g *group, dir string, sum *Summary) (map[int]bool, string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", err
	}
	in := map[int]bool{}
	if cfg.NoSchema {
		return in, "", nil
	}
	ss, err := newSchemaSet(g, dir)
	if err != nil || len(ss.ps) == 0 {
		return in, "", err
	}
	for attempt := 0; ; attempt++ {
		if err := ss.write(); err != nil {
			return nil, "", err
		}
		args := append([]string{"build", "-json", "-gcflags=-e", "-o", os.DevNull, "-overlay", ss.overlay}, tagArgs(g.build.Tags)...)
		b, err := goRun(ctx, cfg.Dir, g.build, append(args, ss.packages()...))
		if err != nil {
			return nil, "", err
		}
		sum.Builds++
		if !b.failed {
			break
		}
		if !ss.blame(b.lines) || attempt == 8 {
			// the schema fails for reasons no mutant explains: every mutant on its own
			return in, "", nil
		}
		for _, p := range ss.ps {
			p.schema = p.schema.Without(p.t.Src, p.ti, p.t.Mutants, p.drop)
		}
	}
	for _, p := range ss.ps {
		for _, id := range p.schema.IDs {
			in[id] = true
			if p.schema.Traced[id] {
				g.traced[id] = true
			}
		}
	}
	return in, ss.overlay, nil
}

// schemaSet is the schemas of a group's Go targets and the files that put them in a build.
type schemaSet struct {
	ps      []*prepared
	pkgs    map[string]string // package directory → package name
	dir     string
	overlay string
	maxID   int
}

// prepared is one target's schema, and the mutants the compiler's errors took out of it.
type prepared struct {
	t      Target
	abs    string
	ti     *TypeInfo
	schema *Schema
	drop   map[int]bool
}

func newSchemaSet(g *group, dir string) (*schemaSet, error) {
	ss := &schemaSet{pkgs: map[string]string{}, dir: dir, overlay: filepath.Join(dir, "schema-overlay.json")}
	for i, t := range g.targets {
		for _, m := range t.Mutants {
			ss.maxID = max(ss.maxID, m.ID)
		}
		if !strings.HasSuffix(t.File, ".go") || len(t.Mutants) == 0 {
			continue
		}
		ti, err := CheckFileBuild(g.abs[i], g.build.GOARCH, g.build.Tags)
		if err != nil {
			return nil, err
		}
		p := &prepared{t: t, abs: g.abs[i], ti: ti, drop: map[int]bool{}}
		p.schema = NewSchema(t.File, t.Src, ti, t.Mutants)
		ss.ps = append(ss.ps, p)
		ss.pkgs[filepath.Dir(p.abs)] = ti.Pkg.Name()
	}
	return ss, nil
}

// write writes every schema, each package's mutant variable file and the overlay naming them.
func (ss *schemaSet) write() error {
	replace := map[string]string{}
	for i, p := range ss.ps {
		path := filepath.Join(ss.dir, schemaName(i, p.abs))
		if err := os.WriteFile(path, p.schema.Src, 0o644); err != nil {
			return err
		}
		replace[p.abs] = path
	}
	for pdir, name := range ss.pkgs {
		path := filepath.Join(ss.dir, fmt.Sprintf("var_%s.go", name))
		if err := os.WriteFile(path, VarFile(name, ss.maxID), 0o644); err != nil {
			return err
		}
		replace[filepath.Join(pdir, "zz_difffuzz_mutant.go")] = path
	}
	ov, _ := json.Marshal(map[string]map[string]string{"Replace": replace})
	return os.WriteFile(ss.overlay, ov, 0o644)
}

// packages are the schemas' package directories, sorted.
func (ss *schemaSet) packages() []string {
	var out []string
	for pdir := range ss.pkgs {
		out = append(out, pdir)
	}
	slices.Sort(out)
	return out
}

// blame marks the mutants the compiler's error lines point into for dropping; false when no
// error points into a mutant.
func (ss *schemaSet) blame(lines []string) bool {
	blamed := false
	for _, l := range lines {
		file, line, col, ok := errorPos(l)
		if !ok {
			continue
		}
		for i, p := range ss.ps {
			// the compiler names the overlay's file, or the original
			if filepath.Base(file) != filepath.Base(p.abs) && filepath.Base(file) != schemaName(i, p.abs) {
				continue
			}
			for _, id := range p.schema.Blame(line, col) {
				p.drop[id], blamed = true, true
			}
		}
	}
	return blamed
}

// schemaName is the file name of the i-th schema, of the file at abs.
func schemaName(i int, abs string) string { return fmt.Sprintf("schema%d_%s", i, filepath.Base(abs)) }

func tagArgs(tags string) []string {
	if tags == "" {
		return nil
	}
	return []string{"-tags", tags}
}

// errorPos parses a compiler message "path:line:col: text".
func errorPos(l string) (file string, line, col int, ok bool) {
	parts := strings.SplitN(strings.TrimSpace(l), ":", 4)
	if len(parts) < 4 {
		return "", 0, 0, false
	}
	line, err1 := strconv.Atoi(parts[1])
	col, err2 := strconv.Atoi(parts[2])
	return parts[0], line, col, err1 == nil && err2 == nil
}
