package edge

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

func frame(endpoint string, seq int64) item {
	return item{frame: &hub.Frame{Endpoint: endpoint, Epoch: "e", Partition: 1, Seq: seq}}
}

func TestOnlyTheFirstPushStartsAWriter(t *testing.T) {
	q := outQueue{capacity: 8, policy: PolicyDrop}
	if r := q.push(frame("/a/1", 1)); !r.wake {
		t.Fatal("first push must start a writer")
	}
	if r := q.push(frame("/a/1", 2)); r.wake {
		t.Fatal("a second writer must not start while one owns the queue")
	}
	if got := q.take(); len(got) != 2 {
		t.Fatalf("took %d items", len(got))
	}
	if q.take() != nil {
		t.Fatal("empty queue must release the writer")
	}
	if r := q.push(frame("/a/1", 3)); !r.wake {
		t.Fatal("after release the next push starts a writer again")
	}
}

func TestDropPolicyReplacesBacklogWithExactGaps(t *testing.T) {
	q := outQueue{capacity: 4, policy: PolicyDrop, notice: func(g protocol.Gap) []byte { return protocol.Encode(g) }}
	q.push(frame("/a/1", 10))
	q.push(item{raw: []byte(`{"type":"pong"}`)})
	q.push(frame("/b/2", 11))
	q.push(frame("/a/1", 14))
	r := q.push(frame("/a/1", 20))
	if r.dropped != 3 || r.slow {
		t.Fatalf("push result %+v, want 3 dropped", r)
	}
	// Each notice stands where its endpoint's first dropped message was.
	got := q.take()
	if len(got) != 4 || string(got[1].raw) != `{"type":"pong"}` || got[3].frame == nil || got[3].frame.Seq != 20 {
		t.Fatalf("queue after drop: %+v", got)
	}
	gaps := gapsOf(t, got[0], got[2])
	want := []protocol.Gap{
		{Type: "gap", Endpoint: "/a/1", Epoch: "e", Partition: 1, FromSeq: 10, ToSeq: 15, Reason: "slow_consumer"},
		{Type: "gap", Endpoint: "/b/2", Epoch: "e", Partition: 1, FromSeq: 11, ToSeq: 12, Reason: "slow_consumer"},
	}
	if len(gaps) != 2 || gaps[0] != want[0] || gaps[1] != want[1] {
		t.Fatalf("gaps %+v, want %+v", gaps, want)
	}
}

func TestDisconnectPolicyReportsSlowOnceAndStopsQueueing(t *testing.T) {
	q := outQueue{capacity: 2, policy: PolicyDisconnect}
	q.push(frame("/a/1", 1))
	q.push(frame("/a/1", 2))
	if r := q.push(frame("/a/1", 3)); !r.slow || r.dropped != 0 {
		t.Fatalf("push result %+v, want slow", r)
	}
	if r := q.push(frame("/a/1", 4)); r.slow || r.wake {
		t.Fatalf("after overflow pushes are ignored, got %+v", r)
	}
}

// A client of many endpoints that stops reading: every overflow turns its
// queued messages into gap notices, one per endpoint, which stay; so the queue
// gained a notice per message (issue 18's hostile clients found queues of
// ~10,000 items against 1,024). At twice the bound the session is ended as a
// slow consumer instead; a single overflow still gets its notices.
func TestDropPolicyClosesAClientWhoseQueueFillsWithNotices(t *testing.T) {
	const capacity = 8
	q := outQueue{capacity: capacity, policy: PolicyDrop, notice: func(g protocol.Gap) []byte { return protocol.Encode(g) }}
	for i := range capacity {
		q.push(frame(fmt.Sprintf("/t/%d", i), 1))
	}
	if r := q.push(frame("/t/x", 1)); r.dropped != capacity || r.slow {
		t.Fatalf("first overflow %+v: want its 8 notices, not a close", r)
	}
	var r pushResult
	n := 0
	for ; n < 100 && !r.slow; n++ {
		r = q.push(frame(fmt.Sprintf("/t/%d", 100+n), 1)) // a new endpoint each time
		if len(q.items) > 2*capacity {
			t.Fatalf("%d items queued after %d pushes, over twice the bound", len(q.items), n+1)
		}
	}
	if !r.slow {
		t.Fatalf("the queue never ended the session: %d items (capacity %d)", len(q.items), capacity)
	}
	if r := q.push(frame("/t/y", 2)); r.slow || r.wake || len(q.items) > 2*capacity {
		t.Fatalf("after it, pushes are ignored: %+v, %d items", r, len(q.items))
	}
}

// Two causes to close racing past the session's own check still queue one
// closing frame: the first.
func TestPushFinalKeepsOnlyTheFirstClosingFrame(t *testing.T) {
	q := outQueue{capacity: 1, policy: PolicyDisconnect}
	q.push(item{raw: []byte("m")}) // starts the writer
	q.pushFinal(item{raw: []byte("first")})
	q.pushFinal(item{raw: []byte("second")})
	got := q.take()
	if len(got) != 2 || string(got[1].raw) != "first" {
		t.Fatalf("queue = %d items, want the message then the first final frame", len(got))
	}
}

func gapsOf(t *testing.T, items ...item) []protocol.Gap {
	t.Helper()
	var gaps []protocol.Gap
	for _, it := range items {
		var g protocol.Gap
		if it.frame != nil || json.Unmarshal(it.raw, &g) != nil || g.Type != "gap" {
			t.Fatalf("not a gap notice: %+v (%s)", it, it.raw)
		}
		gaps = append(gaps, g)
	}
	return gaps
}

// Messages dropped on both sides of a topic change (its gap notice is queued
// between them) are reported by two notices, each on its own epoch and
// partition, one before the change's notice and one after: a client resuming
// from either gets exactly what it missed.
func TestDroppedMessagesAcrossATopicChangeGetAGapEach(t *testing.T) {
	q := outQueue{capacity: 5, policy: PolicyDrop, notice: func(g protocol.Gap) []byte { return protocol.Encode(g) }}
	at := func(epoch string, part int32, seq int64) item {
		return item{frame: &hub.Frame{Endpoint: "/a/1", Epoch: epoch, Partition: part, Seq: seq}}
	}
	change := protocol.Encode(protocol.Gap{Type: "gap", Endpoint: "/a/1", Epoch: "e2", Partition: 0, Reason: "epoch"})
	q.push(at("e1", 2, 40))
	q.push(at("e1", 2, 41))
	q.push(item{raw: change})
	q.push(at("e2", 0, 0))
	q.push(at("e2", 0, 1))
	if r := q.push(at("e2", 0, 2)); r.dropped != 4 {
		t.Fatalf("push result %+v, want 4 dropped", r)
	}
	got := q.take()
	if len(got) != 4 || string(got[1].raw) != string(change) || got[3].frame == nil || got[3].frame.Seq != 2 {
		t.Fatalf("queue after drop: %+v", got)
	}
	gaps := gapsOf(t, got[0], got[2])
	want := []protocol.Gap{
		{Type: "gap", Endpoint: "/a/1", Epoch: "e1", Partition: 2, FromSeq: 40, ToSeq: 42, Reason: "slow_consumer"},
		{Type: "gap", Endpoint: "/a/1", Epoch: "e2", Partition: 0, FromSeq: 0, ToSeq: 2, Reason: "slow_consumer"},
	}
	if gaps[0] != want[0] || gaps[1] != want[1] {
		t.Fatalf("gaps %+v, want %+v", gaps, want)
	}
}
