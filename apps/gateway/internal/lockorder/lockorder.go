// Package lockorder is the one lock order of the gateway's data path (packages
// hub and edge together) and the mutex types that carry it.
//
// # The order
//
// A goroutine holding a lock may take only a lock further down this list,
// never one further up or another of the same line:
//
//  1. edge.Edge.mu              the registry of live sessions (edge.go)
//  2. edge.wsConn.mu            a WebSocket's token and subscriptions (wsconn.go)
//     ── neither is held while calling into the hub or queueing a frame ──
//  3. hub.Hub.topicsMu          topics in use and their consumers (hub.go)
//  4. hub.shard.mu              one shard of the endpoint table (hub.go)
//  5. hub.endpointState.mu      one endpoint with subscribers (hub.go)
//  6. hub.Subscription.mu       one subscription (subscription.go)
//     ── a Sink is called with 5 and/or 6 held: everything below ──
//  7. edge.sseStream.mu         an SSE stream's end (sse.go)
//  8. edge.outQueue.mu          a connection's outgoing frames (queue.go)
//  9. edge.wsConn.fdMu          a WebSocket's descriptor still being its own (wsconn.go)
//
// and, taken only with none of the locks above held, and taking none under them:
//
//	hub.Hub.readersMu            the shared catch-up readers' queues (catchup.go)
//	edge.pollShard.mu            the poller's connections (poller_linux.go, poller_other.go)
//
// # The write path
//
// A Sink's Deliver, Gap and the ready callback of hub.Subscribe are called with
// endpointState.mu and/or Subscription.mu held (a live record: both; a catch-up
// record or a gap: Subscription.mu; the subscribed acknowledgement:
// endpointState.mu). They do not only enqueue: a WebSocket that finds no
// writer at work writes the queue itself (wsConn.flush) with one non-blocking
// writev(2) on the caller's goroutine, so under those hub locks it takes
// outQueue.mu (to take the batch, then released), wsConn.fdMu (around the
// writev, which never waits: the descriptor is non-blocking) and outQueue.mu
// again (to give the batch back and take the next). A routing worker's
// delivery gathers the connection into the worker's batch of io_uring sends
// instead (edge/ringwrite.go), taking wsConn.fdMu briefly; the 64th gathered
// send submits the batch under those hub locks, and each completion takes
// wsConn.fdMu and outQueue.mu one after the other, as a writev's result does.
// An SSE stream's push may
// end the stream there (slow consumer): sseStream.mu, then outQueue.mu, one
// after the other. Everything that may wait is handed to another goroutine:
// a write the socket did not take at once (wsConn.writeLoop, through net.Conn
// and its own descriptor locks, with none of the locks above held), a slow
// consumer's disconnect (wsConn.terminate takes wsConn.mu) and a failed
// write's close (wsConn.close takes wsConn.mu, then, one after the other,
// the hub's locks through Subscription.Close, Edge.mu, pollShard.mu and
// wsConn.fdMu).
//
// Edge.mu is held while reading a session's claims (wsConn.mu), which is why
// it comes first. Sink.Ended is called with no hub lock held (it takes
// wsConn.mu), as are the session calls of the catalog's revocations (Edge.mu,
// then each session's terminate with Edge.mu released).
//
// Before all of these comes the catalog's own applyMu (catalog.go), held
// across its Listener's calls, which reach the edge and the hub; the catalog's
// mu is never held while calling out.
//
// # Other rules
//
// Calls out of the hub (Backend, the catalog) are made with no hub lock held,
// except Backend.Consume (under topicsMu; it must not block) and
// Backend.PartitionFor (pure). A topic's change is handled on its consumer's
// goroutine, which waits for the dispatch workers with no hub lock held, then
// takes shard.mu, endpointState.mu and Subscription.mu in that order.
// Consumer.Stop, which waits, is never called with hub locks held.
//
// # The check
//
// The mutexes named above are Mutex and RWMutex of this package, typed with
// their rank. In a normal build they are sync.Mutex and sync.RWMutex and cost
// nothing more. Built with -tags lockrank, every Lock checks the goroutine's
// held locks against the order above and panics on an inversion:
//
//	go test -race -count=1 -tags lockrank ./internal/lockorder/ ./internal/hub/ ./internal/edge/
//	KAFKA_BROKERS=... go test -race -count=1 -tags 'integration lockrank' ./internal/node/
//
// The first also proves the check itself catches an inversion; the second
// drives every path through a real node (subscribe, delivery and its writes,
// slow clients, unsubscribe, endpoint changes, revocation, catch-up, topic
// changes).
package lockorder

// rank is a lock's place in the order; see the package comment.
type rank uint8

const (
	rankEdge rank = iota + 1
	rankWSConn
	rankTopics
	rankShard
	rankEndpoint
	rankSubscription
	rankSSEStream
	rankQueue
	rankFD
	// rankAlone locks are taken with no ranked lock held, and none under them.
	rankAlone
)

var rankNames = [...]string{
	rankEdge:         "edge.Edge.mu",
	rankWSConn:       "edge.wsConn.mu",
	rankTopics:       "hub.Hub.topicsMu",
	rankShard:        "hub.shard.mu",
	rankEndpoint:     "hub.endpointState.mu",
	rankSubscription: "hub.Subscription.mu",
	rankSSEStream:    "edge.sseStream.mu",
	rankQueue:        "edge.outQueue.mu",
	rankFD:           "edge.wsConn.fdMu",
	rankAlone:        "a lock taken alone (hub.Hub.readersMu, edge.pollShard.mu, edge.addressLimit.mu)",
}

func (r rank) String() string { return rankNames[r] }

// Rank is a lock's place in the order, as a type: the mutex types take it as
// a type parameter, so a normal build stores nothing for it.
type Rank interface{ rank() rank }

// The ranks, one per line of the order.
type (
	Edge         struct{}
	WSConn       struct{}
	Topics       struct{}
	Shard        struct{}
	Endpoint     struct{}
	Subscription struct{}
	SSEStream    struct{}
	Queue        struct{}
	FD           struct{}
	// Alone is the rank of locks taken with no other one held.
	Alone struct{}
)

func (Edge) rank() rank         { return rankEdge }
func (WSConn) rank() rank       { return rankWSConn }
func (Topics) rank() rank       { return rankTopics }
func (Shard) rank() rank        { return rankShard }
func (Endpoint) rank() rank     { return rankEndpoint }
func (Subscription) rank() rank { return rankSubscription }
func (SSEStream) rank() rank    { return rankSSEStream }
func (Queue) rank() rank        { return rankQueue }
func (FD) rank() rank           { return rankFD }
func (Alone) rank() rank        { return rankAlone }
