package metrics

import (
	"testing"

	dto "github.com/prometheus/client_model/go"
)

// The stripes' sums are what a scrape shows, with the names, buckets and units
// the single counters and histogram had (dashboards and bench/fanout read them).
func TestDeliveriesSumsStripes(t *testing.T) {
	m := New()
	d := m.Deliveries
	d.Written(0, 2, 1000)
	d.Written(3, 1, 500)
	d.Written(DeliveryStripes+1, 0, 40) // bytes of other frames; the index wraps
	for stripe, ms := range []int64{0, 1, 2, 3, 7, 20000} {
		d.Delayed(stripe, ms)
	}

	families, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*dto.MetricFamily{}
	for _, f := range families {
		got[f.GetName()] = f
	}
	if v := got["sluice_gateway_messages_out_total"].GetMetric()[0].GetCounter().GetValue(); v != 3 {
		t.Errorf("messages: %v, want 3", v)
	}
	if v := got["sluice_gateway_bytes_out_total"].GetMetric()[0].GetCounter().GetValue(); v != 1540 {
		t.Errorf("bytes: %v, want 1540", v)
	}
	h := got["sluice_gateway_delivery_delay_seconds"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 6 || h.GetSampleSum() != 20.013 {
		t.Errorf("delay count %d sum %v, want 6 and 20.013", h.GetSampleCount(), h.GetSampleSum())
	}
	// Upper bounds are inclusive: 1 ms is within the 0.001 bucket.
	want := map[float64]uint64{.0005: 1, .001: 2, .002: 3, .005: 4, .01: 5, 2.5: 5, 10: 5}
	for _, b := range h.GetBucket() {
		if w, ok := want[b.GetUpperBound()]; ok && b.GetCumulativeCount() != w {
			t.Errorf("bucket le=%v: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), w)
		}
	}
	if len(h.GetBucket()) != len(DelayBuckets) {
		t.Errorf("%d buckets, want %d", len(h.GetBucket()), len(DelayBuckets))
	}
}
