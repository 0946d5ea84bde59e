package main

import (
	"fmt"
	"math/rand"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestCanonicalJSONIgnoresKeyOrderAndSpacing(t *testing.T) {
	a := canonicalJSON([]byte(`{"v":1,"json_schema":{"title":"change 3"},"id":"x"}`))
	b := canonicalJSON([]byte(`{ "id": "x", "json_schema": {"title": "change 3"}, "v": 1 }`))
	if a != b {
		t.Fatalf("%s != %s", a, b)
	}
	if canonicalJSON(nil) != "" || canonicalJSON([]byte("null")) != "" {
		t.Fatal("a tombstone or a JSON null must be the empty value")
	}
}

func TestChangeOfReadsTheSchemaTitle(t *testing.T) {
	if n := changeOf(`{"v":1,"json_schema":{"title":"change 42"}}`); n != 42 {
		t.Fatalf("changeOf = %d, want 42", n)
	}
	for _, v := range []string{`{"v":1,"json_schema":null}`, `{"v":1}`, `not json`} {
		if n := changeOf(v); n != 0 {
			t.Fatalf("changeOf(%s) = %d, want 0", v, n)
		}
	}
}

func TestBridgeLogTimeFindsTheFirstLineAfter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bridge.log")
	log := "2026-11-28T05:33:21.794Z bridge listening\n" +
		"2026-11-28T05:33:22.043Z holding the publisher lock for t\n" +
		"2026-11-28T05:33:37.994Z holding the publisher lock for t\n" +
		"not a log line holding the publisher lock\n"
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	from, _ := time.Parse(time.RFC3339, "2026-11-28T05:33:30Z")
	got := bridgeLogTime(path, "holding the publisher lock", from)
	if want, _ := time.Parse(time.RFC3339Nano, "2026-11-28T05:33:37.994Z"); !got.Equal(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if !bridgeLogTime(path, " is in sync ", from).IsZero() {
		t.Fatal("a line that is not there must give the zero time")
	}
}

// fakePostgres answers every startup message with one byte: 'R' (an
// authentication request: ready) or 'E' (an error: starting up).
func fakePostgres(t *testing.T, answer byte) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 512)
			_, _ = c.Read(buf)
			_, _ = c.Write([]byte{answer})
			time.Sleep(10 * time.Millisecond)
			c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

func TestPostgresReadyOnlyOnAnAuthenticationAnswer(t *testing.T) {
	if !postgresReady(fakePostgres(t, 'R')) {
		t.Fatal("an authentication request means the server takes sessions")
	}
	if postgresReady(fakePostgres(t, 'E')) {
		t.Fatal("an error (the database system is starting up) is not ready")
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	if postgresReady(port) {
		t.Fatal("a closed port is not ready")
	}
}

func TestNeedsStack(t *testing.T) {
	if needsStack([]string{"leader-kill", "gateway-kill"}) || !needsStack([]string{"leader-kill", "postgres-restart"}) || !needsStack([]string{"bridge-kill"}) {
		t.Fatal("only bridge-kill and postgres-restart need the catalog stack")
	}
}

// scriptedPortal answers the catalog writer's requests in turn with answers.
func scriptedPortal(t *testing.T, answers ...func(w http.ResponseWriter)) *catalogStack {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		i := int(n.Add(1)) - 1
		if i >= len(answers) {
			t.Errorf("request %d beyond the script", i+1)
			w.WriteHeader(500)
			return
		}
		answers[i](w)
	}))
	t.Cleanup(srv.Close)
	st := &stackSettings{rate: 1, inflight: 2, apiTimeout: 2 * time.Second}
	return &catalogStack{st: st, portalURL: srv.URL, apiID: "api", catTopic: "cat", client: &http.Client{Timeout: st.apiTimeout}}
}

func problem(status int, code, detail string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, `{"type":"urn:sluice:problem:%s","title":"t","status":%d,"detail":%q}`, code, status, detail)
	}
}

func TestCatalogWriterSortsAnswers(t *testing.T) {
	created := func(w http.ResponseWriter) { w.WriteHeader(201); _, _ = w.Write([]byte(`{"id":"e1"}`)) }
	k := scriptedPortal(t,
		created,
		problem(503, "unavailable", "The database is unavailable (restarting or unreachable); try again in a few seconds. Nothing was changed."),
		problem(503, "unavailable", "The database is unavailable; … it may or may not have been saved: check before repeating it."),
		problem(500, "internal", "Something went wrong on our side; nothing was changed."),
		problem(422, "validation_failed", "path: already taken"),
	)
	w := newCatalogWriter(k, nil)
	w.rng = rand.New(rand.NewSource(1))
	for range 5 {
		c := &catalogChange{idx: len(w.changes) + 1, op: "create", want: stSub, served: make([]time.Time, 1)}
		c.ep = &catEndpoint{path: fmt.Sprintf("/cat/e%d", c.idx), state: stAbsent, busy: true}
		w.changes, w.eps = append(w.changes, c), append(w.eps, c.ep)
		w.send(c)
	}
	ep := func(i int) *catEndpoint { return w.eps[i] }
	if !w.changes[0].acked() || ep(0).id != "e1" || ep(0).state != stSub || !ep(0).busy {
		t.Fatalf("a 201 is acknowledged, keeps its id and stays busy until served: %+v", ep(0))
	}
	if w.changes[1].acked() || ep(1).uncertain || ep(1).busy {
		t.Fatalf("a 503 that says nothing changed is a clear refusal: %+v", ep(1))
	}
	if !ep(2).uncertain || !ep(3).uncertain {
		t.Fatal("a 503 that cannot say, and a 500, leave the endpoint uncertain")
	}
	if ep(4).uncertain || ep(4).busy {
		t.Fatal("a 4xx is a clear refusal")
	}
	if r := w.changes[1].res; r.status != 503 || !strings.HasPrefix(r.problem, "unavailable: ") {
		t.Fatalf("the problem is kept as type: detail, got %d %q", r.status, r.problem)
	}
	// Served on every node (one here): free for its next change.
	w.markServed(0, w.changes[0], time.Now())
	if ep(0).busy {
		t.Fatal("a change served on every node frees its endpoint")
	}
}

func TestCatalogWriterSkipsTicksWhileThePortalHangs(t *testing.T) {
	release := make(chan struct{})
	hang := func(w http.ResponseWriter) { <-release; w.WriteHeader(201); _, _ = w.Write([]byte(`{"id":"x"}`)) }
	k := scriptedPortal(t, hang, hang)
	w := newCatalogWriter(k, nil)
	for range 4 {
		w.next()
	}
	time.Sleep(100 * time.Millisecond)
	if len(w.changes) != 2 || w.skipped != 2 {
		t.Fatalf("with -catalog-inflight 2: %d sent, %d skipped; want 2 and 2", len(w.changes), w.skipped)
	}
	close(release)
	w.reqs.Wait()
}
