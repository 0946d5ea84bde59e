package metrics

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// Deliveries counts the message frames written to clients, their bytes and
// their delay (record timestamp → written), in stripes: every delivered
// message is counted, from both routing workers at once, and one shared set of
// counters (a prometheus Counter and Histogram) made the two cores fight over
// the same cache lines six atomic additions per message. A writer counts on the
// stripe its frames were built on (hub.Frame.Stripe: the routing worker), so
// each core mostly writes lines of its own; a scrape sums the stripes.
type Deliveries struct {
	stripes [DeliveryStripes]deliveryStripe

	messages, bytes, delay *prometheus.Desc
}

// DeliveryStripes is how many stripes Deliveries has; a stripe index is taken
// modulo it.
const DeliveryStripes = 8

// DelayBuckets are the delay histogram's upper bounds, in seconds.
var DelayBuckets = [...]float64{.0005, .001, .002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10}

// delayBoundsMs are DelayBuckets in the unit delays are counted in.
var delayBoundsMs = func() (ms [len(DelayBuckets)]float64) {
	for i, b := range DelayBuckets {
		ms[i] = b * 1000
	}
	return ms
}()

type deliveryStripe struct {
	messages, bytes atomic.Uint64
	// delays[i] counts delays within DelayBuckets[i] (and above the one
	// before); the last counts those above every bucket.
	delays  [len(DelayBuckets) + 1]atomic.Uint64
	delayMs atomic.Int64 // sum
	_       [64]byte     // the next stripe starts on a cache line of its own
}

func newDeliveries() *Deliveries {
	return &Deliveries{
		messages: prometheus.NewDesc("sluice_gateway_messages_out_total", "Message frames written to clients.", nil, nil),
		bytes:    prometheus.NewDesc("sluice_gateway_bytes_out_total", "Bytes of frames written to clients.", nil, nil),
		delay:    prometheus.NewDesc("sluice_gateway_delivery_delay_seconds", "From the Kafka record timestamp to the frame written to the client.", nil, nil),
	}
}

// Written counts one written batch's message frames and bytes on stripe.
func (d *Deliveries) Written(stripe int, messages, bytes int) {
	s := &d.stripes[uint(stripe)%DeliveryStripes]
	if messages > 0 {
		s.messages.Add(uint64(messages))
	}
	if bytes > 0 {
		s.bytes.Add(uint64(bytes))
	}
}

// Delayed counts one message written delayMs after its record's timestamp.
func (d *Deliveries) Delayed(stripe int, delayMs int64) {
	s := &d.stripes[uint(stripe)%DeliveryStripes]
	i := 0
	for i < len(delayBoundsMs) && float64(delayMs) > delayBoundsMs[i] {
		i++
	}
	s.delays[i].Add(1)
	s.delayMs.Add(delayMs)
}

// Describe implements prometheus.Collector.
func (d *Deliveries) Describe(ch chan<- *prometheus.Desc) {
	ch <- d.messages
	ch <- d.bytes
	ch <- d.delay
}

// Collect implements prometheus.Collector: the sums of the stripes.
func (d *Deliveries) Collect(ch chan<- prometheus.Metric) {
	var messages, bytes, count uint64
	var delayMs int64
	var perBucket [len(DelayBuckets) + 1]uint64
	for i := range d.stripes {
		s := &d.stripes[i]
		messages += s.messages.Load()
		bytes += s.bytes.Load()
		delayMs += s.delayMs.Load()
		for b := range s.delays {
			perBucket[b] += s.delays[b].Load()
		}
	}
	cumulative := make(map[float64]uint64, len(DelayBuckets))
	for b, upper := range DelayBuckets {
		count += perBucket[b]
		cumulative[upper] = count
	}
	count += perBucket[len(DelayBuckets)]
	ch <- prometheus.MustNewConstMetric(d.messages, prometheus.CounterValue, float64(messages))
	ch <- prometheus.MustNewConstMetric(d.bytes, prometheus.CounterValue, float64(bytes))
	ch <- prometheus.MustNewConstHistogram(d.delay, count, float64(delayMs)/1000, cumulative)
}
