package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"

	"github.com/twmb/franz-go/pkg/kgo"
)

// pubID names one publish: the publisher process, its connection and the
// connection's sequence number (the payload's "p", "c" and "n").
type pubID struct {
	proc, conn uint32
	n          int64
}

// ackedAt is where an acknowledgement put a publish, and the hash of the
// value that was sent.
type ackedAt struct {
	partition int32
	offset    int64
	hash      uint64
	seen      bool // a record with this id was found at exactly this position (with the right content or not)
	wrong     bool // ... with another key or value
}

// ackLog is every outcome the publishers reported for one topic.
type ackLog struct {
	acked      map[pubID]*ackedAt
	errored    map[pubID]int64 // the error code
	unanswered map[pubID]bool  // in flight when the connection ended (eventUnanswered)
	// ackedTwice: the publisher logged a second acknowledgement for an id
	// (it also counts those itself: publisherReport.AckedTwice); twice: which.
	ackedTwice int64
	twice      map[pubID]int
	// sent: when each publish was sent, settled: when its (first) outcome
	// came, unix ns; a fault run counts the outcomes per fault window
	// (chaos_gatewaypub.go).
	sent, settled map[pubID]int64
	notSent       map[pubID]bool // eventNotSent: its request never left
}

func newAckLog() *ackLog {
	return &ackLog{acked: map[pubID]*ackedAt{}, errored: map[pubID]int64{}, unanswered: map[pubID]bool{},
		twice: map[pubID]int{}, sent: map[pubID]int64{}, settled: map[pubID]int64{}, notSent: map[pubID]bool{}}
}

func (l *ackLog) add(proc int, e ackEvent) {
	id := pubID{uint32(proc), e.Conn, e.N}
	if _, ok := l.sent[id]; !ok {
		l.sent[id], l.settled[id] = e.Sent, e.At
	}
	switch {
	case e.Partition >= 0:
		if _, dup := l.acked[id]; dup {
			l.ackedTwice++
			l.twice[id]++
			return
		}
		l.acked[id] = &ackedAt{partition: e.Partition, offset: e.Offset, hash: e.Hash}
	case e.Partition == eventError:
		l.errored[id] = e.Offset
	case e.Partition == eventUnanswered:
		l.unanswered[id] = true
	case e.Partition == eventNotSent:
		l.notSent[id] = true
	}
	// eventNotSent: never left, so a record of it counts as "neither".
}

// load adds the -acks file of publisher process proc.
func (l *ackLog) load(path string, proc int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return readAckEvents(f, func(e ackEvent) { l.add(proc, e) })
}

// verifyResult compares what was acknowledged with what Kafka holds.
type verifyResult struct {
	Acked int64 // distinct publishes acknowledged
	// Matched: found exactly once, at the acknowledged (partition, offset),
	// with the key and the value that were sent.
	Matched int64
	// Missing: acknowledged, not in Kafka at all. Misplaced: in Kafka, but
	// not at the acknowledged position. WrongContent: at that position, with
	// another key or value.
	Missing, Misplaced, WrongContent int64
	AckedTwice                       int64
	// OutOfOrder: publishes of one connection (one key) whose acknowledged
	// offsets do not grow with their sequence.
	OutOfOrder int64
	Records    int64 // records read from the topic
	// WrittenTwice: second (third…) copies of one publish, wherever they are.
	WrittenTwice int64
	// NeverAcked: records of publishes with no acknowledgement: after an
	// error answer, unanswered (in flight when a connection ended), or
	// neither (a defect: every publish sent is one of the three).
	NeverAckedAfterError, NeverAckedUnanswered, NeverAckedOther int64
	// Foreign: records that are not the benchmark's.
	Foreign int64
}

// verifier checks records, one at a time, against an ackLog.
type verifier struct {
	log   *ackLog
	found map[pubID]int // copies of each publish in the topic
	res   verifyResult
}

func newVerifier(l *ackLog) *verifier {
	return &verifier{log: l, found: make(map[pubID]int, len(l.acked)), res: verifyResult{Acked: int64(len(l.acked)), AckedTwice: l.ackedTwice}}
}

// record checks one record of the topic.
func (v *verifier) record(key, value []byte, partition int32, offset int64) {
	v.res.Records++
	if !bytes.HasPrefix(value, []byte(`{"p":`)) {
		v.res.Foreign++
		return
	}
	id := pubID{uint32(fieldInt(value, `{"p":`)), uint32(fieldInt(value, `"c":`)), fieldInt(value, `"n":`)}
	dup := v.found[id] > 0
	v.found[id]++
	if dup {
		v.res.WrittenTwice++
	}
	a, acked := v.log.acked[id]
	if acked && a.partition == partition && a.offset == offset {
		a.seen = true
		if a.hash != valueHash(value) || string(key) != fmt.Sprintf("p%dc%d", id.proc, id.conn) {
			a.wrong = true
			v.res.WrongContent++
			return
		}
		v.res.Matched++
		return
	}
	if dup || acked {
		return // counted above, or in finish (misplaced)
	}
	_, errored := v.log.errored[id]
	switch {
	case errored:
		v.res.NeverAckedAfterError++
	case v.log.unanswered[id]:
		v.res.NeverAckedUnanswered++
	default:
		v.res.NeverAckedOther++
	}
}

// finish counts the acknowledged publishes never found and checks the order
// of each connection's acknowledged offsets.
func (v *verifier) finish() verifyResult {
	type at struct {
		n   int64
		pos ackedAt
	}
	perConn := map[[2]uint32][]at{}
	for id, a := range v.log.acked {
		switch {
		case a.seen:
		case v.found[id] > 0:
			v.res.Misplaced++
		default:
			v.res.Missing++
		}
		k := [2]uint32{id.proc, id.conn}
		perConn[k] = append(perConn[k], at{id.n, *a})
	}
	for _, acks := range perConn {
		slices.SortFunc(acks, func(a, b at) int { return int(a.n - b.n) })
		for i := 1; i < len(acks); i++ {
			if acks[i].pos.partition == acks[i-1].pos.partition && acks[i].pos.offset <= acks[i-1].pos.offset {
				v.res.OutOfOrder++
			}
		}
	}
	return v.res
}

// verifyTopic reads every record of topic from the start to its end offsets
// (taken now: run it once the publishers stopped) and checks them against l.
func verifyTopic(ctx context.Context, brokers, topic string, partitions int, l *ackLog) verifyResult {
	v := newVerifier(l)
	ends := endOffsets(ctx, brokers, topic, partitions)
	at := map[int32]kgo.Offset{}
	left := 0
	for p, end := range ends {
		if end > 0 {
			at[p] = kgo.NewOffset().AtStart()
			left++
		}
	}
	if left > 0 {
		cl, err := newKafkaClient(brokers, kgo.ClientID("sluice-bench-verify"),
			kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: at}), kgo.FetchMaxBytes(64<<20))
		must(err)
		defer cl.Close()
		done := map[int32]bool{}
		for left > 0 {
			fetches := cl.PollFetches(ctx)
			fetches.EachError(func(t string, p int32, err error) { must(fmt.Errorf("verify: fetch %s/%d: %w", t, p, err)) })
			fetches.EachRecord(func(r *kgo.Record) {
				if r.Offset >= ends[r.Partition] {
					return
				}
				v.record(r.Key, r.Value, r.Partition, r.Offset)
				if r.Offset == ends[r.Partition]-1 && !done[r.Partition] {
					done[r.Partition] = true
					left--
				}
			})
		}
	}
	return v.finish()
}

// String is the verification in one paragraph.
func (r verifyResult) String() string {
	s := fmt.Sprintf("%d acknowledged: %d in Kafka exactly at their (partition, offset) with the key and payload sent; missing %d, elsewhere %d, other content %d; acknowledged twice %d; out of order %d\n",
		r.Acked, r.Matched, r.Missing, r.Misplaced, r.WrongContent, r.AckedTwice, r.OutOfOrder)
	s += fmt.Sprintf("      %d records in Kafka: %d written twice; %d never acknowledged (%d after an error answer, %d unanswered, %d neither)",
		r.Records, r.WrittenTwice, r.NeverAckedAfterError+r.NeverAckedUnanswered+r.NeverAckedOther, r.NeverAckedAfterError, r.NeverAckedUnanswered, r.NeverAckedOther)
	if r.Foreign > 0 {
		s += ", " + strconv.FormatInt(r.Foreign, 10) + " not the benchmark's"
	}
	return s
}

// ok says whether every acknowledgement held: none missing, misplaced,
// altered, doubled or out of order, and no record without a reason.
func (r verifyResult) ok() bool {
	return r.Matched == r.Acked && r.AckedTwice == 0 && r.OutOfOrder == 0 && r.WrittenTwice == 0 && r.NeverAckedOther == 0 && r.Foreign == 0
}
