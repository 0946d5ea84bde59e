package hub

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// The fan-out path's parts in isolation (issue 19): building a record's frame,
// routing a record to its endpoint's subscribers, and handing a fetch to the
// routing workers. Allocations are reported per op; the ns figures compare
// builds on one machine only.

// discardSink counts deliveries and keeps nothing: the edge's cost is measured
// by its own benchmarks (edge/wswrite_bench_test.go, edge/queue_bench_test.go).
type discardSink struct{ n atomic.Int64 }

func (d *discardSink) Deliver(*Frame, WriteBatch)                 { d.n.Add(1) }
func (d *discardSink) Gap(protocol.Gap)                           {}
func (d *discardSink) Ended(*Subscription, protocol.Code, string) {}

// benchValue is a payload of about size bytes shaped like the fan-out
// benchmark's records (bench/fanout).
func benchValue(size int) []byte {
	return fmt.Appendf(nil, `{"k":%d,"n":%d,"t":%d,"p":"%s"}`, 1234, 5678, 1795000000123456789, strings.Repeat("x", max(size-60, 0)))
}

// BenchmarkNewFrame is one record's "message" frame, built once and shared by
// every subscriber. Two allocations per frame are inherent: the Frame (shared
// and cached, so it lives on the heap) and its wire bytes (sized to the record).
func BenchmarkNewFrame(b *testing.B) {
	for _, size := range []int{64, 512, 4096} {
		for _, enc := range []string{"json", "text", "bytes"} {
			b.Run(fmt.Sprintf("payload=%d/%s", size, enc), func(b *testing.B) {
				data := benchValue(size)
				m := &protocol.Message{Endpoint: "/bench-topic/k1234", Epoch: "AAAAAAAAAAAAAAAAAAAAAA", Partition: 3, Seq: 123456789,
					TS: 1795000000123, Data: data, Encoding: protocol.EncodingFor(enc, data)}
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					_ = newFrame(m)
				}
			})
		}
	}
}

// benchEndpoint subscribes subs discarding sinks to one key and returns its
// topic, the key's partition and the sinks.
func benchEndpoint(b *testing.B, h *Hub, key string, subs int) (*topicState, int32, []*discardSink) {
	b.Helper()
	sinks := make([]*discardSink, subs)
	var partition int32
	for i := range sinks {
		sinks[i] = &discardSink{}
		s, err := h.Subscribe(b.Context(), protocol.Path{Topic: "prices", Key: key}, servedJSON, protocol.From{}, sinks[i], nil)
		if err != nil {
			b.Fatal(err)
		}
		partition = s.Partition
	}
	h.topicsMu.Lock()
	t := h.topics["prices"]
	h.topicsMu.Unlock()
	return t, partition, sinks
}

// BenchmarkRoute is one live record delivered to every subscriber of its
// endpoint (the routing worker's part: the endpoint lookup, the frame, the
// cache, one Deliver per subscriber). Per op: one record.
func BenchmarkRoute(b *testing.B) {
	for _, subs := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("subs=%d", subs), func(b *testing.B) {
			h, _ := newTestHub(b, 4)
			t, partition, sinks := benchEndpoint(b, h, "AAPL", subs)
			value := benchValue(512)
			sh := h.shardFor("prices", []byte("AAPL"))
			offset := int64(1_000_000)
			key := []byte("AAPL")
			b.ReportAllocs()
			for b.Loop() {
				offset++
				r := routedRecord{Record: Record{Key: key, Value: value, Partition: partition, Offset: offset, TS: 1795000000123}, shard: sh}
				h.route(t, &r, 0, nil)
			}
			b.StopTimer()
			if got := sinks[0].n.Load(); got == 0 {
				b.Fatal("nothing delivered: the subscription is not live")
			}
		})
	}
}

// BenchmarkDispatch is one fetch of batch records over keys, from the consumer
// goroutine's hand-off to the workers until every subscriber has its frames.
// Per op: one fetch.
func BenchmarkDispatch(b *testing.B) {
	for _, subs := range []int{1, 10} {
		for _, batch := range []int{1, 16, 64} {
			b.Run(fmt.Sprintf("subs=%d/batch=%d", subs, batch), func(b *testing.B) {
				h, _ := newTestHub(b, 4)
				const keys = 16
				var sinks []*discardSink
				var t *topicState
				partitions := make([]int32, keys)
				for k := range keys {
					var s []*discardSink
					t, partitions[k], s = benchEndpoint(b, h, fmt.Sprintf("k%d", k), subs)
					sinks = append(sinks, s...)
				}
				value := benchValue(512)
				recs := make([]Record, batch)
				offsets := make([]int64, keys)
				keyBytes := make([][]byte, keys)
				for i := range offsets {
					offsets[i] = 1_000_000
					keyBytes[i] = fmt.Appendf(nil, "k%d", i)
				}
				b.ReportAllocs()
				delivered := int64(0)
				for b.Loop() {
					for i := range recs {
						k := i % keys
						offsets[k]++
						recs[i] = Record{Key: keyBytes[k], Value: value, Partition: partitions[k], Offset: offsets[k], TS: 1795000000123}
					}
					h.dispatch(t, recs)
					delivered += int64(batch * subs)
					// Wait for the workers: a fetch is done when it is delivered.
					for sum(sinks) < delivered {
					}
				}
			})
		}
	}
}

func sum(sinks []*discardSink) int64 {
	var n int64
	for _, s := range sinks {
		n += s.n.Load()
	}
	return n
}
