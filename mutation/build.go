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
	type prepared struct {
		t      Target
		abs    string
		ti     *TypeInfo
		schema *Schema
		drop   map[int]bool
	}
	var ps []*prepared
	pkgs := map[string]string{} // package directory → package name
	for i, t := range g.targets {
		if !strings.HasSuffix(t.File, ".go") || len(t.Mutants) == 0 {
			continue
		}
		ti, err := CheckFileBuild(g.abs[i], g.build.GOARCH, g.build.Tags)
		if err != nil {
			return nil, "", err
		}
		p := &prepared{t: t, abs: g.abs[i], ti: ti, drop: map[int]bool{}}
		p.schema = NewSchema(t.File, t.Src, ti, t.Mutants)
		ps = append(ps, p)
		pkgs[filepath.Dir(p.abs)] = ti.Pkg.Name()
	}
	if len(ps) == 0 {
		return in, "", nil
	}
	maxID := 0
	for _, t := range g.targets {
		for _, m := range t.Mutants {
			maxID = max(maxID, m.ID)
		}
	}
	overlay := filepath.Join(dir, "schema-overlay.json")
	for attempt := 0; ; attempt++ {
		replace := map[string]string{}
		for i, p := range ps {
			path := filepath.Join(dir, schemaName(i, p.abs))
			if err := os.WriteFile(path, p.schema.Src, 0o644); err != nil {
				return nil, "", err
			}
			replace[p.abs] = path
		}
		for pdir, name := range pkgs {
			path := filepath.Join(dir, fmt.Sprintf("var_%s.go", name))
			if err := os.WriteFile(path, VarFile(name, maxID), 0o644); err != nil {
				return nil, "", err
			}
			replace[filepath.Join(pdir, "zz_difffuzz_mutant.go")] = path
		}
		ov, _ := json.Marshal(map[string]map[string]string{"Replace": replace})
		if err := os.WriteFile(overlay, ov, 0o644); err != nil {
			return nil, "", err
		}
		var pkgArgs []string
		for pdir := range pkgs {
			pkgArgs = append(pkgArgs, pdir)
		}
		slices.Sort(pkgArgs)
		args := append([]string{"build", "-json", "-gcflags=-e", "-o", os.DevNull, "-overlay", overlay}, tagArgs(g.build.Tags)...)
		b, err := goRun(ctx, cfg.Dir, g.build, append(args, pkgArgs...))
		if err != nil {
			return nil, "", err
		}
		sum.Builds++
		if !b.failed {
			break
		}
		blamed := false
		for _, l := range b.lines {
			file, line, col, ok := errorPos(l)
			if !ok {
				continue
			}
			for i, p := range ps {
				// the compiler names the overlay's file, or the original
				if filepath.Base(file) != filepath.Base(p.abs) && filepath.Base(file) != schemaName(i, p.abs) {
					continue
				}
				for _, id := range p.schema.Blame(line, col) {
					p.drop[id], blamed = true, true
				}
			}
		}
		if !blamed || attempt == 8 {
			// the schema fails for reasons no mutant explains: every mutant on its own
			return in, "", nil
		}
		for _, p := range ps {
			p.schema = p.schema.Without(p.t.Src, p.ti, p.t.Mutants, p.drop)
		}
	}
	for _, p := range ps {
		for _, id := range p.schema.IDs {
			in[id] = true
			if p.schema.Traced[id] {
				g.traced[id] = true
			}
		}
	}
	return in, overlay, nil
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
