package hub

import (
	"context"
	"errors"
	"time"
)

// Record is one Kafka record as the hub sees it.
type Record struct {
	Partition int32
	Offset    int64
	Key       []byte
	Value     []byte
	TS        int64 // ms
	// Decoded is Value as JSON for the endpoints of a schema-registry format
	// (internal/schemawire sets it); when the record could not be decoded, Problem
	// says why and those endpoints send Value as base64 with that reason.
	Decoded []byte
	Problem string
	// Buffer, when set, lends Key and Value (a live consumer's pooled fetch
	// memory): the hub calls its Recycle once it has routed the record, and
	// reads neither after.
	Buffer Recycler
}

// Recycler is memory lent for a while (*kgo.Record of a pooled fetch).
type Recycler interface{ Recycle() }

// Header is one header of a record a client publishes (the publishing app's
// id). It is declared with the other Kafka types the gateway's packages share,
// so that the edge, which publishes, needs no Kafka client library's type;
// internal/kafka converts it.
type Header struct {
	Key   string
	Value []byte
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

// ErrTopicAccessDenied is returned (wrapped) by a Backend when Kafka's ACLs deny
// the gateway's principal the topic: an operator must grant it, so retrying
// alone does not help.
var ErrTopicAccessDenied = errors.New("access to the topic denied by Kafka's ACLs")

// ErrNotWritten is returned (wrapped) for a record to produce that was
// certainly not written: Kafka refused it for good (too large, invalid), or
// the producer had no room to buffer it (Kafka unreachable for long enough to
// fill it). Any other produce failure may come after a broker appended the
// record.
var ErrNotWritten = errors.New("not taken by Kafka")

// ErrEpochChanged is returned by Backend.Read when the topic is no longer the
// incarnation asked for: its records must not go out under the old epoch.
var ErrEpochChanged = errors.New("topic was deleted and created again")

// TopicChange is what a topic's live consumer reports when the topic is no
// longer what it was: deleted and created again (a new Epoch), or given more
// partitions (same Epoch, more Partitions).
type TopicChange struct {
	Meta TopicMeta
	// Since[p], for each partition that existed before partitions were added,
	// is an offset below which no record was written with the new partition
	// count: where the consumer was on p when it last confirmed the old count.
	// SinceAt is when that was. Both are empty after a new epoch.
	Since   map[int32]int64
	SinceAt time.Time
}

// ConsumeEvents are the calls a topic's live consumer makes, all from its one
// goroutine, never concurrently.
type ConsumeEvents struct {
	// Started is called once with the first offset it will deliver per partition.
	Started func(next map[int32]int64)
	// Deliver is called with the records of each fetch, in offset order per
	// partition; it must not keep the slice, which the consumer reuses (the
	// byte slices in the records stay valid).
	Deliver func([]Record)
	// Changed is called between deliveries when the topic changed. Every record
	// delivered after it returns belongs to ch.Meta, and the partitions the
	// consumer did not read before (all of them after a new epoch) are read from
	// their first offset.
	Changed func(ch TopicChange)
	// Gone is called when the topic has been missing from Kafka for longer than
	// the backend waits for it to come back; the consumer then stops by itself.
	Gone func()
}

// Consumer is a topic's live consumer, as Backend.Consume started it.
type Consumer interface {
	// Recheck asks for a check of the topic's layout now rather than at the
	// next periodic one, and returns once a check that began after the call is
	// done (Changed has returned, if the topic changed), or an error if ctx
	// ended or the consumer stopped first.
	Recheck(ctx context.Context) error
	// Stop ends the consumer and waits for it.
	Stop()
}

// Backend is the hub's view of Kafka; the real one is internal/kafka, tests use
// an in-memory log.
type Backend interface {
	Meta(ctx context.Context, topic string) (TopicMeta, error)
	// Consume reads every partition of topic from its current end until it is
	// stopped, reporting to ev (see ConsumeEvents). meta is what the hub believes
	// the topic is; a consumer that finds otherwise reports it with Changed
	// before delivering anything. Consume itself must not block; Stop may (it
	// waits for the consumer to finish) and is never called with hub locks held.
	Consume(topic string, meta TopicMeta, ev ConsumeEvents) Consumer
	// Offsets returns the log start and end (next offset to be written).
	Offsets(ctx context.Context, topic string, partition int32) (start, end int64, err error)
	// OffsetAfter returns the first offset with a timestamp at or after ms (end if none).
	OffsetAfter(ctx context.Context, topic string, partition int32, ms int64) (int64, error)
	// Read calls fn for records of partition with from <= offset < until, in order,
	// until fn returns false. It returns ErrEpochChanged (reading nothing) when
	// the topic is no longer the incarnation epoch.
	Read(ctx context.Context, topic, epoch string, partition int32, from, until int64, fn func(Record) bool) error
	// PartitionFor is the partition Kafka's default partitioner picks for key.
	PartitionFor(key []byte, partitions int32) int32
}
