package usage

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Peers are the other live nodes as their latest usage records tell: what a
// node needs to enforce an app's connection limit across nodes and to share
// its rates (package quota). A node is live while its latest record is
// younger than three of its intervals and not final.
type Peers struct {
	self string
	now  func() time.Time

	mu    sync.Mutex
	nodes map[string]peer
}

type peer struct {
	seen, expires time.Time
	apps          map[string]int // connections per app
}

// NewPeers returns the Peers of node self (whose own records are skipped).
func NewPeers(self string) *Peers {
	return &Peers{self: self, now: time.Now, nodes: map[string]peer{}}
}

// Apply takes one usage record.
func (p *Peers) Apply(r Record) {
	if r.Node == "" || r.Node == p.self {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.Final {
		delete(p.nodes, r.Node)
		return
	}
	end := time.UnixMilli(r.IntervalEnd)
	if prev, ok := p.nodes[r.Node]; ok && !end.After(prev.seen) {
		return // an older record, or a copy
	}
	interval := max(time.UnixMilli(r.IntervalEnd).Sub(time.UnixMilli(r.IntervalStart)), time.Second)
	apps := make(map[string]int, len(r.Apps))
	for _, a := range r.Apps {
		if a.Connections > 0 {
			apps[a.App] = a.Connections
		}
	}
	p.nodes[r.Node] = peer{seen: end, expires: end.Add(3 * interval), apps: apps}
}

// Connections is how many connections of app the other live nodes reported.
func (p *Peers) Connections(app string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	n := 0
	for node, pr := range p.nodes {
		if now.After(pr.expires) {
			delete(p.nodes, node)
			continue
		}
		n += pr.apps[app]
	}
	return n
}

// Follow reads the usage records of cl into p until ctx ends.
func (p *Peers) Follow(ctx context.Context, cl *kgo.Client, log *slog.Logger) {
	bad := 0
	for {
		fetches := cl.PollFetches(ctx)
		if ctx.Err() != nil || fetches.IsClientClosed() {
			return
		}
		fetches.EachRecord(func(rec *kgo.Record) {
			var r Record
			if err := json.Unmarshal(rec.Value, &r); err != nil || r.V != 1 {
				if bad++; bad == 1 || bad%100 == 0 {
					log.Warn("usage: skipping a usage record that is not one", "partition", rec.Partition, "offset", rec.Offset, "skipped", bad)
				}
				return
			}
			p.Apply(r)
		})
	}
}
