package edge

import (
	"crypto/tls"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sluicehq/sluice/apps/gateway/internal/auth"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/wsframe"
)

// This file is a WebSocket's start: the HTTP upgrade, after which the socket
// is taken from net/http and handed to the poller.

// Subprotocol is the WebSocket subprotocol of PROTOCOL.md version 1.
const Subprotocol = "sluice.v1"

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
	if !s.setups.enter(r.Context()) {
		return // the client left while waiting
	}
	defer s.setups.leave()
	addr, perr := s.admitAddress(r)
	if perr != nil {
		writeProblem(w, perr)
		return
	}
	accepted := false
	defer func() {
		if !accepted {
			s.perAddr.release(addr)
		}
	}()
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
	tc, isTLS := nc.(*tls.Conn)
	raw := nc
	if isTLS {
		raw = tc.NetConn()
	}
	sc, ok := raw.(syscall.Conn)
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
		tls:  isTLS,
		addr: addr,
		// Before the connection is tracked: a close may come before watch.
		pollID: nextPollID.Add(1),
	}
	if err := rc.Control(func(fd uintptr) { c.fd = int32(fd) }); err != nil {
		_ = nc.Close()
		return
	}
	// A TLS socket's bytes are records only tls.Conn can make: its
	// descriptor is never written directly (flush leaves TLS connections to
	// writeLoop, and fdOpen stays false so tryWrite would refuse anyway).
	c.fdOpen = !isTLS
	accepted = true // c.close releases the address from here on
	if err := setUserTimeout(int(c.fd), s.opt.IdleTimeout); err != nil {
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
	if isTLS {
		// tls.Conn may hold decrypted bytes the socket no longer shows as
		// readable, so readiness cannot drive its reads: it reads on a
		// goroutine of its own (tlsread.go).
		go c.readTLS()
	} else if err := s.poller.watch(c); err != nil {
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
