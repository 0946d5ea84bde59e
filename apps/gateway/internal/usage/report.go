package usage

import (
	"context"
	"encoding/json"
	"log/slog"
	"sort"
	"time"
)

// Record is one usage record: one node's usage over one interval (the
// contract is docs/usage.md). Counters are of the interval alone; gauges are
// their value at its end.
type Record struct {
	V                int         `json:"v"`
	Node             string      `json:"node"`
	Version          string      `json:"version"`
	StartedAt        int64       `json:"started_at"`
	IntervalStart    int64       `json:"interval_start"`
	IntervalEnd      int64       `json:"interval_end"`
	Final            bool        `json:"final"`
	CatalogOffsetLag int64       `json:"catalog_offset_lag"`
	Connections      int         `json:"connections"`
	Apps             []AppRecord `json:"apps"`
}

// AppRecord is one app's usage in a Record.
type AppRecord struct {
	App         string     `json:"app"`
	Connections int        `json:"connections"`
	Errors      int64      `json:"errors"`
	Refused     AppRefused `json:"refused"`
	// Left out when empty (an app connected but subscribed to nothing): a nil
	// slice would be written as null, which the bridge refused, record and all.
	Endpoints []EndpointRecord `json:"endpoints,omitempty"`
}

// AppRefused counts the app's refusals not tied to an endpoint.
type AppRefused struct {
	Connections int64 `json:"connections"`
}

// EndpointRecord is one app's usage of one endpoint in a Record.
type EndpointRecord struct {
	Endpoint       string          `json:"endpoint"`
	Path           string          `json:"path"`
	Subscriptions  int             `json:"subscriptions"`
	Delivered      int64           `json:"delivered"`
	DeliveredBytes int64           `json:"delivered_bytes"`
	Published      int64           `json:"published"`
	PublishedBytes int64           `json:"published_bytes"`
	Errors         int64           `json:"errors"`
	Refused        EndpointRefused `json:"refused"`
}

// EndpointRefused counts the quota refusals on an endpoint.
type EndpointRefused struct {
	Subscriptions int64 `json:"subscriptions"`
	Publish       int64 `json:"publish"`
	Delivered     int64 `json:"delivered"`
}

// Gauges are the edge's live counts when a report is made.
type Gauges struct {
	Connections int // every authenticated session of the node
	Apps        map[string]AppGauges
}

// AppGauges are one app's live counts.
type AppGauges struct {
	Connections   int
	Subscriptions map[EndpointRef]int
}

// EndpointRef names a catalog endpoint: its id and path pattern.
type EndpointRef struct{ ID, Path string }

// take moves the counters into the apps of a record and adds the gauges;
// an app or endpoint with nothing to report is left out.
func (m *Meter) take(g Gauges) []AppRecord {
	m.mu.Lock()
	apps := make([]*App, 0, len(m.apps))
	for _, a := range m.apps {
		apps = append(apps, a)
	}
	m.mu.Unlock()
	var out []AppRecord
	seen := map[string]bool{}
	for _, a := range apps {
		seen[a.id] = true
		ag := g.Apps[a.id]
		r := AppRecord{App: a.id, Connections: ag.Connections, Errors: a.errors.Swap(0), Refused: AppRefused{Connections: a.refusedConnections.Swap(0)}}
		a.mu.Lock()
		eps := make([]*Endpoint, 0, len(a.endpoints))
		for _, e := range a.endpoints {
			eps = append(eps, e)
		}
		a.mu.Unlock()
		subs := ag.Subscriptions
		for _, e := range eps {
			delivered, deliveredBytes := e.takeDelivered()
			er := EndpointRecord{
				Endpoint: e.id, Path: e.path, Subscriptions: subs[EndpointRef{e.id, e.path}],
				Delivered: delivered, DeliveredBytes: deliveredBytes,
				Published: e.published.Swap(0), PublishedBytes: e.publishedBytes.Swap(0), Errors: e.errors.Swap(0),
				Refused: EndpointRefused{Subscriptions: e.refusedSubscriptions.Swap(0), Publish: e.refusedPublish.Swap(0), Delivered: e.refusedDelivered.Swap(0)},
			}
			delete(subs, EndpointRef{e.id, e.path})
			// A path the catalog no longer serves has no endpoint id; the
			// aggregator keys usage by endpoint, so its counts are left out.
			if e.id != "" && er != (EndpointRecord{Endpoint: e.id, Path: e.path}) {
				r.Endpoints = append(r.Endpoints, er)
			}
		}
		for ref, n := range subs { // subscribed, nothing counted yet
			if ref.ID != "" {
				r.Endpoints = append(r.Endpoints, EndpointRecord{Endpoint: ref.ID, Path: ref.Path, Subscriptions: n})
			}
		}
		if r.Connections > 0 || r.Errors > 0 || r.Refused.Connections > 0 || len(r.Endpoints) > 0 {
			out = append(out, r)
		}
	}
	for id, ag := range g.Apps { // connected, nothing counted yet
		if seen[id] {
			continue
		}
		r := AppRecord{App: id, Connections: ag.Connections}
		for ref, n := range ag.Subscriptions {
			if ref.ID == "" {
				continue
			}
			r.Endpoints = append(r.Endpoints, EndpointRecord{Endpoint: ref.ID, Path: ref.Path, Subscriptions: n})
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].App < out[j].App })
	for _, r := range out {
		sort.Slice(r.Endpoints, func(i, j int) bool { return r.Endpoints[i].Endpoint < r.Endpoints[j].Endpoint })
	}
	return out
}

// Options configure a Reporter.
type Options struct {
	Node, Version string
	Interval      time.Duration
	Meter         *Meter
	// Gauges reads the edge's live counts.
	Gauges func() Gauges
	// CatalogOffsetLag reads how far the node is behind the catalog.
	CatalogOffsetLag func() int64
	// Write writes one record to the usage topic (key: the node) and returns
	// once Kafka acknowledged it.
	Write  func(ctx context.Context, key, value []byte) error
	Logger *slog.Logger
	now    func() time.Time
}

// maxPending bounds the records kept while Kafka does not take them: an hour
// at the default interval.
const maxPending = 720

// Reporter writes the node's usage every interval.
type Reporter struct {
	o       Options
	started time.Time
	from    time.Time // where the next record's interval starts
	// pending are the records made but not written yet, oldest first. A
	// record is retried as it was made (same interval, same counts): if an
	// attempt that reported failure reached Kafka after all, the copy is the
	// same record, which the aggregator counts once.
	pending  []pendingRecord
	failures int
	dropped  int // records dropped since they were last all written
}

type pendingRecord struct {
	value []byte
	from  int64
}

// NewReporter returns a Reporter whose first interval starts now.
func NewReporter(o Options) *Reporter {
	if o.now == nil {
		o.now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	now := o.now()
	return &Reporter{o: o, started: now, from: now}
}

// Run reports every interval until ctx ends, then makes a final record
// covering the rest and writes what is pending (within 5 s), so a graceful
// stop loses nothing.
func (r *Reporter) Run(ctx context.Context) {
	tick := time.NewTicker(r.o.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			final, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			r.Report(final, true)
			return
		case <-tick.C:
			write, cancel := context.WithTimeout(ctx, r.o.Interval)
			r.Report(write, false)
			cancel()
		}
	}
}

// Report makes the record of the time since the previous one and writes it
// after any still pending.
func (r *Reporter) Report(ctx context.Context, final bool) {
	end := r.o.now()
	rec := Record{
		V: 1, Node: r.o.Node, Version: r.o.Version, StartedAt: r.started.UnixMilli(),
		IntervalStart: r.from.UnixMilli(), IntervalEnd: end.UnixMilli(), Final: final,
	}
	if r.o.CatalogOffsetLag != nil {
		rec.CatalogOffsetLag = r.o.CatalogOffsetLag()
	}
	g := Gauges{}
	if r.o.Gauges != nil {
		g = r.o.Gauges()
	}
	rec.Connections = g.Connections
	rec.Apps = r.o.Meter.take(g)
	if rec.Apps == nil {
		rec.Apps = []AppRecord{}
	}
	value, _ := json.Marshal(rec)
	r.pending = append(r.pending, pendingRecord{value: value, from: rec.IntervalStart})
	r.from = end
	if n := len(r.pending) - maxPending; n > 0 {
		if r.dropped++; r.dropped == 1 || r.dropped%60 == 0 {
			r.o.Logger.Error("usage: Kafka has not taken the usage records for too long: the oldest are dropped", "dropped", r.dropped,
				"from", time.UnixMilli(r.pending[0].from).UTC().Format(time.RFC3339))
		}
		r.pending = append(r.pending[:0], r.pending[n:]...)
	}
	for len(r.pending) > 0 {
		if err := r.o.Write(ctx, []byte(r.o.Node), r.pending[0].value); err != nil {
			if r.failures++; r.failures == 1 || r.failures%60 == 0 {
				r.o.Logger.Warn("usage: a usage record could not be written; it is kept and written again", "err", err, "pending", len(r.pending), "failures", r.failures)
			}
			return
		}
		r.pending[0] = pendingRecord{}
		r.pending = r.pending[1:]
	}
	if r.failures > 0 {
		r.o.Logger.Info("usage: usage records are written again", "after_failures", r.failures, "dropped", r.dropped)
		r.failures, r.dropped = 0, 0
	}
}
