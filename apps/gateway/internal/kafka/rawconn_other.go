//go:build !unix

package kafka

import (
	"context"
	"net"
)

// dialBroker is a plain dial where package rawio is not built.
func dialBroker(ctx context.Context, network, host string) (net.Conn, error) {
	d := net.Dialer{Timeout: brokerDialTimeout}
	return d.DialContext(ctx, network, host)
}
