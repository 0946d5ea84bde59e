package edge

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sluicehq/sluice/apps/gateway/internal/auth"
	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// Subprotocol is the WebSocket subprotocol of PROTOCOL.md version 1.
const Subprotocol = "sluice.v1"

// maxPublishesInFlight bounds concurrent publishes per connection; beyond it the
// read loop waits, which pushes back on the client through TCP.
const maxPublishesInFlight = 64

var upgrader = websocket.Upgrader{
	// Client frames are small (subscribe, publish of a message); a frame larger
	// than the buffer is still read, in pieces.
	ReadBufferSize:  512,
	WriteBufferSize: 1024,
	// Write buffers are taken from a pool only while writing, so an idle
	// connection holds none.
	WriteBufferPool: &sync.Pool{},
	Subprotocols:    []string{Subprotocol},
	// Tokens travel in frames or the Authorization header, never in cookies, so a
	// page from another origin gains nothing by connecting: allow any origin (the
	// portal's live console runs on another origin).
	CheckOrigin: func(*http.Request) bool { return true },
}

// wsConn is one WebSocket client.
type wsConn struct {
	srv *Server
	ws  *websocket.Conn
	out outQueue

	// mu guards the fields below; never held while writing to the socket.
	mu       sync.Mutex
	tok      *auth.Claims
	subs     map[string]*hub.Subscription // by canonical path
	expiry   *time.Timer
	authTime *time.Timer
	ended    bool

	publishes chan struct{} // semaphore for publishes in flight
	closeOnce sync.Once
	done      chan struct{}
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
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
	c := &wsConn{
		srv:       s,
		ws:        ws,
		out:       outQueue{capacity: s.opt.QueueSize, policy: s.opt.SlowPolicy},
		subs:      map[string]*hub.Subscription{},
		publishes: make(chan struct{}, maxPublishesInFlight),
		done:      make(chan struct{}),
	}
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
	// Return from the handler: net/http keeps a 4 KiB reader, a 4 KiB writer and
	// the request alive for as long as its handler runs, which would double what
	// an idle connection costs.
	go c.readLoop()
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

// readLoop handles client frames until the connection ends. Every bad frame gets
// an error frame; only transport failures end the loop.
func (c *wsConn) readLoop() {
	defer c.close()
	idle := c.srv.opt.IdleTimeout
	_ = c.ws.SetReadDeadline(time.Now().Add(idle))
	c.ws.SetPongHandler(func(string) error { return c.ws.SetReadDeadline(time.Now().Add(idle)) })
	var buf []byte // client frames are rare: allocated on the first one
	for {
		kind, r, err := c.ws.NextReader()
		if err != nil {
			return
		}
		_ = c.ws.SetReadDeadline(time.Now().Add(idle))
		// Read at most one byte past the limit: a larger frame is refused with an
		// error frame and skipped, not allowed to close the connection.
		buf, err = readLimited(buf[:0], r, protocol.MaxFrameBytes)
		if errors.Is(err, errTooLarge) {
			if _, err := io.Copy(io.Discard, r); err != nil {
				return
			}
			c.sendError("", protocol.Errorf(protocol.CodeFrameTooLarge, "frame: larger than %d bytes", protocol.MaxFrameBytes))
			continue
		}
		if err != nil {
			return
		}
		if kind != websocket.TextMessage {
			c.sendError("", protocol.Errorf(protocol.CodeBadFrame, "frame: must be a text frame holding JSON"))
			continue
		}
		c.handle(buf)
		if cap(buf) > 64<<10 {
			buf = nil // don't keep a big frame's buffer
		}
	}
}

var errTooLarge = errors.New("frame too large")

func readLimited(dst []byte, r io.Reader, limit int) ([]byte, error) {
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if len(dst) > limit {
			return dst, errTooLarge
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
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

// authenticated installs claims (first auth or refresh), re-checks existing
// subscriptions against the new permissions, and arms the expiry timer.
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
	if c.expiry != nil {
		c.expiry.Stop()
	}
	c.expiry = time.AfterFunc(time.Until(time.Unix(claims.ExpiresAt, 0)), func() {
		c.srv.opt.Metrics.ExpiryCloses.Inc()
		c.terminate(protocol.CodeTokenExpired, "token expired")
	})
	var revoked []*hub.Subscription
	for path, s := range c.subs {
		if !claims.Permissions.Allows(protocol.OpSubscribe, path) {
			revoked = append(revoked, s)
			delete(c.subs, path)
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
	_, dup := c.subs[path]
	full := len(c.subs) >= c.srv.opt.MaxSubscriptions
	if !dup && !full {
		c.subs[path] = nil // reserved while the hub registers it
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
	s, herr := c.srv.opt.Hub.Subscribe(ctx, f.Endpoint, string(ep.Format), f.From, c, func(s *hub.Subscription) {
		c.send(protocol.Encode(protocol.Subscribed{Type: "subscribed", ID: f.ID, Endpoint: path, Epoch: s.Epoch, Partition: s.Partition}))
	})
	c.mu.Lock()
	if herr != nil || c.ended {
		delete(c.subs, path)
		c.mu.Unlock()
		if herr != nil {
			c.sendError(f.ID, kafkaError(f.Endpoint.Topic, herr))
		} else {
			s.Close()
		}
		return
	}
	c.subs[path] = s
	c.mu.Unlock()
}

func (c *wsConn) unsubscribe(f *protocol.ClientFrame) {
	path := f.Endpoint.String()
	c.mu.Lock()
	s, ok := c.subs[path]
	if ok && s != nil {
		delete(c.subs, path)
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
	select {
	case c.publishes <- struct{}{}:
	case <-c.done:
		return
	}
	id, path := f.ID, f.Endpoint
	go func() {
		defer func() { <-c.publishes }()
		ack, err := c.srv.publish(c.srv.ctx, claims, path, value)
		if err != nil {
			c.sendError(id, err)
			return
		}
		ack.ID = id
		c.send(protocol.Encode(ack))
	}()
}

// The hub.Sink methods. They run with hub locks held: only enqueue.

func (c *wsConn) Deliver(f *hub.Frame) { c.push(item{frame: f}) }

func (c *wsConn) Gap(g protocol.Gap) { c.send(protocol.Encode(g)) }

func (c *wsConn) Ended(s *hub.Subscription, code protocol.Code, reason string) {
	c.mu.Lock()
	if c.subs[s.Path] == s {
		delete(c.subs, s.Path)
	}
	c.mu.Unlock()
	c.send(protocol.Encode(protocol.Unsubscribed{Type: "unsubscribed", Endpoint: s.Path, Code: code, Reason: reason}))
}

func (c *wsConn) send(raw []byte) { c.push(item{raw: raw}) }

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
		go c.writeLoop()
	}
}

// writeLoop drains the queue; at most one runs per connection (outQueue.writing),
// and it exits when the queue is empty, so an idle connection has no writer.
func (c *wsConn) writeLoop() {
	m := c.srv.opt.Metrics
	for {
		batch := c.out.take()
		if batch == nil {
			return
		}
		// One deadline per batch: setting it re-arms a runtime timer, which is not
		// free on a path that runs for every delivered message.
		_ = c.ws.SetWriteDeadline(time.Now().Add(10 * time.Second))
		var messages, bytes int
		nowMs := time.Now().UnixMilli()
		var err error
		for i := range batch {
			it := &batch[i]
			if it.frame != nil {
				// The frame is encoded once for all subscribers; gorilla only adds
				// the 2-4 byte WebSocket header while copying it into its buffer.
				err = c.ws.WriteMessage(websocket.TextMessage, it.frame.WS())
				if err == nil {
					messages++
					bytes += len(it.frame.WS())
					m.Delay.Observe(float64(nowMs-it.frame.TS) / 1000)
				}
			} else {
				err = c.ws.WriteMessage(websocket.TextMessage, it.raw)
			}
			if err != nil {
				break
			}
		}
		m.MessagesOut.Add(float64(messages))
		m.BytesOut.Add(float64(bytes))
		if err != nil {
			c.out.close()
			_ = c.ws.Close() // ends the read loop, which cleans up
			for c.out.take() != nil {
			}
			return
		}
		c.out.recycle(batch)
	}
}

// ping sends a WebSocket ping so idle connections through proxies stay open and
// dead peers are found (their read deadline then closes them).
func (c *wsConn) ping() {
	if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(5*time.Second)); err != nil {
		_ = c.ws.Close()
	}
}

// terminate sends a closing notice and a close frame with code, then closes. It
// may be called from any goroutine, any number of times.
func (c *wsConn) terminate(code protocol.Code, reason string) {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return
	}
	c.ended = true
	c.mu.Unlock()
	go func() {
		// The notice goes first through the queue so it follows frames already
		// queued; then the close frame, then the socket.
		c.send(protocol.Encode(protocol.Closing{Type: "closing", Code: code, Reason: reason}))
		deadline := time.Now().Add(2 * time.Second)
		for time.Now().Before(deadline) {
			c.out.mu.Lock()
			idle := !c.out.writing
			c.out.mu.Unlock()
			if idle {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		msg := websocket.FormatCloseMessage(int(code), reason)
		_ = c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(2*time.Second))
		// Give the peer a moment to answer the close handshake, then drop it.
		time.AfterFunc(time.Second, func() { _ = c.ws.Close() })
	}()
}

// close releases everything once the read loop ended.
func (c *wsConn) close() {
	c.closeOnce.Do(func() {
		close(c.done)
		c.mu.Lock()
		c.ended = true
		subs := c.subs
		c.subs = nil
		if c.expiry != nil {
			c.expiry.Stop()
		}
		if c.authTime != nil {
			c.authTime.Stop()
		}
		c.mu.Unlock()
		for _, s := range subs {
			if s != nil {
				s.Close()
			}
		}
		c.out.close()
		_ = c.ws.Close()
		c.srv.untrack(c)
		c.srv.opt.Metrics.Connections.WithLabelValues("ws").Dec()
	})
}
