//go:build integration

package kafka

import (
	"context"
	"testing"
	"time"
)

// A stale cached entry is answered at once, even to a caller that cannot
// wait at all, and refreshed in the background: publishes must not queue
// behind metadata fetches while brokers are unreachable.
func TestMetaAnswersAStaleEntryAtOnceAndRefreshesIt(t *testing.T) {
	c, _, topic := setup(t, 2)
	first, err := c.Meta(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	c.metaMu.Lock()
	e := c.meta[topic]
	e.at = time.Now().Add(-2 * metaTTL)
	c.meta[topic] = e
	c.metaMu.Unlock()

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := c.Meta(cancelled, topic)
	if err != nil || got != first {
		t.Fatalf("stale entry: %+v, %v; want %+v at once", got, err, first)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		c.metaMu.Lock()
		e := c.meta[topic]
		c.metaMu.Unlock()
		if time.Since(e.at) < metaTTL && !e.refreshing {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stale entry was not refreshed: %+v", e)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
