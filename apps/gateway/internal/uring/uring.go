//go:build linux

// Package uring is the small part of Linux's io_uring the gateway uses: a ring
// that sends a batch of buffers to many sockets with one system call.
//
// Why not writev(2) per socket: on the fan-out path a write per delivered
// message per socket is most of the gateway's CPU, and on this kind of VM a
// system call's own cost (entry, the file lookup, the return that lets a woken
// reader run) is a large part of each write. Submitting a routing job's sends
// together pays it once per batch (bench/iouring-probe measured 1–1.8 µs saved
// per send at 8–200 sends per submission; docs/benchmarks.md).
//
// Only what the gateway needs: non-blocking sends (MSG_DONTWAIT), which the
// kernel completes during the submitting call, so Submit returns with every
// completion of the batch and a buffer is never used by the kernel after it
// returns. No Go module of this kind is served to these machines, and the ABI
// used here is a handful of fixed structures (include/uapi/linux/io_uring.h).
package uring

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Opcodes and flags of the kernel ABI used here.
const (
	opSendmsg = 9
	opSend    = 26

	setupSubmitAll = 1 << 7 // keep submitting a batch after a request fails (5.18)
	featSingleMmap = 1 << 0 // the two rings share one mapping (5.4)

	enterGetEvents = 1 << 0

	offSQRing = 0
	offCQRing = 0x8000000
	offSQEs   = 0x10000000

	// sendFlags: never wait for the socket (a full one completes with
	// EAGAIN instead of being retried later by the kernel), and no SIGPIPE.
	sendFlags = unix.MSG_DONTWAIT | unix.MSG_NOSIGNAL
)

// sqe is a submission queue entry (struct io_uring_sqe, 64 bytes).
type sqe struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64
	len         uint32
	opFlags     uint32
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFdIn  int32
	addr3       uint64
	_           uint64
}

// cqe is a completion queue entry (struct io_uring_cqe, 16 bytes).
type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

// params is struct io_uring_params (120 bytes).
type params struct {
	sqEntries    uint32
	cqEntries    uint32
	flags        uint32
	sqThreadCPU  uint32
	sqThreadIdle uint32
	features     uint32
	wqFD         uint32
	resv         [3]uint32
	sqOff        struct {
		head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
		userAddr                                                        uint64
	}
	cqOff struct {
		head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
		userAddr                                                        uint64
	}
}

// Ring is one io_uring instance. It is not safe for concurrent use: each
// routing worker of the gateway owns one.
type Ring struct {
	fd int

	sqRing, cqRing, sqeMem []byte

	sqHead, sqTail *uint32
	sqMask         uint32
	sqEntries      uint32
	sqArray        []uint32
	sqes           []sqe

	cqHead, cqTail *uint32
	cqMask         uint32
	cqes           []cqe

	queued uint32 // entries written since the last Submit
	broken bool   // a Submit failed: see ErrBroken
}

// ErrBroken is returned by a Submit that could not hand every send to the
// kernel or wait for them: the sends that completed were reported, the others
// never will be, and the ring takes no more (its owner closes it and writes
// another way).
var ErrBroken = errors.New("io_uring: ring unusable")

// New sets up a ring of at least entries submission slots (a power of two).
// It fails where the kernel has no io_uring or forbids it (ENOSYS; EPERM under
// kernel.io_uring_disabled or a container's seccomp profile): callers fall back
// to writev.
func New(entries uint32) (*Ring, error) {
	var p params
	p.flags = setupSubmitAll
	fd, err := setup(entries, &p)
	if err == unix.EINVAL {
		p = params{} // a kernel before 5.18: without SUBMIT_ALL
		fd, err = setup(entries, &p)
	}
	if err != nil {
		return nil, fmt.Errorf("io_uring_setup: %w", err)
	}
	r := &Ring{fd: fd}
	if err := r.mapRings(&p); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func setup(entries uint32, p *params) (int, error) {
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(p)), 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

func (r *Ring) mapRings(p *params) error {
	if p.features&featSingleMmap == 0 {
		return errors.New("io_uring: the kernel lacks IORING_FEAT_SINGLE_MMAP (5.4)")
	}
	sqSize := int(p.sqOff.array) + int(p.sqEntries)*4
	cqSize := int(p.cqOff.cqes) + int(p.cqEntries)*int(unsafe.Sizeof(cqe{}))
	size := max(sqSize, cqSize)
	ring, err := unix.Mmap(r.fd, offSQRing, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return fmt.Errorf("io_uring: mmap rings: %w", err)
	}
	r.sqRing, r.cqRing = ring, ring
	sqeMem, err := unix.Mmap(r.fd, offSQEs, int(p.sqEntries)*int(unsafe.Sizeof(sqe{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return fmt.Errorf("io_uring: mmap entries: %w", err)
	}
	r.sqeMem = sqeMem

	base := unsafe.Pointer(&ring[0])
	r.sqHead = (*uint32)(unsafe.Add(base, p.sqOff.head))
	r.sqTail = (*uint32)(unsafe.Add(base, p.sqOff.tail))
	r.sqMask = *(*uint32)(unsafe.Add(base, p.sqOff.ringMask))
	r.sqEntries = p.sqEntries
	r.sqArray = unsafe.Slice((*uint32)(unsafe.Add(base, p.sqOff.array)), p.sqEntries)
	r.sqes = unsafe.Slice((*sqe)(unsafe.Pointer(&sqeMem[0])), p.sqEntries)
	r.cqHead = (*uint32)(unsafe.Add(base, p.cqOff.head))
	r.cqTail = (*uint32)(unsafe.Add(base, p.cqOff.tail))
	r.cqMask = *(*uint32)(unsafe.Add(base, p.cqOff.ringMask))
	r.cqes = unsafe.Slice((*cqe)(unsafe.Add(base, p.cqOff.cqes)), p.cqEntries)
	// The indirection array maps slot i to entry i once and for all.
	for i := range r.sqArray {
		r.sqArray[i] = uint32(i)
	}
	return nil
}

// Entries is how many sends one Submit can take.
func (r *Ring) Entries() int { return int(r.sqEntries) }

// next returns the next free submission entry, cleared, or nil when the batch
// is full.
func (r *Ring) next() *sqe {
	if r.queued == r.sqEntries || r.broken {
		return nil
	}
	tail := *r.sqTail + r.queued // only this goroutine moves the tail
	e := &r.sqes[tail&r.sqMask]
	*e = sqe{}
	r.queued++
	return e
}

// Send queues a send of the n bytes at buf to the socket fd, tagged tag. The
// memory must stay allocated until Submit returns (Go's collector does not move
// heap objects; the caller keeps them reachable). It reports false when the
// batch is full.
func (r *Ring) Send(fd int32, buf *byte, n int, tag uint64) bool {
	e := r.next()
	if e == nil {
		return false
	}
	e.opcode, e.fd = opSend, fd
	e.addr, e.len = uint64(uintptr(unsafe.Pointer(buf))), uint32(n)
	e.opFlags, e.userData = sendFlags, tag
	return true
}

// Sendmsg queues a send of the buffers msg points to (a gathered write, as
// writev), tagged tag; see Send.
func (r *Ring) Sendmsg(fd int32, msg *unix.Msghdr, tag uint64) bool {
	e := r.next()
	if e == nil {
		return false
	}
	e.opcode, e.fd = opSendmsg, fd
	e.addr, e.len = uint64(uintptr(unsafe.Pointer(msg))), 1
	e.opFlags, e.userData = sendFlags, tag
	return true
}

// Submit hands the queued sends to the kernel and calls done with each one's
// tag and result (bytes sent, or a negated errno: -EAGAIN when the socket's
// buffer was full) once all have completed. done must not queue on r.
func (r *Ring) Submit(done func(tag uint64, res int32)) error {
	n := r.queued
	if r.broken {
		return ErrBroken
	}
	if n == 0 {
		return nil
	}
	atomic.StoreUint32(r.sqTail, *r.sqTail+n) // publishes the entries
	r.queued = 0
	submitted := uint32(0)
	for submitted < n {
		// A raw call: sends with MSG_DONTWAIT complete inside it, so it does
		// not block, and the runtime's system-call bookkeeping would cost
		// more than the call saves (see package rawio).
		got, _, errno := unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(n-submitted), 0, 0, 0, 0)
		switch {
		case errno == unix.EINTR:
			continue
		case errno != 0:
			// The kernel took none of the rest (EBUSY: completions to reap
			// first, which cannot be, as each Submit reaps all of its own).
			// What it took completes as usual; the rest never will, and the
			// ring must not be used again (ErrBroken).
			r.reap(done)
			r.broken = true
			return fmt.Errorf("%w: io_uring_enter: %w", ErrBroken, errno)
		}
		submitted += uint32(got)
	}
	for reaped := 0; reaped < int(n); {
		reaped += r.reap(done)
		if reaped < int(n) {
			// A send the kernel finished elsewhere (it should not, with
			// MSG_DONTWAIT): wait for it, letting the runtime know it may.
			_, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), 0, uintptr(int(n)-reaped), enterGetEvents, 0, 0)
			if errno != 0 && errno != unix.EINTR {
				r.broken = true
				return fmt.Errorf("%w: io_uring_enter (waiting): %w", ErrBroken, errno)
			}
		}
	}
	return nil
}

// reap calls done for each completion there is and returns how many.
func (r *Ring) reap(done func(tag uint64, res int32)) int {
	head, tail := *r.cqHead, atomic.LoadUint32(r.cqTail)
	n := int(tail - head)
	for ; head != tail; head++ {
		c := &r.cqes[head&r.cqMask]
		done(c.userData, c.res)
	}
	atomic.StoreUint32(r.cqHead, head)
	return n
}

// Close releases the ring.
func (r *Ring) Close() {
	if r.sqeMem != nil {
		_ = unix.Munmap(r.sqeMem)
		r.sqeMem = nil
	}
	if r.sqRing != nil {
		_ = unix.Munmap(r.sqRing)
		r.sqRing, r.cqRing = nil, nil
	}
	if r.fd >= 0 {
		_ = unix.Close(r.fd)
		r.fd = -1
	}
}
