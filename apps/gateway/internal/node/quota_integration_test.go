//go:build integration

package node

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/config"
)

// secondNode starts another node on f's catalog and usage topics and returns
// a fixture whose clients connect to it.
func (f *fixture) secondNode(t *testing.T, id string) *fixture {
	cfg := config.Defaults()
	cfg.Addr = "127.0.0.1:0"
	cfg.KafkaBrokers = f.brokers
	cfg.CatalogTopic = f.catalog
	cfg.UsageTopic, cfg.UsageInterval, cfg.NodeID = f.usage, time.Second, id
	cfg.ShutdownGrace = 5 * time.Second
	n, start, err := Build(cfg, slog.New(slog.NewTextHandler(testLogOut(), nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	finished := make(chan error, 1)
	go func() { finished <- start(ctx) }()
	t.Cleanup(func() { cancel(); <-finished })
	<-n.Server.Ready()
	g := *f
	g.base, g.cancel, g.finished = "http://"+n.Server.Addr().String(), cancel, finished
	g.waitReady()
	return &g
}

// as is f with clients authenticating as app.
func (f *fixture) as(app string) *fixture {
	g := *f
	g.app = app
	return &g
}

// An app's plan on two nodes: its connection limit holds across them (each
// node counts its own and learns the other's from its usage records); the
// subscriptions per connection, the publish rate and the delivery rate are
// refused with their codes, each delivery refusal reported as a gap with
// reason quota that accounts exactly for the messages not sent; another app
// on the same nodes and endpoints is not affected; the usage records count
// the refusals.
func TestQuotasAcrossTwoNodes(t *testing.T) {
	a := newFixture(t, func(c *config.Config) { c.NodeID = "gw-quota-a" })
	a.putCatalog("app/"+a.app, map[string]any{"v": 1, "id": a.app, "name": "Limited", "tokens_not_before": nil, "limits": []map[string]any{{
		"plan": "p-free", "name": "free", "patterns": []string{"/" + a.topic + "/*"}, "connections": 2, "subscriptions_per_connection": 1,
		"publish_per_second": 2, "delivered_per_second": 3, "delivered_bytes_per_second": nil,
	}}})
	a.putCatalog("app/app-2", map[string]any{"v": 1, "id": "app-2", "name": "Unlimited", "tokens_not_before": nil})
	b := a.secondNode(t, "gw-quota-b")
	all := map[string][]string{"all": {"/" + a.topic + "/*"}}
	time.Sleep(500 * time.Millisecond) // both nodes read the app records (the endpoint's presence says the catalog is read)

	onA, _ := a.authed(all)
	b.authed(all) // the app's second connection, on the other node
	// A learns of B's connection from B's usage record within a second or two:
	// from then on a third connection on A is refused.
	var refused map[string]any
	for deadline := time.Now().Add(10 * time.Second); refused == nil && time.Now().Before(deadline); {
		c := a.dial(nil)
		c.send(`{"type":"auth","id":"a","token":"` + a.token(all, time.Hour, fmt.Sprintf("jti-%d", time.Now().UnixNano())) + `"}`)
		m := c.nextOf("authenticated", "error")
		if m["type"] == "error" {
			refused = m
			if closing := c.nextOf("closing"); closing["code"] != float64(4291) {
				t.Fatalf("closing: %v", closing)
			}
			break
		}
		_ = c.ws.Close() // A had not heard of B yet: give the connection back
		time.Sleep(300 * time.Millisecond)
	}
	if refused == nil || refused["code"] != float64(4291) {
		t.Fatalf("a third connection across the two nodes: %v", refused)
	}
	other, _ := a.as("app-2").authed(all)

	// Subscriptions per connection: one.
	onA.send(`{"type":"subscribe","id":"s1","endpoint":"/` + a.topic + `/AAPL"}`)
	onA.next("subscribed")
	onA.send(`{"type":"subscribe","id":"s2","endpoint":"/` + a.topic + `/MSFT"}`)
	if e := onA.nextOf("error"); e["code"] != float64(4292) || e["id"] != "s2" {
		t.Fatalf("a second subscription: %v", e)
	}
	for i, key := range []string{"AAPL", "MSFT"} {
		other.send(fmt.Sprintf(`{"type":"subscribe","id":"o%d","endpoint":"/%s/%s"}`, i, a.topic, key))
		other.next("subscribed")
	}

	// Deliveries: 3 a second (times A's share); 20 records at once.
	const n = 20
	for i := range n {
		a.produce("AAPL", fmt.Sprintf(`{"price":%d}`, i))
	}
	got, skipped, gaps := 0, 0, 0
	_ = onA.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	for got+skipped < n {
		_, data, err := onA.ws.ReadMessage()
		if err != nil {
			t.Fatalf("after %d messages and %d refused: %v", got, skipped, err)
		}
		var m map[string]any
		_ = json.Unmarshal(data, &m)
		switch m["type"] {
		case "message":
			got++
		case "gap":
			if m["reason"] != "quota" {
				t.Fatalf("gap %v", m)
			}
			gaps++
			skipped += int(m["to_seq"].(float64) - m["from_seq"].(float64))
		}
	}
	if got+skipped != n || got == 0 || got > 4 || gaps == 0 {
		t.Fatalf("with a delivery rate of 3/s: %d delivered, %d refused in %d gaps", got, skipped, gaps)
	}
	for range n {
		other.next("message") // the other app gets every one
	}

	// Publishes: 2 a second (times A's share): a burst of 5 meets 4293.
	published, limited := 0, 0
	for i := range 5 {
		onA.send(fmt.Sprintf(`{"type":"publish","id":"p%d","endpoint":"/%s/IBM","data":{"price":%d}}`, i, a.topic, i))
	}
	for range 5 {
		m := onA.nextOf("published", "error")
		switch {
		case m["type"] == "published":
			published++
		case m["code"] == float64(4293):
			limited++
		default:
			t.Fatalf("publish: %v", m)
		}
	}
	if published == 0 || limited == 0 {
		t.Fatalf("a burst of 5 publishes at 2/s: %d published, %d refused", published, limited)
	}
	for i := range 5 {
		other.send(fmt.Sprintf(`{"type":"publish","id":"q%d","endpoint":"/%s/IBM","data":{"price":%d}}`, i, a.topic, i))
		other.next("published")
	}

	// A's usage records count the refusals.
	var rc, rs, rp, rd int64
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		rc, rs, rp, rd = 0, 0, 0, 0
		for _, r := range a.usageRecords(t) {
			if app := appOf(r, a.app); app != nil && r.Node == "gw-quota-a" {
				rc += app.Refused.Connections
				for _, e := range app.Endpoints {
					rs, rp, rd = rs+e.Refused.Subscriptions, rp+e.Refused.Publish, rd+e.Refused.Delivered
				}
			}
		}
		if rc >= 1 && rs == 1 && rp == int64(limited) && rd == int64(skipped) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("refusals in the usage records: connections %d, subscriptions %d, publishes %d (want %d), deliveries %d (want %d)", rc, rs, rp, limited, rd, skipped)
		}
	}
}
