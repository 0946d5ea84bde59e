//go:build integration

package node

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sluicehq/sluice/apps/gateway/internal/config"
)

// testCA signs the certificates a TLS-serving node is given.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Sluice test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue writes a certificate for 127.0.0.1 named cn (followed by the CA's,
// as a served chain is) and its key; the key is written first, as a renewal
// that never serves a mismatched pair would.
func (ca *testCA) issue(t *testing.T, certFile, keyFile, cn string) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	chain := append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), ca.pem...)
	if err := os.WriteFile(certFile, chain, 0o600); err != nil {
		t.Fatal(err)
	}
}

// trustServed is a client configuration trusting every certificate in the
// node's chain file (so its CA).
func trustServed(t *testing.T, certFile string) *tls.Config {
	t.Helper()
	b, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		t.Fatalf("no certificate in %s", certFile)
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}

// servingTLS makes a node serve TLS with a certificate named cn from a new CA.
func servingTLS(t *testing.T, cn string) (tune func(*config.Config), ca *testCA, certFile, keyFile string) {
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "gateway.crt"), filepath.Join(dir, "gateway.key")
	ca = newTestCA(t)
	ca.issue(t, certFile, keyFile, cn)
	return func(c *config.Config) { c.TLSCertFile, c.TLSKeyFile = certFile, keyFile }, ca, certFile, keyFile
}

// The whole client protocol over wss:// and https://: the same tests as on a
// plain listener.
func TestNodeServesTLS(t *testing.T) {
	tune, _, certFile, _ := servingTLS(t, "gateway-1")
	t.Run("subscribe, publish and errors", func(t *testing.T) { testSubscribePublishAndErrors(t, tune) })
	t.Run("resume after a reconnect", func(t *testing.T) { testResumeAfterReconnectIsExact(t, tune) })
	t.Run("revocation within a second", func(t *testing.T) { testRevocationClosesLiveConnectionsWithinASecond(t, tune) })
	t.Run("header auth, SSE and HTTP publish", func(t *testing.T) { testHeaderAuthSSEAndHTTPPublish(t, tune) })
	t.Run("only modern TLS, never plain", func(t *testing.T) {
		f := newFixture(t, tune)
		addr := strings.TrimPrefix(f.base, "https://")
		// A plain WebSocket to the TLS port fails its handshake.
		if _, _, err := (&websocket.Dialer{Subprotocols: []string{"sluice.v1"}}).Dial("ws://"+addr+"/ws", nil); err == nil {
			t.Fatal("a plain ws:// upgrade was served on the TLS listener")
		}
		good := trustServed(t, certFile)
		for name, tc := range map[string]*tls.Config{
			"TLS 1.1":         {RootCAs: good.RootCAs, MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11},
			"TLS 1.2 CBC":     {RootCAs: good.RootCAs, MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA}},
			"TLS 1.2 non-PFS": {RootCAs: good.RootCAs, MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_RSA_WITH_AES_128_GCM_SHA256}},
		} {
			if conn, err := tls.Dial("tcp", addr, tc); err == nil {
				conn.Close()
				t.Errorf("%s handshake succeeded", name)
			}
		}
		for name, tc := range map[string]*tls.Config{
			"TLS 1.2 AEAD": {RootCAs: good.RootCAs, MaxVersion: tls.VersionTLS12},
			"TLS 1.3":      {RootCAs: good.RootCAs, MinVersion: tls.VersionTLS13},
		} {
			conn, err := tls.Dial("tcp", addr, tc)
			if err != nil {
				t.Errorf("%s refused: %v", name, err)
				continue
			}
			if p := conn.ConnectionState().NegotiatedProtocol; p != "" && p != "http/1.1" {
				t.Errorf("%s negotiated %q", name, p)
			}
			conn.Close()
		}
	})
	t.Run("tls-min-version 1.3 refuses 1.2", func(t *testing.T) {
		f := newFixture(t, tune, func(c *config.Config) { c.TLSMinVersion = "1.3" })
		good := trustServed(t, certFile)
		if conn, err := tls.Dial("tcp", strings.TrimPrefix(f.base, "https://"), &tls.Config{RootCAs: good.RootCAs, MaxVersion: tls.VersionTLS12}); err == nil {
			conn.Close()
			t.Fatal("TLS 1.2 accepted under tls-min-version 1.3")
		}
		c, _ := f.authed(map[string][]string{"sub": {"/" + f.topic + "/*"}})
		c.send(`{"type":"ping","id":"p"}`)
		c.next("pong")
	})
}

// A renewed certificate written over the files is served to new connections
// within seconds, without a restart; connections already open go on.
func TestTLSCertificateRenewalWithoutRestart(t *testing.T) {
	tune, ca, certFile, keyFile := servingTLS(t, "before-renewal")
	f := newFixture(t, tune)
	addr := strings.TrimPrefix(f.base, "https://")
	served := func() string {
		conn, err := tls.Dial("tcp", addr, f.dialer.TLSClientConfig)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0].Subject.CommonName
	}
	if got := served(); got != "before-renewal" {
		t.Fatalf("serving %q", got)
	}
	old, _ := f.authed(map[string][]string{"sub": {"/" + f.topic + "/*"}})
	old.send(`{"type":"subscribe","endpoint":"/` + f.topic + `/R"}`)
	old.next("subscribed")

	ca.issue(t, certFile, keyFile, "after-renewal")
	renewed := time.Now()
	for served() != "after-renewal" {
		if time.Since(renewed) > 15*time.Second {
			t.Fatal("the renewed certificate was not served within 15 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("renewed certificate served %v after the files changed", time.Since(renewed).Round(time.Millisecond))

	// The connection made with the old certificate still gets its messages.
	f.produce("R", `{"price":7}`)
	if m := old.next("message"); m["data"].(map[string]any)["price"] != float64(7) {
		t.Fatalf("message = %v", m)
	}
	fresh, _ := f.authed(map[string][]string{"sub": {"/" + f.topic + "/*"}})
	fresh.send(`{"type":"ping","id":"p"}`)
	fresh.next("pong")

	// A broken rewrite (garbage) keeps the renewed certificate in use.
	if err := os.WriteFile(certFile, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // past the 2 s check interval
	if got := served(); got != "after-renewal" {
		t.Fatalf("after a broken rewrite serving %q", got)
	}
}

// Behind a trusted proxy the client address comes from X-Forwarded-For and is
// what the per-address bound counts; from anyone else the header is ignored.
func TestTrustedProxiesAndTheBoundPerAddress(t *testing.T) {
	f := newFixture(t, func(c *config.Config) {
		c.TrustedProxies = "127.0.0.1"
		c.MaxConnectionsPerAddress = 2
	})
	tok := f.token(map[string][]string{"sub": {"/" + f.topic + "/*"}}, time.Hour, "jti-proxy")
	from := func(xff string) http.Header {
		return http.Header{"Authorization": {"Bearer " + tok}, "X-Forwarded-For": {xff}}
	}
	refused := func(what string, h http.Header) {
		t.Helper()
		ws, res, err := f.dialer.Dial("ws"+strings.TrimPrefix(f.base, "http")+"/ws", h)
		if err == nil {
			ws.Close()
			t.Fatalf("%s: connected, want 429", what)
		}
		var problem map[string]any
		if res != nil {
			b, _ := io.ReadAll(res.Body)
			_ = json.Unmarshal(b, &problem)
		}
		if res == nil || res.StatusCode != 429 || problem["code"] != float64(4294) || res.Header.Get("Retry-After") != "1" {
			t.Fatalf("%s: %v %v %v", what, err, res, problem)
		}
	}
	a1 := f.dial(from("203.0.113.7"))
	f.dial(from("203.0.113.7"))
	refused("a third connection from one address", from("203.0.113.7"))
	refused("a client's own X-Forwarded-For left of the proxy's", from("198.51.100.1, 203.0.113.7"))
	f.dial(from("203.0.113.8"))

	// SSE counts against the same bound.
	req, _ := http.NewRequest("GET", f.base+"/sse/"+f.topic+"/K", nil)
	req.Header = from("203.0.113.7")
	res, err := f.httpc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 429 {
		t.Fatalf("SSE over the bound: %d", res.StatusCode)
	}

	// A closed connection gives its place back.
	a1.ws.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ws, _, err := f.dialer.Dial("ws"+strings.TrimPrefix(f.base, "http")+"/ws", from("203.0.113.7"))
		if err == nil {
			ws.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the address's place was not given back: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Without trusted proxies every connection here is 127.0.0.1's.
	g := newFixture(t, func(c *config.Config) { c.MaxConnectionsPerAddress = 1 })
	gtok := g.token(map[string][]string{"sub": {"/" + g.topic + "/*"}}, time.Hour, "jti-direct")
	g.dial(http.Header{"Authorization": {"Bearer " + gtok}, "X-Forwarded-For": {"203.0.113.7"}})
	ws, res2, err := g.dialer.Dial("ws"+strings.TrimPrefix(g.base, "http")+"/ws", http.Header{"Authorization": {"Bearer " + gtok}, "X-Forwarded-For": {"203.0.113.8"}})
	if err == nil {
		ws.Close()
		t.Fatal("an untrusted peer's X-Forwarded-For was believed")
	}
	if res2 == nil || res2.StatusCode != 429 {
		t.Fatalf("second connection from 127.0.0.1: %v", err)
	}
	if got := g.metric(`sluice_gateway_error_frames_total{code="4294"}`); got != 1 {
		t.Fatalf("4294 refusals counted %v, want 1", got)
	}
}
