//go:build linux

package edge

import (
	"log/slog"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sluicehq/sluice/apps/gateway/internal/lockorder"
)

// epoller watches every WebSocket of the node with one epoll instance, so a
// connection waiting for its client costs no goroutine (a goroutine parked in a
// read keeps an 8 KiB stack: at tens of thousands of connections that was a third
// of the gateway's memory). Each socket is armed one-shot: its readiness starts a
// goroutine that reads what is there, and the socket is armed again only after
// that goroutine handled it, so a connection's frames are handled in order and
// one at a time.
//
// Go's own poller keeps the descriptors too (net.Conn still writes through it
// when a socket's buffer is full); a descriptor may sit in two epoll sets.
type epoller struct {
	fd   int
	file *os.File        // fd, watched by Go's own poller: see run
	rc   syscall.RawConn // of file
	log  *slog.Logger
	// conns by poll id (a reused descriptor number is never mistaken for its
	// predecessor), in shards: when a node tells all its clients to reconnect
	// elsewhere, thousands of connections close at once (a goroutine dump of a
	// node shutting down with 19,000 clients had 1,489 waiting for one mutex).
	shards [pollShards]pollShard
}

const pollShards = 64

type pollShard struct {
	mu    lockorder.Mutex[lockorder.Alone]
	conns map[uint64]*wsConn
}

func (p *epoller) shard(id uint64) *pollShard { return &p.shards[id%pollShards] }

func newPoller(log *slog.Logger) (poller, error) {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, err
	}
	// A non-blocking descriptor given to os.NewFile joins Go's poller.
	file := os.NewFile(uintptr(fd), "epoll")
	rc, err := file.SyscallConn()
	if err != nil {
		file.Close()
		return nil, err
	}
	p := &epoller{fd: fd, file: file, rc: rc, log: log}
	for i := range p.shards {
		p.shards[i].conns = map[uint64]*wsConn{}
	}
	go p.run()
	return p, nil
}

const armed = unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLONESHOT

func (p *epoller) watch(c *wsConn) error {
	sh := p.shard(c.pollID)
	sh.mu.Lock()
	sh.conns[c.pollID] = c
	sh.mu.Unlock()
	select {
	case <-c.done:
		// Closed while being set up (it is tracked before it is watched): its
		// forget may have run before the line above.
		p.forget(c)
		return nil
	default:
	}
	return p.ctl(unix.EPOLL_CTL_ADD, c)
}

func (p *epoller) rearm(c *wsConn) error { return p.ctl(unix.EPOLL_CTL_MOD, c) }

func (p *epoller) forget(c *wsConn) {
	sh := p.shard(c.pollID)
	sh.mu.Lock()
	delete(sh.conns, c.pollID)
	sh.mu.Unlock()
	// Closing the descriptor would drop it from the set anyway; deleting first
	// keeps a late event from naming a connection that is going away.
	_ = p.ctl(unix.EPOLL_CTL_DEL, c)
}

// ctl runs inside RawConn.Control, which holds the descriptor open meanwhile.
func (p *epoller) ctl(op int, c *wsConn) error {
	ev := unix.EpollEvent{Events: armed, Fd: int32(uint32(c.pollID)), Pad: int32(uint32(c.pollID >> 32))}
	var err error
	if cerr := c.rc.Control(func(fd uintptr) { err = unix.EpollCtl(p.fd, op, int(fd), &ev) }); cerr != nil {
		return cerr
	}
	return err
}

// run hands every reported socket to a new goroutine. The epoll descriptor is
// itself readable while it has events, so the wait happens in Go's poller:
// epoll_wait is only called, with no timeout, once there is something to take.
// (Blocking in epoll_wait would hold a thread in a system call, which the
// runtime's monitor then keeps checking at its fastest rate.)
func (p *epoller) run() {
	events := make([]unix.EpollEvent, 512)
	for {
		var n int
		var werr syscall.Errno
		err := p.rc.Read(func(fd uintptr) bool {
			n, werr = epollWaitNow(fd, events)
			// Nothing there (or interrupted): wait until there is.
			return !(n <= 0 && (werr == 0 || werr == syscall.EINTR))
		})
		if err != nil {
			return // closed
		}
		if werr != 0 {
			p.log.Error("epoll_wait failed; WebSocket reads stop", "err", werr)
			return
		}
		for i := range events[:n] {
			id := uint64(uint32(events[i].Fd)) | uint64(uint32(events[i].Pad))<<32
			sh := p.shard(id)
			sh.mu.Lock()
			c := sh.conns[id]
			sh.mu.Unlock()
			if c != nil {
				go c.onReadable()
			}
		}
	}
}

// epollWaitNow takes the ready events without waiting, as a raw system call
// (see package rawio for why).
func epollWaitNow(epfd uintptr, events []unix.EpollEvent) (int, syscall.Errno) {
	r, _, e := syscall.RawSyscall6(unix.SYS_EPOLL_PWAIT, epfd, uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 0, 0, 0)
	return int(r), e
}

func (p *epoller) close() { _ = p.file.Close() }

// userTimeoutSupported says setUserTimeout works here: the ping loop then
// leaves connections with traffic to it.
const userTimeoutSupported = true

// setUserTimeout makes the kernel drop the connection when data it sent stays
// unacknowledged for d (TCP_USER_TIMEOUT): a vanished peer of a connection
// carrying messages is found without pinging it.
func setUserTimeout(fd int, d time.Duration) error {
	return unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(d.Milliseconds()))
}
