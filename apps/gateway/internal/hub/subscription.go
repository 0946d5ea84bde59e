package hub

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// Subscription is one sink's subscription to one concrete endpoint.
type Subscription struct {
	hub  *Hub
	ep   *endpointState
	sink Sink

	// Path is the canonical endpoint path; Epoch and Partition say where its
	// messages live (PROTOCOL.md, "Subscribing").
	Path      string
	Epoch     string
	Partition int32
	// Seq is the offset just before the first message the subscription can
	// deliver on Partition: every message after it arrives or is reported in a
	// gap, none at or before it is delivered. A client that saw no message yet
	// resumes from {Epoch, Partition, Seq} (PROTOCOL.md, "Subscribing"). -1 is
	// the position before offset 0. Set before ready is called; never changes.
	Seq int64

	// mu guards the fields below. Held while calling the sink.
	mu      sync.Mutex
	live    bool
	closed  bool
	lastSeq int64 // highest offset delivered on Partition; -1 before the first
	pending []*Frame
	// overflow is set when pending hit MaxPending during a catch-up: the
	// catch-up then reads Kafka further instead of trusting pending.
	overflow bool
	cancel   context.CancelFunc
}

// Subscribe registers sink for the concrete endpoint p (already authorised by the
// caller) starting at from, and returns once the subscription is registered;
// catch-up reads continue in the background. format is the endpoint's payload
// format. ready, if not nil, is called once the subscription's epoch, partition
// and start position (Seq) are known and before its first delivery or gap (the
// place to queue an acknowledgement); it runs with hub locks held and must not
// block.
//
// Where Seq can only come from Kafka (from earliest, a time, or a position in
// another epoch or partition: the catch-up's first offset), Subscribe asks
// Kafka before it registers the subscription, so the acknowledgement carries
// the exact start rather than a guess; a failure there is returned like one
// of acquiring the topic.
func (h *Hub) Subscribe(ctx context.Context, p protocol.Path, format string, from protocol.From, sink Sink, ready func(*Subscription)) (*Subscription, error) {
	if h.ctx.Err() != nil {
		return nil, ErrClosed
	}
	t, err := h.acquireTopic(ctx, p.Topic)
	if err != nil {
		return nil, err
	}
	key := []byte(p.Key)
	s := &Subscription{
		hub:       h,
		sink:      sink,
		Path:      p.String(),
		Epoch:     t.meta.Epoch,
		Partition: h.backend.PartitionFor(key, t.meta.Partitions),
		lastSeq:   -1,
	}
	begin := startAt{next: -1}
	if s.startNeedsKafka(from) {
		// Before any lock: the start offset is read before registration, which
		// loses nothing (the catch-up reads from it up to an end read after
		// registration, and the live stream covers what follows).
		if begin, err = s.resolveStart(ctx, t.name, from); err != nil {
			h.releaseTopic(t)
			return nil, err
		}
	}

	sh := h.shardFor(p.Topic, key)
	sh.mu.Lock()
	ep := sh.endpoints[endpointKey{p.Topic, p.Key}]
	// An endpoint state holds one topic reference for as long as it is in the
	// map; when it already exists, ours is returned below.
	extraRef := ep != nil
	if ep == nil {
		ep = &endpointState{key: endpointKey{p.Topic, p.Key}, path: s.Path, topic: t, partition: s.Partition, format: format}
		// Every record at or after the consumer's next offset will reach this
		// endpoint: dispatch stores next before it looks endpoints up.
		ep.coveredFrom = t.next[s.Partition].Load()
		sh.endpoints[ep.key] = ep
	}
	s.ep = ep
	ep.mu.Lock()
	sh.mu.Unlock()
	h.stats.Subscriptions.Add(1)
	switch {
	case from.Kind == protocol.FromLatest:
		// Read under ep.mu: every record at or after next reaches this endpoint
		// (dispatch stores next before a worker takes ep.mu to route it), and
		// the ones before it that are still on their way are skipped, so the
		// subscription's stream is exactly "after Seq".
		s.Seq = ep.topic.next[s.Partition].Load() - 1
	case begin.next >= 0:
		s.Seq = begin.next - 1
	default: // a position in this epoch and partition: exactly after it
		s.Seq = from.Seq
	}
	s.lastSeq = s.Seq
	if ready != nil {
		ready(s)
	}
	if begin.epochChanged {
		s.gap(0, 0, "epoch")
	}
	h.attach(s, from, begin.next)
	ep.mu.Unlock()
	if extraRef {
		h.releaseTopic(t) // only now: topicsMu comes before the shard and endpoint locks
	}
	return s, nil
}

// attach adds s to its endpoint, called with ep.mu held. A subscription from the
// live end, or a resume the cache can serve, is live at once; the cache hand-over
// happens under ep.mu, so no live record slips in between. Anything else starts a
// catch-up read, from next when Subscribe already resolved it (else from the
// position in from).
func (h *Hub) attach(s *Subscription, from protocol.From, next int64) {
	ep := s.ep
	ep.subs = append(ep.subs, s)
	ep.idleSince = time.Time{}
	if from.Kind == protocol.FromLatest {
		s.live = true
		return
	}
	if next < 0 && from.Seq == math.MaxInt64 {
		// Nothing can follow it (and Seq+1 would overflow): live from here on.
		s.live = true
		return
	}
	if next < 0 {
		if frames, ok := ep.cachedFrom(from.Seq + 1); ok {
			h.stats.CacheHits.Add(1)
			s.mu.Lock()
			for _, f := range frames {
				s.deliverLocked(f)
			}
			s.live = true
			s.mu.Unlock()
			return
		}
	}
	cctx, cancel := context.WithCancel(h.ctx)
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	h.stats.CatchUps.Add(1)
	go s.catchUp(cctx, from, next)
}

// deliverLive is called by dispatch with ep.mu held.
func (s *Subscription) deliverLive(f *Frame) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if !s.live {
		if len(s.pending) >= s.hub.cfg.MaxPending {
			s.overflow = true
			s.pending = s.pending[:0]
			return
		}
		s.pending = append(s.pending, f)
		return
	}
	s.deliverLocked(f)
}

// deliverLocked delivers f unless it was already delivered (a catch-up and the live
// stream overlap; offsets tell which records a subscriber has seen).
func (s *Subscription) deliverLocked(f *Frame) {
	if f.Partition == s.Partition {
		if f.Seq <= s.lastSeq {
			return
		}
		s.lastSeq = f.Seq
	}
	s.sink.Deliver(f)
}

// catchUp reads Kafka from the requested start up to the live stream, then
// switches the subscription to live delivery.
// next is the first offset to read, or -1 to find it from the position in from.
func (s *Subscription) catchUp(ctx context.Context, from protocol.From, next int64) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := s.readToEnd(ctx, from, &next)
		if err == nil {
			if s.goLive() {
				return
			}
			continue // live frames were dropped while we read: read Kafka further
		}
		if ctx.Err() != nil {
			return
		}
		s.hub.cfg.Logger.Warn("catch-up read failed; retrying", "endpoint", s.Path, "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

// readToEnd reads from *next (found from "from" on the first call) up to the
// partition's current end, advancing *next as it goes.
func (s *Subscription) readToEnd(ctx context.Context, from protocol.From, next *int64) error {
	if *next < 0 {
		start, err := s.startOffset(ctx, from)
		if err != nil {
			return err
		}
		*next = start
	}
	return s.readUpToEnd(ctx, s.ep.topic.name, next)
}

// goLive hands the subscription over to live delivery: the live frames held
// while catching up go out (those already read from Kafka are skipped by
// offset). It returns false when some were dropped, so the caller reads further.
func (s *Subscription) goLive() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.overflow {
		s.pending, s.overflow = nil, false
		return false
	}
	pending := s.pending
	s.pending = nil
	for _, f := range pending {
		s.deliverLocked(f)
	}
	s.live = true
	return true
}

// startAt is where a catch-up begins when only Kafka can say: next is the first
// offset to read (-1: not resolved, the subscription starts at a position of its
// own epoch and partition).
type startAt struct {
	next         int64
	epochChanged bool // the position named another epoch or partition
}

// startNeedsKafka says whether the subscription's first offset, and so its Seq,
// is known only once Kafka answered.
func (s *Subscription) startNeedsKafka(from protocol.From) bool {
	switch from.Kind {
	case protocol.FromEarliest, protocol.FromTime:
		return true
	case protocol.FromPosition:
		return from.Epoch != s.Epoch || from.Partition != s.Partition
	}
	return false
}

// resolveStart finds the first offset for earliest, a time, or a position of
// another epoch or partition (the topic was recreated, or its partitions
// changed: delivery restarts at the log start after an "epoch" gap).
func (s *Subscription) resolveStart(ctx context.Context, topic string, from protocol.From) (startAt, error) {
	b := s.hub.backend
	if from.Kind == protocol.FromTime {
		next, err := b.OffsetAfter(ctx, topic, s.Partition, from.Time)
		return startAt{next: next}, err
	}
	first, _, err := b.Offsets(ctx, topic, s.Partition)
	if err != nil {
		return startAt{next: -1}, err
	}
	return startAt{next: first, epochChanged: from.Kind == protocol.FromPosition}, nil
}

// startOffset turns a position of the subscription's own epoch and partition
// into the first offset to read, reporting a gap for what Kafka no longer holds.
func (s *Subscription) startOffset(ctx context.Context, from protocol.From) (int64, error) {
	first, end, err := s.hub.backend.Offsets(ctx, s.ep.topic.name, s.Partition)
	if err != nil {
		return -1, err
	}
	want := from.Seq + 1
	if want < first {
		s.gap(want, first, "retention")
		return first, nil
	}
	return min(want, end), nil
}

func (s *Subscription) readUpToEnd(ctx context.Context, topic string, next *int64) error {
	_, end, err := s.hub.backend.Offsets(ctx, topic, s.Partition)
	if err != nil {
		return err
	}
	if *next >= end {
		return nil
	}
	key := s.ep.key.key
	err = s.hub.backend.Read(ctx, topic, s.Partition, *next, end, func(r Record) bool {
		*next = r.Offset + 1
		if string(r.Key) != key {
			return true
		}
		s.ep.mu.Lock()
		f := s.ep.newFrame(r)
		s.ep.mu.Unlock()
		s.mu.Lock()
		closed := s.closed
		if !closed {
			s.deliverLocked(f)
		}
		s.mu.Unlock()
		return !closed
	})
	if err == nil {
		*next = end
	}
	return err
}

func (s *Subscription) gap(from, to int64, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.sink.Gap(protocol.Gap{Type: "gap", Endpoint: s.Path, Epoch: s.Epoch, Partition: s.Partition, FromSeq: from, ToSeq: to, Reason: reason})
	}
}

// Close ends the subscription (unsubscribe or the sink went away). Idempotent.
func (s *Subscription) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.pending = nil
	if s.cancel != nil {
		s.cancel()
	}
	s.mu.Unlock()
	s.hub.remove(s)
}

// end closes the subscription and tells the sink why.
func (s *Subscription) end(code protocol.Code, reason string) {
	s.mu.Lock()
	wasClosed := s.closed
	s.mu.Unlock()
	if wasClosed {
		return
	}
	s.Close()
	s.sink.Ended(s, code, reason)
}

func (h *Hub) remove(s *Subscription) {
	ep := s.ep
	ep.mu.Lock()
	for i, x := range ep.subs {
		if x == s {
			last := len(ep.subs) - 1
			ep.subs[i] = ep.subs[last]
			ep.subs[last] = nil
			ep.subs = ep.subs[:last]
			break
		}
	}
	if len(ep.subs) == 0 {
		// Kept (and its cache fed) for the linger, so a client that reconnects
		// soon resumes from memory; the janitor drops it after that.
		ep.idleSince = time.Now()
	}
	ep.mu.Unlock()
	h.stats.Subscriptions.Add(-1)
}
