package hub

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/wsframe"
)

// The frame the fan-out shares writes every message vector of
// packages/protocol/vectors/server-frames.json byte for byte, behind a
// WebSocket text frame header, and its SSE data is the same object without
// "type".
func TestFrameWritesTheMessageVectors(t *testing.T) {
	b, err := os.ReadFile("../../../../packages/protocol/vectors/server-frames.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Frames []struct {
			Name, Type, JSON string
			Input            struct {
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
	n := 0
	for _, c := range v.Frames {
		if c.Type != "message" {
			continue
		}
		n++
		in := c.Input
		value, _ := hex.DecodeString(in.ValueHex)
		if in.Value != nil {
			value = []byte(*in.Value)
		}
		f := newFrame(&protocol.Message{Endpoint: in.Endpoint, Epoch: in.Epoch, Partition: in.Partition, Seq: in.Seq, TS: in.TS, Data: value, Encoding: protocol.EncodingFor(in.Format, value), Error: in.Error})
		if string(f.JSON()) != c.JSON {
			t.Errorf("%s:\n got %s\nwant %s", c.Name, f.JSON(), c.JSON)
		}
		if want := wsframe.Append(nil, wsframe.OpText, []byte(c.JSON)); string(f.Wire()) != string(want) {
			t.Errorf("%s: WebSocket frame differs from a text frame of the vector", c.Name)
		}
		if want := "{" + strings.TrimPrefix(c.JSON, `{"type":"message",`); string(f.AppendSSE(nil)) != want {
			t.Errorf("%s: SSE data %s, want %s", c.Name, f.AppendSSE(nil), want)
		}
		if f.Endpoint != in.Endpoint || f.Epoch != in.Epoch || f.Partition != in.Partition || f.Seq != in.Seq || f.TS != in.TS {
			t.Errorf("%s: frame fields %+v", c.Name, f)
		}
	}
	if n < 5 {
		t.Fatalf("only %d message vectors", n)
	}
}
