package protocol

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

const vectorsDir = "../../../../packages/protocol/vectors/"

func loadVectors(t *testing.T, name string, into any) {
	t.Helper()
	b, err := os.ReadFile(vectorsDir + name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func TestPathVectors(t *testing.T) {
	var v struct {
		Cases []struct {
			Path, Topic, Key, Canonical string
			Error                       Code
		}
	}
	loadVectors(t, "paths.json", &v)
	if len(v.Cases) < 20 {
		t.Fatalf("only %d path vectors", len(v.Cases))
	}
	for _, c := range v.Cases {
		p, err := ParsePath(c.Path)
		if c.Error != 0 {
			if err == nil || err.Code != c.Error {
				t.Errorf("%q: got %v, %v; want error %d", c.Path, p, err, c.Error)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: unexpected error %v", c.Path, err)
			continue
		}
		if p.Topic != c.Topic || p.Key != c.Key || p.String() != c.Canonical {
			t.Errorf("%q: got topic %q key %q canonical %q; want %q %q %q", c.Path, p.Topic, p.Key, p.String(), c.Topic, c.Key, c.Canonical)
		}
	}
}

func TestFrameVectors(t *testing.T) {
	var v struct {
		Valid []struct {
			Frame, Type, ID, Token, Endpoint string
			From                             json.RawMessage
			Data                             *string
			DataIsString                     bool   `json:"data_is_string"`
			DataBase64                       string `json:"data_base64"`
		}
		Invalid []struct {
			Frame           string
			Code            Code
			ID              string
			MessageContains string `json:"message_contains"`
		}
	}
	loadVectors(t, "frames.json", &v)
	for _, c := range v.Valid {
		f, err := DecodeClientFrame([]byte(c.Frame))
		if err != nil {
			t.Errorf("%s: unexpected error %v", c.Frame, err)
			continue
		}
		if string(f.Type) != c.Type || f.ID != c.ID || f.Token != c.Token {
			t.Errorf("%s: got type %q id %q token %q", c.Frame, f.Type, f.ID, f.Token)
		}
		if c.Endpoint != "" && f.Endpoint.String() != c.Endpoint {
			t.Errorf("%s: endpoint %q, want %q", c.Frame, f.Endpoint.String(), c.Endpoint)
		}
		if c.From != nil {
			checkFrom(t, c.Frame, c.From, f.From)
		}
		if c.Data != nil && (string(f.Data) != *c.Data || f.DataIsString != c.DataIsString) {
			t.Errorf("%s: data %q (string %v), want %q (string %v)", c.Frame, f.Data, f.DataIsString, *c.Data, c.DataIsString)
		}
		if c.DataBase64 != "" {
			want, _ := base64.StdEncoding.DecodeString(c.DataBase64)
			if !f.Base64 || string(f.Data) != string(want) {
				t.Errorf("%s: data %x base64 %v, want %x", c.Frame, f.Data, f.Base64, want)
			}
		}
	}
	for _, c := range v.Invalid {
		f, err := DecodeClientFrame([]byte(c.Frame))
		if err == nil {
			t.Errorf("%s: decoded, want error %d", c.Frame, c.Code)
			continue
		}
		if err.Code != c.Code || f.ID != c.ID || !strings.Contains(err.Message, c.MessageContains) {
			t.Errorf("%s: got code %d id %q message %q; want %d %q containing %q", c.Frame, err.Code, f.ID, err.Message, c.Code, c.ID, c.MessageContains)
		}
	}
}

func checkFrom(t *testing.T, frame string, want json.RawMessage, got From) {
	t.Helper()
	var s string
	if json.Unmarshal(want, &s) == nil {
		kind := map[string]FromKind{"latest": FromLatest, "earliest": FromEarliest}[s]
		if got.Kind != kind {
			t.Errorf("%s: from kind %d, want %s", frame, got.Kind, s)
		}
		return
	}
	var w struct {
		Time      *int64
		Epoch     string
		Partition int32
		Seq       int64
	}
	_ = json.Unmarshal(want, &w)
	if w.Time != nil {
		if got.Kind != FromTime || got.Time != *w.Time {
			t.Errorf("%s: from %+v, want time %d", frame, got, *w.Time)
		}
		return
	}
	if got.Kind != FromPosition || got.Epoch != w.Epoch || got.Partition != w.Partition || got.Seq != w.Seq {
		t.Errorf("%s: from %+v, want position %+v", frame, got, w)
	}
}
