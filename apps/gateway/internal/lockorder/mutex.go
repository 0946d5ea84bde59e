//go:build !lockrank

package lockorder

import "sync"

// Mutex is a sync.Mutex of rank R. In this build it is exactly a sync.Mutex:
// Lock and Unlock are sync.Mutex's own (promoted), with no check.
type Mutex[R Rank] struct{ sync.Mutex }

// RWMutex is a sync.RWMutex of rank R; see Mutex.
type RWMutex[R Rank] struct{ sync.RWMutex }

// Enabled says whether this build checks the lock order (-tags lockrank).
const Enabled = false
