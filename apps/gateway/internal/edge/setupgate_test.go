package edge

import (
	"context"
	"testing"
	"time"
)

func TestSetupGateBoundsConcurrentSetups(t *testing.T) {
	g := newSetupGate(2)
	ctx := context.Background()
	for i := range 2 {
		if !g.enter(ctx) {
			t.Fatalf("setup %d of 2 must enter at once", i+1)
		}
	}
	third := make(chan bool)
	go func() { third <- g.enter(ctx) }()
	select {
	case <-third:
		t.Fatal("a third setup entered while two were running")
	case <-time.After(50 * time.Millisecond):
	}
	g.leave()
	select {
	case ok := <-third:
		if !ok {
			t.Fatal("the waiting setup must enter once a slot is free")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting setup did not enter after a leave")
	}
}

func TestSetupGateGivesUpWhenTheClientLeaves(t *testing.T) {
	g := newSetupGate(1)
	if !g.enter(context.Background()) {
		t.Fatal("enter")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan bool)
	go func() { done <- g.enter(ctx) }()
	cancel()
	if <-done {
		t.Fatal("enter must report false when its context ends first")
	}
	g.leave()
	if !g.enter(context.Background()) {
		t.Fatal("the slot must be free again: the abandoned wait took none")
	}
}

func TestSetupGateDefaultsToTheProcessors(t *testing.T) {
	if n := cap(newSetupGate(0).slots); n < 2 {
		t.Fatalf("default slots %d, want at least 2", n)
	}
}
