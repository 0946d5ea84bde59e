//go:build lockrank

package lockorder

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"sync"
)

// Enabled says whether this build checks the lock order (-tags lockrank).
const Enabled = true

// Mutex is a sync.Mutex of rank R whose Lock panics when the calling
// goroutine holds a lock that the order puts after R (or one of R's rank).
type Mutex[R Rank] struct{ mu sync.Mutex }

func (m *Mutex[R]) Lock() {
	var r R
	acquire(m, r.rank())
	m.mu.Lock()
}

func (m *Mutex[R]) Unlock() {
	release(m)
	m.mu.Unlock()
}

// RWMutex is a sync.RWMutex of rank R; a read lock counts like a lock.
type RWMutex[R Rank] struct{ mu sync.RWMutex }

func (m *RWMutex[R]) Lock() {
	var r R
	acquire(m, r.rank())
	m.mu.Lock()
}

func (m *RWMutex[R]) Unlock() {
	release(m)
	m.mu.Unlock()
}

func (m *RWMutex[R]) RLock() {
	var r R
	acquire(m, r.rank())
	m.mu.RLock()
}

func (m *RWMutex[R]) RUnlock() {
	release(m)
	m.mu.RUnlock()
}

type heldLock struct {
	m any // the mutex, to find it again on Unlock
	r rank
}

// held is every goroutine's held ranked locks, in the order taken.
var (
	heldMu sync.Mutex
	held   = map[uint64][]heldLock{}
)

// acquire records that the calling goroutine takes m, panicking first if that
// breaks the order.
func acquire(m any, r rank) {
	g := goid()
	heldMu.Lock()
	defer heldMu.Unlock()
	hs := held[g]
	for _, h := range hs {
		if r == rankAlone || h.r == rankAlone || r <= h.r {
			panic(fmt.Sprintf("lockorder: taking %s while holding %s (goroutine %d); see package lockorder for the order", r, h.r, g))
		}
	}
	held[g] = append(hs, heldLock{m, r})
}

// release forgets m. A mutex may be unlocked by another goroutine than the one
// that locked it: then it is found among every goroutine's locks.
func release(m any) {
	g := goid()
	heldMu.Lock()
	defer heldMu.Unlock()
	if drop(g, m) {
		return
	}
	for other := range held {
		if drop(other, m) {
			return
		}
	}
}

func drop(g uint64, m any) bool {
	hs := held[g]
	for i := len(hs) - 1; i >= 0; i-- {
		if hs[i].m == m {
			hs = append(hs[:i], hs[i+1:]...)
			if len(hs) == 0 {
				delete(held, g)
			} else {
				held[g] = hs
			}
			return true
		}
	}
	return false
}

// goid is the calling goroutine's id, read from its stack trace's first line
// ("goroutine 42 [running]:"). Slow, and only in this debug build.
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		panic("lockorder: cannot read the goroutine id")
	}
	return id
}
