//go:build !linux

package edge

import (
	"log/slog"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/lockorder"
)

// goPoller is the portable poller: one goroutine per connection waits in Go's
// own poller for the socket to become readable (Linux uses epoller, without it).
type goPoller struct {
	mu     lockorder.Mutex[lockorder.Alone]
	wakeup map[*wsConn]chan struct{}
}

func newPoller(*slog.Logger) (poller, error) {
	return &goPoller{wakeup: map[*wsConn]chan struct{}{}}, nil
}

func (p *goPoller) watch(c *wsConn) error {
	rearm := make(chan struct{}, 1)
	p.mu.Lock()
	p.wakeup[c] = rearm
	p.mu.Unlock()
	go func() {
		for {
			first := true
			// Returning false once makes RawConn.Read wait until the socket is
			// readable (or closed).
			if err := c.rc.Read(func(uintptr) bool { r := !first; first = false; return r }); err != nil {
				return
			}
			c.onReadable()
			select {
			case <-rearm:
			case <-c.done:
				return
			}
		}
	}()
	return nil
}

func (p *goPoller) rearm(c *wsConn) error {
	p.mu.Lock()
	ch := p.wakeup[c]
	p.mu.Unlock()
	if ch != nil {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	return nil
}

func (p *goPoller) forget(c *wsConn) {
	p.mu.Lock()
	delete(p.wakeup, c)
	p.mu.Unlock()
}

func (p *goPoller) close() {}

// Without TCP_USER_TIMEOUT the ping loop pings every connection.
const userTimeoutSupported = false

func setUserTimeout(int, time.Duration) error { return nil }
