// Package phpadapter locates the PHP target of difffuzz: difffuzz-target.php, a script that
// speaks the target protocol v1 (package protocol, DESIGN.md §6) for the PHP that runs it,
// answering "escape" through json_encode() and "utf8_decode" through utf8_decode(). It does
// not answer "decode" (php_next_utf8_char() steps are not observable from PHP userland
// exactly; the script's header explains this and its other decisions: JSON_NUMERIC_CHECK is
// answered faithfully with serialize_precision pinned to -1, a JsonException under
// JSON_THROW_ON_ERROR is answered "false CODE").
//
// It also answers the optional operation bench (DESIGN.md §6): "bench OP FLAGS HEX N" (OP
// escape or utf8_decode) runs json_encode($s, FLAGS) or utf8_decode($s) N times in a loop
// timed with hrtime(true) and answers "NANOSECONDS RESULT...", RESULT... being byte for byte
// the answer to the plain request (computed once more outside the loop), so that a client
// (protocol.Client.Bench) can check it before trusting the time. A bench request is refused
// as its plain request would be (decode, and the capabilities below), and a malformed one
// with the messages of protocol.Serve.
//
// Its hello is "difffuzz-target 1 escape utf8_decode bench". DIFFFUZZ_PHP_OPTIONS=MASK (decimal
// option bits) adds "options=MASK" and makes the script answer "error ..." to an escape with
// bits outside MASK; DIFFFUZZ_PHP_MAX_LEN=N (decimal, 1 to 2^31-1) adds "max-len=N" and makes
// it answer "error ..." to an input longer than N bytes (DESIGN.md §6; the messages are those
// of protocol.Serve). An unset or empty variable changes nothing; an invalid value makes the
// script print one line to stderr and exit 2 before its hello.
//
// The conformance test in this directory runs real PHP through the script and compares it
// byte for byte with the oracle; it skips when php is not on PATH, except under CI=true or
// DIFFFUZZ_REQUIRE_PHP=1, where a missing php fails it.
//
// testdata/planted-target.php is the same target with planted faults (the names of
// internal/planted: lower-hex-tag, raw-slash, ignore-options, upper-unicode, drop-quote,
// hang-efbfbd, crash-fe, options-0), applied to PHP's real answers, for trying and testing
// difffuzz's triage of a broken PHP target: php testdata/planted-target.php FAULT[,FAULT...].
// It requires difffuzz-target.php as a library (it defines DIFFFUZZ_TARGET_LIBRARY first, so
// the adapter defines its functions, difffuzz_serve among them, without serving); its header
// documents each fault, and planted_script_test.go checks each against the adapter's answers.
// It does not announce or answer bench (its hello is "difffuzz-target 1 escape utf8_decode"):
// its faults are in the plain answers.
//
// Throughput, measured with PHP 8.2.36 CLI (OPcache, NTS) on 2 cores through protocol.Client
// (pipelined, window 1024, batches of 16,384 escape requests of 2 bytes): about 950,000
// requests/s when the script batches its output (the default) and about 490,000 requests/s
// with DIFFFUZZ_PHP_FLUSH=line (one write per answer); the script alone, reading a file,
// answers about 1.5 million such requests/s. The conformance test, which also runs the oracle,
// compares about 850,000 inputs/s on 1–4-byte strings and 300,000/s on 0–100-byte random
// strings. BenchmarkPHPTarget measures it on the machine at hand.
package phpadapter

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Script is the text of difffuzz-target.php, embedded so that an installed difffuzz binary
// can run it without the source tree.
//
//go:embed difffuzz-target.php
var Script []byte

// ScriptName is the script's file name in this directory.
const ScriptName = "difffuzz-target.php"

// ErrNoPHP is returned (wrapped) by Command when no PHP binary can be found.
var ErrNoPHP = errors.New("php not found")

// PHPEnv names the environment variable that selects the PHP binary (a name looked up in
// PATH, or a path); when unset, "php" is looked up in PATH.
const PHPEnv = "DIFFFUZZ_PHP"

// Command returns the command line that runs the PHP target: the PHP binary (see PHPEnv) and
// the script's path. The error wraps ErrNoPHP when PHP is missing.
func Command() ([]string, error) {
	name := os.Getenv(PHPEnv)
	if name == "" {
		name = "php"
	}
	php, err := exec.LookPath(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %v (install PHP 8.x CLI, e.g. apt-get install php-cli, or set %s)", ErrNoPHP, err, PHPEnv)
	}
	script, err := ScriptPath()
	if err != nil {
		return nil, err
	}
	return []string{php, script}, nil
}

// ScriptPath returns the path of a file holding Script: the script in the source tree when
// it is there and unchanged, otherwise a copy written once to the temporary directory under a
// name derived from its content.
func ScriptPath() (string, error) {
	if _, file, _, ok := runtime.Caller(0); ok {
		p := filepath.Join(filepath.Dir(file), ScriptName)
		if b, err := os.ReadFile(p); err == nil && bytes.Equal(b, Script) {
			return p, nil
		}
	}
	return tempScript()
}

// tempScript writes Script once to the temporary directory, under a name derived from its
// content, and returns the file's path.
func tempScript() (string, error) {
	sum := sha256.Sum256(Script)
	p := filepath.Join(os.TempDir(), "difffuzz-target-"+hex.EncodeToString(sum[:6])+".php")
	if b, err := os.ReadFile(p); err == nil && bytes.Equal(b, Script) {
		return p, nil
	}
	tmp, err := os.CreateTemp(os.TempDir(), "difffuzz-target-*.php")
	if err != nil {
		return "", fmt.Errorf("phpadapter: writing the PHP script: %w", err)
	}
	_, werr := tmp.Write(Script)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), p)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("phpadapter: writing the PHP script: %w", werr)
	}
	return p, nil
}
