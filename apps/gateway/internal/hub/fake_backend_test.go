package hub

import (
	"context"
	"hash/fnv"
	"sync"
	"time"
)

// memBackend is an in-memory Kafka for the hub's unit tests: topics with
// partitions of records, a movable log start (retention) and live tailing.
type memBackend struct {
	mu     sync.Mutex
	cond   *sync.Cond
	topics map[string]*memTopic
}

type memTopic struct {
	epoch string
	parts [][]Record // index = offset - start
	start []int64
}

func newMemBackend() *memBackend {
	b := &memBackend{topics: map[string]*memTopic{}}
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
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.topics[topic]
	p := b.PartitionFor([]byte(key), int32(len(t.parts)))
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

func (b *memBackend) Consume(topic string, started func(map[int32]int64), deliver func([]Record)) func() {
	var stopped bool
	b.mu.Lock()
	t := b.topics[topic]
	next := map[int32]int64{}
	for p := range t.parts {
		next[int32(p)] = t.start[p] + int64(len(t.parts[p]))
	}
	b.mu.Unlock()
	started(next)
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.mu.Lock()
		defer b.mu.Unlock()
		for !stopped {
			progressed := false
			for p := range t.parts {
				for next[int32(p)] < t.start[p]+int64(len(t.parts[p])) {
					r := t.parts[p][next[int32(p)]-t.start[p]]
					next[int32(p)]++
					b.mu.Unlock()
					deliver([]Record{r})
					b.mu.Lock()
					progressed = true
				}
			}
			if !progressed && !stopped {
				b.cond.Wait()
			}
		}
	}()
	return func() {
		b.mu.Lock()
		stopped = true
		b.cond.Broadcast()
		b.mu.Unlock()
		<-done
	}
}

func (b *memBackend) Offsets(_ context.Context, topic string, p int32) (int64, int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.topics[topic]
	return t.start[p], t.start[p] + int64(len(t.parts[p])), nil
}

func (b *memBackend) OffsetAfter(_ context.Context, topic string, p int32, ms int64) (int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.topics[topic]
	for _, r := range t.parts[p] {
		if r.TS >= ms {
			return r.Offset, nil
		}
	}
	return t.start[p] + int64(len(t.parts[p])), nil
}

func (b *memBackend) Read(_ context.Context, topic string, p int32, from, until int64, fn func(Record) bool) error {
	b.mu.Lock()
	t := b.topics[topic]
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
