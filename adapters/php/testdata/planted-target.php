<?php
/*
 * planted-target.php: ../difffuzz-target.php with planted faults, so that difffuzz's triage of a
 * broken target can be tried and tested against a PHP target (as internal/planted does for Go):
 *
 *     php planted-target.php FAULT[,FAULT...]
 *     difffuzz --exec 'php adapters/php/testdata/planted-target.php drop-quote,crash-fe'
 *
 * It requires the adapter as a library (DIFFFUZZ_TARGET_LIBRARY) and speaks the protocol as the
 * adapter does, same hello but for bench, environment (DIFFFUZZ_PHP_OPTIONS, DIFFFUZZ_PHP_MAX_LEN,
 * DIFFFUZZ_PHP_FLUSH) and output buffering, with the adapter's answer() computing PHP's real
 * answers; the faults then change those answers. It does not announce the optional operation
 * bench, and answers a bench request "error unknown operation ..." as answer() does: the
 * faults are in the plain answers, the ones a campaign checks. A request the adapter answers "error ..."
 * (malformed, or outside options=/max-len=) is answered the same and triggers no fault; the
 * faults apply to the escape and utf8_decode requests PHP answers. No FAULT argument, or an
 * empty list, serves the adapter's answers unchanged. An unknown fault name (or more than one
 * argument) makes the script print one line to stderr and exit 2 before its hello.
 *
 * The faults (the names of internal/planted; the escaper faults change escape answers only, and
 * only a result that is a JSON string, not "false", "null" or a JSON_NUMERIC_CHECK number; they
 * work on the escape sequences of the result, so a "\u003C" or "\/" that is text after an
 * escaped backslash, as in "\\u003C", is left alone):
 *
 *     lower-hex-tag   \u003C and \u003E (JSON_HEX_TAG) are written \u003c and \u003e.
 *     raw-slash       every \/ is written / (as if JSON_UNESCAPED_SLASHES were always set).
 *     ignore-options  json_encode is called with flags 0 whatever the request asked, and the
 *                     answer is what PHP gives then, error code included ("false 5" for invalid
 *                     UTF-8 even under JSON_INVALID_UTF8_SUBSTITUTE; a quoted string under
 *                     JSON_NUMERIC_CHECK). The request's flags are still checked against
 *                     options= first.
 *     upper-unicode   every computed \uXXXX escape, i.e. all but the fixed \u003C \u003E \u0026
 *                     \u0027 \u0022 of the JSON_HEX_* options, has upper-case hex digits: \u00e9
 *                     becomes \u00E9, \ud83d\ude00 \uD83D\uDE00, \ufffd \uFFFD and \u001f
 *                     \u001F (unlike internal/planted, which keeps the control escapes of
 *                     U+0000..U+001F lower-case).
 *     drop-quote      the closing quote of the result is dropped: wrong on every string.
 *     hang-efbfbd     a request whose input contains the bytes EF BF BD is never answered: the
 *                     answers buffered before it are written, then the script sleeps forever.
 *     crash-fe        on a request whose input contains the byte FE the script writes "planted
 *                     target: crashing on FE" to stderr and exits with status 3; answers still
 *                     buffered are lost, as in a real crash.
 *     options-0       the hello announces options=0 (as with DIFFFUZZ_PHP_OPTIONS=0, which it
 *                     overrides) and an escape with flags other than 0 is answered "error ...".
 *
 * When several faults are given, crash-fe is checked before hang-efbfbd, ignore-options applies
 * before the others, and \u003C and \u003E follow lower-hex-tag.
 */

declare(strict_types=1);

const DIFFFUZZ_TARGET_LIBRARY = true;
require __DIR__ . '/../difffuzz-target.php';

const PLANTED_FAULTS = [
    'lower-hex-tag', 'raw-slash', 'ignore-options', 'upper-unicode', 'drop-quote',
    'hang-efbfbd', 'crash-fe', 'options-0',
];

/** Reads the fault list of the command line; exits 2 on a usage error or an unknown fault. */
function planted_faults(array $argv): array
{
    if (count($argv) > 2) {
        fwrite(STDERR, "planted-target.php: usage: php planted-target.php [FAULT[,FAULT...]]\n");
        exit(2);
    }
    $faults = [];
    foreach (explode(',', $argv[1] ?? '') as $name) {
        $name = trim($name);
        if ($name === '') {
            continue;
        }
        if (!in_array($name, PLANTED_FAULTS, true)) {
            fwrite(STDERR, sprintf("planted-target.php: unknown planted fault \"%s\" (known: %s)\n",
                addcslashes(substr($name, 0, 64), "\0..\37\"\\\177..\377"), implode(', ', PLANTED_FAULTS)));
            exit(2);
        }
        $faults[$name] = true;
    }
    return $faults;
}

/** The input bytes of a well-formed escape or utf8_decode request line, or null. */
function planted_input(string $line): ?string
{
    $f = explode(' ', $line);
    $why = null;
    if ($f[0] === 'escape' && count($f) === 3) {
        return parse_hex($f[2], $why);
    }
    if ($f[0] === 'utf8_decode' && count($f) === 2) {
        return parse_hex($f[1], $why);
    }
    return null;
}

/** Applies the escaper faults to $s, a JSON string written by json_encode. */
function planted_string(string $s, array $faults): string
{
    if ((isset($faults['lower-hex-tag']) || isset($faults['raw-slash']) || isset($faults['upper-unicode']))
        && strpos($s, '\\') !== false) {
        // Every backslash of json_encode's output starts an escape sequence.
        $s = preg_replace_callback('/\\\\(?:u[0-9A-Fa-f]{4}|.)/s', static function (array $m) use ($faults): string {
            $esc = $m[0];
            if ($esc === '\\/') {
                return isset($faults['raw-slash']) ? '/' : $esc;
            }
            if (strlen($esc) !== 6) {
                return $esc;
            }
            if ($esc === '\\u003C' || $esc === '\\u003E') {
                return isset($faults['lower-hex-tag']) ? strtolower($esc) : $esc;
            }
            if ($esc === '\\u0026' || $esc === '\\u0027' || $esc === '\\u0022') {
                return $esc;
            }
            return isset($faults['upper-unicode']) ? '\\u' . strtoupper(substr($esc, 2)) : $esc;
        }, $s);
        if ($s === null) {
            fwrite(STDERR, 'planted-target.php: ' . preg_last_error_msg() . "\n");
            exit(1);
        }
    }
    if (isset($faults['drop-quote'])) {
        $s = substr($s, 0, -1);
    }
    return $s;
}

/** Answers one request line as the adapter does, then applies the faults. */
function planted_answer(string $line, array $faults, array $ops, bool $haveUTF8Decode, ?int $mask, ?int $maxLen): string
{
    $a = answer($line, $ops, $haveUTF8Decode, $mask, $maxLen);
    if (strncmp($a, 'error ', 6) === 0) {
        return $a;
    }
    $in = (string)planted_input($line); // the request was answered, so it is well-formed
    if (isset($faults['crash-fe']) && strpos($in, "\xFE") !== false) {
        fwrite(STDERR, "planted target: crashing on FE\n");
        exit(3);
    }
    if (isset($faults['hang-efbfbd']) && strpos($in, "\xEF\xBF\xBD") !== false) {
        for (;;) { // difffuzz_serve has written the earlier answers (see $flushFirst below)
            sleep(3600);
        }
    }
    if (strncmp($line, 'escape ', 7) !== 0) {
        return $a;
    }
    if (isset($faults['ignore-options'])) {
        $a = answer('escape 0 ' . explode(' ', $line)[2], $ops, $haveUTF8Decode, $mask, $maxLen);
    }
    [$r, $err] = explode(' ', $a, 2);
    if ($r === 'false' || $r === '-') {
        return $a;
    }
    $s = (string)hex2bin($r);
    if ($s[0] !== '"') { // "null", or a number under JSON_NUMERIC_CHECK
        return $a;
    }
    return to_hex(planted_string($s, $faults)) . ' ' . $err;
}

$faults = planted_faults($argv);
if (isset($faults['options-0'])) {
    $mask = 0;
}
$flushFirst = null;
if (isset($faults['hang-efbfbd'])) {
    $flushFirst = static fn (string $line): bool => strpos((string)planted_input($line), "\xEF\xBF\xBD") !== false;
}
difffuzz_serve(
    static fn (string $line): string => planted_answer($line, $faults, $ops, $haveUTF8Decode, $mask, $maxLen),
    difffuzz_hello($ops, $mask, $maxLen),
    $perLine,
    $flushFirst,
);
exit(0);
