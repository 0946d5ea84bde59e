//go:build integration

package node

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluicehq/sluice/apps/gateway/internal/config"
)

// openSSE sends an SSE request on a raw connection (so the test can drop it
// like a killed curl) and returns once the status line and headers arrived.
func (f *fixture) openSSE(path, tok string, header string) (net.Conn, *bufio.Reader) {
	f.t.Helper()
	u, _ := url.Parse(f.base)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		f.t.Fatal(err)
	}
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nAccept: text/event-stream\r\n%s\r\n", path, u.Host, tok, header)
	// A guard against a hang (the gateway's own subscribe limit is 10 s).
	_ = conn.SetReadDeadline(time.Now().Add(15 * time.Second))
	br := bufio.NewReader(conn)
	status, err := br.ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		f.t.Fatalf("GET %s: no response headers: %q %v", path, status, err)
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			f.t.Fatal(err)
		}
		if line == "\r\n" {
			return conn, br
		}
	}
}

// kill drops a connection the way a killed process does: RST, no goodbye.
func kill(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}

// metric reads one unlabelled sample from /metrics.
func (f *fixture) metric(name string) float64 {
	f.t.Helper()
	res, err := f.httpc.Get(f.base + "/metrics")
	if err != nil {
		f.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			n, _ := strconv.ParseFloat(v, 64)
			return n
		}
	}
	f.t.Fatalf("metric %s not found", name)
	return 0
}

func (f *fixture) waitMetric(name string, want float64) {
	f.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for f.metric(name) != want {
		if time.Now().After(deadline) {
			f.t.Fatalf("%s = %v, want %v", name, f.metric(name), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Clients that vanish mid-stream — live, catching up from the earliest offset,
// from a time, resuming by Last-Event-ID — leave nothing behind that stops the
// next subscriber, on SSE or WebSocket, on the same or another endpoint.
func TestKilledSSEClientsDoNotBlockNewSubscribers(t *testing.T) {
	f := newFixture(t)
	tok := f.token(map[string][]string{"all": {"/" + f.topic + "/*"}}, time.Hour, "jti-kill")
	f.produceMany("A", 300) // so that catch-ups are still reading when their client goes
	// The id of the first event, to resume from.
	c, br := f.openSSE("/sse/"+f.topic+"/A?from=earliest", tok, "")
	var firstID string
	for firstID == "" {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if id, ok := strings.CutPrefix(strings.TrimSpace(line), "id: "); ok {
			firstID = id
		}
	}
	kill(c)

	starts := []struct{ query, header string }{
		{"", ""},
		{"?from=earliest", ""},
		{"?from=0", ""},
		{"", "Last-Event-ID: " + firstID + "\r\n"},
	}
	for round := 0; round < 5; round++ {
		var conns []net.Conn
		for _, s := range starts {
			c, br := f.openSSE("/sse/"+f.topic+"/A"+s.query, tok, s.header)
			conns = append(conns, c)
			if round%2 == 1 && (s.query != "" || s.header != "") {
				// A catch-up: go mid-stream rather than right after the headers.
				if _, err := br.ReadString('\n'); err != nil {
					t.Fatal(err)
				}
			}
		}
		f.produce("A", `{"price":1}`)
		for _, c := range conns {
			kill(c)
		}
		// The next subscriber, on this endpoint and on another, gets its headers.
		for _, key := range []string{"A", "B" + strconv.Itoa(round)} {
			c, _ := f.openSSE("/sse/"+f.topic+"/"+key, tok, "")
			kill(c)
		}
	}
	f.waitMetric(`sluice_gateway_subscriptions`, 0)

	// WebSocket: a client that disconnects while its catch-up is in flight.
	perms := map[string][]string{"sub": {"/" + f.topic + "/*"}}
	for i := 0; i < 3; i++ {
		ws, _ := f.authed(perms)
		ws.send(`{"type":"subscribe","id":"s","endpoint":"/` + f.topic + `/A","from":"earliest"}`)
		ws.ws.Close()
	}
	ws, _ := f.authed(perms)
	ws.send(`{"type":"subscribe","id":"s","endpoint":"/` + f.topic + `/C"}`)
	ws.next("subscribed")
	ws.ws.Close()
	f.waitMetric(`sluice_gateway_subscriptions`, 0)
	c, _ = f.openSSE("/sse/"+f.topic+"/A", tok, "")
	kill(c)
	f.waitMetric(`sluice_gateway_connections{transport="sse"}`, 0)
}

func (f *fixture) produceMany(key string, n int, pad ...int) {
	f.t.Helper()
	filler := ""
	if len(pad) > 0 {
		filler = strings.Repeat("x", pad[0])
	}
	records := make([]*kgo.Record, n)
	for i := range records {
		records[i] = &kgo.Record{Topic: f.topic, Key: []byte(key), Value: []byte(fmt.Sprintf(`{"price":%d,"pad":"%s"}`, i, filler))}
	}
	if err := f.kc.ProduceSync(context.Background(), records...).FirstErr(); err != nil {
		f.t.Fatal(err)
	}
}

// Under the disconnect policy an SSE client whose queue overflows (here: a
// catch-up larger than the queue) gets a closing event 4029 and the stream
// ends; the gateway goes on serving. (The SSE stream used to recurse between
// its push and terminate until the stack overflowed, killing the process.)
func TestSSESlowConsumerUnderDisconnectPolicy(t *testing.T) {
	f := newFixture(t, func(c *config.Config) {
		c.SlowPolicy = "disconnect"
		c.QueueSize = 8
	})
	tok := f.token(map[string][]string{"all": {"/" + f.topic + "/*"}}, time.Hour, "jti-slow")
	// More than the socket buffers hold: the stream's writer blocks while the
	// client does not read, and the catch-up overflows the queue behind it.
	f.produceMany("A", 640, 16<<10)
	c, br := f.openSSE("/sse/"+f.topic+"/A?from=earliest", tok, "")
	defer kill(c)
	f.waitMetric("sluice_gateway_slow_disconnects_total", 1)
	closing := ""
	for closing == "" {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended without a closing event: %v", err)
		}
		if line == "event: closing\n" {
			if closing, err = br.ReadString('\n'); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !strings.Contains(closing, `"code":4029`) {
		t.Fatalf("closing = %s", closing)
	}
	c2, _ := f.openSSE("/sse/"+f.topic+"/B", tok, "")
	kill(c2)
	f.waitMetric(`sluice_gateway_connections{transport="sse"}`, 0)
}
