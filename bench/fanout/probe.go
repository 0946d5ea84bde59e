package main

import (
	"context"
	"log"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// probeFetchMaxWait is the gateway's live consumer's setting
// (apps/gateway/internal/kafka/consume.go), so the probe waits like the gateway does.
const probeFetchMaxWait = 500 * time.Millisecond

// kafkaProbe is a plain consumer of the data topic, outside the gateway: the
// latency it sees (send time -> record in hand) is Kafka's share of the clients'
// latency: publisher -> broker -> fetch.
type kafkaProbe struct {
	report   clientReport
	records  int64 // all records seen, inside the window or not
	stop     context.CancelFunc
	finished chan struct{}
	// With a stall bound (fault runs): per partition, the silences longer
	// than it between two records' arrivals (read after finish).
	stallBound int64
	last       map[int32]int64
	silences   map[int32][]stall
}

// startKafkaProbe assigns every partition of topic directly at its end offset (no
// group) and measures now - "t" for records whose "t" falls in [from, to).
// With stallBound > 0 it also records each partition's silences longer than that.
func startKafkaProbe(ctx context.Context, brokers, topic string, partitions int, from, to time.Time, enc payloadEncoding, stallBound time.Duration) *kafkaProbe {
	ends := endOffsets(ctx, brokers, topic, partitions)
	at := map[int32]kgo.Offset{}
	for p, off := range ends {
		at[p] = kgo.NewOffset().At(off)
	}
	cl, err := newKafkaClient(
		brokers,
		kgo.ClientID("sluice-bench-probe"),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: at}),
		kgo.FetchMaxWait(probeFetchMaxWait),
	)
	must(err)
	ctx, cancel := context.WithCancel(ctx)
	p := &kafkaProbe{report: clientReport{Buckets: make([]int64, fineBuckets+coarseBuckets)}, stop: cancel, finished: make(chan struct{}),
		stallBound: int64(stallBound), last: map[int32]int64{}, silences: map[int32][]stall{}}
	fromNs, toNs := from.UnixNano(), to.UnixNano()
	go func() {
		defer close(p.finished)
		defer cl.Close()
		for {
			fetches := cl.PollFetches(ctx)
			if ctx.Err() != nil {
				return
			}
			fetches.EachError(func(t string, part int32, err error) { log.Printf("probe fetch %s/%d: %v", t, part, err) })
			fetches.EachRecord(func(r *kgo.Record) {
				now := time.Now().UnixNano()
				p.records++
				if p.stallBound > 0 {
					if l := p.last[r.Partition]; l > 0 && now-l > p.stallBound {
						p.silences[r.Partition] = append(p.silences[r.Partition], stall{From: l, To: now})
					}
					p.last[r.Partition] = now
				}
				t := enc.sentAt(r.Value)
				if t < fromNs || t >= toNs {
					return
				}
				us := (now - t) / 1000
				p.report.Received++
				p.report.Buckets[bucketOf(us)]++
				p.report.MaxMicros = max(p.report.MaxMicros, us)
			})
		}
	}()
	return p
}

// finish stops the consumer; the report is complete once it returns.
func (p *kafkaProbe) finish() {
	p.stop()
	<-p.finished
}

func endOffsets(ctx context.Context, brokers, topic string, partitions int) map[int32]int64 {
	cl, err := newKafkaClient(brokers)
	must(err)
	defer cl.Close()
	adm := kadm.NewClient(cl)
	deadline := time.Now().Add(30 * time.Second)
	for {
		listed, err := adm.ListEndOffsets(ctx, topic)
		if err == nil {
			out := map[int32]int64{}
			ok := true
			listed.Each(func(o kadm.ListedOffset) {
				if o.Err != nil {
					ok = false
				}
				out[o.Partition] = o.Offset
			})
			if ok && len(out) == partitions {
				return out
			}
		}
		if time.Now().After(deadline) {
			log.Fatalf("probe: end offsets of %s: %v", topic, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
