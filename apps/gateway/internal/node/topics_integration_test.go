//go:build integration

// The node follows its topics' changes while clients are subscribed: a topic
// deleted and created again (a new epoch), partitions added (keys move), a
// topic deleted for good.
package node

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sluicehq/sluice/apps/gateway/internal/config"
)

// topicID returns the topic's current id and partition count ("" when Kafka
// does not have it).
func (f *fixture) topicID() (string, int) {
	f.t.Helper()
	// A direct request: kadm's Metadata answers from a cache seconds old.
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(f.topic)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(context.Background(), f.kc)
	if err != nil {
		f.t.Fatal(err)
	}
	for _, t := range resp.Topics {
		if t.Topic != nil && *t.Topic == f.topic && t.ErrorCode == 0 {
			return base64.RawURLEncoding.EncodeToString(t.TopicID[:]), len(t.Partitions)
		}
	}
	return "", 0
}

// waitTopic polls the topic's metadata (Kafka applies deletes and creates
// asynchronously) until ok says it is as wanted.
func (f *fixture) waitTopic(what string, ok func(id string, partitions int) bool) {
	f.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if ok(f.topicID()) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	f.t.Fatalf("topic %s never %s", f.topic, what)
}

// recreate deletes the fixture's topic and creates it again with as many
// partitions.
func (f *fixture) recreate(partitions int32) {
	f.t.Helper()
	adm := kadm.NewClient(f.kc)
	oldID, _ := f.topicID()
	if _, err := adm.DeleteTopics(context.Background(), f.topic); err != nil {
		f.t.Fatal(err)
	}
	f.waitTopic("disappeared", func(id string, _ int) bool { return id == "" })
	deadline := time.Now().Add(30 * time.Second)
	for {
		// Creating too soon after the delete is refused until the delete is done.
		_, err := adm.CreateTopic(context.Background(), partitions, 1, nil, f.topic)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			f.t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	f.waitTopic("came back", func(id string, n int) bool { return id != "" && id != oldID && n == int(partitions) })
}

// freshProduce writes with a new client: franz-go refuses to write to a topic
// whose id changed under a client that knew the old one.
func (f *fixture) freshProduce(key, value string) (int32, int64) {
	f.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(f.brokers...))
	if err != nil {
		f.t.Fatal(err)
	}
	defer cl.Close()
	r := &kgo.Record{Topic: f.topic, Key: []byte(key), Value: []byte(value)}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
		f.t.Fatal(err)
	}
	return r.Partition, r.Offset
}

// nextFrame returns the next gap, message or unsubscribed frame.
func (c *client) nextFrame() map[string]any {
	c.t.Helper()
	_ = c.ws.SetReadDeadline(time.Now().Add(15 * time.Second))
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			c.t.Fatalf("waiting for a frame: %v", err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			c.t.Fatalf("not JSON: %s", data)
		}
		switch m["type"] {
		case "gap", "message", "unsubscribed":
			return m
		}
	}
}

func quickTopicChecks(c *config.Config) {
	c.TopicCheckInterval = 500 * time.Millisecond
}

func TestRecreatedTopicGivesEpochGapThenTheNewRecords(t *testing.T) {
	f := newFixture(t, quickTopicChecks)
	perms := map[string][]string{"all": {"/" + f.topic + "/*"}}
	ep := "/" + f.topic + "/AAPL"
	c, _ := f.authed(perms)
	c.send(`{"type":"subscribe","endpoint":"` + ep + `"}`)
	oldEpoch := c.next("subscribed")["epoch"]
	f.produce("AAPL", `{"price":1}`)
	old := c.nextFrame()
	if old["type"] != "message" || old["epoch"] != oldEpoch {
		t.Fatalf("before the change: %v", old)
	}

	f.recreate(2)
	var want []int64
	for i := range 3 {
		_, off := f.freshProduce("AAPL", fmt.Sprintf(`{"price":%d}`, 10+i))
		want = append(want, off)
	}
	// First the gap (nothing of the new topic comes before it), then the new
	// topic's records from its first offset, with the new epoch.
	gap := c.nextFrame()
	if gap["type"] != "gap" || gap["reason"] != "epoch" || gap["epoch"] == oldEpoch || gap["from_seq"] != 0.0 || gap["to_seq"] != 0.0 {
		t.Fatalf("want an epoch gap first, got %v", gap)
	}
	newEpoch := gap["epoch"]
	var last map[string]any
	for i, off := range want {
		m := c.nextFrame()
		if m["type"] != "message" || m["epoch"] != newEpoch || m["seq"] != float64(off) || m["partition"] != gap["partition"] ||
			m["data"].(map[string]any)["price"] != float64(10+i) {
			t.Fatalf("message %d after the gap: %v", i, m)
		}
		last = m
	}

	// Publishing answers with the new epoch (the metadata cache followed).
	c.send(`{"type":"publish","id":"p","endpoint":"` + ep + `","data":{"price":20}}`)
	// The acknowledgement and the message itself come in either order.
	_ = c.ws.SetReadDeadline(time.Now().Add(15 * time.Second))
	for acked, got := false, false; !acked || !got; {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		_ = json.Unmarshal(data, &m)
		switch {
		case m["type"] == "published" && m["epoch"] == newEpoch:
			acked = true
		case m["type"] == "message" && m["epoch"] == newEpoch && m["data"].(map[string]any)["price"] == 20.0:
			got = true
		default:
			t.Fatalf("after publishing: %s", data)
		}
	}

	// A resume from the old incarnation: the epoch gap, then the new topic from its start.
	c2, _ := f.authed(perms)
	c2.send(fmt.Sprintf(`{"type":"subscribe","endpoint":"%s","from":{"epoch":"%s","partition":%v,"seq":%v}}`, ep, oldEpoch, old["partition"], old["seq"]))
	if sub := c2.next("subscribed"); sub["epoch"] != newEpoch {
		t.Fatalf("subscribed %v", sub)
	}
	if g := c2.nextFrame(); g["type"] != "gap" || g["reason"] != "epoch" || g["epoch"] != newEpoch {
		t.Fatalf("resume from the old epoch: %v", g)
	}
	if m := c2.nextFrame(); m["seq"] != float64(want[0]) || m["epoch"] != newEpoch {
		t.Fatalf("resume from the old epoch, first message %v", m)
	}
	// A resume from a position of the new incarnation is exact.
	c3, _ := f.authed(perms)
	c3.send(fmt.Sprintf(`{"type":"subscribe","endpoint":"%s","from":{"epoch":"%s","partition":%v,"seq":%v}}`, ep, newEpoch, last["partition"], last["seq"]))
	c3.next("subscribed")
	if m := c3.nextFrame(); m["type"] != "message" || m["data"].(map[string]any)["price"] != 20.0 {
		t.Fatalf("resume in the new epoch: %v", m)
	}
}

func TestAddedPartitionsMoveKeysWithoutLoss(t *testing.T) {
	f := newFixture(t, quickTopicChecks)
	part := kgo.StickyKeyPartitioner(nil).ForTopic("")
	partitionOf := func(key string, n int) int32 { return int32(part.Partition(&kgo.Record{Key: []byte(key)}, n)) }
	// One key that moves to the new partition, one that moves to another old
	// one, one that stays.
	var toNew, toOld, stays string
	for i := 0; toNew == "" || toOld == "" || stays == ""; i++ {
		k := fmt.Sprintf("k%d", i)
		before, after := partitionOf(k, 3), partitionOf(k, 4)
		switch {
		case after == 3 && toNew == "":
			toNew = k
		case after != before && after < 3 && toOld == "":
			toOld = k
		case after == before && stays == "":
			stays = k
		}
	}
	perms := map[string][]string{"sub": {"/" + f.topic + "/*"}}
	clients := map[string]*client{}
	for _, k := range []string{toNew, toOld, stays} {
		c, _ := f.authed(perms)
		c.send(`{"type":"subscribe","endpoint":"/` + f.topic + `/` + k + `"}`)
		c.next("subscribed")
		f.produce(k, `{"price":1}`)
		if m := c.nextFrame(); m["type"] != "message" || m["partition"] != float64(partitionOf(k, 3)) {
			t.Fatalf("%s before the change: %v", k, m)
		}
		clients[k] = c
	}

	if _, err := kadm.NewClient(f.kc).CreatePartitions(context.Background(), 1, f.topic); err != nil {
		t.Fatal(err)
	}
	f.waitTopic("grew", func(_ string, n int) bool { return n == 4 })
	written := map[string][]int64{}
	for _, k := range []string{toNew, toOld, stays} {
		for i := range 2 {
			p, off := f.freshProduce(k, fmt.Sprintf(`{"price":%d}`, 2+i))
			if p != partitionOf(k, 4) {
				t.Fatalf("%s written to %d, want %d", k, p, partitionOf(k, 4))
			}
			written[k] = append(written[k], off)
		}
	}
	// The key moved to the added partition: the gap first, then its records
	// there from the partition's start.
	c := clients[toNew]
	if g := c.nextFrame(); g["type"] != "gap" || g["reason"] != "repartitioned" || g["partition"] != float64(partitionOf(toNew, 4)) || g["to_seq"] != 0.0 {
		t.Fatalf("%s: want a repartitioned gap naming partition %d first, got %v", toNew, partitionOf(toNew, 4), g)
	}
	for i, off := range written[toNew] {
		if m := c.nextFrame(); m["type"] != "message" || m["partition"] != float64(partitionOf(toNew, 4)) || m["seq"] != float64(off) || m["data"].(map[string]any)["price"] != float64(2+i) {
			t.Fatalf("%s message %d after the gap: %v", toNew, i, m)
		}
	}
	// The key moved to another old partition, which the consumer reads: its
	// records come as written, and the gap (when the node notices) says where
	// delivery continues.
	c = clients[toOld]
	var got []float64
	gaps := 0
	for len(got) < 2 || gaps == 0 {
		m := c.nextFrame()
		switch {
		case m["type"] == "message" && m["partition"] == float64(partitionOf(toOld, 4)):
			got = append(got, m["data"].(map[string]any)["price"].(float64))
		case m["type"] == "gap" && m["reason"] == "repartitioned" && m["partition"] == float64(partitionOf(toOld, 4)):
			gaps++
		default:
			t.Fatalf("%s: unexpected %v", toOld, m)
		}
	}
	if fmt.Sprint(got) != "[2 3]" {
		t.Fatalf("%s got %v", toOld, got)
	}
	for i := range 2 {
		if m := clients[stays].nextFrame(); m["type"] != "message" || m["data"].(map[string]any)["price"] != float64(2+i) {
			t.Fatalf("a key that did not move got %v", m)
		}
	}

	// A client that kept its position on the old partition resumes: nothing
	// lost, nothing repeated.
	k := toOld
	c, _ = f.authed(perms)
	c.send(fmt.Sprintf(`{"type":"subscribe","endpoint":"/%s/%s","from":{"epoch":"%s","partition":%d,"seq":0}}`, f.topic, k, firstEpoch(f), partitionOf(k, 3)))
	if sub := c.next("subscribed"); sub["partition"] != float64(partitionOf(k, 4)) {
		t.Fatalf("subscribed %v", sub)
	}
	if g := c.nextFrame(); g["type"] != "gap" || g["reason"] != "repartitioned" || g["partition"] != float64(partitionOf(k, 4)) {
		t.Fatalf("resume from the old partition: %v", g)
	}
	for i := range written[k] {
		if m := c.nextFrame(); m["partition"] != float64(partitionOf(k, 4)) || m["data"].(map[string]any)["price"] != float64(2+i) {
			t.Fatalf("resume from the old partition, message %d: %v", i, m)
		}
	}
}

func firstEpoch(f *fixture) string {
	id, _ := f.topicID()
	return id
}

func TestDeletedTopicEndsSubscriptions(t *testing.T) {
	f := newFixture(t, func(c *config.Config) {
		c.TopicCheckInterval = 500 * time.Millisecond
		c.TopicGoneAfter = 2 * time.Second
	})
	perms := map[string][]string{"sub": {"/" + f.topic + "/*"}}
	c, _ := f.authed(perms)
	ep := "/" + f.topic + "/AAPL"
	c.send(`{"type":"subscribe","endpoint":"` + ep + `"}`)
	c.next("subscribed")
	if _, err := kadm.NewClient(f.kc).DeleteTopics(context.Background(), f.topic); err != nil {
		t.Fatal(err)
	}
	m := c.nextFrame()
	if m["type"] != "unsubscribed" || m["endpoint"] != ep || m["code"] != 4004.0 {
		t.Fatalf("want unsubscribed 4004, got %v", m)
	}
	// Subscribing again is refused while the topic is missing (as for any
	// missing topic: unavailable, it may come back).
	c.send(`{"type":"subscribe","id":"again","endpoint":"` + ep + `"}`)
	if e := c.next("error"); e["code"] != 5003.0 {
		t.Fatalf("subscribe to a deleted topic: %v", e)
	}
}

func testLogOut() io.Writer {
	if os.Getenv("SLUICE_TEST_LOG") != "" {
		return os.Stderr
	}
	return io.Discard
}
