// Package metrics holds the gateway's Prometheus metrics, served at /metrics.
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics are one node's counters. Every field is safe for concurrent use.
type Metrics struct {
	Registry *prometheus.Registry

	Connections *prometheus.GaugeVec // by transport: ws, sse
	// Deliveries counts the message frames written to clients (messages,
	// bytes, delay from the record's timestamp).
	Deliveries       *Deliveries
	MessagesIn       prometheus.Counter // published by clients, acknowledged by Kafka
	BytesIn          prometheus.Counter
	Dropped          prometheus.Counter // messages dropped for slow clients (gap sent)
	SlowDisconnects  prometheus.Counter
	RevocationCloses prometheus.Counter
	ExpiryCloses     prometheus.Counter
	FrameErrors      *prometheus.CounterVec // error frames sent, by code
	// QuotaRefusals counts what the apps' plans refused, by kind:
	// connection, subscription, publish, delivery (messages not sent).
	QuotaRefusals *prometheus.CounterVec
}

// New registers the metrics; counters owned elsewhere (the hub's) are added with
// AddCounterFunc / AddGaugeFunc.
func New() *Metrics {
	r := prometheus.NewRegistry()
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &Metrics{
		Registry:         r,
		Connections:      prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "sluice_gateway_connections", Help: "Open client connections."}, []string{"transport"}),
		Deliveries:       newDeliveries(),
		MessagesIn:       prometheus.NewCounter(prometheus.CounterOpts{Name: "sluice_gateway_messages_in_total", Help: "Messages published by clients and acknowledged by Kafka."}),
		BytesIn:          prometheus.NewCounter(prometheus.CounterOpts{Name: "sluice_gateway_bytes_in_total", Help: "Payload bytes published by clients."}),
		Dropped:          prometheus.NewCounter(prometheus.CounterOpts{Name: "sluice_gateway_dropped_messages_total", Help: "Messages dropped for slow clients (reported to them as gaps)."}),
		SlowDisconnects:  prometheus.NewCounter(prometheus.CounterOpts{Name: "sluice_gateway_slow_disconnects_total", Help: "Connections closed as slow consumers."}),
		RevocationCloses: prometheus.NewCounter(prometheus.CounterOpts{Name: "sluice_gateway_revocation_closes_total", Help: "Connections closed because their token or app was revoked."}),
		ExpiryCloses:     prometheus.NewCounter(prometheus.CounterOpts{Name: "sluice_gateway_expiry_closes_total", Help: "Connections closed because their token expired."}),
		FrameErrors:      prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sluice_gateway_error_frames_total", Help: "Error frames sent, by protocol code."}, []string{"code"}),
		QuotaRefusals:    prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sluice_gateway_quota_refusals_total", Help: "What the apps' plans refused: connections, subscriptions, publishes, deliveries (messages not sent)."}, []string{"kind"}),
	}
	r.MustRegister(m.Connections, m.Deliveries, m.MessagesIn, m.BytesIn, m.Dropped,
		m.SlowDisconnects, m.RevocationCloses, m.ExpiryCloses, m.FrameErrors, m.QuotaRefusals)
	return m
}

// AddCounterFunc exposes a counter kept elsewhere.
func (m *Metrics) AddCounterFunc(name, help string, f func() float64) {
	m.Registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, f))
}

// AddGaugeFunc exposes a gauge kept elsewhere.
func (m *Metrics) AddGaugeFunc(name, help string, f func() float64) {
	m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f))
}
