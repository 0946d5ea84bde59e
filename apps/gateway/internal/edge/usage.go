package edge

import (
	"github.com/sluicehq/sluice/apps/gateway/internal/catalog"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/usage"
)

// This file is the edge's part of usage metering (package usage): the
// messages each session's writer wrote, its publishes and errors, counted per
// app and catalog endpoint, and the live counts read when a report is made.

// deliveryMeter attributes the message frames a session's writer wrote to the
// endpoints they came from. Only the holder of the queue's writer role uses
// it (outQueue.written), so it needs no lock; each concrete path is resolved
// to its catalog endpoint once per session.
type deliveryMeter struct {
	// lastPath and last are the path messages were last counted for: most
	// sessions subscribe to one path, and need no map. (First: the part of
	// the meter every delivery reads.)
	lastPath string
	last     *usage.Endpoint
	app      *usage.App
	catalog  Resolver
	// byPath remembers every path once a session has been sent a second one.
	byPath map[string]*usage.Endpoint
}

// maxMeteredPaths bounds a long-lived session's map of the paths it was sent
// messages of: past it the map starts again (and resolves again).
const maxMeteredPaths = 4096

func newDeliveryMeter(app *usage.App, cat Resolver) deliveryMeter {
	return deliveryMeter{app: app, catalog: cat}
}

// count adds the batch's message frames to their endpoints' counters: one
// pair of atomic additions per run of one endpoint's messages, not per message,
// on the stripe of the routing worker that built the run's first frame.
func (d *deliveryMeter) count(batch []item) {
	var cur *usage.Endpoint
	var curPath string
	var n, bytes int64
	stripe := 0
	for i := range batch {
		f := batch[i].frame
		if f == nil {
			continue
		}
		if n == 0 || f.Endpoint != curPath {
			if n > 0 {
				cur.Delivered(stripe, n, bytes)
			}
			cur, curPath, n, bytes, stripe = d.endpoint(f.Endpoint), f.Endpoint, 0, 0, f.Stripe()
		}
		n++
		bytes += int64(len(f.JSON()))
	}
	if n > 0 {
		cur.Delivered(stripe, n, bytes)
	}
}

func (d *deliveryMeter) endpoint(path string) *usage.Endpoint {
	if d.last != nil && path == d.lastPath {
		return d.last
	}
	e, ok := d.byPath[path]
	if !ok {
		e = d.resolve(path)
	}
	d.lastPath, d.last = path, e
	return e
}

func (d *deliveryMeter) resolve(path string) *usage.Endpoint {
	e := d.app.Endpoint(endpointOf(d.catalog, path))
	if d.last == nil {
		return e // the first path: last is enough
	}
	if d.byPath == nil || len(d.byPath) >= maxMeteredPaths {
		d.byPath = map[string]*usage.Endpoint{d.lastPath: d.last}
	}
	d.byPath[path] = e
	return e
}

// countError counts an error frame sent about path on its endpoint, or on the
// app when path is "" or the catalog does not serve it. It may run beside the
// writer: it resolves the path itself instead of using the writer's map.
func (d *deliveryMeter) countError(path string) {
	if path != "" {
		if id, pattern := endpointOf(d.catalog, path); id != "" {
			d.app.Endpoint(id, pattern).Error()
			return
		}
	}
	d.app.Error()
}

// endpointOf names the catalog endpoint that serves a concrete path, as a
// usage record does: its id and path pattern ("" and the path itself when
// the catalog no longer serves it).
func endpointOf(cat Resolver, path string) (id, pattern string) {
	if p, err := protocol.ParsePath(path); err == nil {
		if ep := cat.Resolve(p); ep != nil {
			return ep.ID, ep.Path
		}
	}
	return "", path
}

// meterSession starts counting what the session of app is sent; called once,
// before the writer counts anything (metered publishes the meter to it).
func (s *Edge) meterSession(q *outQueue, app string) {
	if s.opt.Meter != nil {
		q.meter = newDeliveryMeter(s.opt.Meter.App(app), s.opt.Catalog)
		q.metered.Store(true)
	}
}

// endpointUsage is app's counters on ep (nil when metering is off).
func (s *Edge) endpointUsage(app string, ep *catalog.Endpoint) *usage.Endpoint {
	return s.opt.Meter.App(app).Endpoint(ep.ID, ep.Path)
}

// UsageGauges returns the node's live counts for a usage report: the
// authenticated sessions per app and their subscriptions per endpoint.
func (s *Edge) UsageGauges() usage.Gauges {
	type appSession struct {
		app  string
		sess session
	}
	s.mu.Lock()
	all := make([]appSession, 0, len(s.sessions))
	for app, sessions := range s.byApp {
		for sess := range sessions {
			all = append(all, appSession{app, sess})
		}
	}
	s.mu.Unlock()
	g := usage.Gauges{Connections: len(all), Apps: map[string]usage.AppGauges{}}
	// Paths are counted under each session's lock and resolved to their
	// endpoints afterwards, once per distinct path, with no lock held.
	perApp := map[string]map[string]int{}
	for _, as := range all {
		ag := g.Apps[as.app]
		ag.Connections++
		g.Apps[as.app] = ag
		paths := perApp[as.app]
		if paths == nil {
			paths = map[string]int{}
			perApp[as.app] = paths
		}
		as.sess.eachSubscribedPath(func(path string) { paths[path]++ })
	}
	resolved := map[string]usage.EndpointRef{}
	for app, paths := range perApp {
		ag := g.Apps[app]
		ag.Subscriptions = map[usage.EndpointRef]int{}
		for path, n := range paths {
			ref, ok := resolved[path]
			if !ok {
				id, pattern := endpointOf(s.opt.Catalog, path)
				ref = usage.EndpointRef{ID: id, Path: pattern}
				resolved[path] = ref
			}
			ag.Subscriptions[ref] += n
		}
		g.Apps[app] = ag
	}
	return g
}
