package main

import (
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeSSENode is a scripted gateway node for SSE clients: it records each
// stream request (its Last-Event-ID and token) and writes script's events.
type fakeSSENode struct {
	srv      *httptest.Server
	mu       sync.Mutex
	requests []sseRequest
}

type sseRequest struct {
	path, lastEventID, token string
}

func newFakeSSENode(t *testing.T, script func(w io.Writer, flush func(), r *http.Request)) *fakeSSENode {
	n := &fakeSSENode{}
	n.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.mu.Lock()
		n.requests = append(n.requests, sseRequest{r.URL.Path, r.Header.Get("Last-Event-ID"), r.URL.Query().Get("access_token")})
		n.mu.Unlock()
		script(w, w.(http.Flusher).Flush, r)
	}))
	t.Cleanup(n.srv.Close)
	return n
}

// url is the node as the clients' list names it (a WebSocket URL).
func (n *fakeSSENode) url() string { return "ws" + strings.TrimPrefix(n.srv.URL, "http") + "/ws" }

func (n *fakeSSENode) streamRequests() []sseRequest {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]sseRequest(nil), n.requests...)
}

// open starts a stream as the gateway does: headers, the subscribed comment
// and the start position as an id-only block.
func open(w http.ResponseWriter, flush func(), id string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, ": subscribed /t/k3\nid: %s\n\n", id)
	flush()
}

func sseMsg(seq, n int) string {
	return "id: EP:1:" + strconv.Itoa(seq) + "\nevent: message\ndata: " + strings.TrimPrefix(msg(seq, n), `{"type":"message",`) + "\n\n"
}

func newSSETestGen(urls ...string) *loadGen {
	g := newTestGen(urls...)
	g.sse = newSSETransport("")
	g.token = "tok en"
	return g
}

func TestSSEReaderParsesBlocksLikeEventSource(t *testing.T) {
	stream := ": subscribed /t/k3\nid: EP:1:9\n\n" +
		": keepalive\n\n" +
		"id: EP:1:10\r\nevent: message\r\ndata: {\"a\":\r\ndata:1}\r\n\r\n" +
		"event: gap\ndata: {\"type\":\"gap\"}\n\n" +
		"event:closing\rdata:x\r\r" +
		"id: EP:1:11\nevent: message\ndata: {\"cut\""
	rd := newSSEReader(strings.NewReader(stream))
	var got []string
	for {
		ev, err := rd.next()
		if err != nil {
			break
		}
		got = append(got, fmt.Sprintf("%q/%v %q %q/%v", ev.id, ev.hasID, ev.event, ev.data, ev.hasData))
	}
	want := []string{
		`"EP:1:9"/true "" ""/false`,
		`"EP:1:10"/true "message" "{\"a\":\n1}"/true`,
		`""/false "gap" "{\"type\":\"gap\"}"/true`,
		`""/false "closing" "x"/true`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("blocks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if e, p, s, ok := parseEventID("Qk5y-_x:2:-1"); !ok || e != "Qk5y-_x" || p != 2 || s != -1 {
		t.Fatalf("parseEventID: %q %d %d %v", e, p, s, ok)
	}
	for _, bad := range []string{"EP:1", "EP:x:3", "EP:1:-2", "EP:-1:3"} {
		if _, _, _, ok := parseEventID(bad); ok {
			t.Fatalf("parseEventID(%q) accepted", bad)
		}
	}
}

// An SSE client counts what a WebSocket client counts (the same script as
// TestClientResumesOnNextNodeFromLastMessage) and resumes on the next node
// with Last-Event-ID = the last message's id.
func TestSSEClientResumesOnNextNodeWithLastEventID(t *testing.T) {
	a := newFakeSSENode(t, func(w io.Writer, flush func(), r *http.Request) {
		open(w.(http.ResponseWriter), flush, "EP:1:9")
		io.WriteString(w, sseMsg(10, 1)+sseMsg(11, 2)+"event: closing\ndata: {\"type\":\"closing\",\"code\":1012,\"reason\":\"server shutting down; reconnect and resume\"}\n\n")
		flush()
	})
	b := newFakeSSENode(t, func(w io.Writer, flush func(), r *http.Request) {
		open(w.(http.ResponseWriter), flush, "EP:1:11")
		io.WriteString(w, sseMsg(11, 2)+sseMsg(12, 3)+
			"event: gap\ndata: {\"type\":\"gap\",\"endpoint\":\"/t/k3\",\"epoch\":\"EP\",\"partition\":1,\"from_seq\":13,\"to_seq\":14,\"reason\":\"retention\"}\n\n"+
			sseMsg(20, 5))
		flush()
		<-r.Context().Done() // hold the stream until the client ends it
	})
	g := newSSETestGen(a.url(), b.url())
	g.stall = 1 << 40 // record events
	c := &benchConn{key: 3, sse: true, rng: rand.New(rand.NewSource(1))}
	runUntil(t, g, c, 5)

	ra, rb := a.streamRequests(), b.streamRequests()
	if len(ra) != 1 || ra[0].lastEventID != "" || ra[0].path != "/sse/t/k3" || ra[0].token != "tok en" {
		t.Fatalf("node A requests %+v, want one for /sse/t/k3 without Last-Event-ID, with the token", ra)
	}
	if len(rb) != 1 || rb[0].lastEventID != "EP:1:11" {
		t.Fatalf("node B requests %+v, want one with Last-Event-ID EP:1:11", rb)
	}
	if g.lost.Load() != 1 || g.dups.Load() != 1 || g.closing1012.Load() != 1 || g.errs.Load() != 0 {
		t.Fatalf("lost %d dups %d closing1012 %d errors %d, want 1 1 1 0", g.lost.Load(), g.dups.Load(), g.closing1012.Load(), g.errs.Load())
	}
	if g.gaps.Load() != 1 || g.rep.GapReasons["retention"] != 1 || g.subscribed.Load() != 2 {
		t.Fatalf("gaps %d %v subscribed %d", g.gaps.Load(), g.rep.GapReasons, g.subscribed.Load())
	}
	r := c.rec
	if !r.SSE || r.Outages != 1 || r.NoMsg || r.Down == 0 || r.Sub < r.Down || r.First < r.Sub || r.FirstT != 5 ||
		r.Holes != 1 || r.Dups != 1 || r.Gaps != 1 || r.Connects != 2 {
		t.Fatalf("record %+v", r)
	}
	for _, e := range g.rep.Events {
		if !e.SSE {
			t.Fatalf("event %+v not marked SSE", e)
		}
	}
}

// Before any message, the opening block's id is the position to resume from;
// a node that answers with an HTTP error (not ready) is counted by status and
// code, and the client moves on.
func TestSSEClientWithoutMessageResumesFromOpeningID(t *testing.T) {
	a := newFakeSSENode(t, func(w io.Writer, flush func(), r *http.Request) {
		open(w.(http.ResponseWriter), flush, "EP:1:-1") // then the node dies: the stream just ends
	})
	refused := newFakeSSENode(t, func(w io.Writer, flush func(), r *http.Request) {
		rw := w.(http.ResponseWriter)
		rw.Header().Set("Content-Type", "application/problem+json")
		rw.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"type":"about:blank","title":"Service Unavailable","status":503,"detail":"node is starting","code":5003}`)
	})
	b := newFakeSSENode(t, func(w io.Writer, flush func(), r *http.Request) {
		open(w.(http.ResponseWriter), flush, "EP:1:-1")
		io.WriteString(w, sseMsg(0, 1))
		flush()
		<-r.Context().Done()
	})
	g := newSSETestGen(a.url(), refused.url(), b.url())
	c := &benchConn{key: 3, sse: true, rng: rand.New(rand.NewSource(2))}
	runUntil(t, g, c, 1)
	if rr := refused.streamRequests(); len(rr) != 1 || rr[0].lastEventID != "EP:1:-1" {
		t.Fatalf("refusing node's requests %+v", rr)
	}
	if rb := b.streamRequests(); len(rb) != 1 || rb[0].lastEventID != "EP:1:-1" {
		t.Fatalf("node B requests %+v, want Last-Event-ID EP:1:-1", rb)
	}
	if !c.rec.NoMsg || c.rec.Outages != 2 || c.rec.Errs != 1 || g.rep.SSERefused["503/5003"] != 1 || g.lost.Load() != 0 {
		t.Fatalf("record %+v refused %v lost %d", c.rec, g.rep.SSERefused, g.lost.Load())
	}
}

func TestSSEClientsAreTheFractionEvenlySpread(t *testing.T) {
	n := 0
	firstHalf := 0
	for i := range 1000 {
		if sseClientAt(i, 0.2) {
			n++
			if i < 500 {
				firstHalf++
			}
		}
	}
	if n != 200 || firstHalf != 100 {
		t.Fatalf("%d SSE clients of 1000 (%d in the first half), want 200 (100)", n, firstHalf)
	}
	if sseClientAt(0, 0) || !sseClientAt(0, 1) {
		t.Fatal("fraction 0 or 1")
	}
	if sseBase("wss://h:1/ws") != "https://h:1" || sseBase("ws://127.0.0.1:2/ws") != "http://127.0.0.1:2" {
		t.Fatal("sseBase")
	}
}
