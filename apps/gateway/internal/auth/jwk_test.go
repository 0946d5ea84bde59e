package auth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

var b64 = base64.RawURLEncoding.EncodeToString

// ecJWK returns the public JWK members of an ecdsa key.
func ecJWK(t testing.TB, k *ecdsa.PublicKey) map[string]any {
	t.Helper()
	pt, err := k.Bytes() // 0x04 || x || y
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"kty": "EC", "crv": "P-256", "x": b64(pt[1:33]), "y": b64(pt[33:])}
}

func edJWK(k ed25519.PublicKey) map[string]any {
	return map[string]any{"kty": "OKP", "crv": "Ed25519", "x": b64(k)}
}

func rsaJWK(k *rsa.PublicKey) map[string]any {
	return map[string]any{"kty": "RSA", "n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())}
}

func mustJSON(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func withMember(m map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
		} else {
			out[kv[i].(string)] = kv[i+1]
		}
	}
	return out
}

// TestParsePublicJWKRoundTrip parses each kind of public JWK and uses the key
// to verify a token signed with the matching private key.
func TestParsePublicJWKRoundTrip(t *testing.T) {
	sk := testKeys()
	cases := []struct {
		alg    string
		jwk    map[string]any
		method jwt.SigningMethod
		priv   any
	}{
		{AlgES256, ecJWK(t, &sk.ec.PublicKey), jwt.SigningMethodES256, sk.ec},
		{AlgES256, withMember(ecJWK(t, &sk.ec.PublicKey), "alg", "ES256", "use", "sig", "kid", "k", "key_ops", []string{"verify"}), jwt.SigningMethodES256, sk.ec},
		{AlgEdDSA, edJWK(sk.ed.Public().(ed25519.PublicKey)), jwt.SigningMethodEdDSA, sk.ed},
		{AlgRS256, rsaJWK(&sk.rs.PublicKey), jwt.SigningMethodRS256, sk.rs},
	}
	for _, tc := range cases {
		t.Run(tc.alg, func(t *testing.T) {
			key, err := ParsePublicJWK(tc.alg, mustJSON(t, tc.jwk))
			if err != nil {
				t.Fatalf("ParsePublicJWK: %v", err)
			}
			revs := newFakeRevocations()
			revs.setApp("app-1", 0)
			v := NewVerifier(Config{Issuer: testIssuer, Audience: testAudience,
				Keys: fakeKeys{"k": {tc.alg, key}}, Revocations: revs, Now: func() time.Time { return t0 }})
			if _, perr := v.Verify(signWith(t, tc.method, tc.priv, "k", claimsAt(t0))); perr != nil {
				t.Fatalf("Verify with the parsed key: %v", perr)
			}
		})
	}
}

func TestParsePublicJWKRejects(t *testing.T) {
	sk := testKeys()
	ec := ecJWK(t, &sk.ec.PublicKey)
	ed := edJWK(sk.ed.Public().(ed25519.PublicKey))
	rs := rsaJWK(&sk.rs.PublicKey)
	ecPriv, _ := sk.ec.Bytes()

	oddModulus := func(bits int) string {
		b := make([]byte, (bits+7)/8)
		if _, err := rand.Read(b); err != nil {
			t.Fatal(err)
		}
		b[0] |= 0x80 >> ((8 - bits%8) % 8) // top bit set: exactly `bits` bits
		b[0] &= 0xff >> ((8 - bits%8) % 8)
		b[len(b)-1] |= 1
		return b64(b)
	}
	evenModulus := func() string {
		n := new(big.Int).Set(sk.rs.N)
		n.SetBit(n, 0, 0)
		return b64(n.Bytes())
	}()

	cases := []struct {
		name string
		alg  string
		jwk  any // marshalled unless it is a string (raw JSON text)
		msg  string
	}{
		// Garbage.
		{"not JSON", AlgES256, "{", "not a JSON object"},
		{"array", AlgES256, "[]", "not a JSON object"},
		{"null", AlgES256, "null", "not a JSON object"},
		{"string", AlgES256, `"EC"`, "not a JSON object"},
		{"empty", AlgES256, "", "not a JSON object"},
		{"empty object", AlgES256, "{}", `"kty" is missing`},
		{"kty not a string", AlgES256, withMember(ec, "kty", 1), `"kty" must be a string`},
		{"unsupported alg", "HS256", ec, "not supported"},
		{"alg none", "none", ec, "not supported"},

		// Private keys.
		{"EC private", AlgES256, withMember(ec, "d", b64(ecPriv)), `"d"`},
		{"OKP private", AlgEdDSA, withMember(ed, "d", b64(sk.ed.Seed())), `"d"`},
		{"RSA private", AlgRS256, withMember(rs, "d", b64(sk.rs.D.Bytes())), `"d"`},
		{"RSA private p only", AlgRS256, withMember(rs, "p", b64(sk.rs.Primes[0].Bytes())), `"p"`},
		{"d with any value refused", AlgES256, withMember(ec, "d", "x"), `"d"`},
		{"symmetric k", AlgES256, withMember(ec, "k", "c2VjcmV0"), `"k"`},

		// Alg / kty / crv mismatches.
		{"ES256 with OKP", AlgES256, ed, `"kty" must be "EC"`},
		{"ES256 with RSA", AlgES256, rs, `"kty" must be "EC"`},
		{"EdDSA with EC", AlgEdDSA, ec, `"kty" must be "OKP"`},
		{"RS256 with EC", AlgRS256, ec, `"kty" must be "RSA"`},
		{"RS256 with oct", AlgRS256, map[string]any{"kty": "oct"}, `"kty" must be "RSA"`},
		{"jwk alg differs", AlgES256, withMember(ec, "alg", "ES384"), `"alg"`},
		{"jwk alg not a string", AlgES256, withMember(ec, "alg", 5), `"alg" must be a string`},
		{"use enc", AlgES256, withMember(ec, "use", "enc"), `"use"`},
		{"key_ops without verify", AlgES256, withMember(ec, "key_ops", []string{"encrypt"}), `"key_ops"`},
		{"key_ops not an array", AlgES256, withMember(ec, "key_ops", "verify"), `"key_ops"`},
		{"EC P-384", AlgES256, withMember(ec, "crv", "P-384"), `"crv" must be "P-256"`},
		{"EC crv missing", AlgES256, withMember(ec, "crv", nil), `"crv" is missing`},
		{"OKP X25519", AlgEdDSA, withMember(ed, "crv", "X25519"), `"crv" must be "Ed25519"`},
		{"OKP Ed448", AlgEdDSA, withMember(ed, "crv", "Ed448"), `"crv" must be "Ed25519"`},

		// Bad coordinates.
		{"EC x missing", AlgES256, withMember(ec, "x", nil), `"x" is missing`},
		{"EC y missing", AlgES256, withMember(ec, "y", nil), `"y" is missing`},
		{"EC x not base64url", AlgES256, withMember(ec, "x", "***"), `"x" is not unpadded base64url`},
		{"EC x padded", AlgES256, withMember(ec, "x", ec["x"].(string)+"="), `"x" is not unpadded base64url`},
		{"EC x standard base64", AlgES256, withMember(ec, "x", strings.NewReplacer("-", "+", "_", "/").Replace(ec["x"].(string))+"+/"), `"x"`},
		{"EC x short", AlgES256, withMember(ec, "x", b64(make([]byte, 31))), `"x" must be 32 bytes`},
		{"EC y long", AlgES256, withMember(ec, "y", b64(make([]byte, 33))), `"y" must be 32 bytes`},
		{"EC x empty", AlgES256, withMember(ec, "x", ""), `"x" is empty`},
		{"EC point not on curve", AlgES256, withMember(ec, "y", b64(append(make([]byte, 31), 7))), "not a point on P-256"},
		{"OKP x short", AlgEdDSA, withMember(ed, "x", b64(make([]byte, 31))), `"x" must be 32 bytes`},
		{"OKP x number", AlgEdDSA, withMember(ed, "x", 12), `"x" must be a string`},

		// RSA sizes and exponents.
		{"RSA 1024", AlgRS256, withMember(rs, "n", oddModulus(1024)), "1024-bit"},
		{"RSA 2047", AlgRS256, withMember(rs, "n", oddModulus(2047)), "2047-bit"},
		{"RSA 8200", AlgRS256, withMember(rs, "n", oddModulus(8200)), "8200-bit"},
		{"RSA even modulus", AlgRS256, withMember(rs, "n", evenModulus), `"n" is even`},
		{"RSA n missing", AlgRS256, withMember(rs, "n", nil), `"n" is missing`},
		{"RSA e missing", AlgRS256, withMember(rs, "e", nil), `"e" is missing`},
		{"RSA e = 1", AlgRS256, withMember(rs, "e", b64([]byte{1})), `"e"`},
		{"RSA e even", AlgRS256, withMember(rs, "e", b64([]byte{1, 0, 0})), `"e"`},
		{"RSA e too large", AlgRS256, withMember(rs, "e", b64([]byte{1, 0, 0, 0, 1})), `"e" is too large`},
		{"RSA e 2^32-1", AlgRS256, withMember(rs, "e", b64([]byte{0xff, 0xff, 0xff, 0xff})), `"e"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var raw json.RawMessage
			if s, ok := tc.jwk.(string); ok {
				raw = json.RawMessage(s)
			} else {
				raw = mustJSON(t, tc.jwk)
			}
			key, err := ParsePublicJWK(tc.alg, raw)
			if err == nil {
				t.Fatalf("accepted: %T", key)
			}
			if key != nil {
				t.Errorf("key %T returned with an error", key)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not contain %q", err, tc.msg)
			}
			// Never echo key material.
			var members map[string]any
			_ = json.Unmarshal(raw, &members)
			for _, name := range []string{"x", "y", "n", "e", "d", "p", "k"} {
				if s, ok := members[name].(string); ok && len(s) >= 8 && strings.Contains(err.Error(), s) {
					t.Errorf("error echoes member %q", name)
				}
			}
		})
	}
}

func TestParsePublicJWKLeadingZeroModulus(t *testing.T) {
	// A leading zero octet does not change the modulus; the bit length is what
	// counts.
	rs := rsaJWK(&testKeys().rs.PublicKey)
	n, _ := base64.RawURLEncoding.DecodeString(rs["n"].(string))
	key, err := ParsePublicJWK(AlgRS256, mustJSON(t, withMember(rs, "n", b64(append([]byte{0}, n...)))))
	if err != nil {
		t.Fatal(err)
	}
	if key.(*rsa.PublicKey).N.Cmp(testKeys().rs.N) != 0 {
		t.Fatal("modulus changed")
	}
}
