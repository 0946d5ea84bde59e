package edge

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// The event stream writes the "sse" of every vector in
// packages/protocol/vectors/server-frames.json byte for byte: message events
// (with their id, and split data lines for records with line breaks), gap,
// unsubscribed and closing events, and the block that opens a stream.
func TestSSEWritesTheServerFrameVectors(t *testing.T) {
	b, err := os.ReadFile("../../../../packages/protocol/vectors/server-frames.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Frames []struct {
			Name, Type, SSE string
			Fields          json.RawMessage
			Input           struct {
				Endpoint, Epoch, Format, Error string
				Partition                      int32
				Seq, TS                        int64
				Value                          *string
				ValueHex                       string `json:"value_hex"`
			}
		}
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range v.Frames {
		if c.SSE == "" {
			continue
		}
		seen[c.Type] = true
		var got []byte
		switch c.Type {
		case "message":
			in := c.Input
			value, _ := hex.DecodeString(in.ValueHex)
			if in.Value != nil {
				value = []byte(*in.Value)
			}
			f := hub.NewFrame(&protocol.Message{Endpoint: in.Endpoint, Epoch: in.Epoch, Partition: in.Partition, Seq: in.Seq, TS: in.TS, Data: value, Encoding: protocol.EncodingFor(in.Format, value), Error: in.Error})
			got = appendEvent([]byte("before"), &item{frame: f})[len("before"):]
		case "subscribed":
			var s protocol.Subscribed
			mustUnmarshal(t, c.Fields, &s)
			got = appendSubscribed(nil, s.Endpoint, &hub.Subscription{Epoch: s.Epoch, Partition: s.Partition, Seq: s.Seq})
		case "gap":
			var g protocol.Gap
			mustUnmarshal(t, c.Fields, &g)
			got = sseEvent("gap", g)
		case "unsubscribed":
			var u protocol.Unsubscribed
			mustUnmarshal(t, c.Fields, &u)
			got = sseEvent("unsubscribed", u)
		case "closing":
			var cl protocol.Closing
			mustUnmarshal(t, c.Fields, &cl)
			got = sseEvent("closing", cl)
		default:
			t.Fatalf("%s: SSE has no %s event", c.Name, c.Type)
		}
		if string(got) != c.SSE {
			t.Errorf("%s:\n got %q\nwant %q", c.Name, got, c.SSE)
		}
	}
	for _, k := range []string{"message", "subscribed", "gap", "unsubscribed", "closing"} {
		if !seen[k] {
			t.Errorf("no SSE vector for %s", k)
		}
	}
}

func mustUnmarshal(t *testing.T, b []byte, into any) {
	t.Helper()
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatal(err)
	}
}
