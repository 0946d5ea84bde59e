// Package quota applies the apps' plans on this node (PROTOCOL.md, "Quotas"):
// concurrent connections, subscriptions per connection, publishes and
// delivered messages (and bytes) per second.
//
// The rule across nodes: connection counts are exact on each node and
// approximate across them. A node admits an app's connection while the app's
// connections here plus those the other live nodes reported in their latest
// usage records (Peers) stay within the limit: nodes learn of each other's
// connections one usage interval late, so connections opened at the same time
// on several nodes may overshoot by what each admitted meanwhile. Rates are a
// token bucket per app and plan on each node, filled at the plan's rate times
// this node's share of the app's connections (all of it when no other node
// reports the app), so an app spread over nodes gets its rate in all.
package quota

import (
	"sync"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/auth"
	"github.com/sluicehq/sluice/apps/gateway/internal/catalog"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// Limits gives an app's plans (the catalog).
type Limits interface {
	AppLimits(app string) []catalog.Limit
}

// Peers says how many connections the other live nodes last reported for an
// app (usage records); nil when the node knows of none.
type Peers interface {
	Connections(app string) int
}

// Enforcer applies the apps' plans on this node.
type Enforcer struct {
	limits Limits
	peers  Peers
	now    func() time.Time

	mu sync.Mutex
	// conns counts each app's connections on this node (Open, Close).
	conns map[string]int
	// plans are the compiled plans by the catalog's slice of an app's limits
	// (a new app record is a new slice), with their buckets.
	plans map[*catalog.Limit]*Plan
}

// New returns an Enforcer.
func New(limits Limits, peers Peers) *Enforcer {
	return &Enforcer{limits: limits, peers: peers, now: time.Now, conns: map[string]int{}, plans: map[*catalog.Limit]*Plan{}}
}

// maxPlans bounds the compiled plans kept: past it they are compiled again
// (their buckets start full).
const maxPlans = 1 << 14

// Plan is one compiled plan of an app.
type Plan struct {
	catalog.Limit
	app                                string
	match                              auth.Permissions
	publish, delivered, deliveredBytes *Bucket
}

// HasPlans reports whether app has any plan.
func (e *Enforcer) HasPlans(app string) bool {
	return e != nil && len(e.limits.AppLimits(app)) > 0
}

// PlanFor returns the plan governing app's use of path: the first of its
// plans whose patterns match (nil: no limits).
func (e *Enforcer) PlanFor(app, path string) *Plan {
	if e == nil {
		return nil
	}
	limits := e.limits.AppLimits(app)
	if len(limits) == 0 {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range limits {
		p := e.plans[&limits[i]]
		if p == nil {
			if len(e.plans) >= maxPlans {
				clear(e.plans)
			}
			p = e.compile(app, &limits[i])
			e.plans[&limits[i]] = p
		}
		if p.match.Allows(protocol.OpSubscribe, path) {
			return p
		}
	}
	return nil
}

func (e *Enforcer) compile(app string, l *catalog.Limit) *Plan {
	p := &Plan{Limit: *l, app: app}
	// The catalog checked the patterns' shape; one that does not compile
	// matches nothing, so that plan governs nothing (the others still do).
	p.match, _ = auth.NewPermissions(nil, nil, l.Patterns)
	share := func() float64 { return e.share(app) }
	if l.PublishPerSecond > 0 {
		p.publish = newBucket(float64(l.PublishPerSecond), share, e.now)
	}
	if l.DeliveredPerSecond > 0 {
		p.delivered = newBucket(float64(l.DeliveredPerSecond), share, e.now)
	}
	if l.DeliveredBytesPerSecond > 0 {
		p.deliveredBytes = newBucket(float64(l.DeliveredBytesPerSecond), share, e.now)
	}
	return p
}

// share is this node's part of app's connections (1 when no other node
// reports any).
func (e *Enforcer) share(app string) float64 {
	if e.peers == nil {
		return 1
	}
	others := e.peers.Connections(app)
	if others <= 0 {
		return 1
	}
	e.mu.Lock()
	local := e.conns[app]
	e.mu.Unlock()
	if local <= 0 {
		return 0.5 / float64(others+1) // a first connection here: a token's worth, not nothing
	}
	return float64(local) / float64(local+others)
}

// Open admits one more connection of app on this node and counts it, or
// says why not. The app's connection limit is the largest of its plans' (none
// if any plan has none). Every admitted connection is given back with Close.
func (e *Enforcer) Open(app string) *protocol.Error {
	if e == nil {
		return nil
	}
	var limit int64
	for _, l := range e.limits.AppLimits(app) {
		if l.Connections == 0 {
			limit = 0
			break
		}
		limit = max(limit, l.Connections)
	}
	others := 0
	if limit > 0 && e.peers != nil {
		others = e.peers.Connections(app)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	local := e.conns[app]
	if limit > 0 && int64(local+others) >= limit {
		return protocol.Errorf(protocol.CodeConnectionLimit, "the app's plan allows %d concurrent connections and it has %d (%d on this node): close one, or ask for a larger plan", limit, local+others, local)
	}
	e.conns[app] = local + 1
	return nil
}

// Close gives back a connection Open admitted.
func (e *Enforcer) Close(app string) {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.conns[app] <= 1 {
		delete(e.conns, app)
		return
	}
	e.conns[app]--
}

// AdmitSubscription says whether a connection may subscribe to one more path
// under p, given how many of its subscriptions p already governs.
func (p *Plan) AdmitSubscription(underPlan int) *protocol.Error {
	if p == nil || p.SubscriptionsPerConn == 0 || int64(underPlan) < p.SubscriptionsPerConn {
		return nil
	}
	return protocol.Errorf(protocol.CodeSubscriptionLimit, "the app's plan %s allows %d subscriptions per connection on these endpoints", p.label(), p.SubscriptionsPerConn)
}

// AdmitPublish takes a publish from p's bucket.
func (p *Plan) AdmitPublish() *protocol.Error {
	if p == nil || p.publish == nil || p.publish.Take(1) {
		return nil
	}
	return protocol.Errorf(protocol.CodePublishRate, "the app's plan %s allows %d publishes per second on these endpoints: slow down and retry", p.label(), p.PublishPerSecond)
}

// AdmitDelivery takes one message of bytes from p's delivery buckets; false:
// the message is not delivered (the subscription gets a gap, reason quota).
func (p *Plan) AdmitDelivery(bytes int) bool {
	if p == nil {
		return true
	}
	if p.delivered != nil && !p.delivered.Take(1) {
		return false
	}
	if p.deliveredBytes != nil && !p.deliveredBytes.Take(float64(bytes)) {
		return false
	}
	return true
}

// Limited reports whether deliveries under p are rate limited.
func (p *Plan) Limited() bool {
	return p != nil && (p.delivered != nil || p.deliveredBytes != nil)
}

func (p *Plan) label() string {
	if p.Name != "" {
		return "\"" + p.Name + "\""
	}
	return p.Plan
}

// Bucket is a token bucket: rate tokens a second (times share), holding at
// most a second's worth.
type Bucket struct {
	mu       sync.Mutex
	rate     float64
	share    func() float64
	now      func() time.Time
	tokens   float64
	last     time.Time
	shareAt  time.Time
	curShare float64
}

func newBucket(rate float64, share func() float64, now func() time.Time) *Bucket {
	t := now()
	return &Bucket{rate: rate, share: share, now: now, tokens: rate, last: t, curShare: 1}
}

// Take removes n tokens if there are that many.
func (b *Bucket) Take(n float64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	if now.Sub(b.shareAt) >= time.Second {
		// The share changes with the usage stream: asked at most once a second.
		b.curShare, b.shareAt = b.share(), now
	}
	capacity := b.rate * b.curShare
	b.tokens = min(capacity, b.tokens+now.Sub(b.last).Seconds()*capacity)
	b.last = now
	if b.tokens < n && !(n > capacity && b.tokens >= capacity) {
		return false
	}
	b.tokens -= n
	return true
}
