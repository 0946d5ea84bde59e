package hub

import (
	"context"
	"errors"
	"hash/maphash"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/lockorder"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

const shardCount = 64

// Config tunes the hub.
type Config struct {
	// CacheSize is how many recent frames each endpoint with subscribers keeps to
	// serve resumes without reading Kafka (0: none).
	CacheSize int
	// MaxPending bounds the live frames held for a subscription while it catches up.
	MaxPending int
	// CatchUpPasses bounds the catch-up passes over Kafka running at once on the
	// node, across topics (one per partition at most; see catchup.go).
	CatchUpPasses int
	// Linger keeps a topic's consumer running this long after its last subscriber
	// left, so a reconnecting client does not restart it.
	Linger time.Duration
	Logger *slog.Logger
	// NewWriteBatch, when set, makes each routing worker's batch of writes
	// (see WriteBatch); it may return nil, and the worker's deliveries are
	// then written one by one.
	NewWriteBatch func() WriteBatch
}

// Served is how the catalog serves one concrete endpoint (a topic and key), as
// far as the hub needs to know: Subscribe is given it by its caller, which
// resolved the endpoint to authorise the subscription, and KeyServed and
// ParamServed by the catalog's listener when it changes.
type Served struct {
	// Subscribable is set when an endpoint serves the key and allows
	// subscribing; Format is then its payload format. Subscribe implies it.
	Subscribable bool
	Format       string
	// ByParam is set when the key has no exact endpoint of its own: the
	// topic's parameterised endpoint, if any, serves it, and ParamServed
	// applies to it.
	ByParam bool
	// KeyEncoding names how the endpoint encodes the key in Kafka: "" for the
	// key's own bytes, else its key schema (subject and version). A change
	// may move the key to another partition and name it by other bytes, so it
	// ends the key's subscriptions (clients subscribe again).
	KeyEncoding string
	// PartitionKey, given to Subscribe only, is the record key Kafka's
	// partitioner hashes for the key: encoded with the key schema when there
	// is one (the caller encodes it: that may ask the registry); nil means
	// the key's own bytes.
	PartitionKey []byte
}

// Hub is one node's routing table from Kafka records to subscriptions.
type Hub struct {
	cfg     Config
	backend Backend
	seed    maphash.Seed
	shards  [shardCount]shard

	topicsMu lockorder.Mutex[lockorder.Topics]
	topics   map[string]*topicState

	// readers are the shared catch-up readers with work queued (catchup.go);
	// passSlots bounds their passes.
	readersMu lockorder.Mutex[lockorder.Alone]
	readers   map[readerKey]*partReader
	passSlots chan struct{}

	// workers route live records to subscribers, each for a fixed share of the
	// keys (so a key's records stay in order); see dispatch.
	workers []chan dispatchJob

	ctx    context.Context
	cancel context.CancelFunc
	// closed is set by Close; the workers look at it per record, so a closing
	// node stops writing to sockets at once (its clients resume elsewhere).
	closed atomic.Bool
	stats  Stats
}

// dispatchJob is one worker's share of a fetch, or a barrier: a topic change
// waits until every worker has routed what was dispatched before it.
type dispatchJob struct {
	t       *topicState
	recs    *[]routedRecord // from shares; the worker gives it back
	barrier *sync.WaitGroup
}

// maxWorkers bounds the routing workers (one per core).
const maxWorkers = 128

// shares recycles the workers' shares of fetches: a fetch's records are split
// among the workers for every fetch, and new slices each time were one of the
// larger allocations of the fan-out path.
var shares = sync.Pool{New: func() any { return new([]routedRecord) }}

// putShare gives back a routed share, dropping its references to the fetch's
// buffers first.
func putShare(recs *[]routedRecord) {
	clear(*recs)
	*recs = (*recs)[:0]
	shares.Put(recs)
}

type routedRecord struct {
	Record
	shard *shard
}

// Stats are counters for metrics.
type Stats struct {
	Records       atomic.Int64 // records read by live consumers
	Frames        atomic.Int64 // records that had subscribers (frames built)
	Subscriptions atomic.Int64 // open subscriptions
	CatchUps      atomic.Int64 // subscriptions served by a catch-up read from Kafka
	CatchUpPasses atomic.Int64 // passes over a partition serving those reads (shared)
	CacheHits     atomic.Int64 // subscriptions resumed from the endpoint cache
}

type shard struct {
	mu        lockorder.RWMutex[lockorder.Shard]
	endpoints map[endpointKey]*endpointState
}

type endpointKey struct{ topic, key string }

type topicState struct {
	name string
	// meta is the topic as its consumer last found it; replaced (never
	// modified) by topicChanged on the consumer goroutine.
	meta     atomic.Pointer[TopicMeta]
	consumer Consumer
	started  chan struct{}
	// next[p] is the offset the live consumer delivers next; set before a record
	// is dispatched (see Subscribe for why). The slice is replaced when
	// partitions are added or the epoch changes.
	next atomic.Pointer[[]atomic.Int64]
	// since is TopicChange.Since of the last partition growth seen (nil before
	// one): where a key that moved starts on its new partition.
	since atomic.Pointer[map[int32]int64]
	// refs and timer are guarded by Hub.topicsMu.
	refs  int
	timer *time.Timer
}

// nextOf is where the live consumer is on partition p (0 for a partition it
// does not read yet: it will read it from its start).
func (t *topicState) nextOf(p int32) int64 {
	next := *t.next.Load()
	if p < 0 || int(p) >= len(next) {
		return 0
	}
	return next[p].Load()
}

// moveStart is the first offset of partition p (of the current epoch) that can
// hold records of a key that moved there when partitions were added, if this
// node saw the growth.
func (t *topicState) moveStart(p int32) (int64, bool) {
	since := t.since.Load()
	if since == nil {
		return 0, false
	}
	if off, ok := (*since)[p]; ok {
		return off, true
	}
	return 0, true // a partition added since: all of it
}

// endpointState is one concrete endpoint (topic + key) that has subscribers.
type endpointState struct {
	key   endpointKey
	path  string
	topic *topicState

	mu lockorder.Mutex[lockorder.Endpoint] // guards everything below
	// epoch and partition say where the key's records are; a topic change
	// moves them (topicChanged).
	epoch     string
	partition int32
	format    string
	// keyEncoding and partitionKey are Served's, as the first subscriber
	// found them.
	keyEncoding  string
	partitionKey []byte
	// byParam is Served.ByParam: whether ParamServed applies to this endpoint.
	byParam bool
	subs    []*Subscription
	// cache holds the newest frames; it is complete from coveredFrom on: every
	// record of this key on partition with offset >= coveredFrom is in it or was
	// evicted (which raises coveredFrom).
	cache       []*Frame
	cacheStart  int
	coveredFrom int64
	// idleSince is when the last subscriber left (zero while there are some).
	idleSince time.Time
}

// New builds a hub; Close stops its consumers.
func New(backend Backend, cfg Config) *Hub {
	if cfg.CacheSize < 0 {
		cfg.CacheSize = 0
	}
	if cfg.MaxPending <= 0 {
		cfg.MaxPending = 4096
	}
	if cfg.CatchUpPasses <= 0 {
		cfg.CatchUpPasses = 8
	}
	if cfg.Linger <= 0 {
		cfg.Linger = 30 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &Hub{cfg: cfg, backend: backend, seed: maphash.MakeSeed(), topics: map[string]*topicState{}, ctx: ctx, cancel: cancel,
		readers: map[readerKey]*partReader{}, passSlots: make(chan struct{}, cfg.CatchUpPasses)}
	for i := range h.shards {
		h.shards[i].endpoints = map[endpointKey]*endpointState{}
	}
	h.workers = make([]chan dispatchJob, min(max(runtime.GOMAXPROCS(0), 1), maxWorkers))
	for i := range h.workers {
		h.workers[i] = make(chan dispatchJob, 64)
		go h.work(i, h.workers[i])
	}
	go h.janitor()
	return h
}

// work routes the records of the jobs it is given until the hub closes.
func (h *Hub) work(worker int, jobs <-chan dispatchJob) {
	var wb WriteBatch
	if h.cfg.NewWriteBatch != nil {
		if wb = h.cfg.NewWriteBatch(); wb != nil {
			defer wb.Close()
		}
	}
	for {
		select {
		case <-h.ctx.Done():
			return
		case job := <-jobs:
			if job.barrier != nil {
				job.barrier.Done()
				continue
			}
			frames := 0
			for i := range *job.recs {
				if h.closed.Load() {
					break
				}
				r := &(*job.recs)[i]
				if h.route(job.t, r, worker, wb) {
					frames++
				}
				// The frame holds its own copy: the fetch's memory can go back.
				if r.Buffer != nil {
					r.Buffer.Recycle()
				}
			}
			if wb != nil {
				wb.Flush()
			}
			// Once per job: a shared counter added to per record from every
			// worker costs a cache-line transfer between cores each time.
			h.stats.Frames.Add(int64(frames))
			putShare(job.recs)
		}
	}
}

// janitor drops endpoint states that have had no subscriber for the linger,
// releasing their topic (whose consumer then stops after its own linger).
func (h *Hub) janitor() {
	tick := time.NewTicker(max(h.cfg.Linger/4, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-h.ctx.Done():
			return
		case now := <-tick.C:
			h.dropIdle(now)
		}
	}
}

func (h *Hub) dropIdle(now time.Time) {
	var released []*topicState
	for i := range h.shards {
		sh := &h.shards[i]
		sh.mu.Lock()
		for k, ep := range sh.endpoints {
			ep.mu.Lock()
			if len(ep.subs) == 0 && !ep.idleSince.IsZero() && now.Sub(ep.idleSince) >= h.cfg.Linger {
				delete(sh.endpoints, k)
				released = append(released, ep.topic)
			}
			ep.mu.Unlock()
		}
		sh.mu.Unlock()
	}
	for _, t := range released {
		h.releaseTopic(t)
	}
}

// Stats exposes the hub's counters.
func (h *Hub) Stats() *Stats { return &h.stats }

// Close stops delivery, every consumer and catch-up read. It may be called more
// than once.
func (h *Hub) Close() {
	h.closed.Store(true)
	h.cancel()
	h.topicsMu.Lock()
	var stopping []*topicState
	for name, t := range h.topics {
		if t.timer != nil {
			t.timer.Stop()
		}
		stopping = append(stopping, t)
		delete(h.topics, name)
	}
	h.topicsMu.Unlock()
	for _, t := range stopping {
		t.consumer.Stop()
	}
}

func (h *Hub) shardFor(topic string, key []byte) *shard {
	return &h.shards[h.shardIndex(topic, key)]
}

func (h *Hub) shardIndex(topic string, key []byte) int {
	var mh maphash.Hash
	mh.SetSeed(h.seed)
	_, _ = mh.WriteString(topic)
	_ = mh.WriteByte(0)
	_, _ = mh.Write(key)
	return int(mh.Sum64() % shardCount)
}

// acquireTopic returns the topic's state with its live consumer started, taking a
// reference the caller must release.
//
// topicsMu is never held across a call that can block (asking Kafka for the
// topic's metadata, stopping a consumer): every subscribe on every topic needs
// it, and a waiter for a mutex does not see its context's deadline.
func (h *Hub) acquireTopic(ctx context.Context, topic string) (*topicState, error) {
	h.topicsMu.Lock()
	t := h.topics[topic]
	if t == nil {
		h.topicsMu.Unlock()
		meta, err := h.backend.Meta(ctx, topic)
		if err != nil {
			return nil, err
		}
		h.topicsMu.Lock()
		if h.ctx.Err() != nil {
			h.topicsMu.Unlock()
			return nil, ErrClosed
		}
		// Another subscriber may have started the topic meanwhile.
		if t = h.topics[topic]; t == nil {
			t = h.startTopic(topic, meta)
		}
	}
	t.refs++
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
	h.topicsMu.Unlock()

	select {
	case <-t.started:
		return t, nil
	case <-ctx.Done():
		h.releaseTopic(t)
		return nil, ctx.Err()
	}
}

// startTopic registers the topic's state and starts its live consumer; called
// with topicsMu held (Backend.Consume does not block).
func (h *Hub) startTopic(topic string, meta TopicMeta) *topicState {
	t := &topicState{name: topic, started: make(chan struct{})}
	t.meta.Store(&meta)
	next := make([]atomic.Int64, meta.Partitions)
	t.next.Store(&next)
	h.topics[topic] = t
	t.consumer = h.backend.Consume(topic, meta, ConsumeEvents{
		Started: func(at map[int32]int64) {
			next := *t.next.Load()
			for p, off := range at {
				if int(p) < len(next) {
					next[p].Store(off)
				}
			}
			close(t.started)
		},
		Deliver: func(recs []Record) { h.dispatch(t, recs) },
		Changed: func(ch TopicChange) { h.topicChanged(t, ch) },
		Gone:    func() { h.topicGone(t) },
	})
	return t
}

func (h *Hub) releaseTopic(t *topicState) {
	h.topicsMu.Lock()
	defer h.topicsMu.Unlock()
	t.refs--
	if t.refs > 0 {
		return
	}
	t.timer = time.AfterFunc(h.cfg.Linger, func() {
		h.topicsMu.Lock()
		unused := t.refs == 0 && h.topics[t.name] == t
		if unused {
			delete(h.topics, t.name)
		}
		h.topicsMu.Unlock()
		// Stopping waits for the consumer goroutine and its Kafka client to
		// finish: outside topicsMu (see acquireTopic). A subscriber arriving
		// meanwhile starts a new consumer for the topic.
		if unused {
			t.consumer.Stop()
		}
	})
}

// dispatch hands the records of one fetch to the workers. It runs on the
// topic's consumer goroutine, which can then fetch again at once: writing to
// subscribers' sockets (one write(2) each) is most of a record's cost, and the
// workers spread it over the cores.
func (h *Hub) dispatch(t *topicState, recs []Record) {
	h.stats.Records.Add(int64(len(recs)))
	var byWorker [maxWorkers]*[]routedRecord
	next := *t.next.Load()
	for _, r := range recs {
		// next is stored before the record's endpoint is looked up (by a
		// worker, later): see Subscribe.
		if int(r.Partition) < len(next) {
			next[r.Partition].Store(r.Offset + 1)
		}
		i := h.shardIndex(t.name, r.Key)
		w := i % len(h.workers)
		if byWorker[w] == nil {
			byWorker[w] = shares.Get().(*[]routedRecord)
		}
		*byWorker[w] = append(*byWorker[w], routedRecord{Record: r, shard: &h.shards[i]})
	}
	for w, share := range byWorker[:len(h.workers)] {
		if share == nil {
			continue
		}
		select {
		case h.workers[w] <- dispatchJob{t: t, recs: share}:
		case <-h.ctx.Done():
			return
		}
	}
}

// route delivers one live record to its endpoint's subscribers, reporting
// whether it had any (a frame was built).
func (h *Hub) route(t *topicState, r *routedRecord, worker int, wb WriteBatch) bool {
	sh := r.shard
	sh.mu.RLock()
	ep := sh.endpoints[endpointKey{t.name, string(r.Key)}]
	sh.mu.RUnlock()
	// An endpoint of a newer consumer of the topic (stopped, then started again)
	// is not fed by the old one's last records.
	if ep == nil || ep.topic != t {
		return false
	}
	ep.mu.Lock()
	defer ep.mu.Unlock()
	f := ep.newFrame(r.Record)
	f.stripe = uint8(worker)
	if r.Partition == ep.partition {
		ep.addToCache(f, h.cfg.CacheSize)
	}
	for _, s := range ep.subs {
		s.deliverLive(f, wb)
	}
	return true
}

// newFrame builds the frame of one of the endpoint's records; called with ep.mu held.
func (ep *endpointState) newFrame(r Record) *Frame {
	data, problem := r.Value, ""
	if protocol.RegistryFormat(ep.format) {
		switch {
		case r.Decoded != nil:
			data = r.Decoded
		case r.Problem != "":
			problem = r.Problem
		default:
			problem = "the gateway does not decode this endpoint's records: it has no schema registry (SCHEMA_REGISTRY_URL)"
		}
	}
	return newFrame(&protocol.Message{
		Endpoint:  ep.path,
		Epoch:     ep.epoch,
		Partition: r.Partition,
		Seq:       r.Offset,
		TS:        r.TS,
		Data:      data,
		Encoding:  protocol.EncodingFor(ep.format, data),
		Error:     problem,
	})
}

func (ep *endpointState) addToCache(f *Frame, size int) {
	if size == 0 || f.undecoded {
		// An undecoded record is not kept, and neither is what came before it:
		// a resume from before it reads Kafka again, and decodes it if the
		// registry answers by then.
		ep.coveredFrom = f.Seq + 1
		ep.cache, ep.cacheStart = ep.cache[:0], 0
		return
	}
	if len(ep.cache) < size {
		ep.cache = append(ep.cache, f)
		return
	}
	evicted := ep.cache[ep.cacheStart]
	ep.cache[ep.cacheStart] = f
	ep.cacheStart = (ep.cacheStart + 1) % len(ep.cache)
	ep.coveredFrom = evicted.Seq + 1
}

// cachedFrom returns the cached frames with offset >= from, oldest first, and
// whether the cache is complete from that offset.
func (ep *endpointState) cachedFrom(from int64) ([]*Frame, bool) {
	if from < ep.coveredFrom {
		return nil, false
	}
	var out []*Frame
	for i := range ep.cache {
		f := ep.cache[(ep.cacheStart+i)%len(ep.cache)]
		if f.Seq >= from {
			out = append(out, f)
		}
	}
	return out, true
}

// KeyServed applies a catalog change to the subscriptions of one concrete
// endpoint: p is now served as s says. They take the new format, or end (4004)
// when no endpoint serves p any more, the one that does no longer allows
// subscribing, or it encodes the key differently now.
func (h *Hub) KeyServed(p protocol.Path, s Served) {
	sh := h.shardFor(p.Topic, []byte(p.Key))
	sh.mu.RLock()
	ep := sh.endpoints[endpointKey{p.Topic, p.Key}]
	sh.mu.RUnlock()
	if ep != nil {
		h.serve(ep, s, false)
	}
}

// ParamServed applies a change of topic's parameterised endpoint, now as s
// says, to the concrete endpoints it serves (those with no exact endpoint of
// their own), as KeyServed does.
func (h *Hub) ParamServed(topic string, s Served) {
	s.ByParam = true
	var affected []*endpointState
	for i := range h.shards {
		sh := &h.shards[i]
		sh.mu.RLock()
		for k, ep := range sh.endpoints {
			if k.topic == topic {
				affected = append(affected, ep)
			}
		}
		sh.mu.RUnlock()
	}
	for _, ep := range affected {
		h.serve(ep, s, true)
	}
}

// serve records that the endpoint is now served as s says, and ends its
// subscriptions if it cannot be subscribed to any more. A change of the
// topic's parameterised endpoint (paramChange) matters only to an endpoint
// that it serves.
func (h *Hub) serve(ep *endpointState, s Served, paramChange bool) {
	ep.mu.Lock()
	if paramChange && !ep.byParam {
		ep.mu.Unlock()
		return
	}
	ep.byParam = s.ByParam
	if s.Subscribable && s.KeyEncoding == ep.keyEncoding {
		ep.format = s.Format
		ep.mu.Unlock()
		return
	}
	subs := append([]*Subscription(nil), ep.subs...)
	ep.mu.Unlock()
	reason := "endpoint removed"
	if s.Subscribable {
		// Its partition and the bytes of its records' keys may differ now,
		// and the partition key comes with a subscription: out of the routing
		// table, so that the next subscriber gets a fresh endpoint.
		reason = "the endpoint's key schema changed: subscribe again"
		sh := h.shardFor(ep.key.topic, []byte(ep.key.key))
		sh.mu.Lock()
		dropped := sh.endpoints[ep.key] == ep
		if dropped {
			delete(sh.endpoints, ep.key)
		}
		sh.mu.Unlock()
		if dropped {
			h.releaseTopic(ep.topic)
		}
	}
	for _, sub := range subs {
		sub.end(protocol.CodeNotFound, reason)
	}
}

// ErrClosed is returned for work on a hub that is shutting down.
var ErrClosed = errors.New("hub closed")
