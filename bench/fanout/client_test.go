package main

import (
	"math/rand"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// fakeNode is a scripted gateway node: it records each subscribe frame and
// answers with the frames of script.
type fakeNode struct {
	srv        *httptest.Server
	mu         sync.Mutex
	subscribes []string
}

func newFakeNode(t *testing.T, script func(ws *websocket.Conn)) *fakeNode {
	n := &fakeNode{}
	up := websocket.Upgrader{Subprotocols: []string{"sluice.v1"}}
	n.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		_, sub, err := ws.ReadMessage()
		if err != nil {
			return
		}
		n.mu.Lock()
		n.subscribes = append(n.subscribes, string(sub))
		n.mu.Unlock()
		script(ws)
	}))
	t.Cleanup(n.srv.Close)
	return n
}

func (n *fakeNode) url() string { return "ws" + strings.TrimPrefix(n.srv.URL, "http") }

func (n *fakeNode) subscribeFrames() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.subscribes...)
}

func send(ws *websocket.Conn, frames ...string) {
	for _, f := range frames {
		_ = ws.WriteMessage(websocket.TextMessage, []byte(f))
	}
}

func msg(seq, n int) string {
	return `{"type":"message","endpoint":"/t/k3","epoch":"EP","partition":1,"seq":` + strconv.Itoa(seq) + `,"ts":1,"data":{"k":3,"n":` + strconv.Itoa(n) + `,"t":5,"p":"x"}}`
}

func newTestGen(urls ...string) *loadGen {
	return &loadGen{
		urls: urls, topic: "t", from: 0, to: 1 << 62, resume: true,
		backoffInitial: time.Millisecond, backoffMax: 10 * time.Millisecond,
		rep:    &clientReport{Buckets: make([]int64, fineBuckets+coarseBuckets), GapReasons: map[string]int64{}},
		dialer: websocket.Dialer{Subprotocols: []string{"sluice.v1"}},
		open:   map[*websocket.Conn]struct{}{},
	}
}

// runUntil runs one client until its last n reaches wantN, then stops it.
func runUntil(t *testing.T, g *loadGen, c *benchConn, wantN int64) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); g.run(c) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c.mu.Lock()
		n := c.rec.N
		c.mu.Unlock()
		if n >= wantN {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("client stuck at n=%d, want %d", n, wantN)
		}
		time.Sleep(5 * time.Millisecond)
	}
	g.stopping.Store(true)
	g.mu.Lock()
	for ws := range g.open {
		_ = ws.Close()
	}
	g.mu.Unlock()
	g.endStreams()
	<-done
}

func TestClientResumesOnNextNodeFromLastMessage(t *testing.T) {
	a := newFakeNode(t, func(ws *websocket.Conn) {
		send(ws, `{"type":"subscribed","endpoint":"/t/k3","epoch":"EP","partition":1,"seq":9}`, msg(10, 1), msg(11, 2),
			`{"type":"closing","code":1012,"reason":"server shutting down; reconnect and resume"}`)
	})
	b := newFakeNode(t, func(ws *websocket.Conn) {
		// A duplicate of n=2, then n=3, a hole (n=4 missing) reported by nothing, n=5, and a gap frame.
		send(ws, `{"type":"subscribed","endpoint":"/t/k3","epoch":"EP","partition":1,"seq":11}`, msg(11, 2), msg(12, 3),
			`{"type":"gap","endpoint":"/t/k3","epoch":"EP","partition":1,"from_seq":13,"to_seq":14,"reason":"retention"}`, msg(20, 5))
		_, _, _ = ws.ReadMessage() // hold the connection until the client closes it
	})
	g := newTestGen(a.url(), b.url())
	c := &benchConn{key: 3, rng: rand.New(rand.NewSource(1))}
	runUntil(t, g, c, 5)

	if got := a.subscribeFrames(); len(got) != 1 || strings.Contains(got[0], `"from"`) {
		t.Fatalf("node A subscribes: %q, want one without from", got)
	}
	want := `{"type":"subscribe","endpoint":"/t/k3","from":{"epoch":"EP","partition":1,"seq":11}}`
	if got := b.subscribeFrames(); len(got) != 1 || got[0] != want {
		t.Fatalf("node B subscribes: %q, want %s", got, want)
	}
	if g.lost.Load() != 1 || g.dups.Load() != 1 || g.closing1012.Load() != 1 || g.errs.Load() != 0 {
		t.Fatalf("lost %d dups %d closing1012 %d errors %d, want 1 1 1 0", g.lost.Load(), g.dups.Load(), g.closing1012.Load(), g.errs.Load())
	}
	if g.gaps.Load() != 1 || g.rep.GapReasons["retention"] != 1 {
		t.Fatalf("gaps %d %v", g.gaps.Load(), g.rep.GapReasons)
	}
	r := c.rec
	if r.Outages != 1 || r.NoMsg || r.Down == 0 || r.Sub < r.Down || r.First < r.Sub || r.FirstT != 5 {
		t.Fatalf("record %+v", r)
	}
}

func TestClientWithoutMessageResumesFromSubscribedSeq(t *testing.T) {
	a := newFakeNode(t, func(ws *websocket.Conn) {
		send(ws, `{"type":"subscribed","endpoint":"/t/k3","epoch":"EP","partition":1,"seq":-1}`)
		// killed: no closing frame, the connection just ends
	})
	b := newFakeNode(t, func(ws *websocket.Conn) {
		send(ws, `{"type":"subscribed","endpoint":"/t/k3","epoch":"EP","partition":1,"seq":-1}`, msg(0, 1))
		_, _, _ = ws.ReadMessage()
	})
	g := newTestGen(a.url(), b.url())
	c := &benchConn{key: 3, rng: rand.New(rand.NewSource(2))}
	runUntil(t, g, c, 1)
	want := `{"type":"subscribe","endpoint":"/t/k3","from":{"epoch":"EP","partition":1,"seq":-1}}`
	if got := b.subscribeFrames(); len(got) != 1 || got[0] != want {
		t.Fatalf("node B subscribes: %q, want %s", got, want)
	}
	if !c.rec.NoMsg || c.rec.Outages != 1 || g.closing1012.Load() != 0 || g.lost.Load() != 0 {
		t.Fatalf("record %+v closing1012 %d lost %d", c.rec, g.closing1012.Load(), g.lost.Load())
	}
}

func TestTryOrderSpreadsStartsAndVisitsEveryURL(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	starts := map[int]int{}
	after0 := map[int]int{} // where the clients that start on URL 0 go next
	for i := 0; i < 3000; i++ {
		o := tryOrder(3, rng, true)
		seen := map[int]bool{}
		for _, u := range o {
			seen[u] = true
		}
		if len(seen) != 3 {
			t.Fatalf("order %v does not visit every URL once", o)
		}
		starts[o[0]]++
		if o[0] == 0 {
			after0[o[1]]++
		}
	}
	for u := 0; u < 3; u++ {
		if starts[u] < 800 {
			t.Fatalf("starts %v: URL %d is rarely first", starts, u)
		}
	}
	if after0[1] < 300 || after0[2] < 300 {
		t.Fatalf("the clients of URL 0 move on to %v: not spread over the others", after0)
	}
	if o := tryOrder(3, rng, false); o[0] != 0 || o[1] != 1 || o[2] != 2 {
		t.Fatalf("without spread: %v", o)
	}
}

// In fault runs (-stall) a client records its silences and the time and range
// of every hole (and whether a gap frame announced it), duplicate and gap.
func TestClientRecordsStallsAndEvents(t *testing.T) {
	a := newFakeNode(t, func(ws *websocket.Conn) {
		send(ws, `{"type":"subscribed","endpoint":"/t/k3","epoch":"EP","partition":1,"seq":9}`, msg(10, 1))
		time.Sleep(80 * time.Millisecond)
		send(ws, msg(11, 2), `{"type":"gap","endpoint":"/t/k3","epoch":"EP","partition":1,"from_seq":12,"to_seq":14,"reason":"slow_consumer"}`,
			msg(14, 5), msg(14, 5), msg(15, 7))
		_, _, _ = ws.ReadMessage()
	})
	g := newTestGen(a.url())
	g.stall = int64(40 * time.Millisecond)
	c := &benchConn{key: 3, rng: rand.New(rand.NewSource(1))}
	runUntil(t, g, c, 7)
	if len(c.rec.Stalls) != 1 || c.rec.Stalls[0].To-c.rec.Stalls[0].From < int64(70*time.Millisecond) || c.rec.Last != c.rec.Stalls[0].To && c.rec.Last < c.rec.Stalls[0].To {
		t.Fatalf("stalls %+v last %d", c.rec.Stalls, c.rec.Last)
	}
	var kinds []string
	for _, e := range g.rep.Events {
		kinds = append(kinds, e.Kind)
	}
	ev := g.rep.Events
	if strings.Join(kinds, ",") != "gap,hole,dup,hole" ||
		ev[0].From != 12 || ev[0].To != 14 || ev[0].Partition != 1 || ev[0].Reason != "slow_consumer" ||
		ev[1].From != 3 || ev[1].To != 4 || !ev[1].Reported || ev[2].From != 5 || ev[3].From != 6 || ev[3].To != 6 || ev[3].Reported {
		t.Fatalf("events %+v", ev)
	}
}

// A message of an earlier hole that comes after later ones is late (out of
// order in Kafka), not a duplicate; the same n once more is a duplicate.
func TestClientCountsAHolesLateMessageApartFromDuplicates(t *testing.T) {
	a := newFakeNode(t, func(ws *websocket.Conn) {
		send(ws, `{"type":"subscribed","endpoint":"/t/k3","epoch":"EP","partition":1,"seq":9}`, msg(10, 1), msg(11, 3), msg(12, 2), msg(12, 2), msg(13, 4))
		_, _, _ = ws.ReadMessage()
	})
	g := newTestGen(a.url())
	g.stall = 1 << 40
	c := &benchConn{key: 3, rng: rand.New(rand.NewSource(1))}
	runUntil(t, g, c, 4)
	var kinds []string
	for _, e := range g.rep.Events {
		kinds = append(kinds, e.Kind)
	}
	if strings.Join(kinds, ",") != "hole,late,dup" || g.late.Load() != 1 || g.dups.Load() != 1 || c.rec.Late != 1 || c.rec.Dups != 1 || c.rec.Holes != 1 {
		t.Fatalf("events %v late %d dups %d record %+v", kinds, g.late.Load(), g.dups.Load(), c.rec)
	}
}
