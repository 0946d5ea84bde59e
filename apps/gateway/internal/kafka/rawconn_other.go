//go:build !unix

package kafka

import (
	"context"
	"net"
	"time"
)

// dialBroker is a plain dial where package rawio is not built.
func dialBroker(ctx context.Context, network, host string) (net.Conn, error) {
	d := net.Dialer{Timeout: 10 * time.Second}
	return d.DialContext(ctx, network, host)
}
