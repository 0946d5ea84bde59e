package kafka

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
)

// TokenSource fetches OAUTHBEARER tokens with the OAuth 2.0 client-credentials
// grant (RFC 6749 §4.4), the way managed Kafka clusters hand them out, and
// caches each until 80 % of its life has passed, so a broker connection made
// while the token is fresh costs no request. Its errors name
// KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL, the client id and the HTTP status,
// never the secret.
type TokenSource struct {
	url, clientID, secret, scope string
	client                       *http.Client
	now                          func() time.Time

	mu        sync.Mutex
	token     string
	refreshAt time.Time // 80 % of the token's life
	expiresAt time.Time
}

// tokenRequestTimeout bounds one token request.
const tokenRequestTimeout = 10 * time.Second

// NewTokenSource returns a TokenSource for the token endpoint tokenURL; scope
// may be empty.
func NewTokenSource(tokenURL, clientID, secret, scope string) *TokenSource {
	return &TokenSource{
		url: tokenURL, clientID: clientID, secret: secret, scope: scope,
		client: &http.Client{Timeout: tokenRequestTimeout},
		now:    time.Now,
	}
}

// Mechanism is the OAUTHBEARER SASL mechanism authenticating with s's tokens.
func (s *TokenSource) Mechanism() sasl.Mechanism {
	return bearerMechanism{
		Mechanism: oauth.Oauth(func(ctx context.Context) (oauth.Auth, error) {
			tok, err := s.Token(ctx)
			return oauth.Auth{Token: tok}, err
		}),
		clientID: s.clientID,
	}
}

// bearerMechanism is franz-go's OAUTHBEARER (which builds the client's first
// message) with a session that understands a broker's refusal, and the client
// id, which Explain names.
type bearerMechanism struct {
	sasl.Mechanism
	clientID string
}

func (m bearerMechanism) Authenticate(ctx context.Context, host string) (sasl.Session, []byte, error) {
	_, first, err := m.Mechanism.Authenticate(ctx, host)
	if err != nil {
		return nil, nil, err
	}
	return &bearerSession{}, first, nil
}

// bearerSession reads the broker's answer to the token. A broker that accepts
// it answers nothing. One that refuses it answers an error JSON
// ({"status":"invalid_token",…}, RFC 7628 §3.2.2) and fails the exchange only
// after the client's %x01. franz-go's own session stops at that answer with
// "unexpected data in oauth response", which names no cause; this one sends
// the %x01, so that the broker fails the exchange with
// SASL_AUTHENTICATION_FAILED and its reason (Explain: the token, so
// KAFKA_SASL_OAUTHBEARER_CLIENT_ID), and fails itself with the status should
// the broker answer anything else.
type bearerSession struct{ refusal []byte }

func (b *bearerSession) Challenge(answer []byte) (done bool, response []byte, err error) {
	switch {
	case b.refusal != nil:
		return false, nil, fmt.Errorf("%w: the broker refused the token (status %s)", kerr.SaslAuthenticationFailed, refusalStatus(b.refusal))
	case len(answer) == 0:
		return true, nil, nil
	}
	b.refusal = answer
	return false, []byte{0x01}, nil
}

// refusalStatus is the status of a broker's error JSON when it is a plain
// word, else "unknown": the broker's bytes are not echoed into logs as they
// are.
func refusalStatus(answer []byte) string {
	var refusal struct {
		Status string `json:"status"`
	}
	if json.Unmarshal(answer, &refusal) != nil || !plainWord.MatchString(refusal.Status) {
		return "unknown"
	}
	return refusal.Status
}

var plainWord = regexp.MustCompile(`^[\w.-]{1,64}$`)

// Token returns the cached token while it is fresh, else requests a new one.
// A failed refresh still returns the cached token while it has not expired.
func (s *TokenSource) Token(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if s.token != "" && now.Before(s.refreshAt) {
		return s.token, nil
	}
	tok, life, err := s.request(ctx)
	if err != nil {
		if s.token != "" && now.Before(s.expiresAt) {
			return s.token, nil
		}
		return "", err
	}
	s.token = tok
	s.expiresAt = now.Add(life)
	s.refreshAt = now.Add(life * 8 / 10)
	return tok, nil
}

// defaultTokenLife is assumed when the endpoint sends no expires_in: short,
// so a token of unknown life is renewed soon (the TypeScript side does the same).
const defaultTokenLife = 5 * time.Minute

func (s *TokenSource) request(ctx context.Context) (string, time.Duration, error) {
	form := url.Values{"grant_type": {"client_credentials"}}
	if s.scope != "" {
		form.Set("scope", s.scope)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, strings.NewReader(form.Encode()))
	if err != nil {
		return "", 0, s.unanswered(err, "")
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	// RFC 6749 §2.3.1: the client id and secret are form-url-encoded before
	// they are put in the Basic credentials.
	req.SetBasicAuth(url.QueryEscape(s.clientID), url.QueryEscape(s.secret))
	resp, err := s.client.Do(req)
	if err != nil {
		return "", 0, s.unanswered(err, "")
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", 0, s.unanswered(err, fmt.Sprintf("HTTP %d: reading the answer: ", resp.StatusCode))
	}
	var answer struct {
		AccessToken string `json:"access_token"`
		// ExpiresIn is a number of seconds (json.Number also takes the
		// quoted form some servers send).
		ExpiresIn json.Number `json:"expires_in"`
		Error     string      `json:"error"`
	}
	jsonErr := json.Unmarshal(body, &answer)
	if resp.StatusCode != http.StatusOK {
		// The OAuth error code says what to fix; the rest of the body may
		// say more but is not echoed.
		code := ""
		if len(answer.Error) < 100 {
			code = answer.Error
		}
		return "", 0, s.refused(resp.StatusCode, code)
	}
	if jsonErr != nil || answer.AccessToken == "" {
		return "", 0, s.failed("KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL", fmt.Sprintf("HTTP %d but the answer has no access_token", resp.StatusCode), nil)
	}
	life := defaultTokenLife
	if n, err := answer.ExpiresIn.Float64(); err == nil && n > 0 {
		life = time.Duration(n * float64(time.Second))
	}
	return answer.AccessToken, life, nil
}

// refusedSetting is the setting a token endpoint's refusal points at (RFC 6749
// §5.2): the client's credentials for invalid_client, unauthorized_client or
// an HTTP 401, the scope for invalid_scope, else the endpoint itself. The
// TypeScript side (packages/kafka-settings, refusedSetting) decides alike.
func refusedSetting(status int, code string) string {
	switch {
	case code == "invalid_client" || code == "unauthorized_client" || status == http.StatusUnauthorized:
		return "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET"
	case code == "invalid_scope":
		return "KAFKA_SASL_OAUTHBEARER_SCOPE"
	}
	return "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL"
}

// refused is the error for a token endpoint's refusal with HTTP status and
// OAuth error code (may be empty), naming refusedSetting.
func (s *TokenSource) refused(status int, code string) error {
	msg := fmt.Sprintf("HTTP %d", status)
	if code != "" {
		msg += fmt.Sprintf(" (%q)", code)
	}
	setting := refusedSetting(status, code)
	if setting == "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET" {
		msg += "; check KAFKA_SASL_OAUTHBEARER_CLIENT_ID and the secret"
	}
	return s.failed(setting, msg, nil)
}

// unanswered is the error for a token request that got no answer (the
// endpoint unreachable, its certificate not trusted, no answer in time, …),
// after prefix: the endpoint is the setting to check.
func (s *TokenSource) unanswered(err error, prefix string) error {
	return s.failed("KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL", prefix+err.Error(), err)
}

// failed is a token request's error naming setting, the endpoint and the
// client id, with the secret scrubbed from msg.
func (s *TokenSource) failed(setting, msg string, cause error) error {
	if s.secret != "" {
		msg = strings.ReplaceAll(msg, s.secret, "[redacted]")
	}
	return &tokenError{setting: setting, msg: fmt.Sprintf("token request to %s for client id %q failed: %s", s.url, s.clientID, msg), cause: cause}
}

// tokenError is a failed token request, wrapping the transport's error when
// there was one. It names the setting to fix already, so Security.Explain
// passes it through as it is: an untrusted certificate or a refused
// connection here is the token endpoint's, not a broker's, and the broker
// never saw a token.
type tokenError struct {
	setting, msg string
	cause        error
}

func (e *tokenError) Error() string { return e.setting + ": " + e.msg }
func (e *tokenError) Unwrap() error { return e.cause }
