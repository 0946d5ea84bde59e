package auth

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/golang-jwt/jwt/v5"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// maxNumericDate bounds exp/iat/nbf (9999-12-31T23:59:59Z): beyond it a float
// has no exact int64 conversion, and no real token comes near it.
const maxNumericDate = 253402300799

// claimSet is the token payload as raw members. golang-jwt decodes the payload
// into it before the signature is checked; the members are typed only after the
// signature is valid, which keeps work on forged tokens minimal and lets every
// type error name its claim.
type claimSet map[string]json.RawMessage

// The jwt.Claims methods are never consulted: the parser runs with
// WithoutClaimsValidation and Verify checks every claim itself (golang-jwt's
// leeway would also apply to exp, which PROTOCOL.md does not allow).
func (claimSet) GetExpirationTime() (*jwt.NumericDate, error) { return nil, nil }
func (claimSet) GetIssuedAt() (*jwt.NumericDate, error)       { return nil, nil }
func (claimSet) GetNotBefore() (*jwt.NumericDate, error)      { return nil, nil }
func (claimSet) GetIssuer() (string, error)                   { return "", nil }
func (claimSet) GetSubject() (string, error)                  { return "", nil }
func (claimSet) GetAudience() (jwt.ClaimStrings, error)       { return nil, nil }

// present reports whether the claim is there and not JSON null; a null claim is
// treated as absent.
func (c claimSet) present(name string) bool {
	raw, ok := c[name]
	return ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// requiredString reads a claim that must be a non-empty string.
func (c claimSet) requiredString(name string) (string, *protocol.Error) {
	if !c.present(name) {
		return "", unauthenticated("token has no %s claim", name)
	}
	var s string
	if err := json.Unmarshal(c[name], &s); err != nil {
		return "", unauthenticated("token %s claim must be a string", name)
	}
	if s == "" {
		return "", unauthenticated("token %s claim is empty", name)
	}
	return s, nil
}

// numericDate reads a NumericDate claim (RFC 7519: seconds, possibly
// fractional) as whole Unix seconds. ok is false when the claim is absent.
func (c claimSet) numericDate(name string) (secs int64, ok bool, perr *protocol.Error) {
	if !c.present(name) {
		return 0, false, nil
	}
	var f float64
	if err := json.Unmarshal(c[name], &f); err != nil {
		return 0, false, unauthenticated("token %s claim must be a number of seconds", name)
	}
	if math.IsNaN(f) || f < 0 || f > maxNumericDate {
		return 0, false, unauthenticated("token %s claim is out of range", name)
	}
	return int64(math.Floor(f)), true, nil
}

// audience reads aud, a string or an array of strings, and reports whether it
// contains want.
func (c claimSet) audience(want string) *protocol.Error {
	if !c.present("aud") {
		return unauthenticated("token has no aud claim")
	}
	var aud jwt.ClaimStrings
	if err := json.Unmarshal(c["aud"], &aud); err != nil {
		return unauthenticated("token aud claim must be a string or an array of strings")
	}
	for _, a := range aud {
		if a == want {
			return nil
		}
	}
	return unauthenticated("token aud claim does not include %q", truncate(want))
}

// permissions reads the optional permissions claim and validates every entry.
func (c claimSet) permissions() (Permissions, *protocol.Error) {
	if !c.present("permissions") {
		return Permissions{}, nil
	}
	sub, pub, all, err := decodePermissionLists(c["permissions"])
	if err != nil {
		return Permissions{}, unauthenticated("token %s", err.Error())
	}
	p, err := NewPermissions(sub, pub, all)
	if err != nil {
		return Permissions{}, unauthenticated("token has an invalid permission: %s", err.Error())
	}
	return p, nil
}

func unauthenticated(format string, args ...any) *protocol.Error {
	return protocol.Errorf(protocol.CodeUnauthenticated, format, args...)
}
