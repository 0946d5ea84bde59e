package edge

import (
	"sync"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// SlowPolicy is what happens when a client's queue is full.
type SlowPolicy string

// The slow-client policies of PROTOCOL.md, "Slow clients".
const (
	// PolicyDrop discards the queued messages and queues one gap notice per
	// endpoint that lost some: the client learns exactly what it missed and can
	// resume from its last position.
	PolicyDrop SlowPolicy = "drop"
	// PolicyDisconnect closes the connection with 4029.
	PolicyDisconnect SlowPolicy = "disconnect"
)

// item is one queued outgoing frame: a shared message frame or encoded bytes.
type item struct {
	frame *hub.Frame
	raw   []byte
}

// outQueue is a connection's bounded queue of outgoing frames. Producers (hub
// dispatch, request handlers) only append under mu and call wake; one writer at a
// time drains it. Memory per connection is bounded by its capacity.
type outQueue struct {
	mu       sync.Mutex
	items    []item
	capacity int
	policy   SlowPolicy
	closed   bool
	// writing is true while a writer owns the queue; push wakes one only when
	// none does, so frames are never written by two goroutines at once.
	writing bool
	// overflowed is set when PolicyDisconnect hit the bound; the owner closes.
	overflowed bool
	dropped    int64 // messages dropped under PolicyDrop, for metrics
	spare      []item
}

// push appends it and reports whether a writer must be started (none owns the
// queue) and whether the connection must be closed as a slow consumer.
func (q *outQueue) push(it item) (wake, slow bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || q.overflowed {
		return false, false
	}
	if len(q.items) >= q.capacity {
		if q.policy == PolicyDisconnect {
			q.overflowed = true
			return false, true
		}
		q.dropBacklog()
	}
	q.items = append(q.items, it)
	if q.writing {
		return false, false
	}
	q.writing = true
	return true, false
}

// dropBacklog replaces every queued message frame with one gap notice per
// endpoint, keeping the other frames (acks, errors) in order. Called with mu held.
func (q *outQueue) dropBacklog() {
	type span struct {
		first, last *hub.Frame
	}
	spans := map[string]*span{}
	var order []string
	kept := q.items[:0]
	for _, it := range q.items {
		if it.frame == nil {
			kept = append(kept, it)
			continue
		}
		q.dropped++
		sp := spans[it.frame.Endpoint]
		if sp == nil {
			sp = &span{first: it.frame}
			spans[it.frame.Endpoint] = sp
			order = append(order, it.frame.Endpoint)
		}
		sp.last = it.frame
	}
	for _, ep := range order {
		sp := spans[ep]
		kept = append(kept, item{raw: protocol.Encode(protocol.Gap{
			Type: "gap", Endpoint: ep, Epoch: sp.first.Epoch, Partition: sp.first.Partition,
			FromSeq: sp.first.Seq, ToSeq: sp.last.Seq + 1, Reason: "slow_consumer",
		})})
	}
	for i := len(kept); i < len(q.items); i++ {
		q.items[i] = item{} // release the frames
	}
	q.items = kept
}

// take hands the queued items to the writer and empties the queue. A nil result
// releases the writer role: the caller must stop writing. The writer gives the
// slice back with recycle, so a steady stream allocates nothing.
func (q *outQueue) take() []item {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 || q.closed {
		q.writing = false
		return nil
	}
	out := q.items
	q.items, q.spare = q.spare, nil
	return out
}

// recycle returns a written batch; a burst's large array is dropped so an idle
// connection does not keep it.
func (q *outQueue) recycle(batch []item) {
	clear(batch)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.spare == nil && cap(batch) <= 64 {
		q.spare = batch[:0]
	}
}

func (q *outQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.items = nil
	q.mu.Unlock()
}
