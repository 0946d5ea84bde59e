package auth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"errors"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// MaxTokenBytes bounds the token Verify will look at. A real token is a few
// hundred bytes to a few KiB; the bound keeps base64 and JSON work on hostile
// input small.
const MaxTokenBytes = 64 << 10

// Leeway is the clock skew tolerated on nbf and iat (PROTOCOL.md); exp gets none.
const Leeway = 60

// allowedAlgs are the only JWS algorithms golang-jwt may even consider.
var allowedAlgs = []string{AlgES256, AlgEdDSA, AlgRS256}

// Verifier checks tokens against the catalog's keys and revocations. It is
// immutable and safe for concurrent use.
type Verifier struct {
	issuer      string
	audience    string
	keys        KeyStore
	revocations RevocationStore
	now         func() time.Time
	parser      *jwt.Parser
	cache       *verifiedCache
}

// NewVerifier builds a Verifier. A Config without Issuer, Audience, Keys or
// Revocations yields a Verifier that rejects every token (CodeInternal): an
// empty issuer or audience would otherwise match tokens that lack the claim.
func NewVerifier(cfg Config) *Verifier {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Verifier{
		issuer:      cfg.Issuer,
		audience:    cfg.Audience,
		keys:        cfg.Keys,
		revocations: cfg.Revocations,
		now:         now,
		parser: jwt.NewParser(
			jwt.WithValidMethods(allowedAlgs),
			jwt.WithoutClaimsValidation(), // Verify checks every claim itself
			jwt.WithStrictDecoding(),      // one encoding per token: no malleable trailing bits
		),
		cache: newVerifiedCache(),
	}
}

func (v *Verifier) configured() *protocol.Error {
	if v == nil || v.issuer == "" || v.audience == "" || v.keys == nil || v.revocations == nil {
		return protocol.Errorf(protocol.CodeInternal, "token verifier is not configured")
	}
	return nil
}

// Verify parses and fully checks a compact JWS: signature (alg must be the alg
// the KeyStore holds for the kid), iss, aud, exp, nbf, iat, sub, jti,
// permissions, then revocation. It returns CodeUnauthenticated for anything
// wrong with the token itself or an unknown app, CodeTokenRevoked for a revoked
// jti or app, and CodeTokenExpired for a token past its exp. Revocation is
// checked before expiry so a revoked token is always reported as revoked (the
// client must stop rather than simply fetch a new token). A Verifier built
// from an incomplete Config answers CodeInternal. Messages say why and never
// include the token.
//
// A token that passed is remembered (cache.go): the same token again skips the
// signature check while its key is unchanged, and gets the same *Claims.
func (v *Verifier) Verify(token string) (*Claims, *protocol.Error) {
	if perr := v.configured(); perr != nil {
		return nil, perr
	}
	if token == "" {
		return nil, unauthenticated("token is missing")
	}
	if len(token) > MaxTokenBytes {
		return nil, unauthenticated("token is longer than %d bytes", MaxTokenBytes)
	}
	if strings.Count(token, ".") != 2 {
		return nil, unauthenticated("token is malformed: a compact JWS has three dot-separated parts")
	}

	h := sha256.Sum256([]byte(token))
	if e := v.cache.get(h); e != nil {
		if e.stillSigned(v.keys) {
			now := v.now().Unix()
			if perr := notYetValid(e.claims.IssuedAt, e.nbf, e.hasNbf, now); perr != nil {
				return nil, perr
			}
			if perr := v.live(e.claims, now, false); perr != nil {
				return nil, perr
			}
			return e.claims, nil
		}
		v.cache.drop(h)
	}

	set := claimSet{}
	var keyErr *protocol.Error
	keyLookedUp := false
	signer := &verified{}
	tok, err := v.parser.ParseWithClaims(token, &set, func(t *jwt.Token) (any, error) {
		keyLookedUp = true
		key, perr := v.keyFor(t)
		if perr != nil {
			keyErr = perr
			return nil, perr
		}
		signer.kid, _ = t.Header["kid"].(string)
		signer.alg, _ = t.Header["alg"].(string)
		signer.key = key
		return key, nil
	})
	switch {
	case keyErr != nil:
		return nil, keyErr
	case err != nil:
		return nil, parseError(tok, err, keyLookedUp)
	}

	now := v.now().Unix()
	c, perr := v.claims(set, now)
	if perr != nil {
		return nil, perr
	}
	if perr := v.live(c, now, false); perr != nil {
		return nil, perr
	}
	signer.claims = c
	signer.nbf, signer.hasNbf, _ = set.numericDate("nbf")
	v.cache.put(h, signer)
	return c, nil
}

// Recheck re-applies the time-dependent and revocation checks to claims that
// Verify returned: live connections call it when the catalog changes and from a
// periodic sweep. nil means still valid. An app that has disappeared from the
// catalog since is reported as revoked (4009): CATALOG.md says deleting an app
// revokes all its tokens. nbf and iat are not rechecked: they were in the past
// (within leeway) at Verify and time only moves on.
func (v *Verifier) Recheck(c *Claims) *protocol.Error {
	if perr := v.configured(); perr != nil {
		return perr
	}
	if c == nil {
		return unauthenticated("not authenticated")
	}
	return v.live(c, v.now().Unix(), true)
}

// keyFor resolves the token's kid and refuses any mismatch between the header
// alg, the alg the catalog registered for that kid and the key's type.
func (v *Verifier) keyFor(t *jwt.Token) (any, *protocol.Error) {
	alg, _ := t.Header["alg"].(string)
	if _, ok := t.Header["crit"]; ok {
		// RFC 7515 section 4.1.11: critical extensions we do not implement make
		// the token invalid.
		return nil, unauthenticated("token header has crit extensions, which are not supported")
	}
	kid, ok := t.Header["kid"].(string)
	if !ok || kid == "" {
		return nil, unauthenticated("token header has no kid")
	}
	keyAlg, key, ok := v.keys.VerificationKey(kid)
	if !ok {
		return nil, unauthenticated("token is signed with an unknown key (kid %q)", truncate(kid))
	}
	if keyAlg != alg {
		return nil, unauthenticated("token alg %s does not match the alg of key %q", alg, truncate(kid))
	}
	if !keyFitsAlg(alg, key) {
		return nil, unauthenticated("key %q cannot verify %s tokens", truncate(kid), alg)
	}
	return key, nil
}

// keyFitsAlg checks the key's Go type (and curve) against alg, so a catalog
// entry with the wrong kind of key can never be used.
func keyFitsAlg(alg string, key any) bool {
	switch alg {
	case AlgES256:
		k, ok := key.(*ecdsa.PublicKey)
		return ok && k != nil && k.Curve == elliptic.P256()
	case AlgEdDSA:
		k, ok := key.(ed25519.PublicKey)
		return ok && len(k) == ed25519.PublicKeySize
	case AlgRS256:
		k, ok := key.(*rsa.PublicKey)
		return ok && k != nil && k.N != nil && k.N.BitLen() >= MinRSABits && k.N.BitLen() <= MaxRSABits
	}
	return false
}

// parseError turns a golang-jwt error into a protocol error with a fixed
// message: the library's messages can quote decoder errors, which we do not
// want to pass on.
func parseError(tok *jwt.Token, err error, keyLookedUp bool) *protocol.Error {
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed):
		return unauthenticated("token is malformed: each part must be base64url, header and claims JSON objects")
	case !keyLookedUp:
		// The alg was missing, unknown or outside allowedAlgs: golang-jwt checks
		// that before asking for a key.
		alg := ""
		if tok != nil {
			alg, _ = tok.Header["alg"].(string)
		}
		if alg == "" {
			return unauthenticated("token header has no alg")
		}
		return unauthenticated("token alg %q is not allowed (ES256, EdDSA, RS256)", truncate(alg))
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return unauthenticated("token signature is invalid")
	}
	return unauthenticated("token could not be verified")
}

// claims types and checks the payload of a token whose signature is valid.
func (v *Verifier) claims(set claimSet, now int64) (*Claims, *protocol.Error) {
	iss, perr := set.requiredString("iss")
	if perr != nil {
		return nil, perr
	}
	if iss != v.issuer {
		return nil, unauthenticated("token iss %q is not %q", truncate(iss), truncate(v.issuer))
	}
	if perr := set.audience(v.audience); perr != nil {
		return nil, perr
	}
	c := &Claims{}
	if c.App, perr = set.requiredString("sub"); perr != nil {
		return nil, perr
	}
	if c.JTI, perr = set.requiredString("jti"); perr != nil {
		return nil, perr
	}
	exp, ok, perr := set.numericDate("exp")
	if perr != nil {
		return nil, perr
	}
	if !ok {
		return nil, unauthenticated("token has no exp claim")
	}
	iat, ok, perr := set.numericDate("iat")
	if perr != nil {
		return nil, perr
	}
	if !ok {
		return nil, unauthenticated("token has no iat claim")
	}
	nbf, hasNbf, perr := set.numericDate("nbf")
	if perr != nil {
		return nil, perr
	}
	c.IssuedAt, c.ExpiresAt = iat, exp
	if c.Permissions, perr = set.permissions(); perr != nil {
		return nil, perr
	}
	if perr := notYetValid(iat, nbf, hasNbf, now); perr != nil {
		return nil, perr
	}
	return c, nil
}

// notYetValid applies nbf and iat (with Leeway) at now.
func notYetValid(iat, nbf int64, hasNbf bool, now int64) *protocol.Error {
	if hasNbf && nbf > now+Leeway {
		return unauthenticated("token is not valid yet (nbf)")
	}
	if iat > now+Leeway {
		return unauthenticated("token iat is in the future")
	}
	return nil
}

// live applies the checks that can change after a token was accepted:
// revocation of the jti, of the app, and expiry.
func (v *Verifier) live(c *Claims, now int64, recheck bool) *protocol.Error {
	if v.revocations.JTIRevoked(c.JTI) {
		return protocol.Errorf(protocol.CodeTokenRevoked, "token revoked")
	}
	notBefore, known := v.revocations.AppTokensNotBefore(c.App)
	if !known {
		if recheck {
			return protocol.Errorf(protocol.CodeTokenRevoked, "app %q was deleted; its tokens are revoked", truncate(c.App))
		}
		return unauthenticated("token is for an unknown app %q", truncate(c.App))
	}
	if c.IssuedAt < notBefore {
		return protocol.Errorf(protocol.CodeTokenRevoked, "all tokens of this app were revoked")
	}
	if now >= c.ExpiresAt {
		return protocol.Errorf(protocol.CodeTokenExpired, "token expired")
	}
	return nil
}
