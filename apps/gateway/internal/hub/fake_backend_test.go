package hub

import (
	"context"
	"errors"
	"hash/fnv"
	"maps"
	"sync"
	"sync/atomic"
	"time"
)

// memBackend is an in-memory Kafka for the hub's unit tests: topics with
// partitions of records, a movable log start (retention) and live tailing.
type memBackend struct {
	mu     sync.Mutex
	cond   *sync.Cond
	topics map[string]*memTopic
	gone   map[string]bool
	// checks counts the test's metadata checks; consumed is the last one a
	// consumer acted on.
	checks, consumed int
	// readGate, when set, holds every Read until it is closed (a catch-up in
	// progress); reading is closed when a Read is waiting on it.
	readGate chan struct{}
	reading  chan struct{}
	// reads counts Read calls; offsets counts Offsets calls; rechecks counts
	// Consumer.Recheck calls.
	reads, offsets, rechecks atomic.Int64
}

type memTopic struct {
	epoch string
	parts [][]Record // index = offset - start
	start []int64
}

func newMemBackend() *memBackend {
	b := &memBackend{topics: map[string]*memTopic{}, gone: map[string]bool{}}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *memBackend) createTopic(name, epoch string, partitions int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.topics[name] = &memTopic{epoch: epoch, parts: make([][]Record, partitions), start: make([]int64, partitions)}
}

// produce appends a record to the key's partition and returns its offset.
func (b *memBackend) produce(topic, key, value string) (int32, int64) {
	return b.produceEncoded(topic, key, key, value)
}

// produceEncoded appends a record whose key Kafka holds as encodedKey (the
// partitioner hashes it) and that the hub is given as key: what
// schemawire.Backend hands on for a key in the registry's wire format.
func (b *memBackend) produceEncoded(topic, encodedKey, key, value string) (int32, int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.topics[topic]
	p := b.PartitionFor([]byte(encodedKey), int32(len(t.parts)))
	off := t.start[p] + int64(len(t.parts[p]))
	t.parts[p] = append(t.parts[p], Record{Partition: p, Offset: off, Key: []byte(key), Value: []byte(value), TS: time.Now().UnixMilli()})
	b.cond.Broadcast()
	return p, off
}

// truncate drops records before offset (retention).
func (b *memBackend) truncate(topic string, p int32, offset int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.topics[topic]
	drop := offset - t.start[p]
	t.parts[p] = append([]Record(nil), t.parts[p][drop:]...)
	t.start[p] = offset
}

func (b *memBackend) Meta(_ context.Context, topic string) (TopicMeta, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.topics[topic]
	if t == nil {
		return TopicMeta{}, ErrTopicNotFound
	}
	return TopicMeta{Epoch: t.epoch, Partitions: int32(len(t.parts))}, nil
}

// Consume tails the topic. Like the real consumer it notices a topic change only
// when it checks the topic's metadata: here when the test calls check.
func (b *memBackend) Consume(topic string, _ TopicMeta, ev ConsumeEvents) Consumer {
	var stopped bool
	b.mu.Lock()
	t := b.topics[topic]
	next := map[int32]int64{}
	for p := range t.parts {
		next[int32(p)] = t.start[p] + int64(len(t.parts[p]))
	}
	confirmed, confirmedAt := maps.Clone(next), time.Now()
	checked := b.checks
	b.mu.Unlock()
	ev.Started(maps.Clone(next))
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.mu.Lock()
		defer b.mu.Unlock()
		for !stopped {
			if b.checks != checked {
				checked = b.checks
				cur := b.topics[topic]
				switch {
				case cur == nil && b.gone[topic]:
					b.consumed = b.checks
					b.cond.Broadcast()
					b.mu.Unlock()
					ev.Gone()
					b.mu.Lock()
					return
				case cur == nil:
				case cur != t:
					t = cur
					next = map[int32]int64{}
					for p := range t.parts {
						next[int32(p)] = 0
					}
					meta := TopicMeta{Epoch: t.epoch, Partitions: int32(len(t.parts))}
					b.mu.Unlock()
					ev.Changed(TopicChange{Meta: meta})
					b.mu.Lock()
				case len(t.parts) > len(next):
					for p := len(next); p < len(t.parts); p++ {
						next[int32(p)] = 0
					}
					ch := TopicChange{Meta: TopicMeta{Epoch: t.epoch, Partitions: int32(len(t.parts))}, Since: maps.Clone(confirmed), SinceAt: confirmedAt}
					b.mu.Unlock()
					ev.Changed(ch)
					b.mu.Lock()
				default:
					confirmed, confirmedAt = maps.Clone(next), time.Now()
				}
				b.cond.Broadcast() // for waitChecked
			}
			progressed := false
			for p := range next {
				if int(p) >= len(t.parts) {
					continue
				}
				for next[p] < t.start[p]+int64(len(t.parts[p])) {
					r := t.parts[p][next[p]-t.start[p]]
					next[p]++
					b.mu.Unlock()
					ev.Deliver([]Record{r})
					b.mu.Lock()
					progressed = true
				}
			}
			b.consumed = b.checks
			if !progressed && !stopped {
				b.cond.Broadcast()
				b.cond.Wait()
			}
		}
	}()
	return memConsumer{b: b, done: done, stop: func() {
		b.mu.Lock()
		stopped = true
		b.cond.Broadcast()
		b.mu.Unlock()
		<-done
	}}
}

// memConsumer is a memBackend consumer; Recheck is the test's check.
type memConsumer struct {
	b    *memBackend
	done chan struct{}
	stop func()
}

func (c memConsumer) Stop() { c.stop() }

func (c memConsumer) Recheck(ctx context.Context) error {
	c.b.rechecks.Add(1)
	checked := make(chan struct{})
	go func() {
		c.b.check()
		close(checked)
	}()
	select {
	case <-checked:
		return nil
	case <-c.done:
		return errors.New("consumer stopped")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// holdReads makes every Read wait until the returned function is called; the
// channel is closed once a Read waits.
func (b *memBackend) holdReads() (waiting <-chan struct{}, release func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	gate, reading := make(chan struct{}), make(chan struct{})
	b.readGate, b.reading = gate, reading
	return reading, func() {
		b.mu.Lock()
		b.readGate = nil
		b.mu.Unlock()
		close(gate)
	}
}

// check makes the consumers look at the topics' metadata and waits until one
// has acted on it (the tests run one consumer at a time).
func (b *memBackend) check() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.checks++
	b.cond.Broadcast()
	for b.consumed != b.checks {
		b.cond.Wait()
	}
}

// recreate deletes the topic and creates it again with a new epoch (the
// consumers notice at the next check).
func (b *memBackend) recreate(name, epoch string, partitions int) {
	b.createTopic(name, epoch, partitions)
}

// addPartitions grows the topic (noticed at the next check).
func (b *memBackend) addPartitions(name string, n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.topics[name]
	for range n {
		t.parts = append(t.parts, nil)
		t.start = append(t.start, 0)
	}
}

// deleteTopic removes the topic; forGood makes the next check report it gone.
func (b *memBackend) deleteTopic(name string, forGood bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.topics, name)
	b.gone[name] = forGood
}

func (b *memBackend) Offsets(_ context.Context, topic string, p int32) (int64, int64, error) {
	b.offsets.Add(1)
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.topics[topic]
	if t == nil || int(p) >= len(t.parts) {
		return 0, 0, ErrTopicNotFound
	}
	return t.start[p], t.start[p] + int64(len(t.parts[p])), nil
}

func (b *memBackend) OffsetAfter(_ context.Context, topic string, p int32, ms int64) (int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.topics[topic]
	if t == nil || int(p) >= len(t.parts) {
		return 0, ErrTopicNotFound
	}
	for _, r := range t.parts[p] {
		if r.TS >= ms {
			return r.Offset, nil
		}
	}
	return t.start[p] + int64(len(t.parts[p])), nil
}

func (b *memBackend) Read(_ context.Context, topic, epoch string, p int32, from, until int64, fn func(Record) bool) error {
	b.reads.Add(1)
	b.mu.Lock()
	gate, reading := b.readGate, b.reading
	b.mu.Unlock()
	if gate != nil {
		select {
		case <-reading:
		default:
			close(reading)
		}
		<-gate
	}
	b.mu.Lock()
	t := b.topics[topic]
	if t == nil || t.epoch != epoch {
		b.mu.Unlock()
		return ErrEpochChanged
	}
	var recs []Record
	for _, r := range t.parts[p] {
		if r.Offset >= from && r.Offset < until {
			recs = append(recs, r)
		}
	}
	b.mu.Unlock()
	for _, r := range recs {
		if !fn(r) {
			return nil
		}
	}
	return nil
}

func (b *memBackend) PartitionFor(key []byte, partitions int32) int32 {
	h := fnv.New32a()
	_, _ = h.Write(key)
	return int32(h.Sum32() % uint32(partitions))
}
