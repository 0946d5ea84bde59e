package edge

import (
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/uring"
)

// Batched WebSocket writes through io_uring, on the fan-out path.
//
// Without them, each delivery that finds a connection's queue idle writes it
// at once with one writev(2) (wsConn.flush): a system call per socket per
// message, whose entry, file lookup and return (which lets the reader it woke
// run) are a large part of the gateway's CPU. A routing worker's deliveries
// instead hand their connection, with the writer role, to the worker's
// ringBatch, which submits up to ringEntries sends with one io_uring_enter(2)
// and, on their completions, does what flush does after its writev: accounts
// for a complete send and takes what was queued meanwhile (into the next
// submission), hands a partial or refused one to writeLoop, ends the session
// on an error. The worker flushes the batch when its job is routed (hub.WriteBatch).
//
// A send names a descriptor number, which close would give back to the kernel
// for reuse: a connection with a send gathered or in the ring (wsConn.inRing)
// has its socket closed by the completion instead (closeDeferred), so its
// bytes can never reach another connection that got the same number.
//
// Sends use MSG_DONTWAIT and complete inside the submitting call (package
// uring), so no buffer is used by the kernel once Submit returns, and a frame
// waits at most for the rest of its job's routing, or for ringEntries sends.

// ringEntries is the most sends one submission takes: it bounds how long a
// frame waits for the sends gathered before it (the probe saved 1.5 µs a
// send at 64, 1.8 at 200; docs/benchmarks.md).
const ringEntries = 64

// RingWriter makes the routing workers' batches (hub.Config.NewWriteBatch) and
// counts their work for /metrics.
type RingWriter struct {
	submissions, sends atomic.Int64
	// handedOver counts sends the socket did not take whole (the rest went to
	// writeLoop).
	handedOver atomic.Int64
}

// NewRingWriter checks that this kernel lets the process use io_uring, by
// setting up a ring and releasing it; the error says why not (ENOSYS, or EPERM
// from kernel.io_uring_disabled or a container's seccomp profile), and the
// gateway then writes with writev.
func NewRingWriter() (*RingWriter, error) {
	r, err := uring.New(ringEntries)
	if err != nil {
		return nil, err
	}
	r.Close()
	return &RingWriter{}, nil
}

// NewBatch is hub.Config.NewWriteBatch: one worker's batch, or nil (its
// deliveries then write with writev) if its ring cannot be set up.
func (w *RingWriter) NewBatch() hub.WriteBatch {
	r, err := uring.New(ringEntries)
	if err != nil {
		return nil
	}
	return &ringBatch{ring: r, w: w}
}

// Submissions is how many io_uring_enter calls handed sends to the kernel.
func (w *RingWriter) Submissions() int64 { return w.submissions.Load() }

// Sends is how many WebSocket sends went through them.
func (w *RingWriter) Sends() int64 { return w.sends.Load() }

// ringSend is one connection's taken batch of frames, gathered or in the ring.
type ringSend struct {
	c              *wsConn
	batch          []item
	total, counted int // bytes to send, and those that count as written (messages')
	res            int32
	done           bool // the kernel reported res
}

// ringBatch is one routing worker's hub.WriteBatch. Only that worker's
// goroutine uses it.
type ringBatch struct {
	ring *uring.Ring // nil once it broke: writes then go through writev
	w    *RingWriter
	// gathered waits for the next submission; inflight is the current one,
	// whose tags index it.
	gathered, inflight []ringSend
	// The gathered sends' headers and buffers, read by the kernel during the
	// submission: sized before it, so they do not move.
	msgs []unix.Msghdr
	iovs []unix.Iovec
	// submitting is set while completions are handled: what they gather
	// waits for the next submission.
	submitting bool
}

// add gathers c's taken batch (it holds the writer role) for the next
// submission, which it makes when ringEntries sends are gathered.
func (b *ringBatch) add(c *wsConn, batch []item) {
	if b.ring == nil {
		c.writeInline(batch)
		return
	}
	c.fdMu.Lock()
	if !c.fdOpen {
		c.fdMu.Unlock()
		c.writeFailed()
		return
	}
	c.inRing = true
	c.fdMu.Unlock()
	b.gathered = append(b.gathered, ringSend{c: c, batch: batch})
	if len(b.gathered) >= ringEntries && !b.submitting {
		b.submit()
	}
}

// Flush submits until nothing is gathered: a completion may gather its
// connection again with what was queued for it meanwhile.
func (b *ringBatch) Flush() {
	for len(b.gathered) > 0 {
		b.submit()
	}
}

// Close releases the ring; the worker has flushed.
func (b *ringBatch) Close() {
	if b.ring != nil {
		b.ring.Close()
		b.ring = nil
	}
}

// submit sends up to ringEntries of the gathered sends with one system call
// and handles their completions.
func (b *ringBatch) submit() {
	n := min(len(b.gathered), ringEntries)
	b.inflight = append(b.inflight[:0], b.gathered[:n]...)
	rest := copy(b.gathered, b.gathered[n:])
	clear(b.gathered[rest:])
	b.gathered = b.gathered[:rest]

	iovs := 0
	for i := range b.inflight {
		if l := len(b.inflight[i].batch); l > 1 {
			iovs += l
		}
	}
	if cap(b.iovs) < iovs {
		b.iovs = make([]unix.Iovec, 0, iovs)
	}
	if cap(b.msgs) < n {
		b.msgs = make([]unix.Msghdr, n)
	}
	b.iovs, b.msgs = b.iovs[:0], b.msgs[:n]
	for i := range b.inflight {
		s := &b.inflight[i]
		for j := range s.batch {
			l := len(s.batch[j].wire())
			s.total += l
			if s.batch[j].frame != nil {
				s.counted += l
			}
		}
		if len(s.batch) == 1 {
			wire := s.batch[0].wire()
			b.ring.Send(s.c.fd, &wire[0], len(wire), uint64(i))
			continue
		}
		first := len(b.iovs)
		for j := range s.batch {
			wire := s.batch[j].wire()
			b.iovs = append(b.iovs, unix.Iovec{Base: &wire[0]})
			b.iovs[len(b.iovs)-1].SetLen(len(wire))
		}
		m := &b.msgs[i]
		*m = unix.Msghdr{Iov: &b.iovs[first]}
		m.SetIovlen(len(s.batch))
		b.ring.Sendmsg(s.c.fd, m, uint64(i))
	}
	err := b.ring.Submit(func(tag uint64, res int32) {
		s := &b.inflight[tag]
		s.res, s.done = res, true
	})
	b.w.submissions.Add(1)
	b.w.sends.Add(int64(n))
	clear(b.iovs) // hold no frame until the next submission
	if err != nil {
		// Not expected (see uring.ErrBroken): the sends not reported may or
		// may not have been made, so their sessions end (the clients resume),
		// and from now on this worker writes with writev.
		b.ring.Close()
		b.ring = nil
	}
	b.submitting = true
	for i := range b.inflight {
		b.complete(&b.inflight[i])
	}
	b.submitting = false
	clear(b.inflight)
	if b.ring == nil {
		// What completions gathered goes out with writev.
		for _, s := range b.gathered {
			if !s.c.leaveRing() {
				s.c.writeInline(s.batch)
			}
		}
		clear(b.gathered)
		b.gathered = b.gathered[:0]
	}
}

// complete does with one send's result what flush does with tryWrite's.
func (b *ringBatch) complete(s *ringSend) {
	c := s.c
	if c.leaveRing() {
		return // the session ended while the send was gathered or in the ring
	}
	switch {
	case !s.done:
		c.writeFailed()
	case s.res == -int32(syscall.EAGAIN):
		b.w.handedOver.Add(1)
		go c.writeLoop(s.batch, 0)
	case s.res < 0:
		c.writeFailed()
	case int(s.res) < s.total:
		b.w.handedOver.Add(1)
		go c.writeLoop(s.batch, int(s.res))
	default:
		if final, grace := c.out.written(s.batch, s.counted, c.srv.opt.Metrics); final {
			c.closeAfter(grace)
		}
		// What was queued meanwhile: into the next submission (or writeLoop
		// for a burst); an empty queue releases the writer role.
		c.flushVia(b)
	}
}
