package edge

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/auth"
	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/lockorder"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// sseStream is one Server-Sent Events subscriber. Its handler goroutine is the
// writer: hub callbacks queue and wake it (writer.go).
type sseStream struct {
	srv  *Edge
	tok  *auth.Claims
	path string // of its one subscription
	out  outQueue
	wake chan struct{}

	mu     lockorder.Mutex[lockorder.SSEStream]
	ended  bool
	reason chan struct{} // closed when the stream must end after draining
}

func (s *Edge) serveSSE(w http.ResponseWriter, r *http.Request) {
	if !s.setups.enter(r.Context()) {
		return // the client left while waiting
	}
	addr, perr := s.admitAddress(r)
	if perr != nil {
		s.setups.leave()
		writeProblem(w, perr)
		return
	}
	defer s.perAddr.release(addr)
	claims, p, ep, perr := s.httpAccess(r, protocol.OpSubscribe)
	var from protocol.From
	if perr == nil {
		from, perr = sseFrom(r)
	}
	// The rest may wait on the registry or Kafka: not in the gate (setupgate.go).
	s.setups.leave()
	if perr != nil {
		writeProblem(w, perr)
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeProblem(w, protocol.Errorf(protocol.CodeInternal, "streaming unsupported"))
		return
	}

	st := &sseStream{srv: s, tok: claims, path: p.String(), out: newSSEQueue(s.opt), wake: make(chan struct{}, 1), reason: make(chan struct{})}
	s.meterSession(&st.out, claims.App)
	s.limitDeliveries(&st.out, claims.App)
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	served, perr := s.servedFor(ctx, ep, p)
	if perr != nil {
		cancel()
		writeProblem(w, perr)
		return
	}
	sub, err := s.opt.Hub.Subscribe(ctx, p, served, from, st, nil)
	cancel()
	if err != nil {
		writeProblem(w, kafkaError(p.Topic, err))
		return
	}
	defer sub.Close()
	// Admitted where it is tracked: untrack gives the connection back.
	if perr := s.admit(claims.App); perr != nil {
		writeProblem(w, perr)
		return
	}
	s.track(st, nil)
	defer s.untrack(st)
	s.opt.Metrics.Connections.WithLabelValues("sse").Inc()
	defer s.opt.Metrics.Connections.WithLabelValues("sse").Dec()

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // tell nginx-like proxies not to buffer
	w.WriteHeader(http.StatusOK)
	// A first comment confirms the subscription at once: curl and some proxies hold
	// the headers back until body bytes arrive, which would otherwise be the first
	// message or the keepalive 25 s later.
	//
	// Its id line carries where delivery starts (subscribed.seq of the WebSocket
	// protocol): an event with an id but no data sets the stream's last event id
	// without dispatching anything, so an EventSource that reconnects before the
	// first message sends it as Last-Event-ID and loses nothing.
	_, _ = w.Write(appendSubscribed(nil, p.String(), sub))
	flusher.Flush()

	// This goroutine is the stream's writer: a push that takes the writer role
	// (writer.go) wakes it, and it drains the queue.
	sw := &sseWriter{w: w, rc: http.NewResponseController(w)}
	keepalive := time.NewTicker(s.opt.PingInterval)
	defer keepalive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.ctx.Done():
			return
		case <-keepalive.C:
			if err := sw.write([]byte(": keepalive\n\n")); err != nil {
				return
			}
		case <-st.wake:
			if _, _, err := st.out.drain(st.out.take(), sw, s.opt.Metrics); err != nil {
				s.countWriteTimeout(&st.out, err)
				return
			}
		case <-st.reason:
			// Drain what was queued before the end (the closing event).
			_, _, _ = st.out.drain(st.out.take(), sw, s.opt.Metrics)
			return
		}
	}
}

// sseWriter is an event stream's batchWriter: it writes a batch as events to
// the response. Every write gets a deadline: a client that stopped reading
// would otherwise hold the handler (and its subscription) for as long as TCP
// keeps it.
type sseWriter struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf []byte // reused from batch to batch
}

// writeBatch counts every byte of the batch's events as written (BytesOut).
func (sw *sseWriter) writeBatch(batch []item) (int, error) {
	sw.buf = sw.buf[:0]
	for i := range batch {
		sw.buf = appendEvent(sw.buf, &batch[i])
	}
	return len(sw.buf), sw.write(sw.buf)
}

func (sw *sseWriter) write(b []byte) error {
	_ = sw.rc.SetWriteDeadline(time.Now().Add(sseWriteTimeout))
	_, err := sw.w.Write(b)
	if err == nil {
		err = sw.rc.Flush()
	}
	return err
}

// sseWriteTimeout bounds one write to an event stream.
const sseWriteTimeout = 10 * time.Second

// sseFrom reads where to start: Last-Event-ID ("epoch:partition:seq") resumes,
// else ?from=earliest|latest|<ms>.
func sseFrom(r *http.Request) (protocol.From, *protocol.Error) {
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		parts := strings.Split(id, ":")
		if len(parts) == 3 {
			p, err1 := strconv.ParseInt(parts[1], 10, 32)
			seq, err2 := strconv.ParseInt(parts[2], 10, 64)
			if err1 == nil && err2 == nil && p >= 0 && seq >= -1 {
				return protocol.From{Kind: protocol.FromPosition, Epoch: parts[0], Partition: int32(p), Seq: seq}, nil
			}
		}
		return protocol.From{}, protocol.Errorf(protocol.CodeBadFrame, "Last-Event-ID: %q is not epoch:partition:seq", id)
	}
	switch v := r.URL.Query().Get("from"); v {
	case "", "latest":
		return protocol.From{Kind: protocol.FromLatest}, nil
	case "earliest":
		return protocol.From{Kind: protocol.FromEarliest}, nil
	default:
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms < 0 {
			return protocol.From{}, protocol.Errorf(protocol.CodeBadFrame, "from: %q is not earliest, latest or a time in ms", v)
		}
		return protocol.From{Kind: protocol.FromTime, Time: ms}, nil
	}
}

// appendSubscribed writes the block that opens a stream: the subscribed comment
// and the start position as the event id.
func appendSubscribed(dst []byte, path string, sub *hub.Subscription) []byte {
	dst = append(dst, ": subscribed "...)
	dst = append(dst, path...)
	dst = append(dst, '\n')
	dst = appendID(dst, sub.Epoch, sub.Partition, sub.Seq)
	return append(dst, '\n', '\n')
}

func appendID(dst []byte, epoch string, partition int32, seq int64) []byte {
	dst = append(dst, "id: "...)
	dst = append(dst, epoch...)
	dst = append(dst, ':')
	dst = strconv.AppendInt(dst, int64(partition), 10)
	dst = append(dst, ':')
	return strconv.AppendInt(dst, seq, 10)
}

func appendEvent(dst []byte, it *item) []byte {
	if f := it.frame; f != nil {
		dst = appendID(dst, f.Epoch, f.Partition, f.Seq)
		dst = append(dst, "\nevent: message\ndata: "...)
		start := len(dst)
		dst = f.AppendSSE(dst)
		if bytes.ContainsAny(dst[start:], "\r\n") {
			dst = splitDataLines(dst, start)
		}
		return append(dst, "\n\n"...)
	}
	return append(dst, it.raw...) // already a whole event
}

// splitDataLines continues dst[start:] on a new "data:" line at each line break.
// A JSON record is embedded as it is, and one written pretty-printed has line
// breaks (outside its strings, which cannot hold raw ones): in an event stream
// each would end the data line and cut the JSON short. EventSource joins data
// lines with "\n", which gives back the same JSON value.
func splitDataLines(dst []byte, start int) []byte {
	data := append([]byte(nil), dst[start:]...)
	dst = dst[:start]
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\r', '\n':
			if c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
				i++
			}
			dst = append(dst, "\ndata: "...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func newSSEQueue(opt Options) outQueue {
	return outQueue{capacity: opt.QueueSize, policy: opt.SlowPolicy, notice: func(g protocol.Gap) []byte { return sseEvent("gap", g) }}
}

func sseEvent(name string, frame any) []byte {
	b := append([]byte("event: "+name+"\ndata: "), protocol.Encode(frame)...)
	return append(b, "\n\n"...)
}

func (st *sseStream) eachSubscribedPath(fn func(path string)) { fn(st.path) }

func (st *sseStream) claims() *auth.Claims { return st.tok }

// publishesInFlight: an SSE stream only receives (HTTP publishes are requests
// of their own, which the server's shutdown waits for).
func (st *sseStream) publishesInFlight() int { return 0 }

func (st *sseStream) push(it item) {
	r := st.out.push(it)
	st.srv.countDropped(r)
	if r.slow {
		st.terminate(protocol.CloseSlowConsumer, "slow consumer: the queue of outgoing events overflowed")
	} else if r.wake {
		select {
		case st.wake <- struct{}{}:
		default:
		}
	}
}

func (st *sseStream) Deliver(f *hub.Frame, _ hub.WriteBatch) { st.push(item{frame: f}) }

func (st *sseStream) Gap(g protocol.Gap) { st.push(item{raw: sseEvent("gap", g)}) }

func (st *sseStream) Ended(s *hub.Subscription, code protocol.Code, reason string) {
	st.push(item{raw: sseEvent("unsubscribed", protocol.Unsubscribed{Type: "unsubscribed", Endpoint: s.Path, Code: code, Reason: reason})})
	st.end()
}

func (st *sseStream) terminate(code protocol.Code, reason string) {
	st.mu.Lock()
	ended := st.ended
	st.mu.Unlock()
	if ended {
		return
	}
	// Not push: on a full queue under the disconnect policy push would call
	// terminate again, without end.
	closing := sseEvent("closing", protocol.Closing{Type: "closing", Code: code, Reason: reason})
	if _, wake := st.out.pushFinal(item{raw: closing}); wake {
		select {
		case st.wake <- struct{}{}:
		default:
		}
	}
	st.end()
}

func (st *sseStream) end() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.ended {
		st.ended = true
		close(st.reason)
	}
}
