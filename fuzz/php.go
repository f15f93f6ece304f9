package fuzz

import (
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/difffuzz/difffuzz/jsonopt"
)

// A PHP build behind an --exec command: a finding of a target run by a PHP binary (the PHP
// adapter, adapters/php/) is shown at the PHP level too: a `php -r` line that asks the build's
// own binary the witness's question (PHPLine), and a .phpt test of php-src's format (PHPT).

// PHPBuild is the PHP binary an --exec command runs the adapter with.
type PHPBuild struct {
	Env  []string // VAR=VALUE words before the binary (env ...), the adapter's own left out
	Argv []string // the binary and its options before the script
	// JSONEncode and UTF8Decode are the adapter's expressions in place of json_encode($s,
	// $flags) and utf8_decode($s) (DIFFFUZZ_PHP_JSON_ENCODE, DIFFFUZZ_PHP_UTF8_DECODE), "" for
	// the functions.
	JSONEncode, UTF8Decode string
}

// PHPBuildOf reads the PHP build of an --exec command: [env [VAR=VALUE]...] PHP [OPTIONS] SCRIPT
// [ARGS], PHP a binary named php, php8.2, php-cli... (sapi/cli/php); ok false for a command of
// another form (a target that is not a PHP script).
func PHPBuildOf(command string) (b PHPBuild, ok bool) {
	argv, err := SplitCommand(command)
	if err != nil {
		return b, false
	}
	i := 0
	if filepath.Base(argv[0]) == "env" {
		i++
	}
	for ; i < len(argv) && i > 0 && strings.Contains(argv[i], "=") && !strings.HasPrefix(argv[i], "-"); i++ {
		name, value, _ := strings.Cut(argv[i], "=")
		switch name {
		case "DIFFFUZZ_PHP_JSON_ENCODE":
			b.JSONEncode = value
		case "DIFFFUZZ_PHP_UTF8_DECODE":
			b.UTF8Decode = value
		case "DIFFFUZZ_PHP_OPTIONS", "DIFFFUZZ_PHP_MAX_LEN", "DIFFFUZZ_PHP_FLUSH":
		default:
			b.Env = append(b.Env, argv[i])
		}
	}
	if i >= len(argv) || !isPHPBinary(argv[i]) {
		return PHPBuild{}, false
	}
	b.Argv = append(b.Argv, argv[i])
	for i++; i < len(argv); i++ {
		w := argv[i]
		if !strings.HasPrefix(w, "-") {
			return b, true // the script
		}
		b.Argv = append(b.Argv, w)
		if (w == "-d" || w == "-c") && i+1 < len(argv) {
			i++
			b.Argv = append(b.Argv, argv[i])
		}
	}
	return PHPBuild{}, false // no script: php would read the protocol as one
}

// isPHPBinary reports whether a command word names a PHP CLI binary: php, php8.2, php-cli,
// sapi/cli/php (not a script, php.ini or a .php file).
func isPHPBinary(w string) bool {
	base := filepath.Base(w)
	rest, ok := strings.CutPrefix(base, "php")
	return ok && strings.Trim(rest, "0123456789.-cli") == "" && !strings.HasSuffix(base, ".php")
}

// Command is the build's binary as a shell command prefix (env VAR=VALUE... PHP OPTIONS).
func (b PHPBuild) Command() string {
	var words []string
	if len(b.Env) > 0 {
		words = append(words, "env")
		for _, e := range b.Env {
			words = append(words, ShellQuote(e))
		}
	}
	for _, w := range b.Argv {
		words = append(words, ShellQuote(w))
	}
	return strings.Join(words, " ")
}

// PHPLine is a shell line that asks a PHP build f's question with its own binary (`php -r`)
// and prints its answer and whether it is PHP 8.2's (f.Want): `bool(true)` on a build that
// answers as PHP 8.2 does. ok false when f is not a PHP target's escape or utf8_decode finding
// with both answers.
func PHPLine(f *Finding) (string, bool) {
	if !f.External || f.Kind != KindOutput && f.Kind != KindError || f.Op == OpDecode {
		return "", false
	}
	b, ok := PHPBuildOf(f.TargetCommand())
	if !ok {
		return "", false
	}
	code := b.phpCode(f, false)
	return b.Command() + " -r " + ShellQuote(code), true
}

// phpCode is PHP code (without <?php) that computes f's answer into $r (and json_last_error()
// into $e) and var_dumps it: with the check against PHP 8.2's answer, or (phpt) alone.
func (b PHPBuild) phpCode(f *Finding, phpt bool) string {
	in := phpString(f.Input)
	if f.Op == OpUTF8Decode {
		call := "@utf8_decode(" + in + ")"
		if b.UTF8Decode != "" && !phpt {
			call = "@(function (string $s) { return " + b.UTF8Decode + "; })(" + in + ")"
		}
		if phpt {
			return "var_dump(bin2hex(" + call + "));"
		}
		return "$r = " + call + "; var_dump(bin2hex($r), $r === " + phpString(f.Want) + ");"
	}
	flags := PHPFlags(f.Flags)
	call := "json_encode(" + in + ", " + flags + ")"
	if b.JSONEncode != "" && !phpt {
		call = "(function (string $s, int $flags) { return " + b.JSONEncode + "; })(" + in + ", " + flags + ")"
	}
	get := "$r = " + call + "; $e = json_last_error();"
	if f.Flags&jsonopt.ThrowOnError != 0 && f.Flags&jsonopt.PartialOutputOnError == 0 {
		get = "try { $r = " + call + "; $e = 0; } catch (JsonException $x) { $r = false; $e = $x->getCode(); }"
	}
	want := "false"
	if !(f.WantErr != 0 && len(f.Want) == 0) {
		want = phpString(f.Want)
	}
	if phpt {
		get = strings.ReplaceAll(get, "; $e = json_last_error();", ";\n$e = json_last_error();")
		if printable(f.Want) {
			return get + "\nvar_dump($r, $e);"
		}
		return get + "\nvar_dump(is_string($r) ? bin2hex($r) : $r, $e);"
	}
	return fmt.Sprintf("%s var_dump($r, $e, $r === %s && $e === %d);", get, want, f.WantErr)
}

// phpString is b as a PHP expression: a double-quoted literal when b is printable ASCII
// without $ " \, else hex2bin("...").
func phpString(b []byte) string {
	if printable(b) && !strings.ContainsAny(string(b), `$"\`) {
		return `"` + string(b) + `"`
	}
	return `hex2bin("` + hex.EncodeToString(b) + `")`
}

// printable reports whether b is printable ASCII (0x20..0x7E) only.
func printable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// PHPFlags is an option value as PHP code: the constants joined by " | " (0 for none), or the
// integer when it has bits without a name.
func PHPFlags(o jsonopt.Options) string {
	parts := strings.Split(o.String(), "|")
	for _, p := range parts {
		if !strings.HasPrefix(p, "JSON_") {
			return fmt.Sprint(uint32(o))
		}
	}
	return strings.Join(parts, " | ")
}

// PHPT is a .phpt test (php-src's run-tests format) of f's question: --TEST-- (title), --FILE--
// calling json_encode or utf8_decode on the witness, --EXPECT-- what PHP 8.2 prints for it
// (f.Want: the oracle's answer, which a build-against-build finding's agreeing side gives).
// ok false for a finding PHP cannot ask (decode steps, a crash).
func PHPT(f *Finding, title string) (string, bool) {
	if f.Kind != KindOutput && f.Kind != KindError || f.Op == OpDecode {
		return "", false
	}
	var b PHPBuild
	var expect string
	if f.Op == OpUTF8Decode {
		expect = varDumpString([]byte(hex.EncodeToString(f.Want)))
	} else {
		switch {
		case f.WantErr != 0 && len(f.Want) == 0:
			expect = "bool(false)"
		case printable(f.Want):
			expect = varDumpString(f.Want)
		default:
			expect = varDumpString([]byte(hex.EncodeToString(f.Want)))
		}
		expect += fmt.Sprintf("\nint(%d)", f.WantErr)
	}
	return fmt.Sprintf("--TEST--\n%s\n--FILE--\n<?php\n%s\n?>\n--EXPECT--\n%s\n", title, b.phpCode(f, true), expect), true
}

// varDumpString is what var_dump prints for a PHP string.
func varDumpString(b []byte) string { return fmt.Sprintf("string(%d) \"%s\"", len(b), b) }

// phpWithoutScript reports whether argv runs a PHP binary without a script (php, php -n, env X=1
// php): it would read the requests as its script, and answer nothing, not even a hello.
func phpWithoutScript(argv []string) bool {
	i := 0
	if filepath.Base(argv[0]) == "env" {
		for i = 1; i < len(argv) && strings.Contains(argv[i], "=") && !strings.HasPrefix(argv[i], "-"); i++ {
		}
	}
	if i >= len(argv) || !isPHPBinary(argv[i]) {
		return false
	}
	for i++; i < len(argv); i++ {
		switch w := argv[i]; {
		case !strings.HasPrefix(w, "-"), w == "-r", w == "-f", w == "-B", w == "-R", w == "-F", w == "-E", w == "-S", w == "-a", w == "--":
			return false // a script, code or another mode
		case w == "-d" || w == "-c" || w == "-z":
			i++
		}
	}
	return true
}
