package fuzz

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/difffuzz/difffuzz/jsonopt"
)

func TestPHPBuildOf(t *testing.T) {
	for _, tc := range []struct {
		cmd, binary, jsonEncode string
		ok                      bool
	}{
		{"php adapters/php/difffuzz-target.php", "php", "", true},
		{"sapi/cli/php -n -d memory_limit=1G /src/difffuzz/adapters/php/difffuzz-target.php", "sapi/cli/php -n -d memory_limit=1G", "", true},
		{"/usr/bin/php8.2 x.php", "/usr/bin/php8.2", "", true},
		{`env 'DIFFFUZZ_PHP_JSON_ENCODE=json_encode($s, $flags | 64)' DIFFFUZZ_PHP_OPTIONS=7 LD_LIBRARY_PATH=/opt/lib php t.php`, "env LD_LIBRARY_PATH=/opt/lib php", "json_encode($s, $flags | 64)", true},
		{"php", "", "", false},        // no script: php would read the protocol
		{"php -d x=1", "", "", false}, // no script either
		{"bin/planted-target lenient", "", "", false},
		{"env DIFFFUZZ_PLANTED=raw-slash ./difffuzz.test", "", "", false},
		{"phpunit x.php", "", "", false},
	} {
		b, ok := PHPBuildOf(tc.cmd)
		if ok != tc.ok || ok && (b.Command() != tc.binary || b.JSONEncode != tc.jsonEncode) {
			t.Errorf("PHPBuildOf(%q) = %q, %q, %v; want %q, %q, %v", tc.cmd, b.Command(), b.JSONEncode, ok, tc.binary, tc.jsonEncode, tc.ok)
		}
	}
}

// slashFinding is a PHP build's finding: "/" written raw where PHP writes "\/".
func slashFinding(cmd string) *Finding {
	return &Finding{Kind: KindOutput, Op: OpEscape, Impl: cmd, External: true, Input: []byte("/"),
		Want: []byte(`"\/"`), Got: []byte(`"/"`)}
}

func TestPHPLine(t *testing.T) {
	line, ok := PHPLine(slashFinding("php a.php"))
	want := `php -r '$r = json_encode("/", 0); $e = json_last_error(); var_dump($r, $e, $r === hex2bin("225c2f22") && $e === 0);'`
	if !ok || line != want {
		t.Errorf("PHPLine = %q, %v; want %q", line, ok, want)
	}
	f := &Finding{Kind: KindError, Op: OpEscape, Impl: "php a.php", External: true, Input: []byte{0x80},
		Flags: jsonopt.HexTag | jsonopt.ThrowOnError, WantErr: 5, Got: []byte(`"\ufffd"`)}
	line, _ = PHPLine(f)
	want = `php -r 'try { $r = json_encode(hex2bin("80"), JSON_HEX_TAG | JSON_THROW_ON_ERROR); $e = 0; } catch (JsonException $x) { $r = false; $e = $x->getCode(); } var_dump($r, $e, $r === false && $e === 5);'`
	if line != want {
		t.Errorf("PHPLine of a false = %q; want %q", line, want)
	}
	for _, f := range []*Finding{
		{Kind: KindStep, Op: OpDecode, Impl: "php a.php", External: true},
		{Kind: KindTargetCrash, Op: OpEscape, Impl: "php a.php", External: true},
		{Kind: KindOutput, Op: OpEscape, Impl: "avx2"},
	} {
		if line, ok := PHPLine(f); ok {
			t.Errorf("PHPLine(%s %s %s) = %q; want none", f.Impl, f.Op, f.Kind, line)
		}
	}
}

// TestPHPLineRuns runs the php -r lines with Debian's PHP: bool(true) for PHP itself, bool(false)
// for a build whose adapter expression leaves / unescaped (the expression is in the line).
func TestPHPLineRuns(t *testing.T) {
	if _, err := exec.LookPath("php"); err != nil {
		t.Skip("php not on PATH")
	}
	for cmd, want := range map[string]string{
		"php a.php": "bool(true)",
		`env 'DIFFFUZZ_PHP_JSON_ENCODE=str_replace("\\/", "/", json_encode($s, $flags))' php a.php`: "bool(false)",
		`env 'DIFFFUZZ_PHP_UTF8_DECODE=mb_convert_encoding($s, "ISO-8859-1", "UTF-8")' php a.php`:   "bool(false)",
	} {
		f := slashFinding(cmd)
		if strings.Contains(cmd, "UTF8") {
			f = &Finding{Kind: KindOutput, Op: OpUTF8Decode, Impl: cmd, External: true, Input: []byte{0xc3, 0xc0}, Want: []byte("?"), Got: []byte("??")}
		}
		line, ok := PHPLine(f)
		if !ok {
			t.Fatalf("no php line for %q", cmd)
		}
		out, err := exec.Command("sh", "-c", line).CombinedOutput()
		if err != nil || !strings.HasSuffix(strings.TrimSpace(string(out)), want) {
			t.Errorf("%s: %v\n%s\nwant it to end with %s", line, err, out, want)
		}
	}
}

func TestPHPT(t *testing.T) {
	text, ok := PHPT(slashFinding("php a.php"), "json_encode(): /")
	want := "--TEST--\njson_encode(): /\n--FILE--\n<?php\n$r = json_encode(\"/\", 0);\n$e = json_last_error();\nvar_dump($r, $e);\n?>\n--EXPECT--\nstring(4) \"\"\\/\"\"\nint(0)\n"
	if !ok || text != want {
		t.Errorf("PHPT =\n%s\nwant\n%s", text, want)
	}
	f := &Finding{Kind: KindOutput, Op: OpUTF8Decode, Input: []byte{0xc3, 0xa9}, Want: []byte{0xe9}, Got: []byte("?")}
	text, _ = PHPT(f, "utf8_decode(): é")
	if !strings.Contains(text, "var_dump(bin2hex(@utf8_decode(hex2bin(\"c3a9\"))));") || !strings.HasSuffix(text, "--EXPECT--\nstring(2) \"e9\"\n") {
		t.Errorf("PHPT of utf8_decode =\n%s", text)
	}
}
