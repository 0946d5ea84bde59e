// Package node wires one gateway node together: Kafka, the catalog, token
// verification, the hub, the edge and the HTTP server.
package node

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/sluicehq/sluice/apps/gateway/internal/auth"
	"github.com/sluicehq/sluice/apps/gateway/internal/catalog"
	"github.com/sluicehq/sluice/apps/gateway/internal/config"
	"github.com/sluicehq/sluice/apps/gateway/internal/edge"
	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/kafka"
	"github.com/sluicehq/sluice/apps/gateway/internal/metrics"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/server"
)

// Node is a running gateway node's parts, exposed for tests.
type Node struct {
	Catalog *catalog.Catalog
	Hub     *hub.Hub
	Edge    *edge.Edge
	Server  *server.Server
	Metrics *metrics.Metrics
}

// Run starts a node and blocks until ctx is cancelled and the node has shut down.
func Run(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	_, start, err := Build(cfg, log)
	if err != nil {
		return err
	}
	return start(ctx)
}

// Build assembles a node; the returned start function runs it until ctx ends.
func Build(cfg config.Config, log *slog.Logger) (*Node, func(context.Context) error, error) {
	// Every Kafka client of the node, the catalog's included, is built from kc.
	kc := kafka.ClientOptions{Brokers: cfg.KafkaBrokers, Logger: log}
	cluster, err := kafka.New(kc)
	if err != nil {
		return nil, nil, fmt.Errorf("kafka: %w", err)
	}
	cluster.CheckEvery, cluster.GoneAfter = cfg.TopicCheckInterval, cfg.TopicGoneAfter
	m := metrics.New()
	// The catalog needs its listener at construction and the edge needs the
	// catalog: the forwarder is pointed at the edge once it exists.
	fwd := &listener{}
	cat := catalog.New(catalog.Options{ParseJWK: auth.ParsePublicJWK, Listener: fwd, Logger: log.With("component", "catalog")})
	verifier := auth.NewVerifier(auth.Config{Issuer: cfg.TokenIssuer, Audience: cfg.TokenAudience, Keys: cat, Revocations: cat})
	h := hub.New(cluster, hub.Config{
		CacheSize: cfg.CacheSize,
		Logger:    log.With("component", "hub"),
		Resolve: func(p protocol.Path) (string, bool) {
			ep := cat.Resolve(p)
			if ep == nil || !ep.Allows(protocol.OpSubscribe) {
				return "", false
			}
			return string(ep.Format), true
		},
	})
	e := edge.New(edge.Options{
		Verifier: verifier, Catalog: cat, Hub: h, Kafka: cluster, Metrics: m,
		Logger:           log.With("component", "edge"),
		QueueSize:        cfg.QueueSize,
		SlowPolicy:       edge.SlowPolicy(cfg.SlowPolicy),
		MaxSubscriptions: cfg.MaxSubscriptions,
	})
	fwd.set(e)
	stats := h.Stats()
	m.AddGaugeFunc("sluice_gateway_subscriptions", "Open subscriptions.", func() float64 { return float64(stats.Subscriptions.Load()) })
	m.AddCounterFunc("sluice_gateway_records_consumed_total", "Records read from Kafka by live consumers.", func() float64 { return float64(stats.Records.Load()) })
	m.AddCounterFunc("sluice_gateway_frames_built_total", "Records that had subscribers (one frame each, shared).", func() float64 { return float64(stats.Frames.Load()) })
	m.AddCounterFunc("sluice_gateway_resumes_from_cache_total", "Subscriptions resumed from the in-memory cache.", func() float64 { return float64(stats.CacheHits.Load()) })
	m.AddCounterFunc("sluice_gateway_catchup_reads_total", "Subscriptions that read history from Kafka.", func() float64 { return float64(stats.CatchUps.Load()) })
	m.AddCounterFunc("sluice_gateway_catchup_passes_total", "Passes over a partition that served those reads (each serves every catch-up of the partition waiting at the time).", func() float64 { return float64(stats.CatchUpPasses.Load()) })

	srv := server.New(cfg, log, server.Deps{Edge: e, Metrics: m, Ready: cat.Ready()})
	n := &Node{Catalog: cat, Hub: h, Edge: e, Server: srv, Metrics: m}
	start := func(ctx context.Context) error {
		defer cluster.Close()
		defer h.Close()
		catCtx, stopCatalog := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cat.Run(catCtx, kc, cfg.CatalogTopic); err != nil {
				log.Error("catalog stopped", "err", err)
			}
		}()
		go func() {
			<-cat.Ready()
			log.Info("catalog loaded", "endpoints", cat.Stats().Endpoints, "keys", cat.Stats().Keys, "apps", cat.Stats().Apps)
		}()
		err := srv.Run(ctx)
		stopCatalog()
		wg.Wait()
		return err
	}
	return n, start, nil
}

// listener forwards catalog changes to the edge once it exists.
type listener struct {
	mu sync.RWMutex
	e  *edge.Edge
}

func (l *listener) set(e *edge.Edge) { l.mu.Lock(); l.e = e; l.mu.Unlock() }

func (l *listener) get() *edge.Edge { l.mu.RLock(); defer l.mu.RUnlock(); return l.e }

func (l *listener) EndpointChanged(old, new *catalog.Endpoint) {
	if e := l.get(); e != nil {
		e.EndpointChanged(old, new)
	}
}

func (l *listener) TokenRevoked(jti string) {
	if e := l.get(); e != nil {
		e.TokenRevoked(jti)
	}
}

func (l *listener) AppRevoked(appID string, notBefore int64) {
	if e := l.get(); e != nil {
		e.AppRevoked(appID, notBefore)
	}
}
