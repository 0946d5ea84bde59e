package edge

import (
	"crypto/tls"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/auth"
	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/lockorder"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/wsframe"
)

// wsConn is one WebSocket client. No goroutine belongs to it at rest: the
// node's poller starts one when the client sent something (onReadable), and
// frames are written by whoever queued them while the socket takes them without
// waiting, else by a writer goroutine (flush, writeLoop).
type wsConn struct {
	// What delivering a message touches comes first, in as few cache lines as
	// may be (see outQueue).
	srv *Edge
	out outQueue
	// fd is nc's descriptor, written to directly (tryWrite, ringBatch). fdOpen,
	// under fdMu, says it is still nc's: close clears it before closing nc, so
	// a write never reaches a descriptor number the kernel has given to
	// another connection. inRing, under fdMu, is set while a send to fd is
	// gathered for io_uring or in the ring: close then leaves closing nc to
	// that send's completion (closeDeferred, leaveRing).
	fdMu          lockorder.Mutex[lockorder.FD]
	fd            int32
	fdOpen        bool
	inRing        bool
	closeDeferred bool
	// tls: nc is a *tls.Conn, read by readTLS and written only through nc
	// (never tryWrite), instead of the poller and raw writes.
	tls bool

	nc net.Conn
	rc syscall.RawConn

	// Read side: only the goroutine running onReadable touches rd (the poller
	// reports a socket again only after that goroutine re-armed it).
	rd wsframe.Reader
	// addr is the client's address, counted against the per-address bound
	// until close.
	addr netip.Addr
	// pollID names the connection to the poller; set at creation, never reused.
	pollID   uint64
	lastRead atomic.Int64 // unix ns; idle connections are found by the ping loop

	// pingedAt, only touched by the ping loop, is when the oldest unanswered
	// ping went out (0: none). When frames were last written is in out
	// (outQueue.lastWrite).
	pingedAt int64

	// mu guards the fields below; never held while writing to the socket.
	mu       lockorder.Mutex[lockorder.WSConn]
	tok      *auth.Claims // shared with the token's other connections: read only
	subs     subSet
	authTime *time.Timer
	ended    bool

	publishes chan struct{} // semaphore for publishes in flight, made by the first
	closeOnce sync.Once
	done      chan struct{}
}

func (c *wsConn) eachSubscribedPath(fn func(path string)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.subs.each(func(e subEntry) {
		if e.sub != nil {
			fn(e.path)
		}
	})
}

func (c *wsConn) claims() *auth.Claims {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tok
}

// Ended is the hub.Sink method that ends one subscription (Deliver and Gap,
// which only queue frames, are in wswrite.go). Like them it runs with hub
// locks held.
func (c *wsConn) Ended(s *hub.Subscription, code protocol.Code, reason string) {
	c.mu.Lock()
	if cur, _ := c.subs.get(s.Path); cur == s {
		c.subs.delete(s.Path)
	}
	c.mu.Unlock()
	c.send(protocol.Encode(protocol.Unsubscribed{Type: "unsubscribed", Endpoint: s.Path, Code: code, Reason: reason}))
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
		c.srv.perAddr.release(c.addr)
		if !c.tls {
			c.srv.poller.forget(c)
		}
		c.fdMu.Lock()
		c.fdOpen = false
		inRing := c.inRing
		c.closeDeferred = inRing
		c.fdMu.Unlock()
		if !inRing {
			c.closeSocket()
		}
	})
}

// leaveRing is called when a send of the connection's is done with (its
// completion, or the ring broke before it was submitted); it reports whether
// the session ended meanwhile, in which case it closes the socket close left
// open.
func (c *wsConn) leaveRing() (ended bool) {
	c.fdMu.Lock()
	c.inRing = false
	ended = c.closeDeferred
	c.fdMu.Unlock()
	if ended {
		go c.closeSocket() // not here: the caller may hold hub locks
	}
	return ended
}

func (c *wsConn) closeSocket() {
	if tc, ok := c.nc.(*tls.Conn); ok {
		// Not tc.Close: its close_notify would wait behind a writer blocked
		// on a client that stopped reading. The WebSocket close frame already
		// ended the conversation.
		_ = tc.NetConn().Close()
	} else {
		_ = c.nc.Close()
	}
}
