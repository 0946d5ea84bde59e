package hub

import (
	"container/heap"
	"context"
	"sync/atomic"
)

// Shared catch-up reads.
//
// A subscription that starts at a position the endpoint cache cannot serve reads
// what it missed from Kafka. When a node fails, thousands of its clients resume
// on another node within seconds, each from a position near the end of a
// partition that many keys share. Read one by one, every catch-up asked Kafka
// for the partition's offsets, opened a client of its own and decoded every
// record from its position to the end to keep one key's: work that grew with
// clients × lag, and broker connections without bound.
//
// Instead, one reader per (topic, epoch, partition) serves every waiting
// catch-up of that partition in passes over its records. A pass starts at the
// lowest start among the waiting catch-ups, decodes each record once, builds
// each endpoint's frame once, and hands it to every catch-up of that key that
// still needs it. A catch-up whose start is at or after the pass's position
// joins it at once, even in the middle; one behind it waits for the next pass.
// A pass that was cut short (maxPassRecords) is followed by one that starts at
// the catch-up that has waited longest, so a long history read and the resumes
// near the end take turns. Where a catch-up ends needs no Kafka request: it is the live
// consumer's position when the catch-up began (records from there on reach the
// subscription live). One pass runs per partition, and at most
// Config.CatchUpPasses across the node.

// maxPassRecords bounds a pass while other catch-ups wait behind it, so one long
// history read (from the earliest offset of a large topic) does not hold back the
// resumes queued after it: the pass ends, and its catch-ups queue again behind
// the others. A variable for tests.
var maxPassRecords = 50_000

// catchUpRead is one subscription's request to a partition reader: deliver the
// key's records with next <= offset < until, then answer on done.
type catchUpRead struct {
	s     *Subscription
	gen   int
	epoch string
	key   string
	// next is the first offset not yet passed; owned by the reader while the
	// request is queued or in a pass, by the requester after done.
	next, until int64
	done        chan error // buffered: the reader never blocks on it
	// cancelled is set by the requester when it stops waiting.
	cancelled atomic.Bool

	heapIdx int // in the pass's byUntil heap; -1 when not in it
}

type readerKey struct {
	t     *topicState
	epoch string
	part  int32
}

// partReader queues the catch-ups of one partition; its fields are guarded by
// Hub.readersMu.
type partReader struct {
	key     readerKey
	waiting []*catchUpRead
	running bool
	// cut: the last pass ended at maxPassRecords with catch-ups waiting.
	cut bool
	// queued mirrors len(waiting) > 0 for the running pass, which looks at it
	// for every record.
	queued atomic.Bool
}

// readShared delivers part's records of rd.key in [rd.next, rd.until) to rd.s
// through the partition's shared reader. It returns when they are delivered, or
// the read failed, or ctx ended, with the first offset not yet passed.
func (h *Hub) readShared(ctx context.Context, t *topicState, part int32, rd *catchUpRead) (int64, error) {
	from := rd.next
	rd.done, rd.heapIdx = make(chan error, 1), -1
	k := readerKey{t, rd.epoch, part}
	h.readersMu.Lock()
	r := h.readers[k]
	if r == nil {
		r = &partReader{key: k}
		h.readers[k] = r
	}
	r.waiting = append(r.waiting, rd)
	r.queued.Store(true)
	if !r.running {
		r.running = true
		go h.runReader(r)
	}
	h.readersMu.Unlock()
	select {
	case err := <-rd.done:
		return rd.next, err // the reader is done with rd
	case <-ctx.Done():
		rd.cancelled.Store(true) // the reader may still hold rd: its next is not ours
		return from, ctx.Err()
	}
}

// runReader runs passes until no catch-up waits; the next request starts it again.
func (h *Hub) runReader(r *partReader) {
	for {
		p := h.nextPass(r)
		if p == nil {
			return
		}
		select {
		case h.passSlots <- struct{}{}:
		case <-h.ctx.Done():
			p.failAll(ErrClosed)
			continue // nextPass fails the rest and retires the reader
		}
		h.stats.CatchUpPasses.Add(1)
		p.run()
		<-h.passSlots
	}
}

// pass is one read over a partition; owned by its reader's goroutine.
type pass struct {
	h *Hub
	r *partReader
	// pos is the offset of the next record to look at.
	pos     int64
	byKey   map[string][]*catchUpRead
	byUntil untilHeap
	records int
}

// nextPass starts a pass at the lowest waiting start (after a cut pass: at the
// longest waiting one's) with every waiting catch-up at or after it. It returns nil, retiring
// the reader, when none waits (or the hub is closing).
func (h *Hub) nextPass(r *partReader) *pass {
	h.readersMu.Lock()
	defer h.readersMu.Unlock()
	live := r.waiting[:0]
	for _, rd := range r.waiting {
		switch {
		case rd.cancelled.Load():
		case h.ctx.Err() != nil:
			rd.done <- ErrClosed
		default:
			live = append(live, rd)
		}
	}
	clear(r.waiting[len(live):])
	r.waiting = live
	if len(live) == 0 {
		r.running = false
		r.queued.Store(false)
		delete(h.readers, r.key)
		return nil
	}
	start := live[0].next // the longest waiting
	if !r.cut {
		for _, rd := range live[1:] {
			start = min(start, rd.next)
		}
	}
	r.cut = false
	p := &pass{h: h, r: r, pos: start, byKey: map[string][]*catchUpRead{}}
	p.joinLocked()
	return p
}

// joinLocked moves the waiting catch-ups that start at or after pos into the
// pass; h.readersMu held.
func (p *pass) joinLocked() {
	r := p.r
	behind := r.waiting[:0]
	for _, rd := range r.waiting {
		if rd.cancelled.Load() {
			continue
		}
		if rd.next < p.pos {
			behind = append(behind, rd)
			continue
		}
		p.byKey[rd.key] = append(p.byKey[rd.key], rd)
		heap.Push(&p.byUntil, rd)
	}
	clear(r.waiting[len(behind):])
	r.waiting = behind
	r.queued.Store(len(behind) > 0)
}

func (p *pass) join() {
	p.h.readersMu.Lock()
	p.joinLocked()
	p.h.readersMu.Unlock()
}

// run reads from pos to the live consumer's position, or less when every
// catch-up in the pass is done or the pass is long and others wait.
func (p *pass) run() {
	h, k := p.h, p.r.key
	logStart, _, err := h.backend.Offsets(h.ctx, k.t.name, k.part)
	if err != nil {
		p.failAll(err)
		return
	}
	if p.pos < logStart {
		// Kafka no longer holds the start of some catch-ups: they are told
		// before anything is delivered to them.
		for _, rd := range p.byUntil {
			if rd.next < logStart {
				rd.s.gapIfCurrent(rd.gen, k.part, rd.next, logStart, ReasonRetention)
				rd.next = logStart
			}
		}
		p.pos = logStart
	}
	// Every catch-up in the pass ends at or before where the live consumer is
	// now (each took its end from it earlier); one that joins later and ends
	// beyond it is queued again.
	until := k.t.nextOf(k.part)
	p.finishUpTo(p.pos) // those with nothing to read
	if len(p.byUntil) == 0 {
		return
	}
	stopped := false
	err = h.backend.Read(h.ctx, k.t.name, k.epoch, k.part, p.pos, until, func(rec Record) bool {
		if p.r.queued.Load() {
			p.join()
		}
		p.finishUpTo(rec.Offset) // offsets skipped before rec are holes
		p.deliver(rec)
		p.pos = rec.Offset + 1
		p.finishUpTo(p.pos)
		p.records++
		if p.records%1024 == 0 {
			p.dropCancelled()
		}
		if len(p.byUntil) == 0 || p.records >= maxPassRecords && p.r.queued.Load() {
			stopped = true
			return false
		}
		return true
	})
	if err != nil {
		p.failAll(err)
		return
	}
	if !stopped {
		p.pos = until // the offsets not returned below until are holes
	}
	p.finishUpTo(p.pos)
	if len(p.byUntil) == 0 {
		return
	}
	// Ends beyond this pass: queued again, behind those already waiting.
	h.readersMu.Lock()
	p.r.cut = stopped
	for _, rd := range p.byUntil {
		rd.next, rd.heapIdx = max(rd.next, p.pos), -1
		p.r.waiting = append(p.r.waiting, rd)
	}
	p.r.queued.Store(true)
	h.readersMu.Unlock()
	p.byUntil = nil
}

// finishUpTo answers the catch-ups whose range ends at or before off: every
// offset below off has been passed.
func (p *pass) finishUpTo(off int64) {
	for len(p.byUntil) > 0 && p.byUntil[0].until <= off {
		rd := p.byUntil[0]
		rd.next = rd.until
		p.finish(rd, nil)
	}
}

// deliver hands rec to the catch-ups of its key that need it, building each
// endpoint's frame once.
func (p *pass) deliver(rec Record) {
	var (
		f     *Frame
		fep   *endpointState
		ended []*catchUpRead
	)
	for _, rd := range p.byKey[string(rec.Key)] {
		if rec.Offset < rd.next || rec.Offset >= rd.until {
			continue
		}
		if rd.cancelled.Load() {
			ended = append(ended, rd)
			continue
		}
		s := rd.s
		if s.ep != fep {
			fep = s.ep
			fep.mu.Lock()
			f = fep.newFrame(rec)
			fep.mu.Unlock()
		}
		s.mu.Lock()
		stale := s.closed || s.gen != rd.gen || f.Epoch != rd.epoch
		if !stale {
			s.deliverLocked(f, nil)
		}
		s.mu.Unlock()
		rd.next = rec.Offset + 1
		if stale {
			// Superseded or closed: the requester's goLive finds out.
			ended = append(ended, rd)
		}
	}
	for _, rd := range ended {
		p.finish(rd, nil)
	}
}

// dropCancelled removes the catch-ups whose requester stopped waiting, so a long
// pass does not go on reading for nobody.
func (p *pass) dropCancelled() {
	for i := 0; i < len(p.byUntil); {
		if rd := p.byUntil[i]; rd.cancelled.Load() {
			p.finish(rd, nil)
			continue // the heap moved another one to i
		}
		i++
	}
}

// finish takes rd out of the pass and answers it.
func (p *pass) finish(rd *catchUpRead, err error) {
	if rd.heapIdx >= 0 {
		heap.Remove(&p.byUntil, rd.heapIdx)
	}
	rds := p.byKey[rd.key]
	for i, x := range rds {
		if x == rd {
			last := len(rds) - 1
			rds[i], rds[last] = rds[last], nil
			rds = rds[:last]
			break
		}
	}
	if len(rds) == 0 {
		delete(p.byKey, rd.key)
	} else {
		p.byKey[rd.key] = rds
	}
	rd.done <- err
}

func (p *pass) failAll(err error) {
	for len(p.byUntil) > 0 {
		p.finish(p.byUntil[0], err)
	}
}

// gapIfCurrent reports a gap unless s was closed or restarted since gen.
func (s *Subscription) gapIfCurrent(gen int, part int32, from, to int64, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen == gen {
		s.gapLocked(part, from, to, reason)
	}
}

// untilHeap orders a pass's catch-ups by where they end.
type untilHeap []*catchUpRead

func (q untilHeap) Len() int           { return len(q) }
func (q untilHeap) Less(i, j int) bool { return q[i].until < q[j].until }
func (q untilHeap) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].heapIdx, q[j].heapIdx = i, j
}
func (q *untilHeap) Push(x any) {
	rd := x.(*catchUpRead)
	rd.heapIdx = len(*q)
	*q = append(*q, rd)
}
func (q *untilHeap) Pop() any {
	old := *q
	rd := old[len(old)-1]
	old[len(old)-1] = nil
	rd.heapIdx = -1
	*q = old[:len(old)-1]
	return rd
}
