// Package node wires one gateway node together: Kafka, the catalog, token
// verification, the hub, the edge and the HTTP server.
package node

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluicehq/sluice/apps/gateway/internal/auth"
	"github.com/sluicehq/sluice/apps/gateway/internal/catalog"
	"github.com/sluicehq/sluice/apps/gateway/internal/config"
	"github.com/sluicehq/sluice/apps/gateway/internal/edge"
	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/kafka"
	"github.com/sluicehq/sluice/apps/gateway/internal/metrics"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/quota"
	"github.com/sluicehq/sluice/apps/gateway/internal/registry"
	"github.com/sluicehq/sluice/apps/gateway/internal/schema"
	"github.com/sluicehq/sluice/apps/gateway/internal/schemawire"
	"github.com/sluicehq/sluice/apps/gateway/internal/server"
	"github.com/sluicehq/sluice/apps/gateway/internal/servetls"
	"github.com/sluicehq/sluice/apps/gateway/internal/usage"
)

// Node is a running gateway node's parts, exposed for tests.
type Node struct {
	Catalog *catalog.Catalog
	Hub     *hub.Hub
	Edge    *edge.Edge
	Server  *server.Server
	Metrics *metrics.Metrics
	// NodeID names the node in its usage records.
	NodeID string
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
	sec, err := cfg.KafkaSecurity()
	if err != nil {
		return nil, nil, err
	}
	if warning := cfg.InsecureWarning(); warning != "" {
		log.Warn(warning)
	}
	// The listener's own certificate, read now so a bad file stops the start.
	var cert *servetls.Certificate
	if cfg.ServesTLS() {
		if cert, err = servetls.Load(cfg.TLSCertFile, cfg.TLSKeyFile); err != nil {
			return nil, nil, err
		}
	}
	proxies, err := cfg.ProxyPrefixes()
	if err != nil {
		return nil, nil, err
	}
	kc := kafka.ClientOptions{Brokers: cfg.KafkaBrokers, Security: sec, Logger: log}
	cluster, err := kafka.New(kc)
	if err != nil {
		return nil, nil, fmt.Errorf("kafka: %w", err)
	}
	cluster.CheckEvery, cluster.GoneAfter = cfg.TopicCheckInterval, cfg.TopicGoneAfter
	m := metrics.New()
	cat := catalog.New(catalog.Options{ParseJWK: auth.ParsePublicJWK, Logger: log.With("component", "catalog")})
	verifier := auth.NewVerifier(auth.Config{Issuer: cfg.TokenIssuer, Audience: cfg.TokenAudience, Keys: cat, Revocations: cat})
	// Endpoints of the schema-registry formats: their records are decoded on
	// the way in (schemawire.Backend) and their publishes encoded.
	var backend hub.Backend = cluster
	var encoder *schemawire.Encoder
	if cfg.RegistryConfigured() {
		ro, err := cfg.RegistryOptions()
		if err != nil {
			return nil, nil, err
		}
		reg := registry.New(ro)
		resolve := schema.RegistryResolver(reg)
		dec := schemawire.New(schemawire.Options{Registry: reg, Compile: func(ctx context.Context, s *registry.Schema) (schemawire.Codec, error) {
			return schema.Compile(ctx, s, resolve)
		}})
		backend = schemawire.NewBackend(cluster, dec, cat)
		encoder = schemawire.NewEncoder(reg, func(ctx context.Context, s *registry.Schema, record string) (schemawire.Encoding, error) {
			return schema.CompileMessage(ctx, s, resolve, record)
		})
	}
	// Usage metering: counted by the edge, reported by usage.Reporter.
	var meter *usage.Meter
	if cfg.UsageInterval > 0 {
		meter = usage.NewMeter()
	}
	nodeID := cfg.NodeID
	if nodeID == "" {
		b := make([]byte, 4)
		_, _ = rand.Read(b)
		nodeID = "gw-" + hex.EncodeToString(b)
	}
	// Plans: enforced here, shared with the other nodes through their usage
	// records (Peers) when metering is on.
	var peers *usage.Peers
	var reader, writer *kgo.Client
	enforcerPeers := quota.Peers(nil)
	if meter != nil {
		peers = usage.NewPeers(nodeID)
		enforcerPeers = peers
		// The other nodes' records, from a little before now (their latest).
		if reader, err = kafka.NewUsageReader(kc, cfg.UsageTopic, time.Now().Add(-3*cfg.UsageInterval)); err != nil {
			return nil, nil, fmt.Errorf("usage: %w", err)
		}
		if writer, err = kafka.NewUsageWriter(kc); err != nil {
			return nil, nil, fmt.Errorf("usage: %w", err)
		}
	}
	enforcer := quota.New(cat, enforcerPeers)
	hubCfg := hub.Config{CacheSize: cfg.CacheSize, Logger: log.With("component", "hub")}
	if cfg.IOUring {
		if rw, err := edge.NewRingWriter(); err != nil {
			log.Info("WebSocket writes: one writev per socket; io_uring is not available", "err", err)
		} else {
			hubCfg.NewWriteBatch = rw.NewBatch
			m.AddCounterFunc("sluice_gateway_io_uring_submissions_total", "io_uring submissions of batched WebSocket sends.", func() float64 { return float64(rw.Submissions()) })
			m.AddCounterFunc("sluice_gateway_io_uring_sends_total", "WebSocket sends made through io_uring.", func() float64 { return float64(rw.Sends()) })
		}
	}
	h := hub.New(backend, hubCfg)
	e := edge.New(edge.Options{
		Verifier: verifier, Catalog: cat, Hub: h, Kafka: cluster, Metrics: m,
		Logger:                   log.With("component", "edge"),
		QueueSize:                cfg.QueueSize,
		SlowPolicy:               edge.SlowPolicy(cfg.SlowPolicy),
		MaxSubscriptions:         cfg.MaxSubscriptions,
		Encoder:                  encoder,
		Meter:                    meter,
		Quota:                    enforcer,
		TrustedProxies:           proxies,
		MaxConnectionsPerAddress: cfg.MaxConnectionsPerAddress,
	})
	// Catalog changes reach live clients: endpoint changes the hub's
	// subscriptions, revocations the edge's sessions. Set before the catalog
	// runs (start), so no change goes untold.
	cat.Listen(catalog.Listeners{Endpoints: endpointsToHub{cat: cat, hub: h}, Revocations: e})
	stats := h.Stats()
	m.AddGaugeFunc("sluice_gateway_subscriptions", "Open subscriptions.", func() float64 { return float64(stats.Subscriptions.Load()) })
	m.AddCounterFunc("sluice_gateway_records_consumed_total", "Records read from Kafka by live consumers.", func() float64 { return float64(stats.Records.Load()) })
	m.AddCounterFunc("sluice_gateway_frames_built_total", "Records that had subscribers (one frame each, shared).", func() float64 { return float64(stats.Frames.Load()) })
	m.AddCounterFunc("sluice_gateway_resumes_from_cache_total", "Subscriptions resumed from the in-memory cache.", func() float64 { return float64(stats.CacheHits.Load()) })
	m.AddCounterFunc("sluice_gateway_catchup_reads_total", "Subscriptions that read history from Kafka.", func() float64 { return float64(stats.CatchUps.Load()) })
	m.AddGaugeFunc("sluice_gateway_catalog_offset_lag", "Catalog records this node has not applied yet.", func() float64 { return float64(cat.OffsetLag()) })
	m.AddCounterFunc("sluice_gateway_catchup_passes_total", "Passes over a partition that served those reads (each serves every catch-up of the partition waiting at the time).", func() float64 { return float64(stats.CatchUpPasses.Load()) })

	if cert != nil {
		m.AddGaugeFunc("sluice_gateway_tls_certificate_expiry_timestamp_seconds", "When the served TLS certificate expires (unix seconds).", func() float64 { return float64(cert.NotAfter().Unix()) })
	}
	srv := server.New(cfg, log, server.Deps{Edge: e, Metrics: m, Ready: cat.Ready(), TLS: cert})
	n := &Node{Catalog: cat, Hub: h, Edge: e, Server: srv, Metrics: m, NodeID: nodeID}
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
		stopReporting := func() {}
		if meter != nil {
			reporter := usage.NewReporter(usage.Options{
				Node: nodeID, Version: server.Version, Interval: cfg.UsageInterval, Meter: meter,
				Gauges: e.UsageGauges, CatalogOffsetLag: cat.OffsetLag,
				Write: func(ctx context.Context, key, value []byte) error {
					return writer.ProduceSync(ctx, &kgo.Record{Topic: cfg.UsageTopic, Key: key, Value: value}).FirstErr()
				},
				Logger: log.With("component", "usage"),
			})
			usageCtx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { defer close(done); reporter.Run(usageCtx) }()
			followed := make(chan struct{})
			go func() { defer close(followed); peers.Follow(usageCtx, reader, log.With("component", "usage")) }()
			// After the server: its final record counts what the last
			// sessions were sent.
			stopReporting = func() { cancel(); <-done; <-followed; reader.Close(); writer.Close() }
			log.Info("usage metering on", "node", nodeID, "topic", cfg.UsageTopic, "interval", cfg.UsageInterval)
		}
		err := srv.Run(ctx)
		stopReporting()
		stopCatalog()
		wg.Wait()
		return err
	}
	return n, start, nil
}

// endpointsToHub is the catalog's endpoint listener: after a change it tells
// the hub how the paths involved are served now (their format, whether they
// may still be subscribed to), so the hub's live subscriptions take the new
// format or end. It asks the catalog rather than trusting new: one record can
// change several endpoints (a removal lets a held-back endpoint take the
// path), and the catalog's state is that after the whole record.
type endpointsToHub struct {
	cat *catalog.Catalog
	hub *hub.Hub
}

func (l endpointsToHub) EndpointChanged(old, new *catalog.Endpoint) {
	if old != nil {
		l.served(old)
	}
	if new != nil && (old == nil || !samePaths(old, new)) {
		l.served(new)
	}
}

// served tells the hub how the paths of e (its key, or for a parameterised
// endpoint every key of its topic without an exact endpoint) are served now.
func (l endpointsToHub) served(e *catalog.Endpoint) {
	if e.KeyParam != "" {
		l.hub.ParamServed(e.Topic, edge.Served(l.cat.ParamEndpoint(e.Topic)))
		return
	}
	p := protocol.Path{Topic: e.Topic, Key: e.Key}
	l.hub.KeyServed(p, edge.Served(l.cat.Resolve(p)))
}

// samePaths reports whether a and b claim the same paths.
func samePaths(a, b *catalog.Endpoint) bool {
	return a.Topic == b.Topic && a.Key == b.Key && (a.KeyParam == "") == (b.KeyParam == "")
}
