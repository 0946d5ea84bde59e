//go:build integration

// The live consumer against the real Kafka of the test stack (KAFKA_BROKERS):
// what it reports when its topic grows, is recreated or is deleted.
package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
)

type events struct {
	started chan map[int32]int64
	changed chan hub.TopicChange
	gone    chan struct{}
	records chan hub.Record
}

func (e *events) consumeEvents() hub.ConsumeEvents {
	return hub.ConsumeEvents{
		Started: func(next map[int32]int64) { e.started <- next },
		Deliver: func(recs []hub.Record) {
			for _, r := range recs {
				e.records <- r
			}
		},
		Changed: func(ch hub.TopicChange) { e.changed <- ch },
		Gone:    func() { close(e.gone) },
	}
}

func newEvents() *events {
	return &events{started: make(chan map[int32]int64, 1), changed: make(chan hub.TopicChange, 4), gone: make(chan struct{}), records: make(chan hub.Record, 64)}
}

func setup(t *testing.T, partitions int32) (*Cluster, *kadm.Client, string) {
	raw := os.Getenv("KAFKA_BROKERS")
	if raw == "" {
		t.Skip("KAFKA_BROKERS not set")
	}
	brokers := strings.Split(raw, ",")
	c, err := New(ClientOptions{Brokers: brokers, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	c.CheckEvery, c.GoneAfter = 300*time.Millisecond, time.Second
	adm := kadm.NewClient(c.cl)
	topic := fmt.Sprintf("kafka-watch-%d", time.Now().UnixNano())
	if _, err := adm.CreateTopic(context.Background(), partitions, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = adm.DeleteTopics(context.Background(), topic) })
	return c, adm, topic
}

func waitMeta(t *testing.T, c *Cluster, topic string, ok func(hub.TopicMeta, error) bool) hub.TopicMeta {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		m, err := c.fetchMeta(context.Background(), topic)
		if ok(m, err) {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("metadata of %s: %+v %v", topic, m, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func produce(t *testing.T, c *Cluster, topic, key string) *kgo.Record {
	t.Helper()
	// A fresh client: franz-go keeps failing a topic whose id changed.
	cl, err := c.opts.newClient("sluice-test-producer")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	r := &kgo.Record{Topic: topic, Key: []byte(key), Value: []byte("v")}
	if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return r
}

func next[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(20 * time.Second): // a guard against a hang, not a timing
		t.Fatalf("no %s", what)
		var zero T
		return zero
	}
}

func TestConsumerReportsGrowthWithWhereTheNewLayoutStarts(t *testing.T) {
	c, adm, topic := setup(t, 2)
	meta := waitMeta(t, c, topic, func(m hub.TopicMeta, err error) bool { return err == nil })
	ev := newEvents()
	cons := c.Consume(topic, meta, ev.consumeEvents())
	defer cons.Stop()
	next(t, ev.started, "start")
	r := produce(t, c, topic, "a")
	next(t, ev.records, "record before growth")

	if _, err := adm.CreatePartitions(context.Background(), 1, topic); err != nil {
		t.Fatal(err)
	}
	ch := next(t, ev.changed, "change")
	if ch.Meta.Epoch != meta.Epoch || ch.Meta.Partitions != 3 {
		t.Fatalf("change %+v", ch)
	}
	// Since bounds where records of the new layout can start: no later than
	// where the consumer was when the partition was added, on every old
	// partition, and nothing for the added one.
	if len(ch.Since) != 2 || ch.Since[r.Partition] > r.Offset+1 || ch.SinceAt.IsZero() {
		t.Fatalf("since %v at %v, want at most %d on partition %d", ch.Since, ch.SinceAt, r.Offset+1, r.Partition)
	}
	// The added partition is read from its start.
	for i := 0; ; i++ {
		k := fmt.Sprintf("k%d", i)
		if c.PartitionFor([]byte(k), 3) == 2 {
			produce(t, c, topic, k)
			if got := next(t, ev.records, "record on the added partition"); got.Partition != 2 || got.Offset != 0 {
				t.Fatalf("record %+v", got)
			}
			break
		}
	}
	if m, _ := c.Meta(context.Background(), topic); m.Partitions != 3 {
		t.Fatalf("cached metadata %+v", m)
	}
}

// A resume naming a partition the node has not seen asks for a check at once
// (hub.Consumer.Recheck) rather than waiting for the periodic one.
func TestRecheckReportsGrowthBeforeReturning(t *testing.T) {
	c, adm, topic := setup(t, 2)
	c.CheckEvery = time.Hour // only the first check, at start, and Rechecks
	meta := waitMeta(t, c, topic, func(m hub.TopicMeta, err error) bool { return err == nil })
	ev := newEvents()
	cons := c.Consume(topic, meta, ev.consumeEvents())
	defer cons.Stop()
	next(t, ev.started, "start")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	if err := cons.Recheck(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case ch := <-ev.changed:
		t.Fatalf("a check of an unchanged topic reported %+v", ch)
	default:
	}

	if _, err := adm.CreatePartitions(context.Background(), 1, topic); err != nil {
		t.Fatal(err)
	}
	waitMeta(t, c, topic, func(m hub.TopicMeta, err error) bool { return err == nil && m.Partitions == 3 })
	// Many resumes ask at once; one check serves them all.
	errs := make(chan error, 20)
	for range 20 {
		go func() { errs <- cons.Recheck(ctx) }()
	}
	for range 20 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	select {
	case ch := <-ev.changed:
		if ch.Meta.Partitions != 3 || ch.Meta.Epoch != meta.Epoch {
			t.Fatalf("change %+v", ch)
		}
	default:
		t.Fatal("Recheck returned before the growth was reported")
	}
	select {
	case ch := <-ev.changed:
		t.Fatalf("a second change %+v", ch)
	default:
	}

	cons.Stop()
	if err := cons.Recheck(ctx); err == nil {
		t.Fatal("Recheck of a stopped consumer returned nil")
	}
}

func TestConsumerReportsRecreationThenDeletion(t *testing.T) {
	c, adm, topic := setup(t, 1)
	meta := waitMeta(t, c, topic, func(m hub.TopicMeta, err error) bool { return err == nil })
	ev := newEvents()
	cons := c.Consume(topic, meta, ev.consumeEvents())
	defer cons.Stop()
	next(t, ev.started, "start")
	if _, err := c.Meta(context.Background(), topic); err != nil { // cached
		t.Fatal(err)
	}

	if _, err := adm.DeleteTopics(context.Background(), topic); err != nil {
		t.Fatal(err)
	}
	waitMeta(t, c, topic, func(_ hub.TopicMeta, err error) bool { return errors.Is(err, hub.ErrTopicNotFound) })
	for {
		if _, err := adm.CreateTopic(context.Background(), 2, 1, nil, topic); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	fresh := waitMeta(t, c, topic, func(m hub.TopicMeta, err error) bool { return err == nil && m.Epoch != meta.Epoch })
	ch := next(t, ev.changed, "change")
	if ch.Meta != fresh || ch.Since != nil {
		t.Fatalf("change %+v, want %+v", ch, fresh)
	}
	if m, _ := c.Meta(context.Background(), topic); m != fresh {
		t.Fatalf("cached metadata %+v, want %+v", m, fresh)
	}
	// The new topic is read from its start; history reads refuse the old epoch.
	r := produce(t, c, topic, "a")
	if got := next(t, ev.records, "record of the new topic"); got.Offset != 0 || got.Partition != r.Partition {
		t.Fatalf("record %+v", got)
	}
	if err := c.Read(context.Background(), topic, meta.Epoch, r.Partition, 0, 1, func(hub.Record) bool { return true }); !errors.Is(err, hub.ErrEpochChanged) {
		t.Fatalf("read of the old epoch: %v", err)
	}
	n := 0
	if err := c.Read(context.Background(), topic, fresh.Epoch, r.Partition, 0, 1, func(hub.Record) bool { n++; return true }); err != nil || n != 1 {
		t.Fatalf("read of the new epoch: %v, %d records", err, n)
	}

	if _, err := adm.DeleteTopics(context.Background(), topic); err != nil {
		t.Fatal(err)
	}
	next(t, ev.gone, "gone")
	if _, err := c.Meta(context.Background(), topic); !errors.Is(err, hub.ErrTopicNotFound) {
		t.Fatalf("metadata after gone: %v", err)
	}
}

// A topic check that gets no answer must not hold back what the consumer
// fetches: it polls nothing while it checks, and after a full broker outage
// franz-go's retries kept one check going for 18 s while Kafka served again.
func TestRecordsFlowWhileTopicChecksHang(t *testing.T) {
	c, _, topic := setup(t, 1)
	var asked atomic.Int32
	c.checkMeta = func(ctx context.Context, _ string) (hub.TopicMeta, error) {
		asked.Add(1)
		<-ctx.Done()
		return hub.TopicMeta{}, ctx.Err()
	}
	meta := waitMeta(t, c, topic, func(_ hub.TopicMeta, err error) bool { return err == nil })
	ev := newEvents()
	lc := c.Consume(topic, meta, ev.consumeEvents())
	defer lc.Stop()
	next(t, ev.started, "start")
	for i := range 3 {
		produce(t, c, topic, fmt.Sprintf("k%d", i))
		if r := next(t, ev.records, "a record while every topic check hangs"); string(r.Key) != fmt.Sprintf("k%d", i) {
			t.Fatalf("record %d: key %q", i, r.Key)
		}
	}
	if asked.Load() == 0 {
		t.Fatal("no topic check was asked (the first comes before the first fetch): nothing was tested")
	}
}
