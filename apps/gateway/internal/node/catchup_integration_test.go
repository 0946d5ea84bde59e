//go:build integration

package node

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// A resume storm on a node that has none of the endpoints cached (what another
// node's clients bring when it fails): many clients, each resuming its key from
// its own position, all at once. Every client gets exactly the records after
// its position, then live ones, and the node reads each partition in a few
// shared passes rather than once per client.
func TestResumeStormOnAFreshNodeIsExactAndShared(t *testing.T) {
	const keys, perKey, clients = 20, 10, 120
	f := newFixture(t)
	epoch, _ := f.topicID()

	// perKey records per key, interleaved, in one produce.
	var recs []*kgo.Record
	for n := range perKey {
		for k := range keys {
			recs = append(recs, &kgo.Record{Topic: f.topic, Key: []byte(fmt.Sprintf("K%d", k)), Value: []byte(fmt.Sprintf(`{"price":%d}`, n))})
		}
	}
	if err := f.kc.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	at := map[string][]*kgo.Record{} // key → its records in order
	for _, r := range recs {
		at[string(r.Key)] = append(at[string(r.Key)], r)
	}

	tok := f.token(map[string][]string{"sub": {"/" + f.topic + "/*"}}, time.Hour, "storm")
	type resumer struct {
		c    *client
		key  string
		from int // first price it must get
	}
	rng := rand.New(rand.NewPCG(5, 6))
	rs := make([]*resumer, clients)
	for i := range rs {
		c := f.dial(nil)
		c.send(`{"type":"auth","id":"a","token":"` + tok + `"}`)
		c.next("authenticated")
		key := fmt.Sprintf("K%d", i%keys)
		rs[i] = &resumer{c: c, key: key, from: 1 + rng.IntN(perKey-1)}
	}
	// All subscribe at once.
	for _, r := range rs {
		pos := at[r.key][r.from-1]
		r.c.send(fmt.Sprintf(`{"type":"subscribe","endpoint":"/%s/%s","from":{"epoch":"%s","partition":%d,"seq":%d}}`,
			f.topic, r.key, epoch, pos.Partition, pos.Offset))
	}
	var wg sync.WaitGroup
	check := func(upTo int) {
		for _, r := range rs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for want := r.from; want < upTo; want++ {
					m := r.c.next("message")
					if got := m["data"].(map[string]any)["price"]; got != float64(want) {
						t.Errorf("%s resumed before %d: got price %v, want %d", r.key, r.from, got, want)
						return
					}
				}
				r.from = upTo
			}()
		}
		wg.Wait()
	}
	check(perKey)
	if t.Failed() {
		return
	}
	// Then live.
	for k := range keys {
		f.produce(fmt.Sprintf("K%d", k), fmt.Sprintf(`{"price":%d}`, perKey))
	}
	check(perKey + 1)

	reads, passes := f.metric("sluice_gateway_catchup_reads_total"), f.metric("sluice_gateway_catchup_passes_total")
	if reads != clients {
		t.Errorf("catch-up reads = %v, want %d (no endpoint was cached)", reads, clients)
	}
	// Three partitions; the clients arrive while passes run, so a few more
	// passes than that, never one per client.
	if passes < 3 || passes > clients/4 {
		t.Errorf("%v passes for %d catch-ups, want 3..%d", passes, clients, clients/4)
	}
	t.Logf("%d catch-ups served by %v passes", clients, passes)
}
