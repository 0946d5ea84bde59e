package main

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Every publish lands in the window of its send time with the outcome the
// publisher logged, checked against what the topic holds.
func TestClassifyPublishesPerWindowAndTransport(t *testing.T) {
	l := newAckLog()
	ack := func(proc int, conn uint32, n int64, offset int64, sent int64) {
		l.add(proc, ackEvent{Conn: conn, Partition: 0, N: n, Offset: offset, Hash: valueHash(benchValue(proc, int(conn), n)), Sent: sent, At: sent})
	}
	// Window 0: [0, 100), window 1: [100, 200).
	ack(0, 0, 1, 10, 5)                                                               // ws, fine
	ack(0, 0, 2, 11, 6)                                                               // ws, acknowledged but not in Kafka
	ack(0, 0, 3, 12, 7)                                                               // ws, in Kafka elsewhere
	ack(0, 0, 3, 12, 7)                                                               // ... and acknowledged twice
	l.add(0, ackEvent{Conn: 0, Partition: eventUnanswered, N: 4, Sent: 95, At: 120})  // ws, sent in window 0, unanswered when its connection ended in window 1, in Kafka
	l.add(0, ackEvent{Conn: 0, Partition: eventUnanswered, N: 5, Sent: 121, At: 121}) // ws, unanswered, not in Kafka
	ack(1, 0, 1, 20, 130)                                                             // http, fine, but in Kafka twice
	l.add(1, ackEvent{Conn: 0, Partition: eventError, N: 2, Offset: 5003, Sent: 140, At: 140})
	l.add(1, ackEvent{Conn: 0, Partition: eventError, N: 3, Offset: 5003, Sent: 141, At: 141}) // in Kafka all the same
	l.add(1, ackEvent{Conn: 0, Partition: eventNotSent, N: 4, Sent: 150, At: 150})
	l.add(1, ackEvent{Conn: 0, Partition: eventError, N: 6, Offset: 5004, Sent: 160, At: 160}) // unconfirmed, in Kafka: allowed
	l.add(1, ackEvent{Conn: 0, Partition: eventError, N: 5, Offset: 4293, Sent: 500, At: 500}) // in no window
	ack(0, 1, 1, 30, 300)                                                                      // ws, in no window, not in Kafka...
	l.settled[pubID{0, 1, 1}] = 300 + int64(12*time.Second)                                    // ... and acknowledged 12 s after its send

	p := &gatewayPublisher{acks: l, transportOf: map[uint32]string{0: "ws", 1: "http"}}
	rec := func(proc, conn int, n int64, offset int64) {
		p.checkRecord(&kgo.Record{Key: []byte("p" + string(rune('0'+proc)) + "c" + string(rune('0'+conn))), Value: benchValue(proc, conn, n), Offset: offset})
	}
	rec(0, 0, 1, 10)
	rec(0, 0, 3, 15)
	rec(0, 0, 4, 16)
	rec(1, 0, 1, 20)
	rec(1, 0, 1, 21)
	rec(1, 0, 3, 22)
	rec(1, 0, 6, 23)
	p.checkRecord(&kgo.Record{Key: []byte("k1"), Value: []byte(`{"k":1,"n":1}`)}) // the direct producer's: not checked
	p.finish()
	per, total := p.counts([][2]int64{{0, 100}, {100, 200}})

	w0 := per[0]["ws"]
	if len(per[0]) != 1 || w0.sent != 3 || w0.acked != 3 || w0.ackedMissing != 1 || w0.ackedElsewhere != 1 || w0.ackedTwice != 1 || w0.unanswered != 0 {
		t.Fatalf("window 0: %+v (%d transports)", w0, len(per[0]))
	}
	w1ws, w1http := per[1]["ws"], per[1]["http"]
	if w1ws.sent != 2 || w1ws.unanswered != 2 || w1ws.unansweredInKafka != 1 || w1ws.acked != 0 {
		t.Fatalf("window 1 ws: %+v", w1ws)
	}
	if w1http.sent != 5 || w1http.acked != 1 || w1http.inKafkaTwice != 1 || w1http.errors[5003] != 2 || w1http.errors[5004] != 1 || w1http.errorsInKafka != 2 ||
		w1http.refusedInKafka != 1 || w1http.notSent != 1 || w1http.ackedMissing != 0 {
		t.Fatalf("window 1 http: %+v", w1http)
	}
	if total["http"].sent != 6 || total["http"].errors[4293] != 1 || total["ws"].sent != 6 || total["ws"].ackedMissing != 2 ||
		total["ws"].slowAnswers != 1 || total["ws"].slowest != int64(12*time.Second) || total["http"].slowAnswers != 0 {
		t.Fatalf("totals ws %+v http %+v", total["ws"], total["http"])
	}
	if p.checked.Missing != 2 || p.checked.Misplaced != 1 || p.checked.WrittenTwice != 1 || p.checked.NeverAckedUnanswered != 1 || p.checked.NeverAckedAfterError != 2 || p.checked.Foreign != 0 {
		t.Fatalf("verification %+v", p.checked)
	}
	if len(p.inKafkaUnacked) != 3 || !strings.Contains(p.inKafkaUnacked[0], "p0c0 n=4 (unanswered)") || !strings.Contains(p.inKafkaUnacked[1], "p1c0 n=3 (answered 5003)") {
		t.Fatalf("examples %q", p.inKafkaUnacked)
	}
}

// The gateway publishers' ledger holds their keys in load order, and
// loadPublishers puts it after the direct producer's keys.
func TestGatewayPublisherLedgerFollowsTheDirectKeys(t *testing.T) {
	l := newAckLog()
	l.add(0, ackEvent{Conn: 1, Partition: 0, N: 1, Sent: 1, At: 1})
	l.add(0, ackEvent{Conn: 1, Partition: eventUnanswered, N: 2, Sent: 2, At: 2})
	l.add(1, ackEvent{Conn: 0, Partition: 0, N: 3, Sent: 3, At: 3})
	p := &gatewayPublisher{acks: l, index: map[string]int{"p0c0": 0, "p0c1": 1, "p1c0": 2}, keys: []string{"p0c0", "p0c1", "p1c0"}}
	p.led = newAckLedger(3)
	p.fillLedger()
	direct := newAckLedger(2)
	direct.lastSent[1] = 7
	direct.ack(1, 7)
	m := &loadPublishers{parts: []loadPublisher{fixedPublisher{direct}, fixedPublisher{p.led}}}
	m.run(make(chan struct{}))
	led := m.ledger()
	if len(led.lastSent) != 5 || led.lastSent[1] != 7 || !led.isAcked(1, 7) || led.lastSent[3] != 2 || !led.isAcked(3, 1) || led.isAcked(3, 2) || led.lastSent[4] != 3 || !led.isAcked(4, 3) {
		t.Fatalf("merged ledger: lastSent %v", led.lastSent)
	}
	if led.nAcked != 3 || led.sent.Load() != 3 {
		t.Fatalf("merged counts: %d acked, %d sent", led.nAcked, led.sent.Load())
	}
}

// fixedPublisher is a loadPublisher whose ledger is already written.
type fixedPublisher struct{ led *ackLedger }

func (f fixedPublisher) run(<-chan struct{}) {}
func (f fixedPublisher) ledger() *ackLedger  { return f.led }
func (f fixedPublisher) describe() string    { return "fixed" }
