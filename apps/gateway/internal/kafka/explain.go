package kafka

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Explain returns err prefixed with the one setting to fix, and why, when it
// is a failure to secure or authenticate a connection the settings explain (a
// rejected password, an unknown CA, a TLS port spoken to in plaintext, …);
// other errors, and a token request's error (which names its own setting),
// are returned as they are. The result wraps err. No secret is in it:
// franz-go's and crypto/tls's errors carry none.
func (s Security) Explain(err error) error {
	if err == nil {
		return nil
	}
	setting, why := s.diagnose(err)
	if setting == "" {
		return err
	}
	return &explained{msg: setting + ": " + why, err: err}
}

// explained is an error Explain recognised.
type explained struct {
	msg string
	err error
}

func (e *explained) Error() string { return e.msg + " (" + e.err.Error() + ")" }
func (e *explained) Unwrap() error { return e.err }

func (s Security) diagnose(err error) (setting, why string) {
	var (
		already *explained
		token   *tokenError
	)
	if errors.As(err, &already) || errors.As(err, &token) {
		// Named already. A token request's error may wrap a TLS or dial
		// error that would otherwise be taken for a broker's.
		return "", ""
	}
	mechanism := ""
	if s.SASL != nil {
		mechanism = s.SASL.Name()
	}
	var (
		unknownCA x509.UnknownAuthorityError
		hostname  x509.HostnameError
		invalid   x509.CertificateInvalidError
		header    tls.RecordHeaderError
		handshake handshakeError
		opErr     *net.OpError
	)
	switch {
	case errors.Is(err, kerr.SaslAuthenticationFailed) && mechanism == "OAUTHBEARER":
		// The token endpoint issued a token the broker does not take: its
		// audience, issuer or scope is another cluster's.
		client := "this client"
		if b, ok := s.SASL.(bearerMechanism); ok {
			client = fmt.Sprintf("client %q", b.clientID)
		}
		return "KAFKA_SASL_OAUTHBEARER_CLIENT_ID", "the broker refused the OAUTHBEARER token issued to " + client + ": is it a client of this cluster? (check the client and the broker's OAuth settings)"
	case errors.Is(err, kerr.SaslAuthenticationFailed):
		return "KAFKA_SASL_PASSWORD", fmt.Sprintf("the broker rejected the %s user name or password (KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD or KAFKA_SASL_PASSWORD_FILE)", mechanism)
	case errors.Is(err, kerr.UnsupportedSaslMechanism):
		return "KAFKA_SASL_MECHANISM", fmt.Sprintf("the broker does not accept %s on this listener", mechanism)
	case errors.As(err, &unknownCA):
		return "KAFKA_TLS_CA_FILE", "the broker's certificate is not signed by a CA in KAFKA_TLS_CA_FILE (or the system's roots when unset)"
	case errors.As(err, &hostname):
		return "KAFKA_TLS_SERVER_NAME", fmt.Sprintf("the broker's certificate is not valid for %q; set KAFKA_TLS_SERVER_NAME to a name it holds", hostname.Host)
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return "KAFKA_TLS_CA_FILE", "the broker's certificate (or a CA of its chain) has expired or is not valid yet"
	case errors.As(err, &invalid):
		return "KAFKA_TLS_CA_FILE", "the broker's certificate does not verify against KAFKA_TLS_CA_FILE"
	case errors.As(err, &opErr) && opErr.Op == "remote error" && strings.Contains(opErr.Err.Error(), "certificate"):
		// A TLS alert from the broker about our certificate: missing,
		// expired, or signed by a CA it does not trust.
		return "KAFKA_TLS_CERT_FILE", "the broker rejected the client certificate (" + opErr.Err.Error() + "); check KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE"
	case errors.As(err, &header), errors.As(err, &handshake) && (errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)):
		// Not a TLS answer, or the connection closed during the handshake:
		// a plaintext listener.
		return "KAFKA_SECURITY_PROTOCOL", "the broker did not answer in TLS: is this a plaintext listener? Use its TLS port, or set KAFKA_SECURITY_PROTOCOL to PLAINTEXT or SASL_PLAINTEXT"
	case s.TLS == nil && strings.Contains(err.Error(), "invalid large response size"):
		return "KAFKA_SECURITY_PROTOCOL", "the broker's answer is not Kafka's: is this a TLS listener? Set KAFKA_SECURITY_PROTOCOL to SSL or SASL_SSL"
	}
	return "", ""
}
