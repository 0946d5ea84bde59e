package kafka

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

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
	return oauth.Oauth(func(ctx context.Context) (oauth.Auth, error) {
		tok, err := s.Token(ctx)
		return oauth.Auth{Token: tok}, err
	})
}

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
		return "", 0, s.errorf("%v", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	// RFC 6749 §2.3.1: the client id and secret are form-url-encoded before
	// they are put in the Basic credentials.
	req.SetBasicAuth(url.QueryEscape(s.clientID), url.QueryEscape(s.secret))
	resp, err := s.client.Do(req)
	if err != nil {
		return "", 0, s.errorf("%v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", 0, s.errorf("HTTP %d: reading the answer: %v", resp.StatusCode, err)
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
		if answer.Error != "" && len(answer.Error) < 100 {
			return "", 0, s.errorf("HTTP %d (%q)", resp.StatusCode, answer.Error)
		}
		return "", 0, s.errorf("HTTP %d", resp.StatusCode)
	}
	if jsonErr != nil || answer.AccessToken == "" {
		return "", 0, s.errorf("HTTP %d but the answer has no access_token", resp.StatusCode)
	}
	life := defaultTokenLife
	if n, err := answer.ExpiresIn.Float64(); err == nil && n > 0 {
		life = time.Duration(n * float64(time.Second))
	}
	return answer.AccessToken, life, nil
}

// errorf is a token request's error, naming the setting and the client id.
func (s *TokenSource) errorf(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if s.secret != "" {
		msg = strings.ReplaceAll(msg, s.secret, "[redacted]")
	}
	return fmt.Errorf("KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: token request to %s for client id %q failed: %s", s.url, s.clientID, msg)
}
