package edge

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sluicehq/sluice/apps/gateway/internal/auth"
	"github.com/sluicehq/sluice/apps/gateway/internal/catalog"
	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/metrics"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// These tests run the edge over a real hub and an in-memory Kafka, through the
// paths where the two take each other's locks: subscribing (the acknowledgement
// is written under the endpoint's lock), live delivery and catch-up (written
// under the subscription's), a slow client, unsubscribing, revocation and an
// SSE stream. Built with -tags lockrank they check every lock taken against
// the order of package lockorder.

// memLog is a hub.Backend over one-partition topics held in memory.
type memLog struct {
	mu      sync.Mutex
	recs    map[string][]hub.Record
	changed chan struct{} // closed and replaced at every append
}

func newMemLog(topics ...string) *memLog {
	l := &memLog{recs: map[string][]hub.Record{}, changed: make(chan struct{})}
	for _, t := range topics {
		l.recs[t] = nil
	}
	return l
}

func (l *memLog) produce(topic, key, value string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	recs := l.recs[topic]
	l.recs[topic] = append(recs, hub.Record{Offset: int64(len(recs)), Key: []byte(key), Value: []byte(value), TS: time.Now().UnixMilli()})
	close(l.changed)
	l.changed = make(chan struct{})
}

func (l *memLog) Meta(_ context.Context, topic string) (hub.TopicMeta, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.recs[topic]; !ok {
		return hub.TopicMeta{}, hub.ErrTopicNotFound
	}
	return hub.TopicMeta{Epoch: "e1", Partitions: 1}, nil
}

type memConsumer struct {
	stop, done chan struct{}
	once       sync.Once
}

func (c *memConsumer) Recheck(context.Context) error { return nil }
func (c *memConsumer) Stop()                         { c.once.Do(func() { close(c.stop) }); <-c.done }

func (l *memLog) Consume(topic string, _ hub.TopicMeta, ev hub.ConsumeEvents) hub.Consumer {
	l.mu.Lock()
	next := len(l.recs[topic])
	l.mu.Unlock()
	ev.Started(map[int32]int64{0: int64(next)})
	c := &memConsumer{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for {
			l.mu.Lock()
			recs, changed := l.recs[topic][next:], l.changed
			l.mu.Unlock()
			if len(recs) > 0 {
				ev.Deliver(recs)
				next += len(recs)
				continue
			}
			select {
			case <-changed:
			case <-c.stop:
				return
			}
		}
	}()
	return c
}

func (l *memLog) Offsets(_ context.Context, topic string, _ int32) (int64, int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return 0, int64(len(l.recs[topic])), nil
}

func (l *memLog) OffsetAfter(_ context.Context, topic string, _ int32, ms int64) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.recs[topic] {
		if r.TS >= ms {
			return r.Offset, nil
		}
	}
	return int64(len(l.recs[topic])), nil
}

func (l *memLog) Read(ctx context.Context, topic, _ string, _ int32, from, until int64, fn func(hub.Record) bool) error {
	l.mu.Lock()
	recs := l.recs[topic]
	l.mu.Unlock()
	for _, r := range recs[from:min(until, int64(len(recs)))] {
		if ctx.Err() != nil || !fn(r) {
			break
		}
	}
	return ctx.Err()
}

func (l *memLog) PartitionFor([]byte, int32) int32 { return 0 }

// endpoints is a Resolver serving every key of topic t as JSON.
type endpoints struct{}

func (endpoints) Resolve(p protocol.Path) *catalog.Endpoint {
	if p.Topic != "t" {
		return nil
	}
	return &catalog.Endpoint{Path: "/t/{k}", Topic: "t", KeyParam: "k", Subscribe: true, Format: catalog.FormatJSON}
}

// newHubTestServer is an edge over a hub over log, serving WebSocket and SSE.
func newHubTestServer(t *testing.T, log *memLog, opt Options) (s *Edge, wsURL, httpURL string) {
	perms, err := auth.NewPermissions([]string{"/t/*"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	exp := time.Now().Add(time.Hour).Unix()
	opt.Verifier = tokenTable{
		"a": {App: "app-1", JTI: "jti-a", ExpiresAt: exp, Permissions: perms},
		"b": {App: "app-1", JTI: "jti-b", ExpiresAt: exp, Permissions: perms},
	}
	opt.Catalog = endpoints{}
	opt.Hub = hub.New(log, hub.Config{CacheSize: 16, Linger: time.Minute})
	opt.Metrics = metrics.New()
	s = New(opt)
	mux := http.NewServeMux()
	s.Routes(mux)
	hs := httptest.NewServer(mux)
	t.Cleanup(func() { hs.Close(); s.cancel(); opt.Hub.Close() })
	return s, "ws" + strings.TrimPrefix(hs.URL, "http") + "/ws", hs.URL
}

func send(t *testing.T, ws *websocket.Conn, frame map[string]any) {
	t.Helper()
	if err := ws.WriteJSON(frame); err != nil {
		t.Fatal(err)
	}
}

// expectType reads frames until one of type typ, failing on any other type
// but those in skip.
func expectType(t *testing.T, ws *websocket.Conn, typ string, skip ...string) map[string]any {
	t.Helper()
	for {
		f := readFrame(t, ws)
		if f["type"] == typ {
			return f
		}
		ok := false
		for _, s := range skip {
			ok = ok || f["type"] == s
		}
		if !ok {
			t.Fatalf("got %v, want a %s frame", f, typ)
		}
	}
}

func TestWebSocketAndSSEThroughTheHub(t *testing.T) {
	log := newMemLog("t")
	log.produce("t", "k", `{"n":0}`)
	s, wsURL, httpURL := newHubTestServer(t, log, Options{})

	live, catching := dial(t, wsURL), dial(t, wsURL)
	authenticate(t, live, "auth", "a")
	authenticate(t, catching, "auth", "b")
	send(t, live, map[string]any{"type": "subscribe", "id": "s", "endpoint": "/t/k"})
	if f := expectType(t, live, "subscribed"); f["seq"] != float64(0) {
		t.Fatalf("subscribed %v, want seq 0 (after the one record)", f)
	}

	// An SSE stream of the same endpoint, from the start.
	req, _ := http.NewRequest("GET", httpURL+"/sse/t/k?from=earliest", nil)
	req.Header.Set("Authorization", "Bearer a")
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("SSE: %v %v", res, err)
	}
	defer res.Body.Close()
	events := bufio.NewScanner(res.Body)

	log.produce("t", "k", `{"n":1}`)
	if f := expectType(t, live, "message"); f["seq"] != float64(1) {
		t.Fatalf("live: %v", f)
	}
	// A catch-up from the earliest offset reads the log, then goes live.
	send(t, catching, map[string]any{"type": "subscribe", "id": "s", "endpoint": "/t/k", "from": "earliest"})
	expectType(t, catching, "subscribed")
	for want := range 2 {
		if f := expectType(t, catching, "message"); f["seq"] != float64(want) {
			t.Fatalf("catch-up: %v, want seq %d", f, want)
		}
	}
	log.produce("t", "k", `{"n":2}`)
	if f := expectType(t, catching, "message"); f["seq"] != float64(2) {
		t.Fatalf("after the catch-up: %v", f)
	}
	for want := 0; want < 3; {
		if !events.Scan() {
			t.Fatalf("SSE ended: %v", events.Err())
		}
		if strings.HasPrefix(events.Text(), "data: ") {
			if !strings.Contains(events.Text(), `"n":`) {
				t.Fatalf("SSE data %q", events.Text())
			}
			want++
		}
	}

	send(t, live, map[string]any{"type": "unsubscribe", "id": "u", "endpoint": "/t/k"})
	expectType(t, live, "unsubscribed", "message")

	// Revoking b's token ends its connection, subscription and all.
	s.TokenRevoked("jti-b")
	if f := expectType(t, catching, "closing", "message"); f["code"] != float64(protocol.CodeTokenRevoked) {
		t.Fatalf("closing %v", f)
	}
}

// A client that stops reading fills its socket, then its queue: under the
// drop policy its backlog becomes a gap, under disconnect it is closed with
// 4029, with hub locks held at the time it overflows.
func TestSlowClientsThroughTheHub(t *testing.T) {
	for _, policy := range []SlowPolicy{PolicyDrop, PolicyDisconnect} {
		t.Run(string(policy), func(t *testing.T) {
			log := newMemLog("t")
			_, wsURL, _ := newHubTestServer(t, log, Options{QueueSize: 8, SlowPolicy: policy})
			ws := dial(t, wsURL)
			authenticate(t, ws, "auth", "a")
			send(t, ws, map[string]any{"type": "subscribe", "id": "s", "endpoint": "/t/k"})
			expectType(t, ws, "subscribed")
			// Enough bytes that neither the client's nor the server's socket
			// buffer holds them while the client does not read.
			value := `{"pad":"` + strings.Repeat("x", 64<<10) + `"}`
			for range 400 {
				log.produce("t", "k", value)
			}
			want := "gap"
			if policy == PolicyDisconnect {
				want = "closing"
			}
			_ = ws.SetReadDeadline(time.Now().Add(30 * time.Second))
			f := expectType(t, ws, want, "message")
			if policy == PolicyDisconnect && f["code"] != float64(protocol.CloseSlowConsumer) {
				t.Fatalf("closing %v", f)
			}
		})
	}
}
