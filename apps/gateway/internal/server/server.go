// Package server owns the gateway's HTTP listener: its routes and its graceful
// shutdown. Protocol endpoints (WebSocket, SSE, publish) are added here as they land.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/config"
)

// Version is set at build time with -ldflags "-X .../internal/server.Version=...".
var Version = "dev"

// Server is one gateway node's HTTP side.
type Server struct {
	cfg  config.Config
	log  *slog.Logger
	http *http.Server
	// ready is closed once the listener accepts connections (used by tests).
	ready chan struct{}
	addr  net.Addr
}

// New builds a server; nothing listens until Run.
func New(cfg config.Config, log *slog.Logger) *Server {
	s := &Server{cfg: cfg, log: log, ready: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.handleHealthz)
	s.http = &http.Server{
		Handler:           mux,
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
// configured grace period. It returns nil after a clean shutdown.
func (s *Server) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	s.addr = ln.Addr()
	close(s.ready)
	s.log.Info("gateway listening", "addr", ln.Addr().String(), "version", Version)

	serveErr := make(chan error, 1)
	go func() { serveErr <- s.http.Serve(ln) }()

	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	s.log.Info("gateway shutting down", "grace", s.cfg.ShutdownGrace.String())
	shutdownCtx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownGrace)
	defer cancel()
	if err := s.http.Shutdown(shutdownCtx); err != nil {
		return err
	}
	if err := <-serveErr; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (s *Server) handleHealthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]string{"status": "ok", "service": "gateway", "version": Version})
}
