package edge

import (
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/metrics"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// benchConn is a wsConn on one end of a loopback TCP connection whose other end
// is read and discarded, built without a handshake: what a WebSocket's write
// path costs per message, as the hub's dispatch calls it.
func benchConn(b *testing.B, s *Edge) *wsConn {
	b.Helper()
	c, peer := tcpConn(b, s)
	go func() { _, _ = io.Copy(io.Discard, peer) }()
	return c
}

// tcpConn is a wsConn on one end of a loopback TCP connection, built without a
// handshake, and the connection's other end.
func tcpConn(b testing.TB, s *Edge) (*wsConn, net.Conn) {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	peer, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	nc := <-accepted
	if nc == nil {
		b.Fatal("accept failed")
	}
	rc, err := nc.(syscall.Conn).SyscallConn()
	if err != nil {
		b.Fatal(err)
	}
	c := &wsConn{srv: s, nc: nc, rc: rc, done: make(chan struct{}),
		out: outQueue{capacity: s.opt.QueueSize, policy: s.opt.SlowPolicy, notice: wsNotice}}
	if err := rc.Control(func(fd uintptr) { c.fd = int32(fd) }); err != nil {
		b.Fatal(err)
	}
	c.fdOpen = true
	b.Cleanup(func() { _ = nc.Close(); _ = peer.Close() })
	return c, peer
}

// BenchmarkWebSocketDeliver is the fan-out's write path: one shared frame
// delivered to every connection (usually written at once, on the caller's
// goroutine). Allocations per op must stay 0.
//
// With io_uring (ring=true), as a routing worker delivers: the deliveries of a
// round gather into the worker's batch, which is flushed at the round's end
// (a job), up to 64 sends per submission. cpu-ns/delivery is the process's CPU
// time per delivery, the readers' side of loopback included.
func BenchmarkWebSocketDeliver(b *testing.B) {
	for _, bc := range []struct {
		conns int
		ring  bool
	}{{1, false}, {16, false}, {64, false}, {16, true}, {64, true}} {
		conns := bc.conns
		b.Run(fmt.Sprintf("conns=%d/ring=%t", conns, bc.ring), func(b *testing.B) {
			var wb hub.WriteBatch
			if bc.ring {
				rw, err := NewRingWriter()
				if err != nil {
					b.Skipf("io_uring not available: %v", err)
				}
				wb = rw.NewBatch()
				defer wb.Close()
			}
			s := &Edge{opt: Options{Metrics: metrics.New(), QueueSize: 1024, SlowPolicy: PolicyDrop}}
			cs := make([]*wsConn, conns)
			for i := range cs {
				cs[i] = benchConn(b, s)
			}
			data := []byte(`{"bid":1.0842,"ask":1.0844}`)
			f := hub.NewFrame(&protocol.Message{Endpoint: "/prices/EURUSD", Epoch: "e", Partition: 0, Seq: 1,
				TS: time.Now().UnixMilli(), Data: data, Encoding: protocol.EncodingFor("json", data)})
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := processCPU()
			for range b.N {
				for _, c := range cs {
					c.Deliver(f, wb)
				}
				if wb != nil {
					wb.Flush()
				}
			}
			b.StopTimer()
			// The process's CPU (the readers' side of loopback included, as in
			// the gateway) per delivery: what the wall time, with the readers
			// on the other core, does not show.
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N*conns), "cpu-ns/delivery")
			// Let writer goroutines (a full socket) finish before the sockets close.
			for _, c := range cs {
				for queueBusy(&c.out) {
					time.Sleep(time.Millisecond)
				}
			}
		})
	}
}

func queueBusy(q *outQueue) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.writing
}

// processCPU is the process's user and system time so far, in ns.
func processCPU() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
