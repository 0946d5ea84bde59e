package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

const (
	testIssuer   = "sluice"
	testAudience = "sluice-gateway"
)

// t0 is the fixed "now" of most tests.
var t0 = time.Unix(1795000000, 0)

// fakeKeys is a KeyStore over a map.
type fakeKeys map[string]fakeKey

type fakeKey struct {
	alg string
	key crypto.PublicKey
}

func (k fakeKeys) VerificationKey(kid string) (string, crypto.PublicKey, bool) {
	e, ok := k[kid]
	return e.alg, e.key, ok
}

// fakeRevocations is a RevocationStore that tests mutate while verifiers read it.
type fakeRevocations struct {
	mu   sync.RWMutex
	jtis map[string]bool
	apps map[string]int64
}

func newFakeRevocations() *fakeRevocations {
	return &fakeRevocations{jtis: map[string]bool{}, apps: map[string]int64{}}
}

func (r *fakeRevocations) JTIRevoked(jti string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.jtis[jti]
}

func (r *fakeRevocations) AppTokensNotBefore(app string) (int64, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	nb, ok := r.apps[app]
	return nb, ok
}

func (r *fakeRevocations) revokeJTI(jti string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.jtis[jti] = true
}

func (r *fakeRevocations) setApp(app string, notBefore int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.apps[app] = notBefore
}

func (r *fakeRevocations) deleteApp(app string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.apps, app)
}

// signingKeys are generated once per test binary (RSA generation is slow).
type signingKeys struct {
	ec     *ecdsa.PrivateKey
	ec2    *ecdsa.PrivateKey // not in the key store: "wrong signature"
	ed     ed25519.PrivateKey
	rs     *rsa.PrivateKey
	ecP384 *ecdsa.PrivateKey
}

var testKeys = sync.OnceValue(func() *signingKeys {
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	var k signingKeys
	var err error
	k.ec, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(err)
	k.ec2, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(err)
	k.ecP384, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	must(err)
	_, k.ed, err = ed25519.GenerateKey(rand.Reader)
	must(err)
	k.rs, err = rsa.GenerateKey(rand.Reader, 2048)
	must(err)
	return &k
})

// env is a verifier with three registered keys (kids ec1, ed1, rs1) and apps
// "app-1" (nothing revoked) and "app-2" (tokens before t0-100 revoked).
type env struct {
	keys fakeKeys
	revs *fakeRevocations
	sk   *signingKeys
}

func newEnv(t testing.TB) *env {
	t.Helper()
	sk := testKeys()
	e := &env{
		keys: fakeKeys{
			"ec1": {AlgES256, &sk.ec.PublicKey},
			"ed1": {AlgEdDSA, sk.ed.Public()},
			"rs1": {AlgRS256, &sk.rs.PublicKey},
			// Catalog inconsistencies the verifier must not trust.
			"ec-with-ed-key": {AlgES256, sk.ed.Public()},
			"ec-p384":        {AlgES256, &sk.ecP384.PublicKey},
			"hs1":            {"HS256", []byte("secret")},
		},
		revs: newFakeRevocations(),
		sk:   sk,
	}
	e.revs.setApp("app-1", 0)
	e.revs.setApp("app-2", t0.Unix()-100)
	return e
}

func (e *env) verifier(now time.Time) *Verifier {
	return NewVerifier(Config{
		Issuer:      testIssuer,
		Audience:    testAudience,
		Keys:        e.keys,
		Revocations: e.revs,
		Now:         func() time.Time { return now },
	})
}

// claimsAt is a valid payload for app-1 issued at now, valid for an hour.
func claimsAt(now time.Time) jwt.MapClaims {
	return jwt.MapClaims{
		"iss": testIssuer,
		"aud": testAudience,
		"sub": "app-1",
		"jti": "jti-1",
		"iat": now.Unix(),
		"exp": now.Unix() + 3600,
		"permissions": map[string]any{
			"sub": []string{"/prices/*"},
			"pub": []string{"/orders/eu"},
			"all": []string{},
		},
	}
}

// signWith signs claims with method and key under kid ("" = no kid header).
func signWith(t testing.TB, method jwt.SigningMethod, key any, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("signing: %v", err)
	}
	return s
}

// sign signs with the env key for alg ("ES256" → ec1, "EdDSA" → ed1, "RS256" → rs1).
func (e *env) sign(t testing.TB, alg string, claims jwt.MapClaims) string {
	t.Helper()
	switch alg {
	case AlgES256:
		return signWith(t, jwt.SigningMethodES256, e.sk.ec, "ec1", claims)
	case AlgEdDSA:
		return signWith(t, jwt.SigningMethodEdDSA, e.sk.ed, "ed1", claims)
	case AlgRS256:
		return signWith(t, jwt.SigningMethodRS256, e.sk.rs, "rs1", claims)
	}
	t.Fatalf("no key for %s", alg)
	return ""
}

// rawToken assembles header.payload.signature from JSON values, for tokens no
// library would produce.
func rawToken(t testing.TB, header, payload any, sig []byte) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(header) + "." + enc(payload) + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// resign replaces the payload of an ES256 token signed with ec1 by one signed
// over rawPayload (arbitrary JSON text), for payloads MapClaims cannot express.
func (e *env) signRawPayload(t testing.TB, rawPayload string) string {
	t.Helper()
	header := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"ES256","kid":"ec1","typ":"JWT"}`))
	payload := base64.RawURLEncoding.EncodeToString([]byte(rawPayload))
	sig, err := jwt.SigningMethodES256.Sign(header+"."+payload, e.sk.ec)
	if err != nil {
		t.Fatal(err)
	}
	return header + "." + payload + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// with returns a copy of c with the given members set (nil value = deleted).
func with(c jwt.MapClaims, kv ...any) jwt.MapClaims {
	out := jwt.MapClaims{}
	for k, v := range c {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i].(string)
		if kv[i+1] == nil {
			delete(out, k)
		} else {
			out[k] = kv[i+1]
		}
	}
	return out
}

// assertNoLeak fails if msg contains the token or any of its three parts.
func assertNoLeak(t testing.TB, msg, token string) {
	t.Helper()
	if token == "" {
		return
	}
	if strings.Contains(msg, token) {
		t.Fatalf("message %q echoes the token", msg)
	}
	for _, part := range strings.Split(token, ".") {
		if len(part) >= 16 && strings.Contains(msg, part) {
			t.Fatalf("message %q echoes part of the token", msg)
		}
	}
}
