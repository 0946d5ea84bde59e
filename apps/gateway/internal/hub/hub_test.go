package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// recorder is a Sink that keeps everything it is given.
type recorder struct {
	mu     sync.Mutex
	frames []*Frame
	gaps   []protocol.Gap
	ended  []protocol.Code
	// events is frames and gaps in the order they came, as "value" for a
	// frame (its JSON data) and "gap:reason:epoch:partition:from:to" for a gap.
	events []string
}

func (r *recorder) Deliver(f *Frame, _ WriteBatch) {
	r.mu.Lock()
	r.frames = append(r.frames, f)
	r.events = append(r.events, dataOf(f))
	r.mu.Unlock()
}

func (r *recorder) Gap(g protocol.Gap) {
	r.mu.Lock()
	r.gaps = append(r.gaps, g)
	r.events = append(r.events, fmt.Sprintf("gap:%s:%s:%d:%d:%d", g.Reason, g.Epoch, g.Partition, g.FromSeq, g.ToSeq))
	r.mu.Unlock()
}
func (r *recorder) Ended(_ *Subscription, c protocol.Code, _ string) {
	r.mu.Lock()
	r.ended = append(r.ended, c)
	r.mu.Unlock()
}

func (r *recorder) values() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.frames))
	for i, f := range r.frames {
		out[i] = dataOf(f)
	}
	return out
}

func (r *recorder) waitFor(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if v := r.values(); len(v) >= n {
			return v
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("got %d frames, want %d: %v", len(r.values()), n, r.values())
	return nil
}

// servedJSON is a subscribable json endpoint with an exact path.
var servedJSON = Served{Subscribable: true, Format: "json"}

func newTestHub(t testing.TB, cache int) (*Hub, *memBackend) {
	b := newMemBackend()
	b.createTopic("prices", "epoch-1", 3)
	h := New(b, Config{
		CacheSize: cache,
		Linger:    time.Hour,
	})
	t.Cleanup(h.Close)
	return h, b
}

func sub(t testing.TB, h *Hub, key string, from protocol.From) (*Subscription, *recorder) {
	t.Helper()
	r := &recorder{}
	s, err := h.Subscribe(context.Background(), protocol.Path{Topic: "prices", Key: key}, servedJSON, from, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, r
}

// dataOf returns the payload of a frame whose data is a JSON number.
func dataOf(f *Frame) string {
	var m struct{ Data json.RawMessage }
	if err := json.Unmarshal(f.JSON(), &m); err != nil {
		panic(err)
	}
	return string(m.Data)
}

func seqList(n, from int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(from + i)
	}
	return out
}

func equal(a, b []string) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

func TestLiveDeliveryRoutesByKeyAndSharesFrames(t *testing.T) {
	h, b := newTestHub(t, 4)
	_, r1 := sub(t, h, "AAPL", protocol.From{})
	_, r2 := sub(t, h, "AAPL", protocol.From{})
	_, rOther := sub(t, h, "MSFT", protocol.From{})
	for i := range 5 {
		b.produce("prices", "AAPL", strconv.Itoa(i))
		b.produce("prices", "IBM", "x") // nobody subscribes to IBM
	}
	if got := r1.waitFor(t, 5); !equal(got, seqList(5, 0)) {
		t.Fatalf("r1 = %v", got)
	}
	r2.waitFor(t, 5)
	for i := range 5 {
		if r1.frames[i] != r2.frames[i] {
			t.Fatal("subscribers of one endpoint must share one frame per record")
		}
	}
	if len(rOther.values()) != 0 {
		t.Fatalf("MSFT subscriber got %v", rOther.values())
	}
	if f := r1.frames[0]; f.Endpoint != "/prices/AAPL" || f.Epoch != "epoch-1" || !json.Valid(f.JSON()) || !json.Valid(f.AppendSSE(nil)) {
		t.Fatalf("frame %+v %s", f, f.JSON())
	}
}

func TestResumeFromCacheIsExactAndThenLive(t *testing.T) {
	h, b := newTestHub(t, 16)
	s1, r1 := sub(t, h, "AAPL", protocol.From{})
	for i := range 6 {
		b.produce("prices", "AAPL", strconv.Itoa(i))
	}
	got := r1.waitFor(t, 6)
	last := r1.frames[2] // the client saw 0,1,2 then dropped
	s1.Close()
	_ = got
	s2, r2 := sub(t, h, "AAPL", protocol.From{Kind: protocol.FromPosition, Epoch: last.Epoch, Partition: last.Partition, Seq: last.Seq})
	b.produce("prices", "AAPL", "6")
	if got := r2.waitFor(t, 4); !equal(got, seqList(4, 3)) {
		t.Fatalf("resume got %v, want 3..6", got)
	}
	if h.Stats().CacheHits.Load() != 1 || h.Stats().CatchUps.Load() != 0 {
		t.Fatalf("want a cache hit, stats %d hits %d catch-ups", h.Stats().CacheHits.Load(), h.Stats().CatchUps.Load())
	}
	s2.Close()
}

func TestResumeBeyondCacheReadsKafkaWithoutLossOrDuplicate(t *testing.T) {
	h, b := newTestHub(t, 2)
	var p int32
	var offs []int64
	for i := range 10 {
		var off int64
		p, off = b.produce("prices", "AAPL", strconv.Itoa(i))
		offs = append(offs, off)
		b.produce("prices", "MSFT", "noise")
	}
	// Keep producing while the catch-up runs, to exercise the hand-over.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 10; i < 60; i++ {
			b.produce("prices", "AAPL", strconv.Itoa(i))
		}
	}()
	_, r := sub(t, h, "AAPL", protocol.From{Kind: protocol.FromPosition, Epoch: "epoch-1", Partition: p, Seq: offs[2]})
	<-done
	got := r.waitFor(t, 57)
	if !equal(got, seqList(57, 3)) {
		t.Fatalf("got %v", got)
	}
	time.Sleep(20 * time.Millisecond)
	if n := len(r.values()); n != 57 {
		t.Fatalf("duplicates: %d frames", n)
	}
}

func TestEarliestAndTime(t *testing.T) {
	h, b := newTestHub(t, 4)
	b.produce("prices", "AAPL", "0")
	time.Sleep(5 * time.Millisecond)
	mark := time.Now().UnixMilli()
	time.Sleep(5 * time.Millisecond)
	b.produce("prices", "AAPL", "1")
	_, all := sub(t, h, "AAPL", protocol.From{Kind: protocol.FromEarliest})
	_, since := sub(t, h, "AAPL", protocol.From{Kind: protocol.FromTime, Time: mark})
	if got := all.waitFor(t, 2); !equal(got, []string{"0", "1"}) {
		t.Fatalf("earliest got %v", got)
	}
	if got := since.waitFor(t, 1); !equal(got, []string{"1"}) {
		t.Fatalf("time got %v", got)
	}
}

func TestRetentionAndEpochGapsAreReported(t *testing.T) {
	h, b := newTestHub(t, 1)
	var p int32
	for i := range 5 {
		p, _ = b.produce("prices", "AAPL", strconv.Itoa(i))
	}
	b.truncate("prices", p, 3)
	_, r := sub(t, h, "AAPL", protocol.From{Kind: protocol.FromPosition, Epoch: "epoch-1", Partition: p, Seq: 0})
	if got := r.waitFor(t, 2); !equal(got, []string{"3", "4"}) {
		t.Fatalf("got %v", got)
	}
	if len(r.gaps) != 1 || r.gaps[0].FromSeq != 1 || r.gaps[0].ToSeq != 3 || r.gaps[0].Reason != "retention" {
		t.Fatalf("gaps %+v", r.gaps)
	}

	_, r2 := sub(t, h, "AAPL", protocol.From{Kind: protocol.FromPosition, Epoch: "old-epoch", Partition: p, Seq: 1})
	if got := r2.waitFor(t, 2); !equal(got, []string{"3", "4"}) {
		t.Fatalf("after epoch change got %v", got)
	}
	if len(r2.gaps) != 1 || r2.gaps[0].Reason != "epoch" {
		t.Fatalf("gaps %+v", r2.gaps)
	}
}

func TestRemovedEndpointEndsSubscriptions(t *testing.T) {
	b := newMemBackend()
	b.createTopic("prices", "e", 1)
	h := New(b, Config{Linger: time.Hour})
	defer h.Close()
	r := &recorder{}
	a := protocol.Path{Topic: "prices", Key: "A"}
	if _, err := h.Subscribe(context.Background(), a, servedJSON, protocol.From{}, r, nil); err != nil {
		t.Fatal(err)
	}
	h.KeyServed(a, servedJSON)
	if len(r.ended) != 0 {
		t.Fatal("an unchanged endpoint must keep its subscriptions")
	}
	h.KeyServed(a, Served{}) // removed, or no longer allows subscribing
	if len(r.ended) != 1 || r.ended[0] != protocol.CodeNotFound {
		t.Fatalf("ended %v", r.ended)
	}
	if h.Stats().Subscriptions.Load() != 0 {
		t.Fatal("subscription still counted")
	}
	b.produce("prices", "A", "late")
	time.Sleep(20 * time.Millisecond)
	if len(r.values()) != 0 {
		t.Fatal("ended subscription still receives")
	}
}

// A key encoded with a key schema is found on the partition of its encoded
// bytes (Served.PartitionKey); a change of the key schema ends the key's
// subscriptions, and the next subscriber is placed by its own partition key.
func TestEncodedKeysArePlacedByTheirPartitionKey(t *testing.T) {
	b := newMemBackend()
	b.createTopic("carts", "e", 8)
	h := New(b, Config{Linger: time.Hour})
	defer h.Close()
	v1, v2 := []byte("v1:A"), []byte("v2:A")
	if b.PartitionFor(v1, 8) == b.PartitionFor([]byte("A"), 8) || b.PartitionFor(v1, 8) == b.PartitionFor(v2, 8) {
		t.Fatal("pick encodings that land on three partitions")
	}
	a := protocol.Path{Topic: "carts", Key: "A"}
	served := Served{Subscribable: true, Format: "json", KeyEncoding: "carts-key@1", PartitionKey: v1}
	r := &recorder{}
	s, err := h.Subscribe(context.Background(), a, served, protocol.From{}, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Partition != b.PartitionFor(v1, 8) {
		t.Fatalf("partition %d, want the encoded key's %d", s.Partition, b.PartitionFor(v1, 8))
	}
	b.produceEncoded("carts", string(v1), "A", "2")
	if got := r.waitFor(t, 1); got[0] != "2" {
		t.Fatalf("got %v", got)
	}

	h.KeyServed(a, served) // unchanged
	h.KeyServed(a, Served{Subscribable: true, Format: "json", KeyEncoding: "carts-key@2"})
	if len(r.ended) != 1 || r.ended[0] != protocol.CodeNotFound {
		t.Fatalf("a changed key schema: ended %v", r.ended)
	}
	r2 := &recorder{}
	s2, err := h.Subscribe(context.Background(), a, Served{Subscribable: true, Format: "json", KeyEncoding: "carts-key@2", PartitionKey: v2}, protocol.From{}, r2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s2.Partition != b.PartitionFor(v2, 8) {
		t.Fatalf("after the change: partition %d, want %d", s2.Partition, b.PartitionFor(v2, 8))
	}
	b.produceEncoded("carts", string(v2), "A", "3")
	if got := r2.waitFor(t, 1); got[0] != "3" {
		t.Fatalf("after the change: got %v", got)
	}
}

// A change of the topic's parameterised endpoint reaches the keys it serves,
// not those with an exact endpoint of their own; a key whose exact endpoint
// goes away is served by the parameterised one from then on.
func TestParamServedReachesOnlyTheKeysItServes(t *testing.T) {
	b := newMemBackend()
	b.createTopic("prices", "e", 1)
	h := New(b, Config{Linger: time.Hour})
	defer h.Close()
	byParam := Served{Subscribable: true, Format: "json", ByParam: true}
	ra, rb := &recorder{}, &recorder{}
	a, bk := protocol.Path{Topic: "prices", Key: "A"}, protocol.Path{Topic: "prices", Key: "B"}
	if _, err := h.Subscribe(context.Background(), a, byParam, protocol.From{}, ra, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Subscribe(context.Background(), bk, servedJSON, protocol.From{}, rb, nil); err != nil {
		t.Fatal(err)
	}
	h.ParamServed("prices", Served{Subscribable: true, Format: "text"})
	b.produce("prices", "A", `{"n":1}`)
	b.produce("prices", "B", `{"n":1}`)
	if got := ra.waitFor(t, 1); got[0] != `"{\"n\":1}"` {
		t.Fatalf("A, served by the parameterised endpoint, got %s: want text", got[0])
	}
	if got := rb.waitFor(t, 1); got[0] != `{"n":1}` {
		t.Fatalf("B, with an exact endpoint, got %s: want json", got[0])
	}
	h.ParamServed("prices", Served{})
	if len(ra.ended) != 1 || len(rb.ended) != 0 {
		t.Fatalf("parameterised endpoint removed: ended A %v, B %v", ra.ended, rb.ended)
	}
	// B's exact endpoint goes; a parameterised one (text) serves B now, and
	// its removal ends B's subscription.
	h.KeyServed(bk, Served{Subscribable: true, Format: "text", ByParam: true})
	if len(rb.ended) != 0 {
		t.Fatalf("B ended while still served: %v", rb.ended)
	}
	h.ParamServed("prices", Served{})
	if len(rb.ended) != 1 || rb.ended[0] != protocol.CodeNotFound {
		t.Fatalf("B ended %v", rb.ended)
	}
}

func TestUnknownTopic(t *testing.T) {
	h, _ := newTestHub(t, 1)
	_, err := h.Subscribe(context.Background(), protocol.Path{Topic: "nope", Key: "k"}, servedJSON, protocol.From{}, &recorder{}, nil)
	if err != ErrTopicNotFound {
		t.Fatalf("err = %v", err)
	}
}

func TestIdleEndpointsAndTopicsAreReleased(t *testing.T) {
	b := newMemBackend()
	b.createTopic("prices", "e", 1)
	h := New(b, Config{Linger: 20 * time.Millisecond})
	defer h.Close()
	s, _ := sub(t, h, "A", protocol.From{})
	s.Close()
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		h.topicsMu.Lock()
		n := len(h.topics)
		h.topicsMu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("topic consumer still running after the linger")
}

// A position at the largest offset there can be (a client's bug or a crafted
// Last-Event-ID) overflowed "the next offset" and the subscription silently got
// nothing. Nothing can follow it: the subscription is live, without a gap.
func TestPositionAtMaxOffsetIsLiveWithoutGap(t *testing.T) {
	h, b := newTestHub(t, 4)
	b.produce("prices", "AAPL", "0")
	_, r := sub(t, h, "AAPL", protocol.From{Kind: protocol.FromPosition, Epoch: "epoch-1", Partition: h.backend.PartitionFor([]byte("AAPL"), 3), Seq: math.MaxInt64})
	// Records after the subscription are not newer than MaxInt64 by offset:
	// none may be delivered, and none may be reported missing.
	b.produce("prices", "AAPL", "1")
	time.Sleep(50 * time.Millisecond)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.gaps) != 0 || h.Stats().CatchUps.Load() != 0 {
		t.Fatalf("gaps %v, catch-ups %d", r.gaps, h.Stats().CatchUps.Load())
	}
}

// countingBatch is a WriteBatch that counts what went through it.
type countingBatch struct {
	mu                         sync.Mutex
	unflushed, flushed, closed int
}

func (b *countingBatch) add() { b.mu.Lock(); b.unflushed++; b.mu.Unlock() }
func (b *countingBatch) Flush() {
	b.mu.Lock()
	b.flushed += b.unflushed
	b.unflushed = 0
	b.mu.Unlock()
}
func (b *countingBatch) Close() { b.mu.Lock(); b.closed++; b.mu.Unlock() }

// batchSink notes, per delivered frame, the batch it came with.
type batchSink struct {
	recorder
	withBatch, without int
}

func (s *batchSink) Deliver(f *Frame, wb WriteBatch) {
	s.mu.Lock()
	if wb != nil {
		s.withBatch++
		wb.(*countingBatch).add()
	} else {
		s.without++
	}
	s.mu.Unlock()
	s.recorder.Deliver(f, wb)
}

// Live records reach their sinks with the routing worker's batch of writes,
// which the worker flushes when the job is routed; records read from Kafka
// for a resume come without one. Each worker's batch is closed with the hub.
func TestLiveDeliveriesComeWithTheWorkersBatch(t *testing.T) {
	b := newMemBackend()
	b.createTopic("prices", "epoch-1", 3)
	var mu sync.Mutex
	var batches []*countingBatch
	h := New(b, Config{CacheSize: 0, Linger: time.Hour, NewWriteBatch: func() WriteBatch {
		cb := &countingBatch{}
		mu.Lock()
		batches = append(batches, cb)
		mu.Unlock()
		return cb
	}})
	live := &batchSink{}
	if _, err := h.Subscribe(context.Background(), protocol.Path{Topic: "prices", Key: "AAPL"}, servedJSON, protocol.From{}, live, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		b.produce("prices", "AAPL", strconv.Itoa(i))
	}
	live.waitFor(t, 20)
	// From the first record: a catch-up read, then live.
	resumed := &batchSink{}
	if _, err := h.Subscribe(context.Background(), protocol.Path{Topic: "prices", Key: "AAPL"}, servedJSON, protocol.From{Kind: protocol.FromEarliest}, resumed, nil); err != nil {
		t.Fatal(err)
	}
	resumed.waitFor(t, 20)
	b.produce("prices", "AAPL", "20")
	resumed.waitFor(t, 21)
	live.waitFor(t, 21)

	live.mu.Lock()
	if live.withBatch != 21 || live.without != 0 {
		t.Errorf("live subscriber: %d frames with a batch, %d without; want 21 and 0", live.withBatch, live.without)
	}
	live.mu.Unlock()
	// The last record reaches the resumed subscriber live (with the batch)
	// or, if its catch-up was still reading, from Kafka (without).
	resumed.mu.Lock()
	resumedLive := resumed.withBatch
	if resumed.without < 20 || resumed.without+resumedLive != 21 {
		t.Errorf("resumed subscriber: %d frames read from Kafka without a batch and %d live with one; want 20 or 21 and 21 in all", resumed.without, resumedLive)
	}
	resumed.mu.Unlock()

	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		unflushed, flushed := 0, 0
		for _, cb := range batches {
			cb.mu.Lock()
			unflushed, flushed = unflushed+cb.unflushed, flushed+cb.flushed
			cb.mu.Unlock()
		}
		mu.Unlock()
		if unflushed == 0 && flushed == 21+resumedLive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("batches: %d deliveries flushed, %d not; want %d and 0", flushed, unflushed, 21+resumedLive)
		}
		time.Sleep(2 * time.Millisecond)
	}
	h.Close()
	deadline = time.Now().Add(5 * time.Second)
	for _, cb := range batches {
		for {
			cb.mu.Lock()
			closed := cb.closed
			cb.mu.Unlock()
			if closed == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("a worker's batch was closed %d times after the hub closed, want 1", closed)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
}
