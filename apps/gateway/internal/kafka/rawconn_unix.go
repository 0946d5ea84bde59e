//go:build unix

package kafka

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/sluicehq/sluice/apps/gateway/internal/rawio"
)

// dialBroker connects to a broker with a connection whose reads and writes are
// raw system calls (package rawio says why): without it, the next fetch's read
// after an idle moment was all that kept the runtime's monitor thread at its
// fastest rate.
func dialBroker(ctx context.Context, network, host string) (net.Conn, error) {
	d := net.Dialer{Timeout: brokerDialTimeout}
	conn, err := d.DialContext(ctx, network, host)
	if err != nil {
		return nil, err
	}
	tcp, ok := conn.(*net.TCPConn)
	if !ok {
		return conn, nil
	}
	rc, err := tcp.SyscallConn()
	if err != nil {
		return conn, nil
	}
	return &brokerConn{TCPConn: tcp, rc: rc}, nil
}

// brokerConn is a *net.TCPConn whose Read and Write use raw system calls and
// wait in Go's poller (deadlines apply); the rest is the TCPConn's.
type brokerConn struct {
	*net.TCPConn
	rc syscall.RawConn
}

func (c *brokerConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := c.rc.Read(func(fd uintptr) bool {
		n, errno = rawio.Read(fd, b)
		return errno != syscall.EAGAIN
	})
	switch {
	case err != nil:
		return 0, c.opError("read", err) // deadline passed or closed
	case errno != 0:
		return 0, c.opError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (c *brokerConn) Write(b []byte) (int, error) {
	written := 0
	var errno syscall.Errno
	err := c.rc.Write(func(fd uintptr) bool {
		for written < len(b) {
			n, e := rawio.Write(fd, b[written:])
			if e == syscall.EAGAIN {
				return false // the socket's buffer is full: wait for room
			}
			if e != 0 {
				errno = e
				return true
			}
			written += n
		}
		return true
	})
	switch {
	case err != nil:
		return written, c.opError("write", err)
	case errno != 0:
		return written, c.opError("write", errno)
	}
	return written, nil
}

// opError shapes an error as net.Conn's own: franz-go tells a timeout from a
// broken connection with errors.Is(err, os.ErrDeadlineExceeded) and net.Error.
func (c *brokerConn) opError(op string, err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) {
		err = oe.Err // RawConn's own wrapping names the operation "raw-read"
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
