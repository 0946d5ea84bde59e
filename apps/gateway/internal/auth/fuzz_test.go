package auth

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// FuzzVerify feeds arbitrary strings to Verify: it must never panic, never
// return both or neither of claims and error, only use the token codes, and
// accept nothing but what was actually signed.
//
// Keys are derived from fixed bytes so the seeds the coordinator signs verify in
// every fuzz worker too; acceptance is checked against the signed content
// (header.payload), since ES256 signatures differ from process to process.
func FuzzVerify(f *testing.F) {
	ec, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), bytes.Repeat([]byte{0x42}, 32))
	if err != nil {
		f.Fatal(err)
	}
	ed := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{0x24}, ed25519.SeedSize))
	rs := testKeys().rs // random per process: its seeds only verify in the coordinator

	revs := newFakeRevocations()
	revs.setApp("app-1", 0)
	revs.setApp("app-2", t0.Unix()-100)
	revs.revokeJTI("jti-revoked")
	keys := fakeKeys{
		"ec1": {AlgES256, &ec.PublicKey},
		"ed1": {AlgEdDSA, ed.Public()},
		"rs1": {AlgRS256, &rs.PublicKey},
	}
	v := NewVerifier(Config{Issuer: testIssuer, Audience: testAudience, Keys: keys, Revocations: revs,
		Now: func() time.Time { return t0 }})

	signed := map[string]bool{} // header.payload of every token signed here
	add := func(tok string) {
		if i := strings.LastIndexByte(tok, '.'); i > 0 {
			signed[tok[:i]] = true
		}
		f.Add(tok)
	}
	base := claimsAt(t0)
	add(signWith(f, jwt.SigningMethodES256, ec, "ec1", base))
	add(signWith(f, jwt.SigningMethodEdDSA, ed, "ed1", base))
	add(signWith(f, jwt.SigningMethodRS256, rs, "rs1", base))
	add(signWith(f, jwt.SigningMethodEdDSA, ed, "ed1", with(base, "aud", []string{"x", testAudience}, "nbf", t0.Unix())))
	add(signWith(f, jwt.SigningMethodEdDSA, ed, "ed1", with(base, "permissions", map[string]any{"all": []string{"/*", "/a/b", "/prices/BRK%2eB"}})))
	add(signWith(f, jwt.SigningMethodEdDSA, ed, "ed1", with(base, "exp", t0.Unix()-1)))
	add(signWith(f, jwt.SigningMethodEdDSA, ed, "ed1", with(base, "jti", "jti-revoked")))
	add(signWith(f, jwt.SigningMethodEdDSA, ed, "ed1", with(base, "sub", "app-2", "iat", t0.Unix()-101)))
	add(signWith(f, jwt.SigningMethodEdDSA, ed, "ed1", with(base, "permissions", map[string]any{"sub": []string{"/a*"}})))
	add(signWith(f, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "ec1", base))
	add(signWith(f, jwt.SigningMethodHS256, []byte("secret"), "ec1", base))
	for _, s := range []string{"", ".", "..", "a.b.c", "eyJhbGciOiJFUzI1NiJ9..", "eyJ9.e30.", "\x00.\xff.\n"} {
		f.Add(s)
	}

	f.Fuzz(func(t *testing.T, token string) {
		c, perr := v.Verify(token)
		if perr == nil {
			if c == nil {
				t.Fatal("nil claims and nil error")
			}
			i := strings.LastIndexByte(token, '.')
			if i < 0 || !signed[token[:i]] {
				t.Fatalf("accepted a token that was never signed: %q", token)
			}
			if perr := v.Recheck(c); perr != nil && perr.Code != protocol.CodeTokenExpired {
				t.Fatalf("Recheck of accepted claims: %v", perr)
			}
			return
		}
		if c != nil {
			t.Fatalf("claims returned with error %v", perr)
		}
		switch perr.Code {
		case protocol.CodeUnauthenticated, protocol.CodeTokenExpired, protocol.CodeTokenRevoked:
		default:
			t.Fatalf("unexpected code %v", perr)
		}
		if perr.Message == "" {
			t.Fatal("empty error message")
		}
		// Static messages hold no two dots, so only a real echo could match.
		if strings.Count(token, ".") == 2 && len(token) >= 16 && strings.Contains(perr.Message, token) {
			t.Fatalf("message %q echoes the token", perr.Message)
		}
	})
}

// FuzzPattern checks that pattern parsing never panics, that canonical forms are
// fixed points, and that a wildcard entry matches exactly the paths below its
// prefix.
func FuzzPattern(f *testing.F) {
	for _, s := range []string{"/*", "/prices/*", "/prices/BRK%2eB", "/news/café/*", "/a*", "/*/x", "/a/%2A", "//*", "/t/%00", "/x/y/z/*"} {
		f.Add(s, "/prices/AAPL")
	}
	f.Fuzz(func(t *testing.T, entry, path string) {
		p, err := parsePattern(entry)
		if err != nil {
			if ValidatePattern(entry) == nil {
				t.Fatal("ValidatePattern disagrees with parsePattern")
			}
			return
		}
		again, err := parsePattern(p.canonical)
		if err != nil || again != p {
			t.Fatalf("canonical %q of %q is not a fixed point: %+v, %v", p.canonical, entry, again, err)
		}
		perms, err := NewPermissions([]string{entry}, nil, nil)
		if err != nil {
			t.Fatalf("NewPermissions rejects %q that parsePattern accepted: %v", entry, err)
		}
		got := perms.Allows(protocol.OpSubscribe, path)
		var want bool
		if p.prefix != "" {
			want = strings.HasPrefix(path, p.prefix)
		} else {
			want = path == p.canonical
		}
		if got != want {
			t.Fatalf("Allows(%q) with %q = %v, want %v", path, entry, got, want)
		}
		if perms.Allows(protocol.OpPublish, path) {
			t.Fatal("a sub entry allowed publish")
		}
	})
}
