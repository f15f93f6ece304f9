<?php
/*
 * difffuzz-target.php: the difffuzz target protocol, version 1 (DESIGN.md §6), spoken by
 * the PHP that runs this script, so that difffuzz can compare its oracle and fast
 * implementations with the real json_encode() and utf8_decode().
 *
 *     php difffuzz-target.php          # or: difffuzz --exec 'php adapters/php/difffuzz-target.php'
 *
 * On start it writes "difffuzz-target 1 escape utf8_decode bench" (followed by the fields below
 * when their variables are set), then answers one line per request line, in order, until end
 * of input, and exits 0:
 *
 *     escape FLAGS HEX   ->  hex(json_encode($s, FLAGS)) json_last_error()
 *                            or "false CODE" when json_encode returned false
 *     utf8_decode HEX    ->  hex(utf8_decode($s)), "-" for the empty string
 *     bench OP FLAGS HEX N
 *                        ->  "NANOSECONDS RESULT...": OP (escape or utf8_decode; FLAGS must be
 *                            0 unless escape) run N times (1 <= N <= 1000000000) in a loop
 *                            timed with hrtime(true), and the answer to the plain request
 *                            "OP [FLAGS] HEX" (see bench_answer())
 *     anything else      ->  "error MESSAGE", and it keeps serving
 *
 * HEX is lowercase on output and either case on input; "-" is the empty string. Everything is
 * binary safe (hex2bin/bin2hex); lines are read with fgets() and have no length limit.
 *
 * Environment (an unset or empty variable changes nothing; an invalid value makes the script
 * print one line to stderr and exit 2 before its hello):
 *
 *     DIFFFUZZ_PHP_OPTIONS=MASK  decimal option bits in [0, 4294967295]: the hello ends with
 *                                "options=MASK", and an escape whose FLAGS has bits outside
 *                                MASK is answered "error escape: FLAGS F has option bits B
 *                                (JSON_...) outside this target's options=MASK"
 *     DIFFFUZZ_PHP_MAX_LEN=N     decimal in [1, 2147483647]: the hello ends with "max-len=N"
 *                                (after options=), and an escape or utf8_decode whose input is
 *                                longer than N bytes is answered "error OP: input of L bytes is
 *                                longer than this target's max-len=N"
 *     DIFFFUZZ_PHP_FLUSH=line    one write per answer (see the last decision below)
 *     DIFFFUZZ_PHP_UTF8_DECODE=EXPR
 *                                a PHP expression of the string $s answered in place of
 *                                utf8_decode($s), such as mb_convert_encoding($s, 'ISO-8859-1',
 *                                'UTF-8'): is it a drop-in replacement? (utf8_decode is then
 *                                advertised even where utf8_decode() no longer exists)
 *     DIFFFUZZ_PHP_JSON_ENCODE=EXPR
 *                                a PHP expression of $s and $flags answered in place of
 *                                json_encode($s, $flags) (false or a string; json_last_error()
 *                                is read after it)
 *
 * An EXPR that does not compile, or whose value is not a string (or false, for JSON_ENCODE) on
 * the empty string, makes the script print one line to stderr and exit 2 before its hello.
 *
 * They restrict what PHP is asked, not how it answers: PHP implements every option, so MASK
 * only serves to check a client against a target that announces a subset (DESIGN.md §6), or to
 * keep a campaign to the options of interest. A malformed request is answered as without them;
 * the checks apply to well-formed requests, options first.
 *
 * Used as a library: a script that defines the constant DIFFFUZZ_TARGET_LIBRARY and then requires
 * this file gets its functions (answer(), bench_answer(), parse_hex(), to_hex(),
 * difffuzz_hello(), difffuzz_serve(), ...) and the variables $ops, $haveUTF8Decode, $perLine,
 * $mask and $maxLen (the environment above is read, and checked, on require), but nothing is
 * served: testdata/planted-target.php serves PHP's answers with planted faults that way.
 * answer() answers the plain requests only ("bench" is an unknown operation to it) and $ops
 * lists the checkable operations only: this script adds bench to its own hello and answers
 * it through answer_or_bench().
 *
 * Decisions:
 *
 * - "decode" (every php_next_utf8_char() step: code point and cursor advance) is NOT
 *   advertised and is answered "error ...". PHP userland cannot observe the decoder's steps:
 *   json_encode and utf8_decode report one result per step but not how many bytes each step
 *   consumed, and no function exposes the failure advance. It can be guessed (re-encode
 *   suffixes and match), but not in general exactly: for "\x80\x80" with IGNORE, skipping 1
 *   or 2 bytes gives the same output. Re-implementing the table of spec §2.2 in PHP would
 *   make this script a second oracle, not PHP's answer. A target must answer exactly or not
 *   at all, so this one does not. (The steps are still checked indirectly: every escape and
 *   utf8_decode answer depends on them.)
 *
 * - JSON_NUMERIC_CHECK (32) is answered faithfully: the reply is whatever json_encode returns,
 *   a number such as "123" included, so an implementation of spec §1.7 can be checked against
 *   it. Its output depends on serialize_precision, which is pinned to -1 (PHP's default, the
 *   one spec §5.2 K1-K20 assume) whatever php.ini says.
 *
 * - JSON_THROW_ON_ERROR (without PARTIAL_OUTPUT_ON_ERROR): the JsonException is caught and
 *   answered "false CODE" with the exception's code, the same answer as without the flag.
 *   On success the answer's ERR is 0: PHP leaves json_last_error() untouched under
 *   THROW_ON_ERROR, so it would report an earlier request's error.
 *
 * - utf8_decode's E_DEPRECATED (PHP 8.2+) is silenced; any other diagnostic goes to stderr,
 *   never into the protocol stream. Where utf8_decode() no longer exists (PHP 9) the
 *   operation is not advertised.
 *
 * - bench times PHP itself, not the protocol: the loop calls json_encode($s, $flags) (in a
 *   try/catch under JSON_THROW_ON_ERROR without PARTIAL_OUTPUT_ON_ERROR, as the plain answer
 *   does) or utf8_decode($s) N times on the decoded input, between two hrtime(true) readings
 *   (monotonic, in nanoseconds); the result is computed once more, outside the loop, by
 *   answer(), so it is byte for byte the plain answer, which the client checks before it
 *   trusts the time. A bench request is refused exactly as its plain request would be
 *   (decode, options=, max-len=), and a malformed one with the messages of protocol.Serve.
 *
 * - Output is buffered and written when no further request is waiting in the input (checked
 *   with a zero-timeout stream_select(), which also sees PHP's own read buffer) or when 64 KiB
 *   are pending. A pipelining client thus gets large writes while an interactive one never
 *   waits. DIFFFUZZ_PHP_FLUSH=line writes every answer at once instead (slower; for
 *   comparison). Measured with PHP 8.2 on 2 cores: see adapters/php/doc.go.
 */

declare(strict_types=1);

error_reporting(E_ALL & ~E_DEPRECATED);
ini_set('display_errors', 'stderr');
ini_set('log_errors', '0');
ini_set('serialize_precision', '-1');
ini_set('memory_limit', '-1');

const HEX_CHARS = '0123456789abcdefABCDEF';

/**
 * The function EXPR of the environment variable $name computes, of the parameters $params
 * (such as "string $s"), or $default when it is unset or empty; prints one line to stderr and
 * exits 2 when it does not compile or its value on the empty string is not a string (or false,
 * when $falseOK).
 */
function env_expression(string $name, string $params, callable $default, bool $falseOK): callable
{
    $expr = getenv($name);
    if ($expr === false || $expr === '') {
        return $default;
    }
    try {
        $fn = eval('return static function (' . $params . ') { return (' . $expr . '); };');
        $probe = $params === 'string $s' ? $fn('') : $fn('', 0);
    } catch (Throwable $e) {
        fwrite(STDERR, sprintf("difffuzz-target.php: %s=\"%s\": %s\n", $name,
            addcslashes(substr($expr, 0, 120), "\0..\37\"\\\177..\377"), strtok($e->getMessage(), "\n")));
        exit(2);
    }
    if (!is_string($probe) && !($falseOK && $probe === false)) {
        fwrite(STDERR, sprintf("difffuzz-target.php: %s=\"%s\": its value on the empty string is %s, not a string\n",
            $name, addcslashes(substr($expr, 0, 120), "\0..\37\"\\\177..\377"), get_debug_type($probe)));
        exit(2);
    }
    return $fn;
}

// What answers utf8_decode and escape: PHP's functions, or the expressions of the environment.
$utf8Decode = env_expression('DIFFFUZZ_PHP_UTF8_DECODE', 'string $s',
    static fn (string $s) => utf8_decode($s), false);
$jsonEncode = env_expression('DIFFFUZZ_PHP_JSON_ENCODE', 'string $s, int $flags',
    static fn (string $s, int $flags) => json_encode($s, $flags), true);

$haveUTF8Decode = function_exists('utf8_decode') || getenv('DIFFFUZZ_PHP_UTF8_DECODE') !== false && getenv('DIFFFUZZ_PHP_UTF8_DECODE') !== '';
$ops = ['escape'];
if ($haveUTF8Decode) {
    $ops[] = 'utf8_decode';
}
$perLine = getenv('DIFFFUZZ_PHP_FLUSH') === 'line';

/**
 * Reads the decimal environment variable $name, which must be in [$min, $max] (leading zeros
 * allowed, no sign). Returns null when it is unset or empty; prints one line to stderr and
 * exits 2 when it is anything else.
 */
function env_decimal(string $name, int $min, int $max): ?int
{
    $v = getenv($name);
    if ($v === false || $v === '') {
        return null;
    }
    $digits = ltrim($v, '0');
    if (strspn($v, '0123456789') !== strlen($v) || strlen($digits) > 10
        || (int)$v < $min || (int)$v > $max) {
        fwrite(STDERR, sprintf("difffuzz-target.php: %s=\"%s\" is not a decimal integer in [%d, %d]\n",
            $name, addcslashes(substr($v, 0, 64), "\0..\37\"\\\177..\377"), $min, $max));
        exit(2);
    }
    return (int)$v;
}

// The option bits this target announces and accepts (null: all), and the longest input (null: any).
$mask = env_decimal('DIFFFUZZ_PHP_OPTIONS', 0, 4294967295);
$maxLen = env_decimal('DIFFFUZZ_PHP_MAX_LEN', 1, 2147483647);

/** Names option bits as jsonopt.Options.String() does: "JSON_HEX_TAG|JSON_HEX_AMP|1073741824". */
function option_names(int $bits): string
{
    static $names = [
        1 => 'HEX_TAG', 2 => 'HEX_AMP', 4 => 'HEX_APOS', 8 => 'HEX_QUOT', 16 => 'FORCE_OBJECT',
        32 => 'NUMERIC_CHECK', 64 => 'UNESCAPED_SLASHES', 128 => 'PRETTY_PRINT',
        256 => 'UNESCAPED_UNICODE', 512 => 'PARTIAL_OUTPUT_ON_ERROR', 1024 => 'PRESERVE_ZERO_FRACTION',
        2048 => 'UNESCAPED_LINE_TERMINATORS', 1048576 => 'INVALID_UTF8_IGNORE',
        2097152 => 'INVALID_UTF8_SUBSTITUTE', 4194304 => 'THROW_ON_ERROR',
    ];
    if ($bits === 0) {
        return '0';
    }
    $parts = [];
    foreach ($names as $bit => $name) {
        if ($bits & $bit) {
            $parts[] = 'JSON_' . $name;
            $bits &= ~$bit;
        }
    }
    if ($bits !== 0) {
        $parts[] = (string)$bits;
    }
    return implode('|', $parts);
}

/** The answer "error ..." to a request of $op whose input is longer than $maxLen, or null. */
function too_long(string $op, string $s, ?int $maxLen): ?string
{
    if ($maxLen === null || strlen($s) <= $maxLen) {
        return null;
    }
    return sprintf("error %s: input of %d bytes is longer than this target's max-len=%d", $op, strlen($s), $maxLen);
}

/** Decodes a protocol byte string; returns null (and sets $why) when malformed. */
function parse_hex(string $h, ?string &$why): ?string
{
    if ($h === '-') {
        return '';
    }
    $n = strlen($h);
    if ($n === 0) {
        $why = 'empty field (the empty string is written -)';
        return null;
    }
    if ($n % 2 !== 0) {
        $why = "odd number of hex digits ($n)";
        return null;
    }
    $ok = strspn($h, HEX_CHARS);
    if ($ok !== $n) {
        $why = sprintf("byte '%s' at offset %d is not a hex digit", addcslashes($h[$ok], "\0..\37\177..\377"), $ok);
        return null;
    }
    return hex2bin($h);
}

function to_hex(string $s): string
{
    return $s === '' ? '-' : bin2hex($s);
}

/** Answers one request line (without its newline). */
function answer(string $line, array $ops, bool $haveUTF8Decode, ?int $mask, ?int $maxLen): string
{
    if ($line === '') {
        return 'error empty request line';
    }
    $f = explode(' ', $line);
    $why = null;
    switch ($f[0]) {
        case 'escape':
            if (count($f) !== 3) {
                return sprintf('error escape takes 2 field(s) (escape FLAGS HEX), got %d', count($f) - 1);
            }
            $flags = $f[1];
            if ($flags === '' || strlen($flags) > 10 || strspn($flags, '0123456789') !== strlen($flags)
                || (int)$flags > 4294967295) {
                return sprintf('error escape: FLAGS "%s" is not a decimal integer in [0, 4294967295]', addcslashes($flags, "\0..\37\"\\\177..\377"));
            }
            $flags = (int)$flags;
            $s = parse_hex($f[2], $why);
            if ($s === null) {
                return 'error escape: HEX: ' . $why;
            }
            if ($mask !== null && ($flags & ~$mask) !== 0) {
                return sprintf("error escape: FLAGS %d has option bits %d (%s) outside this target's options=%d",
                    $flags, $flags & ~$mask, option_names($flags & ~$mask), $mask);
            }
            if (($refusal = too_long('escape', $s, $maxLen)) !== null) {
                return $refusal;
            }
            global $jsonEncode;
            if (($flags & JSON_THROW_ON_ERROR) && !($flags & JSON_PARTIAL_OUTPUT_ON_ERROR)) {
                try {
                    $r = $jsonEncode($s, $flags);
                    $err = 0;
                } catch (JsonException $e) {
                    $r = false;
                    $err = $e->getCode();
                }
            } else {
                $r = $jsonEncode($s, $flags);
                $err = json_last_error();
            }
            return ($r === false ? 'false' : to_hex($r)) . ' ' . $err;
        case 'utf8_decode':
            if (!$haveUTF8Decode) {
                break;
            }
            if (count($f) !== 2) {
                return sprintf('error utf8_decode takes 1 field(s) (utf8_decode HEX), got %d', count($f) - 1);
            }
            $s = parse_hex($f[1], $why);
            if ($s === null) {
                return 'error utf8_decode: HEX: ' . $why;
            }
            if (($refusal = too_long('utf8_decode', $s, $maxLen)) !== null) {
                return $refusal;
            }
            global $utf8Decode;
            return to_hex($utf8Decode($s));
        case 'decode':
            return 'error operation decode is not supported by this target (it supports: ' . implode(' ', $ops)
                . '): PHP userland cannot observe php_next_utf8_char() steps exactly';
        case '':
            return 'error request line starts with a space';
    }
    if (in_array($f[0], ['escape', 'decode', 'utf8_decode'], true)) {
        return 'error operation ' . $f[0] . ' is not supported by this target (it supports: ' . implode(' ', $ops) . ')';
    }
    return sprintf('error unknown operation "%s" (want escape, decode or utf8_decode)', addcslashes(substr($f[0], 0, 64), "\0..\37\"\\\177..\377"));
}

/** Reads a decimal field of a bench request in [$min, $max] (leading zeros allowed, no sign), or null. */
function bench_decimal(string $v, int $min, int $max): ?int
{
    if ($v === '' || strspn($v, '0123456789') !== strlen($v) || strlen(ltrim($v, '0')) > 10
        || (int)$v < $min || (int)$v > $max) {
        return null;
    }
    return (int)$v;
}

/**
 * Answers one bench request line "bench OP FLAGS HEX N" (without its newline): OP run N times
 * on the input, timed with hrtime(true), answered "NANOSECONDS RESULT..." with RESULT... the
 * answer to the plain request; a malformed request, or one whose plain request is refused, is
 * answered "error MESSAGE" (the messages of protocol.Serve for a malformed bench request, and
 * those of the plain request for a refused one).
 */
function bench_answer(string $line, array $ops, bool $haveUTF8Decode, ?int $mask, ?int $maxLen): string
{
    $f = explode(' ', $line);
    if (count($f) !== 5) {
        return sprintf('error bench takes 4 field(s) (bench OP FLAGS HEX N), got %d', count($f) - 1);
    }
    [, $op, $flagsField, $hex, $nField] = $f;
    if ($op === 'bench') {
        return 'error bench: OP "bench" cannot be timed (want escape, decode or utf8_decode)';
    }
    if (!in_array($op, ['escape', 'decode', 'utf8_decode'], true)) {
        return sprintf('error bench: unknown operation "%s" (want escape, decode or utf8_decode)', addcslashes(substr($op, 0, 64), "\0..\37\"\\\177..\377"));
    }
    $flags = bench_decimal($flagsField, 0, 4294967295);
    if ($flags === null) {
        return sprintf('error bench: FLAGS "%s" is not a decimal integer in [0, 4294967295]', addcslashes(substr($flagsField, 0, 64), "\0..\37\"\\\177..\377"));
    }
    if ($op !== 'escape' && $flags !== 0) {
        return sprintf('error bench: FLAGS %d must be 0 for %s', $flags, $op);
    }
    $why = null;
    $s = parse_hex($hex, $why);
    if ($s === null) {
        return 'error bench: HEX: ' . $why;
    }
    $n = bench_decimal($nField, 1, 1000000000);
    if ($n === null) {
        return sprintf('error bench: N "%s" is not a decimal integer in [1, 1000000000]', addcslashes(substr($nField, 0, 64), "\0..\37\"\\\177..\377"));
    }
    // The plain request's answer: its refusals (decode, options=, max-len=) and the result.
    $r = answer($op === 'escape' ? "escape $flags $hex" : "$op $hex", $ops, $haveUTF8Decode, $mask, $maxLen);
    if (strncmp($r, 'error ', 6) === 0) {
        return $r;
    }
    if ($op === 'escape' && getenv('DIFFFUZZ_PHP_JSON_ENCODE') !== false && getenv('DIFFFUZZ_PHP_JSON_ENCODE') !== '') {
        global $jsonEncode; // the expression in place of json_encode is what is timed
        $t0 = hrtime(true);
        for ($i = 0; $i < $n; $i++) {
            try {
                $jsonEncode($s, $flags);
            } catch (JsonException $e) {
            }
        }
        $ns = hrtime(true) - $t0;
    } elseif ($op === 'escape') {
        if (($flags & JSON_THROW_ON_ERROR) && !($flags & JSON_PARTIAL_OUTPUT_ON_ERROR)) {
            $t0 = hrtime(true);
            for ($i = 0; $i < $n; $i++) {
                try {
                    json_encode($s, $flags);
                } catch (JsonException $e) {
                }
            }
            $ns = hrtime(true) - $t0;
        } else {
            $t0 = hrtime(true);
            for ($i = 0; $i < $n; $i++) {
                json_encode($s, $flags);
            }
            $ns = hrtime(true) - $t0;
        }
    } elseif (getenv('DIFFFUZZ_PHP_UTF8_DECODE') !== false && getenv('DIFFFUZZ_PHP_UTF8_DECODE') !== '') {
        global $utf8Decode; // the expression in place of utf8_decode is what is timed
        $t0 = hrtime(true);
        for ($i = 0; $i < $n; $i++) {
            $utf8Decode($s);
        }
        $ns = hrtime(true) - $t0;
    } else { // utf8_decode: answer() has refused it where utf8_decode() does not exist
        $t0 = hrtime(true);
        for ($i = 0; $i < $n; $i++) {
            utf8_decode($s);
        }
        $ns = hrtime(true) - $t0;
    }
    return max($ns, 0) . ' ' . $r;
}

/** Answers one request line (without its newline): bench by bench_answer(), the others by answer(). */
function answer_or_bench(string $line, array $ops, bool $haveUTF8Decode, ?int $mask, ?int $maxLen): string
{
    if (explode(' ', $line, 2)[0] === 'bench') {
        return bench_answer($line, $ops, $haveUTF8Decode, $mask, $maxLen);
    }
    return answer($line, $ops, $haveUTF8Decode, $mask, $maxLen);
}

/** Writes all of $out to stdout; exits 1 when stdout is gone. */
function write_all(string $out): void
{
    while ($out !== '') {
        $n = fwrite(STDOUT, $out);
        if ($n === false || $n === 0) {
            fwrite(STDERR, "difffuzz-target.php: cannot write to stdout\n");
            exit(1);
        }
        $out = (string)substr($out, $n);
    }
}

/** Reports whether a request can be read without blocking (in PHP's buffer or the pipe). */
function input_waiting(): bool
{
    $r = [STDIN];
    $w = null;
    $e = null;
    return @stream_select($r, $w, $e, 0) > 0;
}

/** The hello line (without its newline) announcing $ops and, when set, $mask and $maxLen. */
function difffuzz_hello(array $ops, ?int $mask, ?int $maxLen): string
{
    $hello = 'difffuzz-target 1 ' . implode(' ', $ops);
    if ($mask !== null) {
        $hello .= ' options=' . $mask;
    }
    if ($maxLen !== null) {
        $hello .= ' max-len=' . $maxLen;
    }
    return $hello;
}

/**
 * Serves the protocol on stdin/stdout: writes $hello and a newline, then answers every request
 * line (without its newline) with $answer($line) until end of input, buffering the answers as
 * the header says ($perLine: one write per answer), and returns, every answer written. When
 * $flushFirst is given and $flushFirst($line) returns true, the answers buffered so far are
 * written before $answer($line) is called (for an answer that may block or exit).
 */
function difffuzz_serve(callable $answer, string $hello, bool $perLine, ?callable $flushFirst = null): void
{
    write_all($hello . "\n");

    $out = '';
    while (($line = fgets(STDIN)) !== false) {
        // Drop the newline, and a carriage return before it (or at the end of a last line).
        $n = strlen($line);
        if ($n > 0 && $line[$n - 1] === "\n") {
            $n--;
        }
        if ($n > 0 && $line[$n - 1] === "\r") {
            $n--;
        }
        if ($n !== strlen($line)) {
            $line = substr($line, 0, $n);
        }
        if ($flushFirst !== null && $out !== '' && $flushFirst($line)) {
            write_all($out);
            $out = '';
        }
        $out .= $answer($line) . "\n";
        if ($perLine || strlen($out) >= 65536 || !input_waiting()) {
            write_all($out);
            $out = '';
        }
    }
    write_all($out);
}

// Required as a library (see the header), the file stops here.
if (!defined('DIFFFUZZ_TARGET_LIBRARY')) {
    difffuzz_serve(
        static fn (string $line): string => answer_or_bench($line, $ops, $haveUTF8Decode, $mask, $maxLen),
        difffuzz_hello([...$ops, 'bench'], $mask, $maxLen),
        $perLine,
    );
    exit(0);
}
