package protocol

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// jsonOracle is what ValidJSON must answer: JSON as encoding/json sees it, and
// UTF-8 throughout.
func jsonOracle(b []byte) bool { return json.Valid(b) && utf8.Valid(b) }

var jsonCases = []string{
	`0`, `-0`, `1`, `-1.5e+10`, `2E-3`, `0.0`, `123456789012345678901234567890`,
	`01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `0x10`, `NaN`, `Infinity`, `1.5.5`,
	`true`, `false`, `null`, `tru`, `nul`, `True`, `nullx`,
	`""`, `"a"`, `"\"\\\/\b\f\n\r\t"`, `"\u00e9\uD83D\uDE00"`, `"\ud800"`, `"\u12"`, `"\x"`, `"a`, "\"tab\there\"",
	"\"caf\xc3\xa9\"", "\"\xff\"", "\"\xc3\"", "\"\xed\xa0\x80\"", "\"\xf0\x9f\x98\x80\"",
	`{}`, `[]`, ` { } `, "\t[\n]\r", `{"a":1}`, `{"a":1,"b":[true,{"c":null}]}`, `[1,2,3]`,
	`{`, `}`, `[`, `]`, `{]`, `[}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[,1]`, `{,}`, `{1:2}`,
	`{"a" : 1 , "b" : 2}`, `[1 2]`, `{"a":1 "b":2}`, `1 2`, `[] []`, ``, ` `, `"a" "b"`,
	`[[[[[]]]]]`, `[[[[[]]]]`, `{"a":{"b":{"c":{}}}}`, `{"a":{"b":{"c":{}}}`,
}

func TestValidJSONAgreesWithEncodingJSONAndUTF8(t *testing.T) {
	for _, c := range jsonCases {
		if got, want := ValidJSON([]byte(c)), jsonOracle([]byte(c)); got != want {
			t.Errorf("ValidJSON(%q) = %v, want %v", c, got, want)
		}
	}
	if ValidJSON([]byte("{\"a\":\"\xff\"}")) {
		t.Error("a string with invalid UTF-8 passed: it cannot go in a text frame")
	}
}

func TestValidJSONDepth(t *testing.T) {
	for _, depth := range []int{64, 65, 128, maxJSONDepth, maxJSONDepth + 1, 100000} {
		for _, open := range []string{"[", `{"k":`} {
			close := "]"
			if open != "[" {
				close = "}"
			}
			b := []byte(strings.Repeat(open, depth) + "0" + strings.Repeat(close, depth))
			if got, want := ValidJSON(b), jsonOracle(b); got != want {
				t.Errorf("depth %d of %s: ValidJSON %v, encoding/json %v", depth, open, got, want)
			}
		}
	}
}

func FuzzValidJSON(f *testing.F) {
	for _, c := range jsonCases {
		f.Add([]byte(c))
	}
	f.Add([]byte(benchPayload))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := ValidJSON(b), jsonOracle(b); got != want {
			t.Fatalf("ValidJSON(%q) = %v, want %v", b, got, want)
		}
	})
}

// benchPayload is the fan-out benchmark's record (bench/fanout): a few numbers
// and a long string.
var benchPayload = fmt.Sprintf(`{"k":%d,"n":%d,"t":%d,"p":"%s"}`, 1234, 5678, 1795000000123456789, strings.Repeat("x", 432))

func BenchmarkValidJSON(b *testing.B) {
	payloads := map[string][]byte{
		"bench": []byte(benchPayload),
		"quote": []byte(`{"symbol":"AAPL","price":411.23,"bid":411.2,"ask":411.25,"volume":123456,"ts":1795000000123,"exchange":"NASDAQ","flags":["a","b"],"meta":{"src":"feed-1","seq":42,"ok":true,"note":null,"txt":"caf\u00e9 \"q\""}}`),
	}
	for name, p := range payloads {
		b.Run("ValidJSON/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				if !ValidJSON(p) {
					b.Fatal("invalid")
				}
			}
		})
		b.Run("encoding-json+utf8/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				if !jsonOracle(p) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
