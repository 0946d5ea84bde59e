//go:build unix

// Package rawio reads and writes non-blocking descriptors with raw system
// calls, skipping the Go runtime's system-call bookkeeping.
//
// Why: syscall.Read and friends enter the scheduler's syscall state so that
// another goroutine may have the processor while the call blocks. On a
// non-blocking socket a call never blocks, and the bookkeeping costs twice:
//   - a call that takes more than 20 µs (a write on loopback, where the kernel
//     also runs the receiver's side, often does) lets the runtime's monitor
//     hand the processor to another thread, and the goroutine then waits to get
//     one back;
//   - when the node has been idle (every processor parked, which happens
//     between Kafka fetches many times a second), entering that state wakes
//     the monitor and resets it to its fastest rate, 20 µs sleeps for the next
//     millisecond and more. In the fan-out benchmark the monitor was 8 % of
//     the gateway's CPU samples, woken by nothing but the next fetch's read.
//
// Waiting for readiness still happens in Go's network poller, through
// syscall.RawConn, which keeps deadlines working.
//
// Only for descriptors in non-blocking mode.
package rawio

import (
	"syscall"
	"unsafe"
)

// Read reads into b once (retrying an interrupted call). EAGAIN means nothing
// is there yet; 0 bytes and no error mean the peer closed its side.
func Read(fd uintptr, b []byte) (int, syscall.Errno) {
	if len(b) == 0 {
		return 0, 0
	}
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		if e != syscall.EINTR {
			return int(r), e
		}
	}
}

// Writev writes the buffers once (retrying an interrupted call) and returns
// how much the socket took; EAGAIN means its buffer is full.
func Writev(fd uintptr, iov []syscall.Iovec) (int, syscall.Errno) {
	for {
		var r uintptr
		var e syscall.Errno
		if len(iov) == 1 {
			r, _, e = syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(iov[0].Base)), uintptr(iov[0].Len))
		} else {
			r, _, e = syscall.RawSyscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&iov[0])), uintptr(len(iov)))
		}
		if e != syscall.EINTR {
			return int(r), e
		}
	}
}

// Write writes b once; see Writev.
func Write(fd uintptr, b []byte) (int, syscall.Errno) {
	if len(b) == 0 {
		return 0, 0
	}
	iov := [1]syscall.Iovec{{Base: &b[0]}}
	iov[0].SetLen(len(b))
	return Writev(fd, iov[:])
}
