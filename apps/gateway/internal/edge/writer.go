package edge

import (
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/metrics"
)

// The writing that WebSockets and SSE streams share. A session's frames go
// through its outQueue. A push onto a queue with no writer at work hands the
// pusher the writer role (pushResult.wake); the writer takes the queue batch by
// batch, writes each batch, accounts for it (written) and takes the next, until
// the queue is empty, which releases the role (drain). So one goroutine at a
// time writes a session's socket, and a burst costs one write per batch, not
// per message.
//
// What differs stays with each transport: framing (WebSocket frames, shared by
// every subscriber, against Server-Sent Events built per stream: batchWriter),
// where writing happens (a WebSocket first tries one non-blocking writev(2) on
// the pushing goroutine, wsConn.flush, and hands a socket that does not take it
// all to a goroutine; an SSE stream's handler goroutine does every write),
// keepalives (WebSocket pings, SSE comments) and how a session ends.

// batchWriter is a transport's part of writing: it frames a batch of queued
// items and writes all of it, waiting for the socket as needed (each transport
// bounds the wait with a write deadline), and returns the bytes to count as
// written. It is called once per batch, never per message.
type batchWriter interface {
	writeBatch(batch []item) (bytes int, err error)
}

// drain owns the writer role: it writes batch and every batch queued after it
// with w until the queue is empty, which releases the role. It reports whether
// the last batch held the session's last bytes (pushFinal, with their grace).
// On a write error it returns at once, keeping the role: the caller ends the
// session, which closes the queue.
func (q *outQueue) drain(batch []item, w batchWriter, m *metrics.Metrics) (final bool, grace time.Duration, err error) {
	for batch != nil {
		n, err := w.writeBatch(batch)
		if err != nil {
			return false, 0, err
		}
		final, grace = q.written(batch, n, m)
		batch = q.take()
	}
	return final, grace, nil
}

// written accounts for a batch its transport wrote (bytes: what it counts as
// written), notes when traffic other than keepalives was last written, and
// gives the batch back to the queue. It reports whether the batch held the
// session's last bytes, and their grace: the transport then closes.
func (q *outQueue) written(batch []item, bytes int, m *metrics.Metrics) (final bool, grace time.Duration) {
	messages, stripe := 0, 0
	traffic := false
	now := time.Now()
	nowMs := now.UnixMilli()
	for i := range batch {
		it := &batch[i]
		traffic = traffic || !it.keepalive
		if f := it.frame; f != nil {
			if messages == 0 {
				stripe = f.Stripe()
			}
			messages++
			m.Deliveries.Delayed(stripe, nowMs-f.TS)
		}
		if it.final {
			final, grace = true, it.grace
		}
	}
	if messages > 0 || bytes > 0 {
		m.Deliveries.Written(stripe, messages, bytes)
	}
	if traffic {
		q.lastWrite.Store(now.UnixNano())
	}
	if messages > 0 && q.metered.Load() {
		q.meter.count(batch)
	}
	q.recycle(batch)
	return final, grace
}
