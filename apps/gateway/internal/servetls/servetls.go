// Package servetls serves the gateway's own TLS: a certificate and key read
// from files and read again when either changes, so a renewed certificate
// (cert-manager, certbot, a mounted Kubernetes Secret) is used without a
// restart and without dropping a connection.
package servetls

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"
)

// Certificate is the pair in use. Handshakes read it without a lock; Watch
// replaces it.
type Certificate struct {
	certFile, keyFile string
	current           atomic.Pointer[loaded]
}

type loaded struct {
	cert *tls.Certificate
	// digest of both files' bytes: a rewrite with the same content (a
	// Kubernetes Secret volume re-linked) is no change.
	digest   [32]byte
	notAfter time.Time
}

// Load reads the pair once; its error names the file to fix.
func Load(certFile, keyFile string) (*Certificate, error) {
	c := &Certificate{certFile: certFile, keyFile: keyFile}
	l, err := c.read()
	if err != nil {
		return nil, err
	}
	c.current.Store(l)
	return c, nil
}

func (c *Certificate) read() (*loaded, error) {
	certPEM, err := os.ReadFile(c.certFile)
	if err != nil {
		return nil, fmt.Errorf("SLUICE_GATEWAY_TLS_CERT_FILE: %w", err)
	}
	keyPEM, err := os.ReadFile(c.keyFile)
	if err != nil {
		return nil, fmt.Errorf("SLUICE_GATEWAY_TLS_KEY_FILE: %w", err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("SLUICE_GATEWAY_TLS_CERT_FILE and SLUICE_GATEWAY_TLS_KEY_FILE: not a PEM certificate and its key: %w", err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, fmt.Errorf("SLUICE_GATEWAY_TLS_CERT_FILE: %w", err)
	}
	pair.Leaf = leaf
	return &loaded{cert: &pair, digest: sha256.Sum256(append(certPEM, keyPEM...)), notAfter: leaf.NotAfter}, nil
}

// NotAfter is when the certificate in use expires.
func (c *Certificate) NotAfter() time.Time { return c.current.Load().notAfter }

// Leaf is the certificate in use (tests, logs).
func (c *Certificate) Leaf() *x509.Certificate { return c.current.Load().cert.Leaf }

// Watch reads both files every interval until ctx ends and swaps in a pair
// that changed and loads. A pair that does not load (a renewal caught between
// writing the certificate and writing its key) keeps the previous one in use
// and is logged, once per distinct failure; the next change is tried again.
// onChange, if set, runs after each swap (metrics).
func (c *Certificate) Watch(ctx context.Context, interval time.Duration, log *slog.Logger, onChange func(*Certificate)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	var lastErr string
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		next, err := c.read()
		if err != nil {
			if err.Error() != lastErr {
				log.Error("TLS certificate files changed but do not load; still serving the previous certificate", "err", err)
				lastErr = err.Error()
			}
			continue
		}
		lastErr = ""
		if bytes.Equal(next.digest[:], c.current.Load().digest[:]) {
			continue
		}
		c.current.Store(next)
		log.Info("TLS certificate reloaded", "subject", next.cert.Leaf.Subject.String(), "not_after", next.notAfter.UTC().Format(time.RFC3339))
		if onChange != nil {
			onChange(c)
		}
	}
}

// Config is the listener's TLS configuration: the watched certificate,
// minVersion or later, HTTP/1.1 only (a WebSocket upgrade is an HTTP/1.1
// request; HTTP/2 would need RFC 8441, which the edge does not speak). TLS
// 1.2 is limited to forward-secret AEAD suites (Go's defaults still include
// CBC ones); TLS 1.3's suites are all modern and not configurable.
func (c *Certificate) Config(minVersion uint16) *tls.Config {
	return &tls.Config{
		MinVersion:   minVersion,
		CipherSuites: modernTLS12Suites,
		NextProtos:   []string{"http/1.1"},
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return c.current.Load().cert, nil
		},
	}
}

// modernTLS12Suites are ECDHE key exchange with an AEAD cipher only.
var modernTLS12Suites = []uint16{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
}
