package protocol

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/difffuzz/difffuzz/jsonopt"
)

func TestParseRequest(t *testing.T) {
	valid := []struct {
		line string
		want Request
		back string // String() of the parsed request; "" means line itself
	}{
		{"escape 2097152 e08041", Request{OpEscape, jsonopt.InvalidUTF8Substitute, []byte("\xe0\x80A")}, ""},
		{"escape 0 80", Request{OpEscape, 0, []byte{0x80}}, ""},
		{"escape 512 80", Request{OpEscape, jsonopt.PartialOutputOnError, []byte{0x80}}, ""},
		{"escape 0 -", Request{OpEscape, 0, []byte{}}, ""},
		{"escape 4294967295 00", Request{OpEscape, 4294967295, []byte{0}}, ""},
		{"escape 007 41", Request{OpEscape, 7, []byte("A")}, "escape 7 41"},
		{"escape 0 E0C3A9ff", Request{OpEscape, 0, []byte("\xe0\xc3\xa9\xff")}, "escape 0 e0c3a9ff"},
		{"escape 0 41\r", Request{OpEscape, 0, []byte("A")}, "escape 0 41"},
		{"decode 41e08041c3a9", Request{OpDecode, 0, []byte("A\xe0\x80A\xc3\xa9")}, ""},
		{"decode -", Request{OpDecode, 0, []byte{}}, ""},
		{"utf8_decode 41c3a9", Request{OpUTF8Decode, 0, []byte("A\xc3\xa9")}, ""},
		{"utf8_decode -", Request{OpUTF8Decode, 0, []byte{}}, ""},
	}
	for _, tc := range valid {
		got, err := ParseRequest(tc.line)
		if !assert.NoError(t, err, "ParseRequest(%q)", tc.line) {
			continue
		}
		assert.Equal(t, tc.want, got, "ParseRequest(%q)", tc.line)
		back := tc.back
		if back == "" {
			back = tc.line
		}
		assert.Equal(t, back, got.String(), "ParseRequest(%q).String()", tc.line)
	}

	malformed := []struct {
		class, line, wantErr string
	}{
		{"empty", "", "empty request line"},
		{"field count", "escape", "escape takes 2 field(s) (escape FLAGS HEX), got 0"},
		{"field count", "escape 0", "got 1"},
		{"field count", "escape 0 80 81", "got 3"},
		{"field count", "decode", "decode takes 1 field(s) (decode HEX), got 0"},
		{"field count", "decode 41 42", "got 2"},
		{"field count", "utf8_decode", "utf8_decode takes 1 field(s)"},
		{"field count", "utf8_decode 41 ", "got 2"},
		{"flags", "escape x 80", `FLAGS "x" is not a decimal integer`},
		{"flags", "escape -1 80", `FLAGS "-1"`},
		{"flags", "escape +1 80", `FLAGS "+1"`},
		{"flags", "escape 0x1 80", `FLAGS "0x1"`},
		{"flags", "escape 4294967296 80", `FLAGS "4294967296"`},
		{"flags", "escape  80", `FLAGS ""`},
		{"hex", "escape 0 8", "odd number of hex digits (1)"},
		{"hex", "escape 0 zz", `byte 'z' at offset 0 is not a hex digit`},
		{"hex", "escape 0 41g1", `byte 'g' at offset 2 is not a hex digit`},
		{"hex", "escape 0 ", "empty field (the empty string is written -)"},
		{"hex", "decode --", "byte '-' at offset 0"},
		{"hex", "utf8_decode 4 1", "got 2"},
		{"hex", "decode 0x41", "'x' at offset 1"},
		{"op", "ESCAPE 0 80", `unknown operation "ESCAPE"`},
		{"op", "frobnicate 41", `unknown operation "frobnicate"`},
		{"op", " escape 0 80", "starts with a space"},
		{"op", "escape\t0\t80", `unknown operation "escape\t0\t80"`},
	}
	for _, tc := range malformed {
		_, err := ParseRequest(tc.line)
		if !assert.Error(t, err, "%s: ParseRequest(%q); want %q", tc.class, tc.line, tc.wantErr) {
			continue
		}
		assert.Contains(t, err.Error(), tc.wantErr, "%s: ParseRequest(%q) error", tc.class, tc.line)
	}
}

func TestParseResponse(t *testing.T) {
	valid := []struct {
		op   Op
		line string
		want Response
		back string
	}{
		{OpEscape, "225c75666666644122 0", Response{Op: OpEscape, Result: []byte(`"\ufffdA"`)}, ""},
		{OpEscape, "false 5", Response{Op: OpEscape, False: true, Err: 5}, ""},
		{OpEscape, "6e756c6c 5", Response{Op: OpEscape, Result: []byte("null"), Err: 5}, ""},
		{OpEscape, "- 0", Response{Op: OpEscape, Result: []byte{}}, ""},
		{OpEscape, "2241FF22 0", Response{Op: OpEscape, Result: []byte("\"A\xff\"")}, "2241ff22 0"},
		{OpEscape, "false 0", Response{Op: OpEscape, False: true}, ""},
		{OpEscape, "2222 0\r", Response{Op: OpEscape, Result: []byte(`""`)}, "2222 0"},
		{OpDecode, "41/1 !/2 41/1 e9/2", Response{Op: OpDecode, Steps: []jsonopt.Step{{CP: 0x41, Advance: 1, OK: true}, {Advance: 2}, {CP: 0x41, Advance: 1, OK: true}, {CP: 0xe9, Advance: 2, OK: true}}}, ""},
		{OpDecode, "-", Response{Op: OpDecode}, ""},
		{OpDecode, "0/1", Response{Op: OpDecode, Steps: []jsonopt.Step{{CP: 0, Advance: 1, OK: true}}}, ""},
		{OpDecode, "10FFFF/4", Response{Op: OpDecode, Steps: []jsonopt.Step{{CP: 0x10ffff, Advance: 4, OK: true}}}, "10ffff/4"},
		{OpDecode, "!/7", Response{Op: OpDecode, Steps: []jsonopt.Step{{Advance: 7}}}, ""},
		{OpUTF8Decode, "41e9", Response{Op: OpUTF8Decode, Result: []byte("A\xe9")}, ""},
		{OpUTF8Decode, "-", Response{Op: OpUTF8Decode, Result: []byte{}}, ""},
		{OpEscape, "31 0", Response{Op: OpEscape, Result: []byte("1")}, ""},       // json_encode("1", JSON_NUMERIC_CHECK)
		{OpEscape, "312e30 0", Response{Op: OpEscape, Result: []byte("1.0")}, ""}, // "1.0" under NUMERIC_CHECK|PRESERVE_ZERO_FRACTION
		{OpEscape, "error JSON_PRETTY_PRINT (128) is not implemented", Response{Op: OpEscape, ErrorMsg: "JSON_PRETTY_PRINT (128) is not implemented"}, ""},
		{OpDecode, "error decode is not supported", Response{Op: OpDecode, ErrorMsg: "decode is not supported"}, ""},
		{OpUTF8Decode, "error  two  spaces ", Response{Op: OpUTF8Decode, ErrorMsg: " two  spaces "}, ""},
		{OpUTF8Decode, "error", Response{Op: OpUTF8Decode, ErrorMsg: "(no message)"}, "error (no message)"},
	}
	for _, tc := range valid {
		got, err := ParseResponse(tc.op, tc.line)
		if !assert.NoError(t, err, "ParseResponse(%s, %q)", tc.op, tc.line) {
			continue
		}
		assert.Equal(t, tc.want, got, "ParseResponse(%s, %q)", tc.op, tc.line)
		back := tc.back
		if back == "" {
			back = tc.line
		}
		assert.Equal(t, back, got.String(), "ParseResponse(%s, %q).String()", tc.op, tc.line)
	}

	malformed := []struct {
		class   string
		op      Op
		line    string
		wantErr string
	}{
		{"empty", OpEscape, "", "empty response line"},
		{"empty", OpDecode, "", "empty response line"},
		{"empty", OpUTF8Decode, "", "empty response line"},
		{"field count", OpEscape, "false", "escape response has 1 field(s), want 2"},
		{"field count", OpEscape, "2222", "has 1 field(s)"},
		{"field count", OpEscape, "false 5 6", "has 3 field(s)"},
		{"field count", OpEscape, "2222  0", "has 3 field(s)"},
		{"field count", OpUTF8Decode, "41 42", "utf8_decode response has 2 fields, want 1"},
		{"result", OpEscape, "zz 0", "RESULT is neither false nor hex: byte 'z' at offset 0"},
		{"result", OpEscape, "abc 0", "odd number of hex digits (3)"},
		{"result", OpEscape, "FALSE 5", "RESULT is neither false nor hex"},
		{"result", OpEscape, "null 5", "RESULT is neither false nor hex"},
		{"result", OpEscape, " 0", "empty field"},
		{"err", OpEscape, "false x", `ERR "x" is not a decimal integer`},
		{"err", OpEscape, "false -1", `ERR "-1"`},
		{"err", OpEscape, "false 99999999999", `ERR "99999999999"`},
		{"err", OpEscape, "false ", `ERR ""`},
		{"step", OpDecode, "41", `step 1: "41" is not CP/ADVANCE or !/ADVANCE`},
		{"step", OpDecode, "41/1 42", `step 2: "42"`},
		{"step", OpDecode, "41/0", `ADVANCE "0" is not a decimal integer >= 1`},
		{"step", OpDecode, "!/0", `ADVANCE "0"`},
		{"step", OpDecode, "!/-1", `ADVANCE "-1"`},
		{"step", OpDecode, "41/x", `ADVANCE "x"`},
		{"step", OpDecode, "/1", `CP "" is neither 1-8 hex digits nor "!"`},
		{"step", OpDecode, "123456789/1", `CP "123456789"`},
		{"step", OpDecode, "g/1", `CP "g"`},
		{"step", OpDecode, "?/1", `CP "?"`},
		{"step", OpDecode, "41/1  42/1", `step 2: "" is not CP/ADVANCE`},
		{"step", OpDecode, "41/1 ", `step 2: ""`},
		{"step", OpDecode, "- 41/1", `step 1: "-"`},
		{"hex", OpUTF8Decode, "4", "odd number of hex digits (1)"},
		{"hex", OpUTF8Decode, "xx", "byte 'x' at offset 0"},
		{"hex", OpUTF8Decode, "false", "odd number of hex digits (5)"},
		{"op", Op("bogus"), "41", `unknown operation "bogus"`},
	}
	for _, tc := range malformed {
		_, err := ParseResponse(tc.op, tc.line)
		if !assert.Error(t, err, "%s: ParseResponse(%s, %q); want %q", tc.class, tc.op, tc.line, tc.wantErr) {
			continue
		}
		assert.Contains(t, err.Error(), tc.wantErr, "%s: ParseResponse(%s, %q) error", tc.class, tc.op, tc.line)
	}
}

func TestResponseStringErrorMsgIsOneLine(t *testing.T) {
	r := Response{Op: OpEscape, ErrorMsg: "two\nlines\r\n"}
	assert.Equal(t, "error two lines  ", r.String(), "String()")
}

func TestHello(t *testing.T) {
	assert.Equal(t, "difffuzz-target 1 escape decode utf8_decode", Hello(Ops), "Hello(Ops)")
	assert.Equal(t, "difffuzz-target 1", Hello(nil), "Hello(nil)")
	valid := []struct {
		line string
		ops  []Op
	}{
		{"difffuzz-target 1 escape decode utf8_decode", Ops},
		{"difffuzz-target 1 utf8_decode escape", []Op{OpUTF8Decode, OpEscape}},
		{"difffuzz-target 1", nil},
		{"difffuzz-target 1 escape\r", []Op{OpEscape}},
	}
	for _, tc := range valid {
		v, ops, err := ParseHello(tc.line)
		assert.NoError(t, err, "ParseHello(%q)", tc.line)
		assert.Equal(t, 1, v, "ParseHello(%q) version", tc.line)
		assert.Equal(t, tc.ops, ops, "ParseHello(%q) ops", tc.line)
	}
	malformed := []struct {
		line        string
		wantVersion int
		wantErr     string
	}{
		{"", 0, `does not start with "difffuzz-target "`},
		{"hello", 0, `hello "hello" does not start`},
		{"difffuzz-target", 0, "does not start"},
		{"Difffuzz-target 1 escape", 0, "does not start"},
		{"difffuzz-target x escape", 0, `version "x" is not a decimal integer`},
		{"difffuzz-target 2 escape decode utf8_decode", 2, "target speaks protocol version 2; this client speaks version 1"},
		{"difffuzz-target 0", 0, "version 0"},
		{"difffuzz-target 1 escape escape", 1, "operation escape announced twice"},
		{"difffuzz-target 1 frob", 1, `unknown operation "frob"`},
		{"difffuzz-target 1 ESCAPE", 1, `unknown operation "ESCAPE"`},
		{"difffuzz-target 1  escape", 1, `unknown operation ""`},
	}
	for _, tc := range malformed {
		v, _, err := ParseHello(tc.line)
		if assert.Error(t, err, "ParseHello(%q); want %q", tc.line, tc.wantErr) {
			assert.Contains(t, err.Error(), tc.wantErr, "ParseHello(%q) error", tc.line)
		}
		assert.Equal(t, tc.wantVersion, v, "ParseHello(%q) version", tc.line)
	}
}

// TestHexRoundTrip checks that every byte value survives a request and a response.
func TestHexRoundTrip(t *testing.T) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	r := Request{Op: OpUTF8Decode, Input: all}
	got, err := ParseRequest(r.String())
	require.NoError(t, err, "request round trip")
	require.Equal(t, all, got.Input, "request round trip")
	resp := Response{Op: OpEscape, Result: all, Err: 5}
	back, err := ParseResponse(OpEscape, resp.String())
	require.NoError(t, err, "response round trip")
	require.Equal(t, all, back.Result, "response round trip")
	require.Equal(t, 5, back.Err, "response round trip")
}

func TestParseHelloCaps(t *testing.T) {
	all := ^jsonopt.Options(0)
	valid := []struct {
		line string
		ops  []Op
		caps Capabilities
	}{
		// Old lines: no fields, every option, no limit.
		{"difffuzz-target 1 escape decode utf8_decode", Ops, Capabilities{Options: all}},
		{"difffuzz-target 1", nil, Capabilities{Options: all}},
		{"difffuzz-target 1 escape\r", []Op{OpEscape}, Capabilities{Options: all}},
		// Each field.
		{"difffuzz-target 1 escape options=7344095", []Op{OpEscape}, Capabilities{Options: 7344095, OptionsSet: true}},
		{"difffuzz-target 1 escape options=0", []Op{OpEscape}, Capabilities{Options: 0, OptionsSet: true}},
		{"difffuzz-target 1 escape options=4294967295", []Op{OpEscape}, Capabilities{Options: all, OptionsSet: true}},
		{"difffuzz-target 1 escape options=0032", []Op{OpEscape}, Capabilities{Options: 32, OptionsSet: true}},
		{"difffuzz-target 1 utf8_decode max-len=65536", []Op{OpUTF8Decode}, Capabilities{Options: all, MaxLen: 65536}},
		{"difffuzz-target 1 max-len=1", nil, Capabilities{Options: all, MaxLen: 1}},
		{"difffuzz-target 1 max-len=2147483647", nil, Capabilities{Options: all, MaxLen: 2147483647}},
		{"difffuzz-target 1 escape max-len=16 options=3\r", []Op{OpEscape}, Capabilities{Options: 3, OptionsSet: true, MaxLen: 16}},
		// Unknown keys are ignored, whatever their value, and kept as given.
		{"difffuzz-target 1 escape bench-ns=1 options=1 x=y=z 9lives=-",
			[]Op{OpEscape}, Capabilities{Options: 1, OptionsSet: true, Ignored: []string{"bench-ns=1", "x=y=z", "9lives=-"}}},
		{"difffuzz-target 1 future=1 future=2", nil, Capabilities{Options: all, Ignored: []string{"future=1", "future=2"}}},
		{"difffuzz-target 1 options-v2=zz", nil, Capabilities{Options: all, Ignored: []string{"options-v2=zz"}}},
	}
	for _, tc := range valid {
		v, ops, caps, err := ParseHelloCaps(tc.line)
		if !assert.NoError(t, err, "ParseHelloCaps(%q)", tc.line) {
			continue
		}
		assert.Equal(t, 1, v, "ParseHelloCaps(%q) version", tc.line)
		assert.Equal(t, tc.ops, ops, "ParseHelloCaps(%q) ops", tc.line)
		assert.Equal(t, tc.caps, caps, "ParseHelloCaps(%q) caps", tc.line)
		// ParseHello accepts the same lines with the same operations.
		v2, ops2, err := ParseHello(tc.line)
		assert.NoError(t, err, "ParseHello(%q)", tc.line)
		assert.Equal(t, v, v2, "ParseHello(%q) version", tc.line)
		assert.Equal(t, ops, ops2, "ParseHello(%q) ops", tc.line)
	}

	malformed := []struct {
		class       string
		line        string
		wantVersion int
		wantErr     string
	}{
		{"order", "difffuzz-target 1 options=1 escape", 1, `hello: operation "escape" after the key=value field "options=1" (operations come first)`},
		{"order", "difffuzz-target 1 escape x=1 max-len=4 decode", 1, `operation "decode" after the key=value field "x=1"`},
		{"order", "difffuzz-target 1 max-len=4 frob", 1, `operation "frob" after the key=value field "max-len=4"`},
		{"order", "difffuzz-target 1 max-len=4 ", 1, `operation "" after the key=value field "max-len=4"`},
		{"key", "difffuzz-target 1 escape =1", 1, `hello: field "=1" has an empty key`},
		{"key", "difffuzz-target 1 escape =", 1, `field "=" has an empty key`},
		{"key", "difffuzz-target 1 escape Options=1", 1, `hello: field "Options=1": key "Options" is not of the form [a-z0-9][a-z0-9-]*`},
		{"key", "difffuzz-target 1 -x=1", 1, `key "-x" is not of the form`},
		{"key", "difffuzz-target 1 max_len=1", 1, `key "max_len" is not of the form`},
		{"key", "difffuzz-target 1 a.b=1", 1, `key "a.b" is not of the form`},
		{"value", "difffuzz-target 1 escape options=", 1, `hello: field "options=" has an empty value`},
		{"value", "difffuzz-target 1 future=", 1, `field "future=" has an empty value`},
		{"options", "difffuzz-target 1 escape options=x", 1, `hello: options="x": MASK is not a decimal integer in [0, 4294967295]`},
		{"options", "difffuzz-target 1 options=-1", 1, `options="-1": MASK is not`},
		{"options", "difffuzz-target 1 options=+1", 1, `options="+1": MASK is not`},
		{"options", "difffuzz-target 1 options=0x20", 1, `options="0x20": MASK is not`},
		{"options", "difffuzz-target 1 options=4294967296", 1, `options="4294967296": MASK is not`},
		{"options", "difffuzz-target 1 options=1=2", 1, `options="1=2": MASK is not`},
		{"max-len", "difffuzz-target 1 max-len=0", 1, `hello: max-len="0": N is not a decimal integer in [1, 2147483647]`},
		{"max-len", "difffuzz-target 1 max-len=000", 1, `max-len="000": N is not`},
		{"max-len", "difffuzz-target 1 max-len=-5", 1, `max-len="-5": N is not`},
		{"max-len", "difffuzz-target 1 max-len=2147483648", 1, `max-len="2147483648": N is not`},
		{"max-len", "difffuzz-target 1 max-len=1k", 1, `max-len="1k": N is not`},
		{"repeated", "difffuzz-target 1 options=1 options=1", 1, "hello: options= announced twice"},
		{"repeated", "difffuzz-target 1 max-len=1 x=2 max-len=3", 1, "hello: max-len= announced twice"},
		// The errors of old lines are unchanged.
		{"ops", "difffuzz-target 1 escape escape options=1", 1, "hello: operation escape announced twice"},
		{"ops", "difffuzz-target 1 frob options=1", 1, `hello: unknown operation "frob"`},
		{"version", "difffuzz-target 2 escape options=x", 2, "target speaks protocol version 2; this client speaks version 1"},
		{"magic", "difffuzz-target options=1", 0, `version "options=1" is not a decimal integer`},
	}
	for _, tc := range malformed {
		v, ops, caps, err := ParseHelloCaps(tc.line)
		if !assert.Error(t, err, "%s: ParseHelloCaps(%q)", tc.class, tc.line) {
			continue
		}
		assert.Contains(t, err.Error(), tc.wantErr, "%s: ParseHelloCaps(%q)", tc.class, tc.line)
		assert.Equal(t, tc.wantVersion, v, "%s: ParseHelloCaps(%q) version", tc.class, tc.line)
		assert.Nil(t, ops, "%s: ParseHelloCaps(%q) ops", tc.class, tc.line)
		assert.Zero(t, caps, "%s: ParseHelloCaps(%q) caps", tc.class, tc.line)
		_, _, err2 := ParseHello(tc.line)
		assert.Equal(t, err, err2, "%s: ParseHello(%q) error", tc.class, tc.line)
	}
}

func TestHelloWith(t *testing.T) {
	tests := []struct {
		ops  []Op
		caps Capabilities
		want string
	}{
		{Ops, Capabilities{}, "difffuzz-target 1 escape decode utf8_decode"},
		{nil, Capabilities{}, "difffuzz-target 1"},
		{[]Op{OpEscape}, Capabilities{Options: 7344095, OptionsSet: true}, "difffuzz-target 1 escape options=7344095"},
		{[]Op{OpEscape}, Capabilities{Options: 0, OptionsSet: true}, "difffuzz-target 1 escape options=0"},
		{[]Op{OpEscape}, Capabilities{Options: 12, OptionsSet: false}, "difffuzz-target 1 escape"},
		{[]Op{OpUTF8Decode}, Capabilities{MaxLen: 65536}, "difffuzz-target 1 utf8_decode max-len=65536"},
		{[]Op{OpUTF8Decode}, Capabilities{MaxLen: -1}, "difffuzz-target 1 utf8_decode"},
		{Ops, Capabilities{Options: ^jsonopt.Options(0), OptionsSet: true, MaxLen: 2147483647}, "difffuzz-target 1 escape decode utf8_decode options=4294967295 max-len=2147483647"},
		{nil, Capabilities{Options: 3, OptionsSet: true, MaxLen: 1, Ignored: []string{"x=1"}}, "difffuzz-target 1 options=3 max-len=1"},
	}
	for _, tc := range tests {
		got := HelloWith(tc.ops, tc.caps)
		assert.Equal(t, tc.want, got, "HelloWith(%v, %+v)", tc.ops, tc.caps)
		// Round trip: what was written is what is parsed, except the parts not written.
		v, ops, caps, err := ParseHelloCaps(got)
		if !assert.NoError(t, err, "ParseHelloCaps(HelloWith(%v, %+v))", tc.ops, tc.caps) {
			continue
		}
		assert.Equal(t, Version, v)
		assert.Equal(t, tc.ops, ops)
		want := Capabilities{Options: ^jsonopt.Options(0), MaxLen: max(tc.caps.MaxLen, 0)}
		if tc.caps.OptionsSet {
			want.Options, want.OptionsSet = tc.caps.Options, true
		}
		assert.Equal(t, want, caps, "ParseHelloCaps(%q)", got)
	}
	assert.Equal(t, Hello(Ops), HelloWith(Ops, Capabilities{}), "a zero Capabilities must give the old hello")
}
