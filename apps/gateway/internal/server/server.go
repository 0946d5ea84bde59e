// Package server owns the gateway's HTTP listener: health, readiness, metrics and
// the client-facing edge, and the node's graceful shutdown.
package server

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sluicehq/sluice/apps/gateway/internal/config"
	"github.com/sluicehq/sluice/apps/gateway/internal/edge"
	"github.com/sluicehq/sluice/apps/gateway/internal/metrics"
	"github.com/sluicehq/sluice/apps/gateway/internal/servetls"
)

// certCheckInterval is how often the TLS certificate files are read for a
// renewal: cheap (two small files), and a renewed certificate is in use
// within seconds.
var certCheckInterval = 2 * time.Second

// Version is set at build time with -ldflags "-X .../internal/server.Version=...".
var Version = "dev"

// Deps are the parts of a node the HTTP side serves; any may be nil in tests.
type Deps struct {
	Edge    *edge.Edge
	Metrics *metrics.Metrics
	// Ready is closed once the node can serve (the catalog is loaded).
	Ready <-chan struct{}
	// TLS, when set, makes the listener serve TLS with this certificate
	// (watched for renewals while the server runs).
	TLS *servetls.Certificate
}

// Server is one gateway node's HTTP side.
type Server struct {
	cfg  config.Config
	log  *slog.Logger
	deps Deps
	http *http.Server
	// ready is closed once the listener accepts connections (used by tests).
	ready chan struct{}
	addr  net.Addr
}

// New builds a server; nothing listens until Run.
func New(cfg config.Config, log *slog.Logger, deps Deps) *Server {
	s := &Server{cfg: cfg, log: log, deps: deps, ready: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.handleHealthz)
	mux.HandleFunc("GET /readyz", s.handleReadyz)
	if deps.Metrics != nil {
		mux.Handle("GET /metrics", promhttp.HandlerFor(deps.Metrics.Registry, promhttp.HandlerOpts{}))
	}
	if deps.Edge != nil {
		clients := http.NewServeMux()
		deps.Edge.Routes(clients)
		mux.Handle("/", untilReady(deps.Ready, clients))
	}
	s.http = &http.Server{
		Handler: mux,
		// Also bounds a TLS handshake (net/http uses the shortest of its
		// timeouts for it): a stalled handshake holds a goroutine.
		ReadHeaderTimeout: 10 * time.Second,
	}
	return s
}

// Handler exposes the routes for in-process tests.
func (s *Server) Handler() http.Handler { return s.http.Handler }

// Ready is closed once Run listens; Addr is valid after that.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Addr is the bound address (useful when the configured port is 0).
func (s *Server) Addr() net.Addr { return s.addr }

// Run listens until ctx is cancelled, then shuts down gracefully within the
// configured grace period: WebSocket and SSE clients are told to reconnect
// elsewhere (1012), then open requests finish. It returns nil after a clean
// shutdown.
func (s *Server) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	s.addr = ln.Addr()
	scheme := "http"
	if s.deps.TLS != nil {
		minVersion, err := s.cfg.MinTLSVersion()
		if err != nil {
			_ = ln.Close()
			return err
		}
		ln = tls.NewListener(ln, s.deps.TLS.Config(minVersion))
		scheme = "https"
		watchCtx, stopWatching := context.WithCancel(context.Background())
		defer stopWatching()
		go s.deps.TLS.Watch(watchCtx, certCheckInterval, s.log, nil)
	}
	close(s.ready)
	s.log.Info("gateway listening", "addr", ln.Addr().String(), "scheme", scheme, "version", Version)

	serveErr := make(chan error, 1)
	go func() { serveErr <- s.http.Serve(ln) }()
	if s.cfg.DebugAddr != "" {
		go s.serveDebug()
	}

	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	s.log.Info("gateway shutting down", "grace", s.cfg.ShutdownGrace.String())
	shutdownCtx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownGrace)
	defer cancel()
	s.http.SetKeepAlivesEnabled(false)
	if s.deps.Edge != nil {
		// Hijacked (WebSocket) connections are not tracked by http.Server.
		s.deps.Edge.Shutdown(shutdownCtx)
	}
	if err := s.http.Shutdown(shutdownCtx); err != nil {
		return err
	}
	if err := <-serveErr; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// serveDebug serves pprof on its own listener so profiles are never exposed on
// the public port.
func (s *Server) serveDebug() {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	s.log.Info("pprof listening", "addr", s.cfg.DebugAddr)
	srv := &http.Server{Addr: s.cfg.DebugAddr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		s.log.Error("pprof listener stopped", "err", err)
	}
}

func (s *Server) handleHealthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "service": "gateway", "version": Version})
}

// handleReadyz answers 200 once the catalog is loaded, so a load balancer sends
// clients only to nodes that know every endpoint, key and revocation.
func (s *Server) handleReadyz(w http.ResponseWriter, _ *http.Request) {
	if s.deps.Ready != nil {
		select {
		case <-s.deps.Ready:
		default:
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "loading catalog"})
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// untilReady answers client routes (/ws, /sse, /pub) with 503 and Retry-After
// until the catalog is loaded. Before that a node knows no keys, apps or
// endpoints, so it would refuse valid tokens (4001) and live endpoints (4004) —
// answers a client must treat as final. A 503 instead makes clients retry, on
// this node or another.
func untilReady(ready <-chan struct{}, next http.Handler) http.Handler {
	if ready == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-ready:
			next.ServeHTTP(w, r)
		default:
			w.Header().Set("Retry-After", "1")
			w.Header().Set("Content-Type", "application/problem+json")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"type":"about:blank","title":"Service Unavailable","status":503,"code":5003,"detail":"this gateway node is still loading the catalog; retry in a moment"}`))
		}
	})
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
