// Package hub routes Kafka records to subscriptions: one live consumer per topic
// in use, records matched by key to the endpoint's subscribers, each frame encoded
// once and shared, and catch-up reads (from the endpoint cache, else from Kafka)
// for subscriptions that start at a position, a time or the earliest offset.
//
// Lock order (never take an earlier lock while holding a later one):
//
//	Hub.topicsMu → shard.mu → Subscription.mu
//
// Sinks (connections) are called with Subscription.mu held and must not block:
// they only enqueue.
package hub

import (
	"context"
	"errors"
)

// Record is one Kafka record as the hub sees it.
type Record struct {
	Partition int32
	Offset    int64
	Key       []byte
	Value     []byte
	TS        int64 // ms
}

// TopicMeta is what the hub needs to know of a topic.
type TopicMeta struct {
	// Epoch identifies this incarnation of the topic (its Kafka topic id); it
	// changes when the topic is deleted and created again.
	Epoch      string
	Partitions int32
}

// ErrTopicNotFound is returned by a Backend for a topic Kafka does not have.
var ErrTopicNotFound = errors.New("topic does not exist in Kafka")

// Backend is the hub's view of Kafka; the real one is internal/kafka, tests use
// an in-memory log.
type Backend interface {
	Meta(ctx context.Context, topic string) (TopicMeta, error)
	// Consume reads every partition of topic from its current end until stop is
	// called. It calls started once with the first offset it will deliver per
	// partition, then deliver with the records of each fetch, in offset order
	// per partition, from one goroutine; deliver may keep the slice. Consume
	// itself must not block; stop may (it waits for the consumer to finish) and
	// is never called with hub locks held.
	Consume(topic string, started func(next map[int32]int64), deliver func([]Record)) (stop func())
	// Offsets returns the log start and end (next offset to be written).
	Offsets(ctx context.Context, topic string, partition int32) (start, end int64, err error)
	// OffsetAfter returns the first offset with a timestamp at or after ms (end if none).
	OffsetAfter(ctx context.Context, topic string, partition int32, ms int64) (int64, error)
	// Read calls fn for records of partition with from <= offset < until, in order,
	// until fn returns false.
	Read(ctx context.Context, topic string, partition int32, from, until int64, fn func(Record) bool) error
	// PartitionFor is the partition Kafka's default partitioner picks for key.
	PartitionFor(key []byte, partitions int32) int32
}
