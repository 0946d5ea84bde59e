// Package usage meters what each app does on this gateway node and reports it,
// every interval, as one record on the usage topic (docs/usage.md has the
// record; the bridge sums the records of every node into PostgreSQL).
//
// Counting stays off the hot path's locks: counters are atomics reached
// through pointers the edge looks up once (per subscription's first message
// on a connection, per publish), and the gauges (connections, subscriptions)
// are read from the edge when a report is made, not kept up to date on every
// change.
package usage

import (
	"sync"
	"sync/atomic"
)

// Meter holds the counters of one node between reports.
type Meter struct {
	mu   sync.Mutex
	apps map[string]*App
}

// NewMeter returns an empty Meter.
func NewMeter() *Meter { return &Meter{apps: map[string]*App{}} }

// App returns the counters of app id, made on first use. A nil Meter (metering
// off) returns nil, whose methods do nothing.
func (m *Meter) App(id string) *App {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	a := m.apps[id]
	if a == nil {
		a = &App{id: id, endpoints: map[string]*Endpoint{}}
		m.apps[id] = a
	}
	return a
}

// App is one app's counters. Entries are kept for the life of the process
// (one per app and endpoint it used: bounded by the catalog), so a pointer
// held by a connection never goes stale.
type App struct {
	id                 string
	errors             atomic.Int64
	refusedConnections atomic.Int64

	mu        sync.Mutex
	endpoints map[string]*Endpoint
}

// Endpoint returns the app's counters for catalog endpoint id (path is its
// path pattern, for display), made on first use.
func (a *App) Endpoint(id, path string) *Endpoint {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	e := a.endpoints[id]
	if e == nil {
		e = &Endpoint{id: id, path: path}
		a.endpoints[id] = e
	}
	return e
}

// Error counts an error frame (or problem answer) sent to the app that no
// endpoint's counters took.
func (a *App) Error() {
	if a != nil {
		a.errors.Add(1)
	}
}

// RefusedConnection counts a connection refused by the app's plan.
func (a *App) RefusedConnection() {
	if a != nil {
		a.refusedConnections.Add(1)
	}
}

// Endpoint is one app's counters on one endpoint.
type Endpoint struct {
	id, path string

	// delivery is counted on the hot path, by every session of the app at
	// once: striped so that the routing workers, one per core, do not fight
	// over one cache line (a frame's stripe is the worker that built it:
	// hub.Frame.Stripe).
	delivery                                               [deliveryStripes]deliveryStripe
	published, publishedBytes                              atomic.Int64
	errors                                                 atomic.Int64
	refusedSubscriptions, refusedPublish, refusedDelivered atomic.Int64
}

// deliveryStripes is how many stripes the delivery counters have.
const deliveryStripes = 16

// deliveryStripe is one stripe, padded to a cache line of its own.
type deliveryStripe struct {
	n, bytes atomic.Int64
	_        [48]byte
}

// Delivered counts n message frames of bytes JSON bytes sent, on stripe (any
// number: taken modulo the stripes).
func (e *Endpoint) Delivered(stripe int, n, bytes int64) {
	if e != nil {
		s := &e.delivery[uint(stripe)%deliveryStripes]
		s.n.Add(n)
		s.bytes.Add(bytes)
	}
}

// takeDelivered moves the delivery counts out of every stripe.
func (e *Endpoint) takeDelivered() (n, bytes int64) {
	for i := range e.delivery {
		n += e.delivery[i].n.Swap(0)
		bytes += e.delivery[i].bytes.Swap(0)
	}
	return n, bytes
}

// Published counts a record Kafka acknowledged.
func (e *Endpoint) Published(bytes int64) {
	if e != nil {
		e.published.Add(1)
		e.publishedBytes.Add(bytes)
	}
}

// Error counts an error answering a subscribe or publish to the endpoint.
func (e *Endpoint) Error() {
	if e != nil {
		e.errors.Add(1)
	}
}

// Refused counts a quota refusal of kind (RefusedSubscription, RefusedPublish)
// or n messages not delivered (RefusedDelivered).
func (e *Endpoint) Refused(kind Refusal, n int64) {
	if e == nil {
		return
	}
	switch kind {
	case RefusedSubscription:
		e.refusedSubscriptions.Add(n)
	case RefusedPublish:
		e.refusedPublish.Add(n)
	case RefusedDelivered:
		e.refusedDelivered.Add(n)
	}
}

// Refusal is what a quota refused.
type Refusal int

// The quota refusals counted per endpoint.
const (
	RefusedSubscription Refusal = iota
	RefusedPublish
	RefusedDelivered
)
