package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

func TestAckEventsRoundTrip(t *testing.T) {
	in := []ackEvent{{Conn: 3, Partition: 2, N: 17, Offset: 1 << 40, Hash: 0xfeedface12345678, Sent: 1795000000123456789, At: 1795000000223456789}, {Conn: 1, Partition: eventError, N: 5, Offset: 4022}, {Conn: 0, Partition: eventUnanswered, N: 9, Sent: 7}}
	var b []byte
	for _, e := range in {
		b = e.append(b)
	}
	var out []ackEvent
	if err := readAckEvents(bytes.NewReader(b), func(e ackEvent) { out = append(out, e) }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(out) != fmt.Sprint(in) {
		t.Fatalf("read %v, wrote %v", out, in)
	}
	if err := readAckEvents(bytes.NewReader(b[:ackEventBytes+5]), func(ackEvent) {}); err == nil {
		t.Fatal("a torn event was not reported")
	}
}

func benchValue(proc, conn int, n int64) []byte {
	return fmt.Appendf(nil, `{"p":%d,"c":%d,"n":%d,"t":1,"x":"xx"}`, proc, conn, n)
}

// TestVerifier feeds a topic's records against acknowledgements and expects
// every kind of disagreement to be counted where it belongs.
func TestVerifier(t *testing.T) {
	l := newAckLog()
	ack := func(conn uint32, n int64, partition int32, offset int64) {
		l.add(1, ackEvent{Conn: conn, Partition: partition, N: n, Offset: offset, Hash: valueHash(benchValue(1, int(conn), n))})
	}
	ack(0, 1, 0, 10) // fine
	ack(0, 2, 0, 11) // missing
	ack(0, 3, 0, 12) // in Kafka at another offset
	ack(0, 4, 0, 13) // another value at its position
	ack(0, 5, 0, 9)  // fine, but an offset below n=1's: out of order
	ack(0, 5, 0, 9)  // acknowledged twice
	ack(1, 1, 3, 0)  // fine, and written again later
	l.add(1, ackEvent{Conn: 1, Partition: eventError, N: 2, Offset: 5003})
	l.add(1, ackEvent{Conn: 1, Partition: eventUnanswered, N: 3})

	v := newVerifier(l)
	v.record([]byte("p1c0"), benchValue(1, 0, 1), 0, 10)
	v.record([]byte("p1c0"), benchValue(1, 0, 3), 0, 14)
	v.record([]byte("p1c0"), []byte(`{"p":1,"c":0,"n":4,"t":1,"x":"changed"}`), 0, 13)
	v.record([]byte("p1c0"), benchValue(1, 0, 5), 0, 9)
	v.record([]byte("p1c1"), benchValue(1, 1, 1), 3, 0)
	v.record([]byte("p1c1"), benchValue(1, 1, 1), 3, 1) // the copy
	v.record([]byte("p1c1"), benchValue(1, 1, 2), 3, 2) // after an error
	v.record([]byte("p1c1"), benchValue(1, 1, 3), 3, 3) // unanswered
	v.record([]byte("p1c1"), benchValue(1, 1, 4), 3, 4) // never sent, as far as the log knows
	v.record([]byte("x"), []byte("not ours"), 3, 5)
	got := v.finish()
	want := verifyResult{Acked: 6, Matched: 3, Missing: 1, Misplaced: 1, WrongContent: 1, AckedTwice: 1, OutOfOrder: 1,
		Records: 10, WrittenTwice: 1, NeverAckedAfterError: 1, NeverAckedUnanswered: 1, NeverAckedOther: 1, Foreign: 1}
	if got != want {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	if got.ok() {
		t.Fatal("ok() for a failed check")
	}
	clean := newAckLog()
	clean.add(0, ackEvent{Partition: 0, N: 1, Offset: 0, Hash: valueHash(benchValue(0, 0, 1))})
	cv := newVerifier(clean)
	cv.record([]byte("p0c0"), benchValue(0, 0, 1), 0, 0)
	if r := cv.finish(); !r.ok() {
		t.Fatalf("a clean topic failed: %+v", r)
	}
}

// fakePublishNode is a scripted gateway: it acknowledges WebSocket publishes
// at increasing offsets of partition 0, except what answer says otherwise.
type fakePublishNode struct {
	srv *httptest.Server
	mu  sync.Mutex
	// frames are the publish frames received, per connection made.
	frames [][]string
}

// answer returns the frame to send for the i-th publish (1-based, per node) of
// data with frame id id: "" for none, "close" to end the connection unanswered.
func newFakePublishNode(t *testing.T, answer func(i int, id string) string) *fakePublishNode {
	n := &fakePublishNode{}
	up := websocket.Upgrader{Subprotocols: []string{"sluice.v1"}}
	count, offset := 0, int64(0)
	n.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		n.mu.Lock()
		n.frames = append(n.frames, nil)
		conn := len(n.frames) - 1
		n.mu.Unlock()
		_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"type":"authenticated","app":"bench","expires_at":1}`))
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			id := fieldStr(data, `"id":"`)
			n.mu.Lock()
			n.frames[conn] = append(n.frames[conn], string(data))
			count++
			a := answer(count, id)
			if a == "" {
				a = fmt.Sprintf(`{"type":"published","id":%q,"endpoint":"/t/p0c0","epoch":"e","partition":0,"seq":%d}`, id, offset)
				offset++
			}
			n.mu.Unlock()
			if a == "close" {
				return
			}
			if err := ws.WriteMessage(websocket.TextMessage, []byte(a)); err != nil {
				return
			}
		}
	}))
	t.Cleanup(n.srv.Close)
	return n
}

func testPubGen(transport string, urls []string, rate float64) (*pubGen, *bytes.Buffer) {
	var buf bytes.Buffer
	g := &pubGen{
		transport: transport, topic: "t", token: "tok", urls: urls, rate: rate, inflight: 4, payload: 100,
		from: 0, to: 1 << 62, backoffInitial: time.Millisecond, backoffMax: 5 * time.Millisecond,
		dialer: &net.Dialer{Timeout: time.Second}, acks: bufio.NewWriter(&buf), pad: "xx",
		stop: make(chan struct{}), rep: newPublisherReport(transport, 1),
	}
	return g, &buf
}

func startPubConn(g *pubGen) (*pubConn, chan struct{}) {
	c := &pubConn{g: g, key: "p0c0", rate: g.rate, rng: rand.New(rand.NewSource(1)), pending: map[int64]pending{}, slots: make(chan struct{}, g.inflight)}
	done := make(chan struct{})
	go func() { defer close(done); c.run() }()
	return c, done
}

// TestPublisherWebSocket: acknowledgements, an error answer, a connection
// that ends with publishes in flight (unanswered), and the move to the next
// node, where the sequence goes on.
func TestPublisherWebSocket(t *testing.T) {
	a := newFakePublishNode(t, func(i int, id string) string {
		switch {
		case i == 2:
			return fmt.Sprintf(`{"type":"error","id":%q,"code":4022,"message":"data: bad"}`, id)
		case i == 5:
			return "close" // 5 goes unanswered (and whatever was in flight behind it)
		}
		return ""
	})
	b := newFakePublishNode(t, func(int, string) string { return "" })
	g, buf := testPubGen("ws", []string{"ws" + strings.TrimPrefix(a.srv.URL, "http"), "ws" + strings.TrimPrefix(b.srv.URL, "http")}, 200)
	_, done := startPubConn(g)
	deadline := time.Now().Add(5 * time.Second)
	for {
		b.mu.Lock()
		got := len(b.frames) > 0 && len(b.frames[0]) >= 5
		b.mu.Unlock()
		if got {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no publishes reached the second node")
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(g.stop)
	<-done
	must(g.acks.Flush())

	outcome := map[int64]int32{}
	var ackedTwice int
	must(readAckEvents(buf, func(e ackEvent) {
		if _, seen := outcome[e.N]; seen {
			ackedTwice++
		}
		outcome[e.N] = e.Partition
	}))
	if outcome[1] != 0 || outcome[2] != eventError || outcome[3] != 0 || outcome[4] != 0 || outcome[5] != eventUnanswered {
		t.Fatalf("outcomes of 1..5: %v", outcome)
	}
	if ackedTwice != 0 || len(g.rep.ErrorsByCode) != 1 || g.rep.ErrorsByCode["4022"] != 1 {
		t.Fatalf("acked twice %d, errors %v", ackedTwice, g.rep.ErrorsByCode)
	}
	// Node B got the sequence where A left it (what was written to A after
	// its 5th publish went unanswered too), each publish once, in order.
	b.mu.Lock()
	defer b.mu.Unlock()
	var first int64
	fmt.Sscan(fieldStr([]byte(b.frames[0][0]), `"id":"`), &first)
	if first < 6 {
		t.Fatalf("node B's first publish is %d", first)
	}
	for n := int64(5); n < first; n++ {
		if outcome[n] != eventUnanswered {
			t.Fatalf("publish %d, sent to A after its last answer: outcome %d", n, outcome[n])
		}
	}
	for i, f := range b.frames[0] {
		if !strings.Contains(f, `"endpoint":"/t/p0c0"`) || !strings.Contains(f, fmt.Sprintf(`"n":%d,`, first+int64(i))) {
			t.Fatalf("frame %d on B: %s", i, f)
		}
	}
	if int64(len(outcome)) != g.rep.Acked+g.rep.Unanswered+1 {
		t.Fatalf("%d outcomes, report %+v", len(outcome), g.rep)
	}
}

// TestPublisherWindow: with no answers the connection stops at its window.
func TestPublisherWindow(t *testing.T) {
	n := newFakePublishNode(t, func(int, string) string { return `{"type":"pong"}` })
	g, _ := testPubGen("ws", []string{"ws" + strings.TrimPrefix(n.srv.URL, "http")}, 0)
	g.stopping.Store(true) // no drain at the stop
	_, done := startPubConn(g)
	time.Sleep(300 * time.Millisecond)
	close(g.stop)
	<-done
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.frames) != 1 || len(n.frames[0]) != g.inflight {
		t.Fatalf("sent %d publishes with a window of %d", len(n.frames[0]), g.inflight)
	}
	if g.rep.Unanswered != int64(g.inflight) {
		t.Fatalf("unanswered %d", g.rep.Unanswered)
	}
}

// TestPublisherHTTP: acknowledgements and problem answers of POST /pub/….
func TestPublisherHTTP(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	offset := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		paths = append(paths, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		if len(paths) == 3 {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"status":503,"title":"Service Unavailable","detail":"x","code":5003}`)
			return
		}
		fmt.Fprintf(w, `{"endpoint":"/t/p0c0","epoch":"e","partition":1,"seq":%d}`, offset)
		offset++
	}))
	defer srv.Close()
	g, buf := testPubGen("http", []string{srv.URL}, 500)
	g.inflight = 1
	_, done := startPubConn(g)
	time.Sleep(100 * time.Millisecond)
	close(g.stop)
	<-done
	must(g.acks.Flush())
	var events []ackEvent
	must(readAckEvents(buf, func(e ackEvent) { events = append(events, e) }))
	mu.Lock()
	defer mu.Unlock()
	if len(events) != len(paths) || len(events) < 5 {
		t.Fatalf("%d events for %d requests", len(events), len(paths))
	}
	if paths[0] != "POST /pub/t/p0c0 Bearer tok" {
		t.Fatalf("request %q", paths[0])
	}
	if events[2].Partition != eventError || events[2].Offset != 5003 || events[3].Partition != 1 || events[3].Offset != 2 {
		t.Fatalf("events %v", events)
	}
	if g.rep.Dials != 1 {
		t.Fatalf("%d TCP connections for one keep-alive connection", g.rep.Dials)
	}
}

// TestPublisherHTTPNotSent: a request whose connection cannot be made is
// "not sent", not "unanswered": it cannot be in Kafka.
func TestPublisherHTTPNotSent(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	g, buf := testPubGen("http", []string{url}, 500)
	g.inflight = 1
	_, done := startPubConn(g)
	time.Sleep(50 * time.Millisecond)
	close(g.stop)
	<-done
	must(g.acks.Flush())
	var events []ackEvent
	must(readAckEvents(buf, func(e ackEvent) { events = append(events, e) }))
	if len(events) == 0 || g.rep.DialFailures == 0 {
		t.Fatalf("%d events, %d failed connects", len(events), g.rep.DialFailures)
	}
	for _, e := range events {
		if e.Partition != eventNotSent {
			t.Fatalf("event %+v", e)
		}
	}
	if g.rep.NotSent != int64(len(events)) || g.rep.outcomes() != int64(len(events)) {
		t.Fatalf("report %+v", g.rep)
	}
}
