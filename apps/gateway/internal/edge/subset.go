package edge

import "github.com/sluicehq/sluice/apps/gateway/internal/hub"

// subSetSliceMax is the size up to which a subSet is a slice.
const subSetSliceMax = 8

// subSet is a connection's subscriptions by canonical path. Nearly every
// connection holds one or a few: a short slice costs 24 bytes an entry where a
// map's smallest table is ~300 bytes, and scanning a few entries is as fast as
// hashing. Past subSetSliceMax it turns into a map. The zero value is empty.
type subSet struct {
	few  []subEntry
	many map[string]*hub.Subscription
}

type subEntry struct {
	path string
	sub  *hub.Subscription // nil while being registered
}

func (ss *subSet) get(path string) (*hub.Subscription, bool) {
	if ss.many != nil {
		s, ok := ss.many[path]
		return s, ok
	}
	for i := range ss.few {
		if ss.few[i].path == path {
			return ss.few[i].sub, true
		}
	}
	return nil, false
}

func (ss *subSet) set(path string, s *hub.Subscription) {
	if ss.many != nil {
		ss.many[path] = s
		return
	}
	for i := range ss.few {
		if ss.few[i].path == path {
			ss.few[i].sub = s
			return
		}
	}
	if len(ss.few) < subSetSliceMax {
		ss.few = append(ss.few, subEntry{path, s})
		return
	}
	ss.many = make(map[string]*hub.Subscription, 2*subSetSliceMax)
	for _, e := range ss.few {
		ss.many[e.path] = e.sub
	}
	ss.few = nil
	ss.many[path] = s
}

func (ss *subSet) delete(path string) {
	if ss.many != nil {
		delete(ss.many, path)
		return
	}
	for i := range ss.few {
		if ss.few[i].path == path {
			last := len(ss.few) - 1
			ss.few[i] = ss.few[last]
			ss.few[last] = subEntry{}
			ss.few = ss.few[:last]
			return
		}
	}
}

func (ss *subSet) len() int {
	if ss.many != nil {
		return len(ss.many)
	}
	return len(ss.few)
}

// all returns a copy of the entries, safe to keep while the set changes.
// paths returns the paths subscribed or being subscribed to.
func (ss *subSet) paths() []string {
	if ss.many == nil {
		out := make([]string, len(ss.few))
		for i, e := range ss.few {
			out[i] = e.path
		}
		return out
	}
	out := make([]string, 0, len(ss.many))
	for p := range ss.many {
		out = append(out, p)
	}
	return out
}

// each calls fn with every entry, without copying them.
func (ss *subSet) each(fn func(subEntry)) {
	if ss.many == nil {
		for _, e := range ss.few {
			fn(e)
		}
		return
	}
	for p, s := range ss.many {
		fn(subEntry{p, s})
	}
}

func (ss *subSet) all() []subEntry {
	if ss.many == nil {
		return append([]subEntry(nil), ss.few...)
	}
	out := make([]subEntry, 0, len(ss.many))
	for p, s := range ss.many {
		out = append(out, subEntry{p, s})
	}
	return out
}
