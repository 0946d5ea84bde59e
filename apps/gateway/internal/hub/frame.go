package hub

import (
	"sync"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// Frame is one record as delivered to subscribers of one endpoint. It is built once
// per record and shared, read-only, by the endpoint's cache and every subscriber's
// queue; each transport encoding is produced at most once, on first use.
type Frame struct {
	Msg protocol.Message

	wsOnce  sync.Once
	ws      []byte
	sseOnce sync.Once
	sse     []byte
	// prepared holds a transport's pre-framed form (a WebSocket PreparedMessage).
	prepOnce sync.Once
	prepared any
}

// WS is the WebSocket "message" frame.
func (f *Frame) WS() []byte {
	f.wsOnce.Do(func() { f.ws = protocol.AppendMessage(make([]byte, 0, 128+len(f.Msg.Data)), &f.Msg) })
	return f.ws
}

// SSE is the data line of a Server-Sent Event.
func (f *Frame) SSE() []byte {
	f.sseOnce.Do(func() { f.sse = protocol.AppendMessageBody(make([]byte, 0, 112+len(f.Msg.Data)), &f.Msg) })
	return f.sse
}

// Prepared returns the value build made from this frame the first time it was asked.
// All callers must pass the same build.
func (f *Frame) Prepared(build func(*Frame) any) any {
	f.prepOnce.Do(func() { f.prepared = build(f) })
	return f.prepared
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
