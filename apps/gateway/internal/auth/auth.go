// Package auth verifies the client tokens of PROTOCOL.md ("Tokens and
// permissions") and answers what a verified token permits.
//
// Tokens are JWTs minted by the portal and verified locally against the public
// keys the catalog carries (kind key/), then checked against the catalog's
// revocations (kinds revoked/ and app/). Every check fails closed: anything the
// verifier cannot positively accept is rejected with a protocol error whose
// message says why, never echoing the token or key material.
package auth

import (
	"crypto"
	"time"
)

// KeyStore gives the public verification key for a kid. The catalog implements
// it from its key/ entries; the alg it returns is the only alg a token signed
// with that kid may claim, which is what rules out algorithm confusion.
type KeyStore interface {
	VerificationKey(kid string) (alg string, key crypto.PublicKey, ok bool)
}

// RevocationStore answers revocation questions. The catalog implements it from
// its revoked/ and app/ entries. Both methods run on every Verify and Recheck, so
// they should be cheap and safe for concurrent use.
type RevocationStore interface {
	// JTIRevoked reports whether the token with this jti was revoked.
	JTIRevoked(jti string) bool
	// AppTokensNotBefore: known=false if the app is not in the catalog (then every
	// token of it is rejected); tokens with iat < notBefore are revoked (notBefore
	// 0 = none revoked).
	AppTokensNotBefore(appID string) (notBefore int64, known bool)
}

// Claims is what a verified token says: who it is for and what it permits.
// Times are Unix seconds. The connections using one token share its Claims:
// never modify them.
type Claims struct {
	// App is the app id (the token's sub).
	App string
	// JTI is the token id, the unit of single-token revocation.
	JTI string
	// IssuedAt is the token's iat; app-wide revocation compares against it.
	IssuedAt int64
	// ExpiresAt is the token's exp: the token is valid while now < ExpiresAt.
	ExpiresAt int64
	// Permissions are the token's permissions, validated and precompiled.
	Permissions Permissions
}

// Config configures a Verifier.
type Config struct {
	// Issuer must equal the token's iss.
	Issuer string
	// Audience must be one of the token's aud values.
	Audience string
	// Keys resolves a token's kid to its alg and public key.
	Keys KeyStore
	// Revocations answers jti and app revocation.
	Revocations RevocationStore
	// Now is the clock; nil means time.Now. Tests inject a fixed clock.
	Now func() time.Time
}
