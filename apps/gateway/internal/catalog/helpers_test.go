package catalog

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// parseTestJWK is the tests' JWK parser: EC P-256 only (auth.ParsePublicJWK
// does the real work in the gateway).
func parseTestJWK(alg string, raw json.RawMessage) (crypto.PublicKey, error) {
	var jwk struct{ Kty, Crv, X, Y string }
	if err := json.Unmarshal(raw, &jwk); err != nil {
		return nil, err
	}
	if alg != "ES256" || jwk.Kty != "EC" || jwk.Crv != "P-256" {
		return nil, fmt.Errorf("unsupported key %s/%s for %s", jwk.Kty, jwk.Crv, alg)
	}
	x, err1 := base64.RawURLEncoding.DecodeString(jwk.X)
	y, err2 := base64.RawURLEncoding.DecodeString(jwk.Y)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	if len(x) != 32 || len(y) != 32 {
		return nil, errors.New("x and y must be 32 bytes")
	}
	return ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
}

// newECJWK returns a fresh P-256 public key and its JWK.
func newECJWK(t testing.TB) (*ecdsa.PublicKey, json.RawMessage) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b, err := k.PublicKey.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	jwk, _ := json.Marshal(map[string]string{
		"kty": "EC", "crv": "P-256",
		"x": base64.RawURLEncoding.EncodeToString(b[1:33]),
		"y": base64.RawURLEncoding.EncodeToString(b[33:]),
	})
	return &k.PublicKey, jwk
}

// recorder is an EndpointListener and a RevocationListener that records every call.
type recorder struct {
	mu     sync.Mutex
	events []string
	pairs  [][2]*Endpoint
	notify chan struct{}
}

func newRecorder() *recorder { return &recorder{notify: make(chan struct{}, 1024)} }

func epString(e *Endpoint) string {
	if e == nil {
		return "nil"
	}
	return e.ID + ":" + e.Path
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	r.events = append(r.events, s)
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

func (r *recorder) EndpointChanged(old, new *Endpoint) {
	r.mu.Lock()
	r.pairs = append(r.pairs, [2]*Endpoint{old, new})
	r.mu.Unlock()
	r.add("endpoint " + epString(old) + " -> " + epString(new))
}
func (r *recorder) TokenRevoked(jti string) { r.add("revoked " + jti) }
func (r *recorder) AppRevoked(id string, nbf int64) {
	r.add(fmt.Sprintf("app %s %d", id, nbf))
}

// take returns the events so far and forgets them.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ev := r.events
	r.events, r.pairs = nil, nil
	return ev
}

func (r *recorder) has(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if e == s {
			return true
		}
	}
	return false
}

// logBuffer is a concurrency-safe buffer for a text slog handler.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// newTestCatalog returns a catalog with the test JWK parser, a recorder and a
// captured log.
func newTestCatalog(t testing.TB) (*Catalog, *recorder, *logBuffer) {
	t.Helper()
	rec := newRecorder()
	logs := &logBuffer{}
	c := New(Options{
		ParseJWK: parseTestJWK,
		Logger:   slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	c.Listen(Listeners{Endpoints: rec, Revocations: rec})
	return c, rec, logs
}

// endpointRecord builds an endpoint value; edit changes the JSON object before
// it is encoded.
func endpointRecord(id, topic, key, param string, edit ...func(m map[string]any)) []byte {
	m := map[string]any{
		"v":              1,
		"id":             id,
		"topic":          topic,
		"key":            nil,
		"key_param":      nil,
		"operations":     []string{"subscribe", "publish"},
		"payload_format": "json",
		"json_schema":    nil,
		"api":            map[string]any{"id": "api-1", "name": "Market data", "version": "1.0.0"},
	}
	if param != "" {
		m["key_param"] = param
		m["path"] = "/" + topic + "/{" + param + "}"
	} else {
		m["key"] = key
		m["path"] = protocol.Path{Topic: topic, Key: key}.String()
	}
	for _, f := range edit {
		f(m)
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

func set(field string, v any) func(map[string]any) {
	return func(m map[string]any) { m[field] = v }
}

func del(field string) func(map[string]any) {
	return func(m map[string]any) { delete(m, field) }
}

func keyRecord(kid, alg string, jwk json.RawMessage, status string) []byte {
	b, _ := json.Marshal(map[string]any{"v": 1, "kid": kid, "alg": alg, "jwk": jwk, "status": status})
	return b
}

func appRecord(id string, nbf any) []byte {
	b, _ := json.Marshal(map[string]any{"v": 1, "id": id, "name": "Dashboard", "tokens_not_before": nbf})
	return b
}

func revokedRecord(jti, app string, exp int64) []byte {
	b, _ := json.Marshal(map[string]any{"v": 1, "jti": jti, "app": app, "expires_at": exp})
	return b
}

func mustContain(t *testing.T, got, want string) {
	t.Helper()
	if !strings.Contains(got, want) {
		t.Fatalf("%q does not contain %q", got, want)
	}
}
