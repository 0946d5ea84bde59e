package hub

import (
	"context"
	"math"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/lockorder"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// Subscription is one sink's subscription to one concrete endpoint.
type Subscription struct {
	hub  *Hub
	ep   *endpointState
	sink Sink

	// Path is the canonical endpoint path.
	Path string
	// Epoch and Partition say where its messages live (PROTOCOL.md,
	// "Subscribing"). A topic change moves them: they are written with both the
	// endpoint's and the subscription's mutex held, so the sink may read them
	// in its calls.
	Epoch     string
	Partition int32
	// Seq is the offset just before the first message the subscription can
	// deliver on Partition: every message after it arrives or is reported in a
	// gap, none at or before it is delivered. A client that saw no message yet
	// resumes from {Epoch, Partition, Seq} (PROTOCOL.md, "Subscribing"). -1 is
	// the position before offset 0. Set before ready is called; never changes.
	Seq int64

	// mu guards the fields below. Held while calling the sink.
	mu      lockorder.Mutex[lockorder.Subscription]
	live    bool
	closed  bool
	lastSeq int64 // highest offset delivered on Partition; -1 before the first
	// prevPart and prevSeq do the same for the partition the key left when
	// partitions were added (-1: none), whose last records may still come.
	prevPart int32
	prevSeq  int64
	// moveFrom is where the reader continues on Partition once it finished the
	// partition the key left.
	moveFrom int64
	// offFirst is the first offset delivered per partition other than
	// Partition and prevPart (nil until one is).
	offFirst map[int32]int64
	pending  []*Frame
	// overflow is set when pending hit MaxPending during a catch-up: the
	// catch-up then reads Kafka further instead of trusting pending.
	overflow bool
	cancel   context.CancelFunc
	// gen counts restarts (new epochs): a reader of an older generation stops
	// delivering.
	gen int
	// attachedAt is when s started receiving live records (live or pending).
	attachedAt time.Time
}

// cursor is where a catch-up reader is: partition and next offset (-1 until
// the start is known).
type cursor struct {
	part int32
	next int64
}

// Subscribe registers sink for the concrete endpoint p (already authorised by the
// caller) starting at from, and returns once the subscription is registered;
// catch-up reads continue in the background. served is how the catalog serves
// p, as the caller found when it authorised the subscription (a concrete
// endpoint that already has subscribers keeps what it was told last; see
// KeyServed). ready, if not nil, is called once the subscription's epoch, partition
// and start position (Seq) are known and before its first delivery or gap (the
// place to queue an acknowledgement); it runs with hub locks held and must not
// block.
//
// Where Seq can only come from Kafka (from earliest, a time, or a position in
// another epoch or partition: the catch-up's first offset), Subscribe asks
// Kafka before it registers the subscription, so the acknowledgement carries
// the exact start rather than a guess; a failure there is returned like one
// of acquiring the topic.
func (h *Hub) Subscribe(ctx context.Context, p protocol.Path, served Served, from protocol.From, sink Sink, ready func(*Subscription)) (*Subscription, error) {
	if h.ctx.Err() != nil {
		return nil, ErrClosed
	}
	t, err := h.acquireTopic(ctx, p.Topic)
	if err != nil {
		return nil, err
	}
	if from.Kind == protocol.FromPosition {
		h.confirmLayout(ctx, t, from)
	}
	key := []byte(p.Key)
	partitionKey := served.PartitionKey
	if partitionKey == nil {
		partitionKey = key
	}
	s := &Subscription{hub: h, sink: sink, Path: p.String(), lastSeq: -1, prevPart: -1}
	meta := t.meta.Load()
	s.Epoch, s.Partition = meta.Epoch, h.backend.PartitionFor(partitionKey, meta.Partitions)
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
	resolvedFor := [2]any{s.Epoch, s.Partition}

	sh := h.shardFor(p.Topic, key)
	sh.mu.Lock()
	ep := sh.endpoints[endpointKey{p.Topic, p.Key}]
	// An endpoint state holds one topic reference for as long as it is in the
	// map; when it already exists, ours is returned below.
	extraRef := ep != nil
	if ep == nil {
		// The topic's layout is read under shard.mu: a change published after
		// this finds the endpoint in the shard and moves it (topicChanged).
		meta := t.meta.Load()
		part := h.backend.PartitionFor(partitionKey, meta.Partitions)
		ep = &endpointState{key: endpointKey{p.Topic, p.Key}, path: s.Path, topic: t, epoch: meta.Epoch, partition: part, format: served.Format, byParam: served.ByParam,
			keyEncoding: served.KeyEncoding, partitionKey: partitionKey}
		// Every record at or after the consumer's next offset will reach this
		// endpoint: dispatch stores next before it looks endpoints up.
		ep.coveredFrom = t.nextOf(part)
		sh.endpoints[ep.key] = ep
	}
	s.ep = ep
	ep.mu.Lock()
	sh.mu.Unlock()
	s.Epoch, s.Partition = ep.epoch, ep.partition
	if begin.next >= 0 && resolvedFor != [2]any{s.Epoch, s.Partition} {
		// The topic changed while the start was read: the catch-up finds it
		// again for the new layout.
		begin = startAt{next: -1}
	}
	h.stats.Subscriptions.Add(1)
	switch {
	case from.Kind == protocol.FromLatest:
		// Read under ep.mu: every record at or after next reaches this endpoint
		// (dispatch stores next before a worker takes ep.mu to route it), and
		// the ones before it that are still on their way are skipped, so the
		// subscription's stream is exactly "after Seq".
		s.Seq = ep.topic.nextOf(s.Partition) - 1
	case begin.next >= 0:
		s.Seq = begin.next - 1
	case from.Kind == protocol.FromPosition && from.Epoch == s.Epoch && from.Partition == s.Partition:
		s.Seq = from.Seq // exactly after it
	default:
		// The start is found by the catch-up (the topic changed meanwhile, or
		// the position is on the partition the key left when partitions were
		// added): -1 can only make a resume repeat messages, never skip any.
		s.Seq = -1
	}
	s.lastSeq = s.Seq
	if ready != nil {
		ready(s)
	}
	if begin.epochChanged {
		s.mu.Lock()
		s.gapLocked(s.Partition, 0, 0, ReasonEpoch)
		s.mu.Unlock()
	}
	h.attach(s, from, begin.next)
	ep.mu.Unlock()
	if extraRef {
		h.releaseTopic(t) // only now: topicsMu comes before the shard and endpoint locks
	}
	return s, nil
}

// confirmLayout has the topic's layout checked now when from names an epoch
// or a partition this node does not know. Such a position comes from a node
// that saw the topic change first (recreated, or given more partitions; a
// node notices within its check interval), or from before a change this node
// already saw. In the first case the check lets the resume continue exactly
// after the position instead of restarting at the log start after an "epoch"
// gap; in the second it costs one metadata request (shared by the resumes
// waiting meanwhile). A check that does not finish within recheckWait leaves
// things as they were: the gap, and nothing lost.
func (h *Hub) confirmLayout(ctx context.Context, t *topicState, from protocol.From) {
	m := t.meta.Load()
	if from.Epoch == m.Epoch && from.Partition < m.Partitions {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, recheckWait)
	defer cancel()
	_ = t.consumer.Recheck(ctx)
}

// recheckWait bounds a resume's wait for its topic's layout to be checked.
const recheckWait = 3 * time.Second

// attach adds s to its endpoint, called with ep.mu held. A subscription from the
// live end, or a resume the cache can serve, is live at once; the cache hand-over
// happens under ep.mu, so no live record slips in between. Anything else starts a
// catch-up read, from next when Subscribe already resolved it (else from the
// position in from).
func (h *Hub) attach(s *Subscription, from protocol.From, next int64) {
	ep := s.ep
	ep.subs = append(ep.subs, s)
	ep.idleSince = time.Time{}
	s.attachedAt = time.Now()
	if from.Kind == protocol.FromLatest {
		s.live = true
		return
	}
	if next < 0 && from.Seq == math.MaxInt64 {
		// Nothing can follow it (and Seq+1 would overflow): live from here on.
		s.live = true
		return
	}
	if next < 0 && from.Kind == protocol.FromPosition && from.Epoch == s.Epoch && from.Partition == s.Partition {
		if frames, ok := ep.cachedFrom(from.Seq + 1); ok {
			h.stats.CacheHits.Add(1)
			s.mu.Lock()
			for _, f := range frames {
				s.deliverLocked(f, nil)
			}
			s.live = true
			s.mu.Unlock()
			return
		}
	}
	s.mu.Lock()
	s.startCatchUpLocked(from, cursor{part: s.Partition, next: next})
	s.mu.Unlock()
}

// deliverLive is called by a routing worker with ep.mu held; wb is its batch
// of writes.
func (s *Subscription) deliverLive(f *Frame, wb WriteBatch) {
	s.mu.Lock() // unlocked without defer: this runs for every delivered message
	switch {
	case s.closed:
	case !s.live:
		if len(s.pending) >= s.hub.cfg.MaxPending {
			s.overflow = true
			s.pending = s.pending[:0]
		} else {
			s.pending = append(s.pending, f)
		}
	default:
		s.deliverLocked(f, wb)
	}
	s.mu.Unlock()
}

// deliverLocked delivers f unless it was already delivered (a catch-up and the live
// stream overlap; offsets tell which records a subscriber has seen).
func (s *Subscription) deliverLocked(f *Frame, wb WriteBatch) {
	switch f.Partition {
	case s.Partition:
		if f.Seq <= s.lastSeq {
			return
		}
		s.lastSeq = f.Seq
	case s.prevPart:
		if f.Seq <= s.prevSeq {
			return
		}
		s.prevSeq = f.Seq
	default:
		// A record of the key on a partition it does not map to: a producer
		// with another partitioner, or partitions were added and the hub has
		// not noticed yet. Remembered for when it does (see move).
		if _, ok := s.offFirst[f.Partition]; !ok {
			if s.offFirst == nil {
				s.offFirst = map[int32]int64{}
			}
			s.offFirst[f.Partition] = f.Seq
		}
	}
	s.sink.Deliver(f, wb)
}

// catchUp reads Kafka from the requested start up to the live stream, then
// switches the subscription to live delivery. When partitions were added and the
// key moved, it first finishes the partition the key left, then tells the gap
// and reads the new one from where the key's records start there.
func (s *Subscription) catchUp(ctx context.Context, gen int, from protocol.From, c cursor) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := s.readToEnd(ctx, gen, from, &c)
		if err == nil {
			switch s.goLive(gen, c.part) {
			case wentLive, superseded:
				return
			case readFurther: // live frames were dropped while we read
			case moved:
				err = s.follow(ctx, gen, &c)
			}
			if err == nil {
				backoff = 100 * time.Millisecond
				continue
			}
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

// readToEnd reads from c.next (found from "from" on the first call) up to the
// partition's current end, advancing c.next as it goes.
func (s *Subscription) readToEnd(ctx context.Context, gen int, from protocol.From, c *cursor) error {
	if c.next < 0 {
		if err := s.startOffset(ctx, gen, from, c); err != nil {
			return err
		}
	}
	return s.readUpToEnd(ctx, gen, c)
}

type goLiveResult int

const (
	wentLive    goLiveResult = iota
	readFurther              // live frames were dropped: read Kafka further
	moved                    // the key moved to another partition: follow it
	superseded               // a new epoch restarted the subscription
)

// goLive hands the subscription over to live delivery: the live frames held
// while catching up go out (those already read from Kafka are skipped by
// offset).
func (s *Subscription) goLive(gen int, part int32) goLiveResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.gen != gen || s.closed:
		return superseded
	case s.overflow:
		s.pending, s.overflow = nil, false
		return readFurther
	case part != s.Partition:
		return moved
	}
	pending := s.pending
	s.pending = nil
	for _, f := range pending {
		s.deliverLocked(f, nil)
	}
	s.live = true
	return wentLive
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
		// Another partition of this epoch is one the key left when partitions
		// were added: the catch-up finishes it first (startOffset).
		return from.Epoch != s.Epoch
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

// follow points the reader at the partition the key moved to, after the one it
// left was read to its end, and tells the subscriber.
func (s *Subscription) follow(ctx context.Context, gen int, c *cursor) error {
	s.mu.Lock()
	part, from := s.Partition, s.moveFrom
	s.mu.Unlock()
	start, _, err := s.hub.backend.Offsets(ctx, s.ep.topic.name, part)
	if err != nil {
		return err
	}
	from = max(from, start)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != gen || s.closed || part != s.Partition {
		return nil // superseded or moved again: goLive tells
	}
	s.lastSeq = max(s.lastSeq, from-1)
	s.sink.Gap(protocol.Gap{Type: "gap", Endpoint: s.Path, Epoch: s.Epoch, Partition: part, FromSeq: from, ToSeq: from, Reason: ReasonRepartitioned})
	*c = cursor{part: part, next: from}
	return nil
}

// startOffset turns from into the cursor's first offset, reporting gaps for a
// position Kafka no longer holds or a topic that was recreated. A position on
// another partition of the same epoch is one the key left when partitions were
// added: the reader finishes that partition first (see catchUp).
func (s *Subscription) startOffset(ctx context.Context, gen int, from protocol.From, c *cursor) error {
	b, t := s.hub.backend, s.ep.topic
	s.mu.Lock()
	epoch, part := s.Epoch, s.Partition
	s.mu.Unlock()
	if from.Kind == protocol.FromPosition && from.Epoch == epoch && from.Partition != part &&
		from.Partition >= 0 && from.Partition < t.meta.Load().Partitions {
		moveFrom, known := t.moveStart(part)
		if !known {
			// This node did not see the partitions being added: all of the
			// new partition (records of other keys are skipped).
			start, _, err := b.Offsets(ctx, t.name, part)
			if err != nil {
				return err
			}
			moveFrom = start
		}
		start, end, err := b.Offsets(ctx, t.name, from.Partition)
		if err != nil {
			return err
		}
		want := from.Seq + 1
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.gen != gen {
			return nil
		}
		s.prevPart, s.prevSeq, s.moveFrom = from.Partition, from.Seq, moveFrom
		if want < start {
			s.gapLocked(from.Partition, want, start, ReasonRetention)
			want = start
		}
		*c = cursor{part: from.Partition, next: min(want, end)}
		return nil
	}
	var next int64
	switch {
	case from.Kind == protocol.FromTime:
		var err error
		if next, err = b.OffsetAfter(ctx, t.name, part, from.Time); err != nil {
			return err
		}
	case from.Kind == protocol.FromPosition && from.Epoch == epoch && from.Partition == part:
		// No Kafka request: a position Kafka no longer holds is reported by
		// the shared reader (retention), one beyond the live consumer's
		// position has nothing to read.
		s.mu.Lock()
		if s.gen != gen {
			s.mu.Unlock()
			return nil
		}
		s.lastSeq = max(s.lastSeq, from.Seq)
		s.mu.Unlock()
		next = from.Seq + 1
		if from.Seq == math.MaxInt64 {
			next = from.Seq
		}
	default:
		// The earliest offset, or a position of another epoch: the log start,
		// after an epoch gap for the latter.
		start, _, err := b.Offsets(ctx, t.name, part)
		if err != nil {
			return err
		}
		if from.Kind == protocol.FromPosition {
			s.mu.Lock()
			if s.gen != gen {
				s.mu.Unlock()
				return nil
			}
			s.gapLocked(part, 0, 0, ReasonEpoch)
			s.mu.Unlock()
		}
		next = start
	}
	*c = cursor{part: part, next: next}
	return nil
}

// readUpToEnd reads c's partition from c.next up to where the live consumer is
// now, through the partition's shared reader (catchup.go). Every record from
// there on reaches the subscription live (held in pending while it catches up):
// dispatch stores the consumer's position before it routes a record, and s was
// attached to its endpoint, or its pending list reset, before this reads it.
func (s *Subscription) readUpToEnd(ctx context.Context, gen int, c *cursor) error {
	t := s.ep.topic
	until := t.nextOf(c.part)
	if c.next >= until {
		return nil
	}
	s.mu.Lock()
	epoch := s.Epoch
	s.mu.Unlock()
	rd := &catchUpRead{s: s, gen: gen, epoch: epoch, key: s.ep.key.key, next: c.next, until: until}
	var err error
	c.next, err = s.hub.readShared(ctx, t, c.part, rd)
	return err
}

// gapLocked tells the sink about messages that will not arrive; s.mu held.
func (s *Subscription) gapLocked(part int32, from, to int64, reason string) {
	if !s.closed {
		s.sink.Gap(protocol.Gap{Type: "gap", Endpoint: s.Path, Epoch: s.Epoch, Partition: part, FromSeq: from, ToSeq: to, Reason: reason})
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
