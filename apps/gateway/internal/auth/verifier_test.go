package auth

import (
	"crypto/x509"
	"encoding/pem"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

func TestVerifyValidEachAlg(t *testing.T) {
	e := newEnv(t)
	v := e.verifier(t0)
	for _, alg := range []string{AlgES256, AlgEdDSA, AlgRS256} {
		t.Run(alg, func(t *testing.T) {
			tok := e.sign(t, alg, claimsAt(t0))
			c, perr := v.Verify(tok)
			if perr != nil {
				t.Fatalf("Verify: %v", perr)
			}
			if c.App != "app-1" || c.JTI != "jti-1" || c.IssuedAt != t0.Unix() || c.ExpiresAt != t0.Unix()+3600 {
				t.Fatalf("claims = %+v", c)
			}
			if !c.Permissions.Allows(protocol.OpSubscribe, "/prices/AAPL") {
				t.Error("sub /prices/* should allow subscribe /prices/AAPL")
			}
			if c.Permissions.Allows(protocol.OpPublish, "/prices/AAPL") {
				t.Error("sub /prices/* should not allow publish")
			}
			if !c.Permissions.Allows(protocol.OpPublish, "/orders/eu") {
				t.Error("pub /orders/eu should allow publish")
			}
		})
	}
}

// TestVerifyRejects is the main table: every way a token can be wrong, with the
// code and a fragment of the message.
func TestVerifyRejects(t *testing.T) {
	e := newEnv(t)
	sk := e.sk
	base := claimsAt(t0)
	now := t0.Unix()
	e.revs.revokeJTI("jti-revoked")

	pubPEM := func() []byte {
		der, err := x509.MarshalPKIXPublicKey(&sk.ec.PublicKey)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	}()
	pubDER, _ := x509.MarshalPKIXPublicKey(&sk.ec.PublicKey)
	rsaDER, _ := x509.MarshalPKIXPublicKey(&sk.rs.PublicKey)

	valid := e.sign(t, AlgES256, base)
	parts := strings.Split(valid, ".")
	otherPayload := strings.Split(e.sign(t, AlgES256, with(base, "sub", "app-2")), ".")[1]

	cases := []struct {
		name  string
		token string
		code  protocol.Code
		msg   string
	}{
		// Structure.
		{"empty", "", protocol.CodeUnauthenticated, "missing"},
		{"one part", "abc", protocol.CodeUnauthenticated, "three"},
		{"two parts", "abc.def", protocol.CodeUnauthenticated, "three"},
		{"four parts", valid + ".x", protocol.CodeUnauthenticated, "three"},
		{"header not base64", "!!!." + parts[1] + "." + parts[2], protocol.CodeUnauthenticated, "malformed"},
		{"header not JSON", "bm90LWpzb24." + parts[1] + "." + parts[2], protocol.CodeUnauthenticated, "malformed"},
		{"header padded", parts[0] + "==." + parts[1] + "." + parts[2], protocol.CodeUnauthenticated, "malformed"},
		{"payload not an object", rawToken(t, map[string]any{"alg": "ES256", "kid": "ec1"}, []int{1}, []byte("x")), protocol.CodeUnauthenticated, "malformed"},
		{"signature not base64", parts[0] + "." + parts[1] + ".***", protocol.CodeUnauthenticated, "malformed"},
		{"too long", strings.Repeat("a", MaxTokenBytes) + ".b.c", protocol.CodeUnauthenticated, "longer than"},

		// Algorithms and keys.
		{"wrong signature", signWith(t, jwt.SigningMethodES256, sk.ec2, "ec1", base), protocol.CodeUnauthenticated, "signature is invalid"},
		{"tampered payload", parts[0] + "." + otherPayload + "." + parts[2], protocol.CodeUnauthenticated, "signature is invalid"},
		{"empty signature", parts[0] + "." + parts[1] + ".", protocol.CodeUnauthenticated, "signature is invalid"},
		{"unknown kid", signWith(t, jwt.SigningMethodES256, sk.ec, "nope", base), protocol.CodeUnauthenticated, "unknown key"},
		{"no kid", signWith(t, jwt.SigningMethodES256, sk.ec, "", base), protocol.CodeUnauthenticated, "no kid"},
		{"kid not a string", rawToken(t, map[string]any{"alg": "ES256", "kid": 7}, base, []byte("sig")), protocol.CodeUnauthenticated, "no kid"},
		{"RS256 header with ES256 kid", signWith(t, jwt.SigningMethodRS256, sk.rs, "ec1", base), protocol.CodeUnauthenticated, "does not match"},
		{"ES256 header with RS256 kid", signWith(t, jwt.SigningMethodES256, sk.ec, "rs1", base), protocol.CodeUnauthenticated, "does not match"},
		{"EdDSA header with ES256 kid", signWith(t, jwt.SigningMethodEdDSA, sk.ed, "ec1", base), protocol.CodeUnauthenticated, "does not match"},
		{"catalog key of wrong type", signWith(t, jwt.SigningMethodES256, sk.ec, "ec-with-ed-key", base), protocol.CodeUnauthenticated, "cannot verify"},
		{"catalog key on wrong curve", signWith(t, jwt.SigningMethodES256, sk.ec, "ec-p384", base), protocol.CodeUnauthenticated, "cannot verify"},
		{"alg none (library)", signWith(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "ec1", base), protocol.CodeUnauthenticated, `"none" is not allowed`},
		{"alg none (hand-made, no signature)", rawToken(t, map[string]any{"alg": "none", "kid": "ec1"}, base, nil), protocol.CodeUnauthenticated, `"none" is not allowed`},
		{"alg None", rawToken(t, map[string]any{"alg": "None", "kid": "ec1"}, base, nil), protocol.CodeUnauthenticated, "not allowed"},
		{"HS256 with PEM public key as secret", signWith(t, jwt.SigningMethodHS256, pubPEM, "ec1", base), protocol.CodeUnauthenticated, `"HS256" is not allowed`},
		{"HS256 with DER public key as secret", signWith(t, jwt.SigningMethodHS256, pubDER, "ec1", base), protocol.CodeUnauthenticated, `"HS256" is not allowed`},
		{"HS256 with RSA DER as secret", signWith(t, jwt.SigningMethodHS256, rsaDER, "rs1", base), protocol.CodeUnauthenticated, `"HS256" is not allowed`},
		{"HS256 kid registered as HS256", signWith(t, jwt.SigningMethodHS256, []byte("secret"), "hs1", base), protocol.CodeUnauthenticated, `"HS256" is not allowed`},
		{"HS512", signWith(t, jwt.SigningMethodHS512, pubPEM, "ec1", base), protocol.CodeUnauthenticated, "not allowed"},
		{"PS256", signWith(t, jwt.SigningMethodPS256, sk.rs, "rs1", base), protocol.CodeUnauthenticated, `"PS256" is not allowed`},
		{"ES384", signWith(t, jwt.SigningMethodES384, sk.ecP384, "ec1", base), protocol.CodeUnauthenticated, "not allowed"},
		{"unknown alg", rawToken(t, map[string]any{"alg": "XX999", "kid": "ec1"}, base, []byte("sig")), protocol.CodeUnauthenticated, "not allowed"},
		{"no alg", rawToken(t, map[string]any{"kid": "ec1"}, base, []byte("sig")), protocol.CodeUnauthenticated, "no alg"},
		{"crit header", func() string {
			tok := jwt.NewWithClaims(jwt.SigningMethodES256, base)
			tok.Header["kid"] = "ec1"
			tok.Header["crit"] = []string{"exp"}
			s, _ := tok.SignedString(sk.ec)
			return s
		}(), protocol.CodeUnauthenticated, "crit"},

		// Claims.
		{"wrong iss", e.sign(t, AlgES256, with(base, "iss", "someone-else")), protocol.CodeUnauthenticated, "iss"},
		{"iss missing", e.sign(t, AlgES256, with(base, "iss", nil)), protocol.CodeUnauthenticated, "no iss"},
		{"iss not a string", e.sign(t, AlgES256, with(base, "iss", 5)), protocol.CodeUnauthenticated, "iss claim must be a string"},
		{"wrong aud", e.sign(t, AlgES256, with(base, "aud", "other-gateway")), protocol.CodeUnauthenticated, "aud"},
		{"aud array without ours", e.sign(t, AlgES256, with(base, "aud", []string{"a", "b"})), protocol.CodeUnauthenticated, "aud"},
		{"aud empty array", e.sign(t, AlgES256, with(base, "aud", []string{})), protocol.CodeUnauthenticated, "aud"},
		{"aud missing", e.sign(t, AlgES256, with(base, "aud", nil)), protocol.CodeUnauthenticated, "no aud"},
		{"aud not strings", e.sign(t, AlgES256, with(base, "aud", []any{testAudience, 3})), protocol.CodeUnauthenticated, "aud claim must be"},
		{"sub missing", e.sign(t, AlgES256, with(base, "sub", nil)), protocol.CodeUnauthenticated, "no sub"},
		{"sub empty", e.sign(t, AlgES256, with(base, "sub", "")), protocol.CodeUnauthenticated, "sub claim is empty"},
		{"sub not a string", e.sign(t, AlgES256, with(base, "sub", 12)), protocol.CodeUnauthenticated, "sub claim must be a string"},
		{"jti missing", e.sign(t, AlgES256, with(base, "jti", nil)), protocol.CodeUnauthenticated, "no jti"},
		{"jti empty", e.sign(t, AlgES256, with(base, "jti", "")), protocol.CodeUnauthenticated, "jti claim is empty"},
		{"jti null", e.signRawPayload(t, `{"iss":"sluice","aud":"sluice-gateway","sub":"app-1","jti":null,"iat":1795000000,"exp":1795003600}`), protocol.CodeUnauthenticated, "no jti"},
		{"exp missing", e.sign(t, AlgES256, with(base, "exp", nil)), protocol.CodeUnauthenticated, "no exp"},
		{"exp string", e.sign(t, AlgES256, with(base, "exp", "1795003600")), protocol.CodeUnauthenticated, "exp claim must be a number"},
		{"exp negative", e.sign(t, AlgES256, with(base, "exp", -1)), protocol.CodeUnauthenticated, "out of range"},
		{"exp huge", e.sign(t, AlgES256, with(base, "exp", 1e300)), protocol.CodeUnauthenticated, "out of range"},
		{"iat missing", e.sign(t, AlgES256, with(base, "iat", nil)), protocol.CodeUnauthenticated, "no iat"},
		{"iat far in the future", e.sign(t, AlgES256, with(base, "iat", now+3600, "exp", now+7200)), protocol.CodeUnauthenticated, "iat is in the future"},
		{"iat 61 s in the future", e.sign(t, AlgES256, with(base, "iat", now+61)), protocol.CodeUnauthenticated, "iat is in the future"},
		{"nbf in the future", e.sign(t, AlgES256, with(base, "nbf", now+600)), protocol.CodeUnauthenticated, "not valid yet"},
		{"nbf 61 s in the future", e.sign(t, AlgES256, with(base, "nbf", now+61)), protocol.CodeUnauthenticated, "not valid yet"},
		{"nbf not a number", e.sign(t, AlgES256, with(base, "nbf", true)), protocol.CodeUnauthenticated, "nbf claim must be a number"},
		{"expired", e.sign(t, AlgES256, with(base, "iat", now-7200, "exp", now-3600)), protocol.CodeTokenExpired, "token expired"},
		{"expires exactly now", e.sign(t, AlgES256, with(base, "iat", now-3600, "exp", now)), protocol.CodeTokenExpired, "token expired"},

		// Permissions.
		{"permission entry with inner *", e.sign(t, AlgES256, with(base, "permissions", map[string]any{"sub": []string{"/prices/*", "/prices/a*"}})), protocol.CodeUnauthenticated, `permissions.sub[1] "/prices/a*"`},
		{"permission * not last", e.sign(t, AlgES256, with(base, "permissions", map[string]any{"pub": []string{"/*/x"}})), protocol.CodeUnauthenticated, `permissions.pub[0] "/*/x"`},
		{"permission topic only", e.sign(t, AlgES256, with(base, "permissions", map[string]any{"all": []string{"/prices"}})), protocol.CodeUnauthenticated, `permissions.all[0] "/prices"`},
		{"permission empty entry", e.sign(t, AlgES256, with(base, "permissions", map[string]any{"sub": []string{""}})), protocol.CodeUnauthenticated, `permissions.sub[0]`},
		{"permission null entry", e.signRawPayload(t, `{"iss":"sluice","aud":"sluice-gateway","sub":"app-1","jti":"j","iat":1795000000,"exp":1795003600,"permissions":{"sub":[null]}}`), protocol.CodeUnauthenticated, `permissions.sub[0]`},
		{"permissions not an object", e.sign(t, AlgES256, with(base, "permissions", []string{"/a/b"})), protocol.CodeUnauthenticated, "must be an object"},
		{"permissions.sub not an array", e.sign(t, AlgES256, with(base, "permissions", map[string]any{"sub": "/a/b"})), protocol.CodeUnauthenticated, "permissions.sub must be an array"},

		// Revocation.
		{"revoked jti", e.sign(t, AlgES256, with(base, "jti", "jti-revoked")), protocol.CodeTokenRevoked, "token revoked"},
		{"revoked and expired", e.sign(t, AlgES256, with(base, "jti", "jti-revoked", "iat", now-7200, "exp", now-3600)), protocol.CodeTokenRevoked, "token revoked"},
		{"unknown app", e.sign(t, AlgES256, with(base, "sub", "app-unknown")), protocol.CodeUnauthenticated, "unknown app"},
		{"app revoked before iat", e.sign(t, AlgES256, with(base, "sub", "app-2", "iat", now-101)), protocol.CodeTokenRevoked, "all tokens of this app were revoked"},
	}
	v := e.verifier(t0)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, perr := v.Verify(tc.token)
			if perr == nil {
				t.Fatalf("Verify accepted the token: %+v", c)
			}
			if c != nil {
				t.Errorf("claims %+v returned with an error", c)
			}
			t.Logf("%d %s", perr.Code, perr.Message)
			if perr.Code != tc.code {
				t.Errorf("code = %d (%s), want %d", perr.Code, perr.Message, tc.code)
			}
			if !strings.Contains(perr.Message, tc.msg) {
				t.Errorf("message %q does not contain %q", perr.Message, tc.msg)
			}
			assertNoLeak(t, perr.Message, tc.token)
		})
	}
}

func TestVerifyAccepts(t *testing.T) {
	e := newEnv(t)
	base := claimsAt(t0)
	now := t0.Unix()
	cases := []struct {
		name  string
		token string
		check func(t *testing.T, c *Claims)
	}{
		{"aud array containing ours", e.sign(t, AlgES256, with(base, "aud", []string{"other", testAudience})), nil},
		{"nbf in the past", e.sign(t, AlgES256, with(base, "nbf", now-10)), nil},
		{"nbf within leeway", e.sign(t, AlgES256, with(base, "nbf", now+60)), nil},
		{"iat within leeway", e.sign(t, AlgES256, with(base, "iat", now+60)), func(t *testing.T, c *Claims) {
			if c.IssuedAt != now+60 {
				t.Errorf("IssuedAt = %d", c.IssuedAt)
			}
		}},
		{"expires in one second", e.sign(t, AlgES256, with(base, "iat", now-3599, "exp", now+1)), nil},
		{"fractional exp", e.sign(t, AlgES256, with(base, "exp", float64(now)+3600.75)), func(t *testing.T, c *Claims) {
			if c.ExpiresAt != now+3600 {
				t.Errorf("ExpiresAt = %d, want %d", c.ExpiresAt, now+3600)
			}
		}},
		{"app-2 token issued at its not-before", e.sign(t, AlgES256, with(base, "sub", "app-2", "iat", now-100)), nil},
		{"no permissions", e.sign(t, AlgES256, with(base, "permissions", nil)), func(t *testing.T, c *Claims) {
			if c.Permissions.Allows(protocol.OpSubscribe, "/prices/AAPL") {
				t.Error("a token without permissions permits nothing")
			}
		}},
		{"null permissions", e.signRawPayload(t, `{"iss":"sluice","aud":"sluice-gateway","sub":"app-1","jti":"j","iat":1795000000,"exp":1795003600,"permissions":null}`), nil},
		{"unknown permission member ignored", e.sign(t, AlgES256, with(base, "permissions", map[string]any{"admin": []string{"/*"}, "all": []string{"/a/b"}})), func(t *testing.T, c *Claims) {
			if c.Permissions.Allows(protocol.OpSubscribe, "/x/y") || !c.Permissions.Allows(protocol.OpPublish, "/a/b") {
				t.Error("only sub/pub/all grant anything")
			}
		}},
		{"permission members are case-sensitive", e.sign(t, AlgES256, with(base, "permissions", map[string]any{"SUB": []string{"/*"}})), func(t *testing.T, c *Claims) {
			if c.Permissions.Allows(protocol.OpSubscribe, "/x/y") {
				t.Error(`"SUB" must not be read as "sub"`)
			}
		}},
		{"non-canonical exact entry", e.sign(t, AlgES256, with(base, "permissions", map[string]any{"sub": []string{"/prices/BRK%2eB"}})), func(t *testing.T, c *Claims) {
			if !c.Permissions.Allows(protocol.OpSubscribe, "/prices/BRK.B") {
				t.Error("/prices/BRK%2eB should match canonical /prices/BRK.B")
			}
		}},
		{"extra header members", func() string {
			tok := jwt.NewWithClaims(jwt.SigningMethodES256, base)
			tok.Header["kid"] = "ec1"
			tok.Header["cty"] = "whatever"
			s, _ := tok.SignedString(e.sk.ec)
			return s
		}(), nil},
	}
	v := e.verifier(t0)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, perr := v.Verify(tc.token)
			if perr != nil {
				t.Fatalf("Verify: %v", perr)
			}
			if tc.check != nil {
				tc.check(t, c)
			}
		})
	}
}

func TestVerifyNowInjection(t *testing.T) {
	e := newEnv(t)
	tok := e.sign(t, AlgEdDSA, claimsAt(t0)) // valid from t0 to t0+3600
	cases := []struct {
		now  time.Time
		code protocol.Code // 0 = valid
	}{
		{t0.Add(-61 * time.Second), protocol.CodeUnauthenticated}, // iat beyond leeway
		{t0.Add(-60 * time.Second), 0},
		{t0, 0},
		{t0.Add(3599 * time.Second), 0},
		{t0.Add(3599*time.Second + 999*time.Millisecond), 0},
		{t0.Add(3600 * time.Second), protocol.CodeTokenExpired},
		{t0.Add(48 * time.Hour), protocol.CodeTokenExpired},
	}
	for _, tc := range cases {
		_, perr := e.verifier(tc.now).Verify(tok)
		got := protocol.Code(0)
		if perr != nil {
			got = perr.Code
		}
		if got != tc.code {
			t.Errorf("now=t0%+v: code %d (%v), want %d", tc.now.Sub(t0), got, perr, tc.code)
		}
	}
}

func TestRecheck(t *testing.T) {
	e := newEnv(t)
	now := t0
	v := NewVerifier(Config{Issuer: testIssuer, Audience: testAudience, Keys: e.keys, Revocations: e.revs,
		Now: func() time.Time { return now }})
	verify := func(t *testing.T, claims map[string]any) *Claims {
		t.Helper()
		c, perr := v.Verify(e.sign(t, AlgES256, claims))
		if perr != nil {
			t.Fatalf("Verify: %v", perr)
		}
		if perr := v.Recheck(c); perr != nil {
			t.Fatalf("Recheck right after Verify: %v", perr)
		}
		return c
	}

	t.Run("jti revoked later", func(t *testing.T) {
		c := verify(t, with(claimsAt(t0), "jti", "later-revoked"))
		e.revs.revokeJTI("later-revoked")
		perr := v.Recheck(c)
		if perr == nil || perr.Code != protocol.CodeTokenRevoked || perr.Message != "token revoked" {
			t.Fatalf("Recheck = %v, want 4009 token revoked", perr)
		}
	})
	t.Run("app revoked later", func(t *testing.T) {
		e.revs.setApp("app-3", 0)
		c := verify(t, with(claimsAt(t0), "sub", "app-3"))
		e.revs.setApp("app-3", t0.Unix()+1)
		perr := v.Recheck(c)
		if perr == nil || perr.Code != protocol.CodeTokenRevoked || perr.Message != "all tokens of this app were revoked" {
			t.Fatalf("Recheck = %v, want 4009 app revoked", perr)
		}
	})
	t.Run("app not-before at iat keeps the token", func(t *testing.T) {
		e.revs.setApp("app-4", 0)
		c := verify(t, with(claimsAt(t0), "sub", "app-4"))
		e.revs.setApp("app-4", t0.Unix())
		if perr := v.Recheck(c); perr != nil {
			t.Fatalf("Recheck = %v, want nil (iat == not-before is not revoked)", perr)
		}
	})
	t.Run("app deleted later", func(t *testing.T) {
		e.revs.setApp("app-5", 0)
		c := verify(t, with(claimsAt(t0), "sub", "app-5"))
		e.revs.deleteApp("app-5")
		perr := v.Recheck(c)
		if perr == nil || perr.Code != protocol.CodeTokenRevoked {
			t.Fatalf("Recheck = %v, want 4009", perr)
		}
	})
	t.Run("expiry", func(t *testing.T) {
		now = t0
		c := verify(t, claimsAt(t0))
		now = t0.Add(time.Hour - time.Second)
		if perr := v.Recheck(c); perr != nil {
			t.Fatalf("Recheck one second before exp: %v", perr)
		}
		now = t0.Add(time.Hour)
		perr := v.Recheck(c)
		if perr == nil || perr.Code != protocol.CodeTokenExpired {
			t.Fatalf("Recheck at exp = %v, want 4008", perr)
		}
		now = t0
	})
	t.Run("nil claims", func(t *testing.T) {
		if perr := v.Recheck(nil); perr == nil || perr.Code != protocol.CodeUnauthenticated {
			t.Fatalf("Recheck(nil) = %v, want 4001", perr)
		}
	})
}

func TestUnconfiguredVerifierRejects(t *testing.T) {
	e := newEnv(t)
	tok := e.sign(t, AlgES256, claimsAt(t0))
	full := Config{Issuer: testIssuer, Audience: testAudience, Keys: e.keys, Revocations: e.revs, Now: func() time.Time { return t0 }}
	cases := map[string]func(c *Config){
		"no issuer":      func(c *Config) { c.Issuer = "" },
		"no audience":    func(c *Config) { c.Audience = "" },
		"no keys":        func(c *Config) { c.Keys = nil },
		"no revocations": func(c *Config) { c.Revocations = nil },
	}
	for name, mutate := range cases {
		cfg := full
		mutate(&cfg)
		v := NewVerifier(cfg)
		if _, perr := v.Verify(tok); perr == nil || perr.Code != protocol.CodeInternal {
			t.Errorf("%s: Verify = %v, want 5000", name, perr)
		}
		if perr := v.Recheck(&Claims{App: "app-1", JTI: "j", ExpiresAt: t0.Unix() + 10}); perr == nil {
			t.Errorf("%s: Recheck accepted", name)
		}
	}
	var nilV *Verifier
	if _, perr := nilV.Verify(tok); perr == nil {
		t.Error("nil Verifier accepted a token")
	}
	if _, perr := NewVerifier(full).Verify(tok); perr != nil {
		t.Fatalf("full config: %v", perr)
	}
}

func TestVerifyDefaultClock(t *testing.T) {
	e := newEnv(t)
	v := NewVerifier(Config{Issuer: testIssuer, Audience: testAudience, Keys: e.keys, Revocations: e.revs})
	now := time.Now()
	if _, perr := v.Verify(e.sign(t, AlgES256, claimsAt(now))); perr != nil {
		t.Fatalf("fresh token with the real clock: %v", perr)
	}
	// A token valid at t0 (2026-11) is judged by the real clock, not t0.
	old := e.sign(t, AlgES256, with(claimsAt(time.Unix(1e9, 0))))
	if _, perr := v.Verify(old); perr == nil || perr.Code != protocol.CodeTokenExpired {
		t.Fatalf("2001 token: %v, want 4008", perr)
	}
}

// TestVerifyConcurrent runs Verify and Recheck while revocations change, for
// the race detector.
func TestVerifyConcurrent(t *testing.T) {
	e := newEnv(t)
	v := e.verifier(t0)
	toks := []string{e.sign(t, AlgES256, claimsAt(t0)), e.sign(t, AlgEdDSA, claimsAt(t0)), e.sign(t, AlgRS256, claimsAt(t0))}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				c, perr := v.Verify(toks[(i+j)%len(toks)])
				if perr == nil {
					_ = v.Recheck(c)
				} else if perr.Code != protocol.CodeTokenRevoked {
					t.Errorf("unexpected %v", perr)
				}
			}
		})
	}
	wg.Go(func() {
		for j := range 50 {
			e.revs.setApp("app-x", int64(j))
		}
		e.revs.revokeJTI("jti-1")
	})
	wg.Wait()
}
