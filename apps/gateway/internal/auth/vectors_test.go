package auth

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

const (
	permissionVectors = "../../../../packages/protocol/vectors/permissions.json"
	tokenVectors      = "../../../../packages/protocol/vectors/tokens.json"
)

func loadJSON(t *testing.T, path string, into any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading vectors: %v", err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
}

func parseOp(t *testing.T, s string) protocol.Op {
	t.Helper()
	switch s {
	case "subscribe":
		return protocol.OpSubscribe
	case "publish":
		return protocol.OpPublish
	}
	t.Fatalf("unknown op %q", s)
	return 0
}

type permissionVectorFile struct {
	Description string `json:"description"`
	Cases       []struct {
		Permissions json.RawMessage `json:"permissions"`
		Op          string          `json:"op"`
		Path        string          `json:"path"`
		Allowed     bool            `json:"allowed"`
	} `json:"cases"`
	ValidPatterns []struct {
		Pattern   string `json:"pattern"`
		Canonical string `json:"canonical"`
	} `json:"valid_patterns"`
	InvalidPatterns []struct {
		InvalidPattern *string `json:"invalid_pattern"`
		Reason         string  `json:"reason"`
	} `json:"invalid_patterns"`
}

// TestPermissionVectors runs packages/protocol/vectors/permissions.json, both on
// Permissions directly and through signed tokens.
func TestPermissionVectors(t *testing.T) {
	var f permissionVectorFile
	loadJSON(t, permissionVectors, &f)
	if f.Description == "" || len(f.Cases) < 25 || len(f.InvalidPatterns) == 0 {
		t.Fatalf("vector file incomplete: %d cases, %d invalid patterns", len(f.Cases), len(f.InvalidPatterns))
	}
	e := newEnv(t)
	v := e.verifier(t0)
	for i, c := range f.Cases {
		var p Permissions
		if err := json.Unmarshal(c.Permissions, &p); err != nil {
			t.Errorf("case %d: permissions %s: %v", i, c.Permissions, err)
			continue
		}
		op := parseOp(t, c.Op)
		if got := p.Allows(op, c.Path); got != c.Allowed {
			t.Errorf("case %d: %s Allows(%s, %s) = %v, want %v", i, c.Permissions, c.Op, c.Path, got, c.Allowed)
		}
		var claimPerms any
		_ = json.Unmarshal(c.Permissions, &claimPerms)
		claims, perr := v.Verify(e.sign(t, AlgES256, with(claimsAt(t0), "permissions", claimPerms)))
		if perr != nil {
			t.Errorf("case %d: token with %s: %v", i, c.Permissions, perr)
			continue
		}
		if got := claims.Permissions.Allows(op, c.Path); got != c.Allowed {
			t.Errorf("case %d (token): %s Allows(%s, %s) = %v, want %v", i, c.Permissions, c.Op, c.Path, got, c.Allowed)
		}
	}
	for _, c := range f.ValidPatterns {
		p, err := parsePattern(c.Pattern)
		if err != nil || p.canonical != c.Canonical {
			t.Errorf("pattern %q: canonical %q, %v; want %q", c.Pattern, p.canonical, err, c.Canonical)
		}
	}
	for _, c := range f.InvalidPatterns {
		if c.InvalidPattern == nil {
			t.Errorf("invalid_patterns entry without invalid_pattern (%s)", c.Reason)
			continue
		}
		entry := *c.InvalidPattern
		if err := ValidatePattern(entry); err == nil {
			t.Errorf("invalid pattern %q (%s) accepted", entry, c.Reason)
		}
		tok := e.sign(t, AlgES256, with(claimsAt(t0), "permissions", map[string]any{"all": []string{"/ok/x", entry}}))
		if _, perr := v.Verify(tok); perr == nil || perr.Code != protocol.CodeUnauthenticated {
			t.Errorf("token with invalid pattern %q: %v, want 4001", entry, perr)
		}
	}
}

// tokenVectorFile is the shape of packages/protocol/vectors/tokens.json; the
// generator below writes it and TestTokenVectors reads it.
type tokenVectorFile struct {
	Description        string          `json:"description"`
	Issuer             string          `json:"issuer"`
	Audience           string          `json:"audience"`
	Keys               []vectorKey     `json:"keys"`
	PrivateJWKForTests json.RawMessage `json:"private_jwk_for_tests"`
	Apps               []vectorApp     `json:"apps"`
	RevokedJTIs        []string        `json:"revoked_jtis"`
	Cases              []tokenCase     `json:"cases"`
}

type vectorKey struct {
	Kid string          `json:"kid"`
	Alg string          `json:"alg"`
	JWK json.RawMessage `json:"jwk"`
}

type vectorApp struct {
	ID              string `json:"id"`
	TokensNotBefore *int64 `json:"tokens_not_before"`
}

type tokenCase struct {
	Name   string        `json:"name"`
	Token  string        `json:"token"`
	Now    int64         `json:"now"`
	Code   protocol.Code `json:"code"`
	Claims *vectorClaims `json:"claims,omitempty"`
	Allows []vectorAllow `json:"allows,omitempty"`
}

type vectorClaims struct {
	App       string `json:"app"`
	JTI       string `json:"jti"`
	IssuedAt  int64  `json:"iat"`
	ExpiresAt int64  `json:"exp"`
}

type vectorAllow struct {
	Op      string `json:"op"`
	Path    string `json:"path"`
	Allowed bool   `json:"allowed"`
}

// TestTokenVectors runs packages/protocol/vectors/tokens.json: keys come from
// the file's public JWKs, apps and revocations from its lists, and the clock
// from each case's "now".
func TestTokenVectors(t *testing.T) {
	var f tokenVectorFile
	loadJSON(t, tokenVectors, &f)
	if f.Description == "" || len(f.Cases) == 0 || len(f.Keys) == 0 {
		t.Fatal("vector file incomplete")
	}
	keys := fakeKeys{}
	for _, k := range f.Keys {
		key, err := ParsePublicJWK(k.Alg, k.JWK)
		if err != nil {
			t.Fatalf("key %s: %v", k.Kid, err)
		}
		keys[k.Kid] = fakeKey{k.Alg, key}
	}
	// The private JWK is labelled test-only and must be refused as a key.
	var priv struct {
		JWK json.RawMessage `json:"jwk"`
	}
	if err := json.Unmarshal(f.PrivateJWKForTests, &priv); err != nil || len(priv.JWK) == 0 {
		t.Fatalf("private_jwk_for_tests: %v", err)
	}
	if _, err := ParsePublicJWK(AlgES256, priv.JWK); err == nil {
		t.Error("the private test JWK was accepted as a verification key")
	}
	revs := newFakeRevocations()
	for _, a := range f.Apps {
		nb := int64(0)
		if a.TokensNotBefore != nil {
			nb = *a.TokensNotBefore
		}
		revs.setApp(a.ID, nb)
	}
	for _, j := range f.RevokedJTIs {
		revs.revokeJTI(j)
	}
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			v := NewVerifier(Config{Issuer: f.Issuer, Audience: f.Audience, Keys: keys, Revocations: revs,
				Now: func() time.Time { return time.Unix(c.Now, 0) }})
			claims, perr := v.Verify(c.Token)
			got := protocol.Code(0)
			if perr != nil {
				got = perr.Code
				assertNoLeak(t, perr.Message, c.Token)
			}
			if got != c.Code {
				t.Fatalf("code %d (%v), want %d", got, perr, c.Code)
			}
			if c.Code != 0 {
				return
			}
			if c.Claims != nil {
				want := *c.Claims
				gotClaims := vectorClaims{claims.App, claims.JTI, claims.IssuedAt, claims.ExpiresAt}
				if gotClaims != want {
					t.Errorf("claims %+v, want %+v", gotClaims, want)
				}
			}
			for _, a := range c.Allows {
				if got := claims.Permissions.Allows(parseOp(t, a.Op), a.Path); got != a.Allowed {
					t.Errorf("Allows(%s, %s) = %v, want %v", a.Op, a.Path, got, a.Allowed)
				}
			}
		})
	}
}
