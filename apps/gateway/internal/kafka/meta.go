package kafka

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
)

// metaTTL bounds how stale a cached topic id and partition count may be. Every
// publish needs the epoch for its answer; asking Kafka each time would add a
// metadata round trip to every publish.
const metaTTL = 10 * time.Second

type cachedMeta struct {
	meta hub.TopicMeta
	at   time.Time
	// refreshing: a background fetch of a stale entry is under way.
	refreshing bool
}

// metaRefreshTimeout bounds a background refresh of a stale entry.
const metaRefreshTimeout = 10 * time.Second

// Meta returns the topic's id (as the epoch) and partition count, cached for
// metaTTL. A stale entry is returned at once while one background fetch
// refreshes it: a publish waits for Kafka's metadata only the first time its
// topic is used. Why: a connection handles its publish frames one after
// another, and during a broker outage each fetch waited for its timeout, so
// a connection's publishes queued behind one another for minutes (a fault
// run's all-brokers scenario answered publishes 72 s after their send).
func (c *Cluster) Meta(ctx context.Context, topic string) (hub.TopicMeta, error) {
	c.metaMu.Lock()
	cached, ok := c.meta[topic]
	if ok && time.Since(cached.at) >= metaTTL && !cached.refreshing {
		cached.refreshing = true
		c.meta[topic] = cached
		go c.refreshMeta(topic)
	}
	c.metaMu.Unlock()
	if ok {
		return cached.meta, nil
	}
	m, err := c.fetchMeta(ctx, topic)
	if err != nil {
		return m, err
	}
	c.remember(topic, m)
	return m, nil
}

// refreshMeta fetches a stale entry again; on failure the entry stays (still
// stale) and the next Meta call tries again.
func (c *Cluster) refreshMeta(topic string) {
	ctx, cancel := context.WithTimeout(context.Background(), metaRefreshTimeout)
	defer cancel()
	m, err := c.fetchMeta(ctx, topic)
	c.metaMu.Lock()
	defer c.metaMu.Unlock()
	cached, ok := c.meta[topic]
	if !ok {
		return // forgotten meanwhile (the topic is gone)
	}
	switch {
	case errors.Is(err, hub.ErrTopicNotFound):
		delete(c.meta, topic) // the next publish fetches it, and hears it is gone
	case err != nil:
		cached.refreshing = false
		c.meta[topic] = cached
	default:
		c.meta[topic] = cachedMeta{meta: m, at: time.Now()}
	}
}

// remember replaces the cached metadata with what a live consumer just found,
// so publishes and new subscribers stop answering with an old epoch at once
// rather than after metaTTL; forget drops it (the topic is gone).
func (c *Cluster) remember(topic string, m hub.TopicMeta) {
	c.metaMu.Lock()
	c.meta[topic] = cachedMeta{meta: m, at: time.Now()}
	c.metaMu.Unlock()
}

func (c *Cluster) forget(topic string) {
	c.metaMu.Lock()
	delete(c.meta, topic)
	c.metaMu.Unlock()
}

// fetchMeta asks a broker for the topic's id and partition count. It bypasses
// the client's metadata cache (kadm.Metadata answers from a cache up to
// MetadataMinAge old): a live consumer's check must see a change at once, and
// TopicChange.Since is only right if the answer is not older than the request.
func (c *Cluster) fetchMeta(ctx context.Context, topic string) (hub.TopicMeta, error) {
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, c.cl)
	if err != nil {
		return hub.TopicMeta{}, err
	}
	for _, t := range resp.Topics {
		if t.Topic == nil || *t.Topic != topic {
			continue
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			if errors.Is(err, kerr.UnknownTopicOrPartition) {
				return hub.TopicMeta{}, hub.ErrTopicNotFound
			}
			if errors.Is(err, kerr.TopicAuthorizationFailed) {
				return hub.TopicMeta{}, fmt.Errorf("%w: %w", hub.ErrTopicAccessDenied, err)
			}
			return hub.TopicMeta{}, err
		}
		if len(t.Partitions) == 0 {
			// Nothing could be read or written (and keys could not be mapped).
			return hub.TopicMeta{}, fmt.Errorf("topic %s has no partitions", topic)
		}
		return hub.TopicMeta{Epoch: base64.RawURLEncoding.EncodeToString(t.TopicID[:]), Partitions: int32(len(t.Partitions))}, nil
	}
	return hub.TopicMeta{}, hub.ErrTopicNotFound
}

// PartitionFor is the partition Kafka's default partitioner (murmur2, as in the
// Java client, kafkajs and franz-go) chooses for key.
func (c *Cluster) PartitionFor(key []byte, partitions int32) int32 {
	if partitions <= 0 {
		return 0 // Meta refuses such topics; never divide by zero
	}
	return int32(c.keyPart.Partition(&kgo.Record{Key: key}, int(partitions)))
}

// Offsets returns the log start and end offsets of one partition.
func (c *Cluster) Offsets(ctx context.Context, topic string, partition int32) (int64, int64, error) {
	starts, err := c.adm.ListStartOffsets(ctx, topic)
	if err != nil {
		return 0, 0, err
	}
	ends, err := c.adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return 0, 0, err
	}
	s, ok1 := starts.Lookup(topic, partition)
	e, ok2 := ends.Lookup(topic, partition)
	if !ok1 || !ok2 || s.Err != nil || e.Err != nil {
		return 0, 0, fmt.Errorf("offsets of %s/%d: %v %v", topic, partition, s.Err, e.Err)
	}
	return s.Offset, e.Offset, nil
}

// OffsetAfter returns the first offset at or after ms (the end when none).
func (c *Cluster) OffsetAfter(ctx context.Context, topic string, partition int32, ms int64) (int64, error) {
	listed, err := c.adm.ListOffsetsAfterMilli(ctx, ms, topic)
	if err != nil {
		return 0, err
	}
	o, ok := listed.Lookup(topic, partition)
	if !ok || o.Err != nil {
		return 0, fmt.Errorf("offset after %d in %s/%d: %v", ms, topic, partition, o.Err)
	}
	return o.Offset, nil
}
