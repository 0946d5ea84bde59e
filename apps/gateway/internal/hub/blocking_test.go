package hub

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// stallingBackend is a memBackend whose Kafka calls for one topic hang: its
// metadata request until the caller gives up, its consumer's stop until the test
// lets it finish (a consumer stuck delivering, a Kafka client slow to close).
type stallingBackend struct {
	*memBackend
	topic    string
	inMeta   chan struct{} // closed when a Meta call for topic is waiting
	stopping chan struct{} // closed when the topic's consumer is being stopped
	release  chan struct{} // closing it lets that stop finish
	stopOnce sync.Once     // only the first consumer's stop stalls
}

func (b *stallingBackend) Meta(ctx context.Context, topic string) (TopicMeta, error) {
	if topic == b.topic && b.inMeta != nil {
		close(b.inMeta)
		<-ctx.Done()
		return TopicMeta{}, ctx.Err()
	}
	return b.memBackend.Meta(ctx, topic)
}

func (b *stallingBackend) Consume(topic string, meta TopicMeta, ev ConsumeEvents) Consumer {
	c := b.memBackend.Consume(topic, meta, ev).(memConsumer)
	if topic != b.topic {
		return c
	}
	stop := c.stop
	c.stop = func() {
		b.stopOnce.Do(func() {
			close(b.stopping)
			<-b.release
		})
		stop()
	}
	return c
}

func newStallingHub(t *testing.T) (*Hub, *stallingBackend) {
	mem := newMemBackend()
	mem.createTopic("prices", "epoch-1", 3)
	mem.createTopic("stalled", "epoch-2", 1)
	b := &stallingBackend{memBackend: mem, topic: "stalled", stopping: make(chan struct{}), release: make(chan struct{})}
	h := New(b, Config{Linger: time.Millisecond})
	t.Cleanup(func() {
		select {
		case <-b.release:
		default:
			close(b.release)
		}
		h.Close()
	})
	return h, b
}

// subscribeReturns subscribes to prices/key in the background and reports
// whether Subscribe returned (it is given no deadline of its own, as a waiter
// for a hub mutex has none either).
func subscribeReturns(t *testing.T, h *Hub, key string) bool {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		s, err := h.Subscribe(context.Background(), protocol.Path{Topic: "prices", Key: key}, servedJSON, protocol.From{Kind: protocol.FromLatest}, &recorder{}, nil)
		if err == nil {
			s.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
		return true
	case <-time.After(10 * time.Second): // a guard against a hang, not a timing
		return false
	}
}

// A topic whose consumer takes long to stop after its last subscriber left
// must not hold up subscribing to any other topic.
func TestStoppingConsumerDoesNotBlockOtherTopics(t *testing.T) {
	h, b := newStallingHub(t)
	s, err := h.Subscribe(context.Background(), protocol.Path{Topic: "stalled", Key: "k"}, servedJSON, protocol.From{Kind: protocol.FromLatest}, &recorder{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close() // the last subscriber leaves: after the linger the consumer is stopped
	select {
	case <-b.stopping:
	case <-time.After(10 * time.Second):
		t.Fatal("the idle topic's consumer was never stopped")
	}
	if !subscribeReturns(t, h, "AAPL") {
		t.Fatal("subscribing to another topic hangs while a consumer is being stopped")
	}
	// The stalled topic itself can be subscribed again: a new consumer starts.
	s, err = h.Subscribe(context.Background(), protocol.Path{Topic: "stalled", Key: "k"}, servedJSON, protocol.From{Kind: protocol.FromLatest}, &recorder{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

// A metadata request that hangs (until its subscriber's deadline) must not hold
// up subscribing to other topics.
func TestSlowMetadataDoesNotBlockOtherTopics(t *testing.T) {
	h, b := newStallingHub(t)
	b.inMeta = make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	failed := make(chan error, 1)
	go func() {
		_, err := h.Subscribe(ctx, protocol.Path{Topic: "stalled", Key: "k"}, servedJSON, protocol.From{Kind: protocol.FromLatest}, &recorder{}, nil)
		failed <- err
	}()
	<-b.inMeta
	if !subscribeReturns(t, h, "MSFT") {
		t.Fatal("subscribing to another topic hangs while a metadata request is in flight")
	}
	cancel()
	if err := <-failed; err == nil {
		t.Fatal("the subscribe whose metadata request was cancelled succeeded")
	}
}
