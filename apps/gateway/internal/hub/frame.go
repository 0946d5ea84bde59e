package hub

import (
	"encoding/base64"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/wsframe"
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
	// undecoded marks the record of a schema-registry endpoint sent as base64
	// with its error: it is not cached for resumes.
	undecoded bool
	// stripe is the routing worker that built the frame: writers count its
	// delivery on that worker's stripe of the metrics (Stripe).
	stripe uint8
	Seq    int64
	TS     int64 // record timestamp, ms
	// wire is the whole WebSocket frame: header, then the JSON from body on.
	wire []byte
	body int
}

// newFrame encodes the record's "message" frame, with its WebSocket header in
// front so every subscriber's socket gets the same bytes with one write.
func newFrame(m *protocol.Message) *Frame {
	buf := make([]byte, wsframe.MaxHeader, wsframe.MaxHeader+frameOverhead+len(m.Endpoint)+len(m.Epoch)+dataLen(m)+errorLen(m))
	buf = protocol.AppendMessage(buf, m)
	start := wsframe.PutHeader(buf[:wsframe.MaxHeader], wsframe.OpText, len(buf)-wsframe.MaxHeader)
	return &Frame{
		Endpoint:  m.Endpoint,
		Epoch:     m.Epoch,
		Partition: m.Partition,
		Seq:       m.Seq,
		TS:        m.TS,
		wire:      buf[start:],
		body:      wsframe.MaxHeader - start,
		undecoded: m.Error != "",
	}
}

// NewFrame encodes a message frame outside the fan-out, for tests of the
// writers that send it.
func NewFrame(m *protocol.Message) *Frame { return newFrame(m) }

// frameOverhead is what a "message" frame adds to its endpoint, epoch and data:
// names, punctuation and three numbers.
const frameOverhead = 112

// errorLen is room for a message's error, when it has one.
func errorLen(m *protocol.Message) int {
	if m.Error == "" {
		return 0
	}
	return len(m.Error) + len(m.Error)/8 + 12
}

// dataLen is room for the payload as the frame writes it. Frames stay in the
// endpoint caches: a size close to the truth keeps them small.
func dataLen(m *protocol.Message) int {
	switch m.Encoding {
	case protocol.DataJSON:
		return len(m.Data)
	case protocol.DataText:
		return len(m.Data) + len(m.Data)/8 + 2 // a few escapes
	default:
		return base64.StdEncoding.EncodedLen(len(m.Data)) + 24
	}
}

// Wire is the "message" frame as a WebSocket text frame.
func (f *Frame) Wire() []byte { return f.wire }

// Stripe says which stripe of striped counters (metrics.Deliveries) its
// deliveries go to: the routing worker that built it, so that each core mostly
// counts on cache lines of its own.
func (f *Frame) Stripe() int { return int(f.stripe) }

// JSON is the "message" frame's JSON.
func (f *Frame) JSON() []byte { return f.wire[f.body:] }

// wsPrefix is what the WebSocket frame has and the SSE data line has not.
const wsPrefix = `{"type":"message",`

// AppendSSE appends the data of a Server-Sent Event: the same object without
// "type", cut from the WebSocket frame rather than encoded again.
func (f *Frame) AppendSSE(dst []byte) []byte {
	dst = append(dst, '{')
	return append(dst, f.JSON()[len(wsPrefix):]...)
}

// WriteBatch gathers the socket writes that one routing worker's deliveries
// start, so that a transport can hand them to the kernel together (the edge
// submits up to 64 WebSocket sends with one io_uring call). Each worker owns
// one (Config.NewWriteBatch) and flushes it when a job's records are routed, so
// a frame waits at most for the rest of its job's routing. Deliveries off the
// workers (catch-up reads, frames held while a subscription caught up) get nil
// and are written as before.
type WriteBatch interface {
	// Flush submits what was gathered, with no hub lock held.
	Flush()
	// Close releases the batch once its worker stops.
	Close()
}

// Sink receives a subscription's output. Deliver and Gap come with hub locks
// held (which ones, and what a sink may take under them: package lockorder): a
// sink queues the frame, and may write it to a socket that takes the bytes
// without waiting; it never blocks or calls back into the hub. Ended comes
// with no hub lock held.
type Sink interface {
	// Deliver queues a message frame. wb is the routing worker's batch of
	// writes when the frame comes from one, else nil.
	Deliver(f *Frame, wb WriteBatch)
	// Gap queues a gap notice.
	Gap(g protocol.Gap)
	// Ended tells the sink the hub ended the subscription (e.g. endpoint removed).
	Ended(s *Subscription, code protocol.Code, reason string)
}
