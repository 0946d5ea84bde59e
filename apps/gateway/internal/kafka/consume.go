package kafka

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
)

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
		var recs []hub.Record // each fetch's, reused (Deliver keeps none)
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
					c.log.Warn("fetch error; checking the topic", "topic", t, "partition", p, "err", c.opts.Security.Explain(err))
				}
				w.due = true
			})
			if fetches.NumRecords() > 0 {
				recs = recs[:0]
				fetches.EachRecord(func(r *kgo.Record) {
					recs = append(recs, hub.Record{Partition: r.Partition, Offset: r.Offset, Key: r.Key, Value: r.Value, TS: r.Timestamp.UnixMilli(), Buffer: r})
					w.next[r.Partition] = r.Offset + 1
				})
				ev.Deliver(recs)
				clear(recs) // no hold on this fetch's buffers until the next
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

// checkTimeout bounds a live consumer's topic check (a metadata request
// answers in milliseconds when Kafka is up).
const checkTimeout = 2 * time.Second

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
	return c.opts.newClient("sluice-gateway-live",
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: at}),
		kgo.FetchMaxWait(500*time.Millisecond),
		// Fetches borrow their memory; the hub gives each record back
		// (hub.Record.Buffer) once routed.
		kgo.WithPools(livePools),
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
	// The consumer polls nothing while it checks, so fetched records wait: a
	// check may not take longer than checkTimeout. Unbounded, franz-go's own
	// retries kept a check going for 18 s after a full broker outage, while
	// Kafka served again; that node's clients got their first messages 7 s
	// after the other node's (docs/reliability.md). A check cut short is
	// asked again after CheckEvery, or sooner after a fetch error.
	cctx, cancel := context.WithTimeout(ctx, checkTimeout)
	m, err := w.c.checkMeta(cctx, w.topic)
	cancel()
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
		w.c.log.Warn("cannot check topic metadata", "topic", w.topic, "err", w.c.opts.Security.Explain(err))
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
	bo := Backoff{First: 100 * time.Millisecond, Max: 5 * time.Second}
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
		c.log.Warn("cannot list end offsets; retrying", "topic", topic, "err", c.opts.Security.Explain(err))
		if !Sleep(ctx, bo.Next()) {
			return nil
		}
	}
}
