package edge

import (
	"context"
	"errors"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/sluicehq/sluice/apps/gateway/internal/auth"
	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/rawio"
	"github.com/sluicehq/sluice/apps/gateway/internal/wsframe"
)

// This file is a WebSocket's reading side: frames from the poller's goroutine,
// and the client's commands (auth, refresh, subscribe, unsubscribe, publish).

// maxPublishesInFlight bounds concurrent publishes per connection; beyond it
// reading the connection waits, which pushes back on the client through TCP.
const maxPublishesInFlight = 64

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
		if !c.feed(buf[:n]) {
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

// feed handles every whole frame in b, keeping a partial one for the next
// read; false means the connection is ending (a close frame, or a framing
// violation, which is answered with close code 1002).
func (c *wsConn) feed(b []byte) bool {
	if err := c.rd.Feed(b, c.onEvent); err != nil {
		var pe *wsframe.ProtocolError
		if errors.As(err, &pe) {
			c.srv.opt.Metrics.FrameErrors.WithLabelValues(codeLabel(protocol.CodeBadFrame)).Inc()
			c.finish(wsframe.CloseFrame(wsframe.CloseProtocolError, pe.Reason))
		}
		return false
	}
	return true
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
	if old == nil {
		if perr := c.srv.admit(claims.App); perr != nil {
			c.sendError(f.ID, perr)
			c.terminate(perr.Code, "connection limit of the app's plan")
			return
		}
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
		if old == nil {
			c.srv.opt.Quota.Close(claims.App) // admitted, never tracked
		}
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
	if old == nil {
		c.srv.meterSession(&c.out, claims.App)
		c.srv.limitDeliveries(&c.out, claims.App)
	}
	c.send(protocol.Encode(protocol.Authenticated{Type: "authenticated", ID: id, App: claims.App, ExpiresAt: claims.ExpiresAt}))
	for _, s := range revoked {
		s.Close()
		c.send(protocol.Encode(protocol.Unsubscribed{Type: "unsubscribed", Endpoint: s.Path, Code: protocol.CodeForbidden, Reason: "the refreshed token does not permit this subscription"}))
	}
}

func (c *wsConn) subscribe(f *protocol.ClientFrame) {
	ep, err := c.srv.authorize(c.claims(), f.Endpoint, protocol.OpSubscribe)
	if err != nil {
		c.sendErrorOn(f.ID, f.Endpoint.String(), err)
		return
	}
	path := f.Endpoint.String()
	app := c.claims().App
	c.mu.Lock()
	_, dup := c.subs.get(path)
	full := c.subs.len() >= c.srv.opt.MaxSubscriptions
	var refused *protocol.Error
	if !dup && !full && c.srv.opt.Quota.HasPlans(app) {
		refused = c.srv.admitSubscription(app, path, c.subs.paths())
	}
	if !dup && !full && refused == nil {
		c.subs.set(path, nil) // reserved while the hub registers it
	}
	c.mu.Unlock()
	if refused != nil {
		c.sendErrorOn(f.ID, path, refused)
		return
	}
	if dup {
		c.sendErrorOn(f.ID, path, protocol.Errorf(protocol.CodeAlreadySubscribed, "already subscribed to %s", path))
		return
	}
	if full {
		c.sendErrorOn(f.ID, path, protocol.Errorf(protocol.CodeTooManySubs, "at most %d subscriptions per connection", c.srv.opt.MaxSubscriptions))
		return
	}
	ctx, cancel := context.WithTimeout(c.srv.ctx, 10*time.Second)
	defer cancel()
	served, perr := c.srv.servedFor(ctx, ep, f.Endpoint)
	if perr != nil {
		c.mu.Lock()
		c.subs.delete(path)
		c.mu.Unlock()
		c.sendErrorOn(f.ID, path, perr)
		return
	}
	s, herr := c.srv.opt.Hub.Subscribe(ctx, f.Endpoint, served, f.From, c, func(s *hub.Subscription) {
		c.send(protocol.Encode(protocol.Subscribed{Type: "subscribed", ID: f.ID, Endpoint: path, Epoch: s.Epoch, Partition: s.Partition, Seq: s.Seq}))
	})
	c.mu.Lock()
	if herr != nil || c.ended {
		c.subs.delete(path)
		c.mu.Unlock()
		if herr != nil {
			c.sendErrorOn(f.ID, path, kafkaError(f.Endpoint.Topic, herr))
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
		c.sendErrorOn(f.ID, path, protocol.Errorf(protocol.CodeNotFound, "not subscribed to %s", path))
		return
	}
	s.Close()
	c.send(protocol.Encode(protocol.Unsubscribed{Type: "unsubscribed", ID: f.ID, Endpoint: path}))
}

func (c *wsConn) publish(f *protocol.ClientFrame) {
	claims := c.claims()
	ep, err := c.srv.authorize(claims, f.Endpoint, protocol.OpPublish)
	if err != nil {
		c.sendErrorOn(f.ID, f.Endpoint.String(), err)
		return
	}
	value, err := payloadFor(ep, f)
	if err == nil {
		value, err = c.srv.inWireFormat(c.srv.ctx, ep, value)
	}
	if err == nil {
		err = c.srv.admitPublish(claims.App, f.Endpoint.String())
	}
	var key []byte
	if err == nil {
		key, err = c.srv.recordKey(c.srv.ctx, ep, f.Endpoint)
	}
	if err != nil {
		c.sendErrorOn(f.ID, f.Endpoint.String(), err)
		return
	}
	slots := c.publishSlots()
	select {
	case slots <- struct{}{}:
	case <-c.done:
		return
	}
	// Checked once the publish counts as in flight: a shutdown that began
	// before this check waits for it (Edge.Shutdown looks at what is in
	// flight only after setting stopping), and one that began after is
	// refused here.
	if c.srv.stopping.Load() {
		<-slots
		c.sendErrorOn(f.ID, f.Endpoint.String(), protocol.Errorf(protocol.CodeUnavailable, "the node is shutting down: not written; publish it again after reconnecting"))
		return
	}
	// Queued here, in the order the client sent its frames; acknowledged
	// when Kafka has it.
	id, path := f.ID, f.Endpoint.String()
	c.srv.publish(c.srv.ctx, claims, f.Endpoint, ep, key, value, func(ack protocol.Published, err *protocol.Error) {
		<-slots
		if err != nil {
			c.sendErrorOn(id, path, err)
			return
		}
		ack.ID = id
		c.send(protocol.Encode(ack))
	})
}

func (c *wsConn) publishesInFlight() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.publishes)
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
