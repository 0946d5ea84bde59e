package kafka

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
)

func TestPlaintextDialerIsDialBroker(t *testing.T) {
	got := reflect.ValueOf(Security{}.dialer()).Pointer()
	if got != reflect.ValueOf(dialBroker).Pointer() {
		t.Fatal("plaintext brokers are not dialled with dialBroker itself")
	}
	if n := len((ClientOptions{Brokers: []string{"a:1"}}).clientOpts("x")); n != 3 {
		t.Fatalf("plaintext client has %d options, want 3 (no SASL)", n)
	}
}

func TestTLSDialVerifiesTheBroker(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())

	// The server name defaults to the broker's host (127.0.0.1, in the
	// test certificate).
	conn, err := Security{TLS: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}.dialer()(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatalf("TLS dial: %v", err)
	}
	if st := conn.(*tls.Conn).ConnectionState(); !st.HandshakeComplete || len(st.VerifiedChains) == 0 {
		t.Fatalf("state %+v", st)
	}
	conn.Close()

	// An override that the certificate does not name fails verification.
	_, err = Security{TLS: &tls.Config{RootCAs: pool, ServerName: "kafka.example"}}.dialer()(context.Background(), "tcp", addr)
	var hostErr x509.HostnameError
	if !errors.As(err, &hostErr) {
		t.Fatalf("err = %v, want a host name mismatch", err)
	}
	// An unknown CA fails too.
	_, err = Security{TLS: &tls.Config{RootCAs: x509.NewCertPool()}}.dialer()(context.Background(), "tcp", addr)
	var authErr x509.UnknownAuthorityError
	if !errors.As(err, &authErr) {
		t.Fatalf("err = %v, want an unknown authority", err)
	}
}

func TestTLSDialToPlaintextPortFails(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Write([]byte("\x00\x00\x00\x04not tls at all"))
			c.Close()
		}
	}()
	if _, err := (Security{TLS: &tls.Config{}}).dialer()(context.Background(), "tcp", ln.Addr().String()); err == nil {
		t.Fatal("TLS to a plaintext port succeeded")
	}
}
