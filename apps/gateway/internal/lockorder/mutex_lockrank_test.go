//go:build lockrank

package lockorder

import (
	"strings"
	"testing"
)

// mustPanic runs f and fails unless it panics with the checker's message.
func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Fatalf("%s: no panic", what)
		}
		if msg, _ := r.(string); !strings.HasPrefix(msg, "lockorder: taking ") {
			t.Fatalf("%s: panicked with %v", what, r)
		}
	}()
	f()
}

// touch takes m and releases it: the order check is all these tests need.
func touch(m interface {
	Lock()
	Unlock()
}) {
	m.Lock()
	//lint:ignore SA2001 taken for the order check alone
	m.Unlock()
}

func TestInOrderIsAllowed(t *testing.T) {
	var shard RWMutex[Shard]
	var ep Mutex[Endpoint]
	var sub Mutex[Subscription]
	var q Mutex[Queue]
	var fd Mutex[FD]
	shard.RLock()
	ep.Lock()
	shard.RUnlock()
	sub.Lock()
	touch(&q)
	touch(&fd) // the write path: a writev under the endpoint and subscription locks
	sub.Unlock()
	ep.Unlock()
}

func TestAnInversionPanics(t *testing.T) {
	var ep Mutex[Endpoint]
	var sub Mutex[Subscription]
	sub.Lock()
	mustPanic(t, "endpoint under subscription", ep.Lock)
	sub.Unlock()

	var q Mutex[Queue]
	var fd Mutex[FD]
	fd.Lock()
	mustPanic(t, "queue under descriptor", q.Lock)
	fd.Unlock()

	var edge Mutex[Edge]
	var topics Mutex[Topics]
	topics.Lock()
	mustPanic(t, "edge registry under a hub lock", edge.Lock)
	topics.Unlock()
}

func TestTwoLocksOfOneRankPanic(t *testing.T) {
	var a, b Mutex[Subscription]
	a.Lock()
	mustPanic(t, "two subscriptions", b.Lock)
	a.Unlock()
	var r1, r2 RWMutex[Shard]
	r1.RLock()
	mustPanic(t, "two shards", r2.RLock)
	r1.RUnlock()
}

func TestAloneLocksTakeNoOtherAndAreTakenUnderNone(t *testing.T) {
	var readers Mutex[Alone]
	var sub Mutex[Subscription]
	sub.Lock()
	mustPanic(t, "alone under subscription", readers.Lock)
	sub.Unlock()
	readers.Lock()
	mustPanic(t, "subscription under alone", sub.Lock)
	readers.Unlock()
}

func TestUnlockOnAnotherGoroutineIsForgotten(t *testing.T) {
	var sub Mutex[Subscription]
	var ep Mutex[Endpoint]
	sub.Lock()
	done := make(chan struct{})
	go func() { sub.Unlock(); close(done) }()
	<-done
	touch(&ep) // allowed: sub is no longer held
}

func TestEachGoroutineHasItsOwnHeldSet(t *testing.T) {
	var sub Mutex[Subscription]
	var ep Mutex[Endpoint]
	sub.Lock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		touch(&ep) // another goroutine's sub is no concern of this one
	}()
	<-done
	sub.Unlock()
}
