package auth

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// TestWriteTokenVectors regenerates packages/protocol/vectors/tokens.json with a
// fresh test key. It only runs when asked, because ES256 signatures are
// randomised and every run would rewrite the file:
//
//	SLUICE_WRITE_VECTORS=1 go test -run TestWriteTokenVectors ./internal/auth/
func TestWriteTokenVectors(t *testing.T) {
	if os.Getenv("SLUICE_WRITE_VECTORS") == "" {
		t.Skip("set SLUICE_WRITE_VECTORS=1 to regenerate tokens.json")
	}
	const (
		kid = "vectors-es256-1"
		iat = int64(1795000000)
		exp = iat + 3600
		now = iat + 100
	)
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub := ecJWK(t, &priv.PublicKey)
	d, err := priv.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	privJWK := withMember(pub, "d", b64(d))

	base := jwt.MapClaims{
		"iss": testIssuer, "aud": testAudience, "sub": "app-1", "jti": "jti-1", "iat": iat, "exp": exp,
		"permissions": map[string]any{"sub": []string{"/prices/*"}, "pub": []string{"/orders/eu"}, "all": []string{}},
	}
	sign := func(claims jwt.MapClaims) string { return signWith(t, jwt.SigningMethodES256, priv, kid, claims) }
	valid := sign(base)
	parts := strings.Split(valid, ".")
	spki, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: spki})
	okClaims := &vectorClaims{App: "app-1", JTI: "jti-1", IssuedAt: iat, ExpiresAt: exp}

	cases := []tokenCase{
		{Name: "valid", Token: valid, Now: now, Code: 0, Claims: okClaims, Allows: []vectorAllow{
			{"subscribe", "/prices/AAPL", true},
			{"subscribe", "/prices/a/b", true},
			{"publish", "/prices/AAPL", false},
			{"publish", "/orders/eu", true},
			{"subscribe", "/orders/eu", false},
		}},
		{Name: "valid at iat minus leeway", Token: valid, Now: iat - 60, Code: 0, Claims: okClaims},
		{Name: "iat more than 60 s ahead of now", Token: valid, Now: iat - 61, Code: 4001},
		{Name: "valid one second before exp", Token: valid, Now: exp - 1, Code: 0, Claims: okClaims},
		{Name: "expired at exp", Token: valid, Now: exp, Code: 4008},
		{Name: "expired long ago", Token: valid, Now: exp + 86400, Code: 4008},
		{Name: "aud array containing ours", Token: sign(with(base, "aud", []string{"other", testAudience})), Now: now, Code: 0, Claims: okClaims},
		{Name: "wrong aud", Token: sign(with(base, "aud", "other-gateway")), Now: now, Code: 4001},
		{Name: "wrong iss", Token: sign(with(base, "iss", "not-sluice")), Now: now, Code: 4001},
		{Name: "nbf within leeway", Token: sign(with(base, "nbf", now+60)), Now: now, Code: 0, Claims: okClaims},
		{Name: "nbf in the future", Token: sign(with(base, "nbf", now+61)), Now: now, Code: 4001},
		{Name: "missing jti", Token: sign(with(base, "jti", nil)), Now: now, Code: 4001},
		{Name: "missing sub", Token: sign(with(base, "sub", nil)), Now: now, Code: 4001},
		{Name: "missing exp", Token: sign(with(base, "exp", nil)), Now: now, Code: 4001},
		{Name: "missing iat", Token: sign(with(base, "iat", nil)), Now: now, Code: 4001},
		{Name: "signed by another key", Token: signWith(t, jwt.SigningMethodES256, other, kid, base), Now: now, Code: 4001},
		{Name: "payload changed after signing", Token: parts[0] + "." + strings.Split(sign(with(base, "sub", "app-2")), ".")[1] + "." + parts[2], Now: now, Code: 4001},
		{Name: "unknown kid", Token: signWith(t, jwt.SigningMethodES256, priv, "no-such-kid", base), Now: now, Code: 4001},
		{Name: "no kid", Token: signWith(t, jwt.SigningMethodES256, priv, "", base), Now: now, Code: 4001},
		{Name: "alg none", Token: signWith(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, kid, base), Now: now, Code: 4001},
		{Name: "HS256 keyed with the public key PEM", Token: signWith(t, jwt.SigningMethodHS256, pubPEM, kid, base), Now: now, Code: 4001},
		{Name: "RS256 header on the ES256 kid", Token: rawToken(t, map[string]any{"alg": "RS256", "kid": kid, "typ": "JWT"}, base, bytes.Repeat([]byte{1}, 256)), Now: now, Code: 4001},
		{Name: "bad permission entry", Token: sign(with(base, "permissions", map[string]any{"sub": []string{"/prices/a*"}})), Now: now, Code: 4001},
		{Name: "non-canonical permission entry", Token: sign(with(base, "permissions", map[string]any{"sub": []string{"/prices/BRK%2eB"}})), Now: now, Code: 0, Claims: okClaims, Allows: []vectorAllow{
			{"subscribe", "/prices/BRK.B", true},
			{"subscribe", "/prices/BRKxB", false},
		}},
		{Name: "revoked jti", Token: sign(with(base, "jti", "jti-revoked")), Now: now, Code: 4009},
		{Name: "unknown app", Token: sign(with(base, "sub", "app-unknown")), Now: now, Code: 4001},
		{Name: "app tokens revoked after iat", Token: sign(with(base, "sub", "app-2", "iat", iat-1)), Now: now, Code: 4009},
		{Name: "app token issued at its tokens_not_before", Token: sign(with(base, "sub", "app-2")), Now: now, Code: 0,
			Claims: &vectorClaims{App: "app-2", JTI: "jti-1", IssuedAt: iat, ExpiresAt: exp}},
	}
	appNB := iat
	f := tokenVectorFile{
		Description: "ES256 token verification (PROTOCOL.md, 'Tokens and permissions'). Configure a verifier with 'issuer', 'audience', " +
			"the public keys in 'keys' (kid, alg, public JWK), the known 'apps' (tokens_not_before null = nothing revoked; a token of the app " +
			"with iat < tokens_not_before is revoked) and the 'revoked_jtis'. For each case, set the clock to 'now' (Unix seconds) and verify " +
			"'token': 'code' is 0 when it is accepted, else the protocol error code (4001 invalid, 4008 expired, 4009 revoked). An accepted " +
			"case may list the expected 'claims' and 'allows' checks of its permissions. 'private_jwk_for_tests' is the TEST-ONLY private key " +
			"the tokens were signed with, for minting more vectors; it is public, never use it for anything else. Regenerate with " +
			"SLUICE_WRITE_VECTORS=1 go test -run TestWriteTokenVectors ./internal/auth/ in apps/gateway.",
		Issuer:   testIssuer,
		Audience: testAudience,
		Keys:     []vectorKey{{Kid: kid, Alg: AlgES256, JWK: mustJSON(t, withMember(pub, "alg", AlgES256, "use", "sig"))}},
		PrivateJWKForTests: mustJSON(t, struct {
			Warning string         `json:"warning"`
			Kid     string         `json:"kid"`
			Alg     string         `json:"alg"`
			JWK     map[string]any `json:"jwk"`
		}{"TEST ONLY. This private key is published in this repository: never trust it outside tests.", kid, AlgES256, privJWK}),
		Apps:        []vectorApp{{ID: "app-1"}, {ID: "app-2", TokensNotBefore: &appNB}},
		RevokedJTIs: []string{"jti-revoked"},
		Cases:       cases,
	}
	if err := os.WriteFile(tokenVectors, formatVectors(t, f), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s with %d cases", tokenVectors, len(cases))
}

// formatVectors writes the file in the style of the other vector files: one
// member per line at the top, one array element per line.
func formatVectors(t *testing.T, f tokenVectorFile) []byte {
	compact := func(v any) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	list := func(n int, elem func(i int) any) string {
		lines := make([]string, n)
		for i := range n {
			lines[i] = "    " + compact(elem(i))
		}
		return "[\n" + strings.Join(lines, ",\n") + "\n  ]"
	}
	members := []string{
		`"description": ` + compact(f.Description),
		`"issuer": ` + compact(f.Issuer),
		`"audience": ` + compact(f.Audience),
		`"keys": ` + list(len(f.Keys), func(i int) any { return f.Keys[i] }),
		`"private_jwk_for_tests": ` + compact(f.PrivateJWKForTests),
		`"apps": ` + list(len(f.Apps), func(i int) any { return f.Apps[i] }),
		`"revoked_jtis": ` + compact(f.RevokedJTIs),
		`"cases": ` + list(len(f.Cases), func(i int) any { return f.Cases[i] }),
	}
	return []byte("{\n  " + strings.Join(members, ",\n  ") + "\n}\n")
}
