package hub

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// waitEvents waits until r has at least n events and returns them.
func (r *recorder) waitEvents(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		ev := append([]string(nil), r.events...)
		r.mu.Unlock()
		if len(ev) >= n {
			return ev
		}
		time.Sleep(2 * time.Millisecond)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t.Fatalf("got %d events, want %d: %v", len(r.events), n, r.events)
	return nil
}

// settled returns r's events after giving stray deliveries a moment (used to
// show that nothing more comes).
func (r *recorder) settled() []string {
	time.Sleep(30 * time.Millisecond)
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

// waitConsumed waits until the live consumers have read n records in all.
func waitConsumed(t *testing.T, h *Hub, n int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for h.Stats().Records.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("consumed %d records, want %d", h.Stats().Records.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func wantEvents(t *testing.T, name string, got []string, want ...string) {
	t.Helper()
	if !equal(got, want) {
		t.Fatalf("%s:\n got %v\nwant %v", name, got, want)
	}
}

// keysThatMove finds, for a topic growing from 3 to 4 partitions, a key that
// moves to the added partition, one that moves to another old partition, and
// one that stays.
func keysThatMove(h *Hub) (toNew, toOld, stays string) {
	for i := 0; toNew == "" || toOld == "" || stays == ""; i++ {
		k := "k" + strconv.Itoa(i)
		before, after := h.backend.PartitionFor([]byte(k), 3), h.backend.PartitionFor([]byte(k), 4)
		switch {
		case after == 3 && toNew == "":
			toNew = k
		case after != before && after < 3 && toOld == "":
			toOld = k
		case after == before && stays == "":
			stays = k
		}
	}
	return toNew, toOld, stays
}

func TestRecreatedTopicGivesEpochGapBeforeAnyNewRecord(t *testing.T) {
	h, b := newTestHub(t, 4)
	live, rLive := sub(t, h, "AAPL", protocol.From{})
	b.produce("prices", "AAPL", "1")
	rLive.waitFor(t, 1)
	oldPart := live.Partition

	b.recreate("prices", "epoch-2", 2)
	newPart := h.backend.PartitionFor([]byte("AAPL"), 2)
	// Records of the new topic written before the consumer notices: they come
	// after the gap, from the new topic's first offset.
	b.produce("prices", "AAPL", "10")
	b.produce("prices", "MSFT", "noise")
	b.produce("prices", "AAPL", "11")
	b.check()
	b.produce("prices", "AAPL", "12")
	wantEvents(t, "live subscriber", rLive.waitEvents(t, 5),
		"1", fmt.Sprintf("gap:epoch:epoch-2:%d:0:0", newPart), "10", "11", "12")
	for _, f := range rLive.frames[1:] {
		if f.Epoch != "epoch-2" || f.Partition != newPart {
			t.Fatalf("frame after the change: %+v", f)
		}
	}
	if live.Epoch != "epoch-2" || live.Partition != newPart {
		t.Fatalf("subscription says %s/%d", live.Epoch, live.Partition)
	}

	// New subscribers see the new epoch; a resume from the old incarnation gets
	// the epoch gap (the old cache is gone), then the new topic from its start.
	s2, r2 := sub(t, h, "AAPL", protocol.From{Kind: protocol.FromPosition, Epoch: "epoch-1", Partition: oldPart, Seq: 0})
	if s2.Epoch != "epoch-2" {
		t.Fatalf("new subscription epoch %s", s2.Epoch)
	}
	wantEvents(t, "resume from the old epoch", r2.waitEvents(t, 4), fmt.Sprintf("gap:epoch:epoch-2:%d:0:0", newPart), "10", "11", "12")
	// A resume in the new epoch is exact.
	_, r3 := sub(t, h, "AAPL", protocol.From{Kind: protocol.FromPosition, Epoch: "epoch-2", Partition: newPart, Seq: rLive.frames[2].Seq})
	wantEvents(t, "resume in the new epoch", r3.waitEvents(t, 1), "12")
}

// A subscription still reading history when the topic is recreated gets the gap
// and the new topic, and nothing more of the old one after the gap.
func TestRecreatedTopicDuringCatchUp(t *testing.T) {
	h, b := newTestHub(t, 1)
	for i := range 3 {
		b.produce("prices", "AAPL", strconv.Itoa(i))
	}
	waiting, release := b.holdReads()
	_, r := sub(t, h, "AAPL", protocol.From{Kind: protocol.FromEarliest})
	<-waiting
	b.recreate("prices", "epoch-2", 3)
	b.produce("prices", "AAPL", "10")
	b.check()
	release()
	part := h.backend.PartitionFor([]byte("AAPL"), 3)
	wantEvents(t, "catching up", r.waitEvents(t, 2), fmt.Sprintf("gap:epoch:epoch-2:%d:0:0", part), "10")
	wantEvents(t, "catching up, later", r.settled(), fmt.Sprintf("gap:epoch:epoch-2:%d:0:0", part), "10")
}

func TestAddedPartitionsMoveKeysAndTellTheirSubscribers(t *testing.T) {
	h, b := newTestHub(t, 4)
	toNew, toOld, stays := keysThatMove(h)
	subs := map[string]*Subscription{}
	recs := map[string]*recorder{}
	for _, k := range []string{toNew, toOld, stays} {
		subs[k], recs[k] = sub(t, h, k, protocol.From{})
	}
	newPart := h.backend.PartitionFor([]byte(toOld), 4)
	b.check() // the consumer confirms the layout after everyone attached
	_, since, _ := b.Offsets(context.Background(), "prices", newPart)
	for _, k := range []string{toNew, toOld, stays} {
		b.produce("prices", k, "1")
		recs[k].waitFor(t, 1)
	}
	oldPart := subs[toOld].Partition
	b.addPartitions("prices", 1)
	// Written with the new layout before the consumer notices.
	for _, k := range []string{toNew, toOld, stays} {
		b.produce("prices", k, "2")
	}
	recs[toOld].waitFor(t, 2) // an old partition: read live as it comes
	b.check()
	var cont int64 // where the moved key's "3" is
	for _, k := range []string{toNew, toOld, stays} {
		if _, off := b.produce("prices", k, "3"); k == toOld {
			cont = off
		}
	}
	wantEvents(t, "key moved to the added partition", recs[toNew].waitEvents(t, 4), "1", "gap:repartitioned:epoch-1:3:0:0", "2", "3")
	wantEvents(t, "key moved to an old partition", recs[toOld].waitEvents(t, 4), "1", "2", fmt.Sprintf("gap:repartitioned:epoch-1:%d:%d:%d", newPart, cont, cont), "3")
	wantEvents(t, "key that stayed", recs[stays].waitEvents(t, 3), "1", "2", "3")
	wantEvents(t, "key that stayed, later", recs[stays].settled(), "1", "2", "3")
	if subs[toNew].Partition != 3 || subs[toOld].Partition != newPart {
		t.Fatalf("partitions %d %d", subs[toNew].Partition, subs[toOld].Partition)
	}

	// A client that kept its position on the partition the key left resumes
	// without loss or repeat: the rest of that partition, the gap, the new one.
	_, r := sub(t, h, toOld, protocol.From{Kind: protocol.FromPosition, Epoch: "epoch-1", Partition: oldPart, Seq: recs[toOld].frames[0].Seq})
	wantEvents(t, "resume from the old partition", r.waitEvents(t, 3), fmt.Sprintf("gap:repartitioned:epoch-1:%d:%d:%d", newPart, since, since), "2", "3")
	// And one from a position on the new partition is exact.
	_, r2 := sub(t, h, toOld, protocol.From{Kind: protocol.FromPosition, Epoch: "epoch-1", Partition: newPart, Seq: cont - 1})
	wantEvents(t, "resume on the new partition", r2.waitEvents(t, 1), "3")
}

// A resume naming a partition this node has not seen (another node noticed the
// growth first) is exact: the node checks the topic at once rather than taking
// the position for one of another incarnation (an epoch gap, then the whole
// log again).
func TestResumeOnAPartitionThisNodeHasNotSeenIsExact(t *testing.T) {
	h, b := newTestHub(t, 4)
	toNew, _, stays := keysThatMove(h)
	sub(t, h, stays, protocol.From{}) // starts the consumer
	b.check()
	b.addPartitions("prices", 1) // not noticed: no check
	part, first := b.produce("prices", toNew, "1")
	b.produce("prices", toNew, "2")
	b.produce("prices", toNew, "3")
	if part != 3 {
		t.Fatalf("%s went to partition %d", toNew, part)
	}
	s, r := sub(t, h, toNew, protocol.From{Kind: protocol.FromPosition, Epoch: "epoch-1", Partition: part, Seq: first})
	wantEvents(t, "resume on the unseen partition", r.waitEvents(t, 2), "2", "3")
	wantEvents(t, "resume on the unseen partition, later", r.settled(), "2", "3")
	if s.Partition != part || s.Seq != first {
		t.Fatalf("subscribed at %d/%d, want %d/%d", s.Partition, s.Seq, part, first)
	}
	if n := b.rechecks.Load(); n != 1 {
		t.Fatalf("%d rechecks, want 1", n)
	}
	// A position this node knows needs no check.
	sub(t, h, toNew, protocol.From{Kind: protocol.FromPosition, Epoch: "epoch-1", Partition: part, Seq: first})
	if n := b.rechecks.Load(); n != 1 {
		t.Fatalf("%d rechecks after a known position, want 1", n)
	}
}

// The same for a topic recreated where this node has not noticed yet.
func TestResumeInAnEpochThisNodeHasNotSeenIsExact(t *testing.T) {
	h, b := newTestHub(t, 4)
	sub(t, h, "AAPL", protocol.From{}) // starts the consumer
	b.check()
	b.recreate("prices", "epoch-2", 2)
	part, first := b.produce("prices", "AAPL", "1")
	b.produce("prices", "AAPL", "2")
	s, r := sub(t, h, "AAPL", protocol.From{Kind: protocol.FromPosition, Epoch: "epoch-2", Partition: part, Seq: first})
	wantEvents(t, "resume in the unseen epoch", r.waitEvents(t, 1), "2")
	wantEvents(t, "resume in the unseen epoch, later", r.settled(), "2")
	if s.Epoch != "epoch-2" || s.Partition != part || s.Seq != first {
		t.Fatalf("subscribed at %s/%d/%d", s.Epoch, s.Partition, s.Seq)
	}
}

// A subscription that attached after the consumer last confirmed the old
// layout may have missed records of its key written to an old partition in
// between: the gap says which (from_seq to to_seq), so the client can read them
// with a resume.
func TestSubscriberAttachedBeforeGrowthWasNoticedIsToldWhatItMissed(t *testing.T) {
	h, b := newTestHub(t, 4)
	_, toOld, stays := keysThatMove(h)
	sub(t, h, stays, protocol.From{}) // starts the consumer
	b.check()
	newPart := h.backend.PartitionFor([]byte(toOld), 4)
	_, since, _ := b.Offsets(context.Background(), "prices", newPart)
	b.addPartitions("prices", 1)
	b.produce("prices", toOld, "1") // before anyone subscribed to toOld
	waitConsumed(t, h, 1)
	_, r := sub(t, h, toOld, protocol.From{})
	_, third := b.produce("prices", toOld, "3")
	r.waitFor(t, 1) // read live from an old partition
	b.check()
	b.produce("prices", toOld, "4")
	got := r.waitEvents(t, 3)
	wantEvents(t, "attached in the detection window", got, "3", fmt.Sprintf("gap:repartitioned:epoch-1:%d:%d:%d", newPart, since, third), "4")
	wantEvents(t, "attached in the detection window, later", r.settled(), got...)
}

// A subscription reading history when partitions are added finishes the
// partition its key left, then follows it.
func TestAddedPartitionsDuringCatchUp(t *testing.T) {
	h, b := newTestHub(t, 4)
	_, toOld, stays := keysThatMove(h)
	sub(t, h, stays, protocol.From{})
	b.check()
	newPart := h.backend.PartitionFor([]byte(toOld), 4)
	_, since, _ := b.Offsets(context.Background(), "prices", newPart)
	var first int64
	for i := range 3 {
		if _, off := b.produce("prices", toOld, strconv.Itoa(i)); i == 0 {
			first = off
		}
	}
	oldPart := h.backend.PartitionFor([]byte(toOld), 3)
	waitConsumed(t, h, 3)
	waiting, release := b.holdReads()
	_, r := sub(t, h, toOld, protocol.From{Kind: protocol.FromPosition, Epoch: "epoch-1", Partition: oldPart, Seq: first})
	<-waiting
	b.addPartitions("prices", 1)
	b.produce("prices", toOld, "10")
	b.check()
	b.produce("prices", toOld, "11")
	release()
	got := r.waitEvents(t, 5)
	wantEvents(t, "catching up", got, "1", "2", fmt.Sprintf("gap:repartitioned:epoch-1:%d:%d:%d", newPart, since, since), "10", "11")
	wantEvents(t, "catching up, later", r.settled(), got...)
	b.produce("prices", toOld, "12")
	r.waitEvents(t, 6)
}

func TestDeletedTopicEndsSubscriptionsOnlyWhenGoneForGood(t *testing.T) {
	h, b := newTestHub(t, 4)
	s, r := sub(t, h, "AAPL", protocol.From{})
	// Deleted, then created again before the backend gives up: an epoch gap.
	b.deleteTopic("prices", false)
	b.check()
	b.recreate("prices", "epoch-2", 3)
	b.produce("prices", "AAPL", "1")
	b.check()
	wantEvents(t, "recreated", r.waitEvents(t, 2), fmt.Sprintf("gap:epoch:epoch-2:%d:0:0", s.Partition), "1")
	if len(r.ended) != 0 {
		t.Fatal("ended while the topic came back")
	}

	b.deleteTopic("prices", true)
	b.check()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r.mu.Lock()
		n := len(r.ended)
		r.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("subscription not ended")
		}
		time.Sleep(2 * time.Millisecond)
	}
	if r.ended[0] != protocol.CodeNotFound || h.Stats().Subscriptions.Load() != 0 {
		t.Fatalf("ended %v, %d subscriptions", r.ended, h.Stats().Subscriptions.Load())
	}
	if _, err := h.Subscribe(context.Background(), protocol.Path{Topic: "prices", Key: "AAPL"}, servedJSON, protocol.From{}, &recorder{}, nil); err != ErrTopicNotFound {
		t.Fatalf("subscribe after delete: %v", err)
	}
	// Created once more: a new subscriber gets a working endpoint.
	b.createTopic("prices", "epoch-3", 3)
	s3, r3 := sub(t, h, "AAPL", protocol.From{})
	b.produce("prices", "AAPL", "7")
	if s3.Epoch != "epoch-3" || !equal(r3.waitFor(t, 1), []string{"7"}) {
		t.Fatalf("after the topic came back: %s %v", s3.Epoch, r3.values())
	}
}
