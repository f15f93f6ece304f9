package phpadapter

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestScriptPath(t *testing.T) {
	p, err := ScriptPath()
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if want := filepath.Join(wd, ScriptName); p != want {
		t.Errorf("ScriptPath() = %q; want the source file %q", p, want)
	}
}

func TestTempScript(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	for i := 0; i < 2; i++ { // the second call finds the first's file
		p, err := tempScript()
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(b, Script) {
			t.Fatalf("tempScript() = %q with %d bytes, %v; want the %d bytes of Script", p, len(b), err, len(Script))
		}
		if filepath.Dir(p) != os.TempDir() {
			t.Errorf("tempScript() = %q; want it in %q", p, os.TempDir())
		}
	}
	if m, _ := filepath.Glob(filepath.Join(os.TempDir(), "*")); len(m) != 1 {
		t.Errorf("temporary directory holds %q; want one file", m)
	}
}
