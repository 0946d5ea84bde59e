package edge

import (
	"context"
	"runtime"
)

// setupGate bounds how many connection setups (a WebSocket's upgrade, an SSE
// stream's start) run at once on a node.
//
// Why: Go's scheduler has no priorities. When another node dies, thousands of
// its clients reconnect here within a second; unbounded, each setup is a
// runnable goroutine, and the goroutines of the live path (the Kafka fetch,
// the routing workers) wait behind all of them in the run queues. In a fault
// run with 10,000 clients on two nodes, the survivor's own clients, which
// never lost their connection, went seconds without a message while it took
// the other node's resumes (docs/reliability.md); a connection flood does the
// same. With at most as many setups running as there are processors, the
// setups still use every core, but a live goroutine that becomes runnable
// waits behind a handful of them, not thousands. The waiting setups are
// parked on the gate's channel, in arrival order, costing no CPU.
//
// Only work that does not wait on Kafka is gated: a subscription's Kafka
// requests (a new topic's metadata, a start offset) run after the slot is
// given back, so a broker outage cannot hold the gate shut.
type setupGate struct {
	slots chan struct{}
}

func newSetupGate(n int) setupGate {
	if n <= 0 {
		n = max(runtime.GOMAXPROCS(0), 2)
	}
	return setupGate{slots: make(chan struct{}, n)}
}

// enter waits for a slot; false when ctx ended first (the client went away).
func (g setupGate) enter(ctx context.Context) bool {
	select {
	case g.slots <- struct{}{}:
		return true
	default:
	}
	select {
	case g.slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// leave gives the slot back; once per successful enter.
func (g setupGate) leave() { <-g.slots }
