// Package kafka is the gateway's Kafka side, with franz-go: topic metadata, one
// live consumer per topic in use (partitions assigned directly, no consumer
// group), bounded reads for catch-up, and acks=all publishing. *Cluster
// implements hub.Backend.
package kafka

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
)

// Cluster holds the shared client (metadata, offsets, produce) of one node.
type Cluster struct {
	brokers []string
	log     *slog.Logger
	cl      *kgo.Client
	adm     *kadm.Client
	keyPart kgo.TopicPartitioner

	metaMu sync.Mutex
	meta   map[string]cachedMeta
}

// metaTTL bounds how stale a cached topic id and partition count may be. Every
// publish needs the epoch for its answer; asking Kafka each time would add a
// metadata round trip to every publish.
const metaTTL = 10 * time.Second

type cachedMeta struct {
	meta hub.TopicMeta
	at   time.Time
}

// New connects lazily: nothing is sent until the first request.
func New(brokers []string, log *slog.Logger) (*Cluster, error) {
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.ClientID("sluice-gateway"),
		// acks=all with idempotence is franz-go's default; stated here because
		// "acknowledged" in the protocol means exactly this.
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerLinger(0),
		kgo.RecordDeliveryTimeout(10*time.Second),
		kgo.MetadataMinAge(time.Second),
	)
	if err != nil {
		return nil, err
	}
	return &Cluster{
		brokers: brokers,
		log:     log,
		cl:      cl,
		adm:     kadm.NewClient(cl),
		keyPart: kgo.StickyKeyPartitioner(nil).ForTopic(""),
		meta:    map[string]cachedMeta{},
	}, nil
}

// Close releases the shared client.
func (c *Cluster) Close() { c.cl.Close() }

// Meta returns the topic's id (as the epoch) and partition count, cached for
// metaTTL.
func (c *Cluster) Meta(ctx context.Context, topic string) (hub.TopicMeta, error) {
	c.metaMu.Lock()
	cached, ok := c.meta[topic]
	c.metaMu.Unlock()
	if ok && time.Since(cached.at) < metaTTL {
		return cached.meta, nil
	}
	m, err := c.fetchMeta(ctx, topic)
	if err != nil {
		return m, err
	}
	c.metaMu.Lock()
	c.meta[topic] = cachedMeta{meta: m, at: time.Now()}
	c.metaMu.Unlock()
	return m, nil
}

func (c *Cluster) fetchMeta(ctx context.Context, topic string) (hub.TopicMeta, error) {
	md, err := c.adm.Metadata(ctx, topic)
	if err != nil {
		return hub.TopicMeta{}, err
	}
	d, ok := md.Topics[topic]
	if !ok || errors.Is(d.Err, kerr.UnknownTopicOrPartition) {
		return hub.TopicMeta{}, hub.ErrTopicNotFound
	}
	if d.Err != nil {
		return hub.TopicMeta{}, d.Err
	}
	if len(d.Partitions) == 0 {
		// Nothing could be read or written (and keys could not be mapped).
		return hub.TopicMeta{}, fmt.Errorf("topic %s has no partitions", topic)
	}
	return hub.TopicMeta{Epoch: base64.RawURLEncoding.EncodeToString(d.ID[:]), Partitions: int32(len(d.Partitions))}, nil
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

// Consume starts the topic's live consumer at the current end of every partition.
func (c *Cluster) Consume(topic string, started func(map[int32]int64), deliver func([]hub.Record)) func() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		ends := c.endOffsetsWithRetry(ctx, topic)
		if ends == nil {
			return
		}
		at := map[int32]kgo.Offset{}
		for p, off := range ends {
			at[p] = kgo.NewOffset().At(off)
		}
		cl, err := kgo.NewClient(
			kgo.SeedBrokers(c.brokers...),
			kgo.ClientID("sluice-gateway-live"),
			kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: at}),
			kgo.FetchMaxWait(500*time.Millisecond),
		)
		if err != nil {
			c.log.Error("cannot create consumer", "topic", topic, "err", err)
			return
		}
		defer cl.Close()
		started(ends)
		for {
			fetches := cl.PollFetches(ctx)
			if ctx.Err() != nil {
				return
			}
			fetches.EachError(func(t string, p int32, err error) {
				c.log.Warn("fetch error", "topic", t, "partition", p, "err", err)
			})
			if n := fetches.NumRecords(); n > 0 {
				recs := make([]hub.Record, 0, n)
				fetches.EachRecord(func(r *kgo.Record) {
					recs = append(recs, hub.Record{Partition: r.Partition, Offset: r.Offset, Key: r.Key, Value: r.Value, TS: r.Timestamp.UnixMilli()})
				})
				deliver(recs)
			}
		}
	}()
	return func() {
		cancel()
		wg.Wait()
	}
}

func (c *Cluster) endOffsetsWithRetry(ctx context.Context, topic string) map[int32]int64 {
	backoff := 100 * time.Millisecond
	for {
		ends, err := c.adm.ListEndOffsets(ctx, topic)
		if err == nil {
			out := map[int32]int64{}
			ends.Each(func(o kadm.ListedOffset) {
				if o.Topic == topic && o.Err == nil {
					out[o.Partition] = o.Offset
				}
			})
			if len(out) > 0 {
				return out
			}
			err = fmt.Errorf("no partitions listed")
		}
		c.log.Warn("cannot list end offsets; retrying", "topic", topic, "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

// Read reads records from <= offset < until of one partition with a short-lived
// direct consumer.
func (c *Cluster) Read(ctx context.Context, topic string, partition int32, from, until int64, fn func(hub.Record) bool) error {
	if from >= until {
		return nil
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(c.brokers...),
		kgo.ClientID("sluice-gateway-catchup"),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {partition: kgo.NewOffset().At(from)}}),
		kgo.FetchMaxWait(200*time.Millisecond),
	)
	if err != nil {
		return err
	}
	defer cl.Close()
	next, empty := from, 0
	for next < until {
		fetches := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return err
		}
		var ferr error
		fetches.EachError(func(_ string, _ int32, err error) { ferr = err })
		if ferr != nil {
			return ferr
		}
		stop, past := false, false
		fetches.EachRecord(func(r *kgo.Record) {
			if r.Offset >= until {
				past = true
			}
			if stop || past {
				return
			}
			next = r.Offset + 1
			if !fn(hub.Record{Partition: r.Partition, Offset: r.Offset, Key: r.Key, Value: r.Value, TS: r.Timestamp.UnixMilli()}) {
				stop = true
			}
		})
		// A record at or past until means every offset below it was passed:
		// those not returned are holes (compacted away, transaction markers).
		// Without this a busy topic, whose fetches never come back empty,
		// kept this loop waiting for a hole forever.
		if stop || past {
			return nil
		}
		// Offsets below until may be holes (compacted away, transaction markers):
		// every record up to until already exists, so a broker that returns
		// nothing twice has nothing more to give.
		if fetches.NumRecords() == 0 {
			empty++
			if empty >= 2 {
				return nil
			}
		} else {
			empty = 0
		}
	}
	return nil
}

// Produce writes one record and returns where Kafka stored it, once acknowledged.
func (c *Cluster) Produce(ctx context.Context, topic string, key, value []byte, headers []kgo.RecordHeader) (int32, int64, error) {
	rec := &kgo.Record{Topic: topic, Key: key, Value: value, Headers: headers}
	if err := c.cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		return 0, 0, err
	}
	return rec.Partition, rec.Offset, nil
}
