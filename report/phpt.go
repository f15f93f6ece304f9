package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/difffuzz/difffuzz/fuzz"
)

// WritePHPT writes one .phpt test (php-src's run-tests format, fuzz.PHPT) per defect class of an
// escape or utf8_decode difference into dir, named FUNCTION_difffuzz_ID.phpt
// (json_encode_difffuzz_d1.phpt): its witness asked of json_encode() or utf8_decode(), and
// what PHP 8.2 prints for it. It returns the files written; classes PHP cannot ask (decoder
// steps, a crash or hang) get none.
func WritePHPT(dir string, classes []*Class) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	defect := DefectOf(Defects(classes))
	var paths []string
	for _, c := range classes {
		fn := "json_encode"
		if c.Op == fuzz.OpUTF8Decode {
			fn = "utf8_decode"
		}
		title := fmt.Sprintf("%s(): %s (difffuzz: class %s of defect %d, found in %s)", fn, oneLineTitle(defect[c]), c.ID, defect[c].N, c.Witness.Impl)
		text, ok := fuzz.PHPT(c.Witness, title)
		if !ok {
			continue
		}
		p := filepath.Join(dir, fmt.Sprintf("%s_difffuzz_%s.phpt", fn, strings.ToLower(c.ID)))
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// oneLineTitle is a defect's title clipped for a --TEST-- line.
func oneLineTitle(d *Defect) string {
	return clip(strings.ReplaceAll(d.Title(), "\n", " "), 160)
}
