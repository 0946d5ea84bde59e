package edge

import (
	"net/http"
	"net/netip"
	"strings"

	"github.com/sluicehq/sluice/apps/gateway/internal/lockorder"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// This file is who a client is on the network: its address, believed from
// X-Forwarded-For only when the request came through a trusted proxy, and the
// bound on the connections one address holds.

// clientAddr is the address of the client that made r. The peer address
// counts unless it is a trusted proxy; then X-Forwarded-For is read from the
// right (each proxy appends the address it received the request from), past
// every trusted proxy, and the first address that is not one is the client.
// A header a client wrote itself sits to the left of what trusted proxies
// appended, so it is never reached unless every hop after it is trusted.
func (s *Edge) clientAddr(r *http.Request) netip.Addr {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	addr := peer.Addr().Unmap()
	if !s.trusted(addr) {
		return addr
	}
	values := r.Header.Values("X-Forwarded-For")
	for i := len(values) - 1; i >= 0; i-- {
		hops := strings.Split(values[i], ",")
		for j := len(hops) - 1; j >= 0; j-- {
			hop, err := netip.ParseAddr(strings.TrimSpace(hops[j]))
			if err != nil {
				// Not an address (a proxy that writes "unknown" or a port):
				// nothing further left can be trusted either.
				return addr
			}
			addr = hop.Unmap()
			if !s.trusted(addr) {
				return addr
			}
		}
	}
	return addr
}

func (s *Edge) trusted(a netip.Addr) bool {
	for _, p := range s.opt.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// addressLimit counts the long-lived connections (WebSocket, SSE) of each
// client address, so one address cannot take the node's descriptors from
// everyone else.
type addressLimit struct {
	max   int // 0: no bound, nothing counted
	mu    lockorder.Mutex[lockorder.Alone]
	count map[netip.Addr]int
}

// acquire counts a connection from a, or refuses it (4294) when a holds max.
func (l *addressLimit) acquire(a netip.Addr) *protocol.Error {
	if l.max == 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.count[a] >= l.max {
		return protocol.Errorf(protocol.CodeAddressLimit, "too many connections from %s (at most %d per address on this node)", a, l.max)
	}
	if l.count == nil {
		l.count = map[netip.Addr]int{}
	}
	l.count[a]++
	return nil
}

// release is acquire's reverse, once per accepted connection.
func (l *addressLimit) release(a netip.Addr) {
	if l.max == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := l.count[a]; n <= 1 {
		delete(l.count, a)
	} else {
		l.count[a] = n - 1
	}
}

// admitAddress counts a long-lived connection against its client address's
// bound, or refuses it; without a bound it counts nothing (and the address is
// not worked out at all).
func (s *Edge) admitAddress(r *http.Request) (netip.Addr, *protocol.Error) {
	if s.perAddr.max == 0 {
		return netip.Addr{}, nil
	}
	a := s.clientAddr(r)
	if err := s.perAddr.acquire(a); err != nil {
		s.opt.Metrics.FrameErrors.WithLabelValues(codeLabel(err.Code)).Inc()
		return a, err
	}
	return a, nil
}
