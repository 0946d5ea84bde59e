package lockorder

import (
	"sync"
	"testing"
	"unsafe"
)

// TestNormalBuildAddsNothing pins what makes the check free in a normal build:
// the mutex types are the sync ones, with nothing stored for the rank.
func TestNormalBuildAddsNothing(t *testing.T) {
	if Enabled {
		t.Skip("built with -tags lockrank")
	}
	if a, b := unsafe.Sizeof(Mutex[Subscription]{}), unsafe.Sizeof(sync.Mutex{}); a != b {
		t.Errorf("Mutex is %d bytes, sync.Mutex %d", a, b)
	}
	if a, b := unsafe.Sizeof(RWMutex[Shard]{}), unsafe.Sizeof(sync.RWMutex{}); a != b {
		t.Errorf("RWMutex is %d bytes, sync.RWMutex %d", a, b)
	}
}

func TestEveryRankHasAName(t *testing.T) {
	for r := rankEdge; r <= rankAlone; r++ {
		if r.String() == "" {
			t.Errorf("rank %d has no name", r)
		}
	}
}
