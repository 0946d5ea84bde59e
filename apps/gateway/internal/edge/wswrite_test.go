package edge

import (
	"bytes"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// terminate queues a closing notice then a close frame with the same code, and
// the socket is closed after them.
func TestTerminateSendsClosingNoticeThenCloseFrame(t *testing.T) {
	_, url := newWSTestServer(t, Options{AuthTimeout: 100 * time.Millisecond})
	ws := dial(t, url)
	if c := readFrame(t, ws); c["type"] != "closing" || c["code"] != float64(protocol.CodeUnauthenticated) {
		t.Fatalf("closing notice: %v", c)
	}
	if _, _, err := ws.ReadMessage(); !websocket.IsCloseError(err, int(protocol.CodeUnauthenticated)) {
		t.Fatalf("close frame: %v", err)
	}
}

// A client that sends nothing at all (not even pongs) is dropped after the idle
// timeout; one that answers pings stays.
func TestSilentClientsAreDroppedAfterTheIdleTimeout(t *testing.T) {
	s, url := newWSTestServer(t, Options{PingInterval: 50 * time.Millisecond, IdleTimeout: 300 * time.Millisecond, AuthTimeout: time.Minute})
	silent := rawUpgrade(t, url)
	alive := dial(t, url)
	go func() { // gorilla answers pings while reading
		for {
			if _, _, err := alive.ReadMessage(); err != nil {
				return
			}
		}
	}()
	_ = silent.SetReadDeadline(time.Now().Add(5 * time.Second))
	var b bytes.Buffer
	if _, err := b.ReadFrom(silent); err != nil {
		t.Fatalf("silent client: %v", err)
	}
	s.mu.Lock()
	n := len(s.sessions)
	s.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d sessions left, want the one answering pings", n)
	}
}
