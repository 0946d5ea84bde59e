package edge

import (
	"errors"
	"os"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/lockorder"
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

// item is one queued outgoing frame: a shared message frame or bytes ready for
// the wire (a WebSocket frame, or a whole Server-Sent Event).
type item struct {
	frame *hub.Frame
	raw   []byte
	// gap is a gap notice of refused messages (deliveryQuota) that may still
	// grow; take encodes it into raw.
	gap *protocol.Gap
	// final marks a session's last bytes (pushFinal); the connection closes
	// grace after they are written.
	final bool
	// keepalive marks a WebSocket ping: not traffic, for the ping loop.
	keepalive bool
	grace     time.Duration
}

// wire is what a WebSocket writes for the item.
func (it *item) wire() []byte {
	if it.frame != nil {
		return it.frame.Wire()
	}
	return it.raw
}

// outQueue is a connection's bounded queue of outgoing frames. Producers (hub
// dispatch, request handlers) append under mu; the one that finds no writer at
// work becomes the writer and drains it (writer.go). Memory per connection is
// bounded by its capacity.
type outQueue struct {
	// The fields every delivery touches come first, so that a connection's
	// part of delivering a message is a few adjacent cache lines (the first
	// touch of each connection's state is most of the routing's own cost: a
	// cache miss, at tens of thousands of connections).
	mu       lockorder.Mutex[lockorder.Queue]
	items    []item
	spare    []item
	capacity int
	// quota applies the session's delivery rates (nil: none); set once the
	// session's app is known.
	quota *deliveryQuota
	// lastWrite (unix ns) is when items other than keepalives were last
	// written (written); a WebSocket's ping loop skips connections with
	// traffic since its previous round.
	lastWrite atomic.Int64
	metered   atomic.Bool
	closed    bool
	// writing is true while a writer owns the queue; push wakes one only when
	// none does, so frames are never written by two goroutines at once.
	writing bool
	// overflowed is set when PolicyDisconnect hit the bound; the owner closes.
	overflowed bool
	// slow is set when a push reported the session slow (pushResult.slow),
	// which counts it as a slow disconnect: a write deadline that ends it
	// later does not count it again (countWriteTimeout).
	slow bool
	// finished is set once the closing frame is queued (pushFinal): one per session.
	finished bool

	// meter counts the message frames written for usage reports once metered
	// is set (metering on and the session's app known: meterSession). It is
	// part of the queue rather than an object of its own: one object fewer
	// to reach per delivered message.
	meter deliveryMeter

	policy SlowPolicy
	// notice encodes a gap notice for the owner's transport (dropBacklog).
	notice func(protocol.Gap) []byte
}

// pushResult says what the owner of a queue must do after a push.
type pushResult struct {
	wake    bool // start a writer: none owns the queue
	slow    bool // close the connection as a slow consumer
	dropped int  // messages discarded under PolicyDrop (for metrics)
}

// push appends it, applying the slow-client policy when the queue is full.
func (q *outQueue) push(it item) (r pushResult) {
	// No defer: this runs for every delivered message, and the deferred
	// unlock of the generic mutex was wrapped in a closure call.
	q.mu.Lock()
	if q.closed || q.overflowed {
		q.mu.Unlock()
		return r
	}
	if it.frame != nil && q.quota != nil {
		ok, gap := q.quota.admit(it.frame, time.Now())
		switch {
		case ok:
		case gap != nil:
			it = item{gap: gap} // in the refused message's place
		default:
			q.mu.Unlock()
			return r // its gap is queued already, and grew
		}
	}
	if len(q.items) >= q.capacity {
		if q.policy == PolicyDisconnect {
			q.overflowed, q.slow = true, true
			r.slow = true
			q.mu.Unlock()
			return r
		}
		r.dropped = q.dropBacklog()
		if len(q.items) >= 2*q.capacity {
			// The notices are kept (the client needs them), so a client of
			// many endpoints that stopped reading gains a notice per run of
			// dropped messages at every overflow: the queue would grow with
			// every message. Twice the bound is where it is closed as a slow
			// consumer instead, so memory stays bounded under either policy.
			q.overflowed, q.slow = true, true
			r.slow = true
			q.mu.Unlock()
			return r
		}
	}
	q.items = append(q.items, it)
	if !q.writing {
		q.writing = true
		r.wake = true
	}
	q.mu.Unlock()
	return r
}

// pushFinal appends a session's last frame (its closing notice) beyond the
// bound and whatever the policy: it is one frame, after which nothing more is
// queued, and only the first caller's frame is kept (two reasons to close may
// race). It reports whether it was queued and whether a writer must be woken.
func (q *outQueue) pushFinal(it item) (queued, wake bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || q.finished {
		return false, false
	}
	q.finished = true
	q.items = append(q.items, it)
	q.overflowed = true // nothing after the closing notice
	if !q.writing {
		q.writing = true
		return true, true
	}
	return true, false
}

// dropBacklog replaces the queued message frames with gap notices, one per run
// of an endpoint's messages on one (epoch, partition), each where that run's
// first message was, keeping the other frames (acks, errors, the gaps of a
// topic change) in order. So a run dropped before a topic change is reported
// before that change's gap, and one after it, after. It returns how many
// messages it dropped. Called with mu held.
func (q *outQueue) dropBacklog() int {
	type runKey struct {
		endpoint, epoch string
		partition       int32
	}
	type run struct {
		at          int // index in kept of its notice
		first, last *hub.Frame
	}
	runs := map[runKey]*run{}
	var order []*run
	kept := q.items[:0]
	dropped := 0
	for _, it := range q.items {
		if it.frame == nil {
			kept = append(kept, it)
			continue
		}
		dropped++
		k := runKey{it.frame.Endpoint, it.frame.Epoch, it.frame.Partition}
		r := runs[k]
		if r == nil {
			r = &run{at: len(kept), first: it.frame}
			runs[k] = r
			order = append(order, r)
			kept = append(kept, item{}) // its notice, below
		}
		r.last = it.frame
	}
	for _, r := range order {
		kept[r.at] = item{raw: q.notice(protocol.Gap{
			Type: "gap", Endpoint: r.first.Endpoint, Epoch: r.first.Epoch, Partition: r.first.Partition,
			FromSeq: r.first.Seq, ToSeq: r.last.Seq + 1, Reason: "slow_consumer",
		})}
	}
	for i := len(kept); i < len(q.items); i++ {
		q.items[i] = item{} // release the frames
	}
	q.items = kept
	return dropped
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
	if q.quota != nil {
		for i := range out {
			if g := out[i].gap; g != nil {
				out[i].raw, out[i].gap = q.notice(*g), nil
			}
		}
		q.quota.taken()
	}
	return out
}

// recycle returns a written batch; a burst's large array is dropped so an idle
// connection does not keep it.
func (q *outQueue) recycle(batch []item) {
	clear(batch)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.spare == nil && cap(batch) <= maxSpareItems {
		q.spare = batch[:0]
	}
}

// maxSpareItems is the largest array a queue keeps for its next batch: what
// fits in 4 KiB. (The bound was 64 items, but append grows a 64-item array to
// the size class's 73, so every 64-frame burst dropped its array and grew a
// new one.)
const maxSpareItems = 4096 / int(unsafe.Sizeof(item{}))

func (q *outQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.items = nil
	q.mu.Unlock()
}

// countWriteTimeout counts a session ended because its client took nothing
// for a whole write deadline (q is its queue) as a slow consumer: it gets no
// closing frame (its socket is full), so the metric is what says it happened.
// A session already counted when its queue overflowed is not counted twice.
func (s *Edge) countWriteTimeout(q *outQueue, err error) {
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		return
	}
	q.mu.Lock()
	counted := q.slow
	q.slow = true
	q.mu.Unlock()
	if !counted {
		s.opt.Metrics.SlowDisconnects.Inc()
	}
}

// countDropped feeds a push's slow-client outcome into the metrics.
func (s *Edge) countDropped(r pushResult) {
	if r.dropped > 0 {
		s.opt.Metrics.Dropped.Add(float64(r.dropped))
	}
	if r.slow {
		s.opt.Metrics.SlowDisconnects.Inc()
	}
}
