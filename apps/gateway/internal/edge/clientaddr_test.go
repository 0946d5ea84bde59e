package edge

import (
	"net/http"
	"net/netip"
	"testing"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

func TestClientAddrBelievesOnlyTrustedProxies(t *testing.T) {
	s := &Edge{opt: Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}}}
	cases := []struct {
		name, peer string
		xff        []string
		want       string
	}{
		{"no proxy: the peer, whatever it claims", "203.0.113.9:5000", []string{"198.51.100.1"}, "203.0.113.9"},
		{"trusted proxy without a header: the proxy", "10.1.2.3:5000", nil, "10.1.2.3"},
		{"trusted proxy: the address it received from", "10.1.2.3:5000", []string{"198.51.100.1"}, "198.51.100.1"},
		{"a client's own header is left of what the proxy appended", "10.1.2.3:5000", []string{"6.6.6.6, 198.51.100.1"}, "198.51.100.1"},
		{"two trusted hops", "10.1.2.3:5000", []string{"198.51.100.1, 10.9.9.9"}, "198.51.100.1"},
		{"two header lines read as one list", "10.1.2.3:5000", []string{"6.6.6.6, 198.51.100.1", "10.9.9.9"}, "198.51.100.1"},
		{"all hops trusted: the leftmost", "10.1.2.3:5000", []string{"10.0.0.1, 10.0.0.2"}, "10.0.0.1"},
		{"garbage stops the walk at the last good hop", "10.1.2.3:5000", []string{"6.6.6.6, unknown, 10.9.9.9"}, "10.9.9.9"},
		{"IPv6 proxy, IPv4-mapped client", "[::1]:5000", []string{"::ffff:198.51.100.1"}, "198.51.100.1"},
		{"IPv4-mapped peer matches an IPv4 prefix", "[::ffff:10.1.2.3]:5000", []string{"198.51.100.2"}, "198.51.100.2"},
	}
	for _, c := range cases {
		r := &http.Request{RemoteAddr: c.peer, Header: http.Header{}}
		for _, v := range c.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := s.clientAddr(r); got.String() != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}

func TestAddressLimitCountsAndReleases(t *testing.T) {
	l := addressLimit{max: 2}
	a, b := netip.MustParseAddr("198.51.100.1"), netip.MustParseAddr("198.51.100.2")
	for i := 0; i < 2; i++ {
		if err := l.acquire(a); err != nil {
			t.Fatalf("connection %d refused: %v", i+1, err)
		}
	}
	err := l.acquire(a)
	if err == nil || err.Code != protocol.CodeAddressLimit || err.Code.HTTPStatus() != http.StatusTooManyRequests {
		t.Fatalf("third connection: %v, want 4294 (HTTP 429)", err)
	}
	if err := l.acquire(b); err != nil {
		t.Fatalf("another address refused: %v", err)
	}
	l.release(a)
	if err := l.acquire(a); err != nil {
		t.Fatalf("after a release: %v", err)
	}
	l.release(a)
	l.release(a)
	l.release(b)
	if len(l.count) != 0 {
		t.Fatalf("counts left after every release: %v", l.count)
	}
	off := addressLimit{}
	for i := 0; i < 1000; i++ {
		if err := off.acquire(a); err != nil {
			t.Fatal("no bound refused a connection")
		}
	}
	if off.count != nil {
		t.Fatal("no bound still counted")
	}
}
