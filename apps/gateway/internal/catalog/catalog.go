// Package catalog is the gateway's materialised view of the compacted catalog
// topic (packages/protocol/CATALOG.md): the endpoints it serves, the public keys
// tokens are verified with, the apps tokens may be issued for and the revoked
// tokens. Run reads the topic from the beginning and then tails it; every record
// goes through Apply, which validates it, updates the state and tells the
// listeners (Listen) what changed (an endpoint removed, a token revoked) so live
// subscriptions and sessions can follow.
package catalog

import (
	"cmp"
	"crypto"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// Listeners are told about the changes that affect live clients. Their
// methods are called synchronously from the goroutine that applies records
// (Run's), in log order, after the catalog's state already reflects the whole
// record, and with the catalog's read lock released: a listener may call
// Resolve, ParamEndpoint, JTIRevoked and the other read methods, but must not
// call Apply (it would deadlock) and should return quickly (the catalog does
// not advance while it runs). Either may be nil.
type Listeners struct {
	// Endpoints is told about endpoint changes (in a node: the hub's live
	// subscriptions take them).
	Endpoints EndpointListener
	// Revocations is told about revoked tokens (in a node: the edge ends the
	// sessions that use them).
	Revocations RevocationListener
}

// EndpointListener is told about endpoint changes; see Listeners.
type EndpointListener interface {
	// EndpointChanged is called after an endpoint was added (old nil), removed
	// (new nil) or changed in any field (both set; compare Path, Topic, Key and
	// the operations to see whether subscriptions are affected). One record
	// can change several endpoints (a removal lets a held-back endpoint take
	// the path): each is reported, once the record is applied.
	EndpointChanged(old, new *Endpoint)
}

// RevocationListener is told about revocations; see Listeners.
type RevocationListener interface {
	// TokenRevoked is called once when a jti becomes revoked.
	TokenRevoked(jti string)
	// AppRevoked is called when a known app's tokens_not_before increases: every
	// token of the app issued before notBefore is revoked. A deleted app gives
	// notBefore = math.MaxInt64.
	AppRevoked(appID string, notBefore int64)
}

// Options configure a Catalog.
type Options struct {
	// ParseJWK turns the public JWK of a key record into a key (main plugs in
	// auth.ParsePublicJWK). Without it every key record is rejected, so no token
	// verifies: the gateway fails closed.
	ParseJWK func(alg string, jwk json.RawMessage) (crypto.PublicKey, error)
	// Logger receives bad records, conflicts and Kafka trouble; nil discards.
	Logger *slog.Logger
}

// Catalog is the materialised catalog. Its read methods are safe for concurrent
// use and cheap (a map lookup under a read lock): they run on every subscribe,
// publish and token check. Writes are rare after start-up but come in bursts at
// start-up (the whole log), which is why this is an RWMutex over maps rather
// than a copy-on-write snapshot (a copy per record would make start-up
// quadratic). Apply is safe for concurrent use; calls are serialised.
//
// Lock order: applyMu, then mu. applyMu is held for the whole of one Apply,
// including its listener calls, so listeners see changes in log order; mu guards
// the maps and is held only while they are read or written (and while the rare
// warning about a conflict or a bad app record is logged), never while a
// listener, ParseJWK or the schema compiler runs.
type Catalog struct {
	parseJWK  func(alg string, jwk json.RawMessage) (crypto.PublicKey, error)
	listeners Listeners // guarded by applyMu
	log       *slog.Logger
	now       func() time.Time // replaced in tests

	ready     chan struct{}
	readyOnce sync.Once

	applyMu     sync.Mutex
	warnedKinds map[string]bool // unknown kinds already logged; guarded by applyMu
	pendingSeq  uint64          // arrival order of pending endpoints; guarded by applyMu

	mu        sync.RWMutex
	endpoints map[string]*Endpoint        // by id: the endpoints being served
	exact     map[protocol.Path]*Endpoint // exact endpoints by (topic, key)
	param     map[string]*Endpoint        // parameterised endpoints by topic
	// registry counts, per topic, the served endpoints of a schema-registry
	// format and those with a key schema.
	registry map[string]RegistryUse
	pending  map[string]*pendingEndpoint // by id: valid endpoints held back by a conflict
	keys     map[string]verificationKey  // by kid
	apps     map[string]app              // by app id
	revoked  map[string]int64            // jti → expires_at (0 when unreadable)

	records, bad, ignored atomic.Uint64
	// offsetLag is how many records of the topic are not applied yet (OffsetLag).
	offsetLag atomic.Int64
}

// OffsetLag is how many records of the catalog topic this node has not
// applied yet, as of its latest fetch: how far it is behind the portal.
func (c *Catalog) OffsetLag() int64 { return c.offsetLag.Load() }

// pendingEndpoint is an endpoint whose (topic, key) is taken by another one (the
// first claim is kept). It is served as soon as the holder goes away or moves,
// earliest waiting claim first, so a path freed by one record reaches the
// endpoint waiting for it without another record (the portal may write a move
// and a creation in either order).
type pendingEndpoint struct {
	ep  *Endpoint
	seq uint64
}

// New returns an empty catalog. Nothing is read until Run (or Apply) is called.
func New(opts Options) *Catalog {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.ParseJWK == nil {
		log.Warn("catalog: no JWK parser configured: every signing key will be rejected and no token will verify")
	}
	return &Catalog{
		parseJWK:    opts.ParseJWK,
		log:         log,
		now:         time.Now,
		ready:       make(chan struct{}),
		warnedKinds: map[string]bool{},
		endpoints:   map[string]*Endpoint{},
		exact:       map[protocol.Path]*Endpoint{},
		param:       map[string]*Endpoint{},
		registry:    map[string]RegistryUse{},
		pending:     map[string]*pendingEndpoint{},
		keys:        map[string]verificationKey{},
		apps:        map[string]app{},
		revoked:     map[string]int64{},
	}
}

// Listen sets who is told about changes from now on. Call it before Run (or
// Apply): changes applied before are not replayed. It may be called after the
// listeners were built with the catalog, which the edge and the token verifier
// need first.
func (c *Catalog) Listen(l Listeners) {
	c.applyMu.Lock()
	c.listeners = l
	c.applyMu.Unlock()
}

// Ready is closed once Run has read the topic up to the end offsets it saw when
// it started (or found that the topic does not exist yet): /readyz uses it.
func (c *Catalog) Ready() <-chan struct{} { return c.ready }

func (c *Catalog) markReady() { c.readyOnce.Do(func() { close(c.ready) }) }

// Resolve returns the endpoint serving p: the exact endpoint for (topic, key)
// first, else the topic's parameterised endpoint, else nil (error 4004).
func (c *Catalog) Resolve(p protocol.Path) *Endpoint {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if e := c.exact[p]; e != nil {
		return e
	}
	return c.param[p.Topic]
}

// ParamEndpoint returns topic's parameterised endpoint, which serves every key
// of the topic that has no exact endpoint, or nil.
func (c *Catalog) ParamEndpoint(topic string) *Endpoint {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.param[topic]
}

// Endpoints returns the endpoints being served, sorted by path.
func (c *Catalog) Endpoints() []*Endpoint {
	c.mu.RLock()
	out := make([]*Endpoint, 0, len(c.endpoints))
	for _, e := range c.endpoints {
		out = append(out, e)
	}
	c.mu.RUnlock()
	slices.SortFunc(out, func(a, b *Endpoint) int { return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.ID, b.ID)) })
	return out
}

// VerificationKey returns the algorithm and public key of kid. Retired keys are
// returned too: their tokens stay valid until they expire. ok is false for a
// kid that is not in the catalog, whose tokens must be rejected.
func (c *Catalog) VerificationKey(kid string) (alg string, key crypto.PublicKey, ok bool) {
	c.mu.RLock()
	k, ok := c.keys[kid]
	c.mu.RUnlock()
	return k.alg, k.key, ok
}

// JTIRevoked reports whether the token with this jti has been revoked.
func (c *Catalog) JTIRevoked(jti string) bool {
	c.mu.RLock()
	_, ok := c.revoked[jti]
	c.mu.RUnlock()
	return ok
}

// AppTokensNotBefore returns the app's tokens_not_before (0 when none). known is
// false for an app that is not in the catalog (never added, or deleted), whose
// tokens must be rejected.
func (c *Catalog) AppTokensNotBefore(appID string) (notBefore int64, known bool) {
	c.mu.RLock()
	a, known := c.apps[appID]
	c.mu.RUnlock()
	return a.tokensNotBefore, known
}

// AppLimits returns the app's plans (nil: no limits). The slice is shared:
// read only.
func (c *Catalog) AppLimits(appID string) []Limit {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.apps[appID].limits
}

// Stats is a snapshot of the catalog for metrics and logs.
type Stats struct {
	Endpoints        int // endpoints being served
	PendingEndpoints int // valid endpoints held back because another one has their path
	Keys             int
	Apps             int
	Revocations      int
	Records          uint64 // records passed to Apply, tombstones and bad ones included
	BadRecords       uint64 // records rejected (or, for revocations, applied from the key only), conflicts included
	IgnoredRecords   uint64 // records of kinds this gateway does not know
}

// Stats returns counts per kind and of the records seen.
func (c *Catalog) Stats() Stats {
	c.mu.RLock()
	s := Stats{
		Endpoints:        len(c.endpoints),
		PendingEndpoints: len(c.pending),
		Keys:             len(c.keys),
		Apps:             len(c.apps),
		Revocations:      len(c.revoked),
	}
	c.mu.RUnlock()
	s.Records, s.BadRecords, s.IgnoredRecords = c.records.Load(), c.bad.Load(), c.ignored.Load()
	return s
}

// event is a change the listeners are told about once the locks are released.
type event struct {
	endpoint bool
	old, new *Endpoint
	jti      string
	app      string
	nbf      int64
}

// Apply applies one record of the catalog topic: key "<kind>/<id>", value the
// JSON object, or nil for a tombstone. It never panics on input. A bad value is
// logged and counted and the key keeps its previous state, except that a damaged
// revocation still revokes (fail closed; see applyRevoked and applyApp).
func (c *Catalog) Apply(key string, value []byte) {
	c.records.Add(1)
	c.apply(key, value)
}

// apply is Apply without the record count (used for the resync sweep).
func (c *Catalog) apply(key string, value []byte) {
	c.applyMu.Lock()
	defer c.applyMu.Unlock()
	var evs []event
	if err := safely(func() error { evs = c.applyLocked(key, value); return nil }); err != nil {
		c.bad.Add(1)
		c.log.Error("catalog: internal error applying a record; the key keeps its previous state", "key", truncate(key), "err", err)
	}
	l := c.listeners
	for _, ev := range evs {
		switch {
		case ev.endpoint:
			if l.Endpoints != nil {
				l.Endpoints.EndpointChanged(ev.old, ev.new)
			}
		case l.Revocations == nil:
		case ev.jti != "":
			l.Revocations.TokenRevoked(ev.jti)
		default:
			l.Revocations.AppRevoked(ev.app, ev.nbf)
		}
	}
}

// applyLocked dispatches on the kind; applyMu is held, mu is not.
func (c *Catalog) applyLocked(key string, value []byte) []event {
	kind, id := splitKey(key)
	switch kind {
	case kindEndpoint, kindKey, kindApp, kindRevoked:
	default:
		c.ignored.Add(1)
		if !c.warnedKinds[kind] {
			c.warnedKinds[kind] = true
			c.log.Warn("catalog: ignoring records of an unknown kind (logged once per kind)", "kind", truncate(kind), "key", truncate(key))
		}
		return nil
	}
	if id == "" {
		c.reject(key, fmt.Errorf("key: %q has no id after %q", truncate(key), kind+"/"))
		return nil
	}
	switch kind {
	case kindEndpoint:
		return c.applyEndpoint(key, id, value)
	case kindKey:
		c.applyKey(key, id, value)
		return nil
	case kindApp:
		return c.applyApp(key, id, value)
	default:
		return c.applyRevoked(key, id, value)
	}
}

func (c *Catalog) reject(key string, err error) {
	c.bad.Add(1)
	c.log.Warn("catalog: bad record, the key keeps its previous state", "key", truncate(key), "err", err)
}

func (c *Catalog) applyEndpoint(key, id string, value []byte) []event {
	var evs []event
	if value == nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.pending, id)
		if old := c.endpoints[id]; old != nil {
			c.removeLocked(old, &evs)
		}
		return evs
	}
	ep, err := parseEndpoint(id, value)
	if err != nil {
		c.reject(key, err)
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, id) // this record supersedes an earlier held-back one
	old := c.endpoints[id]
	if old != nil && old.same(ep) {
		return nil
	}
	if holder := c.slotHolderLocked(ep.slot()); holder != nil && holder.ID != id {
		c.pendingSeq++
		c.pending[id] = &pendingEndpoint{ep: ep, seq: c.pendingSeq}
		c.bad.Add(1)
		c.log.Warn("catalog: endpoint conflict: the path is served by another endpoint, which is kept; this one waits until the path is free",
			"key", truncate(key), "path", truncate(ep.Path), "served_by", holder.ID, "kept_previous_path", pathOf(old))
		return nil
	}
	c.installLocked(ep, &evs)
	return evs
}

func pathOf(e *Endpoint) string {
	if e == nil {
		return ""
	}
	return e.Path
}

func (c *Catalog) slotHolderLocked(s slot) *Endpoint {
	if s.param {
		return c.param[s.topic]
	}
	return c.exact[protocol.Path{Topic: s.topic, Key: s.key}]
}

func (c *Catalog) setSlotLocked(s slot, e *Endpoint) {
	switch {
	case s.param && e != nil:
		c.param[s.topic] = e
	case s.param:
		delete(c.param, s.topic)
	case e != nil:
		c.exact[protocol.Path{Topic: s.topic, Key: s.key}] = e
	default:
		delete(c.exact, protocol.Path{Topic: s.topic, Key: s.key})
	}
}

// installLocked serves ep (its slot is free or already its own), replacing the
// endpoint's previous version, and lets a pending endpoint take the slot the
// previous version leaves.
func (c *Catalog) installLocked(ep *Endpoint, evs *[]event) {
	old := c.endpoints[ep.ID]
	c.endpoints[ep.ID] = ep
	c.countRegistryLocked(old, -1)
	c.countRegistryLocked(ep, 1)
	if old != nil && old.slot() != ep.slot() {
		c.setSlotLocked(old.slot(), nil)
	}
	c.setSlotLocked(ep.slot(), ep)
	*evs = append(*evs, event{endpoint: true, old: old, new: ep})
	if old != nil && old.slot() != ep.slot() {
		c.promoteLocked(old.slot(), evs)
	}
}

func (c *Catalog) removeLocked(old *Endpoint, evs *[]event) {
	delete(c.endpoints, old.ID)
	c.countRegistryLocked(old, -1)
	c.setSlotLocked(old.slot(), nil)
	*evs = append(*evs, event{endpoint: true, old: old})
	c.promoteLocked(old.slot(), evs)
}

// RegistryUse says which parts of a topic's records the catalog's endpoints
// read in the schema registry's wire format: Values counts the endpoints of a
// registry format, Keys those with a key schema.
type RegistryUse struct{ Values, Keys int }

// countRegistryLocked adds delta to the counts of e's topic.
func (c *Catalog) countRegistryLocked(e *Endpoint, delta int) {
	if e == nil || (!e.Format.RegistryBacked() && e.KeySchema == nil) {
		return
	}
	u := c.registry[e.Topic]
	if e.Format.RegistryBacked() {
		u.Values += delta
	}
	if e.KeySchema != nil {
		u.Keys += delta
	}
	if u.Values <= 0 && u.Keys <= 0 {
		delete(c.registry, e.Topic)
		return
	}
	c.registry[e.Topic] = u
}

// TopicRegistryUse reports whether endpoints of topic read its values or its
// keys in the registry's wire format: the records are then decoded
// (internal/schemawire).
func (c *Catalog) TopicRegistryUse(topic string) (values, keys bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	u := c.registry[topic]
	return u.Values > 0, u.Keys > 0
}

// promoteLocked serves the earliest pending endpoint waiting for s, if any.
func (c *Catalog) promoteLocked(s slot, evs *[]event) {
	var next *pendingEndpoint
	for _, p := range c.pending {
		if p.ep.slot() == s && (next == nil || p.seq < next.seq) {
			next = p
		}
	}
	if next == nil {
		return
	}
	delete(c.pending, next.ep.ID)
	c.log.Info("catalog: a held-back endpoint now serves its path", "endpoint", next.ep.ID, "path", truncate(next.ep.Path))
	c.installLocked(next.ep, evs)
}

func (c *Catalog) applyKey(key, kid string, value []byte) {
	if value == nil {
		c.mu.Lock()
		delete(c.keys, kid)
		c.mu.Unlock()
		return
	}
	k, err := parseKey(kid, value, c.parseJWK)
	if err != nil {
		c.reject(key, err)
		return
	}
	c.mu.Lock()
	c.keys[kid] = k
	c.mu.Unlock()
}

// applyApp applies an app record. A damaged record of a known app is treated
// as a revocation of unknown extent (CATALOG.md: revocations are applied from
// what can be read; the app id is in the key): the app's tokens issued before
// now are revoked. Its real tokens_not_before cannot be later than the moment
// the record was written, so this revokes at least what the record did.
func (c *Catalog) applyApp(key, id string, value []byte) []event {
	var a app
	var err error
	if value != nil {
		a, err = parseApp(id, value)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	prevApp, known := c.apps[id]
	prev := prevApp.tokensNotBefore
	if value == nil {
		if !known {
			return nil
		}
		delete(c.apps, id)
		return []event{{app: id, nbf: math.MaxInt64}}
	}
	if err != nil {
		c.bad.Add(1)
		if !known {
			c.log.Warn("catalog: bad app record; the app stays unknown and its tokens are rejected", "key", truncate(key), "err", err)
			return nil
		}
		// Its limits stay as they were: a damaged record must not lift them.
		a = app{tokensNotBefore: max(prev, c.now().Unix()), limits: prevApp.limits}
		c.log.Warn("catalog: bad app record; failing closed by revoking the app's tokens issued before now",
			"key", truncate(key), "err", err, "tokens_not_before", a.tokensNotBefore)
	}
	c.apps[id] = a
	if known && a.tokensNotBefore > prev {
		return []event{{app: id, nbf: a.tokensNotBefore}}
	}
	return nil
}

// applyRevoked revokes the jti of the record key whatever the value holds: a
// damaged revocation must never leave a token usable.
func (c *Catalog) applyRevoked(key, jti string, value []byte) []event {
	var expiresAt int64
	if value != nil {
		var err error
		if expiresAt, err = parseRevoked(jti, value); err != nil {
			c.bad.Add(1)
			c.log.Warn("catalog: bad revocation record; revoking the jti of its key anyway", "key", truncate(key), "err", err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, was := c.revoked[jti]
	if value == nil { // the token has expired: the entry no longer matters
		delete(c.revoked, jti)
		return nil
	}
	c.revoked[jti] = expiresAt
	if was {
		return nil
	}
	return []event{{jti: jti}}
}

// recordKeys lists the record key of every entry in the state (pending endpoints
// included), for the sweep after a resync.
func (c *Catalog) recordKeys() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	keys := make([]string, 0, len(c.endpoints)+len(c.pending)+len(c.keys)+len(c.apps)+len(c.revoked))
	for id := range c.endpoints {
		keys = append(keys, kindEndpoint+"/"+id)
	}
	for id := range c.pending {
		if c.endpoints[id] == nil {
			keys = append(keys, kindEndpoint+"/"+id)
		}
	}
	for kid := range c.keys {
		keys = append(keys, kindKey+"/"+kid)
	}
	for id := range c.apps {
		keys = append(keys, kindApp+"/"+id)
	}
	for jti := range c.revoked {
		keys = append(keys, kindRevoked+"/"+jti)
	}
	return keys
}

// safely runs f, turning a panic (from a library or an injected parser fed a
// hostile record) into an error, so that no input can crash the gateway.
func safely(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}
