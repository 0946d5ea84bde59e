package catalog

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/kafka"
)

func TestProgress(t *testing.T) {
	p := progress{targets: map[int32]int64{0: 3, 2: 1}, next: map[int32]int64{}}
	if p.done() {
		t.Fatal("done before reading")
	}
	p.advance(0, 0)
	p.advance(0, 2) // offset 1 compacted away
	if p.done() || p.rewound(0, 3) {
		t.Fatal("partition 2 not read yet")
	}
	p.advance(2, 0)
	if !p.done() {
		t.Fatal("not done at the targets")
	}
	if !p.rewound(0, 1) || p.rewound(1, 0) {
		t.Fatal("rewind detection")
	}
	empty := progress{targets: map[int32]int64{}, next: map[int32]int64{}}
	if !empty.done() {
		t.Fatal("an empty topic is caught up at once")
	}
}

func TestRunRejectsBadArguments(t *testing.T) {
	c := New(Options{})
	if err := c.Run(context.Background(), kafka.ClientOptions{}, "__sluice_catalog"); err == nil {
		t.Fatal("no brokers accepted")
	}
	if err := c.Run(context.Background(), kafka.ClientOptions{Brokers: []string{"127.0.0.1:1"}}, "bad topic"); err == nil {
		t.Fatal("bad topic accepted")
	}
}

// With Kafka unreachable Run retries, is not ready, and returns nil when
// cancelled.
func TestRunUnreachableKafka(t *testing.T) {
	c, _, logs := newTestCatalog(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, kafka.ClientOptions{Brokers: []string{"127.0.0.1:1"}}, "__sluice_catalog") }()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(logs.String(), "Kafka error, retrying") {
		if time.Now().After(deadline) {
			t.Fatalf("no retry logged:\n%s", logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	select {
	case <-c.Ready():
		t.Fatal("ready without Kafka")
	default:
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run returned %v on cancel", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}
