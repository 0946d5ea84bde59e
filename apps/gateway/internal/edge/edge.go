// Package edge is the client-facing side of a gateway node: WebSocket connections
// (the full protocol), Server-Sent Events and HTTP publish, all sharing one
// authorisation path and one registry of live sessions for revocation.
package edge

import (
	"context"
	"log/slog"
	"math"
	"net/http"
	"net/netip"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/auth"
	"github.com/sluicehq/sluice/apps/gateway/internal/catalog"
	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/lockorder"
	"github.com/sluicehq/sluice/apps/gateway/internal/metrics"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/quota"
	"github.com/sluicehq/sluice/apps/gateway/internal/schemawire"
	"github.com/sluicehq/sluice/apps/gateway/internal/usage"
)

// Verifier checks tokens (auth.Verifier).
type Verifier interface {
	Verify(token string) (*auth.Claims, *protocol.Error)
	Recheck(c *auth.Claims) *protocol.Error
}

// Resolver finds the catalog endpoint serving a concrete path (catalog.Catalog).
type Resolver interface {
	Resolve(p protocol.Path) *catalog.Endpoint
}

// Kafka is what publishing needs (kafka.Cluster).
type Kafka interface {
	// Produce queues one record and calls done with its position once Kafka
	// acknowledged it (or with why not); records queued for one partition are
	// written in the order of the calls.
	Produce(ctx context.Context, topic string, key, value []byte, headers []hub.Header, done func(partition int32, offset int64, err error))
	Meta(ctx context.Context, topic string) (hub.TopicMeta, error)
}

// Options configure the edge.
type Options struct {
	Verifier Verifier
	Catalog  Resolver
	Hub      *hub.Hub
	Kafka    Kafka
	Metrics  *metrics.Metrics
	Logger   *slog.Logger

	QueueSize        int           // outgoing frames per connection (default 1024)
	SlowPolicy       SlowPolicy    // drop (default) or disconnect
	MaxSubscriptions int           // per connection (default 1000)
	AuthTimeout      time.Duration // to send the auth frame (default 10s)
	PingInterval     time.Duration // WebSocket pings (default 25s)
	IdleTimeout      time.Duration // silence before a connection is closed (default 60s)
	PublishTimeout   time.Duration // for Kafka's acknowledgement (default 10s)
	// Encoder encodes publishes to schema-registry endpoints; nil when the
	// node has no registry (such publishes are then refused).
	Encoder *schemawire.Encoder
	// Meter counts each app's usage (usage.go); nil turns metering off.
	Meter *usage.Meter
	// Quota applies the apps' plans (quota.go); nil applies none.
	Quota *quota.Enforcer
	// TrustedProxies are the proxies whose X-Forwarded-For is believed
	// (clientaddr.go); MaxConnectionsPerAddress bounds each client address's
	// WebSocket and SSE connections (0: no bound).
	TrustedProxies           []netip.Prefix
	MaxConnectionsPerAddress int
}

// Edge is the client-facing side of one node.
type Edge struct {
	opt Options
	log *slog.Logger

	poller  poller // reports readable WebSockets
	perAddr addressLimit
	setups  setupGate // connection setups running at once

	mu       lockorder.Mutex[lockorder.Edge]
	sessions map[session]struct{}
	byJTI    map[string]*tokenSessions
	byApp    map[string]map[session]struct{}
	draining bool
	// stopping mirrors draining for the publish path, which checks it for
	// every frame without the lock.
	stopping atomic.Bool

	ctx    context.Context
	cancel context.CancelFunc
}

// tokenSessions are the live sessions using one token, and the timer that ends
// them when it expires: one timer per token, however many connections share it.
type tokenSessions struct {
	sessions map[session]struct{}
	expiry   *time.Timer
}

// session is a live authenticated client (WebSocket connection or SSE stream).
type session interface {
	claims() *auth.Claims
	// terminate sends a closing notice and ends the session; it must not block.
	terminate(code protocol.Code, reason string)
	// eachSubscribedPath calls fn with the canonical path of each of its live
	// subscriptions (holding the session's lock: fn must not call back into it).
	eachSubscribedPath(fn func(path string))
	// publishesInFlight counts its publishes handed to Kafka and not answered yet.
	publishesInFlight() int
}

// New builds the edge; call Routes to serve it.
func New(opt Options) *Edge {
	if opt.QueueSize <= 0 {
		opt.QueueSize = 1024
	}
	if opt.SlowPolicy == "" {
		opt.SlowPolicy = PolicyDrop
	}
	if opt.MaxSubscriptions <= 0 {
		opt.MaxSubscriptions = 1000
	}
	if opt.AuthTimeout <= 0 {
		opt.AuthTimeout = 10 * time.Second
	}
	if opt.PingInterval <= 0 {
		opt.PingInterval = 25 * time.Second
	}
	if opt.IdleTimeout <= 0 {
		opt.IdleTimeout = 60 * time.Second
	}
	if opt.PublishTimeout <= 0 {
		opt.PublishTimeout = 10 * time.Second
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Edge{
		opt: opt, log: opt.Logger,
		sessions: map[session]struct{}{}, byJTI: map[string]*tokenSessions{}, byApp: map[string]map[session]struct{}{},
		ctx: ctx, cancel: cancel,
	}
	p, err := newPoller(opt.Logger)
	if err != nil {
		// Without it no WebSocket could be read: better not to start at all.
		panic("edge: cannot create the socket poller: " + err.Error())
	}
	s.poller = p
	s.perAddr.max = opt.MaxConnectionsPerAddress
	s.setups = newSetupGate(0) // GOMAXPROCS, at least 2 (setupgate.go)
	go s.pingLoop()
	return s
}

// pingLoop visits every WebSocket connection each PingInterval (wsConn.ping:
// pings those with no traffic, drops those that leave a ping unanswered for
// IdleTimeout). One loop for the node instead of a timer per connection keeps
// idle connections cheap.
func (s *Edge) pingLoop() {
	t := time.NewTicker(s.opt.PingInterval)
	defer t.Stop()
	defer s.poller.close()
	prevRound := time.Now().UnixNano()
	for {
		var now time.Time
		select {
		case <-s.ctx.Done():
			return
		case now = <-t.C:
		}
		s.mu.Lock()
		conns := make([]*wsConn, 0, len(s.sessions))
		for sess := range s.sessions {
			if c, ok := sess.(*wsConn); ok {
				conns = append(conns, c)
			}
		}
		s.mu.Unlock()
		for _, c := range conns {
			c.ping(now, prevRound)
		}
		prevRound = now.UnixNano()
	}
}

// Routes adds the edge's handlers to mux.
func (s *Edge) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /ws", s.serveWS)
	mux.HandleFunc("GET /sse/{path...}", s.serveSSE)
	mux.HandleFunc("POST /pub/{path...}", s.servePublish)
}

// track registers a session (under its token once it has one); called again after
// authentication and after a refresh, with the claims it had before.
func (s *Edge) track(sess session, old *auth.Claims) {
	c := sess.claims()
	s.mu.Lock()
	defer s.mu.Unlock()
	if old != nil {
		s.removeFromToken(old.JTI, sess)
		removeFrom(s.byApp, old.App, sess)
	}
	s.sessions[sess] = struct{}{}
	if c != nil {
		s.addToToken(c, sess)
		addTo(s.byApp, c.App, sess)
	}
}

func (s *Edge) untrack(sess session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, sess)
	if c := sess.claims(); c != nil {
		s.removeFromToken(c.JTI, sess)
		removeFrom(s.byApp, c.App, sess)
		// Every session with claims was admitted (admit) before it was tracked.
		s.opt.Quota.Close(c.App)
	}
}

// addToToken registers sess under its token, arming the token's expiry timer
// when it is the first; called with s.mu held.
func (s *Edge) addToToken(c *auth.Claims, sess session) {
	ts := s.byJTI[c.JTI]
	if ts == nil {
		ts = &tokenSessions{sessions: map[session]struct{}{}}
		jti := c.JTI
		ts.expiry = time.AfterFunc(time.Until(time.Unix(c.ExpiresAt, 0)), func() { s.tokenExpired(jti) })
		s.byJTI[jti] = ts
	}
	ts.sessions[sess] = struct{}{}
}

// removeFromToken is addToToken's reverse; called with s.mu held.
func (s *Edge) removeFromToken(jti string, sess session) {
	ts := s.byJTI[jti]
	if ts == nil {
		return
	}
	delete(ts.sessions, sess)
	if len(ts.sessions) == 0 {
		ts.expiry.Stop()
		delete(s.byJTI, jti)
	}
}

// tokenExpired ends the sessions of an expired token (a refreshed session has
// moved to its new token already). A jti names one token, so its sessions expire
// together; one whose claims say otherwise keeps the timer going.
func (s *Edge) tokenExpired(jti string) {
	now := time.Now().Unix()
	var victims []session
	s.mu.Lock()
	if ts := s.byJTI[jti]; ts != nil {
		next := int64(0)
		for sess := range ts.sessions {
			c := sess.claims()
			switch {
			case c == nil || c.ExpiresAt <= now:
				victims = append(victims, sess)
			case next == 0 || c.ExpiresAt < next:
				next = c.ExpiresAt
			}
		}
		if next != 0 {
			ts.expiry.Reset(time.Until(time.Unix(next, 0)))
		}
	}
	s.mu.Unlock()
	for _, sess := range victims {
		s.opt.Metrics.ExpiryCloses.Inc()
		sess.terminate(protocol.CodeTokenExpired, "token expired")
	}
}

func addTo(m map[string]map[session]struct{}, k string, sess session) {
	set := m[k]
	if set == nil {
		set = map[session]struct{}{}
		m[k] = set
	}
	set[sess] = struct{}{}
}

func removeFrom(m map[string]map[session]struct{}, k string, sess session) {
	if set := m[k]; set != nil {
		delete(set, sess)
		if len(set) == 0 {
			delete(m, k)
		}
	}
}

// The catalog.RevocationListener methods: revocations end live sessions.

// TokenRevoked closes every session using the token at once.
func (s *Edge) TokenRevoked(jti string) {
	s.mu.Lock()
	var victims []session
	if ts := s.byJTI[jti]; ts != nil {
		for sess := range ts.sessions {
			victims = append(victims, sess)
		}
	}
	s.mu.Unlock()
	s.revoke(victims, "token revoked")
}

// AppRevoked closes the app's sessions whose token was issued before notBefore.
func (s *Edge) AppRevoked(appID string, notBefore int64) {
	reason := "all tokens of this app were revoked"
	if notBefore == math.MaxInt64 {
		reason = "app deleted"
	}
	s.mu.Lock()
	var victims []session
	for sess := range s.byApp[appID] {
		if c := sess.claims(); c != nil && c.IssuedAt < notBefore {
			victims = append(victims, sess)
		}
	}
	s.mu.Unlock()
	s.revoke(victims, reason)
}

func (s *Edge) revoke(victims []session, reason string) {
	for _, sess := range victims {
		s.opt.Metrics.RevocationCloses.Inc()
		sess.terminate(protocol.CodeTokenRevoked, reason)
	}
}

// Shutdown tells every client to reconnect elsewhere (1012) and waits, up to
// ctx, for the sessions to end. Delivery stops first: every client resumes
// from its last position on another node, so what this node would still write
// is only work competing with telling the clients (at 19,000 clients, most of
// the node's CPU).
func (s *Edge) Shutdown(ctx context.Context) {
	if s.opt.Hub != nil {
		go s.opt.Hub.Close() // waits for the consumers' Kafka clients to close
	}
	s.mu.Lock()
	s.draining = true
	s.stopping.Store(true) // no publish is taken from now on (refused with 5003)
	all := make([]session, 0, len(s.sessions))
	for sess := range s.sessions {
		all = append(all, sess)
	}
	s.mu.Unlock()
	began := time.Now()
	// A session with publishes in Kafka's hands is told last: their answers
	// must reach it first (a closed connection's client cannot know they were
	// written, and would publish them again elsewhere).
	// One look per session: a count read twice could put a session in both
	// lists or in neither.
	var waiting []session
	all = slices.DeleteFunc(all, func(sess session) bool {
		if sess.publishesInFlight() > 0 {
			waiting = append(waiting, sess)
			return true
		}
		return false
	})
	tell := func(sessions []session) {
		// One share per core: each notice is a write(2), and on a busy node the
		// last client of 19,000 would otherwise wait for all the others' writes.
		var wg sync.WaitGroup
		shares := max(runtime.GOMAXPROCS(0), 1)
		for i := range shares {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := i; j < len(sessions); j += shares {
					sessions[j].terminate(protocol.CloseServiceRestart, "server shutting down; reconnect and resume")
				}
			}()
		}
		wg.Wait()
	}
	tell(all)
	// Kafka answers a produce within its delivery timeout; this waits half
	// the grace at most, so the notices still go out within it.
	if len(waiting) > 0 {
		half := 5 * time.Second
		if deadline, ok := ctx.Deadline(); ok {
			half = time.Until(deadline) / 2
		}
		wait, cancel := context.WithTimeout(ctx, half)
		for wait.Err() == nil && slices.ContainsFunc(waiting, func(sess session) bool { return sess.publishesInFlight() > 0 }) {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
		tell(waiting)
	}
	all = append(all, waiting...)
	told := time.Since(began)
	n := len(all)
	for ctx.Err() == nil {
		s.mu.Lock()
		n = len(s.sessions)
		s.mu.Unlock()
		if n == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.log.Info("clients told to reconnect elsewhere", "sessions", len(all), "queued_in", told.String(), "ended_in", time.Since(began).String(), "left", n)
	s.cancel()
}
