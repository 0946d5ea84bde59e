package kafka

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
)

// Produce queues one record (acks=all, idempotent: a retry neither duplicates
// nor reorders it) and calls done with its position once Kafka acknowledged it,
// or at once with hub.ErrNotWritten when the producer's buffer is full.
// Records queued for one partition are written in the order of the calls.
// done runs on the client's goroutine.
func (c *Cluster) Produce(ctx context.Context, topic string, key, value []byte, headers []hub.Header, done func(partition int32, offset int64, err error)) {
	r := &kgo.Record{Topic: topic, Key: key, Value: value}
	if len(headers) > 0 {
		r.Headers = make([]kgo.RecordHeader, len(headers))
		for i, h := range headers {
			r.Headers[i] = kgo.RecordHeader{Key: h.Key, Value: h.Value}
		}
	}
	// TryProduce, not Produce: with the buffer full (brokers unreachable for
	// a while) Produce would block the publishing connection's reads for up
	// to the record's timeout, one publish after another; refused at once,
	// the client hears "not written" and the connection goes on.
	c.cl.TryProduce(ctx, r, func(r *kgo.Record, err error) {
		var ke *kerr.Error
		switch {
		case errors.Is(err, kerr.TopicAuthorizationFailed):
			err = fmt.Errorf("%w: %w", hub.ErrTopicAccessDenied, err)
		case errors.Is(err, kgo.ErrMaxBuffered):
			err = fmt.Errorf("%w (the gateway's producer buffer is full: Kafka has not taken records for a while)", hub.ErrNotWritten)
		case errors.As(err, &ke) && !ke.Retriable:
			// The broker's answer for this record's batch: not appended.
			err = fmt.Errorf("%w (%w)", hub.ErrNotWritten, err)
		}
		done(r.Partition, r.Offset, err)
	})
}
