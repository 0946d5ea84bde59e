package edge

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// newRingBatch is a routing worker's batch; the test is skipped where the
// kernel forbids io_uring (the gateway then writes with writev, which the
// other tests cover).
func newRingBatch(t *testing.T) (*RingWriter, *ringBatch) {
	t.Helper()
	rw, err := NewRingWriter()
	if err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOSYS) {
			t.Skipf("io_uring not allowed here: %v", err)
		}
		t.Fatal(err)
	}
	rb := rw.NewBatch().(*ringBatch)
	t.Cleanup(rb.Close)
	return rw, rb
}

// ringClients upgrades n raw clients and returns them with the server's side
// of each, in the same order.
func ringClients(t *testing.T, s *Edge, url string, n int) ([]net.Conn, []*wsConn) {
	t.Helper()
	peers := make([]net.Conn, n)
	conns := make([]*wsConn, n)
	for i := range n {
		before := wsSessions(s)
		peers[i] = rawUpgrade(t, url)
		deadline := time.Now().Add(5 * time.Second)
		for conns[i] == nil {
			for c := range wsSessions(s) {
				if _, old := before[c]; !old {
					conns[i] = c
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("client %d: no session on the server", i)
			}
			time.Sleep(time.Millisecond)
		}
	}
	return peers, conns
}

func wsSessions(s *Edge) map[*wsConn]struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[*wsConn]struct{}{}
	for sess := range s.sessions {
		if c, ok := sess.(*wsConn); ok {
			out[c] = struct{}{}
		}
	}
	return out
}

func ringFrame(key string, seq int64) *hub.Frame { return paddedFrame(key, seq, 0) }

// paddedFrame carries pad bytes of padding in its data.
func paddedFrame(key string, seq int64, pad int) *hub.Frame {
	data := []byte(fmt.Sprintf(`{"n":%d,"pad":"%s"}`, seq, bytes.Repeat([]byte("x"), pad)))
	return hub.NewFrame(&protocol.Message{Endpoint: "/t/" + key, Epoch: "e", Partition: 0, Seq: seq,
		TS: time.Now().UnixMilli(), Data: data, Encoding: protocol.EncodingFor("json", data)})
}

// readExactly reads len(want) bytes from peer and compares.
func readExactly(t *testing.T, peer net.Conn, want []byte, what string) {
	t.Helper()
	_ = peer.SetReadDeadline(time.Now().Add(10 * time.Second))
	got := make([]byte, len(want))
	if _, err := io.ReadFull(peer, got); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: read %q, want %q", what, got, want)
	}
}

// More connections than one submission takes, three rounds of frames, the
// second delivered while some connections still have the first gathered:
// every client gets its frames once, in order, and the batch flushes
// everything (what was queued behind a gathered send goes in a later
// submission of the same flush).
func TestRingBatchDeliversEveryFrameInOrder(t *testing.T) {
	s, url := newWSTestServer(t, Options{QueueSize: 64, SlowPolicy: PolicyDrop})
	rw, rb := newRingBatch(t)
	const n = ringEntries + 6
	peers, conns := ringClients(t, s, url, n)
	want := make([][]byte, n)
	for seq := int64(1); seq <= 3; seq++ {
		for i, c := range conns {
			f := ringFrame(fmt.Sprint(i), seq)
			want[i] = append(want[i], f.Wire()...)
			c.Deliver(f, rb)
		}
		if seq == 2 {
			rb.Flush()
		}
	}
	rb.Flush()
	if len(rb.gathered) != 0 {
		t.Fatalf("%d sends still gathered after Flush", len(rb.gathered))
	}
	for i, peer := range peers {
		readExactly(t, peer, want[i], fmt.Sprintf("client %d", i))
	}
	if got := counterValue(t, s.opt.Metrics, "sluice_gateway_messages_out_total"); got != 3*n {
		t.Errorf("messages out %v, want %d", got, 3*n)
	}
	// 70 connections: the 64th gathered send submits at once; at least one
	// more submission per flush; the frames queued behind a gathered send
	// go together with it or in a later submission.
	if sub, sends := rw.Submissions(), rw.Sends(); sub < 4 || sends < n || sends > 3*n {
		t.Errorf("%d submissions of %d sends, want at least 4 submissions and %d..%d sends", sub, sends, n, 3*n)
	}
	for i, c := range conns {
		if queueBusy(&c.out) {
			t.Fatalf("connection %d still holds the writer role with nothing queued", i)
		}
	}
}

// A session that ends while its send is gathered keeps its descriptor open
// until the send is done with, so the number cannot be reused by another
// connection meanwhile; the completion closes it.
func TestRingBatchClosesASocketAfterItsSend(t *testing.T) {
	s, url := newWSTestServer(t, Options{QueueSize: 64, SlowPolicy: PolicyDrop})
	_, rb := newRingBatch(t)
	peers, conns := ringClients(t, s, url, 1)
	c := conns[0]
	c.Deliver(ringFrame("a", 1), rb)
	c.close()
	// Still open: a write to the descriptor works.
	if _, errno := syscall.Write(int(c.fd), []byte{}); errno != nil {
		t.Fatalf("descriptor closed while a send to it was gathered: %v", errno)
	}
	rb.Flush()
	_ = peers[0].SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(peers[0]); err != nil {
		t.Fatalf("the client did not see the close: %v", err)
	}
	c.fdMu.Lock()
	defer c.fdMu.Unlock()
	if c.inRing || c.fdOpen {
		t.Fatalf("after the completion: inRing %v, fdOpen %v", c.inRing, c.fdOpen)
	}
}

// A client that does not read fills its socket: the ring's send completes with
// EAGAIN (or in part) and the rest goes to writeLoop, which waits for the
// socket; nothing is lost or reordered once the client reads.
func TestRingBatchHandsAFullSocketToTheWriter(t *testing.T) {
	s, url := newWSTestServer(t, Options{QueueSize: 4096, SlowPolicy: PolicyDrop})
	rw, rb := newRingBatch(t)
	peers, conns := ringClients(t, s, url, 1)
	c, peer := conns[0], peers[0]
	_ = syscall.SetsockoptInt(int(c.fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, 4096)
	var want []byte
	for seq := int64(1); seq <= 2000; seq++ {
		f := paddedFrame("a", seq, 1000) // 2 MB in all: far more than the socket holds
		want = append(want, f.Wire()...)
		c.Deliver(f, rb)
		if seq%50 == 0 {
			rb.Flush()
		}
	}
	rb.Flush()
	readExactly(t, peer, want, "the stalled client, reading at last")
	if rw.handedOver.Load() == 0 {
		t.Error("no send found the socket full: the test did not test the hand-over")
	}
}
