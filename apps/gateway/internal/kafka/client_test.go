package kafka

import (
	"context"
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	b := Backoff{First: 250 * time.Millisecond, Max: 10 * time.Second}
	prevMax := time.Duration(0)
	for i := range 12 {
		d := b.Next()
		base := min(250*time.Millisecond<<min(i, 6), 10*time.Second)
		if d < base/2 || d > base {
			t.Fatalf("attempt %d: %v not in [%v, %v]", i, d, base/2, base)
		}
		prevMax = max(prevMax, d)
	}
	if prevMax > 10*time.Second {
		t.Fatal("backoff above the cap")
	}
	b.Reset()
	if d := b.Next(); d > 250*time.Millisecond {
		t.Fatalf("after reset: %v", d)
	}
}

func TestSleepEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if Sleep(ctx, time.Hour) {
		t.Fatal("Sleep waited out a cancelled context")
	}
	if !Sleep(context.Background(), time.Millisecond) {
		t.Fatal("Sleep did not wait")
	}
}
