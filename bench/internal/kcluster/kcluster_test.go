package kcluster

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// The properties give every node the same 3-voter quorum and the replication
// settings the scenarios rely on; no JVM needed.
func TestProperties(t *testing.T) {
	o := Options{Nodes: 3, BasePort: 39190, Host: "127.0.0.1"}
	p := o.properties(1, "/d")
	for _, want := range []string{
		"node.id=2\n",
		"controller.quorum.voters=1@127.0.0.1:39191,2@127.0.0.1:39193,3@127.0.0.1:39195\n",
		"listeners=PLAINTEXT://127.0.0.1:39192,CONTROLLER://127.0.0.1:39193\n",
		"advertised.listeners=PLAINTEXT://127.0.0.1:39192\n",
		"default.replication.factor=3\n", "min.insync.replicas=2\n",
		"offsets.topic.replication.factor=3\n", "transaction.state.log.replication.factor=3\n", "transaction.state.log.min.isr=2\n",
		"auto.create.topics.enable=false\n", "unclean.leader.election.enable=false\n", "log.dirs=/d\n",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("properties lack %q:\n%s", want, p)
		}
	}
}

func TestMissingJarsAreNamed(t *testing.T) {
	t.Setenv("SLUICE_KAFKA_LIBS", "")
	t.Chdir(t.TempDir())
	t.Setenv("GIT_DIR", t.TempDir()) // not a checkout: no main worktree either
	_, err := FindLibs()
	if !errors.Is(err, ErrNoKafka) || !strings.Contains(err.Error(), "./sluice start") {
		t.Fatalf("FindLibs: %v, want ErrNoKafka telling to run ./sluice start", err)
	}
}

// TestLeaderKill starts the real cluster (~30 s), kills the leader of an RF-3
// topic's partition, and checks that another node leads it and acks=all
// produces go on.
func TestLeaderKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three Kafka JVMs; not with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c, err := Start(ctx, Options{BasePort: 39190})
	if errors.Is(err, ErrNoKafka) {
		t.Skipf("no local Kafka to start: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const topic = "kcluster-test"
	if _, err := c.Admin().CreateTopic(ctx, 1, 3, map[string]*string{"min.insync.replicas": new("2")}, topic); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitHealthy(ctx, 60*time.Second, topic); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.RequiredAcks(kgo.AllISRAcks()), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(ctx, kgo.StringRecord("before")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	leader, err := c.LeaderOf(ctx, topic, 0)
	if err != nil || leader < 0 {
		t.Fatalf("leader: %d, %v", leader, err)
	}
	if err := c.Kill(leader); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		l, err := c.LeaderOf(ctx, topic, 0)
		if err == nil && l >= 0 && l != leader {
			t.Logf("leader moved from node %d to node %d", c.NodeID(leader), c.NodeID(l))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no new leader 60 s after killing node %d (last: %d, %v)", c.NodeID(leader), l, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	pctx, pcancel := context.WithTimeout(ctx, 60*time.Second)
	defer pcancel()
	res := cl.ProduceSync(pctx, kgo.StringRecord("after"))
	if err := res.FirstErr(); err != nil {
		t.Fatalf("acks=all produce with one node down: %v", err)
	}
	if r, _ := res.First(); r.Offset != 1 {
		t.Errorf("offset after the failover %d, want 1", r.Offset)
	}
	if err := c.Start(leader); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitHealthy(ctx, 90*time.Second, topic); err != nil {
		t.Fatal(err)
	}
}
