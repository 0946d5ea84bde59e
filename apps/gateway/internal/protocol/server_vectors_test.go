package protocol

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"testing"
)

// ServerFrameVector is one case of vectors/server-frames.json.
type ServerFrameVector struct {
	Name   string
	Type   string
	Input  *MessageInput
	JSON   string
	Fields json.RawMessage
	SSE    string
}

// MessageInput is the record a message vector encodes.
type MessageInput struct {
	Endpoint  string
	Epoch     string
	Partition int32
	Seq       int64
	TS        int64
	Format    string
	// Error is why a schema-registry record was not decoded (Value is then raw).
	Error    string
	Value    *string
	ValueHex string `json:"value_hex"`
}

// Message builds what the fan-out encodes for the record.
func (in *MessageInput) Message(t *testing.T) *Message {
	t.Helper()
	var value []byte
	if in.Value != nil {
		value = []byte(*in.Value)
	} else {
		var err error
		if value, err = hex.DecodeString(in.ValueHex); err != nil {
			t.Fatal(err)
		}
	}
	return &Message{Endpoint: in.Endpoint, Epoch: in.Epoch, Partition: in.Partition, Seq: in.Seq, TS: in.TS, Data: value, Encoding: EncodingFor(in.Format, value), Error: in.Error}
}

func loadServerFrames(t *testing.T) []ServerFrameVector {
	var v struct{ Frames []ServerFrameVector }
	loadVectors(t, "server-frames.json", &v)
	kinds := map[string]bool{}
	for _, f := range v.Frames {
		kinds[f.Type] = true
	}
	// Every server frame kind has vectors.
	for _, k := range []string{"authenticated", "subscribed", "unsubscribed", "message", "gap", "published", "error", "closing", "pong"} {
		if !kinds[k] {
			t.Fatalf("no %s vector", k)
		}
	}
	return v.Frames
}

// frameFor decodes a non-message vector's fields into the struct the gateway
// encodes it from.
func frameFor(t *testing.T, v ServerFrameVector) any {
	t.Helper()
	var frame any
	switch v.Type {
	case "authenticated":
		frame = &Authenticated{}
	case "subscribed":
		frame = &Subscribed{}
	case "unsubscribed":
		frame = &Unsubscribed{}
	case "gap":
		frame = &Gap{}
	case "published":
		frame = &Published{}
	case "error":
		frame = &ErrorFrame{}
	case "closing":
		frame = &Closing{}
	case "pong":
		frame = &Pong{}
	default:
		t.Fatalf("%s: unknown type %q", v.Name, v.Type)
	}
	dec := json.NewDecoder(bytes.NewReader(v.Fields))
	dec.DisallowUnknownFields() // a field the vector has and the struct lacks is a mismatch
	if err := dec.Decode(frame); err != nil {
		t.Fatalf("%s: %v", v.Name, err)
	}
	return frame
}

// The encoders write every vector byte for byte: field order, optional fields
// left out, escaping, payload encodings.
func TestServerFrameVectors(t *testing.T) {
	for _, v := range loadServerFrames(t) {
		var got []byte
		if v.Type == "message" {
			if v.Input == nil {
				t.Fatalf("%s: no input", v.Name)
			}
			got = AppendMessage(nil, v.Input.Message(t))
		} else {
			got = Encode(frameFor(t, v))
		}
		if string(got) != v.JSON {
			t.Errorf("%s:\n got %s\nwant %s", v.Name, got, v.JSON)
		}
	}
}
