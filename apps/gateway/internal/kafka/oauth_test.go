package kafka

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// tokenServer is a client-credentials endpoint that checks the request's
// shape and hands out numbered tokens; status, when set, is answered instead.
type tokenServer struct {
	t        *testing.T
	requests atomic.Int32
	status   atomic.Int32
	scope    string
}

const testSecret = "s3cret:with/odd chars"

func (ts *tokenServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := ts.requests.Add(1)
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		ts.t.Errorf("request %s with content type %q", r.Method, r.Header.Get("Content-Type"))
	}
	id, secret, ok := r.BasicAuth()
	// RFC 6749 §2.3.1: both form-url-encoded inside the Basic credentials.
	if !ok || id != "sluice%2Fgw" || secret != "s3cret%3Awith%2Fodd+chars" {
		ts.t.Errorf("basic auth %q %q %v", id, secret, ok)
	}
	if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "client_credentials" || r.PostForm.Get("scope") != ts.scope {
		ts.t.Errorf("form %v (err %v), want scope %q", r.PostForm, err, ts.scope)
	}
	if _, has := r.PostForm["scope"]; has != (ts.scope != "") {
		ts.t.Errorf("scope sent: %v, want %v", has, ts.scope != "")
	}
	if s := ts.status.Load(); s != 0 {
		w.WriteHeader(int(s))
		fmt.Fprintf(w, `{"error":"invalid_client","error_description":"bad secret %s"}`, testSecret)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"access_token":"token-%d","token_type":"Bearer","expires_in":100}`, n)
}

func newTestTokenSource(t *testing.T, scope string) (*TokenSource, *tokenServer, *time.Time) {
	ts := &tokenServer{t: t, scope: scope}
	srv := httptest.NewServer(ts)
	t.Cleanup(srv.Close)
	s := NewTokenSource(srv.URL+"/token", "sluice/gw", testSecret, scope)
	now := time.Unix(1_000_000, 0)
	s.now = func() time.Time { return now }
	return s, ts, &now
}

func TestTokenSourceCachesAndRefreshes(t *testing.T) {
	s, ts, now := newTestTokenSource(t, "kafka read")
	ctx := context.Background()
	for i := range 3 {
		tok, err := s.Token(ctx)
		if err != nil || tok != "token-1" {
			t.Fatalf("call %d: %q %v, want token-1 from the cache", i, tok, err)
		}
	}
	*now = now.Add(79 * time.Second) // before 80 % of 100 s
	if tok, _ := s.Token(ctx); tok != "token-1" || ts.requests.Load() != 1 {
		t.Fatalf("at 79 s: %q after %d requests", tok, ts.requests.Load())
	}
	*now = now.Add(2 * time.Second) // past 80 %: refresh
	if tok, err := s.Token(ctx); err != nil || tok != "token-2" {
		t.Fatalf("at 81 s: %q %v, want a refreshed token-2", tok, err)
	}
	// A failed refresh keeps the token until it expires, then fails.
	ts.status.Store(http.StatusServiceUnavailable)
	*now = now.Add(90 * time.Second)
	if tok, err := s.Token(ctx); err != nil || tok != "token-2" {
		t.Fatalf("failed refresh before expiry: %q %v, want token-2", tok, err)
	}
	*now = now.Add(20 * time.Second)
	if _, err := s.Token(ctx); err == nil || !strings.Contains(err.Error(), "HTTP 503") {
		t.Fatalf("after expiry: %v, want the HTTP 503 error", err)
	}
}

func TestTokenSourceNoScope(t *testing.T) {
	s, _, _ := newTestTokenSource(t, "")
	if tok, err := s.Token(context.Background()); err != nil || tok != "token-1" {
		t.Fatalf("%q %v", tok, err)
	}
}

func TestTokenSourceErrorsNameTheSettingNotTheSecret(t *testing.T) {
	s, ts, _ := newTestTokenSource(t, "")
	ts.status.Store(http.StatusUnauthorized)
	_, err := s.Token(context.Background())
	if err == nil {
		t.Fatal("want an error")
	}
	msg := err.Error()
	for _, want := range []string{"KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET: ", "sluice/gw", "HTTP 401", "invalid_client", s.url, "check KAFKA_SASL_OAUTHBEARER_CLIENT_ID and the secret"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not contain %q", msg, want)
		}
	}
	if strings.Contains(msg, testSecret) {
		t.Errorf("error %q contains the secret", msg)
	}

	// Unreachable endpoint, and an answer without a token.
	s.url = "http://127.0.0.1:1/token"
	if _, err := s.Token(context.Background()); err == nil || !strings.Contains(err.Error(), "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL") || strings.Contains(err.Error(), testSecret) {
		t.Errorf("unreachable: %v", err)
	}
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `{}`) }))
	defer empty.Close()
	s.url = empty.URL
	if _, err := s.Token(context.Background()); err == nil || !strings.Contains(err.Error(), "no access_token") {
		t.Errorf("empty answer: %v", err)
	}
}

// A refusal names the setting it points at, as the TypeScript side does; an
// endpoint that cannot be reached names the endpoint. Explain passes each
// through as it is, whatever the connection's security.
func TestTokenErrorsNameTheRefusedSetting(t *testing.T) {
	cases := []struct {
		status  int
		body    string
		setting string
	}{
		{http.StatusUnauthorized, `{"error":"invalid_client"}`, "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET"},
		{http.StatusUnauthorized, `not json`, "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET"},
		{http.StatusBadRequest, `{"error":"invalid_client"}`, "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET"},
		{http.StatusBadRequest, `{"error":"unauthorized_client"}`, "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET"},
		{http.StatusBadRequest, `{"error":"invalid_scope"}`, "KAFKA_SASL_OAUTHBEARER_SCOPE"},
		{http.StatusBadRequest, `{"error":"unsupported_grant_type"}`, "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL"},
		{http.StatusNotFound, ``, "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL"},
		{http.StatusServiceUnavailable, `{"error":"temporarily_unavailable"}`, "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL"},
	}
	securities := []Security{{}, {TLS: &tls.Config{}}}
	for _, tc := range cases {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(tc.status)
			fmt.Fprint(w, tc.body)
		}))
		s := NewTokenSource(srv.URL, "gw", testSecret, "")
		securities = append(securities, Security{SASL: s.Mechanism()})
		_, err := s.Token(context.Background())
		srv.Close()
		if err == nil || !strings.HasPrefix(err.Error(), tc.setting+": ") || strings.Contains(err.Error(), testSecret) {
			t.Errorf("HTTP %d %s: %v, want it to name %s", tc.status, tc.body, err, tc.setting)
			continue
		}
		hint := strings.Contains(err.Error(), "check KAFKA_SASL_OAUTHBEARER_CLIENT_ID and the secret")
		if hint != (tc.setting == "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET") {
			t.Errorf("HTTP %d %s: %v, hint at the client id: %v", tc.status, tc.body, err, hint)
		}
		for _, sec := range securities {
			if got := sec.Explain(err); got != err {
				t.Errorf("Explain relabelled %v as %v", err, got)
			}
		}
	}

	// An https endpoint whose certificate is not trusted: the error wraps
	// crypto/x509's, which Explain must not take for the broker's
	// (KAFKA_TLS_CA_FILE is not what the token request trusts).
	untrusted := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer untrusted.Close()
	s := NewTokenSource(untrusted.URL, "gw", testSecret, "")
	_, err := s.Token(context.Background())
	var unknownCA x509.UnknownAuthorityError
	if !errors.As(err, &unknownCA) || !strings.HasPrefix(err.Error(), "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: ") {
		t.Fatalf("untrusted endpoint: %v, want the endpoint named and the x509 error wrapped", err)
	}
	sec := Security{TLS: &tls.Config{}, SASL: s.Mechanism()}
	if got := sec.Explain(fmt.Errorf("sasl: %w", err)); !strings.HasPrefix(got.Error(), "sasl: KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: ") {
		t.Fatalf("Explain relabelled a wrapped token error: %v", got)
	}

	// Nothing listens on port 9.
	s = NewTokenSource("http://127.0.0.1:9/token", "gw", testSecret, "")
	if _, err := s.Token(context.Background()); !errors.Is(err, syscall.ECONNREFUSED) || !strings.HasPrefix(err.Error(), "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: ") {
		t.Fatalf("no endpoint: %v", err)
	}
}

func TestTokenSourceMechanism(t *testing.T) {
	s, _, _ := newTestTokenSource(t, "")
	m := s.Mechanism()
	if m.Name() != "OAUTHBEARER" {
		t.Fatal(m.Name())
	}
	_, first, err := m.Authenticate(context.Background(), "broker:9093")
	if err != nil || !strings.Contains(string(first), "auth=Bearer token-1") {
		t.Fatalf("first message %q, %v", first, err)
	}
}

// The session after the token: nothing back is success; an error JSON is
// answered with the %x01 that lets the broker fail the exchange (with its
// reason), and anything after it fails with the status.
func TestBearerSessionReadsTheRefusal(t *testing.T) {
	if done, resp, err := (&bearerSession{}).Challenge(nil); !done || resp != nil || err != nil {
		t.Fatalf("accepted: %v %q %v", done, resp, err)
	}
	err := refusedBy(t, `{"status":"invalid_token","scope":""}`, nil)
	if !errors.Is(err, kerr.SaslAuthenticationFailed) || !strings.Contains(err.Error(), "the broker refused the token (status invalid_token)") {
		t.Fatalf("after the %%x01: %v", err)
	}
	if err := refusedBy(t, `{"status":"<script>"}`, nil); !strings.Contains(err.Error(), "(status unknown)") || strings.Contains(err.Error(), "script") {
		t.Fatalf("an odd status is echoed: %v", err)
	}
	if err := refusedBy(t, `not json`, nil); !strings.Contains(err.Error(), "(status unknown)") {
		t.Fatalf("no JSON: %v", err)
	}
}

func TestTokenSourceLifetimeForms(t *testing.T) {
	for body, life := range map[string]time.Duration{
		`{"access_token":"t","expires_in":"60"}`: time.Minute,
		`{"access_token":"t","expires_in":30.5}`: 30500 * time.Millisecond,
		`{"access_token":"t"}`:                   defaultTokenLife,
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, body) }))
		s := NewTokenSource(srv.URL, "id", "secret", "")
		now := time.Unix(1_000_000, 0)
		s.now = func() time.Time { return now }
		if _, err := s.Token(context.Background()); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if got := s.expiresAt.Sub(now); got != life {
			t.Errorf("%s: life %v, want %v", body, got, life)
		}
		srv.Close()
	}
}
