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
	"maps"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

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

	// CheckEvery is how often a live consumer asks Kafka for its topic's id and
	// partition count; a fetch error makes it ask at once. GoneAfter is how long
	// the topic may be missing before the consumer reports it gone. Set before
	// the first Consume.
	CheckEvery time.Duration
	GoneAfter  time.Duration
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
		kgo.Dialer(dialBroker),
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

		CheckEvery: 2 * time.Second,
		GoneAfter:  30 * time.Second,
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

// Consume starts the topic's live consumer at the current end of every partition.
//
// It follows the topic's changes (hub.ConsumeEvents): every CheckEvery, and at
// once after a fetch error (UNKNOWN_TOPIC_ID, UNKNOWN_TOPIC_OR_PARTITION, offset
// out of range, …), it asks Kafka for the topic's id and partition count. franz-go
// cannot do this for us: it never adopts a recreated topic's new id (its
// partitions fail with UNKNOWN_TOPIC_ID until the topic is purged and re-added),
// its metadata refreshes are not observable (no hook), and a direct consumer
// reads only the partitions it was given. So:
//   - a new id: Changed, then a new client reads every partition from its start;
//   - more partitions: Changed, then AddConsumePartitions from their start;
//   - missing for GoneAfter: Gone, and the consumer stops.
//
// The worst case between a change and Changed is CheckEvery plus one metadata
// round trip (and a poll in progress: records fetched before the check are
// delivered first, which is right, they are older).
func (c *Cluster) Consume(topic string, meta hub.TopicMeta, ev hub.ConsumeEvents) hub.Consumer {
	ctx, cancel := context.WithCancel(context.Background())
	lc := &liveConsumer{cancel: cancel, done: make(chan struct{}), checked: make(chan struct{})}
	go func() {
		defer close(lc.done)
		ends := c.endOffsetsWithRetry(ctx, topic)
		if ends == nil {
			return
		}
		cl, err := c.liveClient(topic, ends)
		if err != nil {
			c.log.Error("cannot create consumer", "topic", topic, "err", err)
			return
		}
		defer func() { cl.Close() }()
		ev.Started(ends)
		w := &topicWatch{c: c, topic: topic, meta: meta, next: maps.Clone(ends)}
		// Checked before the first fetch: the hub's metadata may be up to
		// metaTTL old, and records must not go out under an old epoch.
		w.due = true
		for {
			// A fetch error asks for a check at once, but not more than a few
			// times a second while the error lasts (a deleted topic); so does a
			// Recheck, at most every minRecheckGap.
			since := time.Since(w.checked)
			asked := lc.asked()
			recheck := asked > lc.served
			if (recheck && since >= minRecheckGap) || (w.due && since >= minCheckGap) || since >= c.CheckEvery {
				switch w.check(ctx, ev) {
				case watchGone:
					return
				case watchNewEpoch:
					cl.Close()
					starts := map[int32]int64{}
					for p := range w.meta.Partitions {
						starts[p] = -1
					}
					if cl, err = c.liveClient(topic, starts); err != nil {
						c.log.Error("cannot create consumer", "topic", topic, "err", err)
						return
					}
				case watchGrown:
					cl.AddConsumePartitions(map[string]map[int32]kgo.Offset{topic: w.added})
				}
				lc.checkedFor(asked)
				recheck = false
			}
			if ctx.Err() != nil {
				return
			}
			wake := w.checked.Add(c.CheckEvery)
			if w.due {
				wake = w.checked.Add(minCheckGap)
			}
			if recheck {
				wake = w.checked.Add(minRecheckGap)
			}
			pctx, pcancel := context.WithDeadline(ctx, wake)
			lc.polling(pcancel, asked)
			fetches := cl.PollFetches(pctx)
			lc.polling(nil, 0)
			pcancel()
			if ctx.Err() != nil {
				return
			}
			fetches.EachError(func(t string, p int32, err error) {
				if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
					return
				}
				if !w.due {
					c.log.Warn("fetch error; checking the topic", "topic", t, "partition", p, "err", err)
				}
				w.due = true
			})
			if n := fetches.NumRecords(); n > 0 {
				recs := make([]hub.Record, 0, n)
				fetches.EachRecord(func(r *kgo.Record) {
					recs = append(recs, hub.Record{Partition: r.Partition, Offset: r.Offset, Key: r.Key, Value: r.Value, TS: r.Timestamp.UnixMilli()})
					w.next[r.Partition] = r.Offset + 1
				})
				ev.Deliver(recs)
			}
		}
	}()
	return lc
}

// liveConsumer is the handle of a Consume goroutine.
type liveConsumer struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when the goroutine returned

	mu sync.Mutex
	// asks counts Recheck calls. Once a check is done, every ask made before it
	// began is served: served becomes the count the check saw, and checked is
	// closed and replaced.
	asks, served uint64
	checked      chan struct{}
	// wakePoll cancels the poll in progress (nil between polls), which began
	// when pollSaw Rechecks had been asked.
	wakePoll context.CancelFunc
	pollSaw  uint64
}

func (lc *liveConsumer) Stop() {
	lc.cancel()
	<-lc.done
}

func (lc *liveConsumer) Recheck(ctx context.Context) error {
	lc.mu.Lock()
	lc.asks++
	want := lc.asks
	if lc.wakePoll != nil && lc.pollSaw <= lc.served {
		// The poll began with nothing asked: it may be long (CheckEvery). One
		// that saw an ask already ends in time for the check.
		lc.wakePoll()
	}
	lc.mu.Unlock()
	for {
		lc.mu.Lock()
		served, checked := lc.served, lc.checked
		lc.mu.Unlock()
		if served >= want {
			return nil
		}
		select {
		case <-checked:
		case <-lc.done:
			return errConsumerStopped
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

var errConsumerStopped = errors.New("the topic's consumer stopped")

// asked is the number of Rechecks asked so far; lc.served is only written by
// the consumer goroutine, which may read it without the lock.
func (lc *liveConsumer) asked() uint64 {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	return lc.asks
}

// checkedFor records that a check which began after asks Rechecks is done.
func (lc *liveConsumer) checkedFor(asks uint64) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if asks > lc.served {
		lc.served = asks
		close(lc.checked)
		lc.checked = make(chan struct{})
	}
}

// polling registers the cancel of the poll about to start (nil: it ended),
// whose deadline was set knowing of saw Rechecks. One asked since ends the
// poll at once if it was not planned for.
func (lc *liveConsumer) polling(cancel context.CancelFunc, saw uint64) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	lc.wakePoll, lc.pollSaw = cancel, saw
	if cancel != nil && saw <= lc.served && lc.asks > saw {
		cancel()
	}
}

// minCheckGap spaces the metadata checks that fetch errors ask for;
// minRecheckGap those hub.Consumer.Recheck asks for (a resume naming a
// partition or epoch the node does not know: waiting for the check delays it,
// so it is short, but a flood of such resumes must leave time to fetch).
const (
	minCheckGap   = 250 * time.Millisecond
	minRecheckGap = 20 * time.Millisecond
)

// brokerDialTimeout is franz-go's default, which our dialer (dialBroker)
// replaces.
const brokerDialTimeout = 10 * time.Second

// liveClient consumes topic's partitions from the given offsets (-1: the start).
func (c *Cluster) liveClient(topic string, from map[int32]int64) (*kgo.Client, error) {
	at := map[int32]kgo.Offset{}
	for p, off := range from {
		if off < 0 {
			at[p] = kgo.NewOffset().AtStart()
		} else {
			at[p] = kgo.NewOffset().At(off)
		}
	}
	return kgo.NewClient(
		kgo.SeedBrokers(c.brokers...),
		kgo.Dialer(dialBroker),
		kgo.ClientID("sluice-gateway-live"),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: at}),
		kgo.FetchMaxWait(500*time.Millisecond),
	)
}

// topicWatch is a live consumer's view of its topic, owned by its goroutine.
type topicWatch struct {
	c     *Cluster
	topic string
	meta  hub.TopicMeta
	// next is the offset the consumer delivers next per partition.
	next map[int32]int64
	// confirmed is next when the current layout was last confirmed, at
	// confirmedAt: TopicChange.Since.
	confirmed   map[int32]int64
	confirmedAt time.Time
	// missingSince is when the topic was first found missing (zero: it is not).
	missingSince time.Time
	checked      time.Time
	due          bool
	// added holds the partitions to read after watchGrown.
	added map[int32]kgo.Offset
}

type watchResult int

const (
	watchSame watchResult = iota
	watchNewEpoch
	watchGrown
	watchGone
)

// check asks Kafka for the topic's id and partition count and reports a
// change to ev.
func (w *topicWatch) check(ctx context.Context, ev hub.ConsumeEvents) watchResult {
	// Taken before asking: a record written with a layout Kafka had not yet
	// changed when it answered is at or after where the consumer was then.
	snapshot, at := maps.Clone(w.next), time.Now()
	m, err := w.c.fetchMeta(ctx, w.topic)
	w.checked, w.due = time.Now(), false
	switch {
	case ctx.Err() != nil:
		return watchSame
	case errors.Is(err, hub.ErrTopicNotFound):
		if w.missingSince.IsZero() {
			w.missingSince = at
			w.c.log.Warn("topic is missing from Kafka", "topic", w.topic)
		}
		if time.Since(w.missingSince) >= w.c.GoneAfter {
			w.c.forget(w.topic)
			ev.Gone()
			return watchGone
		}
		w.due = false
		return watchSame
	case err != nil:
		w.c.log.Warn("cannot check topic metadata", "topic", w.topic, "err", err)
		return watchSame
	}
	w.missingSince = time.Time{}
	switch {
	case m.Epoch != w.meta.Epoch:
		w.meta = m
		w.c.remember(w.topic, m)
		ev.Changed(hub.TopicChange{Meta: m})
		w.next, w.confirmed = map[int32]int64{}, nil
		for p := range m.Partitions {
			w.next[p] = 0
		}
		return watchNewEpoch
	case m.Partitions > w.meta.Partitions:
		since := w.confirmed
		if since == nil {
			// Never confirmed (the change came before the first check): where
			// the consumer started is the best bound there is.
			since = snapshot
		}
		old := w.meta.Partitions
		w.meta = m
		w.c.remember(w.topic, m)
		ev.Changed(hub.TopicChange{Meta: m, Since: since, SinceAt: w.confirmedAt})
		w.added = map[int32]kgo.Offset{}
		for p := old; p < m.Partitions; p++ {
			w.added[p] = kgo.NewOffset().AtStart()
			w.next[p] = 0
		}
		w.confirmed, w.confirmedAt = nil, time.Time{}
		return watchGrown
	}
	w.confirmed, w.confirmedAt = snapshot, at
	return watchSame
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
// direct consumer, after checking that the topic is still the incarnation
// epoch. (The reading client learns the topic id itself; a recreation between
// the check and that is not caught here but by the live consumer's next check.)
func (c *Cluster) Read(ctx context.Context, topic, epoch string, partition int32, from, until int64, fn func(hub.Record) bool) error {
	if from >= until {
		return nil
	}
	m, err := c.fetchMeta(ctx, topic)
	if err != nil {
		return err
	}
	if m.Epoch != epoch {
		return hub.ErrEpochChanged
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(c.brokers...),
		kgo.Dialer(dialBroker),
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

// Produce queues one record (acks=all, idempotent: a retry neither duplicates
// nor reorders it) and calls done with its position once Kafka acknowledged it.
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
	c.cl.Produce(ctx, r, func(r *kgo.Record, err error) {
		done(r.Partition, r.Offset, err)
	})
}
