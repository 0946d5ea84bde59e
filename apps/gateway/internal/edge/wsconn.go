package edge

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"

	"github.com/sluicehq/sluice/apps/gateway/internal/auth"
	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/rawio"
	"github.com/sluicehq/sluice/apps/gateway/internal/wsframe"
)

// Subprotocol is the WebSocket subprotocol of PROTOCOL.md version 1.
const Subprotocol = "sluice.v1"

// maxPublishesInFlight bounds concurrent publishes per connection; beyond it
// reading the connection waits, which pushes back on the client through TCP.
const maxPublishesInFlight = 64

// upgrader does the handshake only: the connection it returns is dropped (see
// serveWS). Zero buffer sizes make it reuse net/http's buffers instead of
// allocating its own.
var upgrader = websocket.Upgrader{
	Subprotocols: []string{Subprotocol},
	// Tokens travel in frames or the Authorization header, never in cookies, so a
	// page from another origin gains nothing by connecting: allow any origin (the
	// portal's live console runs on another origin).
	CheckOrigin: func(*http.Request) bool { return true },
}

// wsConn is one WebSocket client. No goroutine belongs to it at rest: the
// node's poller starts one when the client sent something (onReadable), and
// frames are written by whoever queued them while the socket takes them without
// waiting, else by a writer goroutine (flush, writeLoop).
type wsConn struct {
	srv *Edge
	nc  net.Conn
	rc  syscall.RawConn
	out outQueue

	// fd is nc's descriptor, written to directly (tryWrite). fdOpen, under fdMu,
	// says it is still nc's: close clears it before closing nc, so a write never
	// reaches a descriptor number the kernel has given to another connection.
	fd     int
	fdMu   sync.Mutex
	fdOpen bool

	// Read side: only the goroutine running onReadable touches rd (the poller
	// reports a socket again only after that goroutine re-armed it).
	rd wsframe.Reader
	// pollID names the connection to the poller; set at creation, never reused.
	pollID   uint64
	lastRead atomic.Int64 // unix ns; idle connections are found by the ping loop

	// lastWrite (unix ns) is when frames other than pings were last written;
	// pingedAt, only touched by the ping loop, is when the oldest unanswered
	// ping went out (0: none).
	lastWrite atomic.Int64
	pingedAt  int64

	// mu guards the fields below; never held while writing to the socket.
	mu       sync.Mutex
	tok      *auth.Claims // shared with the token's other connections: read only
	subs     subSet
	authTime *time.Timer
	ended    bool

	publishes chan struct{} // semaphore for publishes in flight, made by the first
	closeOnce sync.Once
	done      chan struct{}
}

// nextPollID numbers the node's WebSocket connections for the poller.
var nextPollID atomic.Uint64

func (s *Edge) serveWS(w http.ResponseWriter, r *http.Request) {
	if !websocket.IsWebSocketUpgrade(r) {
		writeProblem(w, protocol.Errorf(protocol.CodeBadFrame, "GET /ws needs a WebSocket upgrade"))
		return
	}
	if !offersSubprotocol(r) {
		writeProblem(w, protocol.Errorf(protocol.CodeBadFrame, "the WebSocket subprotocol must be %q (Sec-WebSocket-Protocol)", Subprotocol))
		return
	}
	var claims *auth.Claims
	if token, ok := bearer(r); ok {
		c, err := s.opt.Verifier.Verify(token)
		if err != nil {
			writeProblem(w, err)
			return
		}
		claims = c
	}
	s.mu.Lock()
	draining := s.draining
	s.mu.Unlock()
	if draining {
		writeProblem(w, protocol.Errorf(protocol.CodeUnavailable, "node shutting down; connect to another"))
		return
	}
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader already answered
	}
	// From here on the socket is ours: gorilla's connection (and its buffers)
	// is dropped, frames are read and written with internal/wsframe.
	nc := ws.NetConn()
	sc, ok := nc.(syscall.Conn)
	if !ok {
		_ = nc.Close()
		return
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		_ = nc.Close()
		return
	}
	c := &wsConn{
		srv:  s,
		nc:   nc,
		rc:   rc,
		out:  outQueue{capacity: s.opt.QueueSize, policy: s.opt.SlowPolicy, notice: wsNotice},
		rd:   wsframe.Reader{Limit: protocol.MaxFrameBytes},
		done: make(chan struct{}),
		// Before the connection is tracked: a close may come before watch.
		pollID: nextPollID.Add(1),
	}
	if err := rc.Control(func(fd uintptr) { c.fd = int(fd) }); err != nil {
		_ = nc.Close()
		return
	}
	c.fdOpen = true
	if err := setUserTimeout(c.fd, s.opt.IdleTimeout); err != nil {
		s.log.Warn("cannot set TCP_USER_TIMEOUT", "err", err)
	}
	c.lastRead.Store(time.Now().UnixNano())
	s.opt.Metrics.Connections.WithLabelValues("ws").Inc()
	s.track(c, nil)
	if claims != nil {
		c.authenticated(claims, "", nil)
	} else {
		c.mu.Lock()
		c.authTime = time.AfterFunc(s.opt.AuthTimeout, func() {
			if c.claims() == nil {
				c.terminate(protocol.CodeUnauthenticated, "not authenticated in time")
			}
		})
		c.mu.Unlock()
	}
	if err := s.poller.watch(c); err != nil {
		s.log.Error("cannot watch a WebSocket", "err", err)
		c.close()
	}
	// The handler returns: net/http would keep a 4 KiB reader, a 4 KiB writer
	// and the request alive for as long as it runs.
}

func offersSubprotocol(r *http.Request) bool {
	for _, p := range websocket.Subprotocols(r) {
		if p == Subprotocol {
			return true
		}
	}
	return false
}

func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:]), true
	}
	return "", false
}

func (c *wsConn) claims() *auth.Claims {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tok
}

// readBufs are the buffers onReadable reads into; only a partly received frame
// stays with its connection (in rd).
var readBufs = sync.Pool{New: func() any { b := make([]byte, 4096); return &b }}

// onReadable reads what the client sent, handles every whole frame in order,
// then asks the poller to report the socket again. Handling may block (a
// subscribe waits for Kafka's metadata, a publish for a free slot): only this
// connection waits meanwhile, and TCP pushes back on its client.
func (c *wsConn) onReadable() {
	bp := readBufs.Get().(*[]byte)
	defer readBufs.Put(bp)
	buf := *bp
	for {
		var n int
		var rerr syscall.Errno
		err := c.rc.Read(func(fd uintptr) bool {
			n, rerr = rawio.Read(fd, buf)
			return true
		})
		if err != nil || (rerr != 0 && rerr != syscall.EAGAIN) || (rerr == 0 && n == 0) {
			c.close() // closed here, reset or end of stream
			return
		}
		if rerr == syscall.EAGAIN {
			break
		}
		c.lastRead.Store(time.Now().UnixNano())
		if err := c.rd.Feed(buf[:n], c.onEvent); err != nil {
			var pe *wsframe.ProtocolError
			if errors.As(err, &pe) {
				c.srv.opt.Metrics.FrameErrors.WithLabelValues(codeLabel(protocol.CodeBadFrame)).Inc()
				c.finish(wsframe.CloseFrame(wsframe.CloseProtocolError, pe.Reason))
			}
			return // the connection is ending: not re-armed
		}
		if n < len(buf) {
			break // drained; if more arrived meanwhile, the poller reports it again
		}
	}
	if err := c.srv.poller.rearm(c); err != nil {
		c.close()
	}
}

// onEvent handles one client frame; false stops reading (the connection ends).
func (c *wsConn) onEvent(ev wsframe.Event) bool {
	switch ev.Kind {
	case wsframe.Message:
		if ev.Op != wsframe.OpText {
			c.sendError("", protocol.Errorf(protocol.CodeBadFrame, "frame: must be a text frame holding JSON"))
			return true
		}
		if !utf8.Valid(ev.Data) {
			// RFC 6455 text is UTF-8; JSON decoding would silently replace the
			// bad bytes, altering a text payload on its way to Kafka.
			c.sendError("", protocol.Errorf(protocol.CodeBadFrame, "frame: a text frame must be valid UTF-8"))
			return true
		}
		c.handle(ev.Data)
	case wsframe.TooLarge:
		c.sendError("", protocol.Errorf(protocol.CodeFrameTooLarge, "frame: larger than %d bytes", protocol.MaxFrameBytes))
	case wsframe.Ping:
		c.push(item{raw: wsframe.Append(nil, wsframe.OpPong, ev.Data)})
	case wsframe.Close:
		// Answer the client's close with its code, unless we closed first (then
		// this is its answer and the socket can go now).
		if !c.finish(wsframe.CloseFrame(ev.Code, "")) {
			c.close()
		}
		return false
	}
	return true
}

func (c *wsConn) handle(data []byte) {
	f, perr := protocol.DecodeClientFrame(data)
	if perr != nil {
		c.sendError(f.ID, perr)
		return
	}
	switch f.Type {
	case protocol.FramePing:
		c.send(protocol.Encode(protocol.Pong{Type: "pong", ID: f.ID}))
	case protocol.FrameAuth:
		if c.claims() != nil {
			c.sendError(f.ID, protocol.Errorf(protocol.CodeBadFrame, "type: already authenticated; use refresh to replace the token"))
			return
		}
		c.authenticate(&f)
	case protocol.FrameRefresh:
		if c.claims() == nil {
			c.sendError(f.ID, protocol.Errorf(protocol.CodeUnauthenticated, "authenticate first"))
			return
		}
		c.authenticate(&f)
	case protocol.FrameSubscribe:
		c.subscribe(&f)
	case protocol.FrameUnsubscribe:
		c.unsubscribe(&f)
	case protocol.FramePublish:
		c.publish(&f)
	}
}

func (c *wsConn) authenticate(f *protocol.ClientFrame) {
	claims, err := c.srv.opt.Verifier.Verify(f.Token)
	if err != nil {
		c.sendError(f.ID, err)
		return
	}
	old := c.claims()
	if old != nil && old.App != claims.App {
		c.sendError(f.ID, protocol.Errorf(protocol.CodeUnauthenticated, "token: a refresh must be for the same app"))
		return
	}
	c.authenticated(claims, f.ID, old)
}

// authenticated installs claims (first auth or refresh) and re-checks existing
// subscriptions against the new permissions. The token's expiry is watched by
// the server's registry (track).
func (c *wsConn) authenticated(claims *auth.Claims, id string, old *auth.Claims) {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return
	}
	c.tok = claims
	if c.authTime != nil {
		c.authTime.Stop()
		c.authTime = nil
	}
	var revoked []*hub.Subscription
	for _, e := range c.subs.all() {
		if !claims.Permissions.Allows(protocol.OpSubscribe, e.path) {
			revoked = append(revoked, e.sub)
			c.subs.delete(e.path)
		}
	}
	c.mu.Unlock()
	c.srv.track(c, old)
	c.send(protocol.Encode(protocol.Authenticated{Type: "authenticated", ID: id, App: claims.App, ExpiresAt: claims.ExpiresAt}))
	for _, s := range revoked {
		s.Close()
		c.send(protocol.Encode(protocol.Unsubscribed{Type: "unsubscribed", Endpoint: s.Path, Code: protocol.CodeForbidden, Reason: "the refreshed token does not permit this subscription"}))
	}
}

func (c *wsConn) subscribe(f *protocol.ClientFrame) {
	ep, err := c.srv.authorize(c.claims(), f.Endpoint, protocol.OpSubscribe)
	if err != nil {
		c.sendError(f.ID, err)
		return
	}
	path := f.Endpoint.String()
	c.mu.Lock()
	_, dup := c.subs.get(path)
	full := c.subs.len() >= c.srv.opt.MaxSubscriptions
	if !dup && !full {
		c.subs.set(path, nil) // reserved while the hub registers it
	}
	c.mu.Unlock()
	if dup {
		c.sendError(f.ID, protocol.Errorf(protocol.CodeAlreadySubscribed, "already subscribed to %s", path))
		return
	}
	if full {
		c.sendError(f.ID, protocol.Errorf(protocol.CodeTooManySubs, "at most %d subscriptions per connection", c.srv.opt.MaxSubscriptions))
		return
	}
	ctx, cancel := context.WithTimeout(c.srv.ctx, 10*time.Second)
	defer cancel()
	s, herr := c.srv.opt.Hub.Subscribe(ctx, f.Endpoint, Served(ep), f.From, c, func(s *hub.Subscription) {
		c.send(protocol.Encode(protocol.Subscribed{Type: "subscribed", ID: f.ID, Endpoint: path, Epoch: s.Epoch, Partition: s.Partition, Seq: s.Seq}))
	})
	c.mu.Lock()
	if herr != nil || c.ended {
		c.subs.delete(path)
		c.mu.Unlock()
		if herr != nil {
			c.sendError(f.ID, kafkaError(f.Endpoint.Topic, herr))
		} else {
			s.Close()
		}
		return
	}
	c.subs.set(path, s)
	c.mu.Unlock()
}

func (c *wsConn) unsubscribe(f *protocol.ClientFrame) {
	path := f.Endpoint.String()
	c.mu.Lock()
	s, ok := c.subs.get(path)
	if ok && s != nil {
		c.subs.delete(path)
	}
	c.mu.Unlock()
	if !ok || s == nil {
		c.sendError(f.ID, protocol.Errorf(protocol.CodeNotFound, "not subscribed to %s", path))
		return
	}
	s.Close()
	c.send(protocol.Encode(protocol.Unsubscribed{Type: "unsubscribed", ID: f.ID, Endpoint: path}))
}

func (c *wsConn) publish(f *protocol.ClientFrame) {
	claims := c.claims()
	ep, err := c.srv.authorize(claims, f.Endpoint, protocol.OpPublish)
	if err != nil {
		c.sendError(f.ID, err)
		return
	}
	value, err := payloadFor(ep, f)
	if err != nil {
		c.sendError(f.ID, err)
		return
	}
	slots := c.publishSlots()
	select {
	case slots <- struct{}{}:
	case <-c.done:
		return
	}
	// Queued here, in the order the client sent its frames; acknowledged
	// when Kafka has it.
	id := f.ID
	c.srv.publish(c.srv.ctx, claims, f.Endpoint, value, func(ack protocol.Published, err *protocol.Error) {
		<-slots
		if err != nil {
			c.sendError(id, err)
			return
		}
		ack.ID = id
		c.send(protocol.Encode(ack))
	})
}

// publishSlots returns the semaphore for publishes in flight, made on first use:
// most connections only subscribe.
func (c *wsConn) publishSlots() chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.publishes == nil {
		c.publishes = make(chan struct{}, maxPublishesInFlight)
	}
	return c.publishes
}

// The hub.Sink methods. They run with hub locks held: only enqueue.

func (c *wsConn) Deliver(f *hub.Frame) { c.push(item{frame: f}) }

func (c *wsConn) Gap(g protocol.Gap) { c.push(item{raw: wsNotice(g)}) }

func (c *wsConn) Ended(s *hub.Subscription, code protocol.Code, reason string) {
	c.mu.Lock()
	if cur, _ := c.subs.get(s.Path); cur == s {
		c.subs.delete(s.Path)
	}
	c.mu.Unlock()
	c.send(protocol.Encode(protocol.Unsubscribed{Type: "unsubscribed", Endpoint: s.Path, Code: code, Reason: reason}))
}

func wsNotice(g protocol.Gap) []byte { return wsframe.Append(nil, wsframe.OpText, protocol.Encode(g)) }

// send queues a JSON frame as one WebSocket text frame.
func (c *wsConn) send(json []byte) { c.push(item{raw: wsframe.Append(nil, wsframe.OpText, json)}) }

func (c *wsConn) sendError(id string, err *protocol.Error) {
	c.srv.opt.Metrics.FrameErrors.WithLabelValues(codeLabel(err.Code)).Inc()
	c.send(protocol.Encode(protocol.ErrorFrame{Type: "error", ID: id, Code: err.Code, Message: err.Message}))
}

func (c *wsConn) push(it item) {
	r := c.out.push(it)
	c.srv.countDropped(r)
	if r.slow {
		go c.terminate(protocol.CloseSlowConsumer, "slow consumer: the queue of outgoing frames overflowed")
	} else if r.wake {
		c.flush()
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
func (c *wsConn) flush() {
	batch := c.out.take()
	if batch == nil {
		return
	}
	if len(batch) <= maxInlineBatch {
		n, complete, err := c.tryWrite(batch)
		if err != nil {
			c.writeFailed()
			return
		}
		if !complete {
			go c.writeLoop(batch, n)
			return
		}
		c.wrote(batch)
		if batch = c.out.take(); batch == nil {
			return // queue empty: writer role released
		}
	}
	// More queued meanwhile, or a burst: not on the caller's goroutine.
	go c.writeLoop(batch, 0)
}

// tryWrite writes batch with one non-blocking write(2)/writev(2) and reports how
// many bytes the socket took and whether that was all of them.
//
// It writes to the descriptor itself rather than through net.Conn (or its
// RawConn): their bookkeeping (descriptor locks, poller state) lives in objects
// of their own, and touching those for every message of every connection cost
// more than a microsecond a message in cache misses alone.
func (c *wsConn) tryWrite(batch []item) (n int, complete bool, err error) {
	var iov [maxInlineBatch]syscall.Iovec
	total := 0
	for i := range batch {
		b := batch[i].wire()
		iov[i].Base = &b[0]
		iov[i].SetLen(len(b))
		total += len(b)
	}
	c.fdMu.Lock()
	if !c.fdOpen {
		c.fdMu.Unlock()
		return 0, false, net.ErrClosed
	}
	n, werr := rawio.Writev(uintptr(c.fd), iov[:len(batch)])
	c.fdMu.Unlock()
	if werr == syscall.EAGAIN {
		return 0, false, nil
	}
	if werr != 0 {
		return 0, false, werr
	}
	return n, n == total, nil
}

// writeLoop owns the writer role: it writes batch (skipping the first skip bytes,
// already written), then whatever was queued meanwhile, waiting for the socket as
// needed (10 s at most per batch), and exits when the queue is empty.
func (c *wsConn) writeLoop(batch []item, skip int) {
	for batch != nil {
		bufs := make(net.Buffers, 0, len(batch))
		for i := range batch {
			b := batch[i].wire()
			if skip >= len(b) {
				skip -= len(b)
				continue
			}
			bufs = append(bufs, b[skip:])
			skip = 0
		}
		_ = c.nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if _, err := bufs.WriteTo(c.nc); err != nil {
			c.writeFailed()
			return
		}
		c.wrote(batch)
		batch = c.out.take()
	}
}

// wrote accounts for a written batch, closes the connection if it held the last
// frame, and gives the batch back to the queue.
func (c *wsConn) wrote(batch []item) {
	m := c.srv.opt.Metrics
	var messages, bytes int
	traffic := false
	now := time.Now()
	nowMs := now.UnixMilli()
	for i := range batch {
		it := &batch[i]
		traffic = traffic || !it.keepalive
		if it.frame != nil {
			messages++
			bytes += len(it.frame.Wire())
			m.Delay.Observe(float64(nowMs-it.frame.TS) / 1000)
		}
		if it.final {
			// Give the peer a moment to answer a close frame of ours (its answer
			// closes at once, see onEvent), then drop the connection.
			time.AfterFunc(it.grace, c.close)
		}
	}
	if messages > 0 {
		m.MessagesOut.Add(float64(messages))
		m.BytesOut.Add(float64(bytes))
	}
	if traffic {
		c.lastWrite.Store(now.UnixNano())
	}
	c.out.recycle(batch)
}

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
	if userTimeoutSupported && c.lastWrite.Load() > prevRound {
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

// close releases everything; it may run more than once, from any goroutine that
// holds no hub lock.
func (c *wsConn) close() {
	c.closeOnce.Do(func() {
		close(c.done)
		c.mu.Lock()
		c.ended = true
		subs := c.subs.all()
		c.subs = subSet{}
		if c.authTime != nil {
			c.authTime.Stop()
		}
		c.mu.Unlock()
		for _, e := range subs {
			if e.sub != nil {
				e.sub.Close()
			}
		}
		c.out.close()
		// Leave the registry before the socket closes, so a peer that sees the
		// close never finds its session still listed (revocation, metrics, tests).
		c.srv.untrack(c)
		c.srv.opt.Metrics.Connections.WithLabelValues("ws").Dec()
		c.srv.poller.forget(c)
		c.fdMu.Lock()
		c.fdOpen = false
		c.fdMu.Unlock()
		_ = c.nc.Close()
	})
}
