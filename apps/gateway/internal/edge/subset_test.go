package edge

import (
	"fmt"
	"sort"
	"testing"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
)

func TestSubSet(t *testing.T) {
	var ss subSet
	subs := map[string]*hub.Subscription{}
	check := func(when string) {
		t.Helper()
		if ss.len() != len(subs) {
			t.Fatalf("%s: len %d, want %d", when, ss.len(), len(subs))
		}
		for p, want := range subs {
			if got, ok := ss.get(p); !ok || got != want {
				t.Fatalf("%s: get(%s) = %p %v, want %p", when, p, got, ok, want)
			}
		}
		if _, ok := ss.get("/absent/x"); ok {
			t.Fatalf("%s: an absent path was found", when)
		}
		var paths []string
		for _, e := range ss.all() {
			paths = append(paths, e.path)
			if subs[e.path] != e.sub {
				t.Fatalf("%s: all() has %s → %p, want %p", when, e.path, e.sub, subs[e.path])
			}
		}
		sort.Strings(paths)
		if len(paths) != len(subs) {
			t.Fatalf("%s: all() has %d entries, want %d", when, len(paths), len(subs))
		}
	}
	check("empty")
	// Grow through the switch from slice to map, with a reserved (nil) entry.
	for i := range 3 * subSetSliceMax {
		p := fmt.Sprintf("/t/%d", i)
		ss.set(p, nil)
		subs[p] = nil
		s := &hub.Subscription{Path: p}
		ss.set(p, s)
		subs[p] = s
		check(fmt.Sprintf("after %d sets", i+1))
	}
	for i := 0; i < 3*subSetSliceMax; i += 2 {
		p := fmt.Sprintf("/t/%d", i)
		ss.delete(p)
		delete(subs, p)
		check(fmt.Sprintf("after deleting %s", p))
	}
	// A small set deletes from the middle and keeps the rest.
	var small subSet
	a, b, c := &hub.Subscription{}, &hub.Subscription{}, &hub.Subscription{}
	small.set("/a/1", a)
	small.set("/b/1", b)
	small.set("/c/1", c)
	small.delete("/b/1")
	small.delete("/absent/1")
	if got, _ := small.get("/a/1"); got != a || small.len() != 2 {
		t.Fatal("delete from the middle lost an entry")
	}
	if got, _ := small.get("/c/1"); got != c {
		t.Fatal("delete from the middle lost the last entry")
	}
}
