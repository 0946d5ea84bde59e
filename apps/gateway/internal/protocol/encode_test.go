package protocol

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestAppendMessageIsValidJSONForEveryEncoding(t *testing.T) {
	cases := []struct {
		format string
		value  string
		want   any
	}{
		{"json", `{"price":411.2}`, map[string]any{"price": 411.2}},
		{"json", `not json`, "bm90IGpzb24="}, // falls back to base64
		// JSON whose string is not UTF-8 cannot go in a text frame as is.
		{"json", "{\"a\":\"\xff\"}", "eyJhIjoi/yJ9"},
		{"text", "line\n\"quoted\" \u2028", "line\n\"quoted\" \u2028"},
		{"text", "\xff\xfe", "//4="},
		{"bytes", "\x00\x01\x02", "AAEC"},
	}
	for _, c := range cases {
		m := &Message{Endpoint: "/a/b", Epoch: "e1", Partition: 2, Seq: 42, TS: 1795000000123, Data: []byte(c.value), Encoding: EncodingFor(c.format, []byte(c.value))}
		out := AppendMessage(nil, m)
		var got map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s %q: invalid JSON %s: %v", c.format, c.value, out, err)
		}
		if got["type"] != "message" || got["endpoint"] != "/a/b" || got["seq"] != float64(42) || got["partition"] != float64(2) || got["ts"] != float64(1795000000123) {
			t.Errorf("%s: fields wrong: %s", c.format, out)
		}
		gotData, _ := json.Marshal(got["data"])
		wantData, _ := json.Marshal(c.want)
		if string(gotData) != string(wantData) {
			t.Errorf("%s %q: data %s, want %s", c.format, c.value, gotData, wantData)
		}
		_, isB64 := got["encoding"]
		if isB64 != (m.Encoding == DataBase64) {
			t.Errorf("%s %q: encoding field present=%v, want %v", c.format, c.value, isB64, m.Encoding == DataBase64)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "quote\"back\\slash", "\x00\x1f", "\u2028\u2029", "\xff", "café"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString(nil, s)
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("%q -> invalid JSON %s: %v", s, out, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("%q round-tripped to %q", s, back)
		}
	})
}

func FuzzDecodeClientFrame(f *testing.F) {
	seeds := []string{
		`{"type":"subscribe","id":"2","endpoint":"/prices/AAPL","from":{"epoch":"e","partition":1,"seq":3}}`,
		`{"type":"publish","endpoint":"/a/b","data":"AAEC","encoding":"base64"}`,
		`{"type":"auth","token":"x"}`, `{"type":"ping"}`, `[]`, `{"type":1}`, `{"from":{}}`, "",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		frame, err := DecodeClientFrame(b)
		if err != nil {
			if err.Code != CodeBadFrame && err.Code != CodeFrameTooLarge {
				t.Fatalf("unexpected code %d", err.Code)
			}
			if err.Message == "" {
				t.Fatal("error without a message")
			}
			return
		}
		if len(frame.ID) > MaxIDLength {
			t.Fatalf("accepted id of %d bytes", len(frame.ID))
		}
		switch frame.Type {
		case FrameSubscribe, FrameUnsubscribe, FramePublish:
			if _, perr := ParsePath(frame.Endpoint.String()); perr != nil {
				t.Fatalf("accepted endpoint whose canonical form does not parse: %v", perr)
			}
		}
	})
}

func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"/a/b", "/vehicles/1/speed", "/t/caf%C3%A9", "/t/%2F", "/t/%zz", "//", "/a/b/", "/t/%2A"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		p, err := ParsePath(raw)
		if err != nil {
			return
		}
		canonical := p.String()
		again, err := ParsePath(canonical)
		if err != nil {
			t.Fatalf("canonical %q of %q does not parse: %v", canonical, raw, err)
		}
		if again != p || again.String() != canonical {
			t.Fatalf("%q: canonical %q parses to %+v, want %+v", raw, canonical, again, p)
		}
	})
}
