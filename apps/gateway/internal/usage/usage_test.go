package usage

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// writes collects what the reporter writes; fail makes the next writes fail.
type writes struct {
	got  []Record
	fail bool
}

func (w *writes) write(_ context.Context, key, value []byte) error {
	if w.fail {
		return errors.New("kafka: not now")
	}
	var r Record
	if err := json.Unmarshal(value, &r); err != nil || string(key) != r.Node {
		return errors.New("bad record")
	}
	w.got = append(w.got, r)
	return nil
}

func TestRecordsCarryTheIntervalsCountersAndTheGauges(t *testing.T) {
	m := NewMeter()
	clock := &fakeClock{t: time.UnixMilli(1_795_000_000_000)}
	w := &writes{}
	gauges := Gauges{Connections: 3, Apps: map[string]AppGauges{
		"a1": {Connections: 2, Subscriptions: map[EndpointRef]int{{"e1", "/prices/{s}"}: 2, {"e2", "/orders/eu"}: 1}},
		"a2": {Connections: 1},
	}}
	r := NewReporter(Options{Node: "gw-1", Version: "test", Interval: 5 * time.Second, Meter: m, Write: w.write,
		Gauges: func() Gauges { return gauges }, CatalogOffsetLag: func() int64 { return 4 }, now: clock.now})
	a1 := m.App("a1")
	a1.Endpoint("e1", "/prices/{s}").Delivered(0, 10, 1000)
	a1.Endpoint("e1", "/prices/{s}").Delivered(7, 5, 500)
	a1.Endpoint("e3", "/news/{n}").Published(40)
	a1.Endpoint("e3", "/news/{n}").Refused(RefusedPublish, 1)
	a1.Error()
	m.App("a3").RefusedConnection()
	clock.t = clock.t.Add(5 * time.Second)
	r.Report(context.Background(), false)

	if len(w.got) != 1 {
		t.Fatalf("%d records", len(w.got))
	}
	rec := w.got[0]
	if rec.Node != "gw-1" || rec.IntervalStart != 1_795_000_000_000 || rec.IntervalEnd != 1_795_000_005_000 || rec.Connections != 3 || rec.CatalogOffsetLag != 4 || rec.Final {
		t.Fatalf("record header: %+v", rec)
	}
	want := []AppRecord{
		{App: "a1", Connections: 2, Errors: 1, Endpoints: []EndpointRecord{
			{Endpoint: "e1", Path: "/prices/{s}", Subscriptions: 2, Delivered: 15, DeliveredBytes: 1500},
			{Endpoint: "e2", Path: "/orders/eu", Subscriptions: 1},
			{Endpoint: "e3", Path: "/news/{n}", Published: 1, PublishedBytes: 40, Refused: EndpointRefused{Publish: 1}},
		}},
		{App: "a2", Connections: 1},
		{App: "a3", Refused: AppRefused{Connections: 1}},
	}
	if got, _ := json.Marshal(rec.Apps); string(got) != mustJSON(want) {
		t.Fatalf("apps:\n%s\nwant\n%s", got, mustJSON(want))
	}

	// An app subscribed to nothing (a2, a3) has no endpoints member at all: null
	// there made the bridge refuse the whole record.
	if raw, _ := json.Marshal(rec); strings.Contains(string(raw), "null") {
		t.Fatalf("the record carries a null: %s", raw)
	}

	// The next interval: counters start again from zero; idle apps are left out.
	gauges = Gauges{}
	clock.t = clock.t.Add(5 * time.Second)
	r.Report(context.Background(), true)
	if rec := w.got[1]; len(rec.Apps) != 0 || rec.IntervalStart != 1_795_000_005_000 || !rec.Final {
		t.Fatalf("second record: %+v", rec)
	}
}

// A record Kafka does not take is kept as it was and written before the next
// one: intervals stay contiguous and each is written whole, once or (when an
// attempt that failed had landed after all) as identical copies.
func TestARecordThatCannotBeWrittenIsKeptAsItWas(t *testing.T) {
	m := NewMeter()
	clock := &fakeClock{t: time.UnixMilli(1_795_000_000_000)}
	w := &writes{fail: true}
	r := NewReporter(Options{Node: "gw-1", Interval: 5 * time.Second, Meter: m, Write: w.write, now: clock.now})
	e := m.App("a1").Endpoint("e1", "/p/{k}")
	e.Delivered(0, 7, 70)
	clock.t = clock.t.Add(5 * time.Second)
	r.Report(context.Background(), false)
	e.Delivered(deliveryStripes+1, 1, 10) // another stripe; the index wraps
	clock.t = clock.t.Add(5 * time.Second)
	r.Report(context.Background(), false)
	if len(w.got) != 0 || len(r.pending) != 2 {
		t.Fatalf("while failing: %d written, %d pending", len(w.got), len(r.pending))
	}
	w.fail = false
	clock.t = clock.t.Add(5 * time.Second)
	r.Report(context.Background(), false)
	if len(w.got) != 3 || len(r.pending) != 0 {
		t.Fatalf("after: %d written, %d pending", len(w.got), len(r.pending))
	}
	for i, want := range []int64{7, 1, 0} {
		rec := w.got[i]
		var got int64
		for _, a := range rec.Apps {
			for _, ep := range a.Endpoints {
				got += ep.Delivered
			}
		}
		if got != want || rec.IntervalStart != 1_795_000_000_000+int64(i)*5000 || rec.IntervalEnd != rec.IntervalStart+5000 {
			t.Fatalf("record %d: delivered %d (want %d), interval %d-%d", i, got, want, rec.IntervalStart, rec.IntervalEnd)
		}
	}
}

func TestANilMeterCountsNothing(t *testing.T) {
	var m *Meter
	a := m.App("a")
	a.Error()
	a.RefusedConnection()
	e := a.Endpoint("e", "/p")
	e.Delivered(3, 1, 1)
	e.Published(1)
	e.Error()
	e.Refused(RefusedDelivered, 1)
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// A path the catalog no longer serves has no endpoint id: its usage is left
// out (the aggregator keys usage by endpoint), the rest of the app's is not.
func TestUsageOfAPathNoLongerServedIsLeftOut(t *testing.T) {
	m := NewMeter()
	w := &writes{}
	gauges := Gauges{Connections: 1, Apps: map[string]AppGauges{"a": {Connections: 1, Subscriptions: map[EndpointRef]int{{"", "/gone/k"}: 1, {"e1", "/p/{k}"}: 1}}}}
	r := NewReporter(Options{Node: "n", Interval: time.Second, Meter: m, Write: w.write, Gauges: func() Gauges { return gauges }})
	m.App("a").Endpoint("", "/gone/k").Delivered(0, 3, 30)
	m.App("a").Endpoint("e1", "/p/{k}").Delivered(0, 2, 20)
	r.Report(context.Background(), false)
	want := `[{"app":"a","connections":1,"errors":0,"refused":{"connections":0},"endpoints":[{"endpoint":"e1","path":"/p/{k}","subscriptions":1,"delivered":2,"delivered_bytes":20,"published":0,"published_bytes":0,"errors":0,"refused":{"subscriptions":0,"publish":0,"delivered":0}}]}]`
	if got, _ := json.Marshal(w.got[0].Apps); string(got) != want {
		t.Fatalf("apps %s", got)
	}
}
