package auth

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

func TestVerifiedCache(t *testing.T) {
	e := newEnv(t)
	now := t0
	v := NewVerifier(Config{Issuer: testIssuer, Audience: testAudience, Keys: e.keys, Revocations: e.revs,
		Now: func() time.Time { return now }})
	mustVerify := func(t *testing.T, token string) *Claims {
		t.Helper()
		c, perr := v.Verify(token)
		if perr != nil {
			t.Fatalf("Verify: %v", perr)
		}
		return c
	}
	wantErr := func(t *testing.T, token string, code protocol.Code, fragment string) {
		t.Helper()
		_, perr := v.Verify(token)
		if perr == nil || perr.Code != code || !strings.Contains(perr.Message, fragment) {
			t.Fatalf("Verify = %v, want %d containing %q", perr, code, fragment)
		}
	}

	t.Run("the same token shares its claims", func(t *testing.T) {
		for _, alg := range []string{AlgES256, AlgEdDSA, AlgRS256} {
			tok := e.sign(t, alg, with(claimsAt(t0), "jti", "shared-"+alg))
			if a, b := mustVerify(t, tok), mustVerify(t, tok); a != b {
				t.Fatalf("%s: two verifications of one token gave two Claims", alg)
			}
		}
		a := mustVerify(t, e.sign(t, AlgES256, with(claimsAt(t0), "jti", "one")))
		b := mustVerify(t, e.sign(t, AlgES256, with(claimsAt(t0), "jti", "two")))
		if a == b || a.JTI == b.JTI {
			t.Fatal("different tokens shared claims")
		}
	})

	t.Run("a rotated key is not trusted for remembered tokens", func(t *testing.T) {
		tok := e.sign(t, AlgES256, with(claimsAt(t0), "jti", "rotated"))
		mustVerify(t, tok)
		saved := e.keys["ec1"]
		defer func() { e.keys["ec1"] = saved }()
		e.keys["ec1"] = fakeKey{AlgES256, &e.sk.ec2.PublicKey}
		wantErr(t, tok, protocol.CodeUnauthenticated, "signature is invalid")
		e.keys["ec1"] = saved
		mustVerify(t, tok)
	})

	t.Run("a removed key is not trusted for remembered tokens", func(t *testing.T) {
		tok := e.sign(t, AlgES256, with(claimsAt(t0), "jti", "removed"))
		mustVerify(t, tok)
		saved := e.keys["ec1"]
		defer func() { e.keys["ec1"] = saved }()
		delete(e.keys, "ec1")
		wantErr(t, tok, protocol.CodeUnauthenticated, "unknown key")
	})

	t.Run("revocation and time are checked on every use", func(t *testing.T) {
		tok := e.sign(t, AlgES256, with(claimsAt(t0), "jti", "later-revoked-cached"))
		mustVerify(t, tok)
		e.revs.revokeJTI("later-revoked-cached")
		wantErr(t, tok, protocol.CodeTokenRevoked, "token revoked")

		e.revs.setApp("app-cached", 0)
		tok = e.sign(t, AlgES256, with(claimsAt(t0), "sub", "app-cached", "jti", "app-cached-1"))
		mustVerify(t, tok)
		e.revs.setApp("app-cached", t0.Unix()+1)
		wantErr(t, tok, protocol.CodeTokenRevoked, "all tokens of this app")

		tok = e.sign(t, AlgES256, with(claimsAt(t0), "jti", "expiring", "nbf", t0.Unix()))
		mustVerify(t, tok)
		now = t0.Add(time.Hour)
		wantErr(t, tok, protocol.CodeTokenExpired, "expired")
		now = t0.Add(-time.Duration(Leeway+1) * time.Second) // the clock stepped back
		wantErr(t, tok, protocol.CodeUnauthenticated, "not valid yet")
		now = t0
		mustVerify(t, tok)
	})

	t.Run("rejected tokens are not remembered", func(t *testing.T) {
		before := v.cache.len()
		tok := e.sign(t, AlgES256, with(claimsAt(t0), "jti", "bad-sig"))
		tampered := tok[:len(tok)-4] + "AAAA"
		if tampered == tok {
			tampered = tok[:len(tok)-4] + "BBBB"
		}
		wantErr(t, tampered, protocol.CodeUnauthenticated, "")
		wantErr(t, e.sign(t, AlgES256, with(claimsAt(t0), "iss", "someone-else")), protocol.CodeUnauthenticated, "iss")
		if got := v.cache.len(); got != before {
			t.Fatalf("cache grew from %d to %d on rejected tokens", before, got)
		}
	})
}

func TestVerifiedCacheIsBounded(t *testing.T) {
	c := newVerifiedCache()
	for i := range verifiedCacheSize + 100 {
		c.put(sha256.Sum256([]byte(fmt.Sprint(i))), &verified{})
	}
	if got := c.len(); got != verifiedCacheSize {
		t.Fatalf("cache holds %d entries, want the bound %d", got, verifiedCacheSize)
	}
}
