package kafka

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// remoteAlert is what crypto/tls returns for a broker's alert (its alert
// type is unexported; the text is what matters).
type remoteAlert string

func (a remoteAlert) Error() string { return string(a) }

func TestExplainNamesTheSetting(t *testing.T) {
	plaintext := Security{}
	tlsOnly := Security{TLS: &tls.Config{}}
	scramTLS := Security{TLS: &tls.Config{}, SASL: scram.Auth{User: "u", Pass: "p"}.AsSha512Mechanism()}
	plainSASL := Security{SASL: plain.Auth{User: "u", Pass: "p"}.AsMechanism()}
	oauthSASL := Security{SASL: NewTokenSource("https://idp/token", "id", "secret", "").Mechanism()}
	cert := &x509.Certificate{}
	cases := []struct {
		name    string
		sec     Security
		err     error
		setting string // "": not explained
	}{
		{"wrong password", scramTLS, fmt.Errorf("sasl: %w", kerr.SaslAuthenticationFailed), "KAFKA_SASL_PASSWORD"},
		{"wrong password, PLAIN", plainSASL, kerr.SaslAuthenticationFailed, "KAFKA_SASL_PASSWORD"},
		{"token rejected", oauthSASL, kerr.SaslAuthenticationFailed, "KAFKA_SASL_OAUTHBEARER_CLIENT_ID"},
		// What franz-go returns once bearerSession has sent the %x01 after
		// Kafka's error JSON (seen from Kafka 4's OAUTHBEARER listener).
		{"token rejected, Kafka's answer", oauthSASL, fmt.Errorf("%w: %s", kerr.SaslAuthenticationFailed, `SASL Authentication failed.: {"status":"invalid_token"}`), "KAFKA_SASL_OAUTHBEARER_CLIENT_ID"},
		{"token rejected, no final answer", oauthSASL, refusedBy(t, `{"status":"invalid_token"}`, []byte("?")), "KAFKA_SASL_OAUTHBEARER_CLIENT_ID"},
		{"unknown mechanism on the OAuth listener", oauthSASL, kerr.UnsupportedSaslMechanism, "KAFKA_SASL_MECHANISM"},
		{"wrong mechanism", scramTLS, kerr.UnsupportedSaslMechanism, "KAFKA_SASL_MECHANISM"},
		{"unknown CA", tlsOnly, handshakeError{&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{Cert: cert}}}, "KAFKA_TLS_CA_FILE"},
		{"name mismatch", tlsOnly, handshakeError{x509.HostnameError{Certificate: cert, Host: "kafka-1"}}, "KAFKA_TLS_SERVER_NAME"},
		{"broker cert expired", tlsOnly, handshakeError{x509.CertificateInvalidError{Cert: cert, Reason: x509.Expired}}, "KAFKA_TLS_CA_FILE"},
		{"client cert rejected", tlsOnly, &net.OpError{Op: "remote error", Err: remoteAlert("tls: bad certificate")}, "KAFKA_TLS_CERT_FILE"},
		// Kafka's alert for an expired client certificate, met in TLS 1.3
		// on the first read after the handshake (the stack's mTLS listener).
		{"client cert expired", tlsOnly, &net.OpError{Op: "remote error", Err: remoteAlert("tls: unknown certificate")}, "KAFKA_TLS_CERT_FILE"},
		{"client cert missing", tlsOnly, fmt.Errorf("read: %w", &net.OpError{Op: "remote error", Err: remoteAlert("tls: certificate required")}), "KAFKA_TLS_CERT_FILE"},
		{"TLS to a plaintext port, garbage", tlsOnly, handshakeError{tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}}, "KAFKA_SECURITY_PROTOCOL"},
		{"TLS to a plaintext port, closed", tlsOnly, handshakeError{io.EOF}, "KAFKA_SECURITY_PROTOCOL"},
		{"TLS to a plaintext port, reset", tlsOnly, handshakeError{&net.OpError{Op: "read", Err: syscall.ECONNRESET}}, "KAFKA_SECURITY_PROTOCOL"},
		{"plaintext to a TLS port", plaintext, errors.New("invalid large response size 352518912 > limit 104857600; the first three bytes received appear to be a tls alert record for TLS v1.2; is this a plaintext connection speaking to a tls endpoint?"), "KAFKA_SECURITY_PROTOCOL"},

		{"unrelated", scramTLS, kerr.UnknownTopicOrPartition, ""},
		{"refused", tlsOnly, &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, ""},
		{"EOF after the handshake", tlsOnly, io.EOF, ""},
		{"large response with TLS on", tlsOnly, errors.New("invalid large response size 1 > limit 0"), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.sec.Explain(tc.err)
			if !errors.Is(got, tc.err) && got != tc.err {
				t.Fatalf("%v does not wrap %v", got, tc.err)
			}
			if tc.setting == "" {
				if got != tc.err {
					t.Fatalf("explained an unrelated error: %v", got)
				}
				return
			}
			if !strings.HasPrefix(got.Error(), tc.setting+": ") {
				t.Fatalf("%q does not start with %s", got, tc.setting)
			}
			if again := tc.sec.Explain(got); again != got {
				t.Fatalf("explained twice: %v", again)
			}
			if strings.Contains(got.Error(), "secret") {
				t.Fatalf("%q", got)
			}
		})
	}
	if (Security{}).Explain(nil) != nil {
		t.Fatal("nil explained")
	}
	refused := oauthSASL.Explain(kerr.SaslAuthenticationFailed).Error()
	if !strings.Contains(refused, `client "id"`) {
		t.Fatalf("%q does not name the client", refused)
	}
}

// refusedBy is the error a bearerSession fails with when the broker answers
// refusal, then final to the %x01.
func refusedBy(t *testing.T, refusal string, final []byte) error {
	t.Helper()
	s := &bearerSession{}
	if done, resp, err := s.Challenge([]byte(refusal)); done || string(resp) != "\x01" || err != nil {
		t.Fatalf("refusal: %v %q %v, want the %%x01", done, resp, err)
	}
	_, _, err := s.Challenge(final)
	return err
}

// The errors the dialer really returns are explained as the constructed ones.
func TestExplainRealTLSErrors(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	sec := Security{TLS: &tls.Config{RootCAs: x509.NewCertPool()}}
	_, err := sec.dialer()(context.Background(), "tcp", srv.Listener.Addr().String())
	if got := sec.Explain(err); err == nil || !strings.HasPrefix(got.Error(), "KAFKA_TLS_CA_FILE: ") {
		t.Fatalf("unknown CA: %v", got)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close() // a Kafka plaintext listener closes on a ClientHello
		}
	}()
	_, err = sec.dialer()(context.Background(), "tcp", ln.Addr().String())
	if got := sec.Explain(err); err == nil || !strings.HasPrefix(got.Error(), "KAFKA_SECURITY_PROTOCOL: ") {
		t.Fatalf("closed in the handshake: %v", got)
	}
}
