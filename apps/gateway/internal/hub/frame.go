package hub

import (
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// Frame is one record as delivered to subscribers of one endpoint. It is built once
// per record and shared, read-only, by the endpoint's cache and every subscriber's
// queue. It keeps only the encoded frame, not the record: a record's bytes live in
// the Kafka client's fetch buffer, and holding them would pin whole fetches in
// memory for as long as the frame is cached.
type Frame struct {
	Endpoint  string
	Epoch     string
	Partition int32
	Seq       int64
	TS        int64 // record timestamp, ms
	ws        []byte
}

// newFrame encodes the record's "message" frame.
func newFrame(m *protocol.Message) *Frame {
	return &Frame{
		Endpoint:  m.Endpoint,
		Epoch:     m.Epoch,
		Partition: m.Partition,
		Seq:       m.Seq,
		TS:        m.TS,
		ws:        protocol.AppendMessage(make([]byte, 0, 112+len(m.Endpoint)+len(m.Epoch)+len(m.Data)*4/3), m),
	}
}

// WS is the WebSocket "message" frame.
func (f *Frame) WS() []byte { return f.ws }

// wsPrefix is what the WebSocket frame has and the SSE data line has not.
const wsPrefix = `{"type":"message",`

// AppendSSE appends the data of a Server-Sent Event: the same object without
// "type", cut from the WebSocket frame rather than encoded again.
func (f *Frame) AppendSSE(dst []byte) []byte {
	dst = append(dst, '{')
	return append(dst, f.ws[len(wsPrefix):]...)
}

// Sink receives a subscription's output. Calls come with locks held: a sink only
// enqueues, it never blocks or calls back into the hub.
type Sink interface {
	// Deliver queues a message frame.
	Deliver(f *Frame)
	// Gap queues a gap notice.
	Gap(g protocol.Gap)
	// Ended tells the sink the hub ended the subscription (e.g. endpoint removed).
	Ended(s *Subscription, code protocol.Code, reason string)
}
