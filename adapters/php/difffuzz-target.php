<?php
/*
 * difffuzz-target.php: the difffuzz target protocol, version 1 (DESIGN.md §6), spoken by
 * the PHP that runs this script, so that difffuzz can compare its oracle and fast
 * implementations with the real json_encode() and utf8_decode().
 *
 *     php difffuzz-target.php          # or: difffuzz --exec 'php adapters/php/difffuzz-target.php'
 *
 * On start it writes "difffuzz-target 1 escape utf8_decode", then answers one line per
 * request line, in order, until end of input, and exits 0:
 *
 *     escape FLAGS HEX   ->  hex(json_encode($s, FLAGS)) json_last_error()
 *                            or "false CODE" when json_encode returned false
 *     utf8_decode HEX    ->  hex(utf8_decode($s)), "-" for the empty string
 *     anything else      ->  "error MESSAGE", and it keeps serving
 *
 * HEX is lowercase on output and either case on input; "-" is the empty string. Everything is
 * binary safe (hex2bin/bin2hex); lines are read with fgets() and have no length limit.
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

$haveUTF8Decode = function_exists('utf8_decode');
$ops = ['escape'];
if ($haveUTF8Decode) {
    $ops[] = 'utf8_decode';
}
$perLine = getenv('DIFFFUZZ_PHP_FLUSH') === 'line';

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
function answer(string $line, array $ops, bool $haveUTF8Decode): string
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
            if (($flags & JSON_THROW_ON_ERROR) && !($flags & JSON_PARTIAL_OUTPUT_ON_ERROR)) {
                try {
                    $r = json_encode($s, $flags);
                    $err = 0;
                } catch (JsonException $e) {
                    $r = false;
                    $err = $e->getCode();
                }
            } else {
                $r = json_encode($s, $flags);
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
            return to_hex(utf8_decode($s));
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

write_all('difffuzz-target 1 ' . implode(' ', $ops) . "\n");

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
    $out .= answer($line, $ops, $haveUTF8Decode) . "\n";
    if ($perLine || strlen($out) >= 65536 || !input_waiting()) {
        write_all($out);
        $out = '';
    }
}
write_all($out);
exit(0);
