package schemawire

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/registry"
)

// upperCodec "decodes" data by quoting it in upper case: enough to see which
// schema decoded what.
type upperCodec struct{ schema string }

func (c upperCodec) Decode(data []byte) ([]byte, error) {
	if string(data) == "bad" {
		return nil, errors.New("truncated record")
	}
	return []byte(`"` + c.schema + ":" + strings.ToUpper(string(data)) + `"`), nil
}

func compile(_ context.Context, s *registry.Schema) (Codec, error) {
	if s.Text == `"broken"` {
		return nil, errors.New("not a schema")
	}
	return upperCodec{schema: strings.Trim(s.Text, `"`)}, nil
}

// fakeRegistry knows ids 1 (schema "a"), 2 ("b") and 3 (does not compile).
type fakeRegistry struct {
	requests atomic.Int64
	down     atomic.Bool
}

func (f *fakeRegistry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	if f.down.Load() {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	switch r.URL.Path {
	case "/schemas/ids/1":
		_, _ = w.Write([]byte(`{"schema":"\"a\""}`))
	case "/schemas/ids/2":
		_, _ = w.Write([]byte(`{"schema":"\"b\""}`))
	case "/schemas/ids/3":
		_, _ = w.Write([]byte(`{"schema":"\"broken\""}`))
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error_code":40403}`))
	}
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newDecoder(t *testing.T) (*Decoder, *fakeRegistry, *clock) {
	f := &fakeRegistry{}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	d := New(Options{Registry: registry.New(registry.Options{URL: srv.URL}), Compile: compile, CodecCache: 2, now: c.now})
	return d, f, c
}

func wire(id int, data string) []byte { return append(registry.AppendWire(nil, id), data...) }

func TestDecodeWithTheWritersSchema(t *testing.T) {
	d, f, _ := newDecoder(t)
	for _, tc := range []struct {
		value   []byte
		json    string
		problem string
	}{
		{wire(1, "x"), `"a:X"`, ""},
		{wire(2, "y"), `"b:Y"`, ""}, // another version of the schema: its own id
		{wire(1, "z"), `"a:Z"`, ""},
		{[]byte(`{"not":"wire"}`), "", "not in the schema registry's wire format"},
		{wire(1, "bad"), "", "does not decode with schema id 1: truncated record"},
		{wire(9, "x"), "", "schema id 9 is not in the registry"},
		{wire(3, "x"), "", "schema id 3 (AVRO) cannot be used: not a schema"},
	} {
		json, problem := d.Decode(context.Background(), tc.value)
		if string(json) != tc.json || (tc.problem == "") != (problem == "") || !strings.Contains(problem, tc.problem) {
			t.Fatalf("%q: got %s / %q, want %s / %q", tc.value, json, problem, tc.json, tc.problem)
		}
	}
	if n := f.requests.Load(); n != 4 {
		t.Fatalf("%d registry requests, want 4 (ids 1, 2, 9, 3 once each)", n)
	}
}

func TestAnOutageCostsOneRequestPerIDPerSecondAndHeals(t *testing.T) {
	d, f, c := newDecoder(t)
	f.down.Store(true)
	for range 5 {
		if _, problem := d.Decode(context.Background(), wire(1, "x")); !strings.Contains(problem, "could not be fetched") || !strings.Contains(problem, "resume from before") {
			t.Fatalf("during the outage: %q", problem)
		}
	}
	if n := f.requests.Load(); n != 1 {
		t.Fatalf("%d requests during one second of outage, want 1", n)
	}
	f.down.Store(false)
	if _, problem := d.Decode(context.Background(), wire(1, "x")); problem == "" {
		t.Fatal("asked again before a second passed")
	}
	c.t = c.t.Add(time.Second)
	if json, problem := d.Decode(context.Background(), wire(1, "x")); string(json) != `"a:X"` {
		t.Fatalf("after the outage: %s %q", json, problem)
	}
	// Once cached, an outage no longer matters for that schema.
	f.down.Store(true)
	if json, _ := d.Decode(context.Background(), wire(1, "q")); string(json) != `"a:Q"` {
		t.Fatalf("a cached schema during an outage: %s", json)
	}
}

func TestTheCodecCacheIsBounded(t *testing.T) {
	d, _, _ := newDecoder(t)
	for _, id := range []int{1, 2, 1} {
		d.Decode(context.Background(), wire(id, "x"))
	}
	if d.order.Len() != 2 || len(d.codecs) != 2 {
		t.Fatalf("%d codecs kept", d.order.Len())
	}
}

// fakeBackend delivers fixed records from Consume and Read.
type fakeBackend struct {
	hub.Backend
	recs []hub.Record
}

func (b *fakeBackend) Consume(topic string, meta hub.TopicMeta, ev hub.ConsumeEvents) hub.Consumer {
	ev.Deliver(append([]hub.Record(nil), b.recs...))
	return stopper{}
}

func (b *fakeBackend) Read(ctx context.Context, topic, epoch string, partition int32, from, until int64, fn func(hub.Record) bool) error {
	for _, r := range b.recs {
		if !fn(r) {
			break
		}
	}
	return nil
}

type stopper struct{}

func (stopper) Recheck(context.Context) error { return nil }
func (stopper) Stop()                         {}

// topicSet says, per topic, whether its "values", "keys" or "both" are in the
// wire format.
type topicSet map[string]string

func (s topicSet) TopicRegistryUse(topic string) (values, keys bool) {
	return s[topic] == "values" || s[topic] == "both", s[topic] == "keys" || s[topic] == "both"
}

func TestBackendDecodesTheRecordsOfRegistryTopicsOnly(t *testing.T) {
	d, _, _ := newDecoder(t)
	inner := &fakeBackend{recs: []hub.Record{{Offset: 1, Value: wire(1, "x")}, {Offset: 2, Value: []byte("plain")}}}
	b := NewBackend(inner, d, topicSet{"orders": "values"})
	check := func(what string, got []hub.Record, decoded bool) {
		t.Helper()
		if len(got) != 2 {
			t.Fatalf("%s: %d records", what, len(got))
		}
		if decoded {
			if string(got[0].Decoded) != `"a:X"` || got[0].Problem != "" || string(got[0].Value) != string(wire(1, "x")) {
				t.Fatalf("%s: %+v", what, got[0])
			}
			if got[1].Decoded != nil || !strings.Contains(got[1].Problem, "wire format") {
				t.Fatalf("%s: a record not in the wire format: %+v", what, got[1])
			}
			return
		}
		for _, r := range got {
			if r.Decoded != nil || r.Problem != "" {
				t.Fatalf("%s: decoded a record of a topic without registry endpoints: %+v", what, r)
			}
		}
	}
	for _, topic := range []string{"orders", "prices"} {
		var live []hub.Record
		b.Consume(topic, hub.TopicMeta{}, hub.ConsumeEvents{Deliver: func(rs []hub.Record) { live = rs }}).Stop()
		check(topic+" live", live, topic == "orders")
		var read []hub.Record
		if err := b.Read(context.Background(), topic, "e", 0, 0, 10, func(r hub.Record) bool { read = append(read, r); return true }); err != nil {
			t.Fatal(err)
		}
		check(topic+" read", read, topic == "orders")
	}
}

// Keys in the wire format are matched by their text (KeyText): the backend
// puts it in place of the key; a key that does not decode stays as it is.
func TestBackendDecodesTheKeysOfKeyedTopics(t *testing.T) {
	d, _, _ := newDecoder(t)
	recs := []hub.Record{
		{Offset: 1, Key: wire(1, "c1"), Value: wire(2, "v")},
		{Offset: 2, Key: []byte("plain"), Value: wire(2, "w")},
		{Offset: 3, Key: wire(9, "c1"), Value: []byte("x")}, // unknown id
		{Offset: 4, Key: []byte{0, 1}, Value: []byte("y")},  // too short to be in the wire format
	}
	for topic, want := range map[string][]string{
		"carts":  {"a:C1", "plain", string(wire(9, "c1")), "\x00\x01"},
		"orders": {"a:C1", "plain", string(wire(9, "c1")), "\x00\x01"},
		"prices": {string(wire(1, "c1")), "plain", string(wire(9, "c1")), "\x00\x01"},
	} {
		b := NewBackend(&fakeBackend{recs: recs}, d, topicSet{"carts": "keys", "orders": "both"})
		var live []hub.Record
		b.Consume(topic, hub.TopicMeta{}, hub.ConsumeEvents{Deliver: func(rs []hub.Record) { live = rs }}).Stop()
		var read []hub.Record
		if err := b.Read(context.Background(), topic, "e", 0, 0, 10, func(r hub.Record) bool { read = append(read, r); return true }); err != nil {
			t.Fatal(err)
		}
		for _, got := range [][]hub.Record{live, read} {
			for i, r := range got {
				if string(r.Key) != want[i] {
					t.Fatalf("%s record %d: key %q, want %q", topic, i, r.Key, want[i])
				}
				if decoded := r.Decoded != nil || r.Problem != ""; decoded != (topic == "orders") {
					t.Fatalf("%s record %d: value decoded %v", topic, i, decoded)
				}
			}
		}
	}
}

func TestKeyText(t *testing.T) {
	for in, want := range map[string]string{
		`"c1"`:                    "c1",
		`"a/b \u00e9"`:            "a/b é",
		`42`:                      "42",
		`{"shop": "eu", "id": 7}`: `{"shop":"eu","id":7}`,
		`""`:                      "",
	} {
		got, ok := KeyText([]byte(in))
		if string(got) != want || ok != (want != "") {
			t.Errorf("%s: %q %v, want %q", in, got, ok, want)
		}
	}
}
