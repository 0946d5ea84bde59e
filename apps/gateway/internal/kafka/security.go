package kafka

import (
	"context"
	"crypto/tls"
	"net"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
)

// Security is how every connection to a broker is secured: TLS around the
// dialled connection and a SASL mechanism after it. The zero value is
// plaintext without SASL, the connection Sluice's own local Kafka expects.
// package config builds it from the KAFKA_SECURITY_PROTOCOL, KAFKA_TLS_* and
// KAFKA_SASL_* settings.
type Security struct {
	// TLS, when set, wraps every broker connection in a TLS client. An empty
	// ServerName is the broker's host name, per connection.
	TLS *tls.Config
	// SASL, when set, authenticates every broker connection.
	SASL sasl.Mechanism
}

// Opts are the franz-go options that secure a client's connections: the
// dialer (TLS when set) and the SASL mechanism. Every client of the gateway
// gets them through clientOpts; programs outside it (bench/) through
// package kafkaenv.
func (s Security) Opts() []kgo.Opt {
	opts := []kgo.Opt{kgo.Dialer(s.dialer())}
	if s.SASL != nil {
		opts = append(opts, kgo.SASL(s.SASL))
	}
	return opts
}

// dialer is the dial function brokers are reached with: dialBroker itself for
// plaintext (nothing added to a connection's reads and writes), or dialBroker
// wrapped in a TLS client.
func (s Security) dialer() func(ctx context.Context, network, host string) (net.Conn, error) {
	if s.TLS == nil {
		return dialBroker
	}
	return func(ctx context.Context, network, host string) (net.Conn, error) {
		return dialTLS(ctx, s.TLS, network, host)
	}
}

// dialTLS dials host with dialBroker and completes a TLS handshake over the
// connection, both within brokerDialTimeout, so a plaintext port spoken to in
// TLS fails instead of hanging.
func dialTLS(ctx context.Context, base *tls.Config, network, host string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, brokerDialTimeout)
	defer cancel()
	raw, err := dialBroker(ctx, network, host)
	if err != nil {
		return nil, err
	}
	cfg := base
	if cfg.ServerName == "" {
		cfg = base.Clone()
		name, _, err := net.SplitHostPort(host)
		if err != nil {
			name = host
		}
		cfg.ServerName = name
	}
	conn := tls.Client(raw, cfg)
	if err := conn.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, handshakeError{err}
	}
	return conn, nil
}

// handshakeError is a failed TLS handshake, told apart so that Explain can
// name the setting to fix.
type handshakeError struct{ err error }

func (e handshakeError) Error() string { return "TLS handshake: " + e.err.Error() }
func (e handshakeError) Unwrap() error { return e.err }
