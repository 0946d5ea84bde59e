package hub

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// Tests of Subscription.Seq, the position "subscribed" carries: the offset just
// before the first message a subscription can deliver, for every kind of from.

// eventLog is a Sink that also records the ready call, in one sequence, so a
// test sees what reached the client in which order.
type eventLog struct {
	recorder
	events []string
}

func (l *eventLog) note(e string) { l.mu.Lock(); l.events = append(l.events, e); l.mu.Unlock() }
func (l *eventLog) Deliver(f *Frame, wb WriteBatch) {
	l.note("message " + strconv.FormatInt(f.Seq, 10))
	l.recorder.Deliver(f, wb)
}
func (l *eventLog) Gap(g protocol.Gap) { l.note("gap " + g.Reason); l.recorder.Gap(g) }

func (l *eventLog) log() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.events...)
}

// subAt subscribes and returns the Seq the ready callback saw (what the edge
// writes into "subscribed").
func subAt(t *testing.T, h *Hub, key string, from protocol.From) (*Subscription, *eventLog, int64) {
	t.Helper()
	l := &eventLog{}
	seq := int64(-99)
	s, err := h.Subscribe(context.Background(), protocol.Path{Topic: "prices", Key: key}, servedJSON, from, l, func(s *Subscription) {
		seq = s.Seq
		l.note("subscribed " + strconv.FormatInt(s.Seq, 10))
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.Seq != seq {
		t.Fatalf("Seq changed after ready: %d, ready saw %d", s.Seq, seq)
	}
	return s, l, seq
}

func positionAfter(s *Subscription, seq int64) protocol.From {
	return protocol.From{Kind: protocol.FromPosition, Epoch: s.Epoch, Partition: s.Partition, Seq: seq}
}

func TestLatestSeqIsTheLiveConsumersLastOffset(t *testing.T) {
	h, b := newTestHub(t, 4)
	s, _, seq := subAt(t, h, "AAPL", protocol.From{})
	if seq != -1 {
		t.Fatalf("empty partition: seq %d, want -1 (before offset 0)", seq)
	}
	// Once the consumer passed offset last, a new subscriber starts after it.
	var last int64
	for i := range 5 {
		_, last = b.produce("prices", "AAPL", strconv.Itoa(i))
	}
	waitNext(t, h, s.Partition, last+1)
	_, _, seq2 := subAt(t, h, "AAPL", protocol.From{Kind: protocol.FromLatest})
	if seq2 != last {
		t.Fatalf("latest after offset %d: seq %d", last, seq2)
	}
}

// waitNext waits until the topic's live consumer has dispatched up to next.
func waitNext(t *testing.T, h *Hub, p int32, next int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		h.topicsMu.Lock()
		ts := h.topics["prices"]
		h.topicsMu.Unlock()
		if ts != nil && ts.nextOf(p) >= next {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("live consumer never reached offset %d", next)
}

// A record the consumer had passed (next already beyond it) but a worker had
// not routed yet when a "latest" subscription registered is not delivered to
// it: its stream is exactly the messages after its Seq.
func TestLatestNeverDeliversAtOrBeforeItsSeq(t *testing.T) {
	h, b := newTestHub(t, 4)
	first, _, _ := subAt(t, h, "AAPL", protocol.From{})
	var p int32
	var last int64
	for i := range 3 {
		p, last = b.produce("prices", "AAPL", strconv.Itoa(i))
	}
	waitNext(t, h, p, last+1)
	_, l, seq := subAt(t, h, "AAPL", protocol.From{})
	if seq != last {
		t.Fatalf("seq %d, want %d", seq, last)
	}
	// The late routing of an already counted record, as a worker would do it.
	h.topicsMu.Lock()
	ts := h.topics["prices"]
	h.topicsMu.Unlock()
	h.route(ts, &routedRecord{Record: Record{Partition: p, Offset: last, Key: []byte("AAPL"), Value: []byte("9")}, shard: h.shardFor("prices", []byte("AAPL"))}, 0, nil)
	b.produce("prices", "AAPL", "3")
	if got := l.waitFor(t, 1); !equal(got, []string{"3"}) {
		t.Fatalf("got %v, want only the record after seq %d", got, seq)
	}
	_ = first
}

func TestEarliestSeqIsBeforeTheLogStart(t *testing.T) {
	h, b := newTestHub(t, 4)
	_, _, seq := subAt(t, h, "AAPL", protocol.From{Kind: protocol.FromEarliest})
	if seq != -1 {
		t.Fatalf("empty: seq %d, want -1", seq)
	}
	var p int32
	var last int64
	for i := range 5 {
		p, last = b.produce("prices", "AAPL", strconv.Itoa(i))
	}
	waitNext(t, h, p, last+1) // the fake's consumer must not fall behind the log start
	b.truncate("prices", p, 3)
	_, l, seq := subAt(t, h, "AAPL", protocol.From{Kind: protocol.FromEarliest})
	if seq != 2 {
		t.Fatalf("log starting at 3: seq %d, want 2", seq)
	}
	if got := l.waitFor(t, 2); !equal(got, []string{"3", "4"}) {
		t.Fatalf("got %v", got)
	}
}

func TestTimeSeqIsBeforeTheFirstOffsetAtThatTime(t *testing.T) {
	h, b := newTestHub(t, 4)
	b.produce("prices", "AAPL", "0")
	b.produce("prices", "AAPL", "1")
	time.Sleep(5 * time.Millisecond)
	mark := time.Now().UnixMilli()
	time.Sleep(5 * time.Millisecond)
	_, off := b.produce("prices", "AAPL", "2")
	b.produce("prices", "AAPL", "3")
	_, l, seq := subAt(t, h, "AAPL", protocol.From{Kind: protocol.FromTime, Time: mark})
	if seq != off-1 {
		t.Fatalf("seq %d, want %d", seq, off-1)
	}
	if got := l.waitFor(t, 2); !equal(got, []string{"2", "3"}) {
		t.Fatalf("got %v", got)
	}
	// A time after every record: the start is the end.
	_, _, seq = subAt(t, h, "AAPL", protocol.From{Kind: protocol.FromTime, Time: time.Now().Add(time.Hour).UnixMilli()})
	if seq != off+1 {
		t.Fatalf("future time: seq %d, want %d", seq, off+1)
	}
}

func TestPositionSeqIsThePositionItself(t *testing.T) {
	for _, cache := range []int{0, 16} {
		t.Run("cache="+strconv.Itoa(cache), func(t *testing.T) {
			h, b := newTestHub(t, cache)
			var p int32
			for i := range 5 {
				p, _ = b.produce("prices", "AAPL", strconv.Itoa(i))
			}
			// From the cache when it has them, else by a catch-up read.
			s0, _, _ := subAt(t, h, "AAPL", protocol.From{})
			for i := 5; i < 8; i++ {
				b.produce("prices", "AAPL", strconv.Itoa(i))
			}
			_, l, seq := subAt(t, h, "AAPL", positionAfter(s0, 5))
			if seq != 5 {
				t.Fatalf("seq %d, want 5", seq)
			}
			if got := l.waitFor(t, 2); !equal(got, []string{"6", "7"}) {
				t.Fatalf("got %v", got)
			}
			// Retention took offsets 0..2: the requested position stands and the
			// gap follows the acknowledgement; a resume from it says the same.
			waitNext(t, h, p, 8)
			b.truncate("prices", p, 3)
			_, l2, seq2 := subAt(t, h, "AAPL", positionAfter(s0, 0))
			l2.waitFor(t, 5)
			if seq2 != 0 {
				t.Fatalf("seq %d, want 0", seq2)
			}
			if ev := l2.log(); !equal(ev[:2], []string{"subscribed 0", "gap retention"}) {
				t.Fatalf("events %v", ev)
			}
		})
	}
}

func TestPositionOfAnotherEpochStartsBeforeTheNewLogStart(t *testing.T) {
	h, b := newTestHub(t, 4)
	var p int32
	for i := range 4 {
		p, _ = b.produce("prices", "AAPL", strconv.Itoa(i))
	}
	b.truncate("prices", p, 1)
	s, l, seq := subAt(t, h, "AAPL", protocol.From{Kind: protocol.FromPosition, Epoch: "old-epoch", Partition: p, Seq: 40})
	if s.Epoch != "epoch-1" || seq != 0 {
		t.Fatalf("epoch %q seq %d, want epoch-1 and 0 (before the log start 1)", s.Epoch, seq)
	}
	l.waitFor(t, 3)
	if ev := l.log(); !equal(ev, []string{"subscribed 0", "gap epoch", "message 1", "message 2", "message 3"}) {
		t.Fatalf("events %v", ev)
	}
}

// The property a client relies on: before any message, resuming from
// {Epoch, Partition, Seq} of the acknowledgement delivers exactly what the
// subscription would have (here: everything produced after it closed).
func TestResumeFromSubscribedSeqLosesNothing(t *testing.T) {
	kinds := map[string]protocol.From{
		"latest":   {},
		"earliest": {Kind: protocol.FromEarliest},
		"time":     {Kind: protocol.FromTime, Time: time.Now().Add(time.Hour).UnixMilli()},
	}
	for name, from := range kinds {
		for _, cache := range []int{0, 16} {
			t.Run(name+"/cache="+strconv.Itoa(cache), func(t *testing.T) {
				h, b := newTestHub(t, cache)
				// Another client keeps the topic's consumer and the endpoint busy.
				_, other := sub(t, h, "AAPL", protocol.From{})
				s, l, seq := subAt(t, h, "AAPL", from)
				if name == "earliest" && seq != -1 {
					t.Fatalf("seq %d", seq)
				}
				s.Close()
				for i := range 3 {
					b.produce("prices", "AAPL", strconv.Itoa(i))
				}
				other.waitFor(t, 3)
				_, l2, seq2 := subAt(t, h, "AAPL", positionAfter(s, seq))
				if seq2 != seq {
					t.Fatalf("resumed seq %d, want %d", seq2, seq)
				}
				b.produce("prices", "AAPL", "3")
				if got := l2.waitFor(t, 4); !equal(got, seqList(4, 0)) {
					t.Fatalf("resume got %v, want 0..3", got)
				}
				if len(l.values()) != 0 {
					t.Fatalf("the closed subscription got %v", l.values())
				}
			})
		}
	}
}

// offsetsDown is a backend whose offset lookups fail, like a Kafka that stopped
// answering ListOffsets.
type offsetsDown struct{ *memBackend }

var errOffsetsDown = errors.New("offsets unavailable")

func (offsetsDown) Offsets(context.Context, string, int32) (int64, int64, error) {
	return 0, 0, errOffsetsDown
}
func (offsetsDown) OffsetAfter(context.Context, string, int32, int64) (int64, error) {
	return 0, errOffsetsDown
}

// A start only Kafka can tell that Kafka does not tell fails the subscribe (the
// client retries) rather than acknowledging a position that could skip messages;
// the topic reference it took is given back.
func TestStartThatNeedsKafkaFailsTheSubscribeWhenKafkaDoesNotAnswer(t *testing.T) {
	b := newMemBackend()
	b.createTopic("prices", "epoch-1", 1)
	h := New(offsetsDown{b}, Config{Linger: time.Hour})
	defer h.Close()
	for _, from := range []protocol.From{{Kind: protocol.FromEarliest}, {Kind: protocol.FromTime, Time: 1}, {Kind: protocol.FromPosition, Epoch: "old", Seq: 3}} {
		called := false
		_, err := h.Subscribe(context.Background(), protocol.Path{Topic: "prices", Key: "A"}, servedJSON, from, &recorder{}, func(*Subscription) { called = true })
		if !errors.Is(err, errOffsetsDown) || called {
			t.Fatalf("from %+v: err %v, ready called %v", from, err, called)
		}
	}
	h.topicsMu.Lock()
	refs := h.topics["prices"].refs
	h.topicsMu.Unlock()
	if refs != 0 || h.Stats().Subscriptions.Load() != 0 {
		t.Fatalf("refs %d, subscriptions %d after failed subscribes", refs, h.Stats().Subscriptions.Load())
	}
	// Latest and a position of this epoch need no offset lookup up front.
	if _, err := h.Subscribe(context.Background(), protocol.Path{Topic: "prices", Key: "A"}, servedJSON, protocol.From{}, &recorder{}, nil); err != nil {
		t.Fatal(err)
	}
}
