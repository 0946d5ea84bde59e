package hub

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// stormHub is a hub without endpoint cache over a one-partition topic "storm"
// holding perKey records for each of keys keys (values "<key>:<n>", n from 0),
// interleaved; offsets[key][n] is where record n of key is.
func stormHub(t *testing.T, keys, perKey int) (*Hub, *memBackend, map[string][]int64) {
	t.Helper()
	b := newMemBackend()
	b.createTopic("storm", "e1", 1)
	h := New(b, Config{Linger: time.Hour})
	t.Cleanup(h.Close)
	offsets := map[string][]int64{}
	for n := range perKey {
		for k := range keys {
			key := "k" + strconv.Itoa(k)
			_, off := b.produce("storm", key, strconv.Quote(key+":"+strconv.Itoa(n)))
			offsets[key] = append(offsets[key], off)
		}
	}
	return h, b, offsets
}

type stormClient struct {
	key  string
	from int // first n it must get
	rec  *recorder
	sub  *Subscription
}

// resume subscribes a client of key from the position of its record n (it must
// get records n+1 on).
func resume(t *testing.T, h *Hub, offsets map[string][]int64, key string, n int) *stormClient {
	c := &stormClient{key: key, from: n + 1, rec: &recorder{}}
	s, err := h.Subscribe(context.Background(), protocol.Path{Topic: "storm", Key: key}, servedJSON,
		protocol.From{Kind: protocol.FromPosition, Epoch: "e1", Partition: 0, Seq: offsets[key][n]}, c.rec, nil)
	if err != nil {
		t.Error(err)
		return c
	}
	c.sub = s
	return c
}

func (c *stormClient) want(upTo int) []string {
	var out []string
	for n := c.from; n < upTo; n++ {
		out = append(out, strconv.Quote(c.key+":"+strconv.Itoa(n)))
	}
	return out
}

// waitExact waits until c has every record of its key from its start up to
// upTo (exclusive), and fails on anything else (a loss, a duplicate, an
// unexpected order).
func (c *stormClient) waitExact(t *testing.T, upTo int) {
	t.Helper()
	want := c.want(upTo)
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := c.rec.values()
		if len(got) >= len(want) {
			if !equal(got, want) {
				t.Fatalf("%s from %d: got %v, want %v", c.key, c.from, got, want)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s from %d: got %d of %d: %v", c.key, c.from, len(got), len(want), got)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// A resume storm (many subscriptions of many keys, each from its own position
// in one partition, arriving while a read is in progress) is served by one
// reader in at most two passes over the partition: one Offsets and one Read
// each, instead of two Offsets and one Read per subscription. Every
// subscription gets exactly its key's records after its position, then the
// live ones.
func TestResumeStormSharesPassesOverThePartition(t *testing.T) {
	const keys, perKey, clients = 20, 30, 200
	h, b, offsets := stormHub(t, keys, perKey)
	waiting, release := b.holdReads()
	rng := rand.New(rand.NewPCG(1, 2))
	var cs []*stormClient
	// A position at the partition's last record needs no read: the
	// subscription is live at once.
	catchUps := 0
	for i := range clients {
		key := "k" + strconv.Itoa(i%keys)
		n := rng.IntN(perKey) // resume after record n
		if offsets[key][n] < keys*perKey-1 {
			catchUps++
		}
		cs = append(cs, resume(t, h, offsets, key, n))
		if i == 0 {
			<-waiting // the first pass is reading: the others queue behind or join it
		}
	}
	// Every catch-up is queued or in the pass before the read goes on.
	deadline := time.Now().Add(5 * time.Second)
	for queuedCatchUps(h) < catchUps-1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	// Live records while they catch up: the hand-over loses and repeats nothing.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := perKey; n < perKey+5; n++ {
			for k := range keys {
				key := "k" + strconv.Itoa(k)
				b.produce("storm", key, strconv.Quote(key+":"+strconv.Itoa(n)))
			}
		}
	}()
	release()
	wg.Wait()
	for _, c := range cs {
		c.waitExact(t, perKey+5)
	}
	if n := b.reads.Load(); n > 2 {
		t.Errorf("%d reads of the partition for %d catch-ups, want at most 2", n, clients)
	}
	if n := b.offsets.Load(); n > 2 {
		t.Errorf("%d offset requests for %d catch-ups, want at most 2", n, clients)
	}
	if got := h.Stats().CatchUps.Load(); got != int64(catchUps) || catchUps < clients*9/10 {
		t.Errorf("CatchUps = %d, want %d (of %d subscriptions)", got, catchUps, clients)
	}
	waitReadersRetired(t, h)
}

// queuedCatchUps counts the catch-ups waiting for a pass.
func queuedCatchUps(h *Hub) int {
	h.readersMu.Lock()
	defer h.readersMu.Unlock()
	n := 0
	for _, r := range h.readers {
		n += len(r.waiting)
	}
	return n
}

func waitReadersRetired(t *testing.T, h *Hub) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		h.readersMu.Lock()
		n := len(h.readers)
		h.readersMu.Unlock()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d readers still registered with nothing to do", n)
		}
		time.Sleep(time.Millisecond)
	}
}

// Passes cut short (here every 3 records while others wait) queue their
// catch-ups again; with records arriving all along, every subscription still
// gets exactly its continuation.
func TestCutPassesLoseAndRepeatNothing(t *testing.T) {
	old := maxPassRecords
	maxPassRecords = 3
	t.Cleanup(func() { maxPassRecords = old })
	const keys, perKey, clients = 5, 40, 60
	h, b, offsets := stormHub(t, keys, perKey)
	var (
		wg sync.WaitGroup
		mu sync.Mutex
		cs []*stormClient
	)
	rng := rand.New(rand.NewPCG(3, 4))
	live := make(chan struct{})
	go func() {
		defer close(live)
		for n := perKey; n < perKey+20; n++ {
			for k := range keys {
				key := "k" + strconv.Itoa(k)
				b.produce("storm", key, strconv.Quote(key+":"+strconv.Itoa(n)))
			}
			time.Sleep(time.Millisecond)
		}
	}()
	for i := range clients {
		key := "k" + strconv.Itoa(i%keys)
		n := rng.IntN(perKey)
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := resume(t, h, offsets, key, n)
			mu.Lock()
			cs = append(cs, c)
			mu.Unlock()
		}()
	}
	wg.Wait()
	<-live
	for _, c := range cs {
		c.waitExact(t, perKey+20)
	}
	waitReadersRetired(t, h)
}

// A subscription closed while its catch-up waits for a pass leaves the pass
// (nothing more is delivered to it) and holds nobody up; positions Kafka no
// longer holds get a retention gap from the shared pass, once each.
func TestSharedPassSkipsClosedCatchUpsAndReportsRetention(t *testing.T) {
	h, b, offsets := stormHub(t, 4, 10)
	b.truncate("storm", 0, offsets["k0"][3]) // k0:0..2 and others before it are gone
	waiting, release := b.holdReads()
	subscribe := func(key string, n int) *stormClient { return resume(t, h, offsets, key, n) }
	first := subscribe("k1", 5)
	<-waiting
	closed := subscribe("k2", 6)
	old := subscribe("k0", 0) // k0:1 and k0:2 were deleted
	kept := subscribe("k3", 8)
	closed.sub.Close()
	release()
	first.waitExact(t, 10)
	kept.waitExact(t, 10)
	old.from = 3
	old.waitExact(t, 10)
	if g := old.rec.gaps; len(g) != 1 || g[0].Reason != ReasonRetention || g[0].FromSeq != offsets["k0"][0]+1 || g[0].ToSeq != offsets["k0"][3] {
		t.Fatalf("gaps %+v", g)
	}
	if len(first.rec.gaps)+len(kept.rec.gaps) != 0 {
		t.Fatalf("gaps for positions Kafka holds: %+v %+v", first.rec.gaps, kept.rec.gaps)
	}
	if n := len(closed.rec.values()); n != 0 {
		t.Fatalf("closed subscription got %d frames", n)
	}
	waitReadersRetired(t, h)
}
