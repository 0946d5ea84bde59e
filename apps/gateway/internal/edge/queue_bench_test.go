package edge

import (
	"fmt"
	"testing"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/metrics"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// BenchmarkOutQueue is a connection's queue without its socket: batch shared
// frames pushed (as the hub's dispatch does), taken by the writer and
// accounted for as written. Per op: one batch. Allocations must stay 0: the
// queue's arrays are reused (spare).
func BenchmarkOutQueue(b *testing.B) {
	m := metrics.New()
	data := []byte(`{"bid":1.0842,"ask":1.0844}`)
	f := hub.NewFrame(&protocol.Message{Endpoint: "/prices/EURUSD", Epoch: "e", Partition: 0, Seq: 1,
		TS: time.Now().UnixMilli(), Data: data, Encoding: protocol.EncodingFor("json", data)})
	for _, batch := range []int{1, 16, 64} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			q := &outQueue{capacity: 1024, policy: PolicyDrop, notice: wsNotice}
			b.ReportAllocs()
			for b.Loop() {
				for range batch {
					q.push(item{frame: f})
				}
				taken := q.take()
				if len(taken) != batch {
					b.Fatalf("took %d of %d", len(taken), batch)
				}
				q.written(taken, len(taken)*len(f.Wire()), m)
				if q.take() != nil { // releases the writer role
					b.Fatal("queue not empty")
				}
			}
		})
	}
}
