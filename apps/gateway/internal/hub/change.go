package hub

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// Gap reasons a topic change produces (PROTOCOL.md, "Subscribing").
const (
	// ReasonEpoch: the topic was deleted and created again; delivery restarts
	// at the start of the new topic.
	ReasonEpoch = "epoch"
	// ReasonRepartitioned: partitions were added and the key now maps to
	// another partition; delivery continues there at to_seq.
	ReasonRepartitioned = "repartitioned"
	// ReasonRetention: Kafka no longer holds the messages from from_seq up to
	// to_seq; delivery continues at to_seq.
	ReasonRetention = "retention"
)

// topicChanged moves the topic's endpoints and subscriptions to what the topic
// is now. It runs on the topic's consumer goroutine, between two deliveries, so
// nothing of the new layout has been dispatched yet; it first waits for the
// workers to route what was dispatched before, so every subscriber gets the
// old records, then the gap, then the new records.
func (h *Hub) topicChanged(t *topicState, ch TopicChange) {
	if !h.drainWorkers() {
		return // closing
	}
	old := *t.meta.Load()
	newEpoch := ch.Meta.Epoch != old.Epoch
	next := make([]atomic.Int64, ch.Meta.Partitions)
	if !newEpoch {
		for p := range min(old.Partitions, ch.Meta.Partitions) {
			next[p].Store(t.nextOf(p))
		}
		since := make(map[int32]int64, len(ch.Since))
		for p, off := range ch.Since {
			since[p] = off
		}
		t.since.Store(&since)
	} else {
		t.since.Store(nil)
	}
	// Publish the new layout before looking at the endpoints: one created
	// meanwhile either read it (and is right) or is in its shard by the time
	// the scan below reaches it (and is moved).
	t.next.Store(&next)
	meta := ch.Meta
	t.meta.Store(&meta)
	h.cfg.Logger.Info("topic changed", "topic", t.name, "new_epoch", newEpoch, "epoch", meta.Epoch, "partitions", meta.Partitions)
	for _, ep := range h.endpointsOf(t) {
		h.moveEndpoint(t, ep, ch)
	}
}

// drainWorkers returns once every record dispatched so far has been routed;
// false if the hub closed meanwhile.
func (h *Hub) drainWorkers() bool {
	var wg sync.WaitGroup
	wg.Add(len(h.workers))
	for _, w := range h.workers {
		select {
		case w <- dispatchJob{barrier: &wg}:
		case <-h.ctx.Done():
			return false
		}
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-h.ctx.Done():
		return false
	}
}

func (h *Hub) endpointsOf(t *topicState) []*endpointState {
	var out []*endpointState
	for i := range h.shards {
		sh := &h.shards[i]
		sh.mu.RLock()
		for k, ep := range sh.endpoints {
			if k.topic == t.name && ep.topic == t {
				out = append(out, ep)
			}
		}
		sh.mu.RUnlock()
	}
	return out
}

// moveEndpoint points ep at the key's place in the changed topic and tells its
// subscribers. Keys whose place did not change notice nothing.
func (h *Hub) moveEndpoint(t *topicState, ep *endpointState, ch TopicChange) {
	meta := ch.Meta
	part := h.backend.PartitionFor(ep.partitionKey, meta.Partitions)
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if ep.epoch == meta.Epoch && ep.partition == part {
		return
	}
	newEpoch := ep.epoch != meta.Epoch
	oldPart := ep.partition
	ep.epoch, ep.partition = meta.Epoch, part
	// The cached frames are of the old place; the live consumer feeds the
	// new one from where it is (a partition it did not read: from its start).
	clear(ep.cache)
	ep.cache, ep.cacheStart = ep.cache[:0], 0
	ep.coveredFrom = t.nextOf(part)
	if newEpoch {
		for _, s := range ep.subs {
			s.restart(meta.Epoch, part)
		}
		return
	}
	// Where the key's records start on its new partition: nothing there below
	// since was written for it (an added partition: all of it).
	start, added := ch.Since[part]
	added = !added
	for _, s := range ep.subs {
		s.move(oldPart, part, start, added, ch)
	}
}

// restart moves s to a new epoch: the gap, then the new topic from its start,
// which the live consumer reads after topicChanged returns. A catch-up in
// progress is abandoned: it was reading the old topic. Called with ep.mu held.
func (s *Subscription) restart(epoch string, part int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.gen++
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
	s.pending, s.overflow = nil, false
	s.live = true
	s.Epoch, s.Partition = epoch, part
	s.lastSeq, s.prevPart, s.offFirst = -1, -1, nil
	s.sink.Gap(protocol.Gap{Type: "gap", Endpoint: s.Path, Epoch: epoch, Partition: part, Reason: ReasonEpoch})
}

// move points s at the key's new partition (same epoch). Called with ep.mu held.
//
//   - Live: s has had every record of the key on part since it attached, as
//     they came (an added partition: the consumer reads it from its start once
//     this returns). Delivery continues live; the gap names where. A
//     subscription that attached after the consumer last confirmed the old
//     partition count may have missed the key's records on part from start up
//     to the first one it got: the gap covers that range (from_seq..to_seq),
//     which a resume from before it reads in order.
//   - Catching up: its reader finishes the old partition, then tells the gap
//     and reads part from start (see catchUp).
func (s *Subscription) move(oldPart, part int32, start int64, added bool, ch TopicChange) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.Partition = part
	s.prevPart, s.prevSeq = oldPart, s.lastSeq
	first, gotSome := s.offFirst[part]
	s.offFirst = nil
	if !s.live {
		s.lastSeq = start - 1
		s.moveFrom = start
		return
	}
	cont := s.ep.topic.nextOf(part) // 0 for an added partition
	from, to := cont, cont
	if !added && !s.attachedAt.Before(ch.SinceAt) {
		from, to = start, cont
		if gotSome {
			to = first
		}
	}
	s.lastSeq = cont - 1
	s.sink.Gap(protocol.Gap{Type: "gap", Endpoint: s.Path, Epoch: s.Epoch, Partition: part, FromSeq: from, ToSeq: to, Reason: ReasonRepartitioned})
}

// topicGone ends every subscription of a topic that was deleted for good (it
// stayed missing for the backend's wait). Runs on the consumer goroutine,
// which stops after it.
func (h *Hub) topicGone(t *topicState) {
	h.topicsMu.Lock()
	if h.topics[t.name] == t {
		delete(h.topics, t.name)
	}
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
	h.topicsMu.Unlock()
	go t.consumer.Stop() // returns once this goroutine is done
	if !h.drainWorkers() {
		return
	}
	h.cfg.Logger.Info("topic deleted: ending its subscriptions", "topic", t.name)
	eps := h.endpointsOf(t)
	// Out of the routing table, so that a subscriber arriving once the topic
	// exists again gets a fresh endpoint on the new consumer.
	for _, ep := range eps {
		sh := h.shardFor(ep.key.topic, []byte(ep.key.key))
		sh.mu.Lock()
		if sh.endpoints[ep.key] == ep {
			delete(sh.endpoints, ep.key)
		}
		sh.mu.Unlock()
	}
	for _, ep := range eps {
		ep.mu.Lock()
		subs := append([]*Subscription(nil), ep.subs...)
		ep.mu.Unlock()
		for _, s := range subs {
			s.end(protocol.CodeNotFound, "topic deleted")
		}
	}
}

// startCatchUpLocked starts s's reader; called with s.mu held.
func (s *Subscription) startCatchUpLocked(from protocol.From, c cursor) {
	if s.cancel != nil {
		s.cancel()
	}
	ctx, cancel := context.WithCancel(s.hub.ctx)
	s.cancel = cancel
	s.hub.stats.CatchUps.Add(1)
	go s.catchUp(ctx, s.gen, from, c)
}
