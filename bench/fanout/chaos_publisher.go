package main

import (
	"context"
	"log"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// loadPublisher is the steady load of a fault run: every key once per period,
// each message's per-key counter "n" recorded in a ledger as acknowledged or
// failed. The Kafka producer below is one; a publisher through the gateway
// (WebSocket or HTTP publishes, checking each acknowledgement) fits the same
// interface.
type loadPublisher interface {
	// run publishes until stop is closed, then waits for the outstanding
	// acknowledgements.
	run(stop <-chan struct{})
	ledger() *ackLedger
	describe() string
}

// ackLedger is what the load publisher knows of every message: the last n sent
// per key, which n were acknowledged, and when sends failed.
type ackLedger struct {
	lastSent []int64 // per key; written by the publishing goroutine, read after run
	sent     atomic.Int64

	mu        sync.Mutex
	acked     [][]uint64 // per key, bit n: acknowledged
	nAcked    int64
	failTimes []int64  // unix ns of each failed send
	failShown []string // the first few errors, for the report
}

func newAckLedger(keys int) *ackLedger {
	return &ackLedger{lastSent: make([]int64, keys), acked: make([][]uint64, keys)}
}

func (l *ackLedger) ack(k int, n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := int(n / 64)
	for len(l.acked[k]) <= w {
		l.acked[k] = append(l.acked[k], 0)
	}
	l.acked[k][w] |= 1 << (n % 64)
	l.nAcked++
}

func (l *ackLedger) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failTimes = append(l.failTimes, time.Now().UnixNano())
	if len(l.failShown) < 5 {
		l.failShown = append(l.failShown, err.Error())
	}
}

// isAcked reports whether message n of key k was acknowledged (read after run).
func (l *ackLedger) isAcked(k int, n int64) bool {
	w := int(n / 64)
	return n >= 0 && w < len(l.acked[k]) && l.acked[k][w]&(1<<(n%64)) != 0
}

// failuresIn counts the failed sends in [from, to).
func (l *ackLedger) failuresIn(from, to int64) int {
	c := 0
	for _, t := range l.failTimes {
		if t >= from && t < to {
			c++
		}
	}
	return c
}

// kafkaPublisher produces straight to Kafka like a well-configured application:
// acks=all, idempotent (retries write no duplicates), and a delivery timeout of
// 2 minutes (the Java client's default delivery.timeout.ms), so a record is
// retried through a one-minute outage and fails only after that. Its buffer
// holds more than two minutes of the load, so the schedule never blocks on it.
type kafkaPublisher struct {
	kc     *kgo.Client
	topic  string
	pad    string
	period time.Duration
	led    *ackLedger
}

func newKafkaPublisher(brokers, topic string, keys, payload int, period time.Duration) *kafkaPublisher {
	perSec := max(int(float64(keys)/period.Seconds()), 1)
	kc, err := newKafkaClient(brokers,
		kgo.RequiredAcks(kgo.AllISRAcks()), kgo.ProducerLinger(0),
		kgo.RecordDeliveryTimeout(2*time.Minute), kgo.MaxBufferedRecords(perSec*150+1000))
	must(err)
	return &kafkaPublisher{kc: kc, topic: topic, pad: strings.Repeat("x", max(payload-80, 0)), period: period, led: newAckLedger(keys)}
}

func (p *kafkaPublisher) describe() string {
	return "Kafka producer (franz-go, acks=all, idempotent, delivery timeout 2m)"
}

func (p *kafkaPublisher) ledger() *ackLedger { return p.led }

func (p *kafkaPublisher) run(stop <-chan struct{}) {
	everyKey(len(p.led.lastSent), p.period, stop, func(k int) {
		p.led.lastSent[k]++
		n := p.led.lastSent[k]
		v := jsonEncoding.message(k, n, time.Now().UnixNano(), p.pad)
		p.kc.Produce(context.Background(), &kgo.Record{Topic: p.topic, Key: []byte("k" + strconv.Itoa(k)), Value: v}, func(_ *kgo.Record, err error) {
			if err != nil {
				p.led.fail(err)
				return
			}
			p.led.ack(k, n)
		})
		p.led.sent.Add(1)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := p.kc.Flush(ctx); err != nil {
		log.Printf("publisher: flush: %v", err)
	}
	p.kc.Close()
}

// absorb adds o's record of keys 0..len(o.lastSent)-1 as keys offset.. of l:
// several publishers share one key space (loadPublishers).
func (l *ackLedger) absorb(o *ackLedger, offset int) {
	copy(l.lastSent[offset:], o.lastSent)
	l.sent.Add(o.sent.Load())
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, bits := range o.acked {
		l.acked[offset+k] = append([]uint64(nil), bits...)
	}
	l.nAcked += o.nAcked
	l.failTimes = append(l.failTimes, o.failTimes...)
	l.failShown = append(l.failShown, o.failShown...)
}

// loadPublishers runs several load publishers side by side as one: each has
// keys of its own, which follow one another in the order given (the first's
// keys 0..n-1, the next's after them), and the clients subscribe across all.
type loadPublishers struct {
	parts []loadPublisher
	led   *ackLedger // merged after run
}

func (m *loadPublishers) run(stop <-chan struct{}) {
	var wg sync.WaitGroup
	for _, p := range m.parts {
		wg.Go(func() { p.run(stop) })
	}
	wg.Wait()
	keys := 0
	for _, p := range m.parts {
		keys += len(p.ledger().lastSent)
	}
	m.led = newAckLedger(keys)
	off := 0
	for _, p := range m.parts {
		m.led.absorb(p.ledger(), off)
		off += len(p.ledger().lastSent)
	}
}

// ledger is the merged ledger, once run has returned.
func (m *loadPublishers) ledger() *ackLedger { return m.led }

func (m *loadPublishers) describe() string {
	var parts []string
	for _, p := range m.parts {
		parts = append(parts, p.describe())
	}
	return strings.Join(parts, "; ")
}
