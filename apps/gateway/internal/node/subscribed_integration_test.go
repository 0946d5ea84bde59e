//go:build integration

package node

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A client that subscribes from "latest", receives nothing and reconnects
// resumes from the position "subscribed" gave it: the messages produced while it
// was away arrive, exactly those, with no duplicate. Once on a partition with no
// record yet (seq -1, before offset 0), once on one that has records.
func TestResumeFromSubscribedPositionLosesNothing(t *testing.T) {
	f := newFixture(t)
	perms := map[string][]string{"sub": {"/" + f.topic + "/*"}}
	for _, tc := range []struct {
		name, key string
		before    int // records of the key produced before subscribing
	}{
		{"empty partition", "EMPTY", 0},
		{"partition with records", "BUSY", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ep := "/" + f.topic + "/" + tc.key
			var p int32
			var last int64 = -1
			if tc.before > 0 {
				// "latest" starts at the node's live consumer, which may not have
				// fetched a record Kafka already has: a watcher makes sure it has.
				w, _ := f.authed(perms)
				w.send(`{"type":"subscribe","endpoint":"` + ep + `"}`)
				w.next("subscribed")
				for i := 0; i < tc.before; i++ {
					p, last = f.produce(tc.key, fmt.Sprintf(`{"price":%d}`, 100+i))
				}
				for i := 0; i < tc.before; i++ {
					w.next("message")
				}
			}
			c, _ := f.authed(perms)
			c.send(`{"type":"subscribe","id":"s","endpoint":"` + ep + `"}`)
			ack := c.next("subscribed")
			seq, ok := ack["seq"].(float64)
			if !ok || ack["id"] != "s" || ack["epoch"] == "" {
				t.Fatalf("subscribed = %v", ack)
			}
			if tc.before == 0 && seq != -1 {
				t.Fatalf("subscribed.seq = %v on a partition without records, want -1", seq)
			}
			if tc.before > 0 && (int32(ack["partition"].(float64)) != p || int64(seq) != last) {
				t.Fatalf("subscribed = %v, want partition %d and seq %d (the last record before it)", ack, p, last)
			}
			c.ws.Close()

			for i := 1; i <= 3; i++ {
				f.produce(tc.key, fmt.Sprintf(`{"price":%d}`, i))
			}
			c2, _ := f.authed(perms)
			c2.send(fmt.Sprintf(`{"type":"subscribe","id":"r","endpoint":"%s","from":{"epoch":"%s","partition":%v,"seq":%v}}`, ep, ack["epoch"], ack["partition"], ack["seq"]))
			again := c2.next("subscribed")
			if again["seq"] != ack["seq"] || again["epoch"] != ack["epoch"] {
				t.Fatalf("resumed subscribed = %v, want the position resumed from %v", again, ack)
			}
			for want := 1; want <= 3; want++ {
				m := c2.next("message")
				if got := m["data"].(map[string]any)["price"]; got != float64(want) {
					t.Fatalf("message %d has price %v", want, got)
				}
			}
			// Nothing more: no record from before the subscription, no duplicate.
			_ = c2.ws.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
			if _, data, err := c2.ws.ReadMessage(); err == nil {
				t.Fatalf("unexpected extra frame %s", data)
			}
		})
	}
}

// SSE: the stream opens with the start position as an event id, and a
// reconnect that sends it back as Last-Event-ID gets what was produced meanwhile.
func TestSSEResumeFromSubscribedID(t *testing.T) {
	f := newFixture(t)
	tok := f.token(map[string][]string{"sub": {"/" + f.topic + "/*"}}, time.Hour, "jti-sse-start")
	c, br := f.openSSE("/sse/"+f.topic+"/S", tok, "")
	var lines []string
	for len(lines) < 2 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if l := strings.TrimRight(line, "\r\n"); l != "" && !isChunkSize(l) {
			lines = append(lines, l)
		}
	}
	kill(c)
	if lines[0] != ": subscribed /"+f.topic+"/S" || !strings.HasPrefix(lines[1], "id: ") || !strings.HasSuffix(lines[1], ":-1") {
		t.Fatalf("opening lines %q, want the subscribed comment then id: <epoch>:<partition>:-1", lines[:2])
	}
	id := strings.TrimPrefix(lines[1], "id: ")

	// The second record is pretty-printed JSON: its line breaks must not cut
	// the event's data short.
	for _, v := range []string{`{"price":1}`, "{\r\n  \"price\": 2\n}", `{"price":3}`} {
		f.produce("S", v)
	}
	req, _ := http.NewRequest("GET", f.base+"/sse/"+f.topic+"/S?access_token="+tok, nil)
	req.Header.Set("Last-Event-ID", id)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("resume: %v %v", err, res)
	}
	defer res.Body.Close()
	// Events as EventSource reads them: data lines joined with "\n".
	var data []string
	buf := make([]byte, 4096)
	var text string
	deadline := time.Now().Add(10 * time.Second)
	for len(data) < 3 && time.Now().Before(deadline) {
		n, err := res.Body.Read(buf)
		text += string(buf[:n])
		data = data[:0]
		for _, block := range strings.Split(text, "\n\n") {
			var lines []string
			for _, l := range strings.Split(block, "\n") {
				if d, ok := strings.CutPrefix(l, "data: "); ok {
					lines = append(lines, d)
				}
			}
			if lines != nil {
				data = append(data, strings.Join(lines, "\n"))
			}
		}
		if err != nil {
			break
		}
	}
	if len(data) < 3 {
		t.Fatalf("resumed stream %q, want three messages", text)
	}
	for i, d := range data[:3] {
		var m struct{ Data struct{ Price int } }
		if err := json.Unmarshal([]byte(d), &m); err != nil || m.Data.Price != i+1 {
			t.Fatalf("event %d data %q: %v", i+1, d, err)
		}
	}
	// The resumed stream opens with the position it resumed from.
	if !strings.HasPrefix(text, ": subscribed /"+f.topic+"/S\nid: "+id+"\n\n") {
		t.Fatalf("resumed stream opens with %q", text[:min(len(text), 80)])
	}
}

// isChunkSize says whether a line of a raw HTTP/1.1 body is a chunk header.
func isChunkSize(l string) bool {
	for _, r := range l {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}
