package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// With -tls the gateway serves wss:// with a certificate for 127.0.0.1 from a
// throw-away CA made for the run; the clients and the orchestrator's own
// requests (readiness, /metrics) trust that CA.

// makeServingCertificate writes the CA, the gateway's certificate and its
// key into dir.
func makeServingCertificate(dir string) (certFile, keyFile, caFile string, err error) {
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "fanout bench CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(48 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return "", "", "", err
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(48 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return "", "", "", err
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile, caFile = filepath.Join(dir, "gateway.crt"), filepath.Join(dir, "gateway.key"), filepath.Join(dir, "ca.pem")
	for file, block := range map[string]*pem.Block{
		certFile: {Type: "CERTIFICATE", Bytes: der},
		keyFile:  {Type: "EC PRIVATE KEY", Bytes: kder},
		caFile:   {Type: "CERTIFICATE", Bytes: caDER},
	} {
		if err := os.WriteFile(file, pem.EncodeToMemory(block), 0o600); err != nil {
			return "", "", "", err
		}
	}
	return certFile, keyFile, caFile, nil
}

// trusting is a client configuration that trusts the CA in caFile.
func trusting(caFile string) (*tls.Config, error) {
	b, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(b)
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}

// trustForOrchestrator makes the orchestrator's plain http.Get calls trust
// the run's CA.
func trustForOrchestrator(caFile string) error {
	tc, err := trusting(caFile)
	if err != nil {
		return err
	}
	http.DefaultTransport.(*http.Transport).TLSClientConfig = tc
	return nil
}
