package edge

import (
	"bufio"
	"io"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sluicehq/sluice/apps/gateway/internal/wsframe"
)

// A connection that had frames written since the previous ping round is neither
// pinged nor dropped as idle, though it never sends anything: its traffic keeps
// proxies open, and the kernel drops a peer that stops acknowledging it
// (TCP_USER_TIMEOUT, set to the idle timeout). A connection without traffic is
// pinged, and dropped when it leaves the ping unanswered for the idle timeout.
// The rounds are driven by hand (the loop's own interval is an hour), so the
// test does not depend on the machine's timing.
func TestConnectionsWithTrafficAreNotPinged(t *testing.T) {
	const idle = 300 * time.Millisecond
	s, url := newWSTestServer(t, Options{PingInterval: time.Hour, IdleTimeout: idle, AuthTimeout: time.Hour})
	busy := rawUpgrade(t, url)
	quiet := rawUpgrade(t, url)
	byPeer := map[string]*wsConn{}
	deadline := time.Now().Add(5 * time.Second)
	for len(byPeer) < 2 && time.Now().Before(deadline) {
		s.mu.Lock()
		for sess := range s.sessions {
			c := sess.(*wsConn)
			byPeer[c.nc.RemoteAddr().String()] = c
		}
		s.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	busyConn, quietConn := byPeer[busy.LocalAddr().String()], byPeer[quiet.LocalAddr().String()]
	if busyConn == nil || quietConn == nil {
		t.Fatalf("server connections not found (%d registered)", len(byPeer))
	}
	for _, c := range []*wsConn{busyConn, quietConn} {
		ms, err := unix.GetsockoptInt(int(c.fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT)
		if err != nil || ms != int(idle.Milliseconds()) {
			t.Fatalf("TCP_USER_TIMEOUT = %d (%v), want %d", ms, err, idle.Milliseconds())
		}
	}
	busyR, quietR := bufio.NewReader(busy), bufio.NewReader(quiet)
	_ = busy.SetReadDeadline(time.Now().Add(10 * time.Second))
	_ = quiet.SetReadDeadline(time.Now().Add(10 * time.Second))

	// Rounds whose clock (now) moves on fast enough that the quiet connection's
	// ping goes unanswered for the idle timeout by the third; busy gets a message
	// between each round's start (prev, the real clock, which writes use) and
	// its visit.
	now := time.Now()
	for round := 1; round <= 3; round++ {
		prev := time.Now().UnixNano()
		busyConn.send([]byte(`{"type":"message"}`))
		now = now.Add(idle / 2)
		busyConn.ping(now, prev)
		quietConn.ping(now, prev)
	}
	// busy got its three messages and nothing else; a marker sent now is next.
	busyConn.send([]byte(`{"type":"marker"}`))
	for i := range 4 {
		if op, err := readServerFrame(busyR); err != nil || op != wsframe.OpText {
			t.Fatalf("busy client, frame %d: opcode %#x, %v; want only text frames", i, op, err)
		}
	}
	// quiet was pinged at rounds 1 and 2, and dropped at round 3: the idle
	// timeout after the first unanswered ping.
	pings := 0
	for {
		op, err := readServerFrame(quietR)
		if err != nil {
			break // closed
		}
		if op != wsframe.OpPing {
			t.Fatalf("quiet client: opcode %#x, want pings only", op)
		}
		pings++
	}
	if pings != 2 {
		t.Fatalf("quiet client got %d pings before being dropped, want 2", pings)
	}
	// busy is still served after those rounds.
	busyConn.send([]byte(`{"type":"after"}`))
	if op, err := readServerFrame(busyR); err != nil || op != wsframe.OpText {
		t.Fatalf("busy client after the rounds: opcode %#x, %v", op, err)
	}
}

// readServerFrame reads one unmasked server frame with a payload under 64 KiB
// and returns its opcode.
func readServerFrame(r *bufio.Reader) (byte, error) {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, err
	}
	n := int(h[1] & 0x7f)
	if n == 126 {
		var ext [2]byte
		if _, err := io.ReadFull(r, ext[:]); err != nil {
			return 0, err
		}
		n = int(ext[0])<<8 | int(ext[1])
	}
	if _, err := io.CopyN(io.Discard, r, int64(n)); err != nil {
		return 0, err
	}
	return h[0] & 0x0f, nil
}
