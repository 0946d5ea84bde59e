package servetls

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// selfSigned writes a certificate for 127.0.0.1 named cn and its key.
func selfSigned(t *testing.T, certFile, keyFile, cn string) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestLoadNamesTheSettingToFix(t *testing.T) {
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	if _, err := Load(cert, key); err == nil || !strings.Contains(err.Error(), "SLUICE_GATEWAY_TLS_CERT_FILE") {
		t.Fatalf("missing certificate: %v", err)
	}
	selfSigned(t, cert, key, "a")
	if _, err := Load(cert, filepath.Join(dir, "none.pem")); err == nil || !strings.Contains(err.Error(), "SLUICE_GATEWAY_TLS_KEY_FILE") {
		t.Fatalf("missing key: %v", err)
	}
	other := filepath.Join(dir, "other-key.pem")
	selfSigned(t, filepath.Join(dir, "c2.pem"), other, "b")
	if _, err := Load(cert, other); err == nil || !strings.Contains(err.Error(), "not a PEM certificate and its key") {
		t.Fatalf("a key of another certificate: %v", err)
	}
	c, err := Load(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	if c.Leaf().Subject.CommonName != "a" || c.NotAfter().Before(time.Now()) {
		t.Fatalf("loaded %v until %v", c.Leaf().Subject, c.NotAfter())
	}
}

type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *logBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

func TestWatchSwapsARenewedPairAndKeepsTheOldOneOnABrokenOne(t *testing.T) {
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	selfSigned(t, cert, key, "first")
	c, err := Load(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	var logs logBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := make(chan string, 4)
	go c.Watch(ctx, 10*time.Millisecond, slog.New(slog.NewTextHandler(&logs, nil)), func(c *Certificate) { changed <- c.Leaf().Subject.CommonName })
	served := func() string {
		got, err := c.Config(tls.VersionTLS12).GetCertificate(&tls.ClientHelloInfo{})
		if err != nil {
			t.Fatal(err)
		}
		return got.Leaf.Subject.CommonName
	}

	// Half a renewal: a certificate whose key is not written yet.
	selfSigned(t, cert, filepath.Join(dir, "later-key.pem"), "second")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), "do not load") {
		if time.Now().After(deadline) {
			t.Fatal("a broken pair was not logged")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := served(); got != "first" {
		t.Fatalf("serving %q during a broken renewal, want the previous certificate", got)
	}
	if err := os.Rename(filepath.Join(dir, "later-key.pem"), key); err != nil {
		t.Fatal(err)
	}
	select {
	case cn := <-changed:
		if cn != "second" {
			t.Fatalf("swapped to %q", cn)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the renewed pair was not swapped in")
	}
	if got := served(); got != "second" {
		t.Fatalf("serving %q after the renewal", got)
	}
	if n := strings.Count(logs.String(), "do not load"); n != 1 {
		t.Fatalf("the same failure was logged %d times, want once", n)
	}
	// The same bytes written again are no change.
	b, _ := os.ReadFile(cert)
	_ = os.WriteFile(cert, b, 0o600)
	time.Sleep(100 * time.Millisecond)
	select {
	case cn := <-changed:
		t.Fatalf("an unchanged pair was swapped again (%s)", cn)
	default:
	}
}

func TestConfigIsModern(t *testing.T) {
	cfg := (&Certificate{}).Config(tls.VersionTLS12)
	if cfg.MinVersion != tls.VersionTLS12 || len(cfg.NextProtos) != 1 || cfg.NextProtos[0] != "http/1.1" {
		t.Fatalf("config %+v", cfg)
	}
	for _, id := range cfg.CipherSuites {
		name := tls.CipherSuiteName(id)
		if !strings.HasPrefix(name, "TLS_ECDHE_") || !(strings.Contains(name, "GCM") || strings.Contains(name, "CHACHA20")) {
			t.Errorf("suite %s is not ECDHE with an AEAD cipher", name)
		}
	}
}
