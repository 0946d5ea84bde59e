package auth

import (
	"fmt"
	"testing"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// BenchmarkAllows measures the per-subscribe/per-publish permission check; it
// must report 0 allocs/op.
func BenchmarkAllows(b *testing.B) {
	small, err := NewPermissions([]string{"/prices/*", "/news/caf%C3%A9"}, []string{"/orders/eu"}, []string{"/chat/lobby"})
	if err != nil {
		b.Fatal(err)
	}
	var many []string
	for i := range 200 {
		many = append(many, fmt.Sprintf("/t/key-%d", i))
	}
	large, err := NewPermissions(append(many, "/prices/*"), nil, []string{"/vehicles/1/*"})
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name string
		p    Permissions
		op   protocol.Op
		path string
	}{
		{"small/prefix-hit", small, protocol.OpSubscribe, "/prices/AAPL"},
		{"small/exact-hit", small, protocol.OpPublish, "/orders/eu"},
		{"small/miss", small, protocol.OpPublish, "/orders/us"},
		{"large/exact-hit", large, protocol.OpSubscribe, "/t/key-150"},
		{"large/prefix-hit", large, protocol.OpSubscribe, "/vehicles/1/speed"},
		{"large/miss", large, protocol.OpSubscribe, "/t/key-999"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.p.Allows(c.op, c.path) // b.Loop keeps the call from being optimised away
			}
		})
	}
}

// BenchmarkVerify measures a full Verify per algorithm (done once per
// connection and per refresh).
func BenchmarkVerify(b *testing.B) {
	e := newEnv(b)
	v := e.verifier(t0)
	for _, alg := range []string{AlgES256, AlgEdDSA, AlgRS256} {
		tok := e.sign(b, alg, claimsAt(t0))
		b.Run(alg, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, perr := v.Verify(tok); perr != nil {
					b.Fatal(perr)
				}
			}
		})
	}
}

// BenchmarkRecheck measures the periodic sweep's per-connection cost.
func BenchmarkRecheck(b *testing.B) {
	e := newEnv(b)
	v := e.verifier(t0)
	c, perr := v.Verify(e.sign(b, AlgEdDSA, claimsAt(t0)))
	if perr != nil {
		b.Fatal(perr)
	}
	b.ReportAllocs()
	for b.Loop() {
		if perr := v.Recheck(c); perr != nil {
			b.Fatal(perr)
		}
	}
}
