//go:build integration

package node

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluicehq/sluice/apps/gateway/internal/config"
	"github.com/sluicehq/sluice/apps/gateway/internal/usage"
)

// The usage records a node writes add up exactly to what its clients were
// sent and what they published, per app and endpoint, including the final
// record of a graceful stop; the gauges count the live connections and
// subscriptions.
func TestUsageRecordsCountWhatClientsGot(t *testing.T) {
	f := newFixture(t, func(c *config.Config) { c.NodeID = "gw-usage-test" })
	c, _ := f.authed(map[string][]string{"all": {"/" + f.topic + "/*"}})
	for i, key := range []string{"AAPL", "MSFT"} {
		c.send(fmt.Sprintf(`{"type":"subscribe","id":"s%d","endpoint":"/%s/%s"}`, i, f.topic, key))
		c.next("subscribed")
	}
	const n = 40
	for i := range n {
		f.produce([]string{"AAPL", "MSFT", "IBM"}[i%3], fmt.Sprintf(`{"price":%d}`, i)) // IBM: nobody subscribed
	}
	want := n - n/3 // AAPL and MSFT
	var bytes int64
	_ = c.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	for got := 0; got < want; {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			t.Fatalf("after %d messages: %v", got, err)
		}
		var m map[string]any
		_ = json.Unmarshal(data, &m)
		if m["type"] == "message" {
			got++
			bytes += int64(len(data))
		}
	}
	const published = 3
	for i := range published {
		c.send(fmt.Sprintf(`{"type":"publish","id":"p%d","endpoint":"/%s/IBM","data":{"price":%d}}`, i, f.topic, i))
		c.next("published")
	}
	c.send(`{"type":"subscribe","id":"bad"`) // names no endpoint: the app's error
	c.next("error")
	c.send(fmt.Sprintf(`{"type":"publish","id":"neg","endpoint":"/%s/IBM","data":{"price":-1}}`, f.topic)) // the endpoint's error
	c.next("error")

	// A record while the client is connected: the gauges.
	live := f.usageUntil(t, func(r usage.Record) bool {
		return r.Connections == 1 && appOf(r, f.app) != nil && subscriptionsOf(appOf(r, f.app)) == 2
	})
	if a := appOf(live, f.app); a.Connections != 1 || live.Node != "gw-usage-test" {
		t.Fatalf("gauges: %+v", live)
	}

	// Stopped gracefully: the final record closes the books.
	_ = c.ws.Close()
	f.cancel()
	if err := <-f.finished; err != nil {
		t.Fatal(err)
	}
	f.finished <- nil // for the fixture's cleanup
	f.usageUntil(t, func(r usage.Record) bool { return r.Final })
	all := f.usageRecords(t)
	var delivered, deliveredBytes, pub, errs, endpointErrs int64
	var prevEnd int64
	for i, r := range all {
		if i > 0 && r.IntervalStart != prevEnd {
			t.Fatalf("record %d starts at %d, the one before ended at %d: intervals must be contiguous", i, r.IntervalStart, prevEnd)
		}
		prevEnd = r.IntervalEnd
		if a := appOf(r, f.app); a != nil {
			errs += a.Errors
			for _, e := range a.Endpoints {
				if e.Endpoint != "ep-1" || e.Path != "/"+f.topic+"/{symbol}" {
					t.Fatalf("usage of an unexpected endpoint: %+v", e)
				}
				delivered += e.Delivered
				deliveredBytes += e.DeliveredBytes
				pub += e.Published
				endpointErrs += e.Errors
			}
		}
	}
	if !all[len(all)-1].Final {
		t.Fatal("the last record is not the final one")
	}
	if delivered != int64(want) || deliveredBytes != bytes || pub != published || errs != 1 || endpointErrs != 1 {
		t.Fatalf("usage: delivered %d (%d bytes), published %d, errors %d on the app and %d on the endpoint; the client got %d (%d bytes), published %d, got 1 error of each",
			delivered, deliveredBytes, pub, errs, endpointErrs, want, bytes, published)
	}
}

func appOf(r usage.Record, app string) *usage.AppRecord {
	for i := range r.Apps {
		if r.Apps[i].App == app {
			return &r.Apps[i]
		}
	}
	return nil
}

func subscriptionsOf(a *usage.AppRecord) int {
	n := 0
	for _, e := range a.Endpoints {
		n += e.Subscriptions
	}
	return n
}

// usageRecords reads every record of the node's usage topic so far, in order.
func (f *fixture) usageRecords(t *testing.T) []usage.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(f.brokers...), kgo.ConsumeTopics(f.usage), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	listed, err := kadm.NewClient(f.kc).ListEndOffsets(context.Background(), f.usage)
	if err != nil {
		t.Fatal(err)
	}
	ends := map[int32]int64{}
	listed.Each(func(o kadm.ListedOffset) { ends[o.Partition] = o.Offset })
	var out []usage.Record
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	next := map[int32]int64{}
	reached := func() bool {
		for p, end := range ends {
			if next[p] < end {
				return false
			}
		}
		return true
	}
	for !reached() {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("reading the usage topic: %v", ctx.Err())
		}
		fs.EachRecord(func(r *kgo.Record) {
			var rec usage.Record
			if err := json.Unmarshal(r.Value, &rec); err != nil {
				t.Fatalf("a usage record that is not JSON: %q", r.Value)
			}
			out = append(out, rec)
			next[r.Partition] = r.Offset + 1
		})
	}
	// One node's records share a key, so one partition: their order is Kafka's.
	return out
}

// usageUntil waits for a usage record that ok accepts.
func (f *fixture) usageUntil(t *testing.T, ok func(usage.Record) bool) usage.Record {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		for _, r := range f.usageRecords(t) {
			if ok(r) {
				return r
			}
		}
	}
	t.Fatal("no such usage record")
	return usage.Record{}
}
