package main

import (
	"net"
	"os"
	"path/filepath"
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
