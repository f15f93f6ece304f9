package campaign

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// CheckOutputs refuses output files (flag → path, "" for none) of which two are one file, the
// checkpoint (its file and its findings log, "" for none) counted among them, and one that is a
// name the checkpoint's findings log takes when a resume compacts it.
func CheckOutputs(outs map[string]string, checkpoint string) error {
	paths := maps.Clone(outs)
	if checkpoint != "" {
		paths["--checkpoint"] = checkpoint
		paths["--checkpoint's findings log"] = checkpoint + logSuffix
	}
	if err := distinctPaths(paths); err != nil {
		return err
	}
	for _, flag := range slices.Sorted(maps.Keys(outs)) {
		if out := outs[flag]; out != "" && checkpoint != "" && logGeneration(out, checkpoint) {
			return fmt.Errorf("%s %s is a name the checkpoint's findings log takes when a resume compacts it: give another", flag, out)
		}
	}
	return nil
}

// distinctPaths refuses two of the named files (flag → path; "" is none) that are one file:
// one output would overwrite the other.
func distinctPaths(paths map[string]string) error {
	names := slices.Sorted(maps.Keys(paths))
	names = slices.DeleteFunc(names, func(n string) bool { return paths[n] == "" })
	for i, a := range names {
		for _, b := range names[i+1:] {
			if SamePath(paths[a], paths[b]) {
				return fmt.Errorf("%s and %s are the same file (%s): one would overwrite the other", a, b, paths[a])
			}
		}
	}
	return nil
}

// OpenOutput opens an output file (--findings, --junit) for writing, created when missing. A
// named pipe or a socket is refused: opening one blocks until a reader comes, and no signal
// ends the wait.
func OpenOutput(path string) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0 {
		return nil, fmt.Errorf("%s is a named pipe or a socket: give a regular file", path)
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
}

// SamePath is whether two paths name one file: the same path once links are followed (a link
// to a file not yet written included), or (both existing) the same file.
func SamePath(a, b string) bool {
	if resolvedPath(a) == resolvedPath(b) {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// resolvedPath is p absolute with its symbolic links followed, the last one too when what it
// points to does not exist yet (os.Stat cannot tell such a link from its target).
func resolvedPath(p string) string {
	for range 40 { // as the kernel's limit on links followed
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			break
		}
		t, err := os.Readlink(p)
		if err != nil {
			break
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = t
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		p = filepath.Join(d, filepath.Base(p))
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// logGeneration reports whether out is a findings log the checkpoint at ck may write
// (CK.findings.N, when a resume compacts the log).
func logGeneration(out, ck string) bool {
	rest, ok := strings.CutPrefix(resolvedPath(out), resolvedPath(ck)+logSuffix+".")
	return ok && rest != "" && strings.Trim(rest, "0123456789") == ""
}
