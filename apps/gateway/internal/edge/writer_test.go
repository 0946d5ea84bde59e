package edge

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/metrics"
)

// recordingWriter is a batchWriter that keeps what it was given; during its
// first batch it queues more, as a dispatch would while the writer writes.
type recordingWriter struct {
	q       *outQueue
	batches [][]item
	during  []item
	fail    error
}

func (w *recordingWriter) writeBatch(batch []item) (int, error) {
	if w.fail != nil {
		return 0, w.fail
	}
	w.batches = append(w.batches, append([]item(nil), batch...))
	for _, it := range w.during {
		w.q.push(it)
	}
	w.during = nil
	return 10 * len(batch), nil
}

func counterValue(t *testing.T, m *metrics.Metrics, name string) float64 {
	t.Helper()
	mfs, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

func TestDrainWritesWhatIsQueuedMeanwhileThenReleasesTheRole(t *testing.T) {
	m := metrics.New()
	q := &outQueue{capacity: 8, policy: PolicyDrop}
	if r := q.push(frame("/a/1", 1)); !r.wake {
		t.Fatal("first push did not hand over the writer role")
	}
	q.push(frame("/a/1", 2))
	w := &recordingWriter{q: q, during: []item{frame("/a/1", 3), {raw: []byte("ack")}}}
	final, _, err := q.drain(q.take(), w, m)
	if err != nil || final {
		t.Fatalf("drain: final %v, err %v", final, err)
	}
	if len(w.batches) != 2 || len(w.batches[0]) != 2 || len(w.batches[1]) != 2 {
		t.Fatalf("batches %v, want two of two items", w.batches)
	}
	if got := counterValue(t, m, "sluice_gateway_messages_out_total"); got != 3 {
		t.Errorf("messages out %v, want 3 (frames only)", got)
	}
	if got := counterValue(t, m, "sluice_gateway_bytes_out_total"); got != 40 {
		t.Errorf("bytes out %v, want what the writer counted (40)", got)
	}
	if q.lastWrite.Load() == 0 {
		t.Error("traffic written but lastWrite not set")
	}
	if r := q.push(frame("/a/1", 4)); !r.wake {
		t.Error("the writer role was not released when the queue ran empty")
	}
}

func TestDrainReportsTheSessionsLastBytes(t *testing.T) {
	q := &outQueue{capacity: 8, policy: PolicyDrop}
	q.push(frame("/a/1", 1))
	q.pushFinal(item{raw: []byte("bye"), final: true, grace: 3 * time.Second})
	final, grace, err := q.drain(q.take(), &recordingWriter{q: q}, metrics.New())
	if err != nil || !final || grace != 3*time.Second {
		t.Fatalf("final %v grace %v err %v", final, grace, err)
	}
}

func TestKeepalivesAreNotTraffic(t *testing.T) {
	q := &outQueue{capacity: 8, policy: PolicyDrop}
	q.push(item{raw: pingFrame, keepalive: true})
	if _, _, err := q.drain(q.take(), &recordingWriter{q: q}, metrics.New()); err != nil {
		t.Fatal(err)
	}
	if q.lastWrite.Load() != 0 {
		t.Error("a ping counted as traffic")
	}
}

func TestDrainStopsAtAFailedWriteKeepingTheRole(t *testing.T) {
	q := &outQueue{capacity: 8, policy: PolicyDrop}
	q.push(frame("/a/1", 1))
	broken := errors.New("broken pipe")
	if _, _, err := q.drain(q.take(), &recordingWriter{q: q, fail: broken}, metrics.New()); err != broken {
		t.Fatalf("err %v", err)
	}
	if r := q.push(frame("/a/1", 2)); r.wake {
		t.Error("a failed writer released its role: another would write a broken socket")
	}
}

// TestWSStreamSkipsWhatTheInlineWriteWrote: writeLoop continues a batch that
// tryWrite wrote in part, and counts its message frames whole.
func TestWSStreamSkipsWhatTheInlineWriteWrote(t *testing.T) {
	server, client := net.Pipe()
	defer server.Close()
	defer client.Close()
	msg := frame("/a/1", 1)
	batch := []item{{raw: []byte("abc")}, msg, {raw: []byte("xyz")}}
	wire := msg.frame.Wire()
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(client)
		got <- b
	}()
	w := wsStream{c: &wsConn{nc: server}, skip: 5}
	counted, err := w.writeBatch(batch)
	if err != nil {
		t.Fatal(err)
	}
	server.Close()
	want := string(append(append([]byte("abc"), wire...), "xyz"...)[5:])
	if b := <-got; string(b) != want {
		t.Errorf("wrote %q, want %q", b, want)
	}
	if counted != len(wire) {
		t.Errorf("counted %d, want the message frame's %d bytes", counted, len(wire))
	}
	for _, b := range w.bufs[:cap(w.bufs)] {
		if b != nil {
			t.Fatal("the reused buffers still hold a frame")
		}
	}
}

// A session ended because its client took nothing for a whole write deadline
// gets no closing frame (its socket is full): the slow-consumer metric is the
// only trace of it, so it must count there, and other write errors must not.
func TestAWriteDeadlineCloseCountsAsASlowDisconnect(t *testing.T) {
	m := metrics.New()
	s := &Edge{opt: Options{Metrics: m}}
	deadline := fmt.Errorf("write tcp 127.0.0.1:8080->127.0.0.1:50000: %w", os.ErrDeadlineExceeded)
	s.countWriteTimeout(&outQueue{}, deadline)
	s.countWriteTimeout(&outQueue{}, syscall.ECONNRESET)
	s.countWriteTimeout(&outQueue{}, net.ErrClosed)
	if got := counterValue(t, m, "sluice_gateway_slow_disconnects_total"); got != 1 {
		t.Fatalf("slow disconnects %v, want 1 (the deadline only)", got)
	}
	// A queue that overflowed was counted then (countDropped): its writer's
	// deadline, when its socket stays full, is the same disconnect.
	q := &outQueue{capacity: 2, policy: PolicyDisconnect}
	for i := range 3 {
		s.countDropped(q.push(frame("/a/1", int64(i))))
	}
	s.countWriteTimeout(q, deadline)
	s.countWriteTimeout(q, deadline)
	if got := counterValue(t, m, "sluice_gateway_slow_disconnects_total"); got != 2 {
		t.Fatalf("slow disconnects %v, want 2 (one for the overflowed queue, however it ends)", got)
	}
}
