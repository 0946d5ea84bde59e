//go:build integration

package catalog

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluicehq/sluice/apps/gateway/internal/kafka"
)

// Run against a real Kafka: KAFKA_BROKERS=127.0.0.1:39092 go test -race -tags integration ./internal/catalog/

func testBrokers(t *testing.T) []string {
	t.Helper()
	v := os.Getenv("KAFKA_BROKERS")
	if v == "" {
		t.Skip("KAFKA_BROKERS is not set")
	}
	return strings.Split(v, ",")
}

type kafkaFixture struct {
	t   *testing.T
	cl  *kgo.Client
	adm *kadm.Client
}

func newKafkaFixture(t *testing.T, brokers []string) *kafkaFixture {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RequiredAcks(kgo.AllISRAcks()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return &kafkaFixture{t: t, cl: cl, adm: kadm.NewClient(cl)}
}

func uniqueTopic(t *testing.T) string {
	return fmt.Sprintf("sluice-catalog-test-%s-%d", strings.ToLower(t.Name()), time.Now().UnixNano())
}

// createTopic creates a compacted one-partition topic like the bridge does and
// deletes it when the test ends.
func (f *kafkaFixture) createTopic(topic string) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	compact := "compact"
	resp, err := f.adm.CreateTopic(ctx, 1, -1, map[string]*string{"cleanup.policy": &compact}, topic)
	if err != nil || resp.Err != nil {
		f.t.Fatalf("creating %s: %v %v", topic, err, resp.Err)
	}
	f.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = f.adm.DeleteTopics(ctx, topic)
	})
}

func (f *kafkaFixture) deleteTopic(topic string) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := f.adm.DeleteTopics(ctx, topic)
	if err != nil || resp.Error() != nil {
		f.t.Fatalf("deleting %s: %v %v", topic, err, resp.Error())
	}
	// Wait until the deletion is visible, so a re-creation is a new topic.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		tds, err := f.adm.ListTopics(ctx, topic)
		if err == nil && !tds.Has(topic) {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	f.t.Fatalf("%s still listed after deletion", topic)
}

// produce writes records in order; a nil value is a tombstone.
func (f *kafkaFixture) produce(topic string, kv ...any) {
	f.t.Helper()
	var rs []*kgo.Record
	for i := 0; i < len(kv); i += 2 {
		r := &kgo.Record{Topic: topic, Key: []byte(kv[i].(string))}
		if kv[i+1] != nil {
			r.Value = kv[i+1].([]byte)
		}
		rs = append(rs, r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		f.t.Fatalf("producing to %s: %v", topic, err)
	}
}

// waitEvent waits up to d for the listener to have recorded want.
func waitEvent(t *testing.T, rec *recorder, want string, d time.Duration) {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for !rec.has(want) {
		select {
		case <-rec.notify:
		case <-deadline.C:
			t.Fatalf("listener did not see %q within %v; saw %q", want, d, rec.take())
		}
	}
}

func waitReady(t *testing.T, c *Catalog, d time.Duration) {
	t.Helper()
	select {
	case <-c.Ready():
	case <-time.After(d):
		t.Fatalf("not ready after %v", d)
	}
}

// startRun runs c.Run in the background; the returned stop cancels it and
// checks that it returned nil.
func startRun(t *testing.T, c *Catalog, brokers []string, topic string) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, kafka.ClientOptions{Brokers: brokers}, topic) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run returned %v after cancel, want nil", err)
			}
		case <-time.After(15 * time.Second):
			t.Error("Run did not return within 15s of cancel")
		}
	}
	t.Cleanup(stop)
	return stop
}

func TestIntegrationRunReadsAndTails(t *testing.T) {
	brokers := testBrokers(t)
	f := newKafkaFixture(t, brokers)
	topic := uniqueTopic(t)
	f.createTopic(topic)

	pub, jwk := newECJWK(t)
	f.produce(topic,
		"endpoint/param", endpointRecord("param", "prices", "", "symbol"),
		"endpoint/exact", endpointRecord("exact", "prices", "AAPL", "", set("operations", []string{"subscribe"})),
		"endpoint/gone", endpointRecord("gone", "orders", "eu", ""),
		"key/k1", keyRecord("k1", "ES256", jwk, "active"),
		"app/a1", appRecord("a1", nil),
		"revoked/j1", revokedRecord("j1", "a1", 1795003600),
		"revoked/j2", []byte("\x00 damaged"),
		"endpoint/bad", []byte(`{"v":1,"id":"bad"}`),
		"widget/1", []byte(`{"v":1}`),
		"endpoint/gone", nil,
	)

	c, rec, logs := newTestCatalog(t)
	stop := startRun(t, c, brokers, topic)
	waitReady(t, c, 30*time.Second)

	if e := c.Resolve(path("prices", "AAPL")); e == nil || e.ID != "exact" || e.Publish {
		t.Fatalf("exact endpoint: %+v", e)
	}
	if e := c.Resolve(path("prices", "MSFT")); e == nil || e.ID != "param" {
		t.Fatalf("param endpoint: %+v", e)
	}
	if c.Resolve(path("orders", "eu")) != nil {
		t.Fatal("tombstoned endpoint served")
	}
	if alg, key, ok := c.VerificationKey("k1"); !ok || alg != "ES256" || !pub.Equal(key) {
		t.Fatal("key k1")
	}
	if nbf, known := c.AppTokensNotBefore("a1"); !known || nbf != 0 {
		t.Fatal("app a1")
	}
	if !c.JTIRevoked("j1") || !c.JTIRevoked("j2") {
		t.Fatal("revocations (the damaged one must revoke too)")
	}
	s := c.Stats()
	if s.Endpoints != 2 || s.Keys != 1 || s.Apps != 1 || s.Revocations != 2 || s.Records != 10 || s.BadRecords != 2 || s.IgnoredRecords != 1 {
		t.Fatalf("stats %+v", s)
	}
	mustContain(t, logs.String(), "caught up")
	rec.take()

	// Live changes reach the listener within a second.
	f.produce(topic, "endpoint/new", endpointRecord("new", "orders", "us", ""))
	waitEvent(t, rec, "endpoint nil -> new:/orders/us", time.Second)
	f.produce(topic, "revoked/j3", revokedRecord("j3", "a1", 1795003600))
	waitEvent(t, rec, "revoked j3", time.Second)
	f.produce(topic, "app/a1", appRecord("a1", 1795000000))
	waitEvent(t, rec, "app a1 1795000000", time.Second)
	f.produce(topic, "endpoint/exact", nil)
	waitEvent(t, rec, "endpoint exact:/prices/AAPL -> nil", time.Second)
	f.produce(topic, "app/a1", nil)
	waitEvent(t, rec, fmt.Sprintf("app a1 %d", int64(math.MaxInt64)), time.Second)

	if e := c.Resolve(path("prices", "AAPL")); e == nil || e.ID != "param" {
		t.Fatal("AAPL should fall back to the param endpoint")
	}
	if !c.JTIRevoked("j3") {
		t.Fatal("j3")
	}
	stop()
}

// An empty topic is caught up as soon as its end offsets are known.
func TestIntegrationEmptyTopicIsReady(t *testing.T) {
	brokers := testBrokers(t)
	f := newKafkaFixture(t, brokers)
	topic := uniqueTopic(t)
	f.createTopic(topic)

	c, rec, _ := newTestCatalog(t)
	stop := startRun(t, c, brokers, topic)
	waitReady(t, c, 30*time.Second)
	if s := c.Stats(); s.Records != 0 || s.Endpoints != 0 {
		t.Fatalf("stats %+v", s)
	}
	f.produce(topic, "endpoint/e", endpointRecord("e", "t", "k", ""))
	waitEvent(t, rec, "endpoint nil -> e:/t/k", time.Second)
	stop()
}

// A topic that does not exist yet is an empty catalog: ready at once, and read
// once it appears.
func TestIntegrationMissingTopic(t *testing.T) {
	brokers := testBrokers(t)
	f := newKafkaFixture(t, brokers)
	topic := uniqueTopic(t)

	c, rec, logs := newTestCatalog(t)
	stop := startRun(t, c, brokers, topic)
	waitReady(t, c, 30*time.Second)
	mustContain(t, logs.String(), "does not exist yet")
	if len(c.Endpoints()) != 0 {
		t.Fatal("endpoints without a topic")
	}

	f.createTopic(topic)
	f.produce(topic, "endpoint/e", endpointRecord("e", "t", "k", ""))
	waitEvent(t, rec, "endpoint nil -> e:/t/k", 30*time.Second)
	stop()
}

// A topic deleted and recreated (with a different content) is read again from
// its beginning, and what the new log lacks is removed.
func TestIntegrationRecreatedTopic(t *testing.T) {
	brokers := testBrokers(t)
	f := newKafkaFixture(t, brokers)
	topic := uniqueTopic(t)
	f.createTopic(topic)
	f.produce(topic,
		"endpoint/a", endpointRecord("a", "t", "a", ""),
		"endpoint/b", endpointRecord("b", "t", "b", ""),
		"revoked/j1", revokedRecord("j1", "x", 1))

	c, rec, _ := newTestCatalog(t)
	stop := startRun(t, c, brokers, topic)
	waitReady(t, c, 30*time.Second)
	rec.take()

	f.deleteTopic(topic)
	f.createTopic(topic)
	// A new producer: franz-go clients never adopt a recreated topic's new id.
	f = newKafkaFixture(t, brokers)
	f.produce(topic,
		"endpoint/b", endpointRecord("b", "t", "b2", ""),
		"endpoint/c", endpointRecord("c", "t", "c", ""),
		"revoked/j1", revokedRecord("j1", "x", 1))

	waitEvent(t, rec, "endpoint a:/t/a -> nil", 90*time.Second)
	waitEvent(t, rec, "endpoint b:/t/b -> b:/t/b2", time.Second)
	waitEvent(t, rec, "endpoint nil -> c:/t/c", time.Second)
	if rec.has("revoked j1") {
		t.Fatal("a revocation present in both logs was reported again")
	}
	if !c.JTIRevoked("j1") || len(c.Endpoints()) != 2 {
		t.Fatalf("state after the resync: %v", c.Endpoints())
	}
	stop()
}
