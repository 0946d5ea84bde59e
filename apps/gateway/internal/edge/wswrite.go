package edge

import (
	"net"
	"syscall"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/rawio"
	"github.com/sluicehq/sluice/apps/gateway/internal/wsframe"
)

// This file is a WebSocket's writing side: queueing frames, writing them with
// one non-blocking writev(2) on the caller's goroutine when the socket takes
// them, else on a writer goroutine, keepalive pings and the closing handshake.

// Deliver and Gap are hub.Sink methods; they run with hub locks held (package
// lockorder says which, and what the write path takes under them).
// A routing worker's delivery (wb set) that takes the writer role hands the
// connection to the worker's batch of io_uring sends (ringwrite.go) when there
// is one.
func (c *wsConn) Deliver(f *hub.Frame, wb hub.WriteBatch) {
	rb, _ := wb.(*ringBatch)
	c.pushVia(item{frame: f}, rb)
}

func (c *wsConn) Gap(g protocol.Gap) { c.push(item{raw: wsNotice(g)}) }

func wsNotice(g protocol.Gap) []byte { return wsframe.Append(nil, wsframe.OpText, protocol.Encode(g)) }

// send queues a JSON frame as one WebSocket text frame.
func (c *wsConn) send(json []byte) { c.push(item{raw: wsframe.Append(nil, wsframe.OpText, json)}) }

func (c *wsConn) sendError(id string, err *protocol.Error) { c.sendErrorOn(id, "", err) }

// sendErrorOn answers a frame naming the endpoint path (canonical; "" when
// none) with err, counted in the usage of the app on that endpoint.
func (c *wsConn) sendErrorOn(id, path string, err *protocol.Error) {
	c.srv.opt.Metrics.FrameErrors.WithLabelValues(codeLabel(err.Code)).Inc()
	if c.out.metered.Load() {
		c.out.meter.countError(path)
	}
	c.send(protocol.Encode(protocol.ErrorFrame{Type: "error", ID: id, Code: err.Code, Message: err.Message}))
}

func (c *wsConn) push(it item) { c.pushVia(it, nil) }

// pushVia is push that, when the push takes the writer role, gives the queue
// to rb (a routing worker's batch of io_uring sends) if not nil: flushVia.
func (c *wsConn) pushVia(it item, rb *ringBatch) {
	r := c.out.push(it)
	c.srv.countDropped(r)
	if r.slow {
		// Not here: terminate takes wsConn.mu, which comes before the hub's
		// locks the caller may hold (package lockorder).
		go c.terminate(protocol.CloseSlowConsumer, "slow consumer: the queue of outgoing frames overflowed")
	} else if r.wake {
		c.flushVia(rb)
	}
}

// maxInlineBatch bounds what flush writes on the caller's goroutine.
const maxInlineBatch = 64

// flush is called by whoever took the writer role (a push that found no writer).
// It writes the queue at once if the socket takes it without waiting: at one
// message per client now and then, that is nearly always, and costs one write(2)
// on the dispatching goroutine instead of waking a writer goroutine. What the
// socket does not take at once goes to writeLoop, which may wait.
//
// It runs with hub locks held when called from Deliver: it must not block, and
// a non-blocking write does not.
func (c *wsConn) flush() { c.flushVia(nil) }

// flushVia is flush that gives the batch to rb, a routing worker's batch of
// io_uring sends, instead of writing it, when rb is not nil.
func (c *wsConn) flushVia(rb *ringBatch) {
	batch := c.out.take()
	switch {
	case batch == nil:
	case len(batch) > maxInlineBatch || c.tls:
		go c.writeLoop(batch, 0) // a burst, or TLS: not on the caller's goroutine
	case rb != nil:
		rb.add(c, batch)
	default:
		c.writeInline(batch)
	}
}

// writeInline writes batch with one non-blocking writev(2) on the caller's
// goroutine and, if the socket took all of it, whatever was queued meanwhile
// on a writer goroutine.
func (c *wsConn) writeInline(batch []item) {
	n, counted, complete, err := c.tryWrite(batch)
	if err != nil {
		c.writeFailed()
		return
	}
	if !complete {
		go c.writeLoop(batch, n)
		return
	}
	if final, grace := c.out.written(batch, counted, c.srv.opt.Metrics); final {
		c.closeAfter(grace)
	}
	if batch = c.out.take(); batch != nil {
		go c.writeLoop(batch, 0) // more queued meanwhile
	}
}

// tryWrite writes batch with one non-blocking write(2)/writev(2) and reports how
// many bytes the socket took, how many of the batch's bytes count as written
// (its message frames', see wsStream.writeBatch) and whether the socket took
// them all.
//
// It writes to the descriptor itself rather than through net.Conn (or its
// RawConn): their bookkeeping (descriptor locks, poller state) lives in objects
// of their own, and touching those for every message of every connection cost
// more than a microsecond a message in cache misses alone.
func (c *wsConn) tryWrite(batch []item) (n, counted int, complete bool, err error) {
	var iov [maxInlineBatch]syscall.Iovec
	total := 0
	for i := range batch {
		b := batch[i].wire()
		iov[i].Base = &b[0]
		iov[i].SetLen(len(b))
		total += len(b)
		if batch[i].frame != nil {
			counted += len(b)
		}
	}
	c.fdMu.Lock()
	if !c.fdOpen {
		c.fdMu.Unlock()
		return 0, 0, false, net.ErrClosed
	}
	n, werr := rawio.Writev(uintptr(c.fd), iov[:len(batch)])
	c.fdMu.Unlock()
	if werr == syscall.EAGAIN {
		return 0, 0, false, nil
	}
	if werr != 0 {
		return 0, 0, false, werr
	}
	return n, counted, n == total, nil
}

// writeLoop owns the writer role on a goroutine of its own: it drains the
// queue through net.Conn, waiting for the socket as needed, starting with batch
// of which the first skip bytes were already written.
func (c *wsConn) writeLoop(batch []item, skip int) {
	w := wsStream{c: c, skip: skip}
	final, grace, err := c.out.drain(batch, &w, c.srv.opt.Metrics)
	if err != nil {
		c.srv.countWriteTimeout(&c.out, err)
		c.writeFailed()
		return
	}
	if final {
		c.closeAfter(grace)
	}
}

// wsStream is writeLoop's batchWriter: frames as they are, through net.Conn
// (which waits for the socket), 10 s at most per batch.
type wsStream struct {
	c *wsConn
	// skip is how much of the next batch is already written (by tryWrite).
	skip int
	// bufs is reused from batch to batch.
	bufs net.Buffers
	// joined is a TLS connection's batch in one piece, reused from batch to
	// batch: written buffer by buffer, each frame would be a TLS record.
	joined []byte
}

// writeBatch counts a WebSocket's message frames as its written bytes
// (BytesOut), all of them even when tryWrite wrote some.
func (w *wsStream) writeBatch(batch []item) (counted int, err error) {
	bufs := w.bufs[:0]
	for i := range batch {
		b := batch[i].wire()
		if batch[i].frame != nil {
			counted += len(b)
		}
		if w.skip >= len(b) {
			w.skip -= len(b)
			continue
		}
		bufs = append(bufs, b[w.skip:])
		w.skip = 0
	}
	w.bufs = bufs
	_ = w.c.nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if w.c.tls {
		w.joined = w.joined[:0]
		for _, b := range bufs {
			w.joined = append(w.joined, b...)
		}
		_, err = w.c.nc.Write(w.joined)
	} else {
		_, err = bufs.WriteTo(w.c.nc) // advances bufs, not w.bufs
	}
	clear(w.bufs) // holds no frame until the next batch
	return counted, err
}

// closeAfter drops the connection grace after its last frame (a close frame)
// was written, giving the peer a moment to answer it (its answer closes at
// once, see onEvent).
func (c *wsConn) closeAfter(grace time.Duration) { time.AfterFunc(grace, c.close) }

// writeFailed ends a connection whose socket refused a write (reset, timeout).
func (c *wsConn) writeFailed() {
	c.out.close()
	go c.close() // not here: the caller may hold hub locks
}

var pingFrame = wsframe.Append(nil, wsframe.OpPing, nil)

// ping runs at every round of the ping loop (prevRound: the previous round's
// time, unix ns). A connection that has left a ping unanswered (no pong, no
// frame) for the idle timeout is dropped. One that had frames written since the
// previous round needs no ping: that traffic keeps proxies open, and a peer that
// stops acknowledging it is dropped by the kernel (TCP_USER_TIMEOUT, set to the
// idle timeout). At a message per client every few seconds, that spares a ping,
// a pong and three system calls per connection and round. Others get a ping.
func (c *wsConn) ping(now time.Time, prevRound int64) {
	n := now.UnixNano()
	if c.pingedAt != 0 && c.lastRead.Load() >= c.pingedAt {
		c.pingedAt = 0 // answered
	}
	if c.pingedAt != 0 && n-c.pingedAt >= int64(c.srv.opt.IdleTimeout) {
		go c.close()
		return
	}
	if userTimeoutSupported && c.out.lastWrite.Load() > prevRound {
		return
	}
	if c.pingedAt == 0 {
		c.pingedAt = n
	}
	c.push(item{raw: pingFrame, keepalive: true})
}

// terminate sends a closing notice and a close frame with code, then closes. It
// may be called from any goroutine, any number of times, and does not block.
func (c *wsConn) terminate(code protocol.Code, reason string) {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return
	}
	c.ended = true
	c.mu.Unlock()
	// The notice follows the frames already queued; the close frame follows it.
	wire := wsframe.Append(nil, wsframe.OpText, protocol.Encode(protocol.Closing{Type: "closing", Code: code, Reason: reason}))
	c.finish(append(wire, wsframe.CloseFrame(int(code), reason)...))
}

// finish queues wire (ending with a close frame) as the connection's last bytes;
// the connection closes a second after they are written. It reports false when a
// last frame was already queued.
func (c *wsConn) finish(wire []byte) bool {
	queued, wake := c.out.pushFinal(item{raw: wire, final: true, grace: time.Second})
	if wake {
		c.flush()
	}
	return queued
}
